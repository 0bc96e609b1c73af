//===- MinCutPyTorchTest.cpp - PyTorch's partitioner cases under min-cut --===//
//
// Part of remat. The six small cases of REFERENCES.md, with the joint graphs
// written by hand as AOTAutograd emits them: forward ops, one tangent per
// output, backward ops reading what the derivative needs. Each test asserts
// PyTorch's answer (values saved, matmuls in forward/backward), under
// min-cut weighing bytes alone as PyTorch does (exchange rate 0; the
// default rate's answers are in MinCutTimeTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

namespace remat {
namespace {

using test::GraphBuilder;

/// loss = sum(value), marked as the output; returns the loss tangent's
/// broadcast gradient (shaped like `value`) computed in backward.
ValueId lossAndSeed(GraphBuilder &builder, ValueId value) {
  ValueId loss = builder.op("loss", "sum", ComputeClass::Reduction, {value},
                            builder.type({}), "loss");
  builder.graph().markOutput(loss, OutputRole::Output);
  ValueId dLoss = builder.input("dloss", builder.type({}), InputRole::Tangent);
  return builder.op("loss_bwd", "expand", ComputeClass::Pointwise, {dLoss},
                    builder.typeOf(value));
}

ValueId bwd(GraphBuilder &builder, const std::string &name,
            ComputeClass computeClass, std::vector<ValueId> reads,
            ValueId shapedLike) {
  return builder.op(name, "bwd." + name, computeClass, std::move(reads),
                    builder.typeOf(shapedLike));
}

Plan minCut(const Graph &graph) {
  return test::planOrDie(graph, test::bytesOnlyMinCut());
}

TEST(MinCutPyTorch, CosCosCosSavesOnlyTheInput) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {3});
  ValueId c1 = builder.op("cos1", "cos", ComputeClass::Pointwise, {x},
                          builder.type({3}), "c1");
  ValueId c2 = builder.op("cos2", "cos", ComputeClass::Pointwise, {c1},
                          builder.type({3}), "c2");
  ValueId c3 = builder.op("cos3", "cos", ComputeClass::Pointwise, {c2},
                          builder.type({3}), "c3");
  ValueId g3 = lossAndSeed(builder, c3);
  ValueId g2 = bwd(builder, "cos3", ComputeClass::Pointwise, {g3, c2}, c2);
  ValueId g1 = bwd(builder, "cos2", ComputeClass::Pointwise, {g2, c1}, c1);
  ValueId gx = bwd(builder, "cos1", ComputeClass::Pointwise, {g1, x}, x);
  builder.graph().markOutput(gx, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = minCut(graph);
  EXPECT_EQ(test::countSaved(graph, plan), 1);
  EXPECT_EQ(test::decisionOf(plan, x), Decision::Input);
  EXPECT_EQ(test::decisionOf(plan, c1), Decision::Recompute);
  EXPECT_EQ(test::decisionOf(plan, c2), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(plan, c1),
            "recomputed from x (cheaper than saving 12 B); the replay fuses "
            "into pointwise cos2");
  EXPECT_EQ(test::reasonOf(plan, c2),
            "recomputed from c1 (cheaper than saving 12 B); the replay fuses "
            "into pointwise cos3");
  // Both inner cos ops run once in forward and once in backward.
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "cos1")), 2);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "cos2")), 2);
  EXPECT_EQ(plan.simulation.savedBytes, 12);
}

/// PyTorch's sum-of-four case: s3 = a + b + c + d, cos(cos(s3)). The four
/// summands are graph inputs or, with `summandsAreActivations`, the results
/// of four matmuls (which min-cut does not replay) of one input.
struct SumOfFour {
  Graph graph;
  std::vector<ValueId> summands;
  ValueId s1, s3, c1;
};

