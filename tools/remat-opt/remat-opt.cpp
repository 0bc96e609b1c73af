//===- remat-opt.cpp - mlir-opt with remat ---------------------------------===//
//
// Part of remat. Every upstream dialect and pass, plus remat's. Unlike
// mlir-opt, a diagnostic does not print the op it is attached to unless
// -mlir-print-op-on-diagnostic is given (remat's errors are on functions).
//
//===----------------------------------------------------------------------===//

#include "remat/InitAllRemat.h"
#include "remat/Tools/DiagnosticOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  remat::registerAllRematPasses();
  remat::registerDiagnosticOptions();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  remat::registerAllRematDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "remat optimizer driver: plan, partition and lower training "
                  "graphs\n",
      registry));
}
