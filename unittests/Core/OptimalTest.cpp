//===- OptimalTest.cpp - The exact `optimal` strategy -----------*- C++ -*-===//
//
// Part of remat. Checkmate's published optima on its linear graph, exhaustive
// search on small random graphs, the Checkmate benchmark graphs, and the
// errors `optimal` gives when it cannot answer.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Optimal.h"

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <string>

namespace remat {
namespace {

CostModel unitCostModel() {
  // Every test graph carries fixedTimeUs, so the target does not matter.
  return CostModel(*getTargetPreset("cpu"));
}

/// Tests judge answers, not speed: a limit far above the solve times keeps
/// a loaded machine from turning a slow solve into a DeadlineExceeded.
OptimalOptions exactOptions() {
  OptimalOptions options;
  options.timeLimitSeconds = 600;
  return options;
}

Classification classifyOrDie(const Graph &graph) {
  absl::StatusOr<Classification> phases = classify(graph);
  EXPECT_TRUE(phases.ok()) << phases.status();
  return phases.ok() ? *phases : Classification{};
}

/// Checks a solution against the simulator, independently of the solver's
/// own self-check: the budget holds and the reported numbers are the
/// simulator's.
void expectConsistent(const Graph &graph, const Classification &phases,
                      const OptimalSolution &solution, int64_t budget) {
  CostModel costModel = unitCostModel();
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, phases, solution.schedule, costModel);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_LE(simulation->peakBytes, budget);
  EXPECT_EQ(simulation->peakBytes, solution.peakBytes);
  EXPECT_DOUBLE_EQ(simulation->totalTimeUs, solution.totalCostUs);
  EXPECT_DOUBLE_EQ(simulation->recomputeTimeUs, solution.recomputeCostUs);
}

/// The peak of every op evaluated once, in id order.
int64_t topologicalPeak(const Graph &graph, const Classification &phases) {
  Schedule schedule;
  for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op)
    schedule.steps.push_back(op);
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, phases, schedule, unitCostModel());
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  return simulation.ok() ? simulation->peakBytes : 0;
}

//===----------------------------------------------------------------------===//
// Checkmate's linear graph (REFERENCES.md, "Exact optima to reproduce")
//===----------------------------------------------------------------------===//

TEST(OptimalTest, CheckmateLinearGraphOptimaForEveryBudget) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  ASSERT_EQ(graph.numOps(), 17u);
  Classification phases = classifyOrDie(graph);
  CostModel costModel = unitCostModel();
  const std::map<int64_t, double> published = {
      {3, 45}, {4, 26}, {5, 22},  {6, 21},  {7, 20},
      {8, 19}, {9, 18}, {10, 17}, {11, 17}, {20, 17}};
  for (const auto &[budget, optimum] : published) {
    SCOPED_TRACE(testing::Message() << "budget " << budget);
    absl::StatusOr<OptimalSolution> solution =
        solveOptimal(graph, phases, budget, costModel, exactOptions());
    ASSERT_TRUE(solution.ok()) << solution.status();
    EXPECT_TRUE(solution->provenOptimal);
    EXPECT_DOUBLE_EQ(solution->totalCostUs, optimum);
    EXPECT_DOUBLE_EQ(solution->recomputeCostUs, optimum - 17);
    expectConsistent(graph, phases, *solution, budget);
  }
}

TEST(OptimalTest, AnIncumbentOnlyBoundsTheSearch) {
  // Whatever schedule is passed as the incumbent, the answer is the
  // published optimum: the optimum itself is returned as proven (CBC finds
  // nothing cheaper below its cutoff); a costlier one is beaten; one that
  // does not fit, or that the MILP cannot express, is ignored.
  Graph graph = test::buildCheckmateLinearGraph(8);
  Classification phases = classifyOrDie(graph);
  CostModel costModel = unitCostModel();
  // (B = 4 is left out: CBC needs seconds there even from the optimum.)
  const std::map<int64_t, double> published = {{3, 45}, {5, 22}, {6, 21},
                                               {7, 20}, {8, 19}, {9, 18}};
  std::map<int64_t, Schedule> optima;
  for (const auto &[budget, optimum] : published) {
    absl::StatusOr<OptimalSolution> solution =
        solveOptimal(graph, phases, budget, costModel, exactOptions());
    ASSERT_TRUE(solution.ok()) << solution.status();
    optima[budget] = solution->schedule;
  }
  Schedule outOfClass = optima[5];
  std::reverse(outOfClass.steps.begin(), outOfClass.steps.end());
  for (const auto &[budget, optimum] : published) {
    std::vector<std::pair<std::string, Schedule>> incumbents = {
        {"the optimum", optima[budget]}};
    if (auto tighter = optima.find(budget); tighter != optima.begin())
      incumbents.push_back({"a costlier one", std::prev(tighter)->second});
    // Ignored incumbents leave CBC's whole search: one budget suffices.
    if (budget == 6) {
      incumbents.push_back({"out of class", outOfClass});
      incumbents.push_back({"one that does not fit", optima[budget + 1]});
    }
    for (const auto &[what, incumbent] : incumbents) {
      SCOPED_TRACE(testing::Message()
                   << "budget " << budget << ", incumbent " << what);
      OptimalOptions options = exactOptions();
      const Schedule &schedule = incumbent; // (C++17 lambdas capture no
                                            // structured binding)
      options.incumbent = [&] { return std::optional<Schedule>(schedule); };
      absl::StatusOr<OptimalSolution> solution =
          solveOptimal(graph, phases, budget, costModel, options);
      ASSERT_TRUE(solution.ok()) << solution.status();
      EXPECT_TRUE(solution->provenOptimal);
      EXPECT_DOUBLE_EQ(solution->totalCostUs, optimum);
      expectConsistent(graph, phases, *solution, budget);
    }
  }
}

TEST(OptimalTest, CheckmateLinearGraphBudgetTwoIsInfeasible) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  Classification phases = classifyOrDie(graph);
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(graph, phases, 2, unitCostModel(), exactOptions());
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kResourceExhausted);
  // The first backward op reads the loss and the last forward value while
  // producing its own result: 3 units live at once, and 3 suffice.
  EXPECT_NE(solution.status().message().find("smallest activation peak any "
                                             "schedule reaches is 3 B (3 "
                                             "bytes)"),
            std::string::npos)
      << solution.status();
}