SumOfFour sumOfFour(bool summandsAreActivations) {
  GraphBuilder builder(DType::F32);
  SumOfFour result;
  ValueId x = builder.input("x", {3});
  for (const char *name : {"a", "b", "c", "d"}) {
    if (!summandsAreActivations) {
      result.summands.push_back(builder.input(name, {3}));
      continue;
    }
    ValueId w =
        builder.input(std::string("w") + name, {3}, InputRole::Parameter);
    result.summands.push_back(builder.op(std::string("mm_") + name, "matmul",
                                         ComputeClass::Matmul, {x, w},
                                         builder.type({3}), name));
  }
  const std::vector<ValueId> &in = result.summands;
  result.s1 = builder.op("add1", "add", ComputeClass::Pointwise, {in[0], in[1]},
                         builder.type({3}), "s1");
  ValueId s2 = builder.op("add2", "add", ComputeClass::Pointwise,
                          {result.s1, in[2]}, builder.type({3}), "s2");
  result.s3 = builder.op("add3", "add", ComputeClass::Pointwise, {s2, in[3]},
                         builder.type({3}), "s3");
  result.c1 = builder.op("cos1", "cos", ComputeClass::Pointwise, {result.s3},
                         builder.type({3}), "c1");
  ValueId c2 = builder.op("cos2", "cos", ComputeClass::Pointwise, {result.c1},
                          builder.type({3}), "c2");
  ValueId g = lossAndSeed(builder, c2);
  ValueId gc1 =
      bwd(builder, "cos2", ComputeClass::Pointwise, {g, result.c1}, result.c1);
  ValueId gs3 = bwd(builder, "cos1", ComputeClass::Pointwise, {gc1, result.s3},
                    result.s3);
  // The adds' backward is the identity: every summand's gradient is gs3.
  builder.graph().markOutput(gs3, OutputRole::Gradient);
  result.graph = builder.take();
  return result;
}

TEST(MinCutPyTorch, SumOfFourActivationsSavesTheSum) {
  SumOfFour sum = sumOfFour(/*summandsAreActivations=*/true);
  Plan plan = minCut(sum.graph);
  EXPECT_EQ(test::countSaved(sum.graph, plan), 1);
  EXPECT_EQ(test::decisionOf(plan, sum.s3), Decision::Save);
  EXPECT_EQ(test::decisionOf(plan, sum.c1), Decision::Recompute);
  for (ValueId summand : sum.summands)
    EXPECT_EQ(test::decisionOf(plan, summand), Decision::NotNeeded);
  EXPECT_EQ(test::decisionOf(plan, sum.s1), Decision::NotNeeded);
}

// Where the summands are graph inputs PyTorch (charging non-parameter
// inputs) saves the sum too; remat keeps the inputs, which the caller holds
// through the step anyway, and replays the sum: no activation is saved.
TEST(MinCutPyTorch, SumOfFourInputsKeepsTheInputs) {
  SumOfFour sum = sumOfFour(/*summandsAreActivations=*/false);
  Plan plan = minCut(sum.graph);
  EXPECT_EQ(test::countSaved(sum.graph, plan), 4); // the inputs alone
  for (ValueId summand : sum.summands)
    EXPECT_EQ(test::decisionOf(plan, summand), Decision::Input);
  EXPECT_EQ(test::decisionOf(plan, sum.s3), Decision::Recompute);
  EXPECT_EQ(test::decisionOf(plan, sum.c1), Decision::Recompute);
  EXPECT_EQ(plan.simulation.savedBytes - plan.simulation.savedInputBytes, 0);
}

TEST(MinCutPyTorch, SplitIsRecomputedFromItsInput) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  std::vector<ValueId> halves =
      builder.multiOp("split", "split", ComputeClass::View, {x},
                      {builder.type({2}), builder.type({2})}, {"y0", "y1"});
  ValueId sine = builder.op("sin", "sin", ComputeClass::Pointwise, {halves[0]},
                            builder.type({2}), "s");
  ValueId cosine = builder.op("cos", "cos", ComputeClass::Pointwise,
                              {halves[1]}, builder.type({2}), "c");
  ValueId sum = builder.op("add", "add", ComputeClass::Pointwise,
                           {sine, cosine}, builder.type({2}), "z");
  ValueId g = lossAndSeed(builder, sum);
  ValueId g0 =
      bwd(builder, "sin", ComputeClass::Pointwise, {g, halves[0]}, halves[0]);
  ValueId g1 =
      bwd(builder, "cos", ComputeClass::Pointwise, {g, halves[1]}, halves[1]);
  ValueId gx = bwd(builder, "split", ComputeClass::Pointwise, {g0, g1}, x);
  builder.graph().markOutput(gx, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = minCut(graph);
  EXPECT_EQ(test::countSaved(graph, plan), 1);
  EXPECT_EQ(test::decisionOf(plan, x), Decision::Input);
  EXPECT_EQ(test::decisionOf(plan, halves[0]), Decision::Recompute);
  EXPECT_EQ(test::decisionOf(plan, halves[1]), Decision::Recompute);
  // One replay of split serves both halves.
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "split")), 2);
}

