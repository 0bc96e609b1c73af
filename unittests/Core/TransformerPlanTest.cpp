//===- TransformerPlanTest.cpp - Megatron and Llama layers ----------------===//
//
// Part of remat. Korthikanti et al.'s activation counts for a GPT layer,
// and the two user stories of REFERENCES.md on a Llama-style layer.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "absl/strings/match.h"

namespace remat {
namespace {

using test::LayerShape;

class MegatronLayer : public ::testing::TestWithParam<LayerShape> {};

TEST_P(MegatronLayer, SaveAllSavesTheFullActivationCount) {
  const LayerShape shape = GetParam();
  Graph graph = test::buildMegatronLayer(shape);
  Plan plan = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  const int64_t sbh = shape.s * shape.b * shape.h;
  // sbh(34 + 5as/h) = 34sbh + 5as^2b.
  EXPECT_EQ(plan.simulation.savedBytes,
            34 * sbh + 5 * shape.a * shape.s * shape.s * shape.b);
  EXPECT_EQ(plan.simulation.numRecomputedEvaluations, 0);
}

TEST_P(MegatronLayer, SelectivePolicySaves34sbh) {
  const LayerShape shape = GetParam();
  Graph graph = test::buildMegatronLayer(shape);
  PlanOptions options = test::optionsFor(Strategy::SaveAll);
  NamePolicy policy;
  policy.kind = NamePolicy::Kind::SaveAnyNamesButThese;
  policy.names = test::megatronAttentionCoreNames();
  options.policy = policy;
  Plan plan = test::planOrDie(graph, options);
  const int64_t sbh = shape.s * shape.b * shape.h;
  EXPECT_EQ(plan.simulation.savedBytes, 34 * sbh);
  ValueId probs = test::valueNamed(graph, "attn_probs");
  EXPECT_EQ(test::decisionOf(plan, probs), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(plan, probs),
            "recomputed from q, k: checkpoint policy "
            "save_any_names_but_these:attn_scores,attn_probs,attn_dropout_mask,"
            "attn_dropout does not save it");
  // QK^T is replayed although matmuls are not recomputed automatically:
  // the policy asked for it.
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "qk")), 2);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "attn_v")), 1);
}

TEST_P(MegatronLayer, RecomputeAllSavesOnlyTheLayerInput) {
  const LayerShape shape = GetParam();
  Graph graph = test::buildMegatronLayer(shape);
  Plan plan = test::planOrDie(graph, test::optionsFor(Strategy::RecomputeAll));
  EXPECT_EQ(plan.simulation.savedBytes, 2 * shape.s * shape.b * shape.h);
  EXPECT_EQ(test::decisionOf(plan, test::valueNamed(graph, "x")),
            Decision::Input);
  // The dropout masks are replayed from the RNG state, not saved.
  EXPECT_EQ(
      test::decisionOf(plan, test::valueNamed(graph, "attn_dropout_mask")),
      Decision::Recompute);
}

TEST_P(MegatronLayer, MinCutSavesLessThanSaveAll) {
  const LayerShape shape = GetParam();
  Graph graph = test::buildMegatronLayer(shape);
  Plan saveAll = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  Plan minCut = test::planOrDie(graph, test::bytesOnlyMinCut());
  EXPECT_LT(minCut.simulation.savedBytes, saveAll.simulation.savedBytes);
  // Matmul results backward reads stay saved under min-cut.
  EXPECT_EQ(test::decisionOf(minCut, test::valueNamed(graph, "context")),
            Decision::Save);
}

INSTANTIATE_TEST_SUITE_P(Shapes, MegatronLayer,
                         ::testing::Values(LayerShape{2048, 4, 4096, 32},
                                           LayerShape{512, 8, 1024, 16},
                                           LayerShape{4096, 1, 12288, 96}));

//===----------------------------------------------------------------------===//
// Llama-style layer
//===----------------------------------------------------------------------===//

int attentionEvaluations(const Graph &graph, const Plan &plan) {
  return test::evaluations(plan, test::opNamed(graph, "attention"));
}

TEST(LlamaLayer, AutomaticStrategiesNeverRecomputeTaggedAttention) {
  Graph graph = test::buildLlamaLayer();
  Plan minCut = test::planOrDie(graph, test::optionsFor(Strategy::MinCut));
  EXPECT_EQ(attentionEvaluations(graph, minCut), 1);
  ValueId context = test::valueNamed(graph, "context");
  EXPECT_EQ(test::decisionOf(minCut, context), Decision::Save);
  EXPECT_EQ(test::reasonOf(minCut, context),
            "saved: recomputing it needs attention attention which is "
            "no_auto_recompute");
  for (const char *budget : {"0.0", "0.25", "0.5", "1.0", "0.7peak"}) {
    PlanOptions options = test::optionsFor(Strategy::Budget);
    options.budget = *parseMemoryBudget(budget);
    absl::StatusOr<Plan> plan = planRematerialization(graph, options);
    if (!plan.ok()) {
      EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted)
          << budget << ": " << plan.status();
      continue;
    }
    EXPECT_EQ(attentionEvaluations(graph, *plan), 1) << budget;
    EXPECT_LE(plan->simulation.peakBytes, *plan->budgetBytes) << budget;
  }
}