TEST(OptimalTest, ForbiddenRecomputationRaisesTheSmallestBudget) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  Classification phases = classifyOrDie(graph);
  OptimalOptions options = exactOptions();
  options.recomputable.assign(graph.numOps(), false);
  // Without recomputation the only schedule is the topological one, whose
  // peak is 10 (the published no-recompute threshold).
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(graph, phases, 9, unitCostModel(), options);
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(solution.status().message().find("is 10 B (10 bytes)"),
            std::string::npos)
      << solution.status();
}

TEST(OptimalTest, PerOpAndPerValueOptionsMustCoverTheGraph) {
  Graph graph = test::buildCheckmateLinearGraph(4);
  Classification phases = classifyOrDie(graph);
  OptimalOptions options = exactOptions();
  options.recomputable.assign(graph.numOps() + 1, true);
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(graph, phases, 100, unitCostModel(), options);
  ASSERT_FALSE(solution.ok());
  EXPECT_NE(solution.status().message().find("recomputable has"),
            std::string::npos)
      << solution.status();
  options = exactOptions();
  options.notSaved.assign(1, true); // one entry for a graph of many values
  solution = solveOptimal(graph, phases, 100, unitCostModel(), options);
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().message(),
            absl::StrFormat("solveOptimal: OptimalOptions::notSaved has 1 "
                            "entries but the graph has %d values; give one "
                            "per value or leave it empty",
                            graph.numValues()));
}

TEST(OptimalTest, NeverRecomputeTagIsHonoured) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  graph.mutableOp(0).tags.neverRecompute = true;
  Classification phases = classifyOrDie(graph);
  CostModel costModel = unitCostModel();
  for (int64_t budget : {4, 5, 6}) {
    absl::StatusOr<OptimalSolution> tagged =
        solveOptimal(graph, phases, budget, costModel, exactOptions());
    ASSERT_TRUE(tagged.ok()) << tagged.status();
    EXPECT_EQ(std::count(tagged->schedule.steps.begin(),
                         tagged->schedule.steps.end(), OpId(0)),
              1);
    expectConsistent(graph, phases, *tagged, budget);
  }
}

// must_recompute and a policy's "recompute" hold under `optimal` as under
// every strategy, also at budgets every op once would meet: the shortcut
// that answers those without the MILP used to return a schedule that kept
// the tagged value from forward (found by the planner fuzzer).
TEST(OptimalTest, MustRecomputeAndPolicyRecomputeAreHonoured) {
  Graph tagged = test::buildCheckmateLinearGraph(6);
  tagged.mutableOp(2).tags.mustRecompute = true;
  const ValueId value = tagged.op(2).results.front();
  Graph named = test::buildCheckmateLinearGraph(6); // values v0, v1, ...
  for (int64_t budget : {int64_t{8}, std::numeric_limits<int64_t>::max()}) {
    PlanOptions options = test::optionsFor(Strategy::Optimal);
    options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, budget, 0};
    PlanOptions policy = options;
    policy.policy.kind = NamePolicy::Kind::SaveAnyNamesButThese;
    policy.policy.names = {"v2"};
    for (const auto &[graph, planOptions] :
         {std::make_pair(&tagged, options), std::make_pair(&named, policy)}) {
      Plan plan = test::planOrDie(*graph, planOptions);
      const ValueDecision *decision = plan.find(value);
      ASSERT_NE(decision, nullptr) << budget;
      EXPECT_EQ(decision->decision, Decision::Recompute)
          << budget << ": " << plan.reason(*decision);
      // Op 2 runs in the backward section (which may start at step 0:
      // nothing forward is a function result, so all of it can wait).
      const size_t boundary =
          backwardBoundary(plan.schedule, plan.classification);
      EXPECT_NE(std::find(plan.schedule.steps.begin() + boundary,
                          plan.schedule.steps.end(), OpId(2)),
                plan.schedule.steps.end())
          << budget << "\n"
          << toText(plan, *graph);
      EXPECT_LE(plan.simulation.peakBytes, budget);
    }
  }
}

TEST(OptimalTest, TooLargeGraphIsRefusedWithAdvice) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  Classification phases = classifyOrDie(graph);
  OptimalOptions options = exactOptions();
  options.maxOps = 10;
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(graph, phases, 4, unitCostModel(), options);
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(solution.status().message().find("use the `budget` strategy"),
            std::string::npos)
      << solution.status();
  // A budget that needs no recomputation is answered at any size.
  EXPECT_TRUE(solveOptimal(graph, phases, 10, unitCostModel(), options).ok());
}

//===----------------------------------------------------------------------===//
// Exhaustive search on small random graphs
//===----------------------------------------------------------------------===//

