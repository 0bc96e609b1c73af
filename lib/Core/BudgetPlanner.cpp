//===- BudgetPlanner.cpp - Least recompute time under a memory budget -----===//
//
// Part of remat. Two kinds of candidate plans, all judged by the simulator
// (with schedule-plans=false the second gives way to a third, the decision
// search, searchDecisions below, which also runs with schedules when the
// automatic bans are lifted):
//
// 1. Keep sets. Starting from the automatic save-all plan, saved values turn
//    into recomputations in a fixed order (most bytes freed per microsecond
//    of replay first, and, as a second family, largest first), giving plans
//    from "save all" to "recompute everything automatic planning may". The
//    prefixes of both orders, the min-cut plan, the recompute-all plan when
//    it respects the bans, and their variants with derivations are
//    materialised (one replay per value, before its first backward use).
//
// 2. Refined schedules (a work count, not a graph size, bounds them). A local
//    search over the schedule of the cheapest plan (save-all) and of the
//    lowest-peak plan lowers the peak one split at a time: at the peak step
//    it splits the lifetime of a value live across it by re-evaluating the
//    value's producer just before its next read (in forward or in backward,
//    again and again if that pays; with the producer's own operands when
//    those would otherwise be held across the peak), choosing the split that
//    removes the most bytes within a window below the peak per microsecond.
//    Each time the peak drops, re-evaluations the new peak does not need are
//    dropped again (prune) and the schedule is a candidate; so are pruned
//    copies for a grid of budgets between two consecutive peaks. Two
//    searches run: one scores each split by evaluating the changed schedule
//    (graphs up to 20k ops plus operands), one by an O(chain) estimate read
//    off the current schedule's live bytes (splitGain; the split it applies
//    is checked exactly), which lets it go much further within its work
//    limit and refine graphs of millions of ops plus operands.
//
// For a budget B the plan is the candidate of least recompute time whose
// simulated peak is <= B (ties: lower peak, then earlier candidate), unless
// one of two polishes for B finds a faster one: polishForBudget reorders
// and lowers the fastest schedules just above B, polishDecisionsForBudget
// flips per-value decisions of the fastest keep sets around B.
//
// No candidate depends on B, so a larger budget only adds candidates; the
// polishes do depend on B, so monotonicity in B (recompute time
// non-increasing, which PyTorch's knapsack lacks) is what the tests and
// benchmark sweeps observe, not a guarantee.
//
//===----------------------------------------------------------------------===//

#include "BudgetError.h"
#include "PlannerInternal.h"
#include "StringUtil.h"

#include "absl/container/btree_map.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace remat::detail {

