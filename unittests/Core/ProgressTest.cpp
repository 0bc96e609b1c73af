//===- ProgressTest.cpp - PlanOptions::progress -----------------*- C++ -*-===//
//
// Part of remat. The progress callback of the long-running strategies: when
// it is called (every report point with an interval of 0, never for the
// quick strategies), what it says (strategy, monotone time and counts, the
// best plan so far matching the plan chosen, a solver bound below the
// optimum), and that it only observes. No assertion depends on timing.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "gmock/gmock.h"

#include <vector>

namespace remat {
namespace {

/// Plans with a callback that records every report, at every report point.
struct RecordedRun {
  Plan plan;
  std::vector<PlanProgress> reports;
};

RecordedRun planRecording(const Graph &graph, PlanOptions options) {
  RecordedRun run;
  options.progressIntervalSeconds = 0;
  options.progress = [&](const PlanProgress &progress) {
    run.reports.push_back(progress);
  };
  run.plan = test::planOrDie(graph, options);
  return run;
}

PlanOptions withBudget(Strategy strategy, int64_t bytes) {
  PlanOptions options = test::optionsFor(strategy);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, bytes, 0};
  options.target = *getTargetPreset("cpu");
  return options;
}

void expectMonotone(const std::vector<PlanProgress> &reports) {
  for (size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].elapsedSeconds, reports[i - 1].elapsedSeconds);
    if (reports[i].stage == reports[i - 1].stage) {
      EXPECT_GE(reports[i].explored, reports[i - 1].explored);
    }
  }
}

TEST(ProgressTest, BudgetReportsItsCandidatesAndTheBestWithinTheBudget) {
  // Budget 4 on Checkmate's 8-layer linear graph needs refined schedules.
  Graph graph = test::buildCheckmateLinearGraph(8);
  RecordedRun run = planRecording(graph, withBudget(Strategy::Budget, 4));
  ASSERT_FALSE(run.reports.empty());
  expectMonotone(run.reports);
  for (const PlanProgress &progress : run.reports) {
    EXPECT_EQ(progress.strategy, Strategy::Budget);
    EXPECT_FALSE(progress.stage.empty());
    ASSERT_TRUE(progress.budgetBytes.has_value());
    EXPECT_EQ(*progress.budgetBytes, 4);
    EXPECT_FALSE(progress.recomputeTimeBoundUs.has_value());
  }
  EXPECT_EQ(run.reports.front().stage, "simulating candidates");
  // After the candidates for every budget, the polish for this one (which
  // reports only when it simulates something).
  EXPECT_THAT(run.reports.back().stage,
              testing::AnyOf("refining schedules", "polishing for the budget"));
  // Every candidate was reported, polished ones included, so the last
  // report's best is the plan.
  const PlanProgress &last = run.reports.back();
  ASSERT_TRUE(last.bestWithinBudget);
  ASSERT_TRUE(last.bestPeakBytes && last.bestRecomputeTimeUs);
  EXPECT_EQ(*last.bestPeakBytes, run.plan.simulation.peakBytes);
  EXPECT_DOUBLE_EQ(*last.bestRecomputeTimeUs,
                   run.plan.simulation.recomputeTimeUs);
}

TEST(ProgressTest, BudgetBeforeAnyCandidateFitsReportsTheLowestPeak) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  RecordedRun run = planRecording(graph, withBudget(Strategy::Budget, 4));
  // The first candidate is save-all, far over a budget of 4 bytes.
  const PlanProgress &first = run.reports.front();
  EXPECT_EQ(first.explored, 1);
  EXPECT_FALSE(first.bestWithinBudget);
  ASSERT_TRUE(first.bestPeakBytes.has_value());
  EXPECT_GT(*first.bestPeakBytes, 4);
}

TEST(ProgressTest, FractionalBudgetIsReportedOnceResolved) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = MemoryBudget{MemoryBudget::Kind::Fraction, 0, 0.5};
  RecordedRun run = planRecording(graph, options);
  ASSERT_FALSE(run.reports.empty());
  // Resolved only when every candidate is known: reported from the polish
  // for that budget on, never before.
  bool resolved = false;
  for (const PlanProgress &progress : run.reports) {
    resolved |= progress.stage == "polishing for the budget";
    EXPECT_EQ(progress.budgetBytes.has_value(), resolved) << progress.stage;
    if (!resolved) {
      EXPECT_FALSE(progress.bestWithinBudget);
    }
  }
  EXPECT_TRUE(resolved);
}

TEST(ProgressTest, OptimalReportsTheSolverBoundBelowTheOptimum) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  RecordedRun run = planRecording(graph, withBudget(Strategy::Optimal, 4));
  ASSERT_FALSE(run.reports.empty());
  expectMonotone(run.reports);
  const double optimum = run.plan.simulation.recomputeTimeUs;
  for (const PlanProgress &progress : run.reports) {
    EXPECT_EQ(progress.strategy, Strategy::Optimal);
    EXPECT_EQ(progress.stage, "solving the MILP");
    ASSERT_TRUE(progress.budgetBytes.has_value());
    EXPECT_EQ(*progress.budgetBytes, 4);
    if (progress.recomputeTimeBoundUs) {
      EXPECT_LE(*progress.recomputeTimeBoundUs, optimum + 1e-6);
    }
    if (progress.bestRecomputeTimeUs) {
      EXPECT_GE(*progress.bestRecomputeTimeUs, optimum - 1e-6);
    }
  }
}

TEST(ProgressTest, QuickStrategiesNeverReport) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  for (Strategy strategy :
       {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
    RecordedRun run = planRecording(graph, test::optionsFor(strategy));
    EXPECT_TRUE(run.reports.empty()) << toString(strategy);
  }
}

TEST(ProgressTest, TheCallbackOnlyObserves) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  for (Strategy strategy : {Strategy::Budget, Strategy::Optimal}) {
    PlanOptions options = withBudget(strategy, 4);
    Plan quiet = test::planOrDie(graph, options);
    RecordedRun watched = planRecording(graph, options);
    EXPECT_EQ(toText(watched.plan, graph), toText(quiet, graph))
        << toString(strategy);
  }
}

TEST(ProgressTest, AnIntervalLimitsTheCalls) {
  // With an interval far longer than any test run, nothing is reported.
  Graph graph = test::buildCheckmateLinearGraph(8);
  PlanOptions options = withBudget(Strategy::Budget, 4);
  int calls = 0;
  options.progressIntervalSeconds = 1e9;
  options.progress = [&](const PlanProgress &) { ++calls; };
  test::planOrDie(graph, options);
  EXPECT_EQ(calls, 0);
}

} // namespace
} // namespace remat
