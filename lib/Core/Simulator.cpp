//===- Simulator.cpp - Exact peak-memory and time simulation --------------===//
//
// Part of remat. Implements the memory model documented in Simulator.h in one
// pass over the schedule: every evaluation creates an instance of each of its
// results, reads resolve to the latest instance, and an instance occupies
// memory from its producing event to its last read (inclusive). A difference
// array then gives the live bytes at every event.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Simulator.h"

#include "FlatGraph.h"

#include "absl/container/flat_hash_map.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace remat {

namespace {

std::string describeStepOp(const Graph &graph, OpId op) {
  const GraphOp &graphOp = graph.op(op);
  if (!graphOp.name.empty())
    return absl::StrCat("op ", op, " '", graphOp.name, "'");
  return absl::StrCat("op ", op, " (", graphOp.kind, ")");
}

std::string describeValueName(const Graph &graph, ValueId value) {
  const GraphValue &graphValue = graph.value(value);
  if (!graphValue.name.empty())
    return absl::StrCat("value ", value, " '", graphValue.name, "'");
  return absl::StrCat("value ", value);
}

} // namespace

size_t backwardBoundary(const Schedule &schedule,
                        const Classification &phases) {
  const size_t numSteps = schedule.steps.size();
  if (schedule.backwardStart)
    return std::min(*schedule.backwardStart, numSteps);
  for (size_t i = 0; i < numSteps; ++i)
    if (phases.opPhase[schedule.steps[i]] == Phase::Backward)
      return i;
  return numSteps;
}

SimulationTables buildSimulationTables(const Graph &graph,
                                       const CostModel &costModel) {
  SimulationTables tables;
  tables.valueBytes.reserve(graph.numValues());
  for (const GraphValue &value : graph.values())
    tables.valueBytes.push_back(costModel.allocatedBytes(value.type.bytes()));
  tables.opTimeUs.reserve(graph.numOps());
  for (size_t op = 0; op < graph.numOps(); ++op)
    tables.opTimeUs.push_back(
        costModel.predictTimeUs(graph, static_cast<OpId>(op)));
  tables.replayTimeUs = computeReplayTimes(graph, costModel, tables.opTimeUs,
                                          &tables.fusesIntoReaders);
  return tables;
}

namespace {

/// Ops a fusing compiler (Inductor, XLA, nvFuser) folds into the kernel that
/// reads their result.
bool fusesIntoReader(const GraphOp &op) {
  return op.computeClass == ComputeClass::Pointwise ||
         op.computeClass == ComputeClass::View || op.isView;
}

/// Readers such an op fuses into: elementwise work, reductions and
/// normalizations are generated as fused loops.
bool fusesProducers(const GraphOp &op) {
  return fusesIntoReader(op) || op.computeClass == ComputeClass::Reduction ||
         op.computeClass == ComputeClass::Normalization;
}

} // namespace

std::vector<double>
computeReplayTimes(const Graph &graph, const CostModel &costModel,
                   const std::vector<double> &opTimeUs,
                   std::vector<uint8_t> *fusesIntoReaders) {
  std::vector<double> times = opTimeUs;
  if (fusesIntoReaders)
    fusesIntoReaders->clear();
  if (!costModel.target().fusesPointwise)
    return times;
  // Values some op reads from memory, also through views (a transpose a
  // matmul reads materialises what it views): ops are in graph order, so
  // one backwards pass carries it down view chains.
  std::vector<uint8_t> materialised(graph.numValues(), 0);
  for (size_t index = graph.numOps(); index-- > 0;) {
    const GraphOp &op = graph.op(static_cast<OpId>(index));
    bool viewOfMaterialised =
        (op.computeClass == ComputeClass::View || op.isView) &&
        std::any_of(op.results.begin(), op.results.end(),
                    [&](ValueId result) { return materialised[result]; });
    if (!fusesProducers(op) || viewOfMaterialised)
      for (ValueId operand : op.operands)
        materialised[operand] = 1;
  }
  if (fusesIntoReaders) {
    fusesIntoReaders->resize(graph.numValues());
    for (size_t value = 0; value < graph.numValues(); ++value)
      (*fusesIntoReaders)[value] = !materialised[value];
  }
  for (size_t index = 0; index < graph.numOps(); ++index) {
    const GraphOp &op = graph.op(static_cast<OpId>(index));
    if (!fusesIntoReader(op) || op.fixedTimeUs || op.results.empty() ||
        std::any_of(op.results.begin(), op.results.end(),
                    [&](ValueId result) { return materialised[result]; }))
      continue;
    // Never more than the op as its own kernel: a view is free either way
    // (its flops, if an importer gave it any, are not run).
    double peak = costModel.peakFlops(
        op.computeClass, graph.value(op.results.front()).type.dtype);
    times[index] =
        std::min(times[index], peak > 0 ? op.flops / peak * 1e6 : 0.0);
  }
  return times;
}