TEST(LlamaLayer, MatmulReasonNamesTheOp) {
  Graph graph = test::buildLlamaLayer();
  Plan plan = test::planOrDie(graph, test::bytesOnlyMinCut());
  ValueId query = test::valueNamed(graph, "query_proj");
  EXPECT_EQ(test::decisionOf(plan, query), Decision::Save);
  // query_proj carries no tag: the automatic ban on compute-intensive ops
  // is what applies, and the reason says so.
  EXPECT_EQ(test::reasonOf(plan, query),
            "saved: recomputing it needs matmul query_proj which is "
            "compute-intensive (matmul, conv and attention are not recomputed "
            "automatically; a policy or must_recompute can allow it)");
  ValueId norm = test::valueNamed(graph, "post_attention_norm");
  EXPECT_EQ(test::decisionOf(plan, norm), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(plan, norm),
            "recomputed from h (cheaper than saving 4 MiB)");
}

TEST(LlamaLayer, UserPolicyMayRecomputeNoAutoRecomputeAttention) {
  Graph graph = test::buildLlamaLayer();
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.policy =
      *parseNamePolicy("save_only_these_names:query_proj,key_proj,value_proj");
  Plan plan = test::planOrDie(graph, options);
  EXPECT_EQ(attentionEvaluations(graph, plan), 2);
  ValueId context = test::valueNamed(graph, "context");
  EXPECT_EQ(test::decisionOf(plan, context), Decision::Recompute);
  EXPECT_NE(test::reasonOf(plan, context)
                .find("checkpoint policy save_only_these_names:query_proj,"
                      "key_proj,value_proj does not save it"),
            std::string::npos)
      << test::reasonOf(plan, context);
}

TEST(LlamaLayer, NeverRecomputeWinsOverAPolicy) {
  test::LlamaOptions llama;
  llama.attentionNeverRecompute = true;
  Graph graph = test::buildLlamaLayer(llama);
  for (Strategy strategy : {Strategy::SaveAll, Strategy::RecomputeAll,
                            Strategy::MinCut, Strategy::Budget}) {
    PlanOptions options = test::optionsFor(strategy);
    options.policy = *parseNamePolicy(
        "save_only_these_names:query_proj,key_proj,value_proj");
    options.budget = *parseMemoryBudget("0.0");
    Plan plan = test::planOrDie(graph, options);
    EXPECT_EQ(attentionEvaluations(graph, plan), 1) << toString(strategy);
    EXPECT_EQ(test::reasonOf(plan, test::valueNamed(graph, "context")),
              "saved: tagged never_recompute (which wins over checkpoint "
              "policy save_only_these_names:query_proj,key_proj,value_proj)")
        << toString(strategy);
  }
}

