//===- Simulator.h - Exact peak-memory and time simulation ------*- C++ -*-===//
//
// Part of remat. Every strategy is judged by this simulator.
//
// Memory model (the accounting of Checkmate/Moccasin, so results compare):
// a schedule is a sequence of op evaluations; an op may appear more than once
// (recomputation). While step j evaluates op u, live memory is
//   bytes(results of u) + sum of bytes(v) over every value v produced at an
//   earlier step whose next read is at a step >= j (including u itself).
// A value is freed after its last read; a value nobody reads after its
// producing step is gone after that step. Function results (outputs and
// gradients) stay live to the end (the last evaluation of a result, if it is
// evaluated more than once). Graph inputs (inputs, parameters, tangents, RNG
// state) are not part of this activation peak; their bytes are reported
// separately.
//
// Storage is counted once. A result of a view op (PlannerOpInterface's
// isViewOnly: reshape, transpose, broadcast, slice, ...) shares the storage
// of its first operand's instance: it adds no bytes, and while it is read
// that instance stays live (also when the operand has been evaluated again
// since). A view that is a function result holds its storage to the end,
// and that storage is not counted as saved. A view of a graph input costs
// nothing; reading one in backward counts the input as saved like reading
// the input itself. This is how PyTorch and XLA hold views: an
// `expand`ed mask or a transposed weight is never a new buffer.
//
// A schedule may also re-create a value by algebraic derivation (`a = c - b`)
// instead of an op evaluation. A derivation is one more event, accounted like
// an evaluation that produces only that value: it reads its inputs and its
// result lives until its last read.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_SIMULATOR_H
#define REMAT_CORE_SIMULATOR_H

#include "remat/Core/CostModel.h"
#include "remat/Core/Graph.h"

#include <optional>
#include <vector>

namespace remat {

/// Re-creates `value` from other values through an inverse rule, just
/// before `steps[beforeStep]` (or at the end when beforeStep == steps.size()).
struct DerivationStep {
  size_t beforeStep = 0;
  ValueId value = kNoId;
  std::vector<ValueId> reads; // the values the rule reads
  double timeUs = 0;          // predicted (CostModel::predictPointwiseTimeUs)
  double flops = 0;
};

/// Op evaluations in execution order. Each evaluation reads, for each
/// operand, the most recent evaluation (or derivation) of that value.
struct Schedule {
  std::vector<OpId> steps;
  /// Ordered by beforeStep (stable: several may precede one step).
  std::vector<DerivationStep> derivations;
  /// First step of the backward section, for `savedBytes`. Unset: the first
  /// evaluation of a backward op. Planners set it so that a recomputation
  /// placed before the first backward op still counts as backward.
  std::optional<size_t> backwardStart;
};

/// The index of the first step of the backward section: `backwardStart`
/// when set (clamped to the number of steps), else the first evaluation of
/// a backward op, else the number of steps.
size_t backwardBoundary(const Schedule &schedule, const Classification &phases);

struct SimulationResult {
  int64_t peakBytes = 0;      // activation peak, as defined above
  size_t peakStep = 0;        // first step where the peak is reached
  int64_t inputBytes = 0;     // primal inputs
  int64_t parameterBytes = 0; // parameters
  int64_t tangentBytes = 0;
  /// Activations held from the end of forward into backward: values produced
  /// by forward-section evaluations and read by backward steps (saved), plus
  /// primal inputs (not parameters or RNG state) read in backward. Function
  /// results are live to the end anyway and are not counted. The backward
  /// section starts at the first evaluation of a backward op.
  int64_t savedBytes = 0;
  /// The primal inputs' part of savedBytes. The caller holds them through
  /// the step, so keeping them adds nothing to the peak, and min-cut keeps
  /// them for free: compare savedBytes - savedInputBytes across plans.
  int64_t savedInputBytes = 0;
  double totalTimeUs = 0;
  /// Time of evaluations beyond the first per op (SimulationTables::
  /// replayTimeUs), plus derivations.
  double recomputeTimeUs = 0;
  double recomputeFlops = 0;
  int64_t numRecomputedEvaluations = 0;
  int64_t numDerivations = 0;
};

/// Per-value bytes and per-op predicted times of one graph under one cost
/// model. Callers that simulate many schedules of a graph (the `budget`
/// strategy) build them once.
struct SimulationTables {
  /// By ValueId: the bytes the target's runtime allocates for the value
  /// (CostModel::allocatedBytes: its tensor's bytes rounded up to the
  /// allocation granularity).
  std::vector<int64_t> valueBytes;
  std::vector<double> opTimeUs;    // by OpId: one evaluation as its own kernel
  /// By OpId: an evaluation after the first (a replay in backward). The
  /// op's own kernel, except on a target that fuses (TargetSpec::
  /// fusesPointwise): there a pointwise or view op whose results only
  /// fusing ops read (pointwise, view, reduction, normalization) runs
  /// inside its reader's kernel and costs its arithmetic alone, flops /
  /// vector peak (at most its opTimeUs: a view's is 0). A value a matmul,
  /// convolution, attention, collective, random or opaque op reads, also
  /// through views, is materialised anyway, so its producer's replay is a
  /// kernel; so are profiled ops (fixedTimeUs).
  std::vector<double> replayTimeUs;
  /// By ValueId, on a target that fuses (empty otherwise): whether only
  /// fusing ops read the value, so that pointwise work re-creating it in
  /// backward (a fused replay of its producer, or a derivation) runs inside
  /// its readers' kernel.
  std::vector<uint8_t> fusesIntoReaders;
};
SimulationTables buildSimulationTables(const Graph &graph,
                                       const CostModel &costModel);
/// SimulationTables::replayTimeUs of `graph`, from its per-op times; also
/// SimulationTables::fusesIntoReaders when `fusesIntoReaders` is given.
std::vector<double>
computeReplayTimes(const Graph &graph, const CostModel &costModel,
                   const std::vector<double> &opTimeUs,
                   std::vector<uint8_t> *fusesIntoReaders = nullptr);

/// Fails if the schedule reads a value before any evaluation of its producer
/// or omits an op needed for an output or gradient. `peakStep` indexes
/// `schedule.steps`; a peak reached by a derivation reports the step it
/// precedes. Runs in O(steps + operands + derivations).
absl::StatusOr<SimulationResult> simulate(const Graph &graph,
                                          const Classification &phases,
                                          const Schedule &schedule,
                                          const CostModel &costModel);
/// The same, with precomputed tables (which must match graph and model).
absl::StatusOr<SimulationResult> simulate(const Graph &graph,
                                          const Classification &phases,
                                          const Schedule &schedule,
                                          const SimulationTables &tables);

} // namespace remat

#endif // REMAT_CORE_SIMULATOR_H
