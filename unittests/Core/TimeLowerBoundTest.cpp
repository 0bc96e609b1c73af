//===- TimeLowerBoundTest.cpp - The lower bound `budget` reports ----------===//
//
// Part of remat. The bound of Plan::lowerBound is checked against schedules
// judged by the simulator alone, not by the code that built the bound:
// `budget`'s plan (re-simulated here) and `optimal`'s plan at the same
// budget, over seeded random joint graphs and many budgets.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

namespace remat {
namespace {

/// The plan's total time as the simulator judges its schedule from scratch.
double simulatedTotalUs(const Graph &graph, const Plan &plan,
                        const PlanOptions &options) {
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, plan.classification, plan.schedule,
               CostModel(options.target));
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  return simulation.ok() ? simulation->totalTimeUs : 0;
}

/// Floating-point slack for comparing sums of the same doubles in another
/// order.
double slack(double timeUs) { return 1e-9 * timeUs + 1e-9; }

PlanOptions budgetOptions(const MemoryBudget &budget) {
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = budget;
  return options;
}

TEST(TimeLowerBound, NeverAboveTheBudgetPlanOrTheOptimalPlan) {
  int plans = 0, raised = 0, comparedWithOptimal = 0;
  for (uint64_t seed = 1; seed <= 160; ++seed) {
    test::RandomGraphOptions graphOptions;
    graphOptions.numForwardOps = 3 + static_cast<int>(seed % 8);
    Graph graph = test::buildRandomJointGraph(seed, graphOptions);
    for (const char *fraction : {"1.0", "0.8", "0.6", "0.4", "0.2", "0.0"}) {
      PlanOptions options = budgetOptions(*parseMemoryBudget(fraction));
      absl::StatusOr<Plan> plan = planRematerialization(graph, options);
      ASSERT_TRUE(plan.ok()) << "seed " << seed << ": " << plan.status();
      ASSERT_TRUE(plan->lowerBound.has_value()) << "seed " << seed;
      ++plans;
      const double total = simulatedTotalUs(graph, *plan, options);
      const TimeLowerBound &bound = *plan->lowerBound;
      EXPECT_LE(bound.timeUs, total + slack(total))
          << "seed " << seed << " budget " << fraction << " ("
          << toString(bound.kind) << ")\n"
          << toText(*plan, graph);
      ASSERT_TRUE(plan->optimalityGap().has_value());
      EXPECT_GE(*plan->optimalityGap(), -1e-9);

      PlanOptions evaluateOnce = options;
      evaluateOnce.lowerBoundTimeLimitSeconds = 0;
      Plan trivial = test::planOrDie(graph, evaluateOnce);
      ASSERT_TRUE(trivial.lowerBound.has_value());
      EXPECT_EQ(trivial.lowerBound->kind, TimeLowerBound::Kind::EvaluateOnce);
      EXPECT_LE(trivial.lowerBound->timeUs, bound.timeUs + slack(total));
      if (bound.kind == TimeLowerBound::Kind::BackwardLp &&
          bound.timeUs > trivial.lowerBound->timeUs + slack(total))
        ++raised;
      // The LP runs only where evaluate-once leaves more than 0.1% open.
      if (plan->simulation.totalTimeUs <=
          trivial.lowerBound->timeUs * 1.001 - slack(total)) {
        EXPECT_EQ(bound.kind, TimeLowerBound::Kind::EvaluateOnce)
            << "seed " << seed << " budget " << fraction;
      }

      // The class the bound covers holds `optimal`'s schedules too.
      if (graphOptions.numForwardOps > 6)
        continue;
      PlanOptions optimalOptions = test::optionsFor(Strategy::Optimal);
      optimalOptions.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                           *plan->budgetBytes, 0};
      optimalOptions.optimalTimeLimitSeconds = 20;
      absl::StatusOr<Plan> optimal =
          planRematerialization(graph, optimalOptions);
      if (!optimal.ok())
        continue; // timed out, or a MILP accounting stricter than budget's
      const double optimalTotal =
          simulatedTotalUs(graph, *optimal, optimalOptions);
      EXPECT_LE(bound.timeUs, optimalTotal + slack(optimalTotal))
          << "seed " << seed << " budget " << fraction << "\n"
          << toText(*optimal, graph);
      ++comparedWithOptimal;
    }
  }
  EXPECT_EQ(plans, 160 * 6);
  // The LP must matter somewhere, or it is dead weight.
  EXPECT_GT(raised, 10);
  EXPECT_GT(comparedWithOptimal, 100);
}

