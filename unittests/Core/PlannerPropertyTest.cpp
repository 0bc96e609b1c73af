//===- PlannerPropertyTest.cpp - Invariants on random joint graphs --------===//
//
// Part of remat. Thousands of seeded random DAGs (forward ops of every
// compute class, random tags, random ops with and without RNG state,
// inverse rules, a backward op per forward op): every plan is complete and
// simulates, budgets hold, `budget` is never worse than save-all or (when it
// respects the automatic bans) recompute-all at equal memory, min-cut saves
// no more than save-all, and plans are deterministic.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include <memory>

namespace remat {
namespace {

constexpr int kNumGraphs = 2000;

/// Every backward op runs exactly once, after every forward op it needs.
void expectComplete(const Graph &graph, const Plan &plan, uint64_t seed) {
  std::vector<int> backwardRuns(graph.numOps(), 0);
  for (OpId op : plan.schedule.steps)
    if (plan.classification.opPhase[op] == Phase::Backward)
      ++backwardRuns[op];
  for (size_t op = 0; op < graph.numOps(); ++op) {
    if (plan.classification.opPhase[op] == Phase::Backward) {
      EXPECT_EQ(backwardRuns[op], 1) << "seed " << seed << " op " << op;
    }
  }
  // Every forward value has a decision; every needed one is available.
  for (ValueId value : plan.classification.forwardValues) {
    const ValueDecision *decision = plan.find(value);
    ASSERT_NE(decision, nullptr) << "seed " << seed;
    EXPECT_FALSE(plan.reason(*decision).empty());
  }
  for (ValueId value : plan.classification.neededByBackward) {
    const ValueDecision *decision = plan.find(value);
    ASSERT_NE(decision, nullptr) << "seed " << seed;
    EXPECT_NE(decision->decision, Decision::NotNeeded) << "seed " << seed;
  }
  // Chains (in the plan's shared array) replay forward ops, and only the
  // backward section replays: every chain op is evaluated there, once per
  // chain that names it at most. Other decisions have no chain.
  ASSERT_TRUE(plan.schedule.backwardStart.has_value()) << "seed " << seed;
  std::vector<int> replays(graph.numOps(), 0);
  for (size_t i = *plan.schedule.backwardStart; i < plan.schedule.steps.size();
       ++i)
    if (plan.classification.opPhase[plan.schedule.steps[i]] == Phase::Forward)
      ++replays[plan.schedule.steps[i]];
  std::vector<int> named(graph.numOps(), 0);
  for (const ValueDecision &decision : plan.decisions) {
    absl::Span<const OpId> chain = plan.recomputeChain(decision);
    if (decision.decision != Decision::Recompute) {
      EXPECT_TRUE(chain.empty()) << "seed " << seed << " %" << decision.value;
      continue;
    }
    for (OpId op : chain) {
      EXPECT_EQ(plan.classification.opPhase[op], Phase::Forward)
          << "seed " << seed;
      EXPECT_LE(++named[op], replays[op]) << "seed " << seed << " op " << op;
    }
  }
}

/// Whether a plan replays an op automatic planning must not replay.
bool recomputesBannedOp(const Graph &graph, const Plan &plan) {
  std::vector<int> runs(graph.numOps(), 0);
  for (OpId op : plan.schedule.steps) {
    const GraphOp &graphOp = graph.op(op);
    // must_recompute lifts the automatic bans.
    if (plan.classification.opPhase[op] != Phase::Forward || runs[op]++ == 0 ||
        graphOp.tags.mustRecompute)
      continue;
    ComputeClass computeClass = graphOp.computeClass;
    bool largeReduction = false;
    if (computeClass == ComputeClass::Reduction) {
      int64_t in = graph.value(graphOp.operands.front()).type.numElements();
      int64_t out = graph.value(graphOp.results.front()).type.numElements();
      largeReduction = out * 4 < in;
    }
    if (computeClass == ComputeClass::Matmul || graphOp.tags.noAutoRecompute ||
        largeReduction)
      return true;
  }
  return false;
}

TEST(PlannerProperties, RandomJointGraphs) {
  int budgetChecks = 0, recomputeAllComparisons = 0;
  for (uint64_t seed = 1; seed <= kNumGraphs; ++seed) {
    test::RandomGraphOptions graphOptions;
    graphOptions.numForwardOps = 4 + static_cast<int>(seed % 17);
    Graph graph = test::buildRandomJointGraph(seed, graphOptions);
    ASSERT_TRUE(graph.validate().ok()) << seed;

    PlanOptions options;
    options.allowInexactDerivation = seed % 2 == 0;
    std::vector<Plan> plans;
    for (Strategy strategy :
         {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
      options.strategy = strategy;
      absl::StatusOr<Plan> plan = planRematerialization(graph, options);
      ASSERT_TRUE(plan.ok()) << "seed " << seed << " " << toString(strategy)
                             << ": " << plan.status();
      expectComplete(graph, *plan, seed);
      plans.push_back(*std::move(plan));
    }
    const Plan &saveAll = plans[0], &recomputeAll = plans[1],
               &minCut = plans[2];
    // Weighing bytes alone, min-cut saves no more activations than
    // save-all. (At the default exchange rate it may save an operand
    // instead of replaying its producer: MinCutTimeTest.cpp. Primal inputs
    // cost it nothing, held by the caller anyway: it may keep more of them.)
    PlanOptions bytesOnly = test::bytesOnlyMinCut();
    bytesOnly.allowInexactDerivation = options.allowInexactDerivation;
    absl::StatusOr<Plan> smallest = planRematerialization(graph, bytesOnly);
    ASSERT_TRUE(smallest.ok()) << "seed " << seed << ": " << smallest.status();
    expectComplete(graph, *smallest, seed);
    auto savedActivations = [](const Plan &plan) {
      return plan.simulation.savedBytes - plan.simulation.savedInputBytes;
    };
    EXPECT_LE(savedActivations(*smallest), savedActivations(saveAll))
        << "seed " << seed;
    EXPECT_FALSE(recomputesBannedOp(graph, *smallest)) << "seed " << seed;
    EXPECT_FALSE(recomputesBannedOp(graph, minCut)) << "seed " << seed;
    // save-all recomputes only what a tag forces.
    for (const ValueDecision &decision : saveAll.decisions) {
      if (decision.decision == Decision::Recompute) {
        EXPECT_NE(saveAll.reason(decision).find("tagged must_recompute"),
                  std::string::npos)
            << "seed " << seed << ": " << saveAll.reason(decision);
      }
    }

    // Budgets: at save-all's peak, and at recompute-all's peak.
    options.strategy = Strategy::Budget;
    options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                  saveAll.simulation.peakBytes, 0};
    Plan atSaveAll = test::planOrDie(graph, options);
    EXPECT_LE(atSaveAll.simulation.peakBytes, saveAll.simulation.peakBytes);
    EXPECT_LE(atSaveAll.simulation.recomputeTimeUs,
              saveAll.simulation.recomputeTimeUs)
        << "seed " << seed;
    EXPECT_FALSE(recomputesBannedOp(graph, atSaveAll)) << "seed " << seed;
    expectComplete(graph, atSaveAll, seed);
    if (!recomputesBannedOp(graph, recomputeAll)) {
      ++recomputeAllComparisons;
      options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                    recomputeAll.simulation.peakBytes, 0};
      absl::StatusOr<Plan> atRecomputeAll =
          planRematerialization(graph, options);
      ASSERT_TRUE(atRecomputeAll.ok())
          << "seed " << seed << ": " << atRecomputeAll.status();
      EXPECT_LE(atRecomputeAll->simulation.recomputeTimeUs,
                recomputeAll.simulation.recomputeTimeUs + 1e-9)
          << "seed " << seed;
    }
    for (const char *fraction : {"0.0", "0.3", "0.7", "1.0"}) {
      options.budget = *parseMemoryBudget(fraction);
      absl::StatusOr<Plan> plan = planRematerialization(graph, options);
      ASSERT_TRUE(plan.ok())
          << "seed " << seed << " budget " << fraction << ": " << plan.status();
      EXPECT_LE(plan->simulation.peakBytes, *plan->budgetBytes)
          << "seed " << seed << " budget " << fraction;
      ++budgetChecks;
    }
    // Determinism: planning again gives the same bytes.
    if (seed % 10 == 0) {
      options.strategy = Strategy::MinCut;
      EXPECT_EQ(toText(test::planOrDie(graph, options), graph),
                toText(test::planOrDie(graph, options), graph))
          << "seed " << seed;
      options.strategy = Strategy::Budget;
      options.budget = *parseMemoryBudget("0.5");
      EXPECT_EQ(toText(test::planOrDie(graph, options), graph),
                toText(test::planOrDie(graph, options), graph))
          << "seed " << seed;
    }
  }
  EXPECT_EQ(budgetChecks, 4 * kNumGraphs);
  // The comparison must actually run on a good share of the graphs.
  EXPECT_GT(recomputeAllComparisons, kNumGraphs / 10);
}

TEST(PlannerProperties, PlanCopiesKeepReasonsAndChains) {
  // Reasons and chains live in buffers the plan owns: a copy must read its
  // own, also after the original is gone.
  Graph graph = test::buildRandomJointGraph(7, {});
  PlanOptions options = test::optionsFor(Strategy::RecomputeAll);
  auto original = std::make_unique<Plan>(test::planOrDie(graph, options));
  const std::string text = toText(*original, graph);
  bool anyChain = false;
  for (const ValueDecision &decision : original->decisions)
    anyChain |= !original->recomputeChain(decision).empty();
  EXPECT_TRUE(anyChain) << text; // the test would not check chains otherwise
  Plan copy = *original;
  original.reset();
  EXPECT_EQ(toText(copy, graph), text);
}

TEST(PlannerProperties, GraphCopiesPlanIdentically) {
  // Determinism across separately built but equal graphs (no pointer keys).
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    Graph first = test::buildRandomJointGraph(seed, {});
    Graph second = test::buildRandomJointGraph(seed, {});
    for (Strategy strategy :
         {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
      PlanOptions options = test::optionsFor(strategy);
      EXPECT_EQ(toText(test::planOrDie(first, options), first),
                toText(test::planOrDie(second, options), second));
    }
  }
}

} // namespace
} // namespace remat

