//===- Optimal.h - Exact rematerialization (Checkmate) ----------*- C++ -*-===//
//
// Part of remat. The `optimal` strategy: a schedule of op evaluations (an op
// may be evaluated more than once) of minimum total predicted time whose
// activation peak, under exactly the memory model of Simulator.h, is at most
// a budget. It is solved to proven optimality with a MILP (Checkmate's
// formulation, Jain et al., MLSys 2020) through COIN-OR CBC. It is practical
// for small graphs only (see docs/Optimal.md) and serves as the oracle the
// heuristics are tested against.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_OPTIMAL_H
#define REMAT_CORE_OPTIMAL_H

#include "remat/Core/CostModel.h"
#include "remat/Core/Graph.h"
#include "remat/Core/Simulator.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace remat {

/// Where the solver's search stands (OptimalOptions::progress).
struct OptimalProgress {
  int64_t nodes = 0; // branch-and-bound nodes explored
  /// Recompute time of the best schedule found so far, if any.
  std::optional<double> bestRecomputeTimeUs;
  /// A lower bound on the recompute time of any schedule within the budget.
  std::optional<double> recomputeTimeBoundUs;
};

/// A way to re-create a value from other values through an inverse rule
/// (`h = out - mlpwo`), which the MILP may choose in any stage instead of
/// holding or replaying the value. The caller decides which derivations the
/// user's tags and the exactness rules allow (planOptimal:
/// detail::derivationCandidates).
struct OptimalDerivation {
  ValueId value = kNoId;
  std::vector<ValueId> reads; // what the rule reads (DerivationStep::reads)
  double timeUs = 0;          // predicted time of one derivation
  double flops = 0;
};

struct OptimalOptions {
  /// Wall-clock limit for the solver. When it runs out, the best schedule
  /// found so far (the incumbent's, if CBC found none better) is returned
  /// with `provenOptimal = false` and its bound if `acceptSuboptimal` is
  /// set; otherwise (and always when no schedule was found) solveOptimal
  /// fails with DeadlineExceeded.
  double timeLimitSeconds = 60;
  bool acceptSuboptimal = false;
  /// Graphs with more ops than this are refused up front: the MILP has
  /// O(n^2) variables and O(n^2 + n*edges) constraints.
  int64_t maxOps = 400;
  /// Indexed by OpId: whether the op may be evaluated more than once. Empty
  /// means every op may, except ops tagged `never_recompute` and ops that
  /// produce a graph output or gradient (those stay live once produced).
  /// Backward ops never are, whatever this says: the partitioned program
  /// recomputes forward values only.
  /// Callers layer their own bans (policies, random ops) through this.
  std::vector<bool> recomputable;
  /// Indexed by ValueId (empty: none): forward values backward may not read
  /// from their forward evaluation (`must_recompute`, a policy's
  /// "recompute"): no copy of one is held from forward into backward, so
  /// backward reads one that its op re-evaluates there (or, where a
  /// derivation is offered, derives there). Function results are exempt:
  /// they are live to the end anyway. The op of such a value must be
  /// recomputable.
  std::vector<bool> notSaved;
  /// Derivations the schedule may use (docs/Optimal.md, "Derivations"): a
  /// derivation runs in a stage after its sources' first evaluations, and
  /// the ops after it in the stage, and any op in a later stage while it is
  /// held, may read the derived copy. Candidates the MILP cannot place are
  /// skipped: one of a value no scheduled op produces or that is a function
  /// result or a view, one reading a folded view, one whose value no op
  /// could read once derived.
  std::vector<OptimalDerivation> derivations;
  /// Called from the solver's thread as its search advances (after each
  /// node and each new incumbent), for progress displays; callers rate-limit.
  std::function<void(const OptimalProgress &)> progress;
  /// Returns a schedule already known to fit the budget (planOptimal's
  /// plans with the `budget` strategy). When it is a schedule of the MILP's
  /// class (every op first evaluated in position order, re-evaluations of
  /// recomputable ops only, in position order within a stage) and fits the
  /// budget in the simulator, CBC searches for cheaper schedules only: when
  /// there are none, this one is the result, proven optimal; when the time
  /// limit strikes first, it is the best schedule found. One that fits but lies
  /// outside the class is still the best schedule found when CBC has
  /// nothing cheaper at the limit (its bound then every op once). One that
  /// does not fit is ignored. Called only when the MILP is about to be
  /// solved (not when a shortcut answers or the graph is refused), on the
  /// time limit's clock.
  std::function<std::optional<Schedule>()> incumbent;
};

struct OptimalSolution {
  /// Every op evaluation in execution order; an op may appear several times.
  Schedule schedule;
  /// Sum of predicted times over `schedule` (recomputations included); equals
  /// simulate(...).totalTimeUs.
  double totalCostUs = 0;
  /// Time of the evaluations beyond the first of each op.
  double recomputeCostUs = 0;
  /// Simulated activation peak of `schedule`, <= the budget.
  int64_t peakBytes = 0;
  /// True when the solver proved no schedule is cheaper.
  bool provenOptimal = false;
  /// A lower bound on the total time of any schedule of the class within
  /// the budget: totalCostUs when proven optimal; when the time limit struck,
  /// CBC's bound where the MILP's memory is the simulator's (no
  /// conservatively charged views); at least one evaluation of every op.
  double lowerBoundUs = 0;
  /// Whether lowerBoundUs is the solver's (its proof or CBC's bound) rather
  /// than every op evaluated once: the latter for a schedule outside the
  /// MILP's class (a `budget` incumbent that replays an op with a function
  /// result, or derives a value in a way the MILP does not model), about
  /// which the MILP proves nothing.
  bool lowerBoundFromSolver = false;
  /// The time limit struck before the search ended (acceptSuboptimal); the
  /// schedule may still be proven optimal (one evaluation of every op).
  bool timedOut = false;
};

/// Solves the Checkmate problem for `graph`, for the program remat-partition
/// emits: only ops are scheduled (graph inputs are always available and not
/// counted); every backward op is evaluated exactly once, in graph order,
/// even when nothing reads its results; every forward op needed for a graph
/// output, a gradient or a backward op is evaluated at least once; and the
/// peak as defined in Simulator.h is <= `budgetBytes`. The result is
/// validated with simulate().
///
/// Errors: ResourceExhausted when no schedule fits the budget (naming the
/// smallest budget any schedule needs); DeadlineExceeded when the time limit
/// ran out first; FailedPrecondition when the graph is too large for
/// `optimal` (use the `budget` strategy instead); Internal if the solver's
/// schedule disagrees with the simulator.
absl::StatusOr<OptimalSolution> solveOptimal(const Graph &graph,
                                             const Classification &phases,
                                             int64_t budgetBytes,
                                             const CostModel &costModel,
                                             const OptimalOptions &options);

} // namespace remat

#endif // REMAT_CORE_OPTIMAL_H
