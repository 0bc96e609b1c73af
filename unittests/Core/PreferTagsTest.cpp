//===- PreferTagsTest.cpp - prefer_recompute / prefer_save ----------------===//
//
// Part of remat. The soft tags: automatic strategies follow them, anything
// stronger (a policy, a hard save) wins over them without an error, and
// `budget` drops them when no plan honouring them fits the budget.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "gtest/gtest.h"

namespace remat {
namespace {


bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A forward value that min-cut recomputes in the Llama layer, with a
/// pointwise producer.
ValueId firstRecomputedValue(const Graph &graph, const Plan &plan) {
  for (size_t id = 0; id < graph.numValues(); ++id) {
    ValueId value = static_cast<ValueId>(id);
    const GraphValue &graphValue = graph.value(value);
    if (graphValue.producer == kNoId)
      continue;
    const ValueDecision *decision = plan.find(value);
    if (decision && decision->decision == Decision::Recompute &&
        graph.op(graphValue.producer).computeClass == ComputeClass::Pointwise)
      return value;
  }
  return kNoId;
}

TEST(PreferTags, PreferSaveKeepsWhatMinCutWouldRecompute) {
  Graph graph = test::buildLlamaLayer();
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  Plan untagged = test::planOrDie(graph, options);
  ValueId value = firstRecomputedValue(graph, untagged);
  ASSERT_NE(value, kNoId);

  graph.mutableOp(graph.value(value).producer).tags.preferSave = true;
  Plan tagged = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(tagged, value), Decision::Save);
  EXPECT_TRUE(contains(test::reasonOf(tagged, value), "which is prefer_save"))
      << test::reasonOf(tagged, value);
  EXPECT_GE(tagged.simulation.savedBytes, untagged.simulation.savedBytes);

  // An explicit policy that saves nothing but names wins over it.
  options.policy = *parseNamePolicy("nothing_saveable");
  Plan policy = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(policy, value), Decision::Recompute)
      << test::reasonOf(policy, value);
}

TEST(PreferTags, PreferRecomputeLiftsTheComputeIntensiveBan) {
  Graph graph = test::buildLlamaLayer();
  ValueId query = test::valueNamed(graph, "query_proj");
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  ASSERT_EQ(test::decisionOf(test::planOrDie(graph, options), query),
            Decision::Save);

  graph.mutableOp(graph.value(query).producer).tags.preferRecompute = true;
  Plan tagged = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(tagged, query), Decision::Recompute);
  EXPECT_TRUE(
      contains(test::reasonOf(tagged, query), ": tagged prefer_recompute"))
      << test::reasonOf(tagged, query);

  // A policy that saves it wins, and the reason says over what.
  options.policy = *parseNamePolicy("save_only_these_names:query_proj");
  Plan policy = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(policy, query), Decision::Save);
  EXPECT_EQ(test::reasonOf(policy, query),
            "saved: checkpoint policy save_only_these_names:query_proj saves "
            "it (which wins over its prefer_recompute tag)");
}

TEST(PreferTags, ContradictionsThroughTheApiAreErrors) {
  struct Case {
    void (*tag)(Tags &);
    const char *message;
  } cases[] = {
      {[](Tags &t) { t.neverRecompute = t.preferRecompute = true; },
       "is tagged both never_recompute and prefer_recompute; remove one of "
       "the two tags"},
      {[](Tags &t) { t.mustRecompute = t.preferSave = true; },
       "is tagged both must_recompute and prefer_save; remove one of the two "
       "tags"},
      {[](Tags &t) { t.preferRecompute = t.preferSave = true; },
       "is tagged both prefer_recompute and prefer_save; remove one of the "
       "two tags"},
  };
  for (const Case &c : cases) {
    Graph graph = test::buildLlamaLayer();
    c.tag(graph.mutableOp(test::opNamed(graph, "query_proj")).tags);
    absl::StatusOr<Plan> plan =
        planRematerialization(graph, test::optionsFor(Strategy::MinCut));
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(contains(std::string(plan.status().message()), c.message))
        << plan.status();
  }
}

TEST(PreferTags, BudgetDropsPreferencesOnlyWhenNothingElseFits) {
  Graph graph = test::buildLlamaLayer();
  // Prefer to save every forward value.
  for (size_t id = 0; id < graph.numOps(); ++id) {
    GraphOp &op = graph.mutableOp(static_cast<OpId>(id));
    if (op.kind.rfind("bwd.", 0) != 0 && !op.tags.mustRecompute)
      op.tags.preferSave = true;
  }
  Graph untagged = test::buildLlamaLayer();
  PlanOptions options = test::optionsFor(Strategy::Budget);

  // Room for everything: the preferences hold, nothing is recomputed.
  Plan saveAll = test::planOrDie(untagged, test::optionsFor(Strategy::SaveAll));
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                saveAll.simulation.peakBytes, 0};
  Plan roomy = test::planOrDie(graph, options);
  EXPECT_EQ(roomy.simulation.numRecomputedEvaluations, 0);
  EXPECT_FALSE(roomy.preferencesDropped);
  EXPECT_FALSE(contains(toText(roomy, graph), "preferences_dropped"));

  // The smallest budget the untagged layer meets needs recomputation; the
  // tagged layer meets it too, by dropping the preferences, and says so.
  PlanOptions low = options;
  low.budget = *parseMemoryBudget("0.0");
  Plan lowest = test::planOrDie(untagged, low);
  ASSERT_GT(lowest.simulation.numRecomputedEvaluations, 0);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                lowest.simulation.peakBytes, 0};
  Plan tight = test::planOrDie(graph, options);
  EXPECT_LE(tight.simulation.peakBytes, lowest.simulation.peakBytes);
  bool explained = false;
  for (const ValueDecision &decision : tight.decisions)
    if (decision.decision == Decision::Recompute)
      explained |= contains(std::string(tight.reason(decision)),
                            "its prefer_save tag yields, as no plan "
                            "honouring the prefer_* tags fits the budget");
  EXPECT_TRUE(explained);
  // The plan records it too, and its text form says so in the header.
  EXPECT_TRUE(tight.preferencesDropped);
  const std::string text = toText(tight, graph);
  const std::string header = text.substr(0, text.find('\n'));
  const std::string flag = " preferences_dropped=1";
  ASSERT_GT(header.size(), flag.size());
  EXPECT_EQ(header.substr(header.size() - flag.size()), flag) << header;
  // The untagged layer has nothing to drop.
  EXPECT_FALSE(lowest.preferencesDropped);
}

} // namespace
} // namespace remat