namespace remat {
namespace {

/// The heuristics are never better than `optimal` at the memory they use:
/// a heuristic below the optimum reveals a bug in one of the two.
TEST(PlannerProperties, HeuristicsNeverBeatOptimal) {
  int compared = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    test::RandomGraphOptions graphOptions;
    graphOptions.numForwardOps = 3 + static_cast<int>(seed % 4);
    Graph graph = test::buildRandomJointGraph(seed, graphOptions);
    for (Strategy strategy :
         {Strategy::MinCut, Strategy::SaveAll, Strategy::Budget}) {
      PlanOptions heuristicOptions = test::optionsFor(strategy);
      heuristicOptions.budget = *parseMemoryBudget("0.5");
      Plan heuristic = test::planOrDie(graph, heuristicOptions);
      if (heuristic.simulation.numDerivations > 0)
        continue; // derivations are outside the optimal solver's model
      PlanOptions options = test::optionsFor(Strategy::Optimal);
      options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                    heuristic.simulation.peakBytes, 0};
      options.optimalTimeLimitSeconds = 20;
      absl::StatusOr<Plan> optimal = planRematerialization(graph, options);
      if (!optimal.ok() &&
          optimal.status().code() == absl::StatusCode::kDeadlineExceeded)
        continue;
      ASSERT_TRUE(optimal.ok()) << "seed " << seed << ": " << optimal.status();
      EXPECT_LE(optimal->simulation.peakBytes, heuristic.simulation.peakBytes);
      EXPECT_LE(optimal->simulation.totalTimeUs,
                heuristic.simulation.totalTimeUs * (1 + 1e-9) + 1e-9)
          << "seed " << seed << " " << toString(strategy) << "\n"
          << toText(heuristic, graph) << toText(*optimal, graph);
      ++compared;
    }
  }
  EXPECT_GT(compared, 20);
}

