//===- DiagnosticOptions.cpp - How remat's tools print diagnostics --------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "remat/Tools/DiagnosticOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"

void remat::registerDiagnosticOptions(llvm::cl::OptionCategory *category) {
  // MLIR keeps these options in a lazily constructed struct: registering
  // constructs it, so the option exists to be found below, and MlirOptMain
  // registering it again later is a no-op. An MLIRContext reads the value
  // when it is constructed.
  mlir::registerMLIRContextCLOptions();
  llvm::cl::Option *option =
      llvm::cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  auto *printOp = dynamic_cast<llvm::cl::opt<bool> *>(option);
  if (!printOp)
    return;
  // Only the default changes: an explicit -mlir-print-op-on-diagnostic (or
  // =false) on the command line is parsed afterwards and wins.
  printOp->setInitialValue(false);
  if (category)
    printOp->addCategory(*category);
}