/// A small graph with explicit phases (the Checkmate form): `numForward`
/// forward ops then `numBackward` backward ops, random reads of earlier ops
/// and of graph inputs (which never count), random sizes and costs, and
/// sometimes two results per op. Results nobody reads are outputs.
Graph buildSmallRandomGraph(uint64_t seed, int numForward, int numBackward) {
  std::mt19937_64 random(seed);
  auto uniform = [&](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  Graph graph;
  ValueId parameter =
      graph.addInput("w", TensorType{{7}, DType::I8}, InputRole::Parameter);
  ValueId tangent =
      graph.addInput("dy", TensorType{{5}, DType::I8}, InputRole::Tangent);
  std::vector<ValueId> available;
  const int numOps = numForward + numBackward;
  for (int i = 0; i < numOps; ++i) {
    bool backward = i >= numForward;
    GraphOp op;
    op.name = "op" + std::to_string(i);
    op.kind = "test.op";
    op.fixedTimeUs = uniform(1, 4);
    op.phase = backward ? Phase::Backward : Phase::Forward;
    // Always read the latest value so the graph is connected, plus a few
    // random earlier ones.
    if (!available.empty())
      op.operands.push_back(available.back());
    for (int extra = uniform(0, 2); extra > 0 && !available.empty(); --extra) {
      ValueId candidate = available[uniform(0, available.size() - 1)];
      if (std::find(op.operands.begin(), op.operands.end(), candidate) ==
          op.operands.end())
        op.operands.push_back(candidate);
    }
    if (uniform(0, 3) == 0)
      op.operands.push_back(backward ? tangent : parameter);
    std::vector<TensorType> results = {TensorType{{uniform(1, 3)}, DType::I8}};
    if (uniform(0, 4) == 0)
      results.push_back(TensorType{{uniform(1, 2)}, DType::I8});
    absl::StatusOr<OpId> id = graph.addOp(std::move(op), results);
    EXPECT_TRUE(id.ok()) << id.status();
    for (ValueId result : graph.op(*id).results)
      available.push_back(result);
  }
  for (ValueId value : available)
    if (graph.users(value).empty())
      graph.markOutput(value, graph.op(graph.value(value).producer).phase ==
                                      Phase::Backward
                                  ? OutputRole::Gradient
                                  : OutputRole::Output);
  return graph;
}

/// Every schedule of the form `optimal` searches: stage t runs op t for the
/// first time, preceded by any subset of the earlier forward ops that may
/// repeat, in order. Backward ops run once, at their stage, as in the
/// partitioned program. Returns (peak, cost) of each schedule the simulator
/// accepts.
std::vector<std::pair<int64_t, double>>
enumerateStagedSchedules(const Graph &graph, const Classification &phases) {
  std::vector<OpId> order;
  for (Phase phase : {Phase::Forward, Phase::Backward})
    for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op)
      if (phases.opPhase[op] == phase)
        order.push_back(op);
  auto mayRepeat = [&](OpId op) {
    if (phases.opPhase[op] != Phase::Forward)
      return false;
    for (ValueId result : graph.op(op).results)
      if (graph.value(result).outputRole != OutputRole::None)
        return false;
    return !graph.op(op).tags.neverRecompute;
  };
  std::vector<std::pair<int, int>> choices; // (stage, position)
  for (int t = 0; t < static_cast<int>(order.size()); ++t)
    for (int i = 0; i < t; ++i)
      if (mayRepeat(order[i]))
        choices.push_back({t, i});
  EXPECT_LE(choices.size(), 20u) << "graph too large to enumerate";
  CostModel costModel = unitCostModel();
  std::vector<std::pair<int64_t, double>> outcomes;
  for (uint64_t mask = 0; mask < (uint64_t(1) << choices.size()); ++mask) {
    Schedule schedule;
    size_t next = 0;
    for (int t = 0; t < static_cast<int>(order.size()); ++t) {
      for (; next < choices.size() && choices[next].first == t; ++next)
        if (mask & (uint64_t(1) << next))
          schedule.steps.push_back(order[choices[next].second]);
      schedule.steps.push_back(order[t]);
    }
    absl::StatusOr<SimulationResult> simulation =
        simulate(graph, phases, schedule, costModel);
    if (simulation.ok())
      outcomes.push_back({simulation->peakBytes, simulation->totalTimeUs});
  }
  return outcomes;
}

/// Solves every budget from just below the smallest peak any staged
/// schedule reaches to the largest on the 24 small random graphs, and
/// checks each answer against exhaustive search (judged by the simulator).
/// With `workspaces`, every op also gets a workspace of 0 to 3 bytes.
void expectMatchesExhaustiveSearch(bool workspaces) {
  CostModel costModel = unitCostModel();
  int solvedBudgets = 0, infeasibleBudgets = 0;
  for (uint64_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    int numForward = 2 + seed % 3;
    Graph graph = buildSmallRandomGraph(seed, numForward, 6 - numForward);
    if (workspaces)
      for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op)
        graph.mutableOp(op).workspaceBytes = (seed * 7 + op * 3) % 4;
    ASSERT_TRUE(graph.validate().ok()) << graph.validate();
    Classification phases = classifyOrDie(graph);
    std::vector<std::pair<int64_t, double>> outcomes =
        enumerateStagedSchedules(graph, phases);
    ASSERT_FALSE(outcomes.empty());
    int64_t minPeak = std::numeric_limits<int64_t>::max(), maxPeak = 0;
    for (const auto &[peak, cost] : outcomes) {
      minPeak = std::min(minPeak, peak);
      maxPeak = std::max(maxPeak, peak);
    }
    for (int64_t budget = minPeak - 1; budget <= maxPeak; ++budget) {
      SCOPED_TRACE(testing::Message() << "budget " << budget);
      double best = std::numeric_limits<double>::infinity();
      for (const auto &[peak, cost] : outcomes)
        if (peak <= budget)
          best = std::min(best, cost);
      absl::StatusOr<OptimalSolution> solution =
          solveOptimal(graph, phases, budget, costModel, exactOptions());
      if (std::isinf(best)) {
        ASSERT_FALSE(solution.ok());
        EXPECT_EQ(solution.status().code(),
                  absl::StatusCode::kResourceExhausted);
        EXPECT_NE(solution.status().message().find(absl::StrCat(
                      "smallest activation peak any schedule reaches is ")),
                  std::string::npos)
            << solution.status();
        EXPECT_NE(solution.status().message().find(
                      absl::StrCat(" (", minPeak, " bytes)")),
                  std::string::npos)
            << solution.status();
        ++infeasibleBudgets;
        continue;
      }
      ASSERT_TRUE(solution.ok()) << solution.status();
      EXPECT_TRUE(solution->provenOptimal);
      EXPECT_NEAR(solution->totalCostUs, best, 1e-9);
      expectConsistent(graph, phases, *solution, budget);
      ++solvedBudgets;
    }
  }
  // The sweep must have exercised both outcomes.
  EXPECT_GT(solvedBudgets, 24);
  EXPECT_GE(infeasibleBudgets, 24);
}

TEST(OptimalTest, MatchesExhaustiveSearchOnSmallRandomGraphs) {
  expectMatchesExhaustiveSearch(/*workspaces=*/false);
}

// A workspace counts while its op runs only (Simulator.h): the MILP adds it
// to the live bytes of the op's own step, in every stage that runs the op.
TEST(OptimalTest, MatchesExhaustiveSearchWithWorkspaces) {
  expectMatchesExhaustiveSearch(/*workspaces=*/true);
}

//===----------------------------------------------------------------------===//
// The heuristics never beat the optimum
//===----------------------------------------------------------------------===//

