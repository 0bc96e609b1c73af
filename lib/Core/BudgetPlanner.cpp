//===- BudgetPlanner.cpp - Least recompute time under a memory budget -----===//
//
// Part of remat. Starts from the automatic save-all plan and turns saved
// values into recomputations in a fixed order (most bytes freed per
// microsecond of replay first, and, as a second family, largest first),
// giving plans from "save all" to "recompute everything automatic planning
// may". Each candidate (prefixes of both orders, the min-cut plan, the
// recompute-all plan when it respects the bans, and their variants with
// derivations) is simulated once. For a budget B the plan is the one of least
// recompute time whose simulated peak is <= B (ties: lower peak, then earlier
// candidate).
//
// Because the candidate set does not depend on B, a larger budget can only
// add candidates: recompute time is non-increasing and the chosen peak
// non-decreasing in B (peak monotonicity, which PyTorch's knapsack lacks).
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"
#include "StringUtil.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cmath>

namespace remat::detail {

namespace {

struct Candidate {
  StrategyResult result;
  SimulationResult simulation;
};

absl::StatusOr<std::vector<Candidate>>
enumerateCandidates(const PlanContext &context) {
  const Graph &graph = context.graph;
  const Constraints &constraints = context.constraints;
  std::vector<uint8_t> base = saveAllKeep(context);

  std::vector<ValueId> convertible;
  std::vector<double> score(graph.numValues(), 0);
  for (ValueId value : context.phases.neededByBackward) {
    if (!constraints.isForward[value] || !base[value] ||
        constraints.isOutput[value] ||
        !constraints.recomputable(value, /*automatic=*/true))
      continue;
    double replayUs = context.tables.opTimeUs[graph.value(value).producer];
    score[value] = static_cast<double>(context.tables.valueBytes[value]) /
                   (replayUs + 1e-3);
    convertible.push_back(value);
  }
  std::stable_sort(
      convertible.begin(), convertible.end(),
      [&](ValueId lhs, ValueId rhs) { return score[lhs] > score[rhs]; });

  // All prefixes on small graphs; on large ones a fixed grid sized so that
  // all simulations together visit about 2e6 ops and edges (9 to 129 plans).
  const size_t total = convertible.size();
  size_t graphSize = graph.numValues() + graph.numOps();
  for (const GraphOp &op : graph.ops())
    graphSize += op.operands.size();
  size_t gridPoints =
      std::clamp<size_t>(2000000 / std::max<size_t>(graphSize, 1), 9, 129);
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
  absl::StatusOr<std::vector<uint8_t>> minCut = minCutKeep(context);
  if (!minCut.ok())
    return minCut.status();
  keeps.push_back(*minCut);
  // Full checkpointing is a candidate too when it happens to respect the
  // automatic bans, so that `budget` is never worse than `recompute-all`.
  std::vector<uint8_t> full = recomputeAllKeep(context);
  bool respectsBans = true;
  for (ValueId value : context.phases.forwardValues)
    respectsBans &= full[value] || constraints.recomputable(value, true);
  if (respectsBans)
    keeps.push_back(std::move(full));

  std::vector<Candidate> candidates;
  auto addCandidate = [&](StrategyResult result) -> absl::Status {
    absl::StatusOr<SimulationResult> simulation = simulateKeep(context, result);
    if (!simulation.ok())
      return absl::InternalError(absl::StrCat(
          "budget: a candidate plan failed to simulate (a planner bug): ",
          simulation.status().message()));
    candidates.push_back(Candidate{std::move(result), *simulation});
    return absl::OkStatus();
  };
  for (std::vector<uint8_t> &candidateKeep : keeps) {
    StrategyResult plain;
    plain.keep = candidateKeep;
    plain.derivations = chooseDerivations(context, plain.keep, false);
    StrategyResult derived;
    derived.keep = plain.keep;
    derived.derivations = chooseDerivations(context, derived.keep, true);
    bool distinct = derived.derivations.size() != plain.derivations.size();
    if (absl::Status status = addCandidate(std::move(plain)); !status.ok())
      return status;
    if (distinct)
      if (absl::Status status = addCandidate(std::move(derived)); !status.ok())
        return status;
  }
  return candidates;
}

} // namespace

std::vector<uint8_t> saveAllKeep(const PlanContext &context) {
  const Constraints &constraints = context.constraints;
  std::vector<uint8_t> keep(context.graph.numValues(), 0);
  for (ValueId value : context.phases.forwardValues)
    keep[value] = constraints.isOutput[value] ||
                  (!constraints.forcedRecompute(value) &&
                   (constraints.needed[value] ||
                    !constraints.recomputable(value, /*automatic=*/true)));
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
  absl::StatusOr<std::vector<Candidate>> candidates =
      enumerateCandidates(context);
  if (!candidates.ok())
    return candidates.status();
  BudgetAnchors anchors;
  anchors.saveAllPeak = candidates->front().simulation.peakBytes;
  anchors.lowestPeak = anchors.saveAllPeak;
  for (const Candidate &candidate : *candidates)
    anchors.lowestPeak =
        std::min(anchors.lowestPeak, candidate.simulation.peakBytes);
  return anchors;
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
  case MemoryBudget::Kind::FractionOfPeak:
    return static_cast<int64_t>(
        std::floor(budget.fraction * static_cast<double>(anchors.saveAllPeak)));
  }
  return budget.bytes;
}

absl::StatusOr<StrategyResult> planBudget(const PlanContext &context) {
  if (!context.options.budget)
    return absl::InvalidArgumentError(
        "strategy budget needs a memory budget: give bytes (\"2GiB\"), a "
        "fraction between recompute-all and save-all (\"0.5\"), or a "
        "fraction of the save-all peak (\"0.8peak\")");
  absl::StatusOr<std::vector<Candidate>> candidates =
      enumerateCandidates(context);
  if (!candidates.ok())
    return candidates.status();
  BudgetAnchors anchors;
  anchors.saveAllPeak = candidates->front().simulation.peakBytes;
  anchors.lowestPeak = anchors.saveAllPeak;
  for (const Candidate &candidate : *candidates)
    anchors.lowestPeak =
        std::min(anchors.lowestPeak, candidate.simulation.peakBytes);
  int64_t budget = resolveBudget(*context.options.budget, anchors);

  const Candidate *best = nullptr;
  for (const Candidate &candidate : *candidates) {
    const SimulationResult &sim = candidate.simulation;
    if (sim.peakBytes > budget)
      continue;
    if (!best || sim.recomputeTimeUs < best->simulation.recomputeTimeUs ||
        (sim.recomputeTimeUs == best->simulation.recomputeTimeUs &&
         sim.peakBytes < best->simulation.peakBytes))
      best = &candidate;
  }
  if (!best)
    return absl::ResourceExhaustedError(absl::StrCat(
        "memory budget ", formatBytes(budget), " (", budget,
        " bytes) is infeasible: the smallest activation peak the budget "
        "strategy reaches is ",
        formatBytes(anchors.lowestPeak), " (", anchors.lowestPeak,
        " bytes; save-all needs ", formatBytes(anchors.saveAllPeak),
        "); raise the budget to at least ", anchors.lowestPeak,
        " bytes, or allow more recomputation (a checkpoint policy or "
        "must_recompute tags lift the automatic bans)"));
  StrategyResult result = best->result;
  result.budgetBytes = budget;
  return result;
}

} // namespace remat::detail
