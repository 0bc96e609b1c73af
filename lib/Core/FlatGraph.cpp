//===- FlatGraph.cpp - The graph as flat arrays for the passes ------------===//
//
// Part of remat. One pass over the values and one over the ops of a
// validated graph, gathering what the planning passes read.
//
//===----------------------------------------------------------------------===//

#include "FlatGraph.h"

#include "absl/strings/str_cat.h"

#include <limits>

namespace remat::detail {

namespace {

/// The error `Graph::validate` reports, once the flat copy found the graph
/// invalid.
absl::Status validateError(const Graph &graph) {
  absl::Status status = graph.validate();
  if (!status.ok())
    return status;
  return absl::InternalError(
      "the planner's check of the graph found an error that Graph::validate "
      "does not report (a planner bug; please report it with the graph)");
}

/// `buildFlatGraph`; with `check`, also checks every condition
/// `Graph::validate` checks, in the same passes, and returns that function's
/// error if one fails (so the messages are the same).
absl::StatusOr<FlatGraph> buildFlat(const Graph &graph,
                                    const CostModel *costModel,
                                    SimulationTables *tables, bool check) {
  if (check && graph.hasInvalidOutputMarks())
    return validateError(graph);
  FlatGraph flat;
  const size_t numValues = graph.numValues();
  const size_t numOps = graph.numOps();
  flat.producer.resize(numValues);
  flat.inputRole.resize(numValues);
  flat.outputRole.resize(numValues);
  flat.dtype.resize(numValues);
  flat.elements.resize(numValues);
  // Bytes are only needed for the op times: written straight into the
  // tables, not copied there from the flat form.
  const bool withTimes = costModel && tables;
  if (withTimes)
    tables->valueBytes.resize(numValues);
  flat.named.resize(numValues);
  // With `check`: each value's position among its producer's results, so
  // that the op pass checks results against these flat copies instead of
  // reading every GraphValue again.
  std::vector<uint32_t> resultIndex;
  if (check)
    resultIndex.resize(numValues);
  size_t numProduced = 0;
  for (size_t id = 0; id < numValues; ++id) {
    const GraphValue &value = graph.value(static_cast<ValueId>(id));
    if (check) {
      // An input has a role and no producer; any other value a producer
      // that exists (whether that op lists it is checked per op below).
      bool ok = value.producer == kNoId
                    ? value.inputRole.has_value()
                    : !value.inputRole && value.producer >= 0 &&
                          static_cast<size_t>(value.producer) < numOps;
      for (int64_t dim : value.type.shape)
        ok = ok && dim >= 0;
      if (!ok)
        return validateError(graph);
      numProduced += value.producer != kNoId;
      resultIndex[id] = value.resultIndex;
    }
    flat.producer[id] = value.producer;
    flat.inputRole[id] = value.inputRole ? static_cast<int8_t>(*value.inputRole)
                                         : FlatGraph::kNotInput;
    flat.outputRole[id] = value.outputRole;
    flat.dtype[id] = value.type.dtype;
    const int64_t elements = value.type.numElements();
    flat.elements[id] = elements;
    if (withTimes)
      tables->valueBytes[id] = tensorBytes(elements, value.type.dtype);
    flat.named[id] = !value.name.empty();
  }

  // Edges are not counted up front (a pass over every GraphOp, ~64 MiB of
  // cache lines on 1M-op graphs): most ops have one result and a few
  // operands, and the arrays grow geometrically past that guess.
  constexpr size_t kMaxEdges = std::numeric_limits<uint32_t>::max();
  auto tooManyEdges = [&graph, kMaxEdges] {
    size_t numOperands = 0, numResults = 0;
    for (const GraphOp &op : graph.ops()) {
      numOperands += op.operands.size();
      numResults += op.results.size();
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "the graph has ", numOperands, " operand and ", numResults,
        " result edges; the planner handles at most ", kMaxEdges,
        " of each: split the graph (plan it in parts)"));
  };
  flat.operandBegin.resize(numOps + 1);
  flat.resultBegin.resize(numOps + 1);
  flat.operandIds.reserve(3 * numOps);
  flat.resultIds.reserve(numOps);
  flat.computeClass.resize(numOps);
  flat.opFlags.resize(numOps);
  flat.explicitPhase.resize(numOps);
  flat.flops.resize(numOps);
  if (withTimes)
    tables->opTimeUs.resize(numOps);
  for (size_t id = 0; id < numOps; ++id) {
    const GraphOp &op = graph.op(static_cast<OpId>(id));
    if (check) {
      // Operands exist and are defined earlier; each result names this op
      // and its position; inverse rules index existing operands.
      const OpId opId = static_cast<OpId>(id);
      bool ok = true;
      for (ValueId operand : op.operands) {
        if (operand < 0 || static_cast<size_t>(operand) >= numValues) {
          ok = false;
          break;
        }
        OpId producer = flat.producer[operand];
        ok = ok && (producer == kNoId || producer < opId);
      }
      for (size_t i = 0; ok && i < op.results.size(); ++i) {
        ValueId result = op.results[i];
        if (result < 0 || static_cast<size_t>(result) >= numValues) {
          ok = false;
          break;
        }
        ok = flat.producer[result] == opId && resultIndex[result] == i;
      }
      // `x >= 0 && x < inf` is false for NaN too.
      constexpr double kInf = std::numeric_limits<double>::infinity();
      ok =
          ok && op.flops >= 0 && op.flops < kInf && op.bytesRead >= 0 &&
          op.bytesWritten >= 0 &&
          (!op.fixedTimeUs || (*op.fixedTimeUs >= 0 && *op.fixedTimeUs < kInf));
      ok = ok && op.workspaceBytes >= 0 &&
           (op.workspaceBytes == 0 ||
            !(op.isView || op.computeClass == ComputeClass::View));
      for (const InverseRule &rule : op.inverseRules) {
        ok = ok && !op.results.empty() &&
             rule.recoveredOperand < op.operands.size();
        for (unsigned other : rule.otherOperands)
          ok = ok && other < op.operands.size();
      }
      if (!ok)
        return validateError(graph);
    }
    if (flat.operandIds.size() + op.operands.size() > kMaxEdges ||
        flat.resultIds.size() + op.results.size() > kMaxEdges)
      return tooManyEdges();
    flat.operandBegin[id] = static_cast<uint32_t>(flat.operandIds.size());
    flat.resultBegin[id] = static_cast<uint32_t>(flat.resultIds.size());
    flat.operandIds.insert(flat.operandIds.end(), op.operands.begin(),
                           op.operands.end());
    flat.resultIds.insert(flat.resultIds.end(), op.results.begin(),
                          op.results.end());
    if (!op.name.empty())
      for (ValueId result : op.results)
        if (result >= 0 && static_cast<size_t>(result) < numValues)
          flat.named[result] = 1; // else reported by Graph::validate
    flat.computeClass[id] = op.computeClass;
    uint8_t flags = 0;
    if (op.isRandom || op.computeClass == ComputeClass::Random)
      flags |= FlatGraph::kRandom;
    if (op.isView || op.computeClass == ComputeClass::View)
      flags |= FlatGraph::kView;
    if (op.tags.neverRecompute)
      flags |= FlatGraph::kNeverRecompute;
    if (op.tags.noAutoRecompute)
      flags |= FlatGraph::kNoAutoRecompute;
    if (op.tags.mustRecompute)
      flags |= FlatGraph::kMustRecompute;
    if (op.tags.preferRecompute)
      flags |= FlatGraph::kPreferRecompute;
    if (op.tags.preferSave)
      flags |= FlatGraph::kPreferSave;
    if (op.tags.preferRecompute || op.tags.preferSave)
      flat.hasPreferences = true;
    if (!op.inverseRules.empty()) {
      flags |= FlatGraph::kHasInverseRules;
      flat.hasInverseRules = true;
    }
    flat.opFlags[id] = flags;
    flat.explicitPhase[id] =
        op.phase ? static_cast<int8_t>(*op.phase) : FlatGraph::kNoPhase;
    flat.flops[id] = op.flops;
    if (op.workspaceBytes != 0) {
      flat.workspaceBytes.resize(numOps, 0);
      flat.workspaceBytes[id] = op.workspaceBytes;
    }
    if (withTimes) {
      // The op's operand and result ranges end where the next op's begin.
      flat.operandBegin[id + 1] = static_cast<uint32_t>(flat.operandIds.size());
      flat.resultBegin[id + 1] = static_cast<uint32_t>(flat.resultIds.size());
      tables->opTimeUs[id] = predictOpTimeUs(
          *costModel, graph, flat, tables->valueBytes, static_cast<OpId>(id));
    }
  }
  flat.operandBegin[numOps] = static_cast<uint32_t>(flat.operandIds.size());
  flat.resultBegin[numOps] = static_cast<uint32_t>(flat.resultIds.size());
  // Every listed result names its op and position, so listed results are
  // distinct values; if there are as many as values with a producer, every
  // such value is listed by its producer at its position.
  if (check && numProduced != flat.resultIds.size())
    return validateError(graph);
  if (withTimes) {
    tables->replayTimeUs = computeReplayTimes(
        graph, *costModel, tables->opTimeUs, &tables->fusesIntoReaders);
    // The op times read the tensors' bytes (their traffic); memory counts
    // what the runtime allocates for them.
    if (costModel->target().allocationGranularityBytes > 1)
      for (int64_t &bytes : tables->valueBytes)
        bytes = costModel->allocatedBytes(bytes);
  }
  return flat;
}

} // namespace

absl::StatusOr<FlatGraph> buildFlatGraph(const Graph &graph,
                                         const CostModel *costModel,
                                         SimulationTables *tables) {
  return buildFlat(graph, costModel, tables, /*check=*/false);
}

absl::StatusOr<FlatGraph> buildValidatedFlatGraph(const Graph &graph,
                                                  const CostModel &costModel,
                                                  SimulationTables &tables) {
  return buildFlat(graph, &costModel, &tables, /*check=*/true);
}

} // namespace remat::detail
