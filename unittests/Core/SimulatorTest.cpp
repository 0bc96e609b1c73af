//===- SimulatorTest.cpp - Peak memory and time on hand-computed cases ----===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Core/Simulator.h"

#include "gtest/gtest.h"

#include <string>

namespace remat {
namespace {

CostModel unitCosts() { return CostModel(*getTargetPreset("cpu")); }

SimulationResult simulateOrDie(const Graph &graph, const Schedule &schedule) {
  absl::StatusOr<Classification> phases = classify(graph);
  EXPECT_TRUE(phases.ok()) << phases.status();
  absl::StatusOr<SimulationResult> result =
      simulate(graph, *phases, schedule, unitCosts());
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : SimulationResult{};
}

TEST(Simulator, CheckmateLinearGraphWithoutRecomputation) {
  // REFERENCES.md: n = 8, nothing recomputed, needs 10 units; total compute
  // is the 17 unit-cost nodes.
  Graph graph = test::buildCheckmateLinearGraph(8);
  Schedule schedule;
  for (OpId op = 0; op < 17; ++op)
    schedule.steps.push_back(op);
  SimulationResult result = simulateOrDie(graph, schedule);
  EXPECT_EQ(result.peakBytes, 10);
  EXPECT_EQ(result.peakStep, 9u); // the first backward node after the loss
  EXPECT_DOUBLE_EQ(result.totalTimeUs, 17);
  EXPECT_EQ(result.recomputeTimeUs, 0);
  EXPECT_EQ(result.numRecomputedEvaluations, 0);
  EXPECT_EQ(result.savedBytes, 8); // v0..v7 cross into backward
}

TEST(Simulator, HandComputedRecomputation) {
  // n = 3: forward 0,1,2; backward 3..6; op 5 reads v4 and v1.
  // Without recomputation the live sets are {v0},{v0,v1},{v0..v2},
  // {v0..v3},{v0..v4},{v0,v1,v4,v5},{v0,v5,v6}: peak 5 at step 4.
  Graph graph = test::buildCheckmateLinearGraph(3);
  SimulationResult plain =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4, 5, 6}, {}});
  EXPECT_EQ(plain.peakBytes, 5);
  EXPECT_EQ(plain.peakStep, 4u);
  // Recomputing v1 just before op 5 frees it from step 3 to step 5:
  // step 3 {v0,v2,v3}, step 4 {v0,v2,v3,v4}, step 5 (op 1 again)
  // {v0,v4,v1'}, step 6 {v0,v4,v1',v5}, step 7 {v0,v5,v6}: peak 4.
  SimulationResult recomputed =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4, 1, 5, 6}, {}});
  EXPECT_EQ(recomputed.peakBytes, 4);
  EXPECT_EQ(recomputed.peakStep, 4u);
  EXPECT_EQ(recomputed.numRecomputedEvaluations, 1);
  EXPECT_DOUBLE_EQ(recomputed.recomputeTimeUs, 1);
  EXPECT_DOUBLE_EQ(recomputed.totalTimeUs, 8);
  EXPECT_EQ(recomputed.savedBytes, 2); // v0 and v2; v1 is recomputed
}

// A workspace (scratch the op's kernel allocates and frees while it runs)
// is live at the op's own step only, at every evaluation of the op.
TEST(Simulator, WorkspaceCountsAtItsOwnStepOnly) {
  Graph graph = test::buildCheckmateLinearGraph(3);
  graph.mutableOp(1).workspaceBytes = 10;
  // Live sets as in HandComputedRecomputation: step 1 {v0, v1} = 2 bytes
  // plus op 1's workspace; every other step as without it (peak 5).
  SimulationResult plain =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4, 5, 6}, {}});
  EXPECT_EQ(plain.peakBytes, 12);
  EXPECT_EQ(plain.peakStep, 1u);
  // Op 1 again at step 5: {v0, v4, v1'} = 3 bytes plus the workspace.
  SimulationResult recomputed =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4, 1, 5, 6}, {}});
  EXPECT_EQ(recomputed.peakBytes, 13);
  EXPECT_EQ(recomputed.peakStep, 5u);
  // Not saved: a workspace never crosses into backward.
  EXPECT_EQ(recomputed.savedBytes, 2);
}

