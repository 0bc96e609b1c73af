//===- Planner.h - Save / recompute / derive planning -----------*- C++ -*-===//
//
// Part of remat. The public entry point of the planning core:
//
//   remat::Graph graph = ...;                    // build or import
//   remat::PlanOptions options;                  // strategy, budget, ...
//   absl::StatusOr<remat::Plan> plan = remat::planRematerialization(graph,
//                                                                    options);
//
// A plan gives every forward value a decision with a reason, the backward
// schedule that realises it, and its simulated memory and time.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_PLANNER_H
#define REMAT_CORE_PLANNER_H

#include "remat/Core/CostModel.h"
#include "remat/Core/Graph.h"
#include "remat/Core/Simulator.h"

#include "absl/types/span.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

enum class Strategy : uint8_t {
  SaveAll,
  RecomputeAll,
  MinCut,
  Budget,
  Optimal
};
std::string_view toString(Strategy strategy);
absl::StatusOr<Strategy> parseStrategy(std::string_view text);

/// JAX/MaxText-style checkpoint policies by name, layered over a strategy.
struct NamePolicy {
  enum class Kind : uint8_t {
    None,
    SaveOnlyTheseNames,
    SaveAnyNamesButThese,
    DotsSaveable,
    NothingSaveable,
    EverythingSaveable,
  };
  Kind kind = Kind::None;
  std::vector<std::string> names;
};
/// Parses "save_only_these_names:query_proj,key_proj", "dots_saveable", ...
/// ("" and "none" give Kind::None).
///
/// Semantics (docs/Planner.md): a policy constrains values by name. Under
/// save_only_these_names, named values in the list must be saved and other
/// named values must be recomputed; save_any_names_but_these is the reverse;
/// unnamed values are left to the strategy. dots_saveable saves matmul/conv
/// results and recomputes everything else; nothing_saveable recomputes and
/// everything_saveable saves every forward value. A name is matched against
/// the value's name, or its producer's name when the value has none. Policy
/// recomputes may recompute `no_auto_recompute` ops, never `never_recompute`
/// ones.
absl::StatusOr<NamePolicy> parseNamePolicy(std::string_view text);
std::string toString(const NamePolicy &policy);

/// Parses `decision-groups`: groups separated by ';', names in a group by
/// ',' ("q,q.1;k,k.1"). Empty groups and a name listed twice are errors.
absl::StatusOr<std::vector<std::vector<std::string>>>
parseDecisionGroups(std::string_view text);

/// A memory budget in bytes, or a fraction t in [0, 1] of the way from the
/// `recompute-all` peak (t = 0) to the `save-all` peak (t = 1), or a fraction
/// of the no-recompute (save-all) peak, as the Checkmate literature states
/// budgets.
struct MemoryBudget {
  enum class Kind : uint8_t { Bytes, Fraction, FractionOfPeak };
  Kind kind = Kind::Bytes;
  int64_t bytes = 0;
  double fraction = 0;
  /// Bytes only (`8GiB`, `total:8GiB`): the budget bounds the total peak,
  /// the activation peak plus the graph's inputs, parameters and tangents
  /// (SimulationResult's inputBytes + parameterBytes + tangentBytes, which
  /// the runtime holds through the step); planning subtracts those.
  /// Otherwise (`activations:8GiB`, fractions) it bounds the activation
  /// peak.
  bool total = false;
};
/// "1073741824", "512MiB", "2GiB", "0.5", "0.8peak", "total:8GiB",
/// "activations:8GiB". An integer is bytes; a number with a decimal point
/// is a fraction in [0, 1]; units are B, KiB, MiB, GiB, TiB (powers of
/// 1024) and KB, MB, GB, TB (powers of 1000). Bytes bound the total peak
/// (`total:` says so explicitly) unless prefixed `activations:`; fractions
/// bound the activation peak (issue #16 item 2).
absl::StatusOr<MemoryBudget> parseMemoryBudget(std::string_view text);
std::string toString(const MemoryBudget &budget);

