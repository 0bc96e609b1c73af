//===- remat-translate.cpp - mlir-translate with remat's importers -------===//
//
// Part of remat. `remat-translate --import-checkmate-json graph.json -o
// graph.mlir`; the translations live in lib/Import.
//
//===----------------------------------------------------------------------===//

#include "remat/Import/CheckmateToMLIR.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  remat::registerCheckmateImportTranslation();
  // mlirTranslateMain registers its own options (the translations, -o,
  // -split-input-file, ...) when it runs, after this: --help lists those and
  // hides the back-end options LLVM registered at start-up (-amdgpu-*, ...).
  static llvm::cl::OptionCategory translateCategory("remat-translate options");
  llvm::cl::HideUnrelatedOptions(translateCategory);
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "remat translation tool"));
}