// #16 item 3: on a target that fuses, replaying an elementwise op whose
// result only elementwise ops read costs its arithmetic (it runs inside the
// reader's kernel); its first evaluation, a replay on an eager target, and a
// replay whose result a matmul reads are kernels.
TEST(Simulator, FusedReplaysCostTheirArithmetic) {
  auto build = [](bool matmulReads) {
    test::GraphBuilder builder(DType::F32);
    ValueId x = builder.input("x", {256, 256});
    ValueId w = builder.input("w", {256, 256}, InputRole::Parameter);
    ValueId a = builder.op("exp", "exp", ComputeClass::Pointwise, {x},
                           builder.type({256, 256}), "a");
    ValueId y = builder.op("sum", "sum", ComputeClass::Reduction, {a},
                           builder.type({}), "y");
    builder.graph().markOutput(y, OutputRole::Output);
    ValueId dy = builder.input("dy", builder.type({}), InputRole::Tangent);
    ValueId g = matmulReads
                    ? builder.op("bwd", "matmul", ComputeClass::Matmul,
                                 {a, w, dy}, builder.type({256, 256}))
                    : builder.op("bwd", "mul", ComputeClass::Pointwise,
                                 {dy, a}, builder.type({256, 256}));
    builder.graph().markOutput(g, OutputRole::Gradient);
    return builder.take();
  };
  const Schedule replayExp{{0, 1, 0, 2}, {}};
  Graph graph = build(/*matmulReads=*/false);
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok()) << phases.status();
  CostModel fusing(*getTargetPreset("h100"));
  TargetSpec eagerTarget = *getTargetPreset("h100");
  eagerTarget.fusesPointwise = false;
  CostModel eager(eagerTarget);

  SimulationTables tables = buildSimulationTables(graph, fusing);
  const double kernel = tables.opTimeUs[0];
  const double arithmetic = 256.0 * 256.0 / 67e12 * 1e6; // flops / F32 peak
  EXPECT_GT(kernel, 4); // launch overhead included
  EXPECT_DOUBLE_EQ(tables.replayTimeUs[0], arithmetic);
  absl::StatusOr<SimulationResult> fused =
      simulate(graph, *phases, replayExp, fusing);
  ASSERT_TRUE(fused.ok()) << fused.status();
  EXPECT_DOUBLE_EQ(fused->recomputeTimeUs, arithmetic);
  EXPECT_DOUBLE_EQ(fused->totalTimeUs,
                   kernel + arithmetic + tables.opTimeUs[1] +
                       tables.opTimeUs[2]);

  absl::StatusOr<SimulationResult> unfused =
      simulate(graph, *phases, replayExp, eager);
  ASSERT_TRUE(unfused.ok()) << unfused.status();
  EXPECT_DOUBLE_EQ(unfused->recomputeTimeUs, kernel);

  Graph materialised = build(/*matmulReads=*/true);
  SimulationTables matmulTables =
      buildSimulationTables(materialised, fusing);
  EXPECT_DOUBLE_EQ(matmulTables.replayTimeUs[0], matmulTables.opTimeUs[0]);
}