TEST(PlannerOptimal, CheckmateLinearGraphThroughThePlanner) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  PlanOptions options = test::optionsFor(Strategy::Optimal);
  options.target = *getTargetPreset("cpu");
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, 10, 0};
  Plan plan = test::planOrDie(graph, options);
  EXPECT_DOUBLE_EQ(plan.simulation.totalTimeUs, 17);
  for (ValueId value : plan.classification.neededByBackward)
    EXPECT_EQ(test::decisionOf(plan, value), Decision::Save);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, 5, 0};
  plan = test::planOrDie(graph, options);
  EXPECT_DOUBLE_EQ(plan.simulation.totalTimeUs, 22);
  EXPECT_LE(plan.simulation.peakBytes, 5);
  // Proven optimal: the MILP's bound is the plan's own time.
  ASSERT_TRUE(plan.lowerBound.has_value());
  EXPECT_EQ(plan.lowerBound->kind, TimeLowerBound::Kind::Milp);
  EXPECT_DOUBLE_EQ(plan.lowerBound->timeUs, 22);
  EXPECT_EQ(plan.optimalityGap(), 0.0);
  int recomputed = 0;
  for (const ValueDecision &decision : plan.decisions)
    recomputed += decision.decision == Decision::Recompute;
  EXPECT_GT(recomputed, 0);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, 2, 0};
  absl::StatusOr<Plan> infeasible = planRematerialization(graph, options);
  ASSERT_FALSE(infeasible.ok());
  EXPECT_EQ(infeasible.status().code(), absl::StatusCode::kResourceExhausted);
}

} // namespace
} // namespace remat

