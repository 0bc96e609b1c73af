//===- CheckmateToMLIR.h - Checkmate JSON graphs as joint functions -*- C++
//-*-===//
//
// Part of remat. Turns a Checkmate / Moccasin benchmark graph (networkx
// node-link JSON, both schemas; see remat/Core/CheckmateImport.h) into a
// module with one `remat.graph = "joint"` function that remat-plan and the
// other passes accept:
//
//   * every node is a `remat.opaque "<node name>"` op with one
//     tensor<N x i8> result (N = the node's output bytes), its profiled cost
//     as `remat.fixed_time_us` (which replaces the roofline), compute class
//     `other`, `remat.name` = the node name and an explicit `remat.phase`
//     (the model graphs' `backward` flag; random layered graphs are all
//     forward, since their schema has no phase);
//   * parameters (`param_cost` of the random graphs) are arguments with
//     remat.role = "param";
//   * nodes nobody reads are the results (role "grad" for backward nodes,
//     "output" otherwise).
//
// Parsing, dangling links and cycles are checked by the core reader, so the
// IR form and the core form of a graph never disagree.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_IMPORT_CHECKMATETOMLIR_H
#define REMAT_IMPORT_CHECKMATETOMLIR_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace remat {

/// Imports `json` into a new module holding one joint function named
/// `functionName`. On a malformed or inconsistent graph, emits one error at
/// `loc` that says what is wrong and returns null.
mlir::OwningOpRef<mlir::ModuleOp>
importCheckmateGraph(llvm::StringRef json, llvm::StringRef functionName,
                     mlir::Location loc);

/// A valid symbol from a file name: its stem with characters other than
/// letters, digits and `_` replaced by `_` ("VGG16_b256_224x224_train").
std::string checkmateFunctionName(llvm::StringRef fileName);

/// Registers `--import-checkmate-json` with mlir-translate-style tools.
void registerCheckmateImportTranslation();

} // namespace remat

#endif // REMAT_IMPORT_CHECKMATETOMLIR_H