namespace {

struct Candidate {
  StrategyResult result;
  SimulationResult simulation;
  /// Set for refined candidates: the plan is this schedule.
  std::optional<Schedule> schedule;
  /// False for a keep set that splits a decision group (decision-groups):
  /// budget never chooses it; save-all stays first for the anchors.
  bool expressible = true;
  /// Index into searchEfforts of the schedule search that made it (0 for
  /// the enumerated keep sets).
  size_t effortIndex = 0;
};

/// Forward values whose decision `budget` may turn from save to recompute:
/// saved by save-all (`base`), read by backward, recomputable under the
/// automatic bans, not a function result.
std::vector<ValueId> convertibleValues(const PlanContext &context,
                                       const std::vector<uint8_t> &base) {
  const Constraints &constraints = context.constraints;
  std::vector<ValueId> convertible;
  for (ValueId value : context.phases.neededByBackward)
    if (constraints.isForward[value] && base[value] &&
        !constraints.isOutput[value] &&
        constraints.recomputable(value, /*automatic=*/true))
      convertible.push_back(value);
  return convertible;
}

/// simulateKeep, its failure reported as the planner bug it is.
absl::StatusOr<SimulationResult> simulateCandidate(const PlanContext &context,
                                                   const StrategyResult &result) {
  absl::StatusOr<SimulationResult> simulation = simulateKeep(context, result);
  if (!simulation.ok())
    return absl::InternalError(absl::StrCat(
        "budget: a candidate plan failed to simulate (a planner bug): ",
        simulation.status().message()));
  return simulation;
}

/// Simulates the plan that keeps `keep` (with derivations chosen at rate
/// 0: those that lower memory, or save time at no memory cost) and adds it
/// to `candidates`, and its variant whose derivations may replace saves
/// when that differs.
absl::Status addKeepCandidates(const PlanContext &context,
                               const std::vector<uint8_t> &keep,
                               std::vector<Candidate> &candidates) {
  auto add = [&](StrategyResult result) -> absl::Status {
    absl::StatusOr<SimulationResult> simulation =
        simulateCandidate(context, result);
    if (!simulation.ok())
      return simulation.status();
    context.progress.candidate(simulation->peakBytes,
                               simulation->recomputeTimeUs);
    candidates.push_back(Candidate{std::move(result), *simulation});
    return absl::OkStatus();
  };
  StrategyResult plain;
  plain.keep = keep;
  StrategyResult derived;
  derived.keep = keep;
  plain.derivations = chooseDerivations(context, plain.keep, false, 0);
  derived.derivations = chooseDerivations(context, derived.keep, true, 0);
  bool distinct = derived.derivations.size() != plain.derivations.size() ||
                  derived.keep != plain.keep;
  if (absl::Status status = add(std::move(plain)); !status.ok())
    return status;
  if (distinct)
    return add(std::move(derived));
  return absl::OkStatus();
}

/// Whether keep set `keep` recomputes only values the automatic bans allow
/// to be recomputed.
bool respectsAutomaticBans(const PlanContext &context,
                           const std::vector<uint8_t> &keep) {
  for (ValueId value : context.phases.forwardValues)
    if (!keep[value] && !context.constraints.recomputable(value, true))
      return false;
  return true;
}

/// Ops plus operands plus values: what one simulation of a keep set visits,
/// about.
size_t simulationSize(const Graph &graph) {
  size_t size = graph.numValues() + graph.numOps();
  for (const GraphOp &op : graph.ops())
    size += op.operands.size();
  return size;
}

absl::StatusOr<std::vector<Candidate>>
enumerateCandidates(const PlanContext &context) {
  context.progress.setStage("simulating candidates");
  const Graph &graph = context.graph;
  std::vector<uint8_t> base = saveAllKeep(context);

  std::vector<ValueId> convertible = convertibleValues(context, base);
  std::vector<double> score(graph.numValues(), 0);
  for (ValueId value : convertible) {
    double replayUs = context.tables.replayTimeUs[graph.value(value).producer];
    score[value] = static_cast<double>(context.tables.valueBytes[value]) /
                   (replayUs + 1e-3);
  }
  std::stable_sort(
      convertible.begin(), convertible.end(),
      [&](ValueId lhs, ValueId rhs) { return score[lhs] > score[rhs]; });

  // All prefixes on small graphs; on large ones a fixed grid sized so that
  // all simulations together visit about 2e6 ops and edges (9 to 129 plans).
  const size_t total = convertible.size();
  size_t gridPoints =
      std::clamp<size_t>(2000000 / std::max<size_t>(simulationSize(graph), 1),
                         9, 129);
  auto prefixesFor = [&](size_t points) {
    std::vector<size_t> prefixes;
    if (total + 1 <= points) {
      for (size_t k = 0; k <= total; ++k)
        prefixes.push_back(k);
      return prefixes;
    }
    for (size_t i = 0; i < points; ++i)
      prefixes.push_back((total * i) / (points - 1));
    prefixes.erase(std::unique(prefixes.begin(), prefixes.end()),
                   prefixes.end());
    return prefixes;
  };

  std::vector<std::vector<uint8_t>> keeps;
  auto addFamily = [&](const std::vector<ValueId> &order,
                       const std::vector<size_t> &prefixes, bool endpoints) {
    std::vector<uint8_t> keep = base;
    size_t converted = 0;
    for (size_t k : prefixes) {
      for (; converted < k; ++converted)
        keep[order[converted]] = 0;
      // Both orders share "convert nothing" and "convert everything".
      if (endpoints || (k != 0 && k != total))
        keeps.push_back(keep);
    }
  };
  addFamily(convertible, prefixesFor(gridPoints), /*endpoints=*/true);
  // A second order, largest first regardless of replay time: it reaches low
  // peaks in fewer conversions when a few values dominate memory.
  std::vector<ValueId> bySize = convertible;
  std::stable_sort(bySize.begin(), bySize.end(), [&](ValueId lhs, ValueId rhs) {
    return context.tables.valueBytes[lhs] > context.tables.valueBytes[rhs];
  });
  if (bySize != convertible)
    addFamily(bySize, prefixesFor(std::max<size_t>(gridPoints / 2, 9)),
              /*endpoints=*/false);
  absl::StatusOr<std::vector<uint8_t>> minCut = minCutKeep(context, /*bytesPerUs=*/0);
  if (!minCut.ok())
    return minCut.status();
  keeps.push_back(*minCut);
  // Full checkpointing is a candidate too when it happens to respect the
  // automatic bans, so that `budget` is never worse than `recompute-all`.
  if (std::vector<uint8_t> full = recomputeAllKeep(context);
      respectsAutomaticBans(context, full))
    keeps.push_back(std::move(full));

  std::vector<Candidate> candidates;
  for (const std::vector<uint8_t> &keep : keeps)
    if (absl::Status status = addKeepCandidates(context, keep, candidates);
        !status.ok())
      return status;
  return candidates;
}

//===----------------------------------------------------------------------===//
// Decision search
//===----------------------------------------------------------------------===//

/// Simulations of keep sets the decision search may spend, in elements
/// visited (one simulation visits about simulationSize of the graph).
constexpr int64_t kDecisionSearchWork = 40000000;
/// At most this many keep sets are kept on the decision search's front.
constexpr size_t kMaxDecisionFront = 256;
/// `work` (a work limit of the search) times `effort`
/// (budget-search-effort), at least 1.
int64_t scaledWork(int64_t work, double effort) {
  const double product = static_cast<double>(work) * effort;
  if (product >= 9.0e18)
    return std::numeric_limits<int64_t>::max() / 2;
  return std::max<int64_t>(1, static_cast<int64_t>(product));
}

/// Resolves PlanOptions::decisionGroups: by ValueId, the index of the
/// value's group, -1 for none. An unknown name is an error.
absl::StatusOr<std::vector<int32_t>>
resolveDecisionGroups(const PlanContext &context) {
  const Graph &graph = context.graph;
  std::vector<int32_t> groupOf(graph.numValues(), -1);
  const auto &groups = context.options.decisionGroups;
  if (groups.empty())
    return groupOf;
  // What parseDecisionGroups refuses, for groups set through the API.
  absl::flat_hash_map<std::string, int32_t> groupByName;
  for (size_t group = 0; group < groups.size(); ++group) {
    if (groups[group].empty())
      return absl::InvalidArgumentError(
          absl::StrCat("decision-groups: group ", group,
                       " is empty; a group names at "
                       "least one value"));
    for (const std::string &name : groups[group])
      if (!groupByName.emplace(name, static_cast<int32_t>(group)).second)
        return absl::InvalidArgumentError(
            absl::StrCat("decision-groups lists '", name,
                         "' twice: a value belongs to one group at most"));
  }
  absl::flat_hash_set<std::string> matched;
  for (ValueId value : context.phases.forwardValues) {
    auto found = groupByName.find(policyName(graph, value));
    if (found == groupByName.end())
      continue;
    groupOf[value] = found->second;
    matched.insert(found->first);
  }
  for (const std::vector<std::string> &group : groups)
    for (const std::string &name : group)
      if (!matched.contains(name))
        return absl::InvalidArgumentError(absl::StrCat(
            "decision-groups names '", name,
            "', but no forward value has that name (a value's name, or its "
            "producer's for an unnamed value)"));
  return groupOf;
}

/// What the decision search flips at once (units: one flippable value, or
/// the flippable members of a decision group), and the flippable members
/// of groups whose other members force one decision (a tag, a policy, an
/// automatic ban): those are pinned to it, so that the group is decided
/// whole.
struct DecisionUnits {
  std::vector<std::vector<ValueId>> units;
  std::vector<std::pair<ValueId, uint8_t>> pinned; // value, keep bit
  /// Forward values a plan must keep (tags, random ops, the automatic
  /// bans): no unit holds them.
  std::vector<ValueId> mustKeep;
};

DecisionUnits decisionUnits(const PlanContext &context,
                            const std::vector<int32_t> &groupOf) {
  const Constraints &constraints = context.constraints;
  DecisionUnits result;
  absl::flat_hash_map<int32_t, std::vector<ValueId>> flippableOfGroup;
  // By group: whether a member must be kept, whether one must be
  // recomputed.
  absl::flat_hash_map<int32_t, std::pair<bool, bool>> forcedOfGroup;
  std::vector<int32_t> groupOrder;
  for (ValueId value : context.phases.forwardValues) {
    const bool mustRecompute = constraints.forcedRecompute(value);
    const bool mustKeep =
        !mustRecompute && !constraints.recomputable(value, /*automatic=*/true);
    if (mustKeep)
      result.mustKeep.push_back(value);
    // A view shares its base's storage: saving it saves the base, and
    // recomputing it is free, so it is not flipped on its own.
    const OpId producer = context.graph.value(value).producer;
    if (!constraints.isForward[value] || constraints.isOutput[value] ||
        context.graph.users(value).empty() ||
        context.flat.isAliasingView(producer))
      continue;
    const int32_t group = groupOf[value];
    if (group < 0) {
      if (!mustRecompute && !mustKeep)
        result.units.push_back({value});
      continue;
    }
    if (!flippableOfGroup.contains(group) && !forcedOfGroup.contains(group))
      groupOrder.push_back(group);
    std::pair<bool, bool> &forced = forcedOfGroup[group];
    forced.first |= mustKeep;
    forced.second |= mustRecompute;
    if (!mustRecompute && !mustKeep)
      flippableOfGroup[group].push_back(value);
  }
  for (int32_t group : groupOrder) {
    auto found = flippableOfGroup.find(group);
    if (found == flippableOfGroup.end())
      continue;
    const auto [mustKeep, mustRecompute] = forcedOfGroup[group];
    if (mustKeep != mustRecompute) {
      for (ValueId value : found->second)
        result.pinned.emplace_back(value, mustKeep ? 1 : 0);
      continue;
    }
    // Unforced, or forced both ways (no plan decides it whole).
    result.units.push_back(std::move(found->second));
  }
  return result;
}

/// Whether `keep` decides every unit one way and keeps the pins.
bool decidesUnitsWhole(const DecisionUnits &units,
                       const std::vector<uint8_t> &keep) {
  for (const std::vector<ValueId> &unit : units.units)
    for (ValueId value : unit)
      if (keep[value] != keep[unit.front()])
        return false;
  for (auto [value, bit] : units.pinned)
    if (keep[value] != bit)
      return false;
  return true;
}

/// Sets every value a plan must keep (units.mustKeep) kept in `keep`; false
/// when one was not. A keep set may leave such a value unkept where its own
/// plan never reads it (min-cut's does), and a flip that replays its reader
/// would then replay it: the decision search's seeds and the decision
/// polish's starts keep them first.
bool keepWhatPlansMust(const DecisionUnits &units, std::vector<uint8_t> &keep) {
  bool keptAll = true;
  for (ValueId value : units.mustKeep) {
    keptAll &= keep[value] != 0;
    keep[value] = 1;
  }
  return keptAll;
}

/// Keep sets the fixed families miss, for schedule-plans=false, where keep
/// sets are the only plans: their prefixes of two fixed conversion orders
/// miss plans such as "save each layer's attention output, recompute the
/// rest" (peak below both save-all's and recompute-all's; the attention
/// output is read by the replays, not by backward), or a cheaper plan at a
/// given peak. A Pareto local search over per-value decisions: the front
/// holds the keep sets no other found keep set beats in both peak and
/// recompute time (plain keep sets, without derivations), seeded with the
/// fixed families' keep sets, save-all and recompute-all (when the bans
/// allow it). Exploring a keep set flips each unit in turn (save <->
/// recompute) and offers every result to the front; the unexplored keep
/// set of lowest peak is explored next, until all are explored or the work
/// count (simulations times graph size) is spent, so plans stay
/// deterministic. A unit is one flippable value (a forward value some op
/// reads that a plan may both save and recompute: not a function result or
/// a view, not forced either way, within the automatic bans) or, under
/// decision-groups, a group's flippable values together (pinned when other
/// members force the group's decision); seeds that split a group save all
/// of it. Every keep set left on the front is a candidate
/// (with its derivation variants); under decision-groups, candidates that
/// split a group are marked inexpressible.
absl::Status searchDecisions(const PlanContext &context,
                             std::vector<Candidate> &candidates, double effort,
                             bool &limited) {
  context.progress.setStage("searching per-value decisions");
  absl::StatusOr<std::vector<int32_t>> groupOf = resolveDecisionGroups(context);
  if (!groupOf.ok())
    return groupOf.status();
  const DecisionUnits units = decisionUnits(context, *groupOf);
  const bool grouped = !context.options.decisionGroups.empty();
  const int64_t size =
      std::max<int64_t>(static_cast<int64_t>(simulationSize(context.graph)), 1);
  int64_t evaluations = scaledWork(kDecisionSearchWork, effort) / size;
  // Too large a graph to explore even one keep set: without groups, the
  // seeds alone add nothing.
  if (!grouped && evaluations < 2 * static_cast<int64_t>(units.units.size())) {
    limited = true;
    return absl::OkStatus();
  }

  struct Entry {
    std::vector<uint8_t> keep;
    int64_t peak;
    double time;
    bool explored;
    /// Already a candidate (a family's plain keep set, offered with its
    /// simulation): not added again.
    bool candidate;
  };
  std::vector<Entry> front;
  // Keep sets already simulated, so that none is simulated twice.
  absl::flat_hash_set<std::string> seen;
  // `known`: the keep set's simulation when the caller has it.
  const auto offer =
      [&](const std::vector<uint8_t> &keep,
          const SimulationResult *known = nullptr) -> absl::Status {
    if (!seen.insert(std::string(keep.begin(), keep.end())).second)
      return absl::OkStatus();
    absl::StatusOr<SimulationResult> simulation;
    if (known) {
      simulation = *known;
    } else {
      --evaluations;
      StrategyResult trial;
      trial.keep = keep;
      simulation = simulateCandidate(context, trial);
      if (!simulation.ok())
        return simulation.status();
    }
    const int64_t peak = simulation->peakBytes;
    const double time = simulation->recomputeTimeUs;
    for (const Entry &entry : front)
      if (entry.peak <= peak && entry.time <= time)
        return absl::OkStatus();
    front.erase(std::remove_if(front.begin(), front.end(),
                               [&](const Entry &entry) {
                                 return peak <= entry.peak &&
                                        time <= entry.time;
                               }),
                front.end());
    if (front.size() >= kMaxDecisionFront)
      return absl::OkStatus();
    front.push_back(Entry{keep, peak, time, false, known != nullptr});
    return absl::OkStatus();
  };
  // Every seed keeps what a plan must keep (keepWhatPlansMust). A seed that
  // splits a group saves all of it; pins hold.
  const auto seed = [&](std::vector<uint8_t> keep,
                        const SimulationResult *known) -> absl::Status {
    const bool keepsAll = keepWhatPlansMust(units, keep);
    if (keepsAll && decidesUnitsWhole(units, keep))
      return offer(keep, known);
    for (const std::vector<ValueId> &unit : units.units)
      for (ValueId value : unit)
        if (keep[value])
          for (ValueId member : unit)
            keep[member] = 1;
    for (auto [value, bit] : units.pinned)
      keep[value] = bit;
    return offer(keep);
  };

  // The plain candidates (no derivations) come with their simulation.
  for (const Candidate &candidate : candidates)
    if (candidate.result.derivations.empty() && !candidate.schedule)
      if (absl::Status status =
              seed(candidate.result.keep, &candidate.simulation);
          !status.ok())
        return status;
  if (std::vector<uint8_t> full = recomputeAllKeep(context);
      respectsAutomaticBans(context, full))
    if (absl::Status status = seed(std::move(full), nullptr); !status.ok())
      return status;
  if (absl::Status status = seed(saveAllKeep(context), nullptr); !status.ok())
    return status;

  while (evaluations >= static_cast<int64_t>(units.units.size())) {
    Entry *next = nullptr;
    for (Entry &entry : front)
      if (!entry.explored && (!next || entry.peak < next->peak))
        next = &entry;
    if (!next)
      break;
    next->explored = true;
    // `offer` changes the front: explore a copy.
    std::vector<uint8_t> flipped = next->keep;
    for (const std::vector<ValueId> &unit : units.units) {
      for (ValueId value : unit)
        flipped[value] ^= 1;
      if (absl::Status status = offer(flipped); !status.ok())
        return status;
      for (ValueId value : unit)
        flipped[value] ^= 1;
    }
  }
  for (const Entry &entry : front)
    limited |= !entry.explored;
  for (const Entry &entry : front)
    if (!entry.candidate)
      if (absl::Status status =
              addKeepCandidates(context, entry.keep, candidates);
          !status.ok())
        return status;
  if (grouped)
    for (Candidate &candidate : candidates)
      candidate.expressible = decidesUnitsWhole(units, candidate.result.keep);
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Schedule refinement
//===----------------------------------------------------------------------===//

/// Graphs with more ops plus operands than this get no exactly scored
/// refinement (each split it tries is one evaluation of the schedule).
constexpr int64_t kMaxExactRefinedGraphSize = 20000;
/// Evaluator steps (events plus reads walked) the exactly scored refinement
/// may spend over all its trajectories.
constexpr int64_t kExactRefinementWork = 60000000;
/// Evaluator steps (events plus reads walked, chain operands collected) one
/// refinement may spend, over all its trajectories: this much plus
/// kRefinementWorkPerElement per op and operand, at most
/// kMaxRefinementWork. A count, not a clock, so plans stay deterministic.
constexpr int64_t kRefinementWork = 100000000;
constexpr int64_t kRefinementWorkPerElement = 1000;
constexpr int64_t kMaxRefinementWork = 400000000;
/// On graphs too large for exact scoring, where a descent step (collecting
/// a chain for every value live across the peak) costs as much as many
/// evaluations: each step applies up to this many splits that read and
/// produce different values (scored on one analysis, kept together only
/// when they lower the excess at least as much as the best alone), and
/// prune drops independent re-evaluations together. On those of at most
/// kMaxMoreWorkGraphSize ops plus operands the refinement also gets
/// kLargeRefinementWorkFactor times the work, at most
/// kMaxLargeRefinementWork (beyond, a plan of the 1M-op benchmark DAG stays
/// near its 10 s). Measured on the generated 10,000-node random layered
/// graph (docs/benchmarks.md): the lowest peak it reaches went from 0.967
/// of the save-all peak (0.9 s) to 0.888 (3.7 s).
constexpr size_t kLargeGraphSplitsPerStep = 16;
constexpr int64_t kLargeRefinementWorkFactor = 8;
constexpr int64_t kMaxLargeRefinementWork = 2400000000;
constexpr int64_t kMaxMoreWorkGraphSize = 1000000;
/// Graphs on which fewer than this many whole-schedule evaluations fit in
/// the work limit are not refined (about 4M ops plus operands): the descent
/// would stop after a handful of splits.
constexpr int64_t kMinRefinementEvaluations = 100;
/// Splits are scored by the bytes they remove above the current peak minus
/// this fraction of the save-all peak: wide enough that a split freeing much
/// memory at the peak outranks a cheap one freeing a sliver.
constexpr double kScoreWindow = 0.05;
/// Between two peaks the descent reaches, budgets on a grid of this
/// fraction of the save-all peak get their own (pruned) schedule.
constexpr double kBudgetGrid = 0.0025;
/// Every this many grid levels (1% of the save-all peak), the level also
/// gets a schedule lowered to it directly.
constexpr int64_t kAimEvery = 4;
/// Grid levels one drop of the peak visits at most: a drop is at most the
/// save-all peak, 1 / kBudgetGrid levels, in the simulator's accounting.
/// Where the search's accounting parts from the simulator's, its peaks can
/// pass the save-all peak: when it still counted a view's own bytes, a
/// saturated (INT64_MAX-byte) view made one drop span billions of levels,
/// and a 4-op graph took minutes and ran out of memory recording candidates
/// (found by the planner fuzzer).
constexpr int64_t kMaxGridLevelsPerDrop =
    static_cast<int64_t>(1 / kBudgetGrid + 0.5);
/// How deep a split may replay its producer's operands' producers.
constexpr int kMaxChainDepth = 24;
/// How many ops one split may replay: bounds the cost of collecting and
/// scoring a split on wide graphs, where chains would fan out.
constexpr size_t kMaxChainOps = 32;
/// How many of the best-scored splits are evaluated exactly, in score
/// order, before a step gives up (the first that lowers the excess wins).
constexpr size_t kMaxCheckedSplits = 8;
/// Work (live-byte entries scanned, plus a fixed amount per move) the
/// search for lower-peak evaluation orders (OrderSearch.cpp) may spend, at
/// most the work of one descent.
constexpr int64_t kOrderSearchWork = 100000000;
/// The work of reordering the lowest-peak schedule of a descent that
/// started from a searched order (its recomputations move too).
constexpr int64_t kReorderWork = kOrderSearchWork / 4;

} // namespace

ReevaluationRules reevaluationRules(const PlanContext &context,
                                    const std::vector<uint8_t> &derived) {
  const Graph &graph = context.graph;
  const Constraints &constraints = context.constraints;
  ReevaluationRules rules;
  rules.mayAdd.assign(graph.numOps(), 0);
  rules.mayDrop.assign(graph.numOps(), 0);
  for (size_t opIndex = 0; opIndex < graph.numOps(); ++opIndex) {
    if (context.phases.opPhase[opIndex] != Phase::Forward)
      continue;
    bool ok = true;
    for (ValueId result : graph.op(static_cast<OpId>(opIndex)).results)
      ok &= !constraints.isOutput[result] &&
            (derived.empty() || !derived[result]) &&
            (!constraints.isForward[result] ||
             constraints.recomputable(result, /*automatic=*/true));
    rules.mayAdd[opIndex] = ok;
    // A value tags or a policy force to be recomputed keeps its
    // re-evaluations: dropping one would read it from forward.
    for (ValueId result : graph.op(static_cast<OpId>(opIndex)).results)
      ok &= !constraints.forcedRecompute(result);
    rules.mayDrop[opIndex] = ok;
  }
  return rules;
}

namespace {

/// A schedule under refinement: events in execution order, each an op
/// evaluation (>= 0: the op id) or a derivation (< 0: -1 - index into the
/// derivation table of the start plan).
struct WorkSchedule {
  std::vector<int32_t> events;
  size_t boundary = 0; // first event of the backward section
};

WorkSchedule toWorkSchedule(const Schedule &schedule);

/// The largest of a list's values over ranges of it, from per-block
/// maxima: O(block + size / block) per query after an O(size) build, for
/// the many gap checks prune makes on one analysis (a scan of each gap was
/// a third of the search's time on the 10,000-node random layered graph).
class RangeMax {
public:
  void build(const std::vector<absl::int128> &values) {
    values_ = &values;
    const size_t blocks = (values.size() + kBlock - 1) / kBlock;
    blockMax_.assign(blocks, std::numeric_limits<absl::int128>::min());
    for (size_t i = 0; i < values.size(); ++i)
      blockMax_[i / kBlock] = std::max(blockMax_[i / kBlock], values[i]);
  }