/// An exchange rate in bytes per microsecond: "0", "300000", "256KiB",
/// "1MB/us" (the byte spellings of parseMemoryBudget, with an optional
/// "/us").
absl::StatusOr<double> parseExchangeRate(std::string_view text);

/// Where a long-running strategy stands, for progress displays
/// (PlanOptions::progress). Fields a strategy does not know are unset.
struct PlanProgress {
  Strategy strategy = Strategy::MinCut;
  /// Wall-clock time since planRematerialization started.
  double elapsedSeconds = 0;
  /// What the strategy is doing: "simulating candidates" and "refining
  /// schedules" (budget, and optimal while it resolves a fractional budget),
  /// "solving the MILP" (optimal).
  std::string_view stage;
  /// Candidate plans simulated so far, or, while solving the MILP,
  /// branch-and-bound nodes explored.
  int64_t explored = 0;
  /// The activation budget in bytes (what a total budget leaves once the
  /// inputs, parameters and tangents are held), once resolved (a fractional
  /// budget is resolved only when every candidate is known).
  std::optional<int64_t> budgetBytes;
  /// The best plan so far: for `budget`, the candidate of least recompute
  /// time within the budget, or while none fits (or the budget is not
  /// resolved yet) the candidate of lowest peak; for `optimal`, the solver's
  /// incumbent (its peak is within the budget and not tracked).
  std::optional<int64_t> bestPeakBytes;
  std::optional<double> bestRecomputeTimeUs;
  /// Whether the best plan is within the budget.
  bool bestWithinBudget = false;
  /// A proven lower bound on the recompute time of any plan within the
  /// budget (optimal: the solver's bound).
  std::optional<double> recomputeTimeBoundUs;
};

/// The largest PlanOptions::budgetSearchEffort.
inline constexpr double kMaxBudgetSearchEffort = 1000;
/// The defaults of PlanOptions' time limits, which remat-plan's options
/// (Passes.td, the pipeline's options) take too.
inline constexpr double kDefaultOptimalTimeLimitSeconds = 60;
inline constexpr double kDefaultLowerBoundTimeLimitSeconds = 10;

struct PlanOptions {
  Strategy strategy = Strategy::MinCut;
  std::optional<MemoryBudget> budget; // required by Budget and Optimal
  TargetSpec target;                  // defaults to the h100 preset
  NamePolicy policy;
  bool allowInexactDerivation = false;
  /// `recompute-banned=allow`: when no `budget` plan inside the automatic
  /// bans meets the budget, plan again with the ban on compute-intensive
  /// values (matmul, conv, attention) lifted. Tags (never_recompute,
  /// no_auto_recompute) stay hard.
  bool recomputeBannedUnderPressure = false;
  /// `budget`: whether it may choose a plan that only a recorded schedule
  /// expresses (an order of forward evaluations it searched, an op
  /// evaluated several times, a recomputation inside forward). false: only
  /// plans that per-value decisions express (save, derive, or replay once
  /// before the first backward read, in the graph's order), for frontends
  /// that realise decisions and not schedules (remat_torch.partition).
  bool schedulePlans = true;
  /// `decision-groups`, for `budget` with schedulePlans false: each group
  /// names forward values (by value name, or producer name for an unnamed
  /// value, as a policy matches) that must all be saved or all be
  /// recomputed, because the frontend decides per group (a JAX name policy
  /// decides per checkpoint name: query_proj stands for query_proj,
  /// query_proj.1, ...). Only plans that decide every group one way are
  /// candidates.
  std::vector<std::vector<std::string>> decisionGroups;
  /// `exchange-rate`: for min-cut, what a microsecond of predicted
  /// recompute time is worth in saved bytes; the cut minimises saved bytes
  /// plus the rate times the recompute time. Unset: the target's
  /// (TargetSpec::exchangeRateBytesPerUs); 0: bytes alone.
  std::optional<double> exchangeRateBytesPerUs;
  /// `budget`'s search effort (remat-plan's budget-search-effort): every
  /// work limit of its schedule search (evaluator steps, a count, not a
  /// clock, so plans stay deterministic) is multiplied by it. On large
  /// graphs the search stops at those limits, and more effort reaches lower
  /// peaks for more time; on small ones it finishes below them and effort
  /// changes nothing. Above 0, at most kMaxBudgetSearchEffort; 1 is the
  /// default.
  double budgetSearchEffort = 1;
  /// Wall-clock limit for `optimal` (remat-plan's optimal-time-limit). When
  /// it strikes, the plan is the best schedule found (at worst `budget`'s),
  /// with the MILP's bound as Plan::lowerBound; with none found, an error.
  double optimalTimeLimitSeconds = kDefaultOptimalTimeLimitSeconds;
  /// Wall-clock limit for the LP relaxation behind `budget`'s lower bound
  /// (Plan::lowerBound), a guard behind its machine-independent iteration
  /// limit; when either stops the solver the bound is what its last dual
  /// iterate certifies, never less than evaluate-once. 0: the
  /// evaluate-once bound alone (remat-plan's lower-bound-time-limit).
  double lowerBoundTimeLimitSeconds = kDefaultLowerBoundTimeLimitSeconds;
  /// The LP is skipped (evaluate-once bound) when it would have more
  /// coefficients than this: it grows with backward ops x forward ops, and
  /// CLP's presolve, which the time limit does not interrupt, grows faster
  /// (llama7b stacks: 2 layers 190k coefficients 2.1 s, 3 layers 397k
  /// 7.7 s, 4 layers 679k still in presolve at 14 s; the largest Checkmate
  /// LP, ResNet50 at 0.3 of its peak, has 144k).
  int64_t lowerBoundMaxNonzeros = 250000;
  /// Called from the strategies that can run long (`budget` while it
  /// enumerates and refines candidates, `optimal` while the solver
  /// searches), from the planning thread, at most once per
  /// `progressIntervalSeconds` (0: at every report point, which tests use
  /// to be independent of timing). The quick strategies never call it.
  /// Embedding compilers show it their way; it only observes (the plan is
  /// the same with or without it).
  std::function<void(const PlanProgress &)> progress;
  double progressIntervalSeconds = 0.5;
  PlanOptions();
};