/// Whether `schedule` evaluates more than once an op with a result that is
/// a function result: outside `optimal`'s class, which evaluates such an op
/// exactly once.
bool reevaluatesAnOutputProducer(const Graph &graph, const Schedule &schedule) {
  std::vector<int> runs(graph.numOps(), 0);
  for (OpId op : schedule.steps)
    ++runs[op];
  for (size_t op = 0; op < graph.numOps(); ++op) {
    if (runs[op] < 2)
      continue;
    for (ValueId result : graph.op(static_cast<OpId>(op)).results)
      if (graph.value(result).outputRole != OutputRole::None)
        return true;
  }
  return false;
}

/// Whether a derivation of `schedule` reads a value the schedule derived
/// before (a chain): the MILP only places a derivation whose copy an op
/// reads, so a copy made only to feed another derivation is outside it.
bool chainsDerivations(const Schedule &schedule) {
  std::vector<ValueId> derived;
  for (const DerivationStep &step : schedule.derivations) {
    for (ValueId read : step.reads)
      if (std::find(derived.begin(), derived.end(), read) != derived.end())
        return true;
    derived.push_back(step.value);
  }
  return false;
}

struct HeuristicPoint {
  std::string strategy;
  int64_t peak;
  double timeUs;
};

/// The plans of every heuristic (budget at several points of its range)
/// that the MILP's class contains, and (in `budgets`) their distinct peaks.
/// Without derivations: no plan that derives. With them (inexact ones
/// allowed): no derivation chain, and no recompute-all (a baseline that
/// ignores the automatic bans the other strategies and `optimal` honour).
/// Re-evaluating an op that produces a function result is outside the class
/// either way (a keep set may replay such an op for its other results;
/// docs/Optimal.md).
std::vector<HeuristicPoint> heuristicPoints(const Graph &graph,
                                            bool derivations,
                                            std::vector<int64_t> &budgets) {
  std::vector<HeuristicPoint> points;
  auto addPlan = [&](PlanOptions options, const std::string &label) {
    options.allowInexactDerivation = derivations;
    absl::StatusOr<Plan> plan = planRematerialization(graph, options);
    // A budget a heuristic cannot meet is not a comparison point.
    if (!plan.ok() || reevaluatesAnOutputProducer(graph, plan->schedule) ||
        (derivations ? chainsDerivations(plan->schedule)
                     : plan->simulation.numDerivations > 0))
      return;
    points.push_back(
        {label, plan->simulation.peakBytes, plan->simulation.totalTimeUs});
  };
  std::vector<Strategy> strategies = {Strategy::SaveAll, Strategy::MinCut};
  if (!derivations)
    strategies.push_back(Strategy::RecomputeAll);
  for (Strategy strategy : strategies)
    addPlan(test::optionsFor(strategy), std::string(toString(strategy)));
  for (double fraction : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    PlanOptions options = test::optionsFor(Strategy::Budget);
    options.budget = MemoryBudget{MemoryBudget::Kind::Fraction, 0, fraction};
    addPlan(options, absl::StrCat("budget ", fraction));
  }
  budgets.clear();
  for (const HeuristicPoint &point : points)
    budgets.push_back(point.peak);
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  return points;
}

/// Checks, at each budget a heuristic without derivations meets, that
/// `optimal` (the MILP alone) is feasible and no slower than any such
/// heuristic plan within that budget. Returns how many (budget, heuristic)
/// pairs were compared.
int compareHeuristicsWithOptimal(const Graph &graph) {
  PlanOptions base;
  CostModel costModel(base.target);
  std::vector<int64_t> budgets;
  std::vector<HeuristicPoint> points =
      heuristicPoints(graph, /*derivations=*/false, budgets);
  absl::StatusOr<Classification> phases = classify(graph);
  EXPECT_TRUE(phases.ok()) << phases.status();
  if (!phases.ok())
    return 0;
  int compared = 0;
  for (int64_t budget : budgets) {
    OptimalOptions options = exactOptions();
    absl::StatusOr<OptimalSolution> optimal =
        solveOptimal(graph, *phases, budget, costModel, options);
    if (!optimal.ok() &&
        optimal.status().code() == absl::StatusCode::kDeadlineExceeded)
      continue;
    // Some heuristic meets this budget, so `optimal` must too.
    EXPECT_TRUE(optimal.ok())
        << "budget " << budget << ": " << optimal.status();
    if (!optimal.ok())
      continue;
    EXPECT_LE(optimal->peakBytes, budget);
    // Unproven (a view with operands besides its storage is charged
    // conservatively, docs/Optimal.md): a heuristic may beat it.
    if (!optimal->provenOptimal)
      continue;
    for (const HeuristicPoint &point : points) {
      if (point.peak > budget)
        continue;
      // CBC compares objectives within its LP tolerances (~1e-7 of the
      // largest op time per unit): schedules whose times differ by less
      // than that are ties to it (seed 108: 120.0082866 vs 120.0082818).
      EXPECT_LE(optimal->totalCostUs, point.timeUs * (1 + 1e-7) + 1e-9)
          << point.strategy << " beats `optimal` at budget " << budget
          << " (its peak " << point.peak << "): " << std::setprecision(17)
          << optimal->totalCostUs << " vs " << point.timeUs << " us";
      ++compared;
    }
  }
  return compared;
}

/// The partitioned program runs every backward op once, in graph order,
/// even one whose results nobody reads, and `optimal` schedules that same
/// program: it may neither skip such an op (a negative recompute overhead
/// before) nor move or repeat a backward op. The graph is the quality
/// benchmark's random-joint-2, which has dead backward ops.
TEST(OptimalTest, RunsEveryBackwardOpOnceInGraphOrder) {
  test::RandomGraphOptions options;
  options.numForwardOps = 24;
  Graph graph = test::buildRandomJointGraph(2, options);
  Classification phases = classifyOrDie(graph);
  std::vector<OpId> backwardOps;
  bool anyDead = false;
  for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op) {
    if (phases.opPhase[op] != Phase::Backward)
      continue;
    backwardOps.push_back(op);
    bool read = false;
    for (ValueId result : graph.op(op).results)
      read |= !graph.users(result).empty() ||
              graph.value(result).outputRole != OutputRole::None;
    anyDead |= !read;
  }
  ASSERT_TRUE(anyDead) << "the graph no longer has a dead backward op";
  PlanOptions defaults;
  CostModel costModel(defaults.target);
  Schedule topological;
  for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op)
    topological.steps.push_back(op);
  absl::StatusOr<SimulationResult> all =
      simulate(graph, phases, topological, costModel);
  ASSERT_TRUE(all.ok()) << all.status();
  int64_t budget = static_cast<int64_t>(0.9 * all->peakBytes);
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(graph, phases, budget, costModel, exactOptions());
  ASSERT_TRUE(solution.ok()) << solution.status();
  ASSERT_LT(solution->peakBytes, all->peakBytes);
  std::vector<OpId> scheduledBackward;
  for (OpId op : solution->schedule.steps)
    if (phases.opPhase[op] == Phase::Backward)
      scheduledBackward.push_back(op);
  EXPECT_EQ(scheduledBackward, backwardOps);
  // Each op runs at least once, so nothing is cheaper than running every
  // op once (the graph has no dead forward op).
  EXPECT_GE(solution->totalCostUs, all->totalTimeUs - 1e-9);
}