  /// The largest value in [begin, end), begin < end.
  absl::int128 of(int32_t begin, int32_t end) const {
    const std::vector<absl::int128> &values = *values_;
    absl::int128 best = values[begin];
    int32_t i = begin + 1;
    for (; i < end && i % kBlock != 0; ++i)
      best = std::max(best, values[i]);
    for (; i + kBlock <= end; i += kBlock)
      best = std::max(best, blockMax_[i / kBlock]);
    for (; i < end; ++i)
      best = std::max(best, values[i]);
    return best;
  }

private:
  static constexpr int32_t kBlock = 64;
  const std::vector<absl::int128> *values_ = nullptr;
  std::vector<absl::int128> blockMax_;
};

class ScheduleSearch {
public:
  /// `exactScoring`: score each split by the changed schedule's exact
  /// excess (insertedExcess: the events whose live bytes change, counted
  /// as work as a full evaluation) instead of splitGain's estimate.
  ScheduleSearch(const PlanContext &context,
                 const std::vector<DerivationStep> &derivations,
                 int64_t workLimit, bool exactScoring, size_t splitsPerStep = 1)
      : context_(context), graph_(context.graph),
        constraints_(context.constraints), derivations_(derivations),
        workLimit_(workLimit), exactScoring_(exactScoring),
        splitsPerStep_(exactScoring ? 1 : splitsPerStep) {
    const size_t numValues = graph_.numValues();
    stamp_.assign(numValues, 0);
    seenValue_.assign(numValues, 0);
    claimed_.assign(numValues, 0);
    seenIndex_.assign(numValues, -1);
    inChain_.assign(graph_.numOps(), 0);
    droppedOp_.assign(graph_.numOps(), 0);
    readByDropped_.assign(graph_.numOps(), 0);
    latest_.assign(numValues, -1);
    openAt_.assign(numValues, 0);
    openLast_.assign(numValues, 0);
    derived_.assign(numValues, 0);
    for (const DerivationStep &step : derivations_)
      derived_[step.value] = 1;
    // Storage counts once, as in the simulator: a view (not re-created by
    // a derivation) adds no bytes, a read of it also reads the storage it
    // shares (keeping it live), and a view that is a function result holds
    // that storage to the end. (The simulator also follows a view of an
    // older instance of a storage evaluated again; here the read binds to
    // the latest instance, and the candidates are re-simulated anyway.)
    const FlatGraph &flat = context_.flat;
    bytes_ = context_.tables.valueBytes;
    auto sharedStorage = [&](ValueId value) {
      const ValueId storage = flat.storageOf(value);
      return storage != value && !derived_[value] &&
                     graph_.value(storage).producer != kNoId
                 ? storage
                 : kNoId;
    };
    std::vector<uint8_t> isOutput(numValues, 0);
    for (size_t id = 0; id < numValues; ++id) {
      const ValueId value = static_cast<ValueId>(id);
      if (flat.storageOf(value) != value && !derived_[value])
        bytes_[id] = 0;
      const GraphValue &graphValue = graph_.value(value);
      if (graphValue.outputRole == OutputRole::None || graphValue.inputRole)
        continue;
      isOutput[id] = 1;
      if (const ValueId storage = sharedStorage(value); storage != kNoId)
        isOutput[storage] = 1;
    }
    for (size_t id = 0; id < numValues; ++id)
      if (isOutput[id])
        outputs_.push_back(static_cast<ValueId>(id));
    ReevaluationRules rules = reevaluationRules(context_, derived_);
    splittable_ = std::move(rules.mayAdd);
    prunable_ = std::move(rules.mayDrop);
    // Values tags or a policy force to be recomputed (function results
    // excepted: live anyway) may not be read in backward from forward.
    const Constraints &constraints = context_.constraints;
    replayOnly_.assign(numValues, 0);
    for (size_t id = 0; id < numValues; ++id)
      replayOnly_[id] = constraints.isForward[id] && !isOutput[id] &&
                        constraints.forcedRecompute(static_cast<ValueId>(id));
    // What each event reads (graph inputs left out: they are not in the
    // activation peak) and produces, as flat arrays: op `i` is row i, the
    // derivation with index d is row numOps + d.
    const size_t numRows = graph_.numOps() + derivations_.size();
    readBegin_.reserve(numRows + 1);
    produceBegin_.reserve(numRows + 1);
    auto addRow = [&](const std::vector<ValueId> &reads,
                      const std::vector<ValueId> &produces) {
      const size_t rowBegin = reads_.size();
      readBegin_.push_back(static_cast<int32_t>(rowBegin));
      produceBegin_.push_back(static_cast<int32_t>(produces_.size()));
      auto addRead = [&](ValueId value) {
        if (std::find(reads_.begin() + rowBegin, reads_.end(), value) ==
            reads_.end())
          reads_.push_back(value);
      };
      for (ValueId value : reads) {
        if (graph_.value(value).producer == kNoId)
          continue;
        addRead(value);
        if (const ValueId storage = sharedStorage(value); storage != kNoId)
          addRead(storage);
      }
      produces_.insert(produces_.end(), produces.begin(), produces.end());
    };
    for (const GraphOp &op : graph_.ops())
      addRow(op.operands, op.results);
    for (const DerivationStep &step : derivations_)
      addRow(step.reads, {step.value});
    readBegin_.push_back(static_cast<int32_t>(reads_.size()));
    produceBegin_.push_back(static_cast<int32_t>(produces_.size()));
  }

  bool exhausted() const { return work_ > workLimit_; }

  /// Lowers `work` to peak within `level` by splits scored against the
  /// level, then drops the re-evaluations it does not need (prune). False
  /// when `work` is not a schedule or no split sequence got it there.
  bool lowerTo(WorkSchedule &work, absl::int128 level) {
    Analysis analysis = analyze(work);
    while (analysis.valid && analysis.peak > level && !exhausted() &&
           applyBestSplit(work, analysis, level)) {
      context_.progress.step();
      analysis = analyze(work);
    }
    if (!analysis.valid || analysis.peak > level)
      return false;
    prune(work, level, analysis);
    return true;
  }

  /// Lets the descent reorder the lowest-peak schedule it reaches
  /// (searchOrders with `work`), recording the reorderings found: the same
  /// evaluations at a lower peak.
  void enableReordering(int64_t work) { reorderWork_ = work; }

  /// Lowers the peak of `start` one split at a time; whenever the peak
  /// drops below the last one recorded, drops the re-evaluations the new
  /// peak does not need (prune) and calls `record`. Stops when no split
  /// removes memory above the window below the peak, or when the work limit
  /// is spent; then, when reordering is enabled, records the reorderings of
  /// the lowest-peak schedule it reached.
  template <typename Record>
  void descend(WorkSchedule current, int64_t window, int64_t gridStep,
               int64_t aimStep, Record &&record) {
    lowest_.events.clear();
    descendFrom(std::move(current), window, gridStep, aimStep, record);
    if (!lowest_.events.empty())
      reorder(lowest_, gridStep, record);
  }

  Schedule toSchedule(const WorkSchedule &work) const {
    Schedule schedule;
    size_t boundaryStep = 0;
    for (size_t i = 0; i < work.events.size(); ++i) {
      if (i == work.boundary)
        boundaryStep = schedule.steps.size();
      int32_t event = work.events[i];
      if (event >= 0) {
        schedule.steps.push_back(event);
        continue;
      }
      DerivationStep step = derivations_[-1 - event];
      step.beforeStep = schedule.steps.size();
      schedule.derivations.push_back(std::move(step));
    }
    if (work.boundary >= work.events.size())
      boundaryStep = schedule.steps.size();
    schedule.backwardStart = boundaryStep;
    return schedule;
  }

private:
  template <typename Record>
  void descendFrom(WorkSchedule current, int64_t window, int64_t gridStep,
                   int64_t aimStep, Record &&record) {
    Analysis analysis = analyze(current);
    if (!analysis.valid)
      return;
    absl::int128 recorded = analysis.peak;
    WorkSchedule previous = current;
    while (!exhausted()) {
      absl::int128 scored = std::max<absl::int128>(analysis.peak - window, 0);
      if (!applyBestSplit(current, analysis, scored))
        return;
      context_.progress.step();
      analysis = analyze(current);
      if (!analysis.valid)
        return;
      if (analysis.peak >= recorded)
        continue;
      if (prune(current, analysis.peak, analysis))
        reanalyzed(analysis);
      else
        analysis = analyze(current);
      if (!analysis.valid)
        return;
      record(current);
      lowest_ = current;
      // The split that got here may have overshot: budgets between this
      // peak and the last one recorded get, from a grid of levels, this
      // schedule with the re-evaluations that level does not need dropped,
      // and, on a coarser grid, the previous schedule lowered to the level
      // by splits scored against the level itself.
      absl::int128 gridLevel = (recorded - 1) / gridStep * gridStep;
      for (int64_t levels = 0; gridLevel > analysis.peak && !exhausted() &&
                               levels < kMaxGridLevelsPerDrop;
           gridLevel -= gridStep, ++levels) {
        WorkSchedule relaxed = current;
        Analysis relaxedAnalysis = analysis;
        prune(relaxed, gridLevel, relaxedAnalysis);
        if (relaxed.events.size() < current.events.size())
          record(relaxed);
        if (gridLevel % aimStep != 0)
          continue;
        WorkSchedule aimed = previous;
        if (lowerTo(aimed, gridLevel))
          record(aimed);
      }
      recorded = analysis.peak;
      previous = current;
    }
  }

  template <typename Record>
  void reorder(const WorkSchedule &work, int64_t gridStep, Record &&record) {
    if (reorderWork_ <= 0)
      return;
    for (const OrderFound &order :
         searchOrders(context_, toSchedule(work), reorderWork_, gridStep))
      record(toWorkSchedule(order.schedule));
  }

  struct Instance {
    ValueId value;
    int32_t producedAt;
    int32_t lastRead;
    int32_t previous; // the value's previous instance, or -1
  };
  struct Analysis {
    bool valid = false;
    absl::int128 peak = 0;
    int32_t peakEvent = 0;
    absl::int128 excess = 0; // bytes above the level, summed over events
    std::vector<Instance> instances;
    std::vector<int32_t> latestInstance; // by value, at the end
    /// Reads of each instance, in event order (CSR).
    std::vector<int32_t> readOffsets, readEvents;
    /// Live bytes at each event, and the first instance each event produces
    /// (instances are numbered in event order).
    std::vector<absl::int128> live;
    std::vector<int32_t> firstInstance;
    /// The work the scan that made this analysis counted.
    int64_t scanWork = 0;
  };

  /// The row of an event in the read/produce arrays.
  int32_t rowOf(int32_t event) const {
    return event >= 0 ? event
                      : static_cast<int32_t>(graph_.numOps()) - 1 - event;
  }

  /// The memory model of Simulator.h on an event list: peak, peak event
  /// and the excess above `level`, without the instances (the split
  /// search's inner loop: it evaluates thousands of schedules).
  Analysis evaluate(const std::vector<int32_t> &events, absl::int128 level) {
    if (std::optional<Analysis> quick = evaluateOpen(events, level))
      return *std::move(quick);
    return evaluateWithDetails(events, level);
  }

  /// The scan of an event list both evaluations share: calls `read(value,
  /// e)` for each value event e reads (graph inputs left out) and
  /// `produce(value, e, again)` for each value it produces (`again`: it was
  /// produced before), in event order, counting the work. False, with the
  /// work so far counted, when a value is read before any evaluation of it
  /// or an output is never produced: not a schedule.
  template <typename Read, typename Produce>
  bool scanEvents(const std::vector<int32_t> &events, Read &&read,
                  Produce &&produce) {
    // Members through locals: the callbacks' 32-bit stores would otherwise
    // make the compiler reload generation_ and the arrays on every read.
    const uint32_t generation = ++generation_;
    const int32_t *readBegin = readBegin_.data();
    const int32_t *produceBegin = produceBegin_.data();
    const ValueId *reads = reads_.data();
    const ValueId *produces = produces_.data();
    uint32_t *stamp = stamp_.data();
    const int32_t numEvents = static_cast<int32_t>(events.size());
    int64_t work = 0;
    for (int32_t e = 0; e < numEvents; ++e) {
      const int32_t row = rowOf(events[e]);
      const int32_t readEnd = readBegin[row + 1];
      work += 1 + readEnd - readBegin[row];
      for (int32_t r = readBegin[row]; r < readEnd; ++r) {
        if (stamp[reads[r]] != generation) {
          work_ += work;
          return false;
        }
        read(reads[r], e);
      }
      for (int32_t p = produceBegin[row]; p < produceBegin[row + 1]; ++p) {
        const ValueId value = produces[p];
        const bool again = stamp[value] == generation;
        stamp[value] = generation;
        produce(value, e, again);
      }
    }
    work_ += work;
    return std::all_of(outputs_.begin(), outputs_.end(), [&](ValueId value) {
      return stamp[value] == generation;
    });
  }

  /// Sums the live-byte differences `delta` of `numEvents` events (`Sum`
  /// wide enough for every partial sum) into `result`'s peak, peak event,
  /// excess above `level` and, with `keepLive`, live bytes per event.
  template <typename Sum>
  static void sumLive(const Sum *delta, int32_t numEvents, absl::int128 level,
                      bool keepLive, Analysis &result) {
    // Every live sum fits Sum, so comparing with the level clamped to Sum's
    // range decides as comparing with the level itself.
    const Sum clamped = static_cast<Sum>(
        std::min<absl::int128>(level, std::numeric_limits<Sum>::max()));
    Sum live = 0, peak = 0;
    if (keepLive)
      result.live.resize(numEvents);
    for (int32_t e = 0; e < numEvents; ++e) {
      live += delta[e];
      if (keepLive)
        result.live[e] = live;
      if (live > peak) {
        peak = live;
        result.peakEvent = e;
      }
      if (live > clamped)
        result.excess += absl::int128(live) - level;
    }
    result.peak = peak;
  }

  /// evaluate, also recording the instances and their reads.
  Analysis evaluateWithDetails(const std::vector<int32_t> &events,
                               absl::int128 level) {
    Analysis result;
    const int64_t workBefore = work_;
    std::vector<Instance> &instances = instances_;
    instances.clear();
    readPairs_.clear();
    int32_t *latest = latest_.data();
    const int32_t numEvents = static_cast<int32_t>(events.size());
    const bool valid = scanEvents(
        events,
        [&](ValueId value, int32_t e) {
          const int32_t instance = latest[value];
          instances[instance].lastRead = e;
          readPairs_.push_back({instance, e});
        },
        [&](ValueId value, int32_t e, bool again) {
          const int32_t previous = again ? latest[value] : -1;
          latest[value] = static_cast<int32_t>(instances.size());
          instances.push_back(Instance{value, e, e, previous});
        });
    result.scanWork = work_ - workBefore;
    if (!valid)
      return result;
    for (ValueId value : outputs_)
      instances[latest[value]].lastRead = numEvents - 1;
    // Live bytes are summed in 64 bits while all bytes produced fit in 64
    // bits (then no partial sum overflows), which is every real graph; else
    // in 128 bits, as the simulator does.
    const std::vector<int64_t> &valueBytes = bytes_;
    const bool withWorkspace = !context_.flat.workspaceBytes.empty();
    int64_t produced = 0;
    bool fits = true;
    auto count = [&](int64_t bytes) {
      fits = fits && bytes <= std::numeric_limits<int64_t>::max() - produced;
      produced = fits ? produced + bytes : produced;
    };
    for (const Instance &instance : instances)
      count(valueBytes[instance.value]);
    if (withWorkspace)
      for (int32_t e = 0; e < numEvents; ++e)
        if (events[e] >= 0)
          count(context_.flat.workspace(events[e]));
    auto sweep = [&](auto &delta) {
      delta.assign(static_cast<size_t>(numEvents) + 1, 0);
      for (const Instance &instance : instances) {
        const int64_t bytes = valueBytes[instance.value];
        delta[instance.producedAt] += bytes;
        delta[instance.lastRead + 1] -= bytes;
      }
      // Each op's workspace, at its own event (derivations have none).
      if (withWorkspace)
        for (int32_t e = 0; e < numEvents; ++e)
          if (events[e] >= 0) {
            const int64_t workspace = context_.flat.workspace(events[e]);
            delta[e] += workspace;
            delta[e + 1] -= workspace;
          }
      sumLive(delta.data(), numEvents, level, /*keepLive=*/true, result);
    };
    if (fits)
      sweep(delta64_);
    else
      sweep(delta_);
    result.valid = true;
    result.instances = instances;
    result.firstInstance.assign(static_cast<size_t>(numEvents) + 1,
                                static_cast<int32_t>(instances.size()));
    for (size_t i = instances.size(); i-- > 0;)
      result.firstInstance[instances[i].producedAt] = static_cast<int32_t>(i);
    for (int32_t e = numEvents; e-- > 0;)
      result.firstInstance[e] =
          std::min(result.firstInstance[e], result.firstInstance[e + 1]);
    result.latestInstance.assign(graph_.numValues(), -1);
    for (size_t id = 0; id < graph_.numValues(); ++id)
      if (stamp_[id] == generation_)
        result.latestInstance[id] = latest_[id];
    result.readOffsets.assign(instances.size() + 1, 0);
    for (const auto &[instance, event] : readPairs_)
      ++result.readOffsets[instance + 1];
    for (size_t i = 0; i < instances.size(); ++i)
      result.readOffsets[i + 1] += result.readOffsets[i];
    result.readEvents.assign(readPairs_.size(), 0);
    std::vector<int32_t> fill(result.readOffsets.begin(),
                              result.readOffsets.end() - 1);
    for (const auto &[instance, event] : readPairs_)
      result.readEvents[fill[instance]++] = event;
    return result;
  }

