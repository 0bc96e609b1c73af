//===- remat-translate.cpp - mlir-translate with remat's importers -------===//
//
// Part of remat. `remat-translate --import-checkmate-json graph.json -o
// graph.mlir`; the translations live in lib/Import.
//
//===----------------------------------------------------------------------===//

#include "remat/Import/CheckmateToMLIR.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  remat::registerCheckmateImportTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "remat translation tool"));
}