/// x, y -> sigmoid(mm(x, y)) inside a user checkpoint region: every op of
/// the region is tagged must_recompute, as torch.utils.checkpoint does.
TEST(MinCutPyTorch, CheckpointedMatmulIsRecomputed) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4, 4});
  ValueId y = builder.input("y", {4, 4});
  ValueId m = builder.op("mm", "mm", ComputeClass::Matmul, {x, y},
                         builder.type({4, 4}), "m");
  ValueId s = builder.op("sigmoid", "sigmoid", ComputeClass::Pointwise, {m},
                         builder.type({4, 4}), "s");
  builder.producer(m).tags.mustRecompute = true;
  builder.producer(s).tags.mustRecompute = true;
  ValueId g = lossAndSeed(builder, s);
  ValueId gm = bwd(builder, "sigmoid", ComputeClass::Pointwise, {g, s}, m);
  ValueId gx = bwd(builder, "mm_dx", ComputeClass::Matmul, {gm, y}, x);
  ValueId gy = bwd(builder, "mm_dy", ComputeClass::Matmul, {x, gm}, y);
  builder.graph().markOutput(gx, OutputRole::Gradient);
  builder.graph().markOutput(gy, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = minCut(graph);
  EXPECT_EQ(test::countClassEvaluations(graph, plan, ComputeClass::Matmul,
                                        /*backward=*/false),
            1);
  EXPECT_EQ(test::countClassEvaluations(graph, plan, ComputeClass::Matmul,
                                        /*backward=*/true),
            3);
  EXPECT_EQ(test::decisionOf(plan, m), Decision::NotNeeded);
  EXPECT_EQ(test::decisionOf(plan, s), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(plan, s),
            "recomputed from x, y: tagged must_recompute; the replay fuses "
            "into pointwise sigmoid");
}

/// x -> a = exp(x) -> s = sin(a), s tagged must_recompute and read by
/// backward; `a` is read by nothing backward runs but the replay of `s`.
/// save-all saves where that forced replay starts (a, replayed once in
/// forward only); before 2026-12-07 it replayed s from x, exp and all, and
/// recomputed more than min-cut.
TEST(MinCutPyTorch, SaveAllSavesWhereAForcedReplayStarts) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {64, 64});
  ValueId a = builder.op("exp", "exp", ComputeClass::Pointwise, {x},
                         builder.type({64, 64}), "a");
  ValueId s = builder.op("sin", "sin", ComputeClass::Pointwise, {a},
                         builder.type({64, 64}), "s");
  builder.producer(s).tags.mustRecompute = true;
  ValueId g = lossAndSeed(builder, s);
  ValueId gx = bwd(builder, "sin_exp", ComputeClass::Pointwise, {g, s}, x);
  builder.graph().markOutput(gx, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(test::decisionOf(plan, a), Decision::Save);
  EXPECT_EQ(test::decisionOf(plan, s), Decision::Recompute);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "exp")), 1);
  EXPECT_EQ(test::reasonOf(plan, s),
            "recomputed from a: tagged must_recompute; the replay fuses into "
            "pointwise sin_exp");
}

/// cos(sin(mm(mm(x, x), x))) in a checkpoint region, with the matmuls
/// tagged must_recompute or must-save (never_recompute).
Graph buildMatmulChain(bool matmulsMustSave) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4, 4});
  ValueId a = builder.op("mm1", "mm", ComputeClass::Matmul, {x, x},
                         builder.type({4, 4}), "a");
  ValueId b = builder.op("mm2", "mm", ComputeClass::Matmul, {a, x},
                         builder.type({4, 4}), "b");
  ValueId c = builder.op("sin", "sin", ComputeClass::Pointwise, {b},
                         builder.type({4, 4}), "c");
  ValueId d = builder.op("cos", "cos", ComputeClass::Pointwise, {c},
                         builder.type({4, 4}), "d");
  for (ValueId matmul : {a, b}) {
    builder.producer(matmul).tags.mustRecompute = !matmulsMustSave;
    builder.producer(matmul).tags.neverRecompute = matmulsMustSave;
  }
  builder.producer(c).tags.mustRecompute = true;
  builder.producer(d).tags.mustRecompute = true;
  ValueId g = lossAndSeed(builder, d);
  ValueId gc = bwd(builder, "cos", ComputeClass::Pointwise, {g, c}, c);
  ValueId gb = bwd(builder, "sin", ComputeClass::Pointwise, {gc, b}, b);
  ValueId ga = bwd(builder, "mm2_da", ComputeClass::Matmul, {gb, x}, a);
  ValueId gx1 = bwd(builder, "mm2_dx", ComputeClass::Matmul, {a, gb}, x);
  ValueId gx2 = bwd(builder, "mm1_dlhs", ComputeClass::Matmul, {ga, x}, x);
  ValueId gx3 = bwd(builder, "mm1_drhs", ComputeClass::Matmul, {x, ga}, x);
  ValueId gx = builder.op("grad_sum", "add", ComputeClass::Pointwise,
                          {gx1, gx2, gx3}, builder.type({4, 4}));
  builder.graph().markOutput(gx, OutputRole::Gradient);
  return builder.take();
}