  /// evaluate without the list of instances, in 64-bit sums: each
  /// value's open instance (where it was produced, its last read so far)
  /// enters the difference array when the value is produced again, and at
  /// the end. The same peak, peak event and excess (integer sums, so the
  /// order of the additions does not matter) and the same work counted.
  /// nullopt, with no work counted, when the bytes produced pass INT64_MAX;
  /// evaluateWithDetails then sums in 128 bits.
  std::optional<Analysis> evaluateOpen(const std::vector<int32_t> &events,
                                       absl::int128 level) {
    Analysis result;
    int32_t *openAt = openAt_.data();
    int32_t *openLast = openLast_.data();
    const int64_t *valueBytes = bytes_.data();
    const int32_t numEvents = static_cast<int32_t>(events.size());
    delta64_.assign(static_cast<size_t>(numEvents) + 1, 0);
    int64_t *delta = delta64_.data();
    touched_.clear();
    const int64_t workBefore = work_;
    int64_t produced = 0;
    bool fits = true;
    auto add = [&](int32_t from, int32_t last, int64_t bytes) {
      fits = fits && bytes <= std::numeric_limits<int64_t>::max() - produced;
      if (!fits)
        return;
      produced += bytes;
      delta[from] += bytes;
      delta[last + 1] -= bytes;
    };
    auto close = [&](ValueId value) {
      add(openAt[value], openLast[value], valueBytes[value]);
    };
    const bool valid = scanEvents(
        events, [&](ValueId value, int32_t e) { openLast[value] = e; },
        [&](ValueId value, int32_t e, bool again) {
          if (again)
            close(value);
          else
            touched_.push_back(value);
          openAt[value] = openLast[value] = e;
        });
    if (!valid)
      return result;
    for (ValueId value : outputs_)
      openLast[value] = numEvents - 1;
    // Each op's workspace, at its own event (derivations have none).
    if (!context_.flat.workspaceBytes.empty())
      for (int32_t e = 0; e < numEvents; ++e)
        if (events[e] >= 0)
          add(e, e, context_.flat.workspace(events[e]));
    for (ValueId value : touched_)
      close(value);
    if (!fits) {
      work_ = workBefore; // evaluateWithDetails counts the scan
      return std::nullopt;
    }
    sumLive(delta, numEvents, level, /*keepLive=*/false, result);
    result.valid = true;
    return result;
  }

  Analysis analyze(const WorkSchedule &work) {
    return evaluateWithDetails(work.events,
                               std::numeric_limits<int64_t>::max());
  }

  /// Counts the work of evaluating again the schedule `analysis` describes,
  /// for a caller that reuses `analysis` instead, so that the search's
  /// length (and so every plan) does not depend on which evaluations are
  /// reused.
  void reanalyzed(const Analysis &analysis) { work_ += analysis.scanWork; }

  /// The instance of `value` a read at `position` resolves to, or -1.
  static int32_t instanceAt(const Analysis &analysis, ValueId value,
                            int32_t position) {
    int32_t instance = analysis.latestInstance[value];
    while (instance >= 0 &&
           analysis.instances[instance].producedAt >= position)
      instance = analysis.instances[instance].previous;
    return instance;
  }

  /// Appends to `chain`, in dependency order, `op` and (with `recurse`) the
  /// producers of its operands whose current instances would otherwise be
  /// held across event `across` only to feed the re-evaluation at
  /// `position`. The producer of an operand tags or a policy force to be
  /// recomputed whose current instance is a forward one (before event
  /// `boundary`, the backward section's first) joins a backward chain
  /// whatever `recurse` says, and the chain is refused when it cannot: a
  /// backward read of its forward instance would save it.
  bool collectChain(const Analysis &analysis, OpId op, int32_t position,
                    int32_t across, int32_t boundary, bool recurse, int depth,
                    std::vector<OpId> &chain) {
    if (depth == 0)
      ++chainGeneration_; // a fresh chain: no op is in it yet
    const FlatGraph &flat = context_.flat;
    absl::Span<const ValueId> operands = flat.operands(op);
    if (!exactScoring_)
      work_ += 1 + static_cast<int64_t>(operands.size());
    for (ValueId operand : operands) {
      const OpId producer = flat.producer[operand];
      if (producer == kNoId || inChain_[producer] == chainGeneration_)
        continue;
      int32_t instance = instanceAt(analysis, operand, position);
      if (instance < 0)
        return false;
      const Instance &current = analysis.instances[instance];
      bool extendedAcross =
          current.producedAt < across && current.lastRead < across;
      const bool replay = replayOnly_[operand] && position >= boundary &&
                          current.producedAt < boundary;
      if (replay && (!splittable_[producer] || depth >= kMaxChainDepth))
        return false;
      if (replay || (recurse && extendedAcross && depth < kMaxChainDepth &&
                     splittable_[producer]))
        if (!collectChain(analysis, producer, position, across, boundary,
                          recurse, depth + 1, chain))
          return false;
    }
    if (!exactScoring_ && chain.size() >= kMaxChainOps)
      return false;
    chain.push_back(op);
    inChain_[op] = chainGeneration_;
    return true;
  }

  static void insertChain(WorkSchedule &work, int32_t position,
                          const std::vector<OpId> &chain) {
    work.events.insert(work.events.begin() + position, chain.begin(),
                       chain.end());
    if (static_cast<size_t>(position) < work.boundary)
      work.boundary += chain.size();
  }

  /// What inserting `chain` just before event `position` changes, read
  /// off `analysis`: each chain result whose current instance is read at or
  /// after `position` is freed from its last earlier read until `position`
  /// (the new instance serves the later reads), and each operand the chain
  /// reads from outside it, when its current instance is not read at or
  /// after `position`, is held from its last read into the chain. Fills
  /// changes_ and chainResults_ and returns what stays live across the
  /// boundary before `position` (the freed results taken out, the held
  /// operands not added), or nullopt when an operand has no instance
  /// before `position`. `regular` is false when a chain op reads a value a
  /// later chain op evaluates again (the first read then resolves to the
  /// current instance, which this accounting does not follow).
  std::optional<absl::int128> splitChanges(const Analysis &analysis,
                                           const std::vector<OpId> &chain,
                                           int32_t position, bool &regular) {
    const std::vector<int64_t> &bytes = bytes_;
    changes_.clear();
    chainResults_.clear();
    regular = true;
    ++valueGeneration_;
    // What `position` holds minus what it produces (its workspace stays).
    absl::int128 across = analysis.live[position];
    for (int32_t i = analysis.firstInstance[position];
         i < analysis.firstInstance[position + 1]; ++i)
      across -= bytes[analysis.instances[i].value];
    for (size_t index = 0; index < chain.size(); ++index) {
      const int32_t use = static_cast<int32_t>(index);
      const int32_t row = rowOf(chain[index]);
      for (int32_t r = readBegin_[row]; r < readBegin_[row + 1]; ++r) {
        ValueId operand = reads_[r];
        if (seenValue_[operand] == valueGeneration_) {
          // A chain result, or an operand already seen.
          const int32_t index = seenIndex_[operand];
          if (index >= 0)
            chainResults_[index].lastUse = use;
          else if (index < -1)
            changes_[-2 - index].lastUse = use;
          continue;
        }
        seenValue_[operand] = valueGeneration_;
        seenIndex_[operand] = -1;
        int32_t instance = instanceAt(analysis, operand, position);
        if (instance < 0)
          return std::nullopt;
        const Instance &held = analysis.instances[instance];
        if (held.lastRead < position) {
          seenIndex_[operand] = -2 - static_cast<int32_t>(changes_.size());
          changes_.push_back({held.lastRead + 1, bytes[operand], use});
        }
      }
      for (int32_t p = produceBegin_[row]; p < produceBegin_[row + 1]; ++p) {
        ValueId value = produces_[p];
        regular = regular && seenValue_[value] != valueGeneration_;
        seenValue_[value] = valueGeneration_;
        seenIndex_[value] = static_cast<int32_t>(chainResults_.size());
        ChainResult result{value, use, use, false};
        int32_t instance = instanceAt(analysis, value, position);
        if (instance >= 0 && analysis.instances[instance].lastRead >= position) {
          const Instance &replaced = analysis.instances[instance];
          int32_t lastBefore = replaced.producedAt;
          for (int32_t r = analysis.readOffsets[instance];
               r < analysis.readOffsets[instance + 1] &&
               analysis.readEvents[r] < position;
               ++r)
            lastBefore = analysis.readEvents[r];
          changes_.push_back({lastBefore + 1, -bytes[value], -1});
          across -= bytes[value];
          result.servesLater = true;
        }
        chainResults_.push_back(result);
      }
    }
    return across;
  }

  /// The bytes above `level`, summed over events, that inserting `chain`
  /// just before event `position` removes (negative: adds), estimated from
  /// splitChanges: on an event before `position` that a change spans, the
  /// change counts in full where the event is above the level (linear in
  /// the change: exact while the excess there exceeds the bytes that move,
  /// an estimate below that). The inserted events hold what is live across
  /// `position`, the operands held for the chain, and each chain result
  /// from its evaluation to its last read in the chain (or on, if it serves
  /// later reads). O(chain operands), which is what lets the refinement
  /// score every split of a large schedule; the split it applies is then
  /// evaluated exactly (insertedExcess).
  absl::int128 splitGain(const Analysis &analysis,
                         const std::vector<OpId> &chain, int32_t position,
                         absl::int128 level) {
    bool regular = true;
    std::optional<absl::int128> across =
        splitChanges(analysis, chain, position, regular);
    if (!across)
      return -1;
    work_ += static_cast<int64_t>(changes_.size() + chainResults_.size());
    absl::int128 gain = 0;
    for (const Change &change : changes_)
      gain -= absl::int128(change.bytes) *
              (aboveCount_[position] - aboveCount_[change.from]);
    chainLive(chain.size(), *across, /*operandsToLastUse=*/false);
    for (size_t index = 0; index < chain.size(); ++index)
      if (chainLive_[index] > level)
        gain -= chainLive_[index] - level;
    return gain;
  }

  /// Fills chainLive_ with the live bytes at each inserted event, from
  /// splitChanges' results: `across`; each chain result from its
  /// evaluation to its last use in the chain (or on, if it serves later
  /// reads); each operand held for the chain, up to its last use in the
  /// chain with `operandsToLastUse`, else over the whole chain.
  void chainLive(size_t length, absl::int128 across, bool operandsToLastUse) {
    const std::vector<int64_t> &bytes = bytes_;
    chainLive_.assign(length + 1, 0);
    chainLive_[0] = across;
    for (const Change &change : changes_)
      if (change.lastUse >= 0) {
        chainLive_[0] += change.bytes;
        chainLive_[operandsToLastUse ? change.lastUse + 1 : length] -=
            change.bytes;
      }
    for (const ChainResult &result : chainResults_) {
      chainLive_[result.producedAt] += bytes[result.value];
      chainLive_[result.servesLater ? length : result.lastUse + 1] -=
          bytes[result.value];
    }
    for (size_t index = 1; index < length; ++index)
      chainLive_[index] += chainLive_[index - 1];
  }

  /// The bytes above `level`, summed over events, of `work` (analysed in
  /// `analysis`, whose excess above `level` is `excess`) with `chain`
  /// inserted just before event `position`: evaluate's figure for the
  /// changed schedule (nullopt: not a schedule), computed only where live
  /// bytes change: the events before `position` that splitChanges' changes
  /// span, and the inserted ones (every later event holds what it held).
  /// Counts the work of evaluate (so that exactly and estimated scored
  /// descents count alike), or on large graphs (splitsPerStep_ > 1, where
  /// only estimated descents run and a step checks many splits) the events
  /// it walks. Evaluates the changed schedule when splitChanges cannot
  /// account for the chain.
  std::optional<absl::int128>
  insertedExcess(const WorkSchedule &work, const Analysis &analysis,
                 absl::int128 excess, const std::vector<OpId> &chain,
                 int32_t position, absl::int128 level) {
    bool regular = true;
    std::optional<absl::int128> across =
        splitChanges(analysis, chain, position, regular);
    if (!across || !regular) {
      WorkSchedule trial = work;
      insertChain(trial, position, chain);
      Analysis after = evaluate(trial.events, level);
      return after.valid ? std::optional<absl::int128>(after.excess)
                         : std::nullopt;
    }
    if (splitsPerStep_ == 1)
      work_ += analysis.scanWork;
    for (OpId op : chain)
      work_ += 1 + readBegin_[op + 1] - readBegin_[op];
    auto above = [&](absl::int128 live) {
      return live > level ? live - level : absl::int128(0);
    };
    // The inserted events: what `position` held across it, without its
    // workspace, and each op's own workspace.
    const int32_t atPosition = work.events[position];
    if (atPosition >= 0)
      *across -= context_.flat.workspace(atPosition);
    chainLive(chain.size(), *across, /*operandsToLastUse=*/true);
    for (size_t index = 0; index < chain.size(); ++index)
      excess +=
          above(chainLive_[index] + context_.flat.workspace(chain[index]));
    // The events before `position` whose live bytes change: each change
    // holds from its event until `position`.
    std::sort(changes_.begin(), changes_.end(),
              [](const Change &lhs, const Change &rhs) {
                return lhs.from < rhs.from;
              });
    absl::int128 change = 0;
    auto next = changes_.begin();
    const int32_t firstChanged =
        changes_.empty() ? position : changes_.front().from;
    if (splitsPerStep_ > 1)
      work_ += position - firstChanged;
    for (int32_t e = firstChanged; e < position; ++e) {
      for (; next != changes_.end() && next->from == e; ++next)
        change += next->bytes;
      const absl::int128 live = analysis.live[e];
      excess += above(live + change) - above(live);
    }
    return excess;
  }

