//===- GraphBuilder.h - Build the core graph from a joint function -*- C++
//-*-===//
//
// Part of remat. The adapter between IR and the MLIR-free planning core: it
// turns a function marked `remat.graph = "joint"` into a remat::Graph
// through PlannerOpInterface, and keeps the maps back to the IR so passes can
// write decisions onto the ops they came from.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_GRAPHBUILDER_H
#define REMAT_TRANSFORMS_GRAPHBUILDER_H

#include "remat/Core/Graph.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/AnalysisManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace remat {

/// A joint function as the core sees it, with the correspondence both ways.
/// Value ids follow IR order: arguments first, then op results in program
/// order, so the ids (and everything derived from them) are deterministic.
struct ImportedGraph {
  Graph graph;
  std::vector<mlir::Value> valueOf;    // ValueId -> Value
  std::vector<mlir::Operation *> opOf; // OpId -> Operation
  llvm::DenseMap<mlir::Value, ValueId> valueIds;
  llvm::DenseMap<mlir::Operation *, OpId> opIds;
  /// Unique per function; see buildGraph for how names are chosen.
  llvm::StringMap<ValueId> valueByName;

  ValueId idOf(mlir::Value value) const {
    auto it = valueIds.find(value);
    return it == valueIds.end() ? kNoId : it->second;
  }
  OpId idOf(mlir::Operation *op) const {
    auto it = opIds.find(op);
    return it == opIds.end() ? kNoId : it->second;
  }
  const std::string &nameOf(mlir::Value value) const {
    return graph.value(idOf(value)).name;
  }
};

/// Builds the core graph of `func`, which must carry `remat.graph = "joint"`
/// and have a single block. Every op in it must implement PlannerOpInterface
/// (natively or through an external model) or have regions (then it is one
/// node of class `other` that reads every value its regions capture).
///
/// Value names: `remat.name` of the producing op (with `#<i>` appended for
/// result i of a multi-result op), else the name of a `loc("...")` on an
/// argument or op, else the SSA name the printer gives it (`%arg0`, `%3`,
/// `%cst`). A name already taken gets `.1`, `.2`, ... in IR order.
///
/// With `GraphDetail::Structure` the ops' cost facts (FLOPs, bytes, compute
/// class, randomness, views, inverse rules) are not queried and stay at their
/// defaults: the graph is then good for classify() and for mapping a recorded
/// plan back to the IR (what remat-partition does), not for planning.
///
/// On failure an error naming the op (and how to fix it) has been emitted on
/// the IR and failure is returned.
enum class GraphDetail { Full, Structure };
mlir::FailureOr<std::unique_ptr<ImportedGraph>>
buildGraph(mlir::FunctionOpInterface func,
           GraphDetail detail = GraphDetail::Full);

/// The core graph of one joint function, cached as an MLIR analysis on the
/// function so that remat-plan, remat-report and remat-partition in one
/// pipeline build it once. The graph depends only on the function's ops,
/// their types, locations and `remat.name`/tag/phase attributes, and on the
/// argument and result roles; remat-plan and remat-report change none of
/// them (they write decisions), so they keep the analysis; any other pass
/// invalidates it unless it marks it preserved, as for any MLIR analysis.
class JointGraphAnalysis {
public:
  explicit JointGraphAnalysis(mlir::Operation *) {}

  /// Set by getOrBuildGraph once a build succeeded; null before.
  std::unique_ptr<ImportedGraph> imported;
  GraphDetail detail = GraphDetail::Structure;
  /// classify(imported->graph), when a pass already computed it (remat-plan
  /// keeps the planner's, which classifies the same graph).
  std::optional<Classification> classification;
  /// Per OpId, the op's attribute dictionary without remat-plan's entries,
  /// as remat-plan found it (null where unknown); remat-partition puts it on
  /// its copies instead of filtering the entries out again.
  std::vector<mlir::DictionaryAttr> unplannedAttrs;
};

/// The graph of `func` at `detail` or more: the one cached in `analyses` (the
/// pass's analysis manager, or one nested above `func`) when there is one,
/// else built by buildGraph and cached there. A failed build caches nothing.
mlir::FailureOr<ImportedGraph *>
getOrBuildGraph(mlir::FunctionOpInterface func, mlir::AnalysisManager analyses,
                GraphDetail detail = GraphDetail::Full);

/// The cached analysis of `func` in `analyses`, if a pass built its graph and
/// it was not invalidated since; null otherwise.
JointGraphAnalysis *getCachedGraphAnalysis(mlir::FunctionOpInterface func,
                                           mlir::AnalysisManager analyses);

/// Whether `func` is marked as a joint training graph.
bool isJointFunction(mlir::FunctionOpInterface func);

} // namespace remat

#endif // REMAT_TRANSFORMS_GRAPHBUILDER_H
