//===- MinCutTimeTest.cpp - min-cut weighing bytes against time -----------===//
//
// Part of remat. min-cut minimises saved bytes plus the exchange rate times
// the predicted time of the forward ops it replays (issue #16 item 4): a
// replay is charged once per op, a fused elementwise replay its arithmetic
// alone, any other replay its kernel.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "remat/Core/CostModel.h"

namespace remat {
namespace {

using test::GraphBuilder;

constexpr int64_t kElements = 1 << 20; // 4 MiB of f32

PlanOptions minCutAt(std::optional<double> bytesPerUs) {
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.exchangeRateBytesPerUs = bytesPerUs;
  return options;
}

/// x -> cos -> cos -> cos, each backward op reading its forward op's input,
/// as PyTorch's cos-cos-cos case, at 4 MiB per value.
Graph cosChain() {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {kElements});
  ValueId c1 = builder.op("cos1", "cos", ComputeClass::Pointwise, {x},
                          builder.type({kElements}), "c1");
  ValueId c2 = builder.op("cos2", "cos", ComputeClass::Pointwise, {c1},
                          builder.type({kElements}), "c2");
  ValueId c3 = builder.op("cos3", "cos", ComputeClass::Pointwise, {c2},
                          builder.type({kElements}), "c3");
  builder.graph().markOutput(c3, OutputRole::Output);
  ValueId g3 = builder.input("dc3", builder.type({kElements}),
                             InputRole::Tangent);
  ValueId g2 = builder.op("cos3_bwd", "bwd", ComputeClass::Pointwise, {g3, c2},
                          builder.type({kElements}));
  ValueId g1 = builder.op("cos2_bwd", "bwd", ComputeClass::Pointwise, {g2, c1},
                          builder.type({kElements}));
  ValueId gx = builder.op("cos1_bwd", "bwd", ComputeClass::Pointwise, {g1, x},
                          builder.type({kElements}));
  builder.graph().markOutput(gx, OutputRole::Gradient);
  return builder.take();
}

TEST(MinCutTime, TargetsCarryAnExchangeRate) {
  for (std::string_view name : {"h100", "h200", "a100", "mi300x", "cpu"}) {
    absl::StatusOr<TargetSpec> target = getTargetPreset(name);
    ASSERT_TRUE(target.ok()) << name;
    EXPECT_GT(target->exchangeRateBytesPerUs, 0) << name;
    EXPECT_EQ(target->exchangeRateBytesPerUs, defaultExchangeRate(*target))
        << name;
    EXPECT_TRUE(target->fusesPointwise) << name;
  }
  // A custom target's rate follows its bandwidth unless given.
  absl::StatusOr<TargetSpec> custom =
      parseTargetJson(R"({"base": "h100", "memory_bandwidth": 1e12})");
  ASSERT_TRUE(custom.ok()) << custom.status();
  EXPECT_EQ(custom->exchangeRateBytesPerUs, defaultExchangeRate(*custom));
  absl::StatusOr<TargetSpec> given = parseTargetJson(
      R"({"base": "h100", "exchange_rate": 1000, "fuses": 0})");
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_EQ(given->exchangeRateBytesPerUs, 1000);
  EXPECT_FALSE(given->fusesPointwise);
  absl::StatusOr<TargetSpec> bad =
      parseTargetJson(R"({"base": "h100", "fuses": 2})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"fuses\" is 2; it must be 1"),
            std::string::npos)
      << bad.status();
}

TEST(MinCutTime, ParseExchangeRate) {
  EXPECT_EQ(*parseExchangeRate("0"), 0);
  EXPECT_EQ(*parseExchangeRate("300000"), 300000);
  EXPECT_EQ(*parseExchangeRate("2.5e5"), 250000);
  EXPECT_EQ(*parseExchangeRate("256KiB"), 256 * 1024);
  EXPECT_EQ(*parseExchangeRate(" 1MB/us "), 1e6);
  for (std::string_view bad :
       {"", "-1", "fast", "0.5peak", "total:1GiB", "inf", "nan", "1MB/s"}) {
    absl::StatusOr<double> rate = parseExchangeRate(bad);
    ASSERT_FALSE(rate.ok()) << bad;
    EXPECT_NE(rate.status().message().find("is not an exchange rate"),
              std::string::npos)
        << rate.status();
  }
  PlanOptions negative = minCutAt(-1);
  absl::StatusOr<Plan> plan = planRematerialization(cosChain(), negative);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("not a non-negative finite"),
            std::string::npos)
      << plan.status();
}