namespace remat {
namespace {

/// A 50,000-op forward chain whose backward reads every value: the walks
/// are iterative, so recompute-all (one replay chain as deep as the graph)
/// and min-cut neither overflow the stack nor go quadratic.
TEST(PlannerScale, DeepChainsAndLargeRandomGraphs) {
  constexpr int kDepth = 50000;
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {16});
  std::vector<ValueId> chain = {x};
  for (int i = 0; i < kDepth; ++i)
    chain.push_back(builder.op("f" + std::to_string(i), "tanh",
                               ComputeClass::Pointwise, {chain.back()},
                               builder.type({16})));
  builder.graph().markOutput(chain.back(), OutputRole::Output);
  ValueId grad = builder.input("dy", {16}, InputRole::Tangent);
  for (int i = kDepth; i >= 1; --i)
    grad =
        builder.op("b" + std::to_string(i), "tanh_bwd", ComputeClass::Pointwise,
                   {grad, chain[i]}, builder.type({16}));
  builder.graph().markOutput(grad, OutputRole::Gradient);
  Graph graph = builder.take();
  Plan full = test::planOrDie(graph, test::optionsFor(Strategy::RecomputeAll));
  EXPECT_EQ(full.simulation.savedBytes, 64); // x only
  Plan minCut = test::planOrDie(graph, test::optionsFor(Strategy::MinCut));
  EXPECT_LE(minCut.simulation.savedBytes, 64);

  test::RandomGraphOptions options;
  options.numForwardOps = 20000;
  Graph random = test::buildRandomJointGraph(99, options);
  Plan saveAll = test::planOrDie(random, test::optionsFor(Strategy::SaveAll));
  Plan cut = test::planOrDie(random, test::optionsFor(Strategy::MinCut));
  EXPECT_LE(cut.simulation.savedBytes, saveAll.simulation.savedBytes);
  PlanOptions budget = test::optionsFor(Strategy::Budget);
  budget.budget = *parseMemoryBudget("0.5");
  Plan budgeted = test::planOrDie(random, budget);
  EXPECT_LE(budgeted.simulation.peakBytes, *budgeted.budgetBytes);
}

} // namespace
} // namespace remat
