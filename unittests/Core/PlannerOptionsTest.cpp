//===- PlannerOptionsTest.cpp - Parsing, tags, contradictions, budget -----===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "BudgetError.h"
#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include <cmath>
#include <limits>

namespace remat {
namespace {

template <typename T>
void expectError(const absl::StatusOr<T> &result, std::string_view needle) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << needle;
  EXPECT_NE(result.status().message().find(std::string(needle)),
            std::string::npos)
      << result.status();
}

TEST(PlannerOptions, Strategies) {
  for (Strategy strategy :
       {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut,
        Strategy::Budget, Strategy::Optimal})
    EXPECT_EQ(*parseStrategy(toString(strategy)), strategy);
  expectError(parseStrategy("mincut"),
              "unknown strategy 'mincut'; valid strategies: save-all");
}

TEST(PlannerOptions, NamePolicies) {
  absl::StatusOr<NamePolicy> policy =
      parseNamePolicy("save_only_these_names: query_proj, key_proj");
  ASSERT_TRUE(policy.ok()) << policy.status();
  EXPECT_EQ(policy->kind, NamePolicy::Kind::SaveOnlyTheseNames);
  EXPECT_EQ(policy->names,
            (std::vector<std::string>{"query_proj", "key_proj"}));
  EXPECT_EQ(toString(*policy), "save_only_these_names:query_proj,key_proj");
  EXPECT_EQ(parseNamePolicy("dots_saveable")->kind,
            NamePolicy::Kind::DotsSaveable);
  EXPECT_EQ(parseNamePolicy("")->kind, NamePolicy::Kind::None);
  EXPECT_EQ(parseNamePolicy("none")->kind, NamePolicy::Kind::None);
  expectError(parseNamePolicy("save_dots"),
              "unknown checkpoint policy 'save_dots'; valid policies: "
              "save_only_these_names, save_any_names_but_these, dots_saveable");
  expectError(parseNamePolicy("save_only_these_names"),
              "needs names: write 'save_only_these_names:name1,name2'");
  expectError(parseNamePolicy("save_only_these_names:a,,b"), "empty name");
  expectError(parseNamePolicy("save_only_these_names:a,a"), "lists 'a' twice");
  expectError(parseNamePolicy("nothing_saveable:x"), "takes no names");
}

TEST(PlannerOptions, MemoryBudgets) {
  EXPECT_EQ(parseMemoryBudget("1073741824")->bytes, 1073741824);
  EXPECT_EQ(parseMemoryBudget("512MiB")->bytes, 512LL << 20);
  EXPECT_EQ(parseMemoryBudget("2GiB")->bytes, 2LL << 30);
  EXPECT_EQ(parseMemoryBudget("1.5 GB")->bytes, 1500000000);
  EXPECT_EQ(parseMemoryBudget("0")->kind, MemoryBudget::Kind::Bytes);
  EXPECT_TRUE(parseMemoryBudget("512MiB")->total); // bytes: the total peak
  EXPECT_EQ(toString(*parseMemoryBudget("activations:1KiB")),
            "activations:1024");
  absl::StatusOr<MemoryBudget> fraction = parseMemoryBudget("0.5");
  ASSERT_TRUE(fraction.ok());
  EXPECT_EQ(fraction->kind, MemoryBudget::Kind::Fraction);
  EXPECT_DOUBLE_EQ(fraction->fraction, 0.5);
  absl::StatusOr<MemoryBudget> peak = parseMemoryBudget("0.8peak");
  ASSERT_TRUE(peak.ok());
  EXPECT_EQ(peak->kind, MemoryBudget::Kind::FractionOfPeak);
  EXPECT_DOUBLE_EQ(peak->fraction, 0.8);
  EXPECT_EQ(toString(*peak), "0.8peak");
  expectError(parseMemoryBudget("1.5"), "a fraction must lie in [0, 1]");
  expectError(parseMemoryBudget("lots"), "memory budget 'lots'");
  expectError(parseMemoryBudget("-3MiB"), "not a non-negative number");
  expectError(parseMemoryBudget("0peak"), "must be a positive number");
  // Which peak the budget bounds (#16 item 2).
  absl::StatusOr<MemoryBudget> total = parseMemoryBudget("total:8GiB");
  ASSERT_TRUE(total.ok());
  EXPECT_TRUE(total->total);
  EXPECT_EQ(total->bytes, 8LL << 30);
  EXPECT_EQ(toString(*total), "total:8589934592");
  absl::StatusOr<MemoryBudget> activations =
      parseMemoryBudget("activations:1KiB");
  ASSERT_TRUE(activations.ok());
  EXPECT_FALSE(activations->total);
  EXPECT_EQ(activations->bytes, 1024);
  EXPECT_EQ(parseMemoryBudget("activations:0.5")->kind,
            MemoryBudget::Kind::Fraction);
  expectError(parseMemoryBudget("total:0.5"), "'total:' takes bytes");
  expectError(parseMemoryBudget("total:0.8peak"), "'total:' takes bytes");
  expectError(parseMemoryBudget("activations:total:1"),
              "two different bounds");
}

//===----------------------------------------------------------------------===//
// Tags and contradictions
//===----------------------------------------------------------------------===//

/// x -> a = relu(x) -> b = exp(a), with backward reading a and b.
Graph buildTwoOps(const Tags &aTags,
                  ComputeClass aClass = ComputeClass::Pointwise,
                  bool aReadsRng = true) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {8});
  ValueId seed =
      builder.input("seed", TensorType{{2}, DType::I64}, InputRole::RngState);
  ValueId a = builder.op("a_op", "relu", aClass, {aReadsRng ? seed : x},
                         builder.type({8}), "a");
  builder.producer(a).tags = aTags;
  ValueId b = builder.op("b_op", "exp", ComputeClass::Pointwise, {a, x},
                         builder.type({8}), "b");
  builder.graph().markOutput(b, OutputRole::Output);
  ValueId dy = builder.input("dy", {8}, InputRole::Tangent);
  ValueId g = builder.op("b_bwd", "mul", ComputeClass::Pointwise, {dy, a, b},
                         builder.type({8}));
  builder.graph().markOutput(g, OutputRole::Gradient);
  return builder.take();
}

