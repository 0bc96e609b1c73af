//===- remat-opt.cpp - mlir-opt with remat ---------------------------------===//
//
// Part of remat. Every upstream dialect and pass, plus remat's.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAllRemat.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  remat::registerAllRematPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  remat::registerAllRematDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "remat optimizer driver: plan, partition and lower training "
                  "graphs\n",
      registry));
}
