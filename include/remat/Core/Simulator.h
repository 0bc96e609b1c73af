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
// gradients) stay live to the end. Graph inputs (inputs, parameters,
// tangents, RNG state) are not part of this activation peak; their bytes are
// reported separately.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_SIMULATOR_H
#define REMAT_CORE_SIMULATOR_H

#include "remat/Core/CostModel.h"
#include "remat/Core/Graph.h"

#include <vector>

namespace remat {

/// Op evaluations in execution order. Each evaluation reads, for each
/// operand, the most recent evaluation of its producer.
struct Schedule {
  std::vector<OpId> steps;
};

struct SimulationResult {
  int64_t peakBytes = 0; // activation peak, as defined above
  size_t peakStep = 0;   // first step where the peak is reached
  int64_t inputBytes = 0;     // primal inputs
  int64_t parameterBytes = 0; // parameters
  int64_t tangentBytes = 0;
  /// Activations held from the end of forward into backward: values produced
  /// by forward ops and read by backward steps (saved), plus primal inputs
  /// (not parameters or RNG state) read in backward.
  int64_t savedBytes = 0;
  double totalTimeUs = 0;
  double recomputeTimeUs = 0; // time of evaluations beyond the first per op
  double recomputeFlops = 0;
  int64_t numRecomputedEvaluations = 0;
};

/// Fails if the schedule reads a value before any evaluation of its producer
/// or omits an op needed for an output or gradient.
absl::StatusOr<SimulationResult> simulate(const Graph &graph,
                                          const Classification &phases,
                                          const Schedule &schedule,
                                          const CostModel &costModel);

} // namespace remat

#endif // REMAT_CORE_SIMULATOR_H
