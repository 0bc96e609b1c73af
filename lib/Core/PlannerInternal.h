//===- PlannerInternal.h - Shared pieces of the strategies ------*- C++ -*-===//
//
// Part of remat. Every strategy reduces to one decision per forward value:
// `keep` it from forward (saved if backward ends up reading it) or not (then
// backward recomputes it when it needs it), plus optional derivations.
// `materializePlan` turns that into the backward schedule, the simulation and
// the explained decisions, so that all strategies are judged alike.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CORE_PLANNERINTERNAL_H
#define REMAT_LIB_CORE_PLANNERINTERNAL_H

#include "remat/Core/Planner.h"

#include "FlatGraph.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace remat::detail {

/// Why a value can never be recomputed, by any strategy or policy.
enum class HardSave : uint8_t {
  None,
  NeverRecompute,   // its producer is tagged never_recompute
  RandomWithoutRng, // a random op whose RNG state is not a graph input
};

/// Why automatic planning (save-all chains, min-cut, budget, optimal) does
/// not recompute a value, unless a user asks for it.
enum class AutoBan : uint8_t {
  None,
  ComputeIntensive, // matmul, conv, attention
  NoAutoRecompute,  // tagged no_auto_recompute
  LargeReduction,   // reduction whose output is < 1/4 of its input
  Collective,       // communication
  PreferSave,       // tagged prefer_save
};

/// What the user forces: recompute (must_recompute, policy) or save (policy).
enum class UserChoice : uint8_t {
  None,
  MustRecompute,
  PolicyRecompute,
  PolicySave,
  PreferRecompute, // tagged prefer_recompute, and nothing stronger objects
};

/// Per-value facts shared by the strategies, indexed by ValueId.
struct Constraints {
  std::vector<uint8_t> isForward; // produced by a forward op
  std::vector<uint8_t> needed;    // read directly by a backward op
  std::vector<uint8_t> isOutput;  // a function result (live anyway)
  std::vector<HardSave> hardSave;
  std::vector<AutoBan> autoBan; // None when a user choice lifts it
  std::vector<UserChoice> user;
  /// True for policy recomputes that lost to a hard save (never_recompute
  /// wins over a policy), for the explanation.
  std::vector<uint8_t> policyOverruled;
  /// True for values tagged prefer_recompute that a stronger constraint (a
  /// policy save, an unreproducible RNG) keeps, for the explanation.
  std::vector<uint8_t> preferenceOverruled;
  /// Set when `budget` met the budget only by ignoring prefer_* tags.
  bool preferencesDropped = false;
  /// The automatic ban on compute-intensive values (matmul, conv,
  /// attention) that `recompute-banned=allow` lifted, per value, for the
  /// explanation; empty unless lifted.
  std::vector<uint8_t> banLifted;
  /// Whether any op declares an inverse rule (derivation is skipped if not).
  bool hasInverseRules = false;
  /// By op, whether forward evaluates it whatever the plan: a forward op
  /// that a function result, or a value automatic planning may not
  /// recompute (saved, so computed in forward), reads, directly or through
  /// other forward ops. The others (a weight's transpose, a zero
  /// accumulator: only backward reads them) run in forward only to be
  /// saved; replayed instead, they run once, in backward (materializePlan
  /// evaluates in forward exactly what is saved, returned or feeds those),
  /// so their replay adds no time: min-cut and the derivation pass charge
  /// none, and the explanation says so.
  std::vector<uint8_t> neededInForward;

  bool forcedRecompute(ValueId value) const {
    return user[value] == UserChoice::MustRecompute ||
           user[value] == UserChoice::PolicyRecompute ||
           user[value] == UserChoice::PreferRecompute;
  }
  /// Whether a strategy may choose not to keep the value. `automatic`
  /// strategies also respect the automatic bans.
  bool recomputable(ValueId value, bool automatic) const {
    if (hardSave[value] != HardSave::None ||
        user[value] == UserChoice::PolicySave)
      return false;
    return !automatic || autoBan[value] == AutoBan::None;
  }
};

/// The name a policy (and a decision group) matches: the value's, else its
/// producer's.
const std::string &policyName(const Graph &graph, ValueId value);

absl::StatusOr<Constraints> computeConstraints(const Graph &graph,
                                               const FlatGraph &flat,
                                               const Classification &phases,
                                               const NamePolicy &policy,
                                               bool honourPreferences = true,
                                               bool liftComputeBans = false);