absl::StatusOr<SimulationResult> simulate(const Graph &graph,
                                          const Classification &phases,
                                          const Schedule &schedule,
                                          const CostModel &costModel) {
  return simulate(graph, phases, schedule,
                  buildSimulationTables(graph, costModel));
}

absl::StatusOr<SimulationResult> simulate(const Graph &graph,
                                          const Classification &phases,
                                          const Schedule &schedule,
                                          const SimulationTables &tables) {
  absl::StatusOr<detail::FlatGraph> flat = detail::buildFlatGraph(graph);
  if (!flat.ok())
    return flat.status();
  return detail::simulateFlat(graph, *flat, phases, schedule, tables);
}

namespace detail {
namespace {

/// The event pass of `simulateFlat` on a checked schedule, filling `result`.
/// `Sum` holds live-byte differences: with `uint64_t` (wrapping) it stops
/// with `overflow` set as soon as the bytes produced pass INT64_MAX, and the
/// caller runs it again with `absl::int128`.
template <typename Sum>
absl::Status simulateEvents(const Graph &graph, const FlatGraph &flat,
                            const Classification &phases,
                            const Schedule &schedule,
                            const SimulationTables &tables,
                            SimulationResult &result, bool &overflow) {
  overflow = false;
  const size_t numSteps = schedule.steps.size();
  // Events: derivations interleaved before the op step they precede.
  const int64_t numEvents =
      static_cast<int64_t>(numSteps + schedule.derivations.size());
  // Event numbers are kept in 32 bits per value (below).
  constexpr int64_t kMaxEvents = std::numeric_limits<int32_t>::max() - 1;
  if (numEvents > kMaxEvents)
    return absl::InvalidArgumentError(absl::StrFormat(
        "the schedule has %d steps and derivations; the simulator handles at "
        "most %d: plan the graph in parts",
        numEvents, kMaxEvents));
  const size_t boundaryStep = backwardBoundary(schedule, phases);

  // The latest instance of each value: when it was produced and its last
  // read so far. An instance is closed (its bytes leave `delta` after its
  // last read) when its value is produced again, or at the end; no list of
  // all instances is kept. The peak is reported saturated. 32-bit event
  // numbers: 8 bytes a value, read at random per operand.
  // Graph inputs are marked here too (kInput), so that a read looks at one
  // array whatever it reads; an input's `lastRead` only records whether
  // backward read it.
  constexpr int32_t kInput = -2;
  // An instance made by a view op shares the storage of another value's
  // instance (`storage`, produced at `storageProducedAt`; kInput for a graph
  // input): it adds no bytes, and each read of it is also a read of that
  // storage, which stays live as long as the view is read.
  struct OpenInstance {
    int32_t producedAt = -1; // -1: never produced; kInput: a graph input
    int32_t lastRead = -1;   // -1: not read yet
    ValueId storage = kNoId; // kNoId: the instance owns its bytes
    int32_t storageProducedAt = -1;
  };
  std::vector<OpenInstance> latest(graph.numValues());
  for (size_t id = 0; id < graph.numValues(); ++id) {
    if (flat.inputRole[id] == FlatGraph::kNotInput)
      continue;
    latest[id].producedAt = kInput;
    int64_t bytes = tables.valueBytes[id];
    switch (static_cast<InputRole>(flat.inputRole[id])) {
    case InputRole::Input:
      result.inputBytes = detail::saturatingAdd(result.inputBytes, bytes);
      break;
    case InputRole::Parameter:
      result.parameterBytes =
          detail::saturatingAdd(result.parameterBytes, bytes);
      break;
    case InputRole::Tangent:
      result.tangentBytes = detail::saturatingAdd(result.tangentBytes, bytes);
      break;
    case InputRole::RngState:
      break;
    }
  }
  std::vector<Sum> delta(numEvents + 1, 0);
  // With 64-bit sums: all bytes produced so far; `overflow` once they pass
  // INT64_MAX.
  int64_t produced = 0;
  std::vector<int32_t> evaluations(graph.numOps(), 0);
  int64_t boundaryEvent = numEvents;
  // Storage that views have shared (1), and storage a view that is a
  // function result holds to the end (2). A closed instance of shared
  // storage keeps its last event here, keyed by (value, producing event),
  // so that a later read of a view still sharing it extends its life.
  std::vector<uint8_t> viewed(graph.numValues(), 0);
  absl::flat_hash_map<std::pair<ValueId, int32_t>, int32_t> closedShared;

  auto readInput = [&](ValueId value, OpenInstance &open, bool inBackward) {
    if (inBackward && open.lastRead < 0 &&
        flat.inputRole[value] == static_cast<int8_t>(InputRole::Input)) {
      open.lastRead = 0;
      result.savedBytes =
          detail::saturatingAdd(result.savedBytes, tables.valueBytes[value]);
      result.savedInputBytes = detail::saturatingAdd(result.savedInputBytes,
                                                     tables.valueBytes[value]);
    }
  };
  // A read at `event` of a view sharing `storage`'s instance produced at
  // `producedAt`. `countsAsRead`: false when a view that is a function
  // result holds the storage to the end (which savedBytes ignores, as it
  // ignores function results).
  auto extendStorage = [&](ValueId storage, int32_t producedAt, int64_t event,
                           bool inBackward, bool countsAsRead) {
    OpenInstance &base = latest[storage];
    if (producedAt == kInput) {
      if (countsAsRead)
        readInput(storage, base, inBackward);
      return;
    }
    if (base.producedAt == producedAt) {
      if (countsAsRead)
        base.lastRead = static_cast<int32_t>(event);
      else
        viewed[storage] = 2;
      return;
    }
    // The storage was produced again since the view was made: its old
    // instance is closed; move its end.
    auto closed = closedShared.find({storage, producedAt});
    if (closed == closedShared.end() || event <= closed->second)
      return;
    int64_t bytes = tables.valueBytes[storage];
    delta[closed->second + 1] += bytes;
    delta[event + 1] -= bytes;
    if (countsAsRead && producedAt < boundaryEvent &&
        closed->second < boundaryEvent && event >= boundaryEvent &&
        flat.outputRole[storage] == OutputRole::None)
      result.savedBytes = detail::saturatingAdd(result.savedBytes, bytes);
    closed->second = static_cast<int32_t>(event);
  };

  // `describeReader` names the reading event, for the error only.
  auto read = [&](ValueId value, int64_t event, bool inBackward,
                  auto describeReader) -> absl::Status {
    OpenInstance &open = latest[value];
    if (open.producedAt == kInput) {
      readInput(value, open, inBackward);
      return absl::OkStatus();
    }
    if (open.producedAt < 0)
      return absl::FailedPreconditionError(
          absl::StrCat(describeReader(), " reads ",
                       describeValueName(graph, value),
                       " before any evaluation of its producer ",
                       describeStepOp(graph, flat.producer[value]),
                       "; schedule the producer (or a derivation) earlier"));
    open.lastRead = static_cast<int32_t>(event);
    // A view that is a function result holds its storage to the end anyway.
    if (open.storage != kNoId)
      extendStorage(open.storage, open.storageProducedAt, event, inBackward,
                    /*countsAsRead=*/flat.outputRole[value] ==
                        OutputRole::None);
    return absl::OkStatus();
  };
  // `holdToEnd`: function results (and storage a function result shares)
  // stay live to the end (but only reads count for savedBytes).
  auto close = [&](ValueId value, const OpenInstance &open, bool holdToEnd) {
    if (open.storage != kNoId)
      return; // a view's bytes are its storage's
    int64_t bytes = tables.valueBytes[value];
    int64_t lastRead =
        holdToEnd ? numEvents - 1
                  : static_cast<int64_t>(std::max(open.lastRead, open.producedAt));
    delta[lastRead + 1] -= bytes;
    // Storage a function result shares is not saved either (viewed == 2).
    if (open.producedAt < boundaryEvent && open.lastRead >= boundaryEvent &&
        flat.outputRole[value] == OutputRole::None && viewed[value] != 2)
      result.savedBytes = detail::saturatingAdd(result.savedBytes, bytes);
    if (viewed[value] && !holdToEnd)
      closedShared[{value, open.producedAt}] = static_cast<int32_t>(lastRead);
  };
  // With 64-bit sums, adds `bytes` to `produced`, or sets `overflow`.
  auto countProduced = [&](int64_t bytes) {
    if constexpr (!std::is_same_v<Sum, absl::int128>) {
      if (bytes > std::numeric_limits<int64_t>::max() - produced)
        overflow = true;
      else
        produced += bytes;
    }
  };
  // `viewOf`: the operand whose storage a view op's result shares, or kNoId
  // when the instance owns its bytes (any other op, a derivation).
  auto produce = [&](ValueId value, int64_t event, ValueId viewOf) {
    OpenInstance &open = latest[value];
    if (open.producedAt >= 0)
      close(value, open, /*holdToEnd=*/false);
    open.producedAt = static_cast<int32_t>(event);
    open.lastRead = -1;
    open.storage = kNoId;
    if (viewOf != kNoId) {
      const OpenInstance &base = latest[viewOf];
      open.storage = base.storage != kNoId ? base.storage : viewOf;
      open.storageProducedAt =
          base.storage != kNoId ? base.storageProducedAt : base.producedAt;
      viewed[open.storage] = std::max<uint8_t>(viewed[open.storage], 1);
      return;
    }
    countProduced(tables.valueBytes[value]);
    delta[event] += tables.valueBytes[value];
  };

  size_t nextDerivation = 0;
  int64_t event = 0;
  for (size_t step = 0; step <= numSteps; ++step) {
    while (nextDerivation < schedule.derivations.size() &&
           schedule.derivations[nextDerivation].beforeStep == step) {
      const DerivationStep &derivation = schedule.derivations[nextDerivation];
      bool inBackward = step >= boundaryStep;
      if (inBackward && boundaryEvent == numEvents)
        boundaryEvent = event;
      auto reader = [&] {
        return absl::StrCat("the derivation of ",
                            describeValueName(graph, derivation.value),
                            " before step ", step);
      };
      for (ValueId value : derivation.reads)
        if (absl::Status status = read(value, event, inBackward, reader);
            !status.ok())
          return status;
      produce(derivation.value, event, /*viewOf=*/kNoId);
      if (overflow)
        return absl::OkStatus();
      result.totalTimeUs += derivation.timeUs;
      result.recomputeTimeUs += derivation.timeUs;
      result.recomputeFlops += derivation.flops;
      ++result.numDerivations;
      ++event;
      ++nextDerivation;
    }
    if (step == numSteps)
      break;
    OpId op = schedule.steps[step];
    bool inBackward = step >= boundaryStep;
    if (inBackward && boundaryEvent == numEvents)
      boundaryEvent = event;
    auto reader = [&] {
      return absl::StrCat("step ", step, " (", describeStepOp(graph, op), ")");
    };
    for (ValueId operand : flat.operands(op))
      if (absl::Status status = read(operand, event, inBackward, reader);
          !status.ok())
        return status;
    const ValueId viewOf =
        flat.isAliasingView(op) ? flat.operands(op)[0] : kNoId;
    for (ValueId value : flat.results(op))
      produce(value, event, viewOf);
    // The op's workspace: live while it runs, freed before the next event.
    if (const int64_t workspace = flat.workspace(op); workspace > 0) {
      countProduced(workspace);
      delta[event] += workspace;
      delta[event + 1] -= workspace;
    }
    if (overflow)
      return absl::OkStatus();
    const bool replay = evaluations[op]++ > 0;
    double timeUs = replay ? tables.replayTimeUs[op] : tables.opTimeUs[op];
    result.totalTimeUs += timeUs;
    if (replay) {
      result.recomputeTimeUs += timeUs;
      result.recomputeFlops += flat.flops[op];
      ++result.numRecomputedEvaluations;
    }
    ++event;
  }

  for (size_t id = 0; id < graph.numValues(); ++id) {
    if (flat.outputRole[id] == OutputRole::None ||
        flat.inputRole[id] != FlatGraph::kNotInput)
      continue;
    if (latest[id].producedAt < 0)
      return absl::FailedPreconditionError(absl::StrCat(
          "the schedule never evaluates ",
          describeStepOp(graph, flat.producer[id]), ", which produces ",
          flat.outputRole[id] == OutputRole::Gradient ? "gradient "
                                                      : "output ",
          describeValueName(graph, static_cast<ValueId>(id))));
  }
  // A function result that is a view holds its storage to the end.
  for (size_t id = 0; id < graph.numValues(); ++id)
    if (latest[id].storage != kNoId &&
        flat.outputRole[id] != OutputRole::None)
      extendStorage(latest[id].storage, latest[id].storageProducedAt,
                    numEvents - 1, /*inBackward=*/false,
                    /*countsAsRead=*/false);
  for (size_t id = 0; id < graph.numValues(); ++id)
    if (latest[id].producedAt >= 0)
      close(static_cast<ValueId>(id), latest[id],
            /*holdToEnd=*/flat.outputRole[id] != OutputRole::None ||
                viewed[id] == 2);
  const absl::int128 maxBytes = std::numeric_limits<int64_t>::max();
  Sum live = 0;
  // Events are, per step, the derivations placed before it and then the
  // step itself: walk the steps alongside instead of storing each event's.
  size_t step = 0;
  size_t derivationIndex = 0;
  for (int64_t e = 0; e < numEvents; ++e) {
    // Event e is a derivation before `step` or the op step `step` itself.
    bool isDerivation = derivationIndex < schedule.derivations.size() &&
                        schedule.derivations[derivationIndex].beforeStep == step;
    live += delta[e];
    // 64-bit sums wrap in the middle of an event's update but not after
    // it (the live bytes are at most the bytes produced).
    int64_t liveBytes =
        static_cast<int64_t>(std::min(absl::int128(live), maxBytes));
    if (liveBytes > result.peakBytes) {
      result.peakBytes = liveBytes;
      result.peakStep = step;
    }
    if (isDerivation)
      ++derivationIndex;
    else
      ++step;
  }
  return absl::OkStatus();
}

} // namespace
} // namespace detail