TEST(Simulator, MultiByteValuesAndGraphInputs) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {10});                      // 40 B
  ValueId w = builder.input("w", {5}, InputRole::Parameter); // 20 B
  ValueId a = builder.op("a", "mul", ComputeClass::Pointwise, {x, w},
                         builder.type({1})); // 4 B
  ValueId b = builder.op("b", "exp", ComputeClass::Pointwise, {a},
                         builder.type({2})); // 8 B
  ValueId c = builder.op("c", "add", ComputeClass::Pointwise, {a, b},
                         builder.type({4})); // 16 B
  builder.graph().markOutput(c, OutputRole::Output);
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent); // 16 B
  ValueId g = builder.op("c_bwd", "mul", ComputeClass::Pointwise, {dy, b, x},
                         builder.type({3})); // 12 B
  builder.graph().markOutput(g, OutputRole::Gradient);
  Graph graph = builder.take();
  // step 0: a(4)=4; step 1: b(8)+a(4)=12; step 2: c(16)+a+b=28;
  // step 3: g(12)+b(8)+c(16, an output, live to the end)=36.
  SimulationResult result = simulateOrDie(graph, Schedule{{0, 1, 2, 3}, {}});
  EXPECT_EQ(result.peakBytes, 36);
  EXPECT_EQ(result.peakStep, 3u);
  EXPECT_EQ(result.inputBytes, 40);
  EXPECT_EQ(result.parameterBytes, 20);
  EXPECT_EQ(result.tangentBytes, 16);
  // b (8) crosses into backward, and so does the primal input x (40).
  EXPECT_EQ(result.savedBytes, 48);

  // Re-creating `a` by a derivation from b before step 2: the first a dies
  // after step 1, the derived one lives from its event to step 2.
  Schedule derived{{0, 1, 2, 3}, {DerivationStep{2, a, {b}, 0.5, 1}}};
  SimulationResult withDerivation = simulateOrDie(graph, derived);
  EXPECT_EQ(withDerivation.numDerivations, 1);
  EXPECT_DOUBLE_EQ(withDerivation.recomputeTimeUs, 0.5);
  EXPECT_DOUBLE_EQ(withDerivation.recomputeFlops, 1);
  // derivation event: a'(4)+b(8)=12; step 2: c+a'+b=28; step 3: 36.
  EXPECT_EQ(withDerivation.peakBytes, 36);

  // A derivation's event reports the step it precedes as the peak step, also
  // one placed after the last step: re-creating a (4) from b after step 3
  // keeps b to that event: c(16)+g(12)+b(8)+a'(4)=40.
  Schedule derivedLast{{0, 1, 2, 3}, {DerivationStep{4, a, {b}, 0.5, 1}}};
  SimulationResult atEnd = simulateOrDie(graph, derivedLast);
  EXPECT_EQ(atEnd.peakBytes, 40);
  EXPECT_EQ(atEnd.peakStep, 4u);
  // Two derivations before step 3 (events 3 and 4, 28 B each), then step 3
  // (event 5) at 36: the event count and the step stay in line.
  Schedule twoBefore{{0, 1, 2, 3},
                     {DerivationStep{3, a, {b}, 0.5, 1},
                      DerivationStep{3, b, {a}, 0.5, 1}}};
  SimulationResult beforeStep = simulateOrDie(graph, twoBefore);
  EXPECT_EQ(beforeStep.peakBytes, 36);
  EXPECT_EQ(beforeStep.peakStep, 3u);
}

// Live bytes are summed in 64 bits until the bytes produced pass INT64_MAX,
// then again in 128 bits: both give the exact peak. A chain of values of
// 2^k bytes, each read only by the next: two are live at each step.
/// x (16 B input) -> a = exp(x) (64 B) -> v = reshape(a) (64 B view) and
/// e = broadcast(a) (256 B view); s = sum(v, e) (4 B output); backward
/// g = bwd(dy, v) (16 B, the gradient of x) reads the view v.
Graph buildViewGraph(bool viewOfInputInBackward = false) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId a = builder.op("a", "exp", ComputeClass::Pointwise, {x},
                         builder.type({16}));
  ValueId v = builder.op("v", "reshape", ComputeClass::View, {a},
                         builder.type({4, 4}));
  ValueId e = builder.op("e", "broadcast", ComputeClass::View, {a},
                         builder.type({4, 16}));
  ValueId s = builder.op("s", "sum", ComputeClass::Reduction, {v, e},
                         builder.type({1}));
  builder.graph().markOutput(s, OutputRole::Output);
  ValueId dy = builder.input("dy", {1}, InputRole::Tangent);
  ValueId read = v;
  if (viewOfInputInBackward)
    read = builder.op("xv", "reshape", ComputeClass::View, {x},
                      builder.type({2, 2}));
  ValueId g = builder.op("g", "bwd", ComputeClass::Pointwise, {dy, read},
                         builder.type({4}));
  builder.graph().markOutput(g, OutputRole::Gradient);
  return builder.take();
}

TEST(Simulator, ViewsShareTheStorageOfTheirOperand) {
  Graph graph = buildViewGraph();
  // Steps: a 64 | v, e add nothing | s: 64 + 4 | g: a is still read
  // through v: 64 + 4 + 16 = 84. As copies it would have been 388.
  SimulationResult result = simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4}, {}});
  EXPECT_EQ(result.peakBytes, 84);
  EXPECT_EQ(result.peakStep, 4u);
  EXPECT_EQ(result.savedBytes, 64); // a, once, kept by the view v
}