  /// Splits, at the peak event, the lifetime of the value whose
  /// re-evaluation removes the most bytes above `level` (summed over all
  /// events, splitGain) per microsecond. `analysis` is `work`'s. Returns
  /// false if no split removes any.
  bool applyBestSplit(WorkSchedule &work, const Analysis &analysis,
                      absl::int128 level) {
    const int32_t across = analysis.peakEvent;
    if (!exactScoring_) {
      const size_t numEvents = analysis.live.size();
      aboveCount_.assign(numEvents + 1, 0);
      for (size_t e = 0; e < numEvents; ++e)
        aboveCount_[e + 1] =
            aboveCount_[e] + (analysis.live[e] > level ? 1 : 0);
      work_ += static_cast<int64_t>(numEvents);
    }
    struct Split {
      double gain = 0, cost = 0;
      int32_t position = -1;
      std::vector<OpId> chain;
    };
    std::vector<Split> splits;
    // The excess of `work` itself, from its analysis: evaluate's sum, and
    // its work counted.
    absl::int128 before = 0;
    for (const absl::int128 &live : analysis.live)
      if (live > level)
        before += live - level;
    reanalyzed(analysis);
    auto consider = [&](double cost, int32_t position,
                        const std::vector<OpId> &ops) {
      absl::int128 removed;
      if (exactScoring_) {
        std::optional<absl::int128> after =
            insertedExcess(work, analysis, before, ops, position, level);
        if (!after)
          return;
        removed = before - *after;
      } else {
        removed = splitGain(analysis, ops, position, level);
      }
      if (removed > 0)
        splits.push_back({static_cast<double>(removed), cost, position, ops});
    };
    absl::flat_hash_set<std::pair<OpId, int32_t>> tried;
    std::vector<OpId> chain;
    for (size_t i = 0; i < analysis.instances.size(); ++i) {
      const Instance &instance = analysis.instances[i];
      if (instance.producedAt >= across || instance.lastRead <= across)
        continue;
      OpId producer = graph_.value(instance.value).producer;
      // The first read after `across`; none may fall on it.
      int32_t next = -1;
      bool readAtPeak = false;
      for (int32_t r = analysis.readOffsets[i];
           r < analysis.readOffsets[i + 1]; ++r) {
        int32_t event = analysis.readEvents[r];
        readAtPeak |= event == across;
        if (event > across) {
          next = event;
          break;
        }
      }
      if (readAtPeak || !splittable_[producer] || next < 0)
        continue;
      if (!tried.insert({producer, next}).second)
        continue;
      std::vector<OpId> previousChain;
      for (bool recurse : {false, true}) {
        chain.clear();
        if (!collectChain(analysis, producer, next, across,
                          static_cast<int32_t>(work.boundary), recurse, 0,
                          chain))
          continue;
        if (recurse && chain == previousChain)
          continue;
        previousChain = chain;
        double cost = 0;
        for (OpId op : chain)
          cost += context_.tables.replayTimeUs[op];
        consider(cost, next, chain);
      }
    }
    // Most bytes removed per microsecond first (free splits first), then
    // the larger gain; the estimate is checked on the changed schedule, so
    // every applied split lowers the excess and the descent makes progress.
    std::stable_sort(splits.begin(), splits.end(),
                     [](const Split &lhs, const Split &rhs) {
                       double left = lhs.gain * rhs.cost;
                       double right = rhs.gain * lhs.cost;
                       return left != right ? left > right
                                            : lhs.gain > rhs.gain;
                     });
    if (splits.empty())
      return false;
    if (exactScoring_) {
      insertChain(work, splits.front().position, splits.front().chain);
      return true;
    }
    // The first split (in score order) that lowers the excess; on large
    // graphs (splitsPerStep_ > 1) with up to splitsPerStep_ - 1 more that
    // each lower it too and read and produce no value a split taken before
    // them reads or produces (so each binds its reads as it would alone).
    // Their gains were estimated each on its own and need not add up: the
    // schedule with all of them is evaluated, and kept only when its excess
    // is at most the first's alone.
    ++claimGeneration_;
    std::vector<size_t> taken;
    absl::int128 firstAfter = 0;
    size_t failed = 0;
    for (size_t i = 0; i < splits.size() && failed < kMaxCheckedSplits &&
                       taken.size() < splitsPerStep_;
         ++i) {
      if (!taken.empty() && claimed(splits[i].chain))
        continue;
      std::optional<absl::int128> after = insertedExcess(
          work, analysis, before, splits[i].chain, splits[i].position, level);
      if (!after || *after >= before) {
        ++failed;
        continue;
      }
      if (taken.empty())
        firstAfter = *after;
      taken.push_back(i);
      if (splitsPerStep_ > 1)
        claim(splits[i].chain);
    }
    if (taken.empty())
      return false;
    if (taken.size() > 1) {
      // Last position first, so that no insertion moves a later one's.
      std::vector<size_t> byPosition = taken;
      std::stable_sort(byPosition.begin(), byPosition.end(),
                       [&](size_t lhs, size_t rhs) {
                         return splits[lhs].position > splits[rhs].position;
                       });
      WorkSchedule batch = work;
      for (size_t i : byPosition)
        insertChain(batch, splits[i].position, splits[i].chain);
      Analysis after = evaluate(batch.events, level);
      if (after.valid && after.excess <= firstAfter) {
        work = std::move(batch);
        return true;
      }
    }
    insertChain(work, splits[taken.front()].position,
                splits[taken.front()].chain);
    return true;
  }

  /// Calls `visit(value)` for each value `chain` reads or produces until it
  /// returns true; true if it did.
  template <typename Visit>
  bool anyValueOf(const std::vector<OpId> &chain, Visit &&visit) const {
    for (OpId op : chain) {
      const int32_t row = rowOf(op);
      for (int32_t r = readBegin_[row]; r < readBegin_[row + 1]; ++r)
        if (visit(reads_[r]))
          return true;
      for (int32_t p = produceBegin_[row]; p < produceBegin_[row + 1]; ++p)
        if (visit(produces_[p]))
          return true;
    }
    return false;
  }

  /// Records the values a taken split reads and produces.
  void claim(const std::vector<OpId> &chain) {
    work_ += static_cast<int64_t>(chain.size());
    anyValueOf(chain, [&](ValueId value) {
      claimed_[value] = claimGeneration_;
      return false;
    });
  }

  /// Whether `chain` reads or produces a value a split taken in this step
  /// reads or produces (claim).
  bool claimed(const std::vector<OpId> &chain) {
    work_ += static_cast<int64_t>(chain.size());
    return anyValueOf(chain, [&](ValueId value) {
      return claimed_[value] == claimGeneration_;
    });
  }

  /// Drops re-evaluations (most expensive first) whose removal certainly
  /// keeps the peak within `level`: reads then resolve to the earlier
  /// evaluation, whose copy is held over the gap between its last read and
  /// the dropped one (the bound ignores the operands the dropped evaluation
  /// no longer holds, so it only errs towards keeping). One drop per
  /// round, the schedule analysed again after it; on large graphs
  /// (splitsPerStep_ > 1) every drop of the round's list that passes the
  /// check and is independent of those taken before it (independentDrop).
  /// `analysis` is `work`'s on entry; true when it still is on return
  /// (false: stale).
  bool prune(WorkSchedule &work, absl::int128 level, Analysis &analysis) {
    const std::vector<double> &time = context_.tables.replayTimeUs;
    std::vector<int32_t> removable;
    std::vector<uint8_t> seen(graph_.numOps(), 0);
    std::vector<std::pair<int32_t, absl::int128>> added;
    std::vector<int32_t> batch; // on large graphs: independent drops
    RangeMax maxLive;
    bool changed = true, current = true;
    while (changed && !exhausted()) {
      context_.progress.step();
      changed = false;
      if (current)
        reanalyzed(analysis);
      else
        analysis = analyze(work);
      current = true;
      if (!analysis.valid)
        return true;
      maxLive.build(analysis.live);
      removable.clear();
      batch.clear();
      ++dropStamp_;
      dropIntervals_.clear();
      std::fill(seen.begin(), seen.end(), 0);
      for (size_t i = 0; i < work.events.size(); ++i) {
        int32_t event = work.events[i];
        if (event < 0)
          continue;
        if (seen[event] && prunable_[event])
          removable.push_back(static_cast<int32_t>(i));
        seen[event] = 1;
      }
      std::stable_sort(removable.begin(), removable.end(),
                       [&](int32_t lhs, int32_t rhs) {
                         return time[work.events[lhs]] >
                                time[work.events[rhs]];
                       });
      for (int32_t index : removable) {
        // A round that takes several drops checks every candidate: the
        // work limit bounds it too.
        if (splitsPerStep_ > 1 && exhausted())
          break;
        // Where each result's earlier copy would now be held.
        added.clear();
        int32_t gapStart = index;
        bool possible = true;
        for (int32_t i = analysis.firstInstance[index];
             i < analysis.firstInstance[index + 1]; ++i) {
          const Instance &dropped = analysis.instances[i];
          if (dropped.lastRead == index)
            continue; // never read: nothing moves to the earlier copy
          if (dropped.previous < 0) {
            possible = false;
            break;
          }
          const Instance &earlier = analysis.instances[dropped.previous];
          gapStart = std::min(gapStart, earlier.lastRead + 1);
          added.push_back({earlier.lastRead + 1, bytes_[dropped.value]});
        }
        if (!possible)
          continue;
        // Counted as a scan of the gap; checked per stretch between the
        // events where another earlier copy starts being held.
        work_ += index - gapStart + 1;
        std::sort(added.begin(), added.end());
        absl::int128 held = 0;
        for (size_t k = 0; k < added.size() && possible; ++k) {
          held += added[k].second;
          const int32_t end = k + 1 < added.size() ? added[k + 1].first : index;
          possible = added[k].first >= end ||
                     maxLive.of(added[k].first, end) + held <= level;
        }
        if (!possible)
          continue;
        changed = true;
        current = false;
        if (splitsPerStep_ == 1) {
          dropEvent(work, index);
          break;
        }
        if (!independentDrop(work, index, gapStart))
          continue;
        batch.push_back(index);
      }
      // Last first, so that no erasure moves a later one's index.
      std::sort(batch.begin(), batch.end(), std::greater<int32_t>());
      for (int32_t index : batch)
        dropEvent(work, index);
    }
    return current;
  }

  static void dropEvent(WorkSchedule &work, int32_t index) {
    work.events.erase(work.events.begin() + index);
    if (static_cast<size_t>(index) < work.boundary)
      --work.boundary;
  }

  /// Whether the event at `index`, whose drop holds earlier copies from
  /// `gapStart`, can be dropped together with the drops prune already
  /// chose this round (then recorded among them): their events [gapStart,
  /// index] do not overlap (each drop adds bytes only there, so each check
  /// read the live bytes the other leaves), neither reads a result of the
  /// other's op (a drop removes its reads, which would move the last read
  /// of an earlier copy the other holds), and they drop different ops.
  bool independentDrop(const WorkSchedule &work, int32_t index,
                       int32_t gapStart) {
    const OpId op = work.events[index];
    if (droppedOp_[op] == dropStamp_ || readByDropped_[op] == dropStamp_)
      return false;
    absl::Span<const ValueId> operands = context_.flat.operands(op);
    for (ValueId operand : operands) {
      const OpId producer = context_.flat.producer[operand];
      if (producer != kNoId && droppedOp_[producer] == dropStamp_)
        return false;
    }
    // The taken intervals are disjoint, so of those starting at or before
    // `index` the last ends last: only it can reach back to `gapStart`.
    auto after = dropIntervals_.upper_bound(index);
    if (after != dropIntervals_.begin() && std::prev(after)->second >= gapStart)
      return false;
    work_ += 1 + static_cast<int64_t>(operands.size());
    dropIntervals_.emplace_hint(after, gapStart, index);
    droppedOp_[op] = dropStamp_;
    for (ValueId operand : operands) {
      const OpId producer = context_.flat.producer[operand];
      if (producer != kNoId)
        readByDropped_[producer] = dropStamp_;
    }
    return true;
  }