absl::StatusOr<SimulationResult>
detail::simulateFlat(const Graph &graph, const FlatGraph &flat,
                     const Classification &phases, const Schedule &schedule,
                     const SimulationTables &tables) {
  SimulationResult result;
  if (tables.valueBytes.size() != graph.numValues() ||
      tables.opTimeUs.size() != graph.numOps() ||
      tables.replayTimeUs.size() != graph.numOps())
    return absl::InvalidArgumentError(
        "simulation tables were built for another graph; rebuild them with "
        "buildSimulationTables");
  const size_t numSteps = schedule.steps.size();
  if (phases.opPhase.size() != graph.numOps())
    return absl::InvalidArgumentError(absl::StrFormat(
        "the classification has %d op phases but the graph has %d ops; "
        "classify this graph",
        phases.opPhase.size(), graph.numOps()));
  for (size_t i = 0; i < numSteps; ++i) {
    OpId op = schedule.steps[i];
    if (op < 0 || static_cast<size_t>(op) >= graph.numOps())
      return absl::InvalidArgumentError(absl::StrFormat(
          "schedule step %d names op %d, but the graph has ops 0..%d", i, op,
          static_cast<int64_t>(graph.numOps()) - 1));
  }
  for (size_t i = 0; i < schedule.derivations.size(); ++i) {
    const DerivationStep &derivation = schedule.derivations[i];
    if (derivation.beforeStep > numSteps ||
        (i > 0 &&
         derivation.beforeStep < schedule.derivations[i - 1].beforeStep))
      return absl::InvalidArgumentError(absl::StrFormat(
          "derivation %d is placed before step %d: derivations must be "
          "ordered by step and at most %d",
          i, derivation.beforeStep, numSteps));
    auto badValue = [&](ValueId value) {
      return value < 0 || static_cast<size_t>(value) >= graph.numValues();
    };
    if (badValue(derivation.value) || flat.producer[derivation.value] == kNoId)
      return absl::InvalidArgumentError(absl::StrFormat(
          "derivation %d re-creates value %d, which is not a value produced "
          "by an op",
          i, derivation.value));
    for (ValueId read : derivation.reads)
      if (badValue(read))
        return absl::InvalidArgumentError(absl::StrFormat(
            "derivation %d reads value %d, which does not exist", i, read));
  }

  // Live bytes are summed in 64 bits while all bytes produced so far fit
  // in 64 bits (then no partial sum overflows), which is every real graph;
  // else again in 128 bits: tensor sizes saturate at INT64_MAX, and a few of
  // those live at once would overflow int64 (found by fuzz/PlannerFuzzer.cpp).
  // The difference array is read at random (a value's last read is far from
  // its production), so its width matters on 1M-op schedules.
  bool overflow = false;
  absl::Status status = simulateEvents<uint64_t>(graph, flat, phases, schedule,
                                                 tables, result, overflow);
  if (status.ok() && overflow) {
    result = SimulationResult();
    status = simulateEvents<absl::int128>(graph, flat, phases, schedule,
                                          tables, result, overflow);
  }
  if (!status.ok())
    return status;
  return result;
}

} // namespace remat