TEST(Simulator, AViewKeepsTheInstanceItWasMadeFrom) {
  Graph graph = buildViewGraph();
  // a is evaluated again before g, but g reads v, made from the first a:
  // both instances are live at step 4 (64 + 64 + s's 4), and the first one
  // until g (64 + 4 + 16).
  SimulationResult result =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 0, 4}, {}});
  EXPECT_EQ(result.peakBytes, 132);
  EXPECT_EQ(result.peakStep, 4u);
  EXPECT_EQ(result.savedBytes, 64);
  // Evaluating v again from the new a (both in the backward section) frees
  // the first a after s: only the input x, which the new a reads, crosses.
  SimulationResult fresh =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 0, 1, 4}, {}, 4});
  EXPECT_EQ(fresh.peakBytes, 84); // g: the new a, s and g
  EXPECT_EQ(fresh.savedBytes, 16);
}

TEST(Simulator, AViewThatIsAResultHoldsItsStorageUnsaved) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId a = builder.op("a", "exp", ComputeClass::Pointwise, {x},
                         builder.type({16}));
  ValueId v = builder.op("v", "reshape", ComputeClass::View, {a},
                         builder.type({4, 4}));
  builder.graph().markOutput(v, OutputRole::Output);
  ValueId dy = builder.input("dy", {4, 4}, InputRole::Tangent);
  ValueId g = builder.op("g", "bwd", ComputeClass::Pointwise, {dy, a},
                         builder.type({4}));
  builder.graph().markOutput(g, OutputRole::Gradient);
  Graph graph = builder.take();
  SimulationResult result = simulateOrDie(graph, Schedule{{0, 1, 2}, {}});
  // a lives to the end (the output v shares it): 64 + g's 16.
  EXPECT_EQ(result.peakBytes, 80);
  EXPECT_EQ(result.savedBytes, 0); // live anyway, like a function result
}

TEST(Simulator, AViewOfAnInputReadInBackwardSavesTheInputOnce) {
  Graph graph = buildViewGraph(/*viewOfInputInBackward=*/true);
  SimulationResult result =
      simulateOrDie(graph, Schedule{{0, 1, 2, 3, 4, 5}, {}});
  EXPECT_EQ(result.savedBytes, 16); // x; a is not read in backward
  EXPECT_EQ(result.peakBytes, 68);  // s: a + s; the view xv adds nothing
}

TEST(Simulator, ExactPeakWhetherProducedBytesFitInt64OrNot) {
  for (int log2Bytes : {60, 61}) {
    test::GraphBuilder builder(DType::F32);
    ValueId value = builder.input("x", {1});
    constexpr int kLength = 8; // 8 * 2^61 bytes produced: past INT64_MAX
    for (int i = 0; i < kLength; ++i)
      value = builder.op("a" + std::to_string(i), "exp",
                         ComputeClass::Pointwise, {value},
                         builder.type({int64_t(1) << (log2Bytes - 2)}));
    builder.graph().markOutput(value, OutputRole::Output);
    Graph graph = builder.take();
    Schedule schedule;
    for (OpId op = 0; op < kLength; ++op)
      schedule.steps.push_back(op);
    SimulationResult result = simulateOrDie(graph, schedule);
    EXPECT_EQ(result.peakBytes, int64_t(1) << (log2Bytes + 1)) << log2Bytes;
    EXPECT_EQ(result.peakStep, 1u) << log2Bytes;
  }
}

TEST(Simulator, RejectsInvalidSchedules) {
  Graph graph = test::buildCheckmateLinearGraph(2);
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok());
  CostModel costs = unitCosts();
  absl::StatusOr<SimulationResult> early =
      simulate(graph, *phases, Schedule{{1, 0, 2, 3, 4}, {}}, costs);
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.status().message().find(
                "step 0 (op 1 'node1') reads value 0 'v0' before any "
                "evaluation of its producer op 0 'node0'"),
            std::string::npos)
      << early.status();
  absl::StatusOr<SimulationResult> missing =
      simulate(graph, *phases, Schedule{{0, 1, 2, 3}, {}}, costs);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(
                "never evaluates op 4 'node4', which produces gradient"),
            std::string::npos)
      << missing.status();
  EXPECT_FALSE(simulate(graph, *phases, Schedule{{0, 9}, {}}, costs).ok());
  Schedule unordered{
      {0, 1, 2, 3, 4},
      {DerivationStep{3, 1, {0}, 0, 0}, DerivationStep{1, 1, {0}, 0, 0}}};
  EXPECT_FALSE(simulate(graph, *phases, unordered, costs).ok());
}

} // namespace
} // namespace remat