/// One algebraic derivation chosen for a value.
struct DerivationChoice {
  ValueId value = kNoId;
  Derivation derivation;
  /// What it was weighed against, for the reason: the bytes of the save it
  /// replaces (0 when it replaces a replay), the replay time it avoids, its
  /// backward time (derivations feeding it included), and the bytes of
  /// sources saved for it.
  int64_t replacedSaveBytes = 0;
  double avoidedReplayUs = 0;
  double costUs = 0;
  int64_t sourceSaveBytes = 0;
  /// For a derivation made to feed another (a chain), that value; the
  /// figures above are then the whole chain's.
  ValueId feeds = kNoId;
};

/// Everything a strategy decided, before materialisation.
struct StrategyResult {
  std::vector<uint8_t> keep; // per value
  std::vector<DerivationChoice> derivations;
  /// Set by `budget`: the resolved budget, for the explanations.
  std::optional<int64_t> budgetBytes;
  /// Set by `budget` when it chose a refined schedule: the plan is this
  /// schedule (planFromBudgetSchedule), not the materialised keep set.
  std::optional<Schedule> schedule;
};

/// Turns what the strategies find into PlanOptions::progress calls, at most
/// one per PlanOptions::progressIntervalSeconds: the strategies report every
/// candidate and search step, and this decides what reaches the callback.
/// Without a callback every method returns at once.
class ProgressReporter {
public:
  explicit ProgressReporter(const PlanOptions &options);
  /// What the strategy does from now on (PlanProgress::stage, a literal).
  void setStage(std::string_view stage);
  /// `budget` simulated a candidate plan.
  void candidate(int64_t peakBytes, double recomputeTimeUs);
  /// A search step that found nothing new (the elapsed time still moves).
  void step();
  /// The budget in bytes, once known.
  void setBudget(int64_t bytes);
  /// `optimal`: the solver's node count, incumbent and bound.
  void solver(int64_t nodes, std::optional<double> bestRecomputeTimeUs,
              std::optional<double> recomputeTimeBoundUs);

private:
  void maybeReport();

  const PlanOptions &options_;
  std::chrono::steady_clock::time_point start_;
  /// When the callback was last called (start_ before the first call).
  std::chrono::steady_clock::time_point last_;
  PlanProgress state_;
};

struct PlanContext {
  const Graph &graph;
  /// The same graph as flat arrays, for the passes (names come from `graph`).
  const FlatGraph &flat;
  const Classification &phases;
  const Constraints &constraints;
  const PlanOptions &options;
  const CostModel &costModel;
  /// Bytes per value and time per op, computed once per planning.
  const SimulationTables &tables;
  ProgressReporter &progress;
};

/// How backward reads a graph input (bits of WalkFacts::inputRead); the
/// reason of its `input` decision says which.
enum InputReadBits : uint8_t {
  kReadByBackwardOp = 1,
  kReadByRecomputation = 2,
};

/// What the backward walk found while placing recomputations.
struct WalkFacts {
  std::vector<uint8_t> readFromForward; // kept values backward reads
  std::vector<uint8_t> recomputed;      // re-created by a replay in backward
  /// Graph inputs backward reads: kReadByBackwardOp and/or
  /// kReadByRecomputation (a replay or derivation in backward reads it).
  std::vector<uint8_t> inputRead;
  /// The needed value whose recomputation first touched a value.
  std::vector<ValueId> owner;
  /// Every replayed op with the needed value it was replayed for, in
  /// schedule order; `buildChains` groups them per value.
  std::vector<std::pair<ValueId, OpId>> replays;
};

/// Per needed value, the ops replayed for it in schedule order (see
/// ValueDecision): one shared array in compressed-sparse-row form, so that a
/// 1M-op plan does not allocate a vector per value.
struct RecomputeChains {
  std::vector<uint32_t> begin; // numValues + 1 offsets into `ops`
  std::vector<OpId> ops;
  absl::Span<const OpId> of(ValueId value) const {
    return absl::MakeConstSpan(ops.data() + begin[value],
                               begin[value + 1] - begin[value]);
  }
};
RecomputeChains buildChains(size_t numValues,
                            const std::vector<std::pair<ValueId, OpId>> &replays);

/// The schedule (forward ops that something needs, then backward with
/// recomputations and derivations before first use), its simulation and the
/// explained decisions.
absl::StatusOr<Plan> materializePlan(const PlanContext &context,
                                     const StrategyResult &result);

/// The decisions with their reasons, from the walk and the schedule it
/// made (Explain.cpp): fills `plan.decisions`, `plan.recomputeOps` and
/// `plan.reasons`.
void explainDecisions(const PlanContext &context, const StrategyResult &result,
                      const WalkFacts &facts, const Schedule &schedule,
                      Plan &plan);