TEST(PlannerTags, NeverAndMustRecomputeOnOneOpIsAnError) {
  Tags tags;
  tags.neverRecompute = true;
  tags.mustRecompute = true;
  Graph graph = buildTwoOps(tags);
  expectError(planRematerialization(graph, test::optionsFor(Strategy::MinCut)),
              "op pointwise a_op is tagged both never_recompute and "
              "must_recompute");
}

TEST(PlannerTags, MustRecomputeOnUnreproducibleRandomOpIsAnError) {
  Tags tags;
  tags.mustRecompute = true;
  Graph graph = buildTwoOps(tags, ComputeClass::Random, /*aReadsRng=*/false);
  expectError(planRematerialization(graph, test::optionsFor(Strategy::SaveAll)),
              "op random a_op is tagged must_recompute, but it is a random op "
              "whose RNG state is not a graph input");
  // With its RNG state as a graph input it is fine.
  Graph replayable = buildTwoOps(tags, ComputeClass::Random, true);
  Plan plan = test::planOrDie(replayable, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(test::decisionOf(plan, test::valueNamed(replayable, "a")),
            Decision::Recompute);
}

TEST(PlannerTags, ReasonsQuoteTheNoteOfATool) {
  // A tool (an exporter) that tags an op says why; the reasons citing the
  // tag quote it, so a user who wrote no tag learns where it came from.
  Tags tags;
  tags.neverRecompute = true;
  tags.note = "remat_torch: a torch.cond call";
  Graph graph = buildTwoOps(tags);
  PlanOptions options = test::optionsFor(Strategy::RecomputeAll);
  EXPECT_EQ(test::reasonOf(test::planOrDie(graph, options),
                           test::valueNamed(graph, "a")),
            "saved: tagged never_recompute (remat_torch: a torch.cond call)");
  options.policy = *parseNamePolicy("save_only_these_names:b");
  EXPECT_EQ(test::reasonOf(test::planOrDie(graph, options),
                           test::valueNamed(graph, "a")),
            "saved: tagged never_recompute (remat_torch: a torch.cond call) "
            "(which wins over checkpoint policy save_only_these_names:b)");

  // Min-cut's reason for `a` when its op carries only `tags`.
  auto minCutReason = [](const Tags &only) {
    Graph graph = buildTwoOps(only);
    return test::reasonOf(
        test::planOrDie(graph, test::optionsFor(Strategy::MinCut)),
        test::valueNamed(graph, "a"));
  };
  Tags forced;
  forced.mustRecompute = true;
  forced.note = "remat_torch: a torch.utils.checkpoint region";
  EXPECT_EQ(minCutReason(forced),
            "recomputed from seed: tagged must_recompute (remat_torch: a "
            "torch.utils.checkpoint region); the replay fuses into pointwise "
            "b_bwd");
  Tags preferred;
  preferred.preferSave = true;
  preferred.note = "remat_torch: a selective checkpoint policy";
  EXPECT_EQ(minCutReason(preferred),
            "saved: recomputing it needs pointwise a_op which is prefer_save "
            "(remat_torch: a selective checkpoint policy)");
}

TEST(PlannerTags, UnreproducibleRandomOpIsSavedWhateverAPolicySays) {
  // No tag: the op is random and reads no RNG state. The reason says why it
  // is saved, and that this wins over the policy that would recompute it.
  Graph graph = buildTwoOps(Tags{}, ComputeClass::Random, /*aReadsRng=*/false);
  ValueId a = test::valueNamed(graph, "a");
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  Plan plain = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(plain, a), Decision::Save);
  EXPECT_EQ(test::reasonOf(plain, a),
            "saved: recomputing it needs random a_op whose RNG state is not a "
            "graph input, so a replay would draw other numbers");
  options.policy = *parseNamePolicy("save_only_these_names:b");
  Plan policy = test::planOrDie(graph, options);
  EXPECT_EQ(test::decisionOf(policy, a), Decision::Save);
  EXPECT_EQ(
      test::reasonOf(policy, a),
      "saved: recomputing it needs random a_op whose RNG state is not a "
      "graph input, so a replay would draw other numbers (which wins over "
      "checkpoint policy save_only_these_names:b)");
}

