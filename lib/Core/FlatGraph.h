//===- FlatGraph.h - The graph as flat arrays for the passes ----*- C++ -*-===//
//
// Part of remat. `Graph` keeps one heap object per value and per op (names,
// shapes, operand vectors): convenient to build, but a pass that follows an
// edge pays a cache miss per edge once the graph outgrows the cache (1M-op
// graphs take ~0.6 GiB). Planning makes a dozen such passes, so it first
// copies the facts the passes read into flat per-value and per-op arrays
// (operands and results in compressed-sparse-row form), once, and every pass
// reads those. The `Graph` is still used for names and error messages.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CORE_FLATGRAPH_H
#define REMAT_LIB_CORE_FLATGRAPH_H

#include "remat/Core/CostModel.h"
#include "remat/Core/Graph.h"
#include "remat/Core/Simulator.h"

#include "absl/types/span.h"

#include <cstdint>
#include <limits>
#include <vector>

namespace remat::detail {

/// a + b for byte counts (both >= 0), saturating at INT64_MAX as tensor
/// sizes do (TensorType::bytes).
inline int64_t saturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b
             ? std::numeric_limits<int64_t>::max()
             : a + b;
}

struct FlatGraph {
  /// Op bit flags (`opFlags`).
  enum OpFlag : uint8_t {
    kRandom = 1 << 0,         // isRandom or the Random compute class
    kView = 1 << 1,           // isView or the View compute class
    kNeverRecompute = 1 << 2, // tags
    kNoAutoRecompute = 1 << 3,
    kMustRecompute = 1 << 4,
    kHasInverseRules = 1 << 5,
    kPreferRecompute = 1 << 6,
    kPreferSave = 1 << 7,
  };
  /// `inputRole` of a value produced by an op.
  static constexpr int8_t kNotInput = -1;
  /// `explicitPhase` of an op without one.
  static constexpr int8_t kNoPhase = -1;

  // Per value, indexed by ValueId.
  std::vector<OpId> producer;       // kNoId for graph inputs
  std::vector<int8_t> inputRole;    // InputRole, or kNotInput
  std::vector<OutputRole> outputRole;
  std::vector<DType> dtype;
  std::vector<int64_t> elements; // TensorType::numElements()
  // Bytes per value (TensorType::bytes()) are in SimulationTables::valueBytes.
  /// Whether the value or its producer has a name, i.e. reasons call it
  /// something else than "%id" (reading the name would cost a miss).
  std::vector<uint8_t> named;

  // Per op, indexed by OpId; operands/results of op i are
  // [operandBegin[i], operandBegin[i + 1]) of `operandIds` (likewise
  // results).
  std::vector<uint32_t> operandBegin; // numOps + 1
  std::vector<ValueId> operandIds;
  std::vector<uint32_t> resultBegin; // numOps + 1
  std::vector<ValueId> resultIds;
  std::vector<ComputeClass> computeClass;
  std::vector<uint8_t> opFlags; // OpFlag bits
  std::vector<int8_t> explicitPhase; // Phase, or kNoPhase
  std::vector<double> flops;         // GraphOp::flops
  /// GraphOp::workspaceBytes; empty when no op has a workspace (most
  /// graphs), so that planning them pays nothing for it.
  std::vector<int64_t> workspaceBytes;
  bool hasInverseRules = false;
  /// Whether any op is tagged prefer_recompute or prefer_save.
  bool hasPreferences = false;

  size_t numValues() const { return producer.size(); }
  size_t numOps() const { return computeClass.size(); }
  absl::Span<const ValueId> operands(OpId op) const {
    return absl::MakeConstSpan(operandIds.data() + operandBegin[op],
                               operandBegin[op + 1] - operandBegin[op]);
  }
  absl::Span<const ValueId> results(OpId op) const {
    return absl::MakeConstSpan(resultIds.data() + resultBegin[op],
                               resultBegin[op + 1] - resultBegin[op]);
  }
  bool isInput(ValueId value) const { return producer[value] == kNoId; }
  /// The bytes `op` holds while it runs only (GraphOp::workspaceBytes).
  int64_t workspace(OpId op) const {
    return workspaceBytes.empty() ? 0 : workspaceBytes[op];
  }
  bool hasFlag(OpId op, OpFlag flag) const { return (opFlags[op] & flag) != 0; }
  /// Whether `op` is a view with an operand whose storage its results share
  /// (the first operand: a view reinterprets it, see PlannerOpInterface's
  /// isViewOnly).
  bool isAliasingView(OpId op) const {
    return hasFlag(op, kView) && operandBegin[op] != operandBegin[op + 1];
  }
  /// The value whose storage `value` lives in when every op is evaluated
  /// once: `value` itself, or for a result of a view its first operand's
  /// storage (transitively). Keeping `value` keeps that storage alive.
  /// Graph::storageOf on the flat arrays (the planners' hot loops).
  ValueId storageOf(ValueId value) const {
    for (OpId op = producer[value]; op != kNoId && isAliasingView(op);
         op = producer[value])
      value = operandIds[operandBegin[op]];
    return value;
  }
};

/// Copies `graph` into flat arrays. Ids are copied, not checked: passes
/// index by them, so the graph must be valid (`Graph::validate`) or the
/// caller must check the ids it follows (as `simulateFlat` does for its
/// schedule). Fails only when the graph has more operand or result edges
/// than 32-bit offsets address. With a cost model (valid graphs only), also
/// fills `tables` as `buildSimulationTables` does (the same doubles), in the
/// same pass over the ops.
absl::StatusOr<FlatGraph> buildFlatGraph(const Graph &graph,
                                         const CostModel *costModel = nullptr,
                                         SimulationTables *tables = nullptr);

/// `Graph::validate` and `buildFlatGraph` with times in one: the checks run
/// on the values and ops as they are copied (reading an operand's producer
/// from the flat copy, not from its `GraphValue`), and on the first failure
/// `Graph::validate` is called for its error, so the messages are the same.
absl::StatusOr<FlatGraph> buildValidatedFlatGraph(const Graph &graph,
                                                  const CostModel &costModel,
                                                  SimulationTables &tables);

/// `CostModel::predictTimeUs` with operand/result dtypes from the flat form
/// and bytes from `valueBytes` (per value).
double predictOpTimeUs(const CostModel &costModel, const Graph &graph,
                       const FlatGraph &flat,
                       const std::vector<int64_t> &valueBytes, OpId op);

/// `classify` on a validated graph and its flat form.
absl::StatusOr<Classification> classifyFlat(const Graph &graph,
                                            const FlatGraph &flat);

/// `simulate` on the flat form (`graph` names values and ops in errors).
absl::StatusOr<SimulationResult> simulateFlat(const Graph &graph,
                                              const FlatGraph &flat,
                                              const Classification &phases,
                                              const Schedule &schedule,
                                              const SimulationTables &tables);

} // namespace remat::detail

#endif // REMAT_LIB_CORE_FLATGRAPH_H