TEST(MinCutPyTorch, MustRecomputeMatmulsGiveSixBackwardMatmuls) {
  Graph graph = buildMatmulChain(/*matmulsMustSave=*/false);
  Plan plan = minCut(graph);
  EXPECT_EQ(
      test::countClassEvaluations(graph, plan, ComputeClass::Matmul, false), 2);
  EXPECT_EQ(
      test::countClassEvaluations(graph, plan, ComputeClass::Matmul, true), 6);
}

TEST(MinCutPyTorch, MustSaveMatmulsGiveFourBackwardMatmuls) {
  Graph graph = buildMatmulChain(/*matmulsMustSave=*/true);
  Plan plan = minCut(graph);
  EXPECT_EQ(
      test::countClassEvaluations(graph, plan, ComputeClass::Matmul, false), 2);
  EXPECT_EQ(
      test::countClassEvaluations(graph, plan, ComputeClass::Matmul, true), 4);
  EXPECT_EQ(test::decisionOf(plan, test::valueNamed(graph, "a")),
            Decision::Save);
  EXPECT_EQ(test::reasonOf(plan, test::valueNamed(graph, "b")),
            "saved: tagged never_recompute");
  EXPECT_EQ(test::decisionOf(plan, test::valueNamed(graph, "c")),
            Decision::Recompute);
}

TEST(MinCutPyTorch, DropoutIsReplayedFromTheRngStateNotSaved) {
  GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {3});
  ValueId seed =
      builder.input("seed", TensorType{{2}, DType::I64}, InputRole::RngState);
  ValueId s1 = builder.op("sigmoid1", "sigmoid", ComputeClass::Pointwise, {x},
                          builder.type({3}), "s1");
  ValueId mask = builder.op("dropout_rng", "bernoulli", ComputeClass::Random,
                            {seed}, TensorType{{3}, DType::I1}, "mask");
  ValueId dropped = builder.op("dropout", "mul", ComputeClass::Pointwise,
                               {s1, mask}, builder.type({3}), "dropped");
  ValueId s2 = builder.op("sigmoid2", "sigmoid", ComputeClass::Pointwise,
                          {dropped}, builder.type({3}), "s2");
  builder.producer(s1).tags.neverRecompute = true;
  builder.producer(s2).tags.neverRecompute = true;
  ValueId g = lossAndSeed(builder, s2);
  ValueId gd =
      bwd(builder, "sigmoid2", ComputeClass::Pointwise, {g, s2}, dropped);
  ValueId gs1 =
      bwd(builder, "dropout", ComputeClass::Pointwise, {gd, mask}, s1);
  ValueId gx = bwd(builder, "sigmoid1", ComputeClass::Pointwise, {gs1, s1}, x);
  builder.graph().markOutput(gx, OutputRole::Gradient);
  Graph graph = builder.take();

  Plan plan = minCut(graph);
  EXPECT_EQ(test::decisionOf(plan, mask), Decision::Recompute);
  EXPECT_EQ(test::reasonOf(plan, mask),
            "recomputed from seed (cheaper than saving 3 B)");
  EXPECT_EQ(test::decisionOf(plan, s1), Decision::Save);
  EXPECT_EQ(test::decisionOf(plan, s2), Decision::Save);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "sigmoid1")), 1);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "sigmoid2")), 1);
  EXPECT_EQ(test::evaluations(plan, test::opNamed(graph, "dropout_rng")), 2);
  EXPECT_EQ(test::decisionOf(plan, seed), Decision::Input);

  // Without an RNG-state input, the mask cannot be replayed: it is saved.
  GraphBuilder noRng(DType::F32);
  ValueId x2 = noRng.input("x", {3});
  ValueId mask2 = noRng.op("dropout_rng", "bernoulli", ComputeClass::Random,
                           {x2}, TensorType{{3}, DType::I1}, "mask");
  ValueId out = noRng.op("dropout", "mul", ComputeClass::Pointwise, {x2, mask2},
                         noRng.type({3}), "out");
  ValueId g2 = lossAndSeed(noRng, out);
  ValueId gx2 = bwd(noRng, "dropout", ComputeClass::Pointwise, {g2, mask2}, x2);
  noRng.graph().markOutput(gx2, OutputRole::Gradient);
  Graph graph2 = noRng.take();
  Plan plan2 = minCut(graph2);
  EXPECT_EQ(test::decisionOf(plan2, mask2), Decision::Save);
  EXPECT_EQ(test::reasonOf(plan2, mask2),
            "saved: recomputing it needs random dropout_rng whose RNG state is "
            "not a graph input, so a replay would draw other numbers");
}

} // namespace
} // namespace remat