TEST(PlannerTags, PolicySaveAgainstMustRecomputeNamesBoth) {
  Tags tags;
  tags.mustRecompute = true;
  Graph graph = buildTwoOps(tags);
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.policy = *parseNamePolicy("save_only_these_names:a");
  expectError(planRematerialization(graph, options),
              "checkpoint policy save_only_these_names:a saves 'a', but its "
              "producer op pointwise a_op is tagged must_recompute");
}

TEST(PlannerTags, UnknownPolicyNameIsAnError) {
  Graph graph = buildTwoOps(Tags{});
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.policy = *parseNamePolicy("save_any_names_but_these:c");
  expectError(planRematerialization(graph, options),
              "names 'c', but no forward value has that name; forward names: "
              "a, b");
}

TEST(PlannerTags, NoAutoRecomputeOnlyBindsAutomaticStrategies) {
  Tags tags;
  tags.noAutoRecompute = true;
  Graph graph = buildTwoOps(tags);
  ValueId a = test::valueNamed(graph, "a");
  Plan minCut = test::planOrDie(graph, test::optionsFor(Strategy::MinCut));
  EXPECT_EQ(test::decisionOf(minCut, a), Decision::Save);
  EXPECT_EQ(test::reasonOf(minCut, a),
            "saved: recomputing it needs pointwise a_op which is "
            "no_auto_recompute");
  // Full checkpointing is the user's choice, like a policy.
  Plan full = test::planOrDie(graph, test::optionsFor(Strategy::RecomputeAll));
  EXPECT_EQ(test::decisionOf(full, a), Decision::Recompute);
  PlanOptions policy = test::optionsFor(Strategy::MinCut);
  policy.policy = *parseNamePolicy("nothing_saveable");
  Plan forced = test::planOrDie(graph, policy);
  EXPECT_EQ(test::decisionOf(forced, a), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(forced, a),
            "recomputed from seed: checkpoint policy nothing_saveable does "
            "not save it; the replay fuses into pointwise b_bwd");
  // The output b is live anyway: saved for free, whatever the policy says.
  EXPECT_EQ(test::reasonOf(forced, test::valueNamed(graph, "b")),
            "saved: it is a function result, live until the end anyway");
}