TEST(OptimalTest, HeuristicsNeverBeatOptimalOnRandomJointGraphs) {
  int compared = 0;
  for (uint64_t seed = 101; seed <= 120; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    test::RandomGraphOptions options;
    options.numForwardOps = 8 + static_cast<int>(seed % 5);
    compared += compareHeuristicsWithOptimal(
        test::buildRandomJointGraph(seed, options));
  }
  EXPECT_GT(compared, 100);
}

// Seed 206 of the explicit-phase graphs: op 4 produces a function result
// and a value backward reads. `budget`'s keep set at 14 bytes replays op 4
// for the latter (32 us); the MILP evaluates an op with a function result
// once, and its proven optimum at 14 bytes costs 35 us. `optimal` then
// returns the budget plan it was seeded with, not proven optimal, with the
// every-op-once bound: the MILP's proof says nothing outside its class.
TEST(OptimalTest, AnIncumbentOutsideTheClassThatIsCheaperIsThePlan) {
  Graph graph = buildSmallRandomGraph(206, 4 + 206 % 3, 5);
  PlanOptions budgetOptions = test::optionsFor(Strategy::Budget);
  budgetOptions.budget = MemoryBudget{MemoryBudget::Kind::Bytes, 14, 0};
  Plan budgetPlan = test::planOrDie(graph, budgetOptions);
  ASSERT_TRUE(reevaluatesAnOutputProducer(graph, budgetPlan.schedule))
      << "the budget plan no longer replays the op with a function result";
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok()) << phases.status();
  CostModel costModel(budgetOptions.target);
  absl::StatusOr<OptimalSolution> milp =
      solveOptimal(graph, *phases, 14, costModel, exactOptions());
  ASSERT_TRUE(milp.ok()) << milp.status();
  ASSERT_TRUE(milp->provenOptimal);
  ASSERT_LT(budgetPlan.simulation.totalTimeUs, milp->totalCostUs);

  PlanOptions optimalOptions = test::optionsFor(Strategy::Optimal);
  optimalOptions.budget = budgetOptions.budget;
  Plan plan = test::planOrDie(graph, optimalOptions);
  EXPECT_DOUBLE_EQ(plan.simulation.totalTimeUs,
                   budgetPlan.simulation.totalTimeUs);
  EXPECT_LE(plan.simulation.peakBytes, 14);
  ASSERT_TRUE(plan.lowerBound.has_value());
  // Labelled as what it is: the MILP bounds its class only.
  EXPECT_EQ(plan.lowerBound->kind, TimeLowerBound::Kind::EvaluateOnce);
  EXPECT_LT(plan.lowerBound->timeUs, plan.simulation.totalTimeUs);
  EXPECT_FALSE(plan.lowerBound->lpStopped);
}

//===----------------------------------------------------------------------===//
// Derivations in the MILP
//===----------------------------------------------------------------------===//

/// a = f(x) may not be replayed (a matmul, say) and backward reads it;
/// y = a + b is a function result, held to the end anyway, and gives
/// a = y - b. Between them forward makes z (6 bytes): holding a through z
/// peaks at 4 (y) + 4 (a) + 1 (b) + 6 (z) = 15 bytes. Deriving a in backward
/// from y and b frees a's 4 bytes from forward; nothing else can.
struct DerivationGraph {
  Graph graph;
  ValueId a = kNoId, b = kNoId, y = kNoId;
};

DerivationGraph buildDerivationGraph() {
  DerivationGraph built;
  Graph &graph = built.graph;
  ValueId x = graph.addInput("x", TensorType{{4}, DType::I8}, InputRole::Input);
  ValueId dy =
      graph.addInput("dq", TensorType{{1}, DType::I8}, InputRole::Tangent);
  auto add = [&](std::string name, std::vector<ValueId> operands, int64_t bytes,
                 double us, Phase phase) {
    GraphOp op;
    op.name = name;
    op.kind = "test.op";
    op.operands = std::move(operands);
    op.fixedTimeUs = us;
    op.phase = phase;
    absl::StatusOr<OpId> id =
        graph.addOp(std::move(op), {TensorType{{bytes}, DType::I8}});
    EXPECT_TRUE(id.ok()) << id.status();
    return graph.op(*id).results.front();
  };
  built.a = add("a", {x}, 4, 10, Phase::Forward);
  built.b = add("b", {x}, 1, 1, Phase::Forward);
  built.y = add("y", {built.a, built.b}, 4, 1, Phase::Forward);
  graph.mutableOp(graph.value(built.y).producer).inverseRules = {
      InverseRule{0, InverseKind::SubtractOther, {1}, true}};
  ValueId z = add("z", {built.y}, 6, 1, Phase::Forward);
  ValueId q = add("q", {z}, 1, 1, Phase::Forward);
  ValueId dx = add("dx", {built.a, dy}, 1, 1, Phase::Backward);
  graph.markOutput(built.y, OutputRole::Output);
  graph.markOutput(q, OutputRole::Output);
  graph.markOutput(dx, OutputRole::Gradient);
  return built;
}