// A fused elementwise replay costs its arithmetic only: at the default rate
// the cos chain is replayed as PyTorch replays it; on a target that does
// not fuse (eager), each replay is a kernel worth more than 4 MiB, and the
// values are saved.
TEST(MinCutTime, FusedElementwiseReplaysAreCheap) {
  Graph graph = cosChain();
  ValueId c1 = test::valueNamed(graph, "c1");
  ValueId c2 = test::valueNamed(graph, "c2");

  Plan fused = test::planOrDie(graph, minCutAt(std::nullopt));
  EXPECT_EQ(fused.exchangeRateBytesPerUs,
            defaultExchangeRate(*getTargetPreset("h100")));
  EXPECT_EQ(test::decisionOf(fused, c1), Decision::Recompute);
  EXPECT_EQ(test::decisionOf(fused, c2), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(fused, c1),
            "recomputed from x (cheaper than saving 4 MiB, replay time "
            "weighed at 3.19 MiB per us); the replay fuses into pointwise "
            "cos2_bwd");

  PlanOptions eager = minCutAt(std::nullopt);
  eager.target.fusesPointwise = false;
  Plan unfused = test::planOrDie(graph, eager);
  EXPECT_EQ(test::decisionOf(unfused, c1), Decision::Save);
  EXPECT_EQ(test::decisionOf(unfused, c2), Decision::Save);
  EXPECT_EQ(test::reasonOf(unfused, c1),
            "saved: keeping it (4 MiB) costs less than keeping what "
            "recomputing it needs plus its replay time at 3.19 MiB per us "
            "(min-cut)");
  EXPECT_EQ(unfused.simulation.recomputeTimeUs, 0);

  // Weighing bytes alone replays the chain on either target.
  eager.exchangeRateBytesPerUs = 0;
  Plan bytesOnly = test::planOrDie(graph, eager);
  EXPECT_EQ(test::decisionOf(bytesOnly, c1), Decision::Recompute);
  EXPECT_EQ(bytesOnly.exchangeRateBytesPerUs, 0);
  EXPECT_EQ(test::reasonOf(bytesOnly, c1),
            "recomputed from x (cheaper than saving 4 MiB)");
}

// A value a matmul reads in backward is materialised there anyway, so its
// replay is its own kernel even on a fusing target (PyTorch's "materialised
// in backward").
TEST(MinCutTime, ValuesAMatmulReadsAreNotFused) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {1024, 1024});
  ValueId w = builder.input("w", {1024, 1024}, InputRole::Parameter);
  ValueId r = builder.op("relu", "relu", ComputeClass::Pointwise, {x},
                         builder.type({1024, 1024}), "r");
  ValueId y = builder.op("mm", "matmul", ComputeClass::Matmul, {r, w},
                         builder.type({1024, 1024}), "y");
  builder.graph().markOutput(y, OutputRole::Output);
  ValueId dy = builder.input("dy", builder.type({1024, 1024}),
                             InputRole::Tangent);
  ValueId dw = builder.op("mm_bwd_w", "matmul", ComputeClass::Matmul, {r, dy},
                          builder.type({1024, 1024}));
  ValueId dr = builder.op("mm_bwd_x", "matmul", ComputeClass::Matmul, {dy, w},
                          builder.type({1024, 1024}));
  ValueId dx = builder.op("relu_bwd", "bwd", ComputeClass::Pointwise, {dr, x},
                          builder.type({1024, 1024}));
  builder.graph().markOutput(dw, OutputRole::Gradient);
  builder.graph().markOutput(dx, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = test::planOrDie(graph, minCutAt(std::nullopt));
  EXPECT_EQ(test::decisionOf(plan, r), Decision::Save);
  Plan bytesOnly = test::planOrDie(graph, test::bytesOnlyMinCut());
  EXPECT_EQ(test::decisionOf(bytesOnly, r), Decision::Recompute);
}

// An op with two results is charged once when the cut replays it for both:
// with its time worth 1.5x one result's bytes, replaying it (for both) is
// cheaper than saving both; at 2.5x saving wins. Charging each result
// separately would save at 1.5x too.
TEST(MinCutTime, AnOpWithSeveralResultsIsChargedOnce) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {kElements});
  std::vector<ValueId> parts = builder.multiOp(
      "norm", "norm", ComputeClass::Normalization, {x},
      {builder.type({kElements}), builder.type({kElements})}, {"a", "b"});
  builder.producer(parts[0]).fixedTimeUs = 1;
  ValueId sum = builder.op("add", "add", ComputeClass::Pointwise,
                           {parts[0], parts[1]}, builder.type({kElements}),
                           "sum");
  builder.graph().markOutput(sum, OutputRole::Output);
  ValueId ds = builder.input("dsum", builder.type({kElements}),
                             InputRole::Tangent);
  ValueId dx = builder.op("norm_bwd", "bwd", ComputeClass::Pointwise,
                          {ds, parts[0], parts[1], x},
                          builder.type({kElements}));
  builder.graph().markOutput(dx, OutputRole::Gradient);
  Graph graph = builder.take();
  const double bytes = 4.0 * kElements;

  Plan cheap = test::planOrDie(graph, minCutAt(1.5 * bytes));
  EXPECT_EQ(test::decisionOf(cheap, parts[0]), Decision::Recompute);
  EXPECT_EQ(test::decisionOf(cheap, parts[1]), Decision::Recompute);
  EXPECT_EQ(test::evaluations(cheap, test::opNamed(graph, "norm")), 2);

  Plan dear = test::planOrDie(graph, minCutAt(2.5 * bytes));
  EXPECT_EQ(test::decisionOf(dear, parts[0]), Decision::Save);
  EXPECT_EQ(test::decisionOf(dear, parts[1]), Decision::Save);
  EXPECT_EQ(test::evaluations(dear, test::opNamed(graph, "norm")), 1);
}