/// Checkmate's linear graph: every forward value is read by a backward op in
/// reverse order, so at a budget below save-all some value must be replayed
/// and the LP bound rises above evaluate-once; it stays at or below the
/// proven optimum.
TEST(TimeLowerBound, LinearGraphLpAboveEvaluateOnceBelowOptimum) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  PlanOptions options = budgetOptions(MemoryBudget{MemoryBudget::Kind::Bytes, 6, 0});
  options.target = *getTargetPreset("cpu");
  Plan plan = test::planOrDie(graph, options);
  ASSERT_TRUE(plan.lowerBound.has_value());
  // 17 unit-cost ops, each evaluated once: the evaluate-once bound is 17.
  EXPECT_EQ(plan.lowerBound->kind, TimeLowerBound::Kind::BackwardLp);
  EXPECT_GT(plan.lowerBound->timeUs, 17 + 1e-6);

  PlanOptions optimalOptions = options;
  optimalOptions.strategy = Strategy::Optimal;
  Plan optimal = test::planOrDie(graph, optimalOptions);
  EXPECT_LE(plan.lowerBound->timeUs,
            optimal.simulation.totalTimeUs + slack(optimal.simulation.totalTimeUs));
  EXPECT_LE(optimal.simulation.totalTimeUs,
            plan.simulation.totalTimeUs + slack(plan.simulation.totalTimeUs));
}

/// VGG16 at 0.9 of its topological peak: the plan recomputes one 3 GiB
/// activation, which `optimal` proves optimal (OptimalTest). The plain LP
/// holds half of it at the checkpoints where memory binds and pays half
/// its replay (a 1.01% gap); the cover inequalities of those memory rows
/// (no schedule holds a set of values whose bytes exceed what the budget
/// leaves) take the bound to the optimum.
TEST(TimeLowerBound, CoverInequalitiesCloseTheVgg16Gap) {
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("VGG16_b256_224x224_train.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  PlanOptions options = budgetOptions(*parseMemoryBudget("0.9peak"));
  Plan plan = test::planOrDie(*graph, options);
  ASSERT_TRUE(plan.lowerBound.has_value());
  EXPECT_EQ(plan.lowerBound->kind, TimeLowerBound::Kind::BackwardLp);
  EXPECT_GT(plan.simulation.recomputeTimeUs, 0);
  ASSERT_TRUE(plan.optimalityGap().has_value());
  EXPECT_GE(*plan.optimalityGap(), -1e-9);
  EXPECT_LE(*plan.optimalityGap(), 0.001);
}

/// A stopped or skipped LP still gives a valid bound, never less than
/// evaluate-once.
TEST(TimeLowerBound, LimitsGiveAWeakerValidBound) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  PlanOptions options = budgetOptions(MemoryBudget{MemoryBudget::Kind::Bytes, 6, 0});
  options.target = *getTargetPreset("cpu");

  PlanOptions tooLarge = options;
  tooLarge.lowerBoundMaxNonzeros = 1;
  Plan skipped = test::planOrDie(graph, tooLarge);
  ASSERT_TRUE(skipped.lowerBound.has_value());
  EXPECT_TRUE(skipped.lowerBound->lpSkipped);
  EXPECT_EQ(skipped.lowerBound->kind, TimeLowerBound::Kind::EvaluateOnce);
  EXPECT_DOUBLE_EQ(skipped.lowerBound->timeUs, 17);

  // A limit the solver cannot meet (it may still finish: the bound is then
  // the full one): whatever it returns is between the two.
  PlanOptions hurried = options;
  hurried.lowerBoundTimeLimitSeconds = 1e-9;
  Plan stopped = test::planOrDie(graph, hurried);
  Plan full = test::planOrDie(graph, options);
  ASSERT_TRUE(stopped.lowerBound.has_value());
  EXPECT_GE(stopped.lowerBound->timeUs, 17);
  EXPECT_LE(stopped.lowerBound->timeUs,
            full.lowerBound->timeUs + slack(full.lowerBound->timeUs));
  EXPECT_LE(stopped.lowerBound->timeUs, stopped.simulation.totalTimeUs);
}

/// Only strategies that compute a bound report one.
TEST(TimeLowerBound, OnlyBudgetReportsOne) {
  Graph graph = test::buildCheckmateLinearGraph(6);
  for (Strategy strategy : {Strategy::SaveAll, Strategy::RecomputeAll,
                            Strategy::MinCut}) {
    Plan plan = test::planOrDie(graph, test::optionsFor(strategy));
    EXPECT_FALSE(plan.lowerBound.has_value()) << toString(strategy);
    EXPECT_FALSE(plan.optimalityGap().has_value());
  }
}

} // namespace
} // namespace remat