TEST(OptimalTest, TheMilpDerivesWhatItCanNeitherHoldNorReplay) {
  DerivationGraph built = buildDerivationGraph();
  const Graph &graph = built.graph;
  Classification phases = classifyOrDie(graph);
  CostModel costModel = unitCostModel();
  OptimalOptions options = exactOptions();
  options.recomputable.assign(graph.numOps(), true);
  options.recomputable[graph.value(built.a).producer] = false;
  constexpr int64_t kBudget = 11;

  // Without the derivation a is held through z: no schedule fits.
  absl::StatusOr<OptimalSolution> without =
      solveOptimal(graph, phases, kBudget, costModel, options);
  ASSERT_FALSE(without.ok());
  EXPECT_EQ(without.status().code(), absl::StatusCode::kResourceExhausted)
      << without.status();

  options.derivations.push_back({built.a, {built.y, built.b}, 0.5, 4});
  absl::StatusOr<OptimalSolution> with =
      solveOptimal(graph, phases, kBudget, costModel, options);
  ASSERT_TRUE(with.ok()) << with.status();
  expectConsistent(graph, phases, *with, kBudget);
  EXPECT_TRUE(with->provenOptimal);
  ASSERT_EQ(with->schedule.derivations.size(), 1u);
  const DerivationStep &step = with->schedule.derivations.front();
  EXPECT_EQ(step.value, built.a);
  EXPECT_EQ(step.reads, (std::vector<ValueId>{built.y, built.b}));
  // b (1 byte, 1 us) is replayed or held for it; the derivation costs 0.5.
  EXPECT_LE(with->totalCostUs, 15 + 1 + 0.5 + 1e-9);
  EXPECT_GE(with->totalCostUs, 15 + 0.5 - 1e-9);

  // A second way to derive a (here the same rule twice): one slot each,
  // and one rule per value in the schedule.
  options.derivations.push_back(options.derivations.front());
  absl::StatusOr<OptimalSolution> twice =
      solveOptimal(graph, phases, kBudget, costModel, options);
  ASSERT_TRUE(twice.ok()) << twice.status();
  expectConsistent(graph, phases, *twice, kBudget);
  EXPECT_DOUBLE_EQ(twice->totalCostUs, with->totalCostUs);
  EXPECT_EQ(twice->schedule.derivations.size(), 1u);

  // With room to hold a, holding costs nothing and wins.
  absl::StatusOr<OptimalSolution> roomy =
      solveOptimal(graph, phases, 15, costModel, options);
  ASSERT_TRUE(roomy.ok()) << roomy.status();
  expectConsistent(graph, phases, *roomy, 15);
  EXPECT_TRUE(roomy->schedule.derivations.empty());
  EXPECT_DOUBLE_EQ(roomy->totalCostUs, 15);
}

TEST(OptimalTest, PlannerOffersDerivationsToTheMilpAndExplainsThem) {
  DerivationGraph built = buildDerivationGraph();
  Graph &graph = built.graph;
  // The planner's own ban: a's op may never be replayed.
  graph.mutableOp(graph.value(built.a).producer).computeClass =
      ComputeClass::Matmul;
  PlanOptions options = test::optionsFor(Strategy::Optimal);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, 11, 0};
  Plan plan = test::planOrDie(graph, options);
  EXPECT_LE(plan.simulation.peakBytes, 11);
  EXPECT_EQ(plan.simulation.numDerivations, 1);
  const ValueDecision *decision = nullptr;
  for (const ValueDecision &candidate : plan.decisions)
    if (candidate.value == built.a)
      decision = &candidate;
  ASSERT_NE(decision, nullptr);
  EXPECT_EQ(decision->decision, Decision::Derive);
  EXPECT_NE(plan.reason(*decision).find("derived as y - b"), std::string::npos)
      << plan.reason(*decision);
}

/// compareHeuristicsWithOptimal with derivations on both sides: every
/// heuristic plan the MILP's class contains, derivations included, against
/// the `optimal` strategy, whose MILP weighs the same derivations. Returns
/// how many comparisons were made, and in `derivedPlans` how many `optimal`
/// plans derive.
int compareWithDerivations(const Graph &graph, int &derivedPlans) {
  std::vector<int64_t> budgets;
  std::vector<HeuristicPoint> points =
      heuristicPoints(graph, /*derivations=*/true, budgets);
  int compared = 0;
  for (int64_t budget : budgets) {
    PlanOptions options = test::optionsFor(Strategy::Optimal);
    options.allowInexactDerivation = true;
    options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, budget, 0};
    options.optimalTimeLimitSeconds = 600;
    absl::StatusOr<Plan> optimal = planRematerialization(graph, options);
    // The MILP charges some views as copies (docs/Optimal.md), and says so:
    // a plan sharing their storage may fit where it finds none (seeds 1133
    // and 1187 of a longer run).
    if (!optimal.ok() && absl::StrContains(optimal.status().message(),
                                           "charges views as copies"))
      continue;
    EXPECT_TRUE(optimal.ok())
        << "budget " << budget << ": " << optimal.status();
    if (!optimal.ok())
      continue;
    EXPECT_LE(optimal->simulation.peakBytes, budget);
    derivedPlans += optimal->simulation.numDerivations > 0;
    // Proven by the MILP (not an incumbent outside its class, not a view
    // charged conservatively).
    if (!optimal->lowerBound ||
        optimal->lowerBound->kind != TimeLowerBound::Kind::Milp ||
        optimal->lowerBound->timeUs < optimal->simulation.totalTimeUs)
      continue;
    for (const HeuristicPoint &point : points) {
      if (point.peak > budget)
        continue;
      EXPECT_LE(optimal->simulation.totalTimeUs,
                point.timeUs * (1 + 1e-7) + 1e-9)
          << point.strategy << " beats `optimal` at budget " << budget
          << " (its peak " << point.peak << "): " << std::setprecision(17)
          << optimal->simulation.totalTimeUs << " vs " << point.timeUs << " us";
      ++compared;
    }
  }
  return compared;
}

TEST(OptimalTest, HeuristicsWithDerivationsNeverBeatOptimal) {
  int compared = 0, derivedPlans = 0;
  for (uint64_t seed = 101; seed <= 140; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    test::RandomGraphOptions options;
    options.numForwardOps = 8 + static_cast<int>(seed % 7);
    compared += compareWithDerivations(
        test::buildRandomJointGraph(seed, options), derivedPlans);
  }
  EXPECT_GT(compared, 100);
  // Some optimum derives (2 of the plans when written; the heuristics
  // derive in none of them), else this tests nothing new.
  EXPECT_GT(derivedPlans, 0);
}