TEST(PlannerTags, LargeReductionsAreNotRecomputedAutomatically) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {64});
  ValueId e = builder.op("exp", "exp", ComputeClass::Pointwise, {x},
                         builder.type({64}), "e");
  ValueId small = builder.op("rowsum", "sum", ComputeClass::Reduction, {e},
                             builder.type({8}), "small");
  ValueId big = builder.op("halfsum", "sum", ComputeClass::Reduction, {e},
                           builder.type({32}), "big");
  ValueId out = builder.op("combine", "mul", ComputeClass::Pointwise,
                           {small, big}, builder.type({8}), "out");
  builder.graph().markOutput(out, OutputRole::Output);
  ValueId dy = builder.input("dy", {8}, InputRole::Tangent);
  ValueId g = builder.op("combine_bwd", "mul", ComputeClass::Pointwise,
                         {dy, small, big}, builder.type({64}));
  builder.graph().markOutput(g, OutputRole::Gradient);
  Graph graph = builder.take();
  Plan plan = test::planOrDie(graph, test::optionsFor(Strategy::MinCut));
  EXPECT_EQ(test::decisionOf(plan, small), Decision::Save);
  EXPECT_EQ(test::reasonOf(plan, small),
            "saved: recomputing it needs reduction rowsum whose output is less "
            "than 1/4 of its input (not recomputed automatically)");
  // A reduction to half its input may be recomputed, but recomputing it
  // needs e or x (256 B each), so min-cut keeps it (128 B).
  EXPECT_EQ(test::reasonOf(plan, big),
            "saved: keeping it (128 B) costs less than keeping what "
            "recomputing it needs plus its replay time at 3.19 MiB per us "
            "(min-cut)");
}

//===----------------------------------------------------------------------===//
// Budget
//===----------------------------------------------------------------------===//

// A total budget bounds the activation peak plus the inputs, parameters and
// tangents: the plan is the one at the activation budget that leaves.
TEST(PlannerBudget, TotalBudgetsLeaveTheResidentBytesOut) {
  Graph graph = test::buildLlamaLayer();
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("0.5");
  Plan activations = test::planOrDie(graph, options);
  const SimulationResult &sim = activations.simulation;
  const int64_t resident =
      sim.inputBytes + sim.parameterBytes + sim.tangentBytes;
  ASSERT_GT(resident, 0);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes,
                                *activations.budgetBytes + resident, 0, true};
  Plan total = test::planOrDie(graph, options);
  EXPECT_EQ(total.budgetBytes, activations.budgetBytes);
  EXPECT_EQ(total.schedule.steps, activations.schedule.steps);
  // Below the resident bytes: the error says what the total leaves (0) and
  // names the smallest activation peak, and how the total relates to it.
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, resident - 1, 0,
                                true};
  absl::StatusOr<Plan> tight = planRematerialization(graph, options);
  ASSERT_FALSE(tight.ok());
  EXPECT_EQ(tight.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(tight.status().message().find(absl::StrCat(
                "It leaves 0 B (0 bytes) for activations once the graph's "
                "inputs, parameters and tangents")),
            std::string::npos)
      << tight.status();
  // The smallest activation peak travels with the error, and the advice
  // gives it as a total (the figure to pass back as total:<bytes>).
  std::optional<int64_t> smallest = smallestPeakOf(tight.status());
  ASSERT_TRUE(smallest.has_value()) << tight.status();
  EXPECT_NE(tight.status().message().find(absl::StrCat(
                "is infeasible: raise it to at least total:",
                *smallest + resident, " (")),
            std::string::npos)
      << tight.status();
  options.budget =
      MemoryBudget{MemoryBudget::Kind::Bytes, *smallest + resident, 0, true};
  EXPECT_TRUE(planRematerialization(graph, options).ok());
  // Parsed bytes bound the total peak; `activations:` the activation peak.
  EXPECT_TRUE(parseMemoryBudget("8GiB")->total);
  EXPECT_FALSE(parseMemoryBudget("activations:8GiB")->total);
  EXPECT_FALSE(parseMemoryBudget("0.5")->total);
  options.budget = *parseMemoryBudget(
      absl::StrCat(*activations.budgetBytes + resident));
  Plan bare = test::planOrDie(graph, options);
  EXPECT_EQ(bare.budgetTotalBytes, *activations.budgetBytes + resident);
  EXPECT_EQ(bare.schedule.steps, activations.schedule.steps);
}