/// A plan with the plan-level facts of `context` and `result` (strategy,
/// target, budget, dropped preferences, classification) and nothing else.
Plan emptyPlan(const PlanContext &context, const StrategyResult &result);

/// Only the schedule and its simulation, for strategies that compare many
/// candidate plans (budget). Same schedule as materializePlan.
absl::StatusOr<SimulationResult> simulateKeep(const PlanContext &context,
                                              const StrategyResult &result);

/// Keep sets of the simple strategies.
std::vector<uint8_t> saveAllKeep(const PlanContext &context);
std::vector<uint8_t> recomputeAllKeep(const PlanContext &context);

/// The exchange rate min-cut weighs time with: the option's, or the
/// target's.
inline double exchangeRate(const PlanOptions &options) {
  return options.exchangeRateBytesPerUs.value_or(
      options.target.exchangeRateBytesPerUs);
}

/// Minimum saved bytes plus `bytesPerUs` times the predicted time of the
/// forward ops replayed, under the automatic bans, by max-flow/min-cut on
/// the node-split graph (0: saved bytes alone).
absl::StatusOr<std::vector<uint8_t>> minCutKeep(const PlanContext &context,
                                                double bytesPerUs);

/// Values whose saving or recomputation a derivation replaces, chosen
/// greedily (values backward reads first, then largest first) where it
/// wins at `bytesPerUs` (saved bytes +
/// rate x backward time, Derivation.cpp). `replaceSaves` lets derivations
/// replace kept values. Sources a derivation saves are set in `keep`.
std::vector<DerivationChoice> chooseDerivations(const PlanContext &context,
                                                std::vector<uint8_t> &keep,
                                                bool replaceSaves,
                                                double bytesPerUs);
/// Every single-step derivation the user's tags and the exactness rules
/// allow, for a forward value (one per inverse rule of each forward user),
/// with its backward time in `costUs`; the other figures are unset.
/// `optimal` lets its MILP choose among them.
std::vector<DerivationChoice> derivationCandidates(const PlanContext &context);
double derivationTimeUs(const PlanContext &context,
                        const Derivation &derivation, ValueId value);
/// The elements a derivation of `value` computes (its flops).
double derivationElements(const PlanContext &context, ValueId value);
/// The derivation of operand `rule.recoveredOperand` of `via` through `rule`:
/// it reads the op's first result, then the rule's other operands.
Derivation derivationThrough(const Graph &graph, OpId via,
                             const InverseRule &rule);

/// The peaks a fractional budget is measured between: the lowest peak the
/// automatic strategies can reach (t = 0) and the automatic save-all peak
/// (t = 1, also the base of "0.8peak").
struct BudgetAnchors {
  int64_t lowestPeak = 0;
  int64_t saveAllPeak = 0;
};
absl::StatusOr<BudgetAnchors> computeBudgetAnchors(const PlanContext &context);
int64_t resolveBudget(const MemoryBudget &budget, const BudgetAnchors &anchors);

/// How `factsFromSchedule` turns the forward ops a schedule re-evaluates in
/// backward into recompute chains and owners.
enum class ChainAttribution : uint8_t {
  /// `optimal`: a MILP schedule may re-evaluate an op several times, in any
  /// order; every value re-evaluated gets its producer's last backward
  /// re-evaluation as its chain, and no owner.
  LastEvaluation,
  /// `budget`: a refined schedule places each split's replays just before
  /// the read they serve, as Materialize.cpp does; the ops re-evaluated since
  /// the last backward op belong to (and the kept values they read are owned
  /// by) the next needed value re-evaluated.
  NextNeededValue,
};

/// What the walk of Materialize.cpp would report, read off a given schedule
/// (ScheduleDecisions.cpp): a forward value backward reads from its forward
/// evaluation is saved; one whose producer is re-evaluated in backward is
/// recomputed, also if earlier backward reads used the forward copy. The
/// backward section starts as the simulator starts it.
WalkFacts factsFromSchedule(const PlanContext &context,
                            const Schedule &schedule,
                            ChainAttribution attribution);

/// The plan of a strategy that produced `schedule` itself (optimal, budget's
/// refined schedules): decisions and reasons read off the schedule, with the
/// derivations and budget of `result` and the given simulation.
Plan planFromSchedule(const PlanContext &context, const StrategyResult &result,
                      Schedule schedule, const SimulationResult &simulation,
                      ChainAttribution attribution);

/// SplitMix64 (Steele, Lea and Flood, 2014): a fixed-seed generator whose
/// output is the same on every platform, unlike std's distributions.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound) up to a bias of bound / 2^64.
  uint64_t below(uint64_t bound) { return next() % bound; }

private:
  uint64_t state_;
};