/// Derivations only widen the MILP's class: with them the optimum is never
/// slower and never infeasible where it was feasible, and every schedule it
/// returns passes the simulator. The small random graphs get an exact
/// `a = result - b` rule on every two-operand forward op and a third of
/// their forward ops may not repeat, so that derivations matter.
TEST(OptimalTest, DerivationsNeverMakeTheOptimumWorse) {
  int improved = 0, compared = 0;
  CostModel costModel = unitCostModel();
  for (uint64_t seed = 301; seed <= 330; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    Graph graph = buildSmallRandomGraph(seed, 5 + seed % 3, 4);
    Classification phases = classifyOrDie(graph);
    OptimalOptions without = exactOptions();
    without.recomputable.assign(graph.numOps(), true);
    OptimalOptions with = without;
    for (OpId op = 0; op < static_cast<OpId>(graph.numOps()); ++op) {
      GraphOp &graphOp = graph.mutableOp(op);
      if (graphOp.phase != Phase::Forward)
        continue;
      if (op % 3 == 1)
        without.recomputable[op] = with.recomputable[op] = false;
      if (graphOp.operands.size() < 2 ||
          graph.value(graphOp.operands[0]).producer == kNoId)
        continue;
      graphOp.inverseRules = {
          InverseRule{0, InverseKind::SubtractOther, {1}, true}};
      with.derivations.push_back(
          {graphOp.operands[0],
           {graphOp.results.front(), graphOp.operands[1]},
           0.25,
           1});
    }
    const double peak = static_cast<double>(topologicalPeak(graph, phases));
    for (double fraction : {0.7, 0.8, 0.9, 0.95}) {
      const int64_t budget = static_cast<int64_t>(fraction * peak);
      absl::StatusOr<OptimalSolution> plain =
          solveOptimal(graph, phases, budget, costModel, without);
      absl::StatusOr<OptimalSolution> derived =
          solveOptimal(graph, phases, budget, costModel, with);
      // One derivation rule per value (the plan records one).
      if (derived.ok()) {
        std::map<ValueId, std::vector<ValueId>> rule;
        for (const DerivationStep &step : derived->schedule.derivations) {
          auto it = rule.emplace(step.value, step.reads).first;
          EXPECT_EQ(it->second, step.reads) << "value " << step.value;
        }
      }
      if (plain.ok()) {
        ASSERT_TRUE(derived.ok())
            << "budget " << budget << ": " << derived.status();
        expectConsistent(graph, phases, *derived, budget);
        ASSERT_TRUE(plain->provenOptimal && derived->provenOptimal);
        EXPECT_LE(derived->totalCostUs, plain->totalCostUs + 1e-9)
            << "budget " << budget;
        improved += derived->totalCostUs < plain->totalCostUs - 1e-9;
        ++compared;
      } else if (derived.ok()) {
        EXPECT_EQ(plain.status().code(), absl::StatusCode::kResourceExhausted)
            << plain.status();
        expectConsistent(graph, phases, *derived, budget);
        ++improved;
      }
    }
  }
  // 24 and 15 when written: many budgets are infeasible without a
  // derivation.
  EXPECT_GT(compared, 15);
  EXPECT_GT(improved, 5);
}

TEST(OptimalTest, HeuristicsNeverBeatOptimalOnExplicitPhaseGraphs) {
  int compared = 0;
  for (uint64_t seed = 201; seed <= 220; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    compared += compareHeuristicsWithOptimal(
        buildSmallRandomGraph(seed, 4 + seed % 3, 5));
  }
  EXPECT_GT(compared, 100);
}

//===----------------------------------------------------------------------===//
// Checkmate benchmark graphs (../shared/data/checkmate)
//===----------------------------------------------------------------------===//

TEST(OptimalTest, Vgg16AtNinetyPercentOfThePeak) {
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("VGG16_b256_224x224_train.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Classification phases = classifyOrDie(*graph);
  // README: topological peak 15,825,108,992 bytes, B(0.9) = 14,242,598,093.
  ASSERT_EQ(topologicalPeak(*graph, phases), 15825108992);
  const int64_t budget = 14242598093;
  CostModel costModel = unitCostModel();
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(*graph, phases, budget, costModel, exactOptions());
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_TRUE(solution->provenOptimal);
  expectConsistent(*graph, phases, *solution, budget);
  // The budget is below the no-recompute peak, so something is recomputed;
  // every op still runs at least once (total cost_cpu 15,500).
  EXPECT_GT(solution->recomputeCostUs, 0);
  EXPECT_DOUBLE_EQ(solution->totalCostUs - solution->recomputeCostUs, 15500);

  // A larger budget can only be cheaper.
  absl::StatusOr<OptimalSolution> looser =
      solveOptimal(*graph, phases, 15000000000, costModel, exactOptions());
  ASSERT_TRUE(looser.ok()) << looser.status();
  EXPECT_LE(looser->totalCostUs, solution->totalCostUs);
}

/// The `budget` strategy's plan at `budget` bytes, the incumbent the planner
/// passes to solveOptimal.
Plan budgetPlan(const Graph &graph, int64_t budget) {
  PlanOptions options;
  options.strategy = Strategy::Budget;
  options.target = *getTargetPreset("cpu");
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, budget, 0};
  return test::planOrDie(graph, options);
}

TEST(OptimalTest, TheTimeLimitLeavesTheIncumbentWithItsBound) {
  // VGG16 at 0.9 of its peak: the `budget` plan is the incumbent; CBC gets
  // a millisecond, far too little to improve on it or to prove it optimal.
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("VGG16_b256_224x224_train.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Classification phases = classifyOrDie(*graph);
  const int64_t budget = 14242598093;
  Plan seed = budgetPlan(*graph, budget);
  OptimalOptions options;
  options.timeLimitSeconds = 1e-3;
  options.incumbent = [&] { return std::optional<Schedule>(seed.schedule); };
  absl::StatusOr<OptimalSolution> refused =
      solveOptimal(*graph, phases, budget, unitCostModel(), options);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDeadlineExceeded);

  options.acceptSuboptimal = true;
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(*graph, phases, budget, unitCostModel(), options);
  ASSERT_TRUE(solution.ok()) << solution.status();
  EXPECT_FALSE(solution->provenOptimal);
  expectConsistent(*graph, phases, *solution, budget);
  EXPECT_DOUBLE_EQ(solution->totalCostUs, seed.simulation.totalTimeUs);
  // Every op runs once at least (total cost_cpu 15,500); no more is proven.
  EXPECT_GE(solution->lowerBoundUs, 15500);
  EXPECT_LE(solution->lowerBoundUs, solution->totalCostUs);
}