TEST(PlannerBudget, InfeasibleBudgetNamesTheSmallestFeasibleOne) {
  Graph graph = test::buildLlamaLayer();
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("0.0");
  Plan lowest = test::planOrDie(graph, options);
  int64_t smallest = lowest.simulation.peakBytes;
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, smallest - 1, 0};
  absl::StatusOr<Plan> infeasible = planRematerialization(graph, options);
  ASSERT_FALSE(infeasible.ok());
  EXPECT_EQ(infeasible.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(infeasible.status().message().find(absl::StrCat(
                "raise the budget to at least ", smallest, " bytes")),
            std::string::npos)
      << infeasible.status();
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, smallest, 0};
  EXPECT_TRUE(planRematerialization(graph, options).ok());
  options.budget.reset();
  expectError(planRematerialization(graph, options),
              "strategy budget needs a memory budget");
}

TEST(PlannerBudget, PeakAndTimeAreMonotonicInTheBudget) {
  for (bool regularizer : {false, true}) {
    test::LlamaOptions llama;
    llama.mlpOutputRegularizer = regularizer;
    // f32, so that the inexact derivation of mlpwo is a candidate.
    llama.dtype = regularizer ? DType::F32 : DType::BF16;
    Graph graph = test::buildLlamaLayer(llama);
    PlanOptions options = test::optionsFor(Strategy::Budget);
    options.allowInexactDerivation = regularizer;
    options.budget = *parseMemoryBudget("0.0");
    int64_t low = test::planOrDie(graph, options).simulation.peakBytes;
    Plan saveAll = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
    int64_t high = saveAll.simulation.peakBytes + 1;
    int64_t previousPeak = 0;
    double previousTime = 1e300;
    for (int i = 0; i <= 64; ++i) {
      int64_t budget = low + (high - low) * i / 64;
      options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, budget, 0};
      Plan plan = test::planOrDie(graph, options);
      EXPECT_LE(plan.simulation.peakBytes, budget);
      EXPECT_GE(plan.simulation.peakBytes, previousPeak) << budget;
      EXPECT_LE(plan.simulation.recomputeTimeUs, previousTime) << budget;
      previousPeak = plan.simulation.peakBytes;
      previousTime = plan.simulation.recomputeTimeUs;
    }
    // With room for everything, nothing is recomputed.
    EXPECT_EQ(previousTime, 0);
  }
}