TEST(LlamaLayer, MlpwoOutputIsNotNeeded) {
  Graph graph = test::buildLlamaLayer();
  for (Strategy strategy :
       {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
    Plan plan = test::planOrDie(graph, test::optionsFor(strategy));
    ValueId mlpwo = test::valueNamed(graph, "mlpwo");
    EXPECT_EQ(test::decisionOf(plan, mlpwo), Decision::NotNeeded);
    EXPECT_EQ(test::reasonOf(plan, mlpwo),
              "not needed by backward: the backward of matmul mlpwo reads "
              "only its inputs");
  }
}

TEST(LlamaLayer, ResidualValueIsDerivedWhenInexactDerivationIsAllowed) {
  test::LlamaOptions llama;
  llama.mlpOutputRegularizer = true;
  llama.dtype = DType::F32;
  Graph graph = test::buildLlamaLayer(llama);
  ValueId mlpwo = test::valueNamed(graph, "mlpwo");
  PlanOptions exactOnly = test::optionsFor(Strategy::MinCut);
  Plan saved = test::planOrDie(graph, exactOnly);
  EXPECT_EQ(test::decisionOf(saved, mlpwo), Decision::Save);
  EXPECT_FALSE(saved.usesInexactDerivation);

  PlanOptions inexact = exactOnly;
  inexact.allowInexactDerivation = true;
  Plan derived = test::planOrDie(graph, inexact);
  EXPECT_EQ(test::decisionOf(derived, mlpwo), Decision::Derive);
  // The reason says what the derivation won against: the save.
  EXPECT_TRUE(absl::StartsWith(
      test::reasonOf(derived, mlpwo),
      "derived as layer_out - h (inexact: floating-point rounding may "
      "differ); 8 MiB less saved for "))
      << test::reasonOf(derived, mlpwo);
  EXPECT_TRUE(derived.usesInexactDerivation);
  const ValueDecision *decision = derived.find(mlpwo);
  ASSERT_TRUE(decision && decision->derivation);
  EXPECT_FALSE(decision->derivation->exact);
  EXPECT_EQ(decision->derivation->rule.kind, InverseKind::SubtractOther);
  // Saving it cost s*b*h f32 values; the derivation costs no memory.
  const test::LayerShape shape = llama.shape;
  EXPECT_EQ(saved.simulation.savedBytes - derived.simulation.savedBytes,
            4 * shape.s * shape.b * shape.h);
  EXPECT_EQ(derived.simulation.numDerivations, 1);
  EXPECT_LE(derived.simulation.peakBytes, saved.simulation.peakBytes);

  // An exact rule is used without the option.
  Graph exactGraph = graph;
  for (size_t id = 0; id < exactGraph.numOps(); ++id)
    for (InverseRule &rule :
         exactGraph.mutableOp(static_cast<OpId>(id)).inverseRules)
      rule.exact = true;
  Plan exactPlan = test::planOrDie(exactGraph, exactOnly);
  EXPECT_EQ(test::decisionOf(exactPlan, mlpwo), Decision::Derive);
  EXPECT_TRUE(absl::StartsWith(test::reasonOf(exactPlan, mlpwo),
                               "derived as layer_out - h; 8 MiB less saved"))
      << test::reasonOf(exactPlan, mlpwo);
  EXPECT_FALSE(exactPlan.usesInexactDerivation);
}

// Issue #16's case: under save_only_these_names:mlpwo the policy recomputes
// the residual stream h; a derivation satisfies "recompute" (h is not
// saved), and h = layer_out - mlpwo costs one fused subtraction where the
// replay runs the output projection. The recompute time drops by that
// projection's replay.
TEST(LlamaLayer, PolicyRecomputeIsSatisfiedByADerivation) {
  test::LlamaOptions llama;
  llama.dtype = DType::F32;
  Graph graph = test::buildLlamaLayer(llama);
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.policy = *parseNamePolicy("save_only_these_names:mlpwo");
  Plan replayed = test::planOrDie(graph, options);
  ValueId h = test::valueNamed(graph, "h");
  ValueId mlpwo = test::valueNamed(graph, "mlpwo");
  ASSERT_EQ(test::decisionOf(replayed, h), Decision::Recompute);

  options.allowInexactDerivation = true;
  Plan derived = test::planOrDie(graph, options);
  ASSERT_EQ(test::decisionOf(derived, h), Decision::Derive)
      << test::reasonOf(derived, h);
  const ValueDecision *decision = derived.find(h);
  ASSERT_TRUE(decision && decision->derivation);
  EXPECT_EQ(decision->derivation->from.back(), mlpwo);
  EXPECT_NE(test::decisionOf(derived, mlpwo), Decision::Recompute);
  // The reason says what won and by how much.
  EXPECT_NE(test::reasonOf(derived, h).find(" us of replay"),
            std::string::npos)
      << test::reasonOf(derived, h);

  CostModel costModel(options.target);
  SimulationTables tables = buildSimulationTables(graph, costModel);
  const double outProj = tables.replayTimeUs[test::opNamed(graph, "out_proj")];
  ASSERT_GT(outProj, 0);
  const double drop = replayed.simulation.recomputeTimeUs -
                      derived.simulation.recomputeTimeUs;
  // Replaying h's add and deriving h both fuse into h's readers: what is
  // left is the projection, within the fused arithmetic of the two.
  EXPECT_NEAR(drop, outProj, 0.01 * outProj);
  EXPECT_EQ(derived.simulation.savedBytes - replayed.simulation.savedBytes,
            graph.value(mlpwo).type.bytes());
}

TEST(LlamaLayer, SixteenBitValuesAreNeverDerivedInexactly) {
  // `mlpwo = layer_out - h` in bf16 cancels most of mlpwo's 8 significand
  // bits (executed: gradients off by up to 16x), so even with inexact
  // derivation allowed the bf16 layer saves mlpwo; exact rules still apply.
  for (DType dtype : {DType::BF16, DType::F16}) {
    test::LlamaOptions llama;
    llama.mlpOutputRegularizer = true;
    llama.dtype = dtype;
    Graph graph = test::buildLlamaLayer(llama);
    ValueId mlpwo = test::valueNamed(graph, "mlpwo");
    PlanOptions inexact = test::optionsFor(Strategy::MinCut);
    inexact.allowInexactDerivation = true;
    Plan plan = test::planOrDie(graph, inexact);
    EXPECT_EQ(test::decisionOf(plan, mlpwo), Decision::Save) << toString(dtype);
    EXPECT_FALSE(plan.usesInexactDerivation) << toString(dtype);

    for (size_t id = 0; id < graph.numOps(); ++id)
      for (InverseRule &rule :
           graph.mutableOp(static_cast<OpId>(id)).inverseRules)
        rule.exact = true;
    Plan exactPlan = test::planOrDie(graph, inexact);
    EXPECT_EQ(test::decisionOf(exactPlan, mlpwo), Decision::Derive)
        << toString(dtype);
  }
}

} // namespace
} // namespace remat