TEST(OptimalTest, AnIncumbentOutsideTheClassIsTheBestPlanFound) {
  // random-n100 has no backward phase: `budget` reorders its forward ops,
  // which the MILP (first evaluations in graph order) cannot express. Cut
  // short at a millisecond (CBC's root LP still runs to its end, seconds
  // here), `optimal` used to fail; now its plan is the cheaper of the
  // incumbent and whatever CBC found, unproven, its bound at least every op
  // once.
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("random_layered_n100.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Classification phases = classifyOrDie(*graph);
  double evaluateOnceUs = 0;
  for (OpId op = 0; op < static_cast<OpId>(graph->numOps()); ++op)
    evaluateOnceUs += graph->op(op).fixedTimeUs.value_or(0);
  const int64_t budget =
      static_cast<int64_t>(0.7 * topologicalPeak(*graph, phases));
  Plan seed = budgetPlan(*graph, budget);
  ASSERT_GT(seed.simulation.recomputeTimeUs, 0);
  OptimalOptions options;
  options.timeLimitSeconds = 1e-3;
  options.acceptSuboptimal = true;
  options.incumbent = [&] { return std::optional<Schedule>(seed.schedule); };
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(*graph, phases, budget, unitCostModel(), options);
  ASSERT_TRUE(solution.ok()) << solution.status();
  expectConsistent(*graph, phases, *solution, budget);
  EXPECT_TRUE(solution->timedOut);
  EXPECT_FALSE(solution->provenOptimal);
  EXPECT_LE(solution->totalCostUs, seed.simulation.totalTimeUs);
  EXPECT_GE(solution->lowerBoundUs, evaluateOnceUs - 1e-9);
  EXPECT_LE(solution->lowerBoundUs, solution->totalCostUs);
}

TEST(OptimalTest, Vgg16AtEightyPercentNamesTheSmallestBudget) {
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("VGG16_b256_224x224_train.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Classification phases = classifyOrDie(*graph);
  // The last op (the gradient of the first conv) reads two values and
  // writes one while the gradients are live: no schedule goes below the
  // bytes of its operands and result, and `optimal` finds one that meets it.
  const GraphOp &last = graph->op(graph->numOps() - 1);
  int64_t needed = graph->value(last.results.front()).type.bytes();
  for (ValueId operand : last.operands)
    needed += graph->value(operand).type.bytes();
  absl::StatusOr<OptimalSolution> solution = solveOptimal(
      *graph, phases, 12660087194, unitCostModel(), exactOptions());
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(solution.status().message().find(absl::StrCat(
                "smallest activation peak any schedule reaches is ")),
            std::string::npos)
      << solution.status();
  EXPECT_NE(
      solution.status().message().find(absl::StrCat(" (", needed, " bytes)")),
      std::string::npos)
      << solution.status();
  absl::StatusOr<OptimalSolution> atMinimum =
      solveOptimal(*graph, phases, needed, unitCostModel(), exactOptions());
  ASSERT_TRUE(atMinimum.ok()) << atMinimum.status();
  EXPECT_EQ(atMinimum->peakBytes, needed);
}

TEST(OptimalTest, TimeLimitGivesDeadlineExceededWithAdvice) {
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("VGG19_b256_224x224_train.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  Classification phases = classifyOrDie(*graph);
  OptimalOptions options;
  options.timeLimitSeconds = 0.01;
  absl::StatusOr<OptimalSolution> solution =
      solveOptimal(*graph, phases, 13646587495, unitCostModel(), options);
  ASSERT_FALSE(solution.ok());
  EXPECT_EQ(solution.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(solution.status().message().find("use the `budget` strategy"),
            std::string::npos)
      << solution.status();
}

/// Not a test: measures how far `optimal` goes on the benchmark graphs and on
/// linear graphs, for docs/Optimal.md. Run with
///   RematCoreTests --gtest_also_run_disabled_tests \
///     --gtest_filter=OptimalTest.DISABLED_MeasureSizes
TEST(OptimalTest, DISABLED_MeasureSizes) {
  CostModel costModel = unitCostModel();
  auto measure = [&](const std::string &label, const Graph &graph,
                     double fraction, double seconds) {
    Classification phases = classifyOrDie(graph);
    int64_t peak = topologicalPeak(graph, phases);
    int64_t budget = static_cast<int64_t>(std::ceil(fraction * peak));
    OptimalOptions options;
    options.timeLimitSeconds = seconds;
    options.acceptSuboptimal = true;
    auto start = std::chrono::steady_clock::now();
    std::clock_t cpuStart = std::clock();
    absl::StatusOr<OptimalSolution> solution =
        solveOptimal(graph, phases, budget, costModel, options);
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double cpu = static_cast<double>(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    std::string outcome;
    if (!solution.ok())
      outcome = std::string(solution.status().message()).substr(0, 60);
    else
      outcome = absl::StrCat(
          "TDI ",
          absl::StrFormat("%.3f%%", 100 * solution->recomputeCostUs /
                                        (solution->totalCostUs -
                                         solution->recomputeCostUs)),
          solution->provenOptimal ? " optimal" : " not proven");
    std::printf("| %s | %zu | %.2f | %s | %.1f s wall, %.1f s cpu |\n",
                label.c_str(), graph.numOps(), fraction, outcome.c_str(),
                elapsed, cpu);
    std::fflush(stdout);
  };
  // Wall-clock limits: generous where the solver finishes, shorter where it
  // does not (the larger graphs), to keep the run under half an hour.
  for (int n : {8, 16, 24, 32})
    for (double fraction : {0.5, 0.3})
      measure("linear n=" + std::to_string(n),
              test::buildCheckmateLinearGraph(n), fraction, 300);
  for (const char *file :
       {"VGG16_b256_224x224_train.json", "VGG19_b256_224x224_train.json"}) {
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    for (double fraction : {0.9, 0.8})
      measure(file, *graph, fraction, 300);
  }
  for (const char *file :
       {"MobileNet_b512_224x224_train.json", "ResNet50_b256_224x224_train.json",
        "random_layered_n100.json"}) {
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    measure(file, *graph, 0.9, 120);
  }
}

} // namespace
} // namespace remat