TEST(PlannerBudget, FractionsSpanTheRange) {
  Graph graph = test::buildMegatronLayer({256, 2, 512, 8});
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("0.0");
  Plan low = test::planOrDie(graph, options);
  options.budget = *parseMemoryBudget("1.0");
  Plan high = test::planOrDie(graph, options);
  Plan saveAll = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(*high.budgetBytes, saveAll.simulation.peakBytes);
  EXPECT_EQ(high.simulation.recomputeTimeUs, 0);
  EXPECT_LT(low.simulation.peakBytes, high.simulation.peakBytes);
  EXPECT_GT(low.simulation.recomputeTimeUs, 0);
  options.budget = *parseMemoryBudget("0.5");
  Plan middle = test::planOrDie(graph, options);
  EXPECT_EQ(*middle.budgetBytes,
            low.simulation.peakBytes +
                (saveAll.simulation.peakBytes - low.simulation.peakBytes) / 2);
  options.budget = *parseMemoryBudget("0.9peak");
  Plan peak = test::planOrDie(graph, options);
  EXPECT_EQ(*peak.budgetBytes,
            static_cast<int64_t>(0.9 * saveAll.simulation.peakBytes));
  EXPECT_LE(peak.simulation.peakBytes, *peak.budgetBytes);
}

TEST(PlannerBudget, SearchEffortIsValidatedAndNeverWorse) {
  Graph graph = test::buildMegatronLayer({256, 2, 512, 8});
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("0.3");
  for (double bad : {0.0, -1.0, std::nan(""), 1001.0,
                     std::numeric_limits<double>::infinity()}) {
    options.budgetSearchEffort = bad;
    expectError(planRematerialization(graph, options),
                "is not above 0 and at most 1000");
  }
  // Less effort may search less; more never plans worse than the default
  // (the default's candidates stay), at every budget.
  for (std::string_view budget : {"0.0", "0.3", "0.7"}) {
    options.budget = *parseMemoryBudget(budget);
    options.budgetSearchEffort = 1;
    Plan standard = test::planOrDie(graph, options);
    options.budgetSearchEffort = 0.01;
    Plan less = test::planOrDie(graph, options);
    EXPECT_LE(less.simulation.peakBytes, *less.budgetBytes) << budget;
    options.budgetSearchEffort = 8;
    Plan more = test::planOrDie(graph, options);
    EXPECT_LE(more.simulation.peakBytes, *more.budgetBytes) << budget;
    EXPECT_LE(more.simulation.recomputeTimeUs,
              standard.simulation.recomputeTimeUs)
        << budget;
  }
}

} // namespace
} // namespace remat

namespace remat {
namespace {

TEST(PlanText, IsStableAndComplete) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId a = builder.op("sin", "sin", ComputeClass::Pointwise, {x},
                         builder.type({4}), "a");
  ValueId b = builder.op("cos", "cos", ComputeClass::Pointwise, {a},
                         builder.type({4}), "b");
  builder.graph().markOutput(b, OutputRole::Output);
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId ga = builder.op("cos_bwd", "mul", ComputeClass::Pointwise, {dy, a},
                          builder.type({4}));
  ValueId gx = builder.op("sin_bwd", "mul", ComputeClass::Pointwise, {ga, x},
                          builder.type({4}));
  builder.graph().markOutput(gx, OutputRole::Gradient);
  Graph graph = builder.take();
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.target = *getTargetPreset("cpu");
  Plan plan = test::planOrDie(graph, options);
  std::string text = toText(plan, graph);
  // x (16 B) is cheaper to keep than a (16 B, but an intermediate), so a is
  // replayed from x just before cos_bwd.
  EXPECT_EQ(text.substr(text.find('\n') + 1),
            "%0 x input: input: backward reads this function input\n"
            "%1 a recompute: recomputed from x (cheaper than saving 16 B, "
            "replay time weighed at 300 KiB per us); the replay fuses into "
            "pointwise cos_bwd [replays ops 0]\n"
            "%2 b not-needed: not needed by backward: the backward of "
            "pointwise cos reads only its inputs\n"
            "schedule 0,1,0,2,3\n");
  EXPECT_EQ(text.rfind("plan strategy=min-cut target=cpu budget=- peak=", 0),
            0u)
      << text;
}

} // namespace
} // namespace remat