/// A lower bound on the total predicted time (Simulator.h's totalTimeUs:
/// every evaluation, recomputations and derivations included) of every
/// schedule that meets the plan's activation budget within a schedule
/// class: every backward op evaluated once, in graph order; forward ops
/// evaluated anywhere, and more than once only if automatic planning may
/// recompute one of their results that is no function result; the forward
/// ops that forward function results need evaluated before backward;
/// derivations allowed (docs/Planner.md, "Lower bound"). Every `budget` and
/// `optimal` plan is in that class.
struct TimeLowerBound {
  enum class Kind : uint8_t {
    /// Every needed op evaluated once at its predicted time.
    EvaluateOnce,
    /// The LP relaxation over backward checkpoints (a dual certificate).
    BackwardLp,
    /// `optimal`: its MILP's bound (the plan's own time when proven).
    Milp,
  };
  Kind kind = Kind::EvaluateOnce;
  double timeUs = 0;
  /// The LP's iteration or time limit stopped the solver: the bound is what
  /// its last dual iterate certifies (still valid, possibly weaker). For
  /// Milp: `optimal-time-limit` struck, the plan is the best found.
  bool lpStopped = false;
  /// The LP was not solved: too large (PlanOptions::lowerBoundMaxNonzeros)
  /// or no schedule of the class fits (then the plan is outside it, a bug).
  bool lpSkipped = false;
};
std::string_view toString(TimeLowerBound::Kind kind);

enum class Decision : uint8_t { Save, Recompute, Derive, NotNeeded, Input };
std::string_view toString(Decision decision);

struct Derivation {
  OpId viaOp = kNoId; // the op whose inverse rule is used
  InverseRule rule;
  std::vector<ValueId> from; // values the derivation reads
  bool exact = false;
};

struct ValueDecision {
  ValueId value = kNoId;
  Decision decision = Decision::NotNeeded;
  /// For Derive (shared, immutable: a pointer keeps the decisions of a
  /// 1M-op plan small).
  std::shared_ptr<const Derivation> derivation;
  /// Where the plan stores this decision's recompute chain and reason (read
  /// them with Plan::recomputeChain and Plan::reason): one shared array and
  /// one shared buffer per plan instead of a vector and a string per
  /// decision, which dominated planning time on 1M-op graphs.
  size_t chainBegin = 0;
  size_t reasonBegin = 0;
  uint32_t chainSize = 0;
  uint32_t reasonSize = 0;
};

