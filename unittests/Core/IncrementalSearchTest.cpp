//===- IncrementalSearchTest.cpp - The searches' incremental bookkeeping ===//
//
// Part of remat. The schedule annealing of `budget` (lib/Core/
// ScheduleAnneal.cpp) evaluates its moves on a timeline it keeps up to date
// move by move instead of evaluating each candidate schedule in full. Here
// the annealing runs with every move the timeline evaluates also evaluated
// in full, on the shared random layered graphs and on random forward graphs
// with several results per op, workspaces and function results, starting
// from the `budget` plan's schedule; the two evaluations must agree on every
// move (validity, peak, recomputation time and energy), which also checks
// every move the timeline made before it.
//
// The order search (lib/Core/OrderSearch.cpp) keeps positions, last
// readers and the live bytes across each gap up to date the same way; it
// runs here with that bookkeeping recounted from the order after every
// move and every undo, from save-all and `budget` schedules.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "FlatGraph.h"
#include "PlannerInternal.h"

#include <cmath>
#include <random>

namespace remat {
namespace {

/// The order search's work in these tests: enough for its smallest search
/// (8,000 moves) on the shared 250-node graph.
constexpr int64_t kOrderWork = 4000000;

/// `check(context)` in the planning context of `graph` and `options`, or
/// nullopt (and a failure) when it cannot be built.
template <typename Check>
std::optional<int64_t> inContext(const Graph &graph, const PlanOptions &options,
                                 Check &&check) {
  CostModel costModel(options.target);
  SimulationTables tables;
  absl::StatusOr<detail::FlatGraph> flat =
      detail::buildValidatedFlatGraph(graph, costModel, tables);
  EXPECT_TRUE(flat.ok()) << flat.status();
  absl::StatusOr<Classification> phases = detail::classifyFlat(graph, *flat);
  EXPECT_TRUE(phases.ok()) << phases.status();
  absl::StatusOr<detail::Constraints> constraints =
      detail::computeConstraints(graph, *flat, *phases, options.policy);
  EXPECT_TRUE(constraints.ok()) << constraints.status();
  if (!flat.ok() || !phases.ok() || !constraints.ok())
    return std::nullopt;
  detail::ProgressReporter progress(options);
  detail::PlanContext context{graph,   *flat,     *phases, *constraints,
                              options, costModel, tables,  progress};
  return check(context);
}

/// Every move of the annealing from `start`, evaluated by the timeline and
/// in full: how many evaluations disagreed, or nullopt where the timeline
/// does not run.
std::optional<int64_t> mismatches(const Graph &graph,
                                  const PlanOptions &options,
                                  const Schedule &start, int64_t budget,
                                  int64_t movesPerEvent) {
  return inContext(graph, options, [&](const detail::PlanContext &context) {
    return detail::annealTimelineMismatches(context, start, budget,
                                            movesPerEvent);
  });
}

/// The order search from `start` with its bookkeeping recounted after
/// every move and undo: how many recounts disagreed, or nullopt where the
/// search does not run.
std::optional<int64_t> orderMismatches(const Graph &graph,
                                       const PlanOptions &options,
                                       const Schedule &start) {
  return inContext(graph, options, [&](const detail::PlanContext &context) {
    return detail::orderSearchMismatches(context, start, kOrderWork);
  });
}

/// A forward graph of `numOps` ops, each reading the latest value (with
/// `chained`; otherwise one of the `window` latest) and up to two of the
/// `window` latest, every fifth op with two results and every seventh with
/// a workspace; the last two values are function results.
Graph buildForwardGraph(uint64_t seed, int numOps, int window,
                        bool chained = true) {
  std::mt19937_64 random(seed);
  test::GraphBuilder builder(DType::F32);
  std::vector<ValueId> values = {builder.input("x", {64})};
  for (int i = 0; i < numOps; ++i) {
    const int available = static_cast<int>(values.size());
    const int lowest = std::max(0, available - window);
    std::vector<ValueId> operands = {
        chained ? values.back()
                : values[lowest +
                         static_cast<int>(random() % (available - lowest))]};
    const int skips = static_cast<int>(random() % 3);
    for (int k = 0; k < skips; ++k) {
      const ValueId value =
          values[lowest + static_cast<int>(random() % (available - lowest))];
      if (std::find(operands.begin(), operands.end(), value) == operands.end())
        operands.push_back(value);
    }
    auto type = [&] {
      return builder.type({16 * (1 + static_cast<int64_t>(random() % 16))});
    };
    const std::string name = "f" + std::to_string(i);
    std::vector<ValueId> results;
    if (i % 5 == 4)
      results = builder.multiOp(name, "split", ComputeClass::Pointwise,
                                operands, {type(), type()});
    else
      results = {
          builder.op(name, "add", ComputeClass::Pointwise, operands, type())};
    if (i % 7 == 6)
      builder.producer(results[0]).workspaceBytes =
          64 * (1 + static_cast<int64_t>(random() % 8));
    values.insert(values.end(), results.begin(), results.end());
  }
  Graph graph = builder.take();
  graph.markOutput(values[values.size() - 2], OutputRole::Output);
  graph.markOutput(values.back(), OutputRole::Output);
  return graph;
}

PlanOptions budgetOptions(int64_t bytes) {
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, bytes, 0};
  return options;
}

/// Plans `graph` at `fraction` of its save-all peak and checks the
/// annealing's timeline from that plan; whether it ran.
bool checkTimeline(const Graph &graph, double fraction, int64_t movesPerEvent) {
  SCOPED_TRACE(testing::Message() << "at " << fraction);
  const Plan saveAll =
      test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  const int64_t budget = static_cast<int64_t>(
      std::ceil(fraction * static_cast<double>(saveAll.simulation.peakBytes)));
  const PlanOptions options = budgetOptions(budget);
  absl::StatusOr<Plan> plan = planRematerialization(graph, options);
  if (!plan.ok())
    return false;
  std::optional<int64_t> found =
      mismatches(graph, options, plan->schedule, budget, movesPerEvent);
  if (!found)
    return false;
  EXPECT_EQ(*found, 0);
  return true;
}

TEST(ScheduleAnneal, TimelineAgreesWithFullEvaluationOnRandomLayeredGraphs) {
  for (const char *file :
       {"random_layered_n100.json", "random_layered_n250.json"}) {
    SCOPED_TRACE(file);
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    int checked = 0;
    for (double fraction : {0.8, 0.7, 0.6})
      checked += checkTimeline(*graph, fraction, 40);
    EXPECT_GT(checked, 0);
  }
}

TEST(ScheduleAnneal, TimelineAgreesWithFullEvaluationOnRandomForwardGraphs) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    const Graph graph = buildForwardGraph(seed, 30 + 10 * seed, 40);
    for (double fraction : {0.9, 0.8, 0.7})
      checked += checkTimeline(graph, fraction, 200);
  }
  // The annealing must have run on most of them for the test to say much.
  EXPECT_GE(checked, 16);
}