// The rate moves min-cut along the memory/time curve: saved bytes grow and
// predicted recompute time falls (weakly) as the rate rises, on the Llama
// layer of the transformer tests, up to save-all. (Eager costs, so that the
// time the cut weighs is the simulator's.)
TEST(MinCutTime, RaisingTheRateTradesBytesForTime) {
  Graph graph = test::buildLlamaLayer();
  int64_t lastSaved = -1;
  double lastTime = std::numeric_limits<double>::infinity();
  for (double rate : {0.0, 1e4, 1e5, 1e6, 1e7, 1e8}) {
    PlanOptions options = minCutAt(rate);
    options.target.fusesPointwise = false;
    Plan plan = test::planOrDie(graph, options);
    EXPECT_GE(plan.simulation.savedBytes, lastSaved) << rate;
    EXPECT_LE(plan.simulation.recomputeTimeUs, lastTime) << rate;
    lastSaved = plan.simulation.savedBytes;
    lastTime = plan.simulation.recomputeTimeUs;
  }
  Plan saveAll = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(lastTime, 0);
  EXPECT_EQ(lastSaved, saveAll.simulation.savedBytes);
}

// A derivation is one of the ways the cut makes a value available (issue #16
// item 5). a = slow(x) is dear to replay and y = a + b, a function result,
// gives a = y - b from values backward holds anyway; backward reads only
// w = relu(a). Without the derivation in the cut, min-cut saves w (replaying
// it needs a, and a's replay is dear), and the derivation pass after the
// cut has nothing to replace: a is neither saved nor replayed. With it, the
// cut keeps a at its derivation's cost, the pass derives it, and w is
// replayed from the derived a: no activation is saved.
TEST(MinCutTime, TheCutReplaysFromADerivedValue) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {kElements});
  ValueId b = builder.input("b", {kElements}, InputRole::Parameter);
  ValueId a = builder.op("slow", "slow", ComputeClass::Other, {x},
                         builder.type({kElements}), "a");
  builder.producer(a).fixedTimeUs = 1000;
  ValueId y = builder.op("add", "add", ComputeClass::Pointwise, {a, b},
                         builder.type({kElements}), "y");
  ValueId w = builder.op("relu", "relu", ComputeClass::Pointwise, {a},
                         builder.type({kElements}), "w");
  ValueId z = builder.op("sq", "square", ComputeClass::Pointwise, {w},
                         builder.type({kElements}), "z");
  builder.graph().markOutput(y, OutputRole::Output);
  builder.graph().markOutput(z, OutputRole::Output);
  ValueId dz =
      builder.input("dz", builder.type({kElements}), InputRole::Tangent);
  ValueId dw = builder.op("sq_bwd", "bwd", ComputeClass::Pointwise, {dz, w},
                          builder.type({kElements}));
  ValueId da = builder.op("relu_bwd", "bwd", ComputeClass::Pointwise, {dw, w},
                          builder.type({kElements}));
  ValueId dx = builder.op("slow_bwd", "bwd", ComputeClass::Other, {da, x},
                          builder.type({kElements}));
  builder.graph().markOutput(dx, OutputRole::Gradient);
  Graph graph = builder.take();

  // Without an inverse rule: w is saved (beside the input x, which
  // slow_bwd reads).
  Plan saving = test::planOrDie(graph, minCutAt(std::nullopt));
  EXPECT_EQ(test::decisionOf(saving, w), Decision::Save);
  EXPECT_EQ(saving.simulation.savedBytes, 2 * 4 * kElements);

  graph.mutableOp(graph.value(y).producer).inverseRules = {
      InverseRule{0, InverseKind::SubtractOther, {1}, true}};
  Plan deriving = test::planOrDie(graph, minCutAt(std::nullopt));
  EXPECT_EQ(test::decisionOf(deriving, a), Decision::Derive);
  EXPECT_EQ(test::decisionOf(deriving, w), Decision::Recompute);
  EXPECT_EQ(deriving.simulation.savedBytes, 4 * kElements); // x alone
  EXPECT_EQ(deriving.simulation.numDerivations, 1);
  EXPECT_EQ(test::evaluations(deriving, test::opNamed(graph, "slow")), 1);
  EXPECT_EQ(test::reasonOf(deriving, w),
            "recomputed from a (cheaper than saving 4 MiB, replay time "
            "weighed at 3.19 MiB per us); the replay fuses into pointwise "
            "sq_bwd");
}

} // namespace
} // namespace remat