struct Plan {
  Strategy strategy = Strategy::MinCut;
  std::string targetName;
  std::optional<int64_t> budgetBytes; // the resolved activation budget
  /// The total budget the user gave (memory-budget=8GiB, total:8GiB), of
  /// which budgetBytes is what the inputs, parameters and tangents leave.
  std::optional<int64_t> budgetTotalBytes;
  Classification classification;
  /// One entry per forward value and per graph input that backward reads,
  /// ordered by value id.
  std::vector<ValueDecision> decisions;
  /// Forward, then backward with recomputations and derivations placed just
  /// before their first use.
  Schedule schedule;
  SimulationResult simulation;
  bool usesInexactDerivation = false;
  /// Set by `budget` when no plan honouring the prefer_recompute/prefer_save
  /// tags fits the budget and the plan was made without them (the reasons of
  /// the values whose preference yielded say so too).
  bool preferencesDropped = false;
  /// Set when `budget` met the budget only by recomputing compute-intensive
  /// values (PlanOptions::recomputeBannedUnderPressure).
  bool bansLifted = false;
  /// Set by `budget`: a lower bound on the total time of any plan of its
  /// schedule class within `budgetBytes` (TimeLowerBound).
  std::optional<TimeLowerBound> lowerBound;
  /// (simulation.totalTimeUs - bound) / bound: how much a better solver
  /// could at most save, as a fraction of the bound. Unset without a bound
  /// (or with a zero bound).
  std::optional<double> optimalityGap() const;
  /// The exchange rate min-cut weighed time with (0 for other strategies).
  double exchangeRateBytesPerUs = 0;
  /// The recompute chains of all decisions, back to back.
  std::vector<OpId> recomputeOps;
  /// The reasons of all decisions, back to back.
  std::string reasons;

  const ValueDecision *find(ValueId value) const;
  /// For Recompute: the ops replayed in backward to produce the value, in
  /// schedule order, except ops an earlier recomputation already replayed
  /// (their results are reused). Keeps plans O(graph) on long chains. Empty
  /// for other decisions.
  absl::Span<const OpId> recomputeChain(const ValueDecision &decision) const {
    return absl::MakeConstSpan(recomputeOps.data() + decision.chainBegin,
                               decision.chainSize);
  }
  /// A sentence a user can act on, e.g. "saved: recomputing it needs matmul
  /// query_proj which is no_auto_recompute". Valid while the plan lives.
  std::string_view reason(const ValueDecision &decision) const {
    return std::string_view(reasons.data() + decision.reasonBegin,
                            decision.reasonSize);
  }
};

/// A stable text form of a plan: a header line, one line per decision
/// (`%id name decision: reason`), the schedule and the simulation. Equal
/// plans print equal bytes; reports and determinism tests use it. The header
/// ends with ` preferences_dropped=1` only when the plan dropped prefer_* tags
/// (so the text of every other plan is unchanged).
std::string toText(const Plan &plan, const Graph &graph);

/// What planRematerialization refuses in `options` before it reads a
/// graph: a value outside its field's range (an enum cast from an integer,
/// a negative budget, a target with a zero bandwidth, a time limit or
/// effort out of range) or options that do not go together
/// (decision-groups without strategy=budget and schedule-plans=false).
/// Option parsers call it once they have filled the struct, so that a
/// mistake shows before any graph is planned.
absl::Status checkPlanOptions(const PlanOptions &options);

/// Plans `graph`. Errors (absl::Status) name what is wrong and how to fix
/// it: invalid graph, contradictory tags, infeasible budget (with the
/// smallest feasible budget, ResourceExhausted), malformed policy.
absl::StatusOr<Plan> planRematerialization(const Graph &graph,
                                           const PlanOptions &options);

} // namespace remat

#endif // REMAT_CORE_PLANNER_H