/// Checks the order search's bookkeeping from the save-all schedule of
/// `graph` and from its `budget` plan at `fraction` of the save-all peak
/// (recomputations included); how many of the two searches ran.
int checkOrders(const Graph &graph, double fraction) {
  SCOPED_TRACE(testing::Message() << "at " << fraction);
  const PlanOptions saveAllOptions = test::optionsFor(Strategy::SaveAll);
  const Plan saveAll = test::planOrDie(graph, saveAllOptions);
  int checked = 0;
  if (std::optional<int64_t> found =
          orderMismatches(graph, saveAllOptions, saveAll.schedule)) {
    EXPECT_EQ(*found, 0) << "from the save-all schedule";
    ++checked;
  }
  const PlanOptions options = budgetOptions(static_cast<int64_t>(
      std::ceil(fraction * static_cast<double>(saveAll.simulation.peakBytes))));
  absl::StatusOr<Plan> plan = planRematerialization(graph, options);
  if (!plan.ok())
    return checked;
  if (std::optional<int64_t> found =
          orderMismatches(graph, options, plan->schedule)) {
    EXPECT_EQ(*found, 0) << "from the budget plan's schedule";
    ++checked;
  }
  return checked;
}

TEST(OrderSearch, BookkeepingAgreesWithARecountOnCheckmateGraphs) {
  int checked = 0;
  for (const char *file :
       {"random_layered_n100.json", "random_layered_n250.json",
        "VGG16_b256_224x224_train.json"}) {
    SCOPED_TRACE(file);
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    checked += checkOrders(*graph, 0.7);
  }
  EXPECT_GE(checked, 4);
}

TEST(OrderSearch, BookkeepingAgreesWithARecountOnRandomForwardGraphs) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    checked += checkOrders(
        buildForwardGraph(seed, 60 + 20 * seed, 12, /*chained=*/false), 0.8);
  }
  EXPECT_GE(checked, 4);
}

} // namespace
} // namespace remat