/// An order OrderSearch.cpp found, and its peak by the search's own
/// accounting (the simulator's, which tests check it against).
struct OrderFound {
  Schedule schedule;
  int64_t peakBytes = 0;
};
/// Lower-peak reorderings of `start`, a schedule without derivations
/// (OrderSearch.cpp): each evaluates the same ops as often, every read bound
/// to the same evaluation, only forward ops moved and forward events kept
/// before backward ones; in the order found, each peak at least `gridStep`
/// below the previous one and the last the lowest found. Empty when `start`
/// derives values or `workLimit` (a count of live-byte entries scanned)
/// allows too few moves.
std::vector<OrderFound> searchOrders(const PlanContext &context,
                                     const Schedule &start, int64_t workLimit,
                                     int64_t gridStep);

/// For tests of searchOrders: its search on `start` with its incremental
/// bookkeeping (positions, last readers, the live bytes across each gap)
/// checked against a recount from the order after every move and every
/// undo; how many checks disagreed, or nullopt where the search does not
/// run.
std::optional<int64_t> orderSearchMismatches(const PlanContext &context,
                                             const Schedule &start,
                                             int64_t workLimit);

/// Which ops a schedule search may evaluate once more (`mayAdd`: forward
/// ops none of whose results is a function result, a value `derived` marks
/// (by ValueId; empty: none), or a forward value the automatic bans or a
/// hard save keep) and which of their re-evaluations it may drop (`mayDrop`:
/// those, less ops with a value tags or a policy force to be recomputed).
struct ReevaluationRules {
  std::vector<uint8_t> mayAdd, mayDrop; // by OpId
};
ReevaluationRules reevaluationRules(const PlanContext &context,
                                    const std::vector<uint8_t> &derived);

/// A schedule that recomputes less than `start` (a schedule without
/// derivations whose peak is within `budgetBytes`) within the budget, with
/// its peak by the search's own accounting, or nullopt (ScheduleAnneal.cpp):
/// a threshold-accepting search that moves forward evaluations, adds
/// re-evaluations of forward ops and drops them, every schedule it accepts
/// within the budget. `workLimit` counts the steps of its evaluations
/// (four per entry where a candidate is evaluated in full, on graphs with
/// views); it tries at most `movesPerEvent` moves per event of `start`.
std::optional<OrderFound>
annealForBudget(const PlanContext &context, const Schedule &start,
                int64_t budgetBytes, int64_t workLimit, int64_t movesPerEvent);

/// For tests of annealForBudget: its search on `start` with every move its
/// incremental timeline evaluates also evaluated in full; how many of the
/// two evaluations disagreed, or nullopt where the timeline does not run
/// (a graph with views, or nothing to anneal).
std::optional<int64_t> annealTimelineMismatches(const PlanContext &context,
                                                const Schedule &start,
                                                int64_t budgetBytes,
                                                int64_t movesPerEvent);

/// The `budget` strategy: sets `budgetBytes` of the result.
absl::StatusOr<StrategyResult> planBudget(const PlanContext &context);
/// The plan of a `budget` result that carries a schedule: simulated,
/// checked against the budget, decisions read off the schedule.
absl::StatusOr<Plan> planFromBudgetSchedule(const PlanContext &context,
                                            const StrategyResult &result);

/// A lower bound on the total predicted time of every schedule of the class
/// TimeLowerBound.cpp describes whose activation peak is <= `budgetBytes`:
/// the evaluate-once bound, raised by the backward-checkpoint LP relaxation
/// when `planTimeUs` (the plan's time) is more than 0.1% above evaluate-once
/// and the LP has at most `maxNonzeros` coefficients (solved within
/// `timeLimitSeconds`; 0 skips it), and strengthened by cover inequalities
/// while the plan stays more than 0.1% above it and the rounds make
/// progress within their iteration budget. Never
/// above the time of any such schedule, also when the time limit stops the
/// solver.
TimeLowerBound computeTimeLowerBound(const PlanContext &context,
                                     int64_t budgetBytes,
                                     double timeLimitSeconds,
                                     int64_t maxNonzeros, double planTimeUs);

/// "name" of a value for reasons: its name, its producer's name, or %id.
std::string displayName(const Graph &graph, ValueId value);
/// "matmul query_proj": class and name of an op.
std::string describeOpForUser(const Graph &graph, OpId op);
/// The same two, appended to `out` (reasons are formatted into one buffer).
void appendDisplayName(std::string &out, const Graph &graph, ValueId value);
void appendOpForUser(std::string &out, const Graph &graph, OpId op);

} // namespace remat::detail

#endif // REMAT_LIB_CORE_PLANNERINTERNAL_H