  const PlanContext &context_;
  const Graph &graph_;
  const Constraints &constraints_;
  const std::vector<DerivationStep> &derivations_;
  const int64_t workLimit_;
  const bool exactScoring_;
  const size_t splitsPerStep_;
  int64_t work_ = 0;
  int64_t reorderWork_ = 0;
  WorkSchedule lowest_; // the lowest-peak schedule a descent recorded
  std::vector<uint8_t> derived_;
  // Bytes per value as the search counts them: none for a view.
  std::vector<int64_t> bytes_;
  std::vector<uint8_t> splittable_, prunable_, replayOnly_;
  std::vector<ValueId> outputs_;
  std::vector<int32_t> readBegin_, produceBegin_;
  std::vector<ValueId> reads_, produces_;
  // Scratch of `evaluate`, reused across calls.
  uint32_t generation_ = 0;
  std::vector<uint32_t> stamp_;
  std::vector<int32_t> latest_;
  std::vector<Instance> instances_;
  std::vector<std::pair<int32_t, int32_t>> readPairs_;
  // Scratch of `evaluateOpen`: by value, where its open instance was
  // produced and last read; the values produced.
  std::vector<int32_t> openAt_, openLast_;
  std::vector<ValueId> touched_;
  std::vector<int64_t> delta64_;    // live-byte differences, 64-bit sums
  std::vector<absl::int128> delta_; // and 128-bit ones
  // Scratch of `splitChanges`: the values whose instances before the
  // split change, from which event, by how many bytes; an operand held
  // for the chain up to its last use in the chain (-1: a freed result).
  struct Change {
    int32_t from;
    int64_t bytes;
    int32_t lastUse;
  };
  std::vector<Change> changes_;
  struct ChainResult {
    ValueId value;
    int32_t producedAt, lastUse; // indices into the chain
    bool servesLater;            // read after the chain, in place of its
                                 // current instance
  };
  std::vector<ChainResult> chainResults_;
  std::vector<int32_t> aboveCount_; // events above the level before each
  uint32_t valueGeneration_ = 0;
  std::vector<uint32_t> seenValue_;
  // By value seen: its index in chainResults_, -1 (an operand whose
  // instance does not change) or -2 - its index in changes_.
  std::vector<int32_t> seenIndex_;
  // By inserted event (and one past the chain), live bytes (chainLive).
  std::vector<absl::int128> chainLive_;
  // Scratch of applyBestSplit's splits taken together: by value, the step
  // whose splits read or produce it.
  uint32_t claimGeneration_ = 0;
  std::vector<uint32_t> claimed_;
  // Scratch of prune's independent drops (independentDrop): by op, the
  // round that drops it or reads its results; the events each drop holds.
  uint32_t dropStamp_ = 0;
  std::vector<uint32_t> droppedOp_, readByDropped_;
  absl::btree_map<int32_t, int32_t> dropIntervals_; // first -> last event
  // Scratch of `collectChain`: the ops of the chain being collected.
  uint32_t chainGeneration_ = 0;
  std::vector<uint32_t> inChain_;
};

WorkSchedule toWorkSchedule(const Schedule &schedule) {
  WorkSchedule work;
  size_t nextDerivation = 0;
  const size_t boundaryStep =
      schedule.backwardStart.value_or(schedule.steps.size());
  for (size_t step = 0; step <= schedule.steps.size(); ++step) {
    if (step == boundaryStep)
      work.boundary = work.events.size();
    for (; nextDerivation < schedule.derivations.size() &&
           schedule.derivations[nextDerivation].beforeStep == step;
         ++nextDerivation)
      work.events.push_back(-1 - static_cast<int32_t>(nextDerivation));
    if (step < schedule.steps.size())
      work.events.push_back(schedule.steps[step]);
  }
  return work;
}

/// kBudgetGrid of the save-all peak, in bytes (at least 1): the step between
/// the levels a descent records and the least peak drop an order search
/// reports.
int64_t budgetGridStep(int64_t saveAllPeak) {
  return std::max<int64_t>(
      1, static_cast<int64_t>(
             std::floor(kBudgetGrid * static_cast<double>(saveAllPeak))));
}

/// Appends to `refined` the schedules refined from `candidates` (from the
/// save-all candidate and from the lowest-peak one) with every work limit
/// times `effort`; sets `limited` when a work limit stopped the search (or
/// the graph was too large to refine at this effort).
absl::Status refineWithEffort(const PlanContext &context,
                              const std::vector<Candidate> &candidates,
                              double effort, std::vector<Candidate> &refined,
                              bool &limited) {
  int64_t graphSize = static_cast<int64_t>(context.graph.numOps());
  for (const GraphOp &op : context.graph.ops())
    graphSize += static_cast<int64_t>(op.operands.size());
  // Exact scoring (every split tried is evaluated) on graphs small enough
  // for it; estimated scoring (splitGain) on every graph whose evaluations
  // fit the work limit. Both add candidates.
  const bool exact = graphSize <= kMaxExactRefinedGraphSize;
  auto scaled = [effort](int64_t work) { return scaledWork(work, effort); };
  const int64_t baseWork =
      kRefinementWork + kRefinementWorkPerElement * graphSize;
  const bool moreWork = !exact && graphSize <= kMaxMoreWorkGraphSize;
  const int64_t workLimit =
      scaled(moreWork ? std::min(kMaxLargeRefinementWork,
                                 kLargeRefinementWorkFactor * baseWork)
                      : std::min(kMaxRefinementWork, baseWork));
  const bool estimated = graphSize * kMinRefinementEvaluations <= workLimit;
  if (!exact && !estimated) {
    limited = true;
    return absl::OkStatus();
  }
  size_t lowest = 0;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (candidates[i].simulation.peakBytes <
        candidates[lowest].simulation.peakBytes)
      lowest = i;
  std::vector<size_t> starts = {0};
  if (lowest != 0)
    starts.push_back(lowest);
  const int64_t saveAllPeak = candidates.front().simulation.peakBytes;
  const int64_t window = std::max<int64_t>(
      1, static_cast<int64_t>(
             std::ceil(kScoreWindow * static_cast<double>(saveAllPeak))));
  const int64_t gridStep = budgetGridStep(saveAllPeak);
  const int64_t aimStep = gridStep * kAimEvery;
  auto addRefined = [&](size_t base, Schedule schedule) -> absl::Status {
    Candidate candidate;
    candidate.result = candidates[base].result;
    candidate.schedule = std::move(schedule);
    // On the context's flat graph: simulate() would rebuild it for each of
    // the hundreds of schedules a refinement records.
    absl::StatusOr<SimulationResult> simulation =
        simulateFlat(context.graph, context.flat, context.phases,
                     *candidate.schedule, context.tables);
    if (!simulation.ok())
      return absl::InternalError(
          absl::StrCat("budget: a refined schedule failed to simulate (a "
                       "planner bug): ",
                       simulation.status().message()));
    candidate.simulation = *simulation;
    context.progress.candidate(simulation->peakBytes,
                               simulation->recomputeTimeUs);
    refined.push_back(std::move(candidate));
    return absl::OkStatus();
  };
  // The schedules the descents start from, with the candidate each refines.
  std::vector<std::pair<size_t, Schedule>> descents;
  for (size_t start : starts) {
    absl::StatusOr<Plan> plan =
        materializePlan(context, candidates[start].result);
    if (!plan.ok())
      return plan.status();
    descents.emplace_back(start, std::move(plan->schedule));
  }
  // Orders of the save-all schedule with lower peaks, each a candidate with
  // nothing recomputed, and the lowest one, when at least 1% of the
  // save-all peak lower, a descent of its own (with half the work of a
  // descent from the input order) whose lowest-peak schedule is reordered
  // again, recomputations and all. That descent then replaces those from
  // the input order: on the random layered graphs of 100 to 1,000 nodes
  // they won no budget of the plan-quality and peers tables and took
  // 0.1-1.1 s of the 0.6-2.4 s a plan took.
  const int64_t descentWork = workLimit / static_cast<int64_t>(starts.size());
  const int64_t exactWork =
      scaled(kExactRefinementWork) / static_cast<int64_t>(starts.size());
  context.progress.setStage("searching evaluation orders");
  std::vector<OrderFound> orders =
      searchOrders(context, descents.front().second,
                   std::min(scaled(kOrderSearchWork), descentWork), gridStep);
  for (const OrderFound &order : orders) {
    if (absl::Status status = addRefined(0, order.schedule); !status.ok())
      return status;
    if (refined.back().simulation.peakBytes != order.peakBytes)
      return absl::InternalError(absl::StrCat(
          "budget: the order search counted a peak of ", order.peakBytes,
          " bytes where the simulator counts ",
          refined.back().simulation.peakBytes, " (a planner bug)"));
  }
  const size_t reorderedStart = descents.size();
  if (!orders.empty() && orders.back().peakBytes <= saveAllPeak - aimStep)
    descents.emplace_back(0, std::move(orders.back().schedule));
  const size_t firstDescent =
      descents.size() > reorderedStart ? reorderedStart : 0;
  context.progress.setStage("refining schedules");
  for (size_t d = firstDescent; d < descents.size(); ++d) {
    const auto &[base, schedule] = descents[d];
    for (bool exactScoring : {true, false}) {
      if (exactScoring ? !exact : !estimated)
        continue;
      // The descent from a searched order gets half the work of a descent
      // from the input order: on the random layered graphs of 100 to 1,000
      // nodes the other half changed no plan and cost up to 0.3 s.
      const int64_t share = d == reorderedStart ? 2 : 1;
      ScheduleSearch search(context, schedule.derivations,
                            (exactScoring ? exactWork : descentWork) / share,
                            exactScoring,
                            moreWork ? kLargeGraphSplitsPerStep : 1);
      if (d == reorderedStart)
        search.enableReordering(scaled(kReorderWork));
      absl::Status status = absl::OkStatus();
      search.descend(toWorkSchedule(schedule), window, gridStep, aimStep,
                     [&](const WorkSchedule &work) {
                       if (status.ok())
                         status = addRefined(base, search.toSchedule(work));
                     });
      if (!status.ok())
        return status;
      limited |= search.exhausted();
    }
  }
  return absl::OkStatus();
}

/// The efforts budget's searches run at: budget-search-effort and, when
/// that is above 1, first the default: a search with more work is not
/// always better (it takes other steps; random-n250 at 0.7 of its peak:
/// 6.55% at 1, 7.73% at 4), so keeping the default's candidates too means
/// a larger effort never gives a worse plan than the default. A smaller
/// effort searches at that effort alone (faster).
std::vector<double> searchEfforts(const PlanContext &context) {
  const double effort = context.options.budgetSearchEffort;
  if (effort > 1)
    return {1, effort};
  return {effort};
}

/// Adds refined schedules to `candidates`, at each of searchEfforts.
absl::Status refineCandidates(const PlanContext &context,
                              std::vector<Candidate> &candidates,
                              bool &limited) {
  std::vector<Candidate> refined;
  const std::vector<double> efforts = searchEfforts(context);
  for (size_t index = 0; index < efforts.size(); ++index) {
    const size_t before = refined.size();
    if (absl::Status status = refineWithEffort(
            context, candidates, efforts[index], refined, limited);
        !status.ok())
      return status;
    for (size_t c = before; c < refined.size(); ++c)
      refined[c].effortIndex = index;
  }
  for (Candidate &candidate : refined)
    candidates.push_back(std::move(candidate));
  return absl::OkStatus();
}

/// Adds the decision search's keep sets to `candidates`, at each of
/// searchEfforts (each from the enumerated candidates alone).
absl::Status searchDecisionsAtEfforts(const PlanContext &context,
                                      std::vector<Candidate> &candidates,
                                      bool &limited) {
  const std::vector<double> efforts = searchEfforts(context);
  const std::vector<Candidate> enumerated =
      efforts.size() > 1 ? candidates : std::vector<Candidate>();
  if (absl::Status status =
          searchDecisions(context, candidates, efforts.front(), limited);
      !status.ok())
    return status;
  for (size_t i = 1; i < efforts.size(); ++i) {
    std::vector<Candidate> searched = enumerated;
    if (absl::Status status =
            searchDecisions(context, searched, efforts[i], limited);
        !status.ok())
      return status;
    for (size_t c = enumerated.size(); c < searched.size(); ++c)
      candidates.push_back(std::move(searched[c]));
  }
  return absl::OkStatus();
}

/// Every candidate plan of `budget`; `searchLimited` (when given) is set
/// when a work limit of the schedule search stopped it, so that more
/// budget-search-effort could find more.
absl::StatusOr<std::vector<Candidate>>
allCandidates(const PlanContext &context, bool *searchLimited = nullptr) {
  absl::StatusOr<std::vector<Candidate>> candidates =
      enumerateCandidates(context);
  if (!candidates.ok())
    return candidates.status();
  // Refined schedules and searched orders are plans only a schedule
  // expresses; the keep sets are per-value decisions, and without
  // schedules the decisions are searched further.
  bool limited = false;
  if (context.options.schedulePlans)
    if (absl::Status status = refineCandidates(context, *candidates, limited);
        !status.ok())
      return status;
  // The decision search, also with schedules when the automatic bans are
  // lifted (recompute-banned=allow): the compute-intensive values become
  // decisions, and the two fixed conversion orders leave gaps there that
  // the refinement does not fill (a 4-layer Llama joint graph at 0.4 to
  // 0.64 of its save-all peak: docs/Planner.md).
  if (!context.options.schedulePlans || !context.constraints.banLifted.empty())
    if (absl::Status status =
            searchDecisionsAtEfforts(context, *candidates, limited);
        !status.ok())
      return status;
  if (searchLimited)
    *searchLimited = limited;
  return candidates;
}

/// A lower bound on the activation peak of every schedule that runs forward
/// before backward and honours the automatic bans (the schedules remat
/// plans), for the infeasible-budget error (issue #17 item 4): the largest
/// of what must be live at once
///  - while an op that some output needs runs: its operands, results and
///    workspace, and for a backward op also the function results forward
///    produced;
///  - when backward starts: every forward value backward reads that no
///    automatic plan may recompute (kept from its one evaluation to its
///    backward read) and every function result forward produced;
///  - at the end: every function result.
/// As in the simulator, graph inputs, parameters, tangents and RNG state are
/// outside the activation peak, and storage counts once (a view is its
/// base's storage).
int64_t peakLowerBound(const PlanContext &context) {
  const FlatGraph &flat = context.flat;
  const Constraints &constraints = context.constraints;
  const size_t numValues = flat.numValues();
  std::vector<uint32_t> counted(numValues, 0);
  uint32_t epoch = 0;
  int64_t sum = 0;
  auto begin = [&] {
    ++epoch;
    sum = 0;
  };
  auto add = [&](ValueId value) {
    ValueId storage = flat.storageOf(value);
    if (flat.isInput(storage) || counted[storage] == epoch)
      return;
    counted[storage] = epoch;
    int64_t bytes = context.tables.valueBytes[storage];
    sum = bytes > std::numeric_limits<int64_t>::max() - sum
              ? std::numeric_limits<int64_t>::max()
              : sum + bytes;
  };
  int64_t bound = 0;

  // The function results forward produced (their storage): live through
  // backward.
  begin();
  std::vector<uint8_t> forwardResult(numValues, 0);
  for (size_t id = 0; id < numValues; ++id)
    if (constraints.isOutput[id] && constraints.isForward[id]) {
      add(static_cast<ValueId>(id));
      forwardResult[flat.storageOf(static_cast<ValueId>(id))] = 1;
    }
  const int64_t forwardResultBytes = sum;

  // Ops some output needs, by a backward pass over the graph order.
  std::vector<uint8_t> required(numValues, 0);
  for (size_t id = 0; id < numValues; ++id)
    required[id] = constraints.isOutput[id];
  for (size_t op = flat.numOps(); op-- > 0;) {
    absl::Span<const ValueId> results = flat.results(static_cast<OpId>(op));
    if (std::none_of(results.begin(), results.end(),
                     [&](ValueId result) { return required[result]; }))
      continue;
    begin();
    const bool backward = context.phases.opPhase[op] == Phase::Backward;
    auto addOnce = [&](ValueId value) {
      if (!backward || !forwardResult[flat.storageOf(value)])
        add(value);
    };
    for (ValueId operand : flat.operands(static_cast<OpId>(op))) {
      required[operand] = 1;
      addOnce(operand);
    }
    for (ValueId result : results)
      addOnce(result);
    const int64_t workspace = flat.workspace(static_cast<OpId>(op));
    sum = std::min(sum, std::numeric_limits<int64_t>::max() - workspace) +
          workspace;
    if (backward)
      sum = std::min(sum, std::numeric_limits<int64_t>::max() -
                              forwardResultBytes) +
            forwardResultBytes;
    bound = std::max(bound, sum);
  }

  begin();
  for (ValueId value : context.phases.forwardValues)
    if (constraints.needed[value] &&
        !constraints.recomputable(value, /*automatic=*/true))
      add(value);
  for (size_t id = 0; id < numValues; ++id)
    if (constraints.isOutput[id] && constraints.isForward[id])
      add(static_cast<ValueId>(id));
  bound = std::max(bound, sum);

  begin();
  for (size_t id = 0; id < numValues; ++id)
    if (constraints.isOutput[id])
      add(static_cast<ValueId>(id));
  return std::max(bound, sum);
}

BudgetAnchors anchorsOf(const std::vector<Candidate> &candidates) {
  BudgetAnchors anchors;
  anchors.saveAllPeak = candidates.front().simulation.peakBytes;
  anchors.lowestPeak = std::numeric_limits<int64_t>::max();
  for (const Candidate &candidate : candidates)
    if (candidate.expressible)
      anchors.lowestPeak =
          std::min(anchors.lowestPeak, candidate.simulation.peakBytes);
  if (anchors.lowestPeak == std::numeric_limits<int64_t>::max())
    anchors.lowestPeak = anchors.saveAllPeak;
  return anchors;
}

} // namespace

std::vector<uint8_t> saveAllKeep(const PlanContext &context) {
  const Constraints &constraints = context.constraints;
  const FlatGraph &flat = context.flat;
  std::vector<uint8_t> keep(context.graph.numValues(), 0);
  // Values backward reads that a tag or policy forces to be recomputed:
  // their replays start from the nearest values that may be saved, which
  // save-all saves too (before 2026-12-07 it replayed them from further
  // back, so a forward value read only to replay a must_recompute one was
  // recomputed, and save-all could recompute more than min-cut).
  std::vector<ValueId> forced;
  std::vector<uint8_t> reached(context.graph.numValues(), 0);
  for (ValueId value : context.phases.forwardValues) {
    keep[value] = constraints.isOutput[value] ||
                  (!constraints.forcedRecompute(value) &&
                   (constraints.needed[value] ||
                    !constraints.recomputable(value, /*automatic=*/true)));
    if (constraints.needed[value] && !keep[value] &&
        constraints.forcedRecompute(value)) {
      reached[value] = 1;
      forced.push_back(value);
    }
  }
  while (!forced.empty()) {
    const ValueId value = forced.back();
    forced.pop_back();
    for (ValueId operand : flat.operands(flat.producer[value])) {
      if (!constraints.isForward[operand] || keep[operand] || reached[operand])
        continue;
      reached[operand] = 1;
      if (constraints.forcedRecompute(operand))
        forced.push_back(operand);
      else
        keep[operand] = 1;
    }
  }
  return keep;
}

std::vector<uint8_t> recomputeAllKeep(const PlanContext &context) {
  const Constraints &constraints = context.constraints;
  std::vector<uint8_t> keep(context.graph.numValues(), 0);
  for (ValueId value : context.phases.forwardValues)
    keep[value] = constraints.isOutput[value] ||
                  !constraints.recomputable(value, /*automatic=*/false);
  return keep;
}

absl::StatusOr<BudgetAnchors> computeBudgetAnchors(const PlanContext &context) {
  absl::StatusOr<std::vector<Candidate>> candidates = allCandidates(context);
  if (!candidates.ok())
    return candidates.status();
  return anchorsOf(*candidates);
}

int64_t resolveBudget(const MemoryBudget &budget,
                      const BudgetAnchors &anchors) {
  switch (budget.kind) {
  case MemoryBudget::Kind::Bytes:
    return budget.bytes;
  case MemoryBudget::Kind::Fraction: {
    double span = static_cast<double>(anchors.saveAllPeak - anchors.lowestPeak);
    return anchors.lowestPeak + static_cast<int64_t>(std::floor(
                                    budget.fraction * std::max(span, 0.0)));
  }
  case MemoryBudget::Kind::FractionOfPeak: {
    // Any positive finite fraction parses ("1e13peak"): a budget past
    // INT64_MAX is no bound at all, not an overflow into a negative one.
    const double bytes =
        std::floor(budget.fraction * static_cast<double>(anchors.saveAllPeak));
    return bytes >= 9.2e18 ? std::numeric_limits<int64_t>::max()
                           : static_cast<int64_t>(bytes);
  }
  }
  return budget.bytes;
}

/// The candidates polishForBudget starts from, at most.
constexpr size_t kPolishStarts = 8;
/// How far above the budget a candidate's peak may be for polishForBudget
/// to start from it (a fraction of the budget): reordering lowers peaks by
/// a few percent.
constexpr double kPolishSlack = 0.05;
/// Rounds of reordering, lowering and pruning per start.
constexpr int kPolishRounds = 4;
/// The work of each round's order search and of its lowering (each).
constexpr int64_t kPolishWork = 6000000;

/// The fastest expressible candidate of those made at searchEfforts index
/// `maxEffortIndex` or below whose peak is within `budget` (of two as fast,
/// the lower peak), or null.
const Candidate *fastestWithin(const std::vector<Candidate> &candidates,
                               int64_t budget, size_t maxEffortIndex) {
  const Candidate *best = nullptr;
  for (const Candidate &candidate : candidates) {
    const SimulationResult &sim = candidate.simulation;
    if (sim.peakBytes > budget || !candidate.expressible ||
        candidate.effortIndex > maxEffortIndex)
      continue;
    if (!best || sim.recomputeTimeUs < best->simulation.recomputeTimeUs ||
        (sim.recomputeTimeUs == best->simulation.recomputeTimeUs &&
         sim.peakBytes < best->simulation.peakBytes))
      best = &candidate;
  }
  return best;
}

/// A schedule within `budget` recomputing less than every candidate made at
/// searchEfforts index `effortIndex` or below, or nullopt. From each of the
/// fastest such schedule candidates whose peak is at most kPolishSlack
/// above the budget it alternately reorders the schedule to its lowest-peak
/// order (searchOrders: the same evaluations, a lower peak), lowers it to
/// the budget by splits scored against the budget, and drops the
/// re-evaluations the budget does not need (prune), while that makes it
/// faster; each step's work is kPolishWork times `effort`. The candidates
/// are made for every budget at once; this turns the lower peaks a
/// reordering reaches into less recomputation at this one budget.
absl::StatusOr<std::optional<Candidate>>
polishForBudget(const PlanContext &context,
                const std::vector<Candidate> &candidates, size_t effortIndex,
                double effort, int64_t budget, int64_t saveAllPeak) {
  const Candidate *best = fastestWithin(candidates, budget, effortIndex);
  const double bestTime = best ? best->simulation.recomputeTimeUs
                               : std::numeric_limits<double>::infinity();
  const double slack = static_cast<double>(budget) * (1 + kPolishSlack);
  std::vector<const Candidate *> starts;
  for (const Candidate &candidate : candidates)
    if (candidate.schedule && candidate.expressible &&
        candidate.effortIndex <= effortIndex &&
        candidate.schedule->derivations.empty() &&
        candidate.simulation.recomputeTimeUs < bestTime &&
        static_cast<double>(candidate.simulation.peakBytes) <= slack)
      starts.push_back(&candidate);
  std::stable_sort(starts.begin(), starts.end(),
                   [](const Candidate *lhs, const Candidate *rhs) {
                     return lhs->simulation.recomputeTimeUs <
                            rhs->simulation.recomputeTimeUs;
                   });
  if (starts.size() > kPolishStarts)
    starts.resize(kPolishStarts);
  const int64_t gridStep = budgetGridStep(saveAllPeak);
  const int64_t work = scaledWork(kPolishWork, effort);
  std::optional<Candidate> polished;
  double polishedTime = bestTime;
  // The schedules rounds started from, and the round. What a start does
  // from a round on is a function of the round's schedule, whether it is
  // the first round (the first is never compared with its start's time)
  // and the rounds left: a start that reaches a schedule an earlier start
  // began a round from, at as many rounds left or fewer and on the same
  // side of the first, would repeat what that one did, and stops. Starts
  // do meet (the same schedule from two enumerations; two lowerings that
  // end alike): on random-n250 at 0.7 three of the eight starts stop
  // early, a tenth of the plan's time.
  std::vector<std::pair<Schedule, int>> roundStarts;
  auto repeats = [&](const Schedule &schedule, int round) {
    for (const auto &[seen, seenRound] : roundStarts)
      if ((seenRound == 0) == (round == 0) && seenRound <= round &&
          seen.steps == schedule.steps &&
          seen.backwardStart == schedule.backwardStart)
        return true;
    roundStarts.emplace_back(schedule, round);
    return false;
  };
  for (const Candidate *start : starts) {
    Schedule schedule = *start->schedule;
    double time = std::numeric_limits<double>::infinity();
    for (int round = 0; round < kPolishRounds; ++round) {
      if (repeats(schedule, round))
        break;
      std::vector<OrderFound> orders =
          searchOrders(context, schedule, work, gridStep);
      if (orders.empty() && round > 0)
        break;
      ScheduleSearch search(context, {}, work, /*exactScoring=*/false);
      WorkSchedule lowered =
          toWorkSchedule(orders.empty() ? schedule : orders.back().schedule);
      if (!search.lowerTo(lowered, budget))
        break;
      Schedule pruned = search.toSchedule(lowered);
      absl::StatusOr<SimulationResult> simulation = simulateFlat(
          context.graph, context.flat, context.phases, pruned, context.tables);
      if (!simulation.ok())
        return absl::InternalError(absl::StrCat(
            "budget: a polished schedule failed to simulate (a planner "
            "bug): ",
            simulation.status().message()));
      context.progress.candidate(simulation->peakBytes,
                                 simulation->recomputeTimeUs);
      if (simulation->peakBytes > budget ||
          !(simulation->recomputeTimeUs < time))
        break;
      time = simulation->recomputeTimeUs;
      schedule = std::move(pruned);
      if (time < polishedTime) {
        polishedTime = time;
        polished = *start;
        polished->schedule = schedule;
        polished->simulation = *simulation;
      }
    }
  }
  return polished;
}

/// The work of the schedule annealing (annealForBudget; steps of its
/// evaluations), and the moves it tries per event of its start at most;
/// both are multiplied by the effort, so that a larger effort buys the
/// annealing more moves wherever the work allows them.
constexpr int64_t kAnnealWork = 300000000;
constexpr int64_t kAnnealMovesPerEvent = 4000;

/// `start` with its schedule annealed for `budget` (annealForBudget, with
/// kAnnealWork and kAnnealMovesPerEvent times `effort`) when that
/// recomputes less, or nullopt;
/// nullopt also for a start without a schedule, with derivations, with
/// nothing recomputed, or with a backward phase: on the joint graphs the
/// certified bound puts the plans within 0.06% of the optimum at 0.9-0.7 of
/// the peak, and the annealing found nothing on the Llama layers of the
/// speed benchmarks for 0.15-0.3 s per plan (a few hundredths of a percent
/// on MobileNet at 0.3-0.4).
absl::StatusOr<std::optional<Candidate>>
annealForBudget(const PlanContext &context, const Candidate *start,
                int64_t budget, double effort) {
  if (!start || !start->schedule || !start->schedule->derivations.empty() ||
      !(start->simulation.recomputeTimeUs > 0) ||
      backwardBoundary(*start->schedule, context.phases) <
          start->schedule->steps.size())
    return std::nullopt;
  std::optional<OrderFound> annealed = annealForBudget(
      context, *start->schedule, budget, scaledWork(kAnnealWork, effort),
      scaledWork(kAnnealMovesPerEvent, effort));
  if (!annealed)
    return std::nullopt;
  absl::StatusOr<SimulationResult> simulation =
      simulateFlat(context.graph, context.flat, context.phases,
                   annealed->schedule, context.tables);
  if (!simulation.ok())
    return absl::InternalError(absl::StrCat(
        "budget: an annealed schedule failed to simulate (a planner bug): ",
        simulation.status().message()));
  if (simulation->peakBytes != annealed->peakBytes ||
      simulation->peakBytes > budget)
    return absl::InternalError(absl::StrCat(
        "budget: the schedule annealing counted a peak of ",
        annealed->peakBytes, " bytes where the simulator counts ",
        simulation->peakBytes, " (budget ", budget, "; a planner bug)"));
  context.progress.candidate(simulation->peakBytes,
                             simulation->recomputeTimeUs);
  if (!(simulation->recomputeTimeUs < start->simulation.recomputeTimeUs))
    return std::nullopt;
  Candidate candidate = *start;
  candidate.schedule = std::move(annealed->schedule);
  candidate.simulation = *simulation;
  return candidate;
}

/// The keep sets polishDecisionsForBudget starts from at each of its two
/// ends (within the budget, above it), at most: with two, the default
/// missed a plan per-value planning found (a 4-layer Llama joint graph at
/// 0.7 of its peak: 2.04% against 1.50%); the work count caps the cost.
constexpr size_t kDecisionPolishStarts = 4;
/// How far above the budget a keep set's peak may be for
/// polishDecisionsForBudget to start from it (a fraction of the budget).
constexpr double kDecisionPolishSlack = 0.1;
/// The work of polishDecisionsForBudget: simulations times graph size.
constexpr int64_t kDecisionPolishWork = 10000000;

/// A keep set within `budget` recomputing less than every candidate made at
/// searchEfforts index `effortIndex` or below, or nullopt: a local search
/// over per-value decisions (the decision search's units, flipped one at a
/// time) that aims at this one budget, where the candidates are made for
/// every budget at once and can leave a gap: on a 4-layer Llama joint graph
/// with matmul recomputation allowed, nothing between a plan at 0.66 of the
/// save-all peak and one at 0.36, so every budget in between got the 0.36
/// one and its recomputation. From the fastest keep sets within the budget
/// each round simulates every single flip and applies those that save time
/// in turn, most time saved per byte of peak added first (as PyTorch's
/// greedy knapsack ranks), keeping each that still fits and is faster; when
/// none does, the flips that save the most time but leave the budget are
/// each paired with the flip that brings them back at least cost. From the
/// fastest keep sets up to kDecisionPolishSlack above the budget it first
/// applies, the same way, the flips that lower the peak at the least time
/// per byte of excess removed. Each kept flip lowers the time within the
/// budget (or the peak above it), so it ends; the work (simulations times
/// graph size) is kDecisionPolishWork times `effort`.
absl::StatusOr<std::optional<Candidate>>
polishDecisionsForBudget(const PlanContext &context,
                         const std::vector<Candidate> &candidates,
                         size_t effortIndex, double effort, int64_t budget) {
  absl::StatusOr<std::vector<int32_t>> groupOf = resolveDecisionGroups(context);
  if (!groupOf.ok())
    return groupOf.status();
  const DecisionUnits units = decisionUnits(context, *groupOf);
  // Without a value backward reads (the Checkmate random layered graphs)
  // every keep set is the same plan.
  if (units.units.empty() || context.phases.neededByBackward.empty())
    return std::nullopt;
  const Candidate *best = fastestWithin(candidates, budget, effortIndex);
  double bestTime = best ? best->simulation.recomputeTimeUs
                         : std::numeric_limits<double>::infinity();
  const double slack = static_cast<double>(budget) * (1 + kDecisionPolishSlack);
  std::vector<const Candidate *> within, above;
  for (const Candidate &candidate : candidates) {
    if (candidate.schedule || !candidate.expressible ||
        candidate.effortIndex > effortIndex ||
        !candidate.result.derivations.empty() ||
        !decidesUnitsWhole(units, candidate.result.keep))
      continue;
    const int64_t peak = candidate.simulation.peakBytes;
    if (peak <= budget)
      within.push_back(&candidate);
    else if (static_cast<double>(peak) <= slack)
      above.push_back(&candidate);
  }
  auto byTime = [](const Candidate *lhs, const Candidate *rhs) {
    return lhs->simulation.recomputeTimeUs < rhs->simulation.recomputeTimeUs;
  };
  for (std::vector<const Candidate *> *starts : {&within, &above}) {
    std::stable_sort(starts->begin(), starts->end(), byTime);
    if (starts->size() > kDecisionPolishStarts)
      starts->resize(kDecisionPolishStarts);
  }
  std::vector<const Candidate *> starts = within;
  starts.insert(starts.end(), above.begin(), above.end());
  if (starts.empty())
    return std::nullopt;

  const int64_t size =
      std::max<int64_t>(static_cast<int64_t>(simulationSize(context.graph)), 1);
  int64_t evaluations = scaledWork(kDecisionPolishWork, effort) / size;
  struct State {
    std::vector<uint8_t> keep;
    int64_t peak = 0;
    double time = 0;
  };
  auto simulateKeepSet =
      [&](std::vector<uint8_t> keep) -> absl::StatusOr<std::optional<State>> {
    if (evaluations <= 0)
      return std::nullopt;
    --evaluations;
    StrategyResult trial;
    trial.keep = keep;
    absl::StatusOr<SimulationResult> simulation =
        simulateCandidate(context, trial);
    if (!simulation.ok())
      return simulation.status();
    context.progress.step();
    return State{std::move(keep), simulation->peakBytes,
                 simulation->recomputeTimeUs};
  };
  auto flip = [&](std::vector<uint8_t> &keep, size_t unit) {
    for (ValueId value : units.units[unit])
      keep[value] ^= 1;
  };
  // One flip of each unit from `from`: those that `useful` accepts, with
  // their simulations.
  struct Flip {
    size_t unit;
    State state;
  };
  auto scanFlips = [&](const State &from,
                       auto &&useful) -> absl::StatusOr<std::vector<Flip>> {
    std::vector<Flip> flips;
    std::vector<uint8_t> keep = from.keep;
    for (size_t unit = 0; unit < units.units.size(); ++unit) {
      flip(keep, unit);
      absl::StatusOr<std::optional<State>> next = simulateKeepSet(keep);
      flip(keep, unit);
      if (!next.ok())
        return next.status();
      if (!*next)
        break;
      if (useful(**next))
        flips.push_back(Flip{unit, std::move(**next)});
    }
    return flips;
  };
  // Applies `flips` to `state` in turn (each simulated again on the state
  // so far), keeping those `accept` takes; true when one was kept.
  auto applyInTurn = [&](State &state, const std::vector<Flip> &flips,
                         auto &&accept, auto &&done) -> absl::StatusOr<bool> {
    bool changed = false;
    for (const Flip &candidate : flips) {
      if (done())
        break;
      std::vector<uint8_t> keep = state.keep;
      flip(keep, candidate.unit);
      absl::StatusOr<std::optional<State>> next = simulateKeepSet(keep);
      if (!next.ok())
        return next.status();
      if (!*next)
        break;
      if (accept(**next)) {
        state = std::move(**next);
        changed = true;
      }
    }
    return changed;
  };
  // Scans the flips of `state` that `useful` accepts, orders them by `rank`
  // (lowest first) and applies them in turn (applyInTurn).
  auto applyRanked = [&](State &state, auto &&useful, auto &&rank,
                         auto &&accept, auto &&done) -> absl::StatusOr<bool> {
    absl::StatusOr<std::vector<Flip>> flips = scanFlips(state, useful);
    if (!flips.ok())
      return flips.status();
    std::stable_sort(flips->begin(), flips->end(),
                     [&](const Flip &lhs, const Flip &rhs) {
                       return rank(lhs) < rank(rhs);
                     });
    return applyInTurn(state, *flips, accept, done);
  };
  // Within the budget: the flips that save time, most time per byte of peak
  // they add first (those that add none before all), each kept while the
  // plan still fits and is faster.
  auto climb = [&](State &state) -> absl::StatusOr<bool> {
    return applyRanked(
        state, [&](const State &next) { return next.time < state.time; },
        [&](const Flip &f) {
          const double saved = state.time - f.state.time;
          const int64_t added = f.state.peak - state.peak;
          return added <= 0 ? -std::numeric_limits<double>::infinity()
                            : -saved / static_cast<double>(added);
        },
        [&](const State &next) {
          return next.peak <= budget && next.time < state.time;
        },
        [] { return false; });
  };
  // Above the budget: the flips that lower the peak, least time per byte
  // of excess removed first, each kept while it lowers the peak.
  auto descend = [&](State &state) -> absl::StatusOr<bool> {
    return applyRanked(
        state, [&](const State &next) { return next.peak < state.peak; },
        [&](const Flip &f) {
          const int64_t removed =
              state.peak - std::max<int64_t>(f.state.peak, budget);
          return (f.state.time - state.time) / static_cast<double>(removed);
        },
        [&](const State &next) { return next.peak < state.peak; },
        [&] { return state.peak <= budget; });
  };
  // Within the budget, when no single flip helps: the flips that save the
  // most time but leave the budget, each with the flip that brings it back
  // at the least cost, if the pair is faster.
  constexpr size_t kRepairedFlips = 4;
  auto swap = [&](State &state) -> absl::StatusOr<bool> {
    absl::StatusOr<std::vector<Flip>> over =
        scanFlips(state, [&](const State &next) {
          return next.peak > budget && next.time < state.time;
        });
    if (!over.ok())
      return over.status();
    std::stable_sort(over->begin(), over->end(),
                     [](const Flip &lhs, const Flip &rhs) {
                       return lhs.state.time < rhs.state.time;
                     });
    if (over->size() > kRepairedFlips)
      over->resize(kRepairedFlips);
    std::optional<State> chosen;
    for (const Flip &first : *over) {
      absl::StatusOr<std::vector<Flip>> repairs =
          scanFlips(first.state, [&](const State &next) {
            return next.peak <= budget && next.time < state.time &&
                   (!chosen || next.time < chosen->time);
          });
      if (!repairs.ok())
        return repairs.status();
      for (Flip &repair : *repairs)
        if (!chosen || repair.state.time < chosen->time)
          chosen = std::move(repair.state);
    }
    if (!chosen)
      return false;
    state = std::move(*chosen);
    return true;
  };

  std::optional<std::vector<uint8_t>> polishedKeep;
  for (const Candidate *start : starts) {
    State state{start->result.keep, start->simulation.peakBytes,
                start->simulation.recomputeTimeUs};
    if (!keepWhatPlansMust(units, state.keep)) {
      absl::StatusOr<std::optional<State>> kept = simulateKeepSet(state.keep);
      if (!kept.ok())
        return kept.status();
      if (!*kept)
        break;
      state = std::move(**kept);
    }
    while (evaluations > 0) {
      absl::StatusOr<bool> moved =
          state.peak > budget ? descend(state) : climb(state);
      if (moved.ok() && !*moved && state.peak <= budget)
        moved = swap(state);
      if (!moved.ok())
        return moved.status();
      if (!*moved)
        break;
    }
    if (state.peak <= budget && state.time < bestTime) {
      bestTime = state.time;
      polishedKeep = state.keep;
    }
  }
  if (!polishedKeep)
    return std::nullopt;
  // With its derivation variant, as every keep set.
  std::vector<Candidate> polished;
  if (absl::Status status = addKeepCandidates(context, *polishedKeep, polished);
      !status.ok())
    return status;
  const Candidate *fastest = fastestWithin(polished, budget, 0);
  if (!fastest)
    return std::nullopt;
  Candidate result = *fastest;
  result.effortIndex = effortIndex;
  return result;
}

absl::StatusOr<StrategyResult> planBudget(const PlanContext &context) {
  if (!context.options.budget)
    return absl::InvalidArgumentError(
        "strategy budget needs a memory budget: give bytes (\"2GiB\"), a "
        "fraction between recompute-all and save-all (\"0.5\"), or a "
        "fraction of the save-all peak (\"0.8peak\")");
  bool searchLimited = false;
  absl::StatusOr<std::vector<Candidate>> candidates =
      allCandidates(context, &searchLimited);
  if (!candidates.ok())
    return candidates.status();
  BudgetAnchors anchors = anchorsOf(*candidates);
  int64_t budget = resolveBudget(*context.options.budget, anchors);
  context.progress.setBudget(budget);

  const std::vector<double> efforts = searchEfforts(context);
  const Candidate *best =
      fastestWithin(*candidates, budget, efforts.size() - 1);
  // Polished at each effort from what that effort's search made, so that
  // (as for the candidates) a larger effort never gives a slower plan than
  // the default.
  // `best` may point into `polished`: reserved so that it never moves.
  // `defaultBest`, the same for what the default effort made.
  const Candidate *defaultBest = fastestWithin(*candidates, budget, 0);
  std::vector<Candidate> polished;
  polished.reserve(2 * efforts.size() + 2);
  auto consider = [&](absl::StatusOr<std::optional<Candidate>> found,
                      size_t index) -> absl::Status {
    if (!found.ok())
      return found.status();
    if (!*found)
      return absl::OkStatus();
    const double time = (*found)->simulation.recomputeTimeUs;
    const bool faster = !best || time < best->simulation.recomputeTimeUs;
    const bool fasterDefault =
        index == 0 &&
        (!defaultBest || time < defaultBest->simulation.recomputeTimeUs);
    if (!faster && !fasterDefault)
      return absl::OkStatus();
    polished.push_back(std::move(**found));
    if (faster)
      best = &polished.back();
    if (fasterDefault)
      defaultBest = &polished.back();
    return absl::OkStatus();
  };
  context.progress.setStage("polishing for the budget");
  for (size_t index = 0;
       context.options.schedulePlans && index < efforts.size(); ++index)
    if (absl::Status status = consider(
            polishForBudget(context, *candidates, index, efforts[index], budget,
                            anchors.saveAllPeak),
            index);
        !status.ok())
      return status;
  for (size_t index = 0; index < efforts.size(); ++index)
    if (absl::Status status =
            consider(polishDecisionsForBudget(context, *candidates, index,
                                              efforts[index], budget),
                     index);
        !status.ok())
      return status;
  // Order and recomputation searched together, from the fastest schedule
  // within the budget: the default's with the default's work, and with a
  // larger effort also the fastest of all with that effort's work.
  if (context.options.schedulePlans) {
    context.progress.setStage("annealing the schedule for the budget");
    const Candidate *fastest = best, *defaultFastest = defaultBest;
    if (absl::Status status =
            consider(annealForBudget(context, defaultFastest, budget, 1.0), 0);
        !status.ok())
      return status;
    if (efforts.size() > 1 && fastest != defaultFastest)
      if (absl::Status status = consider(
              annealForBudget(context, fastest, budget, efforts.back()),
              efforts.size() - 1);
          !status.ok())
        return status;
  }
  const std::vector<AutoBan> &bans = context.constraints.autoBan;
  const bool computeBans = std::find(bans.begin(), bans.end(),
                                     AutoBan::ComputeIntensive) != bans.end();
  if (!best) {
    // Whether anything lower exists: proven not when the bound is reached.
    const int64_t bound = peakLowerBound(context);
    // More search could help when a work limit stopped it short of the
    // bound: suggest four times the effort, within the limit.
    const double effort = context.options.budgetSearchEffort;
    const double moreEffort = searchLimited && bound < anchors.lowestPeak
                                  ? std::min(4 * effort, kMaxBudgetSearchEffort)
                                  : effort;
    std::string minimality =
        bound >= anchors.lowestPeak
            ? std::string("proven minimal: an op or the values that must be "
                          "kept need that much at once")
            : absl::StrCat("found, not proven minimal: no schedule that "
                           "runs forward before backward peaks below ",
                           formatBytes(bound), " (", bound,
                           " bytes, a bound that may not be reachable)");
    return infeasibleBudgetError(
        absl::StrCat(
            "memory budget ", formatBytes(budget), " (", budget,
            " bytes) is infeasible: the smallest activation peak the budget "
            "strategy reaches is ",
            formatBytes(anchors.lowestPeak), " (", anchors.lowestPeak,
            " bytes, ", minimality, "; save-all needs ",
            formatBytes(anchors.saveAllPeak),
            "); raise the budget to at least ", anchors.lowestPeak,
            " bytes, or allow more recomputation (",
            !context.constraints.banLifted.empty()
                ? "compute-intensive values are already recomputable here "
                  "(recompute-banned=allow); never_recompute and "
                  "no_auto_recompute tags and checkpoint policies still hold"
            : computeBans
                ? "recompute-banned=allow lets budget recompute matmul, conv "
                  "and attention values; a checkpoint policy or must_recompute "
                  "tags lift the automatic bans"
                : "a checkpoint policy or must_recompute tags lift the "
                  "automatic bans",
            ")",
            moreEffort > effort
                ? absl::StrFormat(
                      ", or let the search run longer (it stopped "
                      "at its work limit: budget-search-effort=%g "
                      "gives it %.3gx the work; on large graphs more "
                      "work reaches lower peaks)",
                      moreEffort, moreEffort / effort)
                : std::string()),
        anchors.lowestPeak);
  }
  StrategyResult result = best->result;
  result.budgetBytes = budget;
  result.schedule = best->schedule;
  return result;
}

absl::StatusOr<Plan> planFromBudgetSchedule(const PlanContext &context,
                                            const StrategyResult &result) {
  const Schedule &schedule = *result.schedule;
  absl::StatusOr<SimulationResult> simulation =
      simulate(context.graph, context.phases, schedule, context.tables);
  if (!simulation.ok())
    return absl::InternalError(absl::StrCat(
        "the planner built a schedule the simulator rejects (a planner bug; "
        "please report it with the graph): ",
        simulation.status().message()));
  if (result.budgetBytes && simulation->peakBytes > *result.budgetBytes)
    return absl::InternalError(absl::StrCat(
        "budget: the refined schedule peaks at ", simulation->peakBytes,
        " bytes, over the budget of ", *result.budgetBytes,
        " bytes (a planner bug; please report it with the graph)"));
  return planFromSchedule(context, result, schedule, *simulation,
                          ChainAttribution::NextNeededValue);
}

} // namespace remat::detail
