//===- RematOpsTest.cpp - PlannerOpInterface facts of remat ops -----------===//
//
// Part of remat. Parses small functions and checks the facts the planner
// reads through PlannerOpInterface: FLOPs, bytes, compute class, views and
// inverse rules. Ops are found by their `remat.name` tag.
//
//===----------------------------------------------------------------------===//

#include "PlannerFactsTest.h"

using namespace mlir;

namespace {

class RematOpsTest : public remat::test::PlannerFactsTest {};

TEST_F(RematOpsTest, MatmulAndLinearCountTwoFlopsPerMultiplyAdd) {
  parse("%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %q: tensor<2x4x3x8xbf16>, "
        "%x: tensor<2x16x64xbf16>, %w: tensor<128x64xbf16>, "
        "%bias: tensor<128xbf16>, %m: tensor<8x16xbf16>",
        R"(
  %0 = remat.matmul %a, %b {remat.name = "mm"} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = remat.matmul %q, %q {transpose_b, remat.name = "bmm"} : (tensor<2x4x3x8xbf16>, tensor<2x4x3x8xbf16>) -> tensor<2x4x3x3xbf16>
  %4 = remat.matmul %q, %m {remat.name = "shared"} : (tensor<2x4x3x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x3x16xbf16>
  %2 = remat.linear %x, %w {remat.name = "proj"} : (tensor<2x16x64xbf16>, tensor<128x64xbf16>) -> tensor<2x16x128xbf16>
  %3 = remat.linear %x, %w, %bias {remat.name = "proj_bias"} : (tensor<2x16x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<2x16x128xbf16>
)");
  // M=4, N=16, K=8.
  EXPECT_DOUBLE_EQ(op("mm").estimateFlops(), 2.0 * 4 * 16 * 8);
  // Batch 2x4, M=N=3, K=8 (contracting the last dimension of both).
  EXPECT_DOUBLE_EQ(op("bmm").estimateFlops(), 2.0 * 2 * 4 * 3 * 3 * 8);
  // A rank-2 operand shared by the batch 2x4: M=3, N=16, K=8 per element.
  EXPECT_DOUBLE_EQ(op("shared").estimateFlops(), 2.0 * 2 * 4 * 3 * 16 * 8);
  // rows = 2*16, in = 64, out = 128; the bias adds one FLOP per output.
  EXPECT_DOUBLE_EQ(op("proj").estimateFlops(), 2.0 * 32 * 64 * 128);
  EXPECT_DOUBLE_EQ(op("proj_bias").estimateFlops(),
                   2.0 * 32 * 64 * 128 + 32 * 128);
  for (const char *name : {"mm", "bmm", "shared", "proj", "proj_bias"})
    EXPECT_EQ(op(name).classifyCompute(), remat::ComputeClass::Matmul) << name;
  // Bytes default to operand and result sizes: bf16 is 2 bytes.
  EXPECT_EQ(op("proj").estimateBytesRead(), (2 * 16 * 64 + 128 * 64) * 2);
  EXPECT_EQ(op("proj").estimateBytesWritten(), 2 * 16 * 128 * 2);
}

TEST_F(RematOpsTest, PointwiseFlopsFollowTheCostTable) {
  parse("%x: tensor<4x8xf32>, %g: tensor<4x8xf32>",
        R"(
  %0 = remat.add %x, %x {remat.name = "add"} : tensor<4x8xf32>
  %1 = remat.exp %x {remat.name = "exp"} : tensor<4x8xf32>
  %2 = remat.sigmoid %x {remat.name = "sigmoid"} : tensor<4x8xf32>
  %3 = remat.gelu %x {remat.name = "gelu"} : tensor<4x8xf32>
  %4 = remat.gelu %x {approximate = "tanh", remat.name = "gelu_tanh"} : tensor<4x8xf32>
  %5 = remat.silu_backward %g, %x {remat.name = "silu_bwd"} : tensor<4x8xf32>
  %6 = remat.gelu_backward %g, %x {approximate = "tanh", remat.name = "gelu_bwd"} : tensor<4x8xf32>
  %7 = remat.compare %x, %g {predicate = "gt", remat.name = "compare"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
)");
  const double elements = 32;
  EXPECT_DOUBLE_EQ(op("add").estimateFlops(), 1 * elements);
  EXPECT_DOUBLE_EQ(op("exp").estimateFlops(), 4 * elements);
  EXPECT_DOUBLE_EQ(op("sigmoid").estimateFlops(), 7 * elements);
  EXPECT_DOUBLE_EQ(op("gelu").estimateFlops(), 14 * elements);
  EXPECT_DOUBLE_EQ(op("gelu_tanh").estimateFlops(), 12 * elements);
  EXPECT_DOUBLE_EQ(op("silu_bwd").estimateFlops(), 12 * elements);
  EXPECT_DOUBLE_EQ(op("gelu_bwd").estimateFlops(), 22 * elements);
  EXPECT_DOUBLE_EQ(op("compare").estimateFlops(), 1 * elements);
  // An i1 mask is stored one byte per element.
  EXPECT_EQ(op("compare").estimateBytesWritten(), 32);
  for (const char *name : {"add", "exp", "sigmoid", "gelu", "gelu_tanh",
                           "silu_bwd", "gelu_bwd", "compare"}) {
    EXPECT_EQ(op(name).classifyCompute(), remat::ComputeClass::Pointwise)
        << name;
    EXPECT_FALSE(op(name).drawsRandomNumbers()) << name;
    EXPECT_FALSE(op(name).isViewOnly()) << name;
  }
}

TEST_F(RematOpsTest, ReductionsCountInputElements) {
  parse("%x: tensor<4x8x2xf32>", R"(
  %0 = remat.sum %x {dims = array<i64: 1>, remat.name = "sum"} : (tensor<4x8x2xf32>) -> tensor<4x2xf32>
  %1 = remat.mean %x {dims = array<i64: 0, 2>, keepdim, remat.name = "mean"} : (tensor<4x8x2xf32>) -> tensor<1x8x1xf32>
  %2 = remat.max %x {dims = array<i64: 2>, remat.name = "max"} : (tensor<4x8x2xf32>) -> tensor<4x8xf32>
)");
  EXPECT_DOUBLE_EQ(op("sum").estimateFlops(), 64);
  // Mean divides each of its 8 results once more.
  EXPECT_DOUBLE_EQ(op("mean").estimateFlops(), 64 + 8);
  EXPECT_DOUBLE_EQ(op("max").estimateFlops(), 64);
  for (const char *name : {"sum", "mean", "max"})
    EXPECT_EQ(op(name).classifyCompute(), remat::ComputeClass::Reduction)
        << name;
}

TEST_F(RematOpsTest, ViewsMoveNoBytesButConcatCopies) {
  parse("%x: tensor<4x8xf32>, %v: tensor<8xf32>", R"(
  %0 = remat.reshape %x {remat.name = "reshape"} : (tensor<4x8xf32>) -> tensor<32xf32>
  %1 = remat.transpose %x {permutation = array<i64: 1, 0>, remat.name = "transpose"} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %2 = remat.broadcast %v {remat.name = "broadcast"} : (tensor<8xf32>) -> tensor<4x8xf32>
  %3 = remat.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 8>, remat.name = "slice"} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %4 = remat.concat %x, %x {dim = 0, remat.name = "concat"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
)");
  for (const char *name : {"reshape", "transpose", "broadcast", "slice"}) {
    remat::PlannerOpInterface view = op(name);
    EXPECT_TRUE(view.isViewOnly()) << name;
    EXPECT_EQ(view.classifyCompute(), remat::ComputeClass::View) << name;
    EXPECT_DOUBLE_EQ(view.estimateFlops(), 0) << name;
    EXPECT_EQ(view.estimateBytesRead(), 0) << name;
    EXPECT_EQ(view.estimateBytesWritten(), 0) << name;
  }
  remat::PlannerOpInterface concat = op("concat");
  EXPECT_FALSE(concat.isViewOnly());
  EXPECT_EQ(concat.classifyCompute(), remat::ComputeClass::Pointwise);
  EXPECT_EQ(concat.estimateBytesRead(), 2 * 32 * 4);
  EXPECT_EQ(concat.estimateBytesWritten(), 64 * 4);
}

TEST_F(RematOpsTest, AdditiveInversesAreInexact) {
  parse("%a: tensor<8xf32>, %b: tensor<8xf32>", R"(
  %0 = remat.add %a, %b {remat.name = "add"} : tensor<8xf32>
  %1 = remat.sub %a, %b {remat.name = "sub"} : tensor<8xf32>
  %2 = remat.neg %a {remat.name = "neg"} : tensor<8xf32>
  %3 = remat.exp %a {remat.name = "exp"} : tensor<8xf32>
  %4 = remat.log %a {remat.name = "log"} : tensor<8xf32>
  %5 = remat.add %a, %a {remat.name = "double"} : tensor<8xf32>
  %6 = remat.sub %a, %a {remat.name = "zero"} : tensor<8xf32>
)");
  auto add = rules("add");
  ASSERT_EQ(add.size(), 2u);
  EXPECT_EQ(add[0].recoveredOperand, 0u);
  EXPECT_EQ(add[0].kind, remat::InverseKind::SubtractOther);
  EXPECT_EQ(add[0].otherOperands, std::vector<unsigned>{1});
  EXPECT_FALSE(add[0].exact);
  EXPECT_EQ(add[1].recoveredOperand, 1u);
  EXPECT_EQ(add[1].otherOperands, std::vector<unsigned>{0});

  auto sub = rules("sub");
  ASSERT_EQ(sub.size(), 2u);
  EXPECT_EQ(sub[0].kind, remat::InverseKind::AddOther);
  EXPECT_EQ(sub[0].recoveredOperand, 0u);
  EXPECT_EQ(sub[1].kind, remat::InverseKind::SubtractFromOther);
  EXPECT_EQ(sub[1].recoveredOperand, 1u);
  EXPECT_FALSE(sub[0].exact || sub[1].exact);

  auto neg = rules("neg");
  ASSERT_EQ(neg.size(), 1u);
  EXPECT_EQ(neg[0].kind, remat::InverseKind::Negate);
  EXPECT_TRUE(neg[0].exact);
  EXPECT_TRUE(neg[0].otherOperands.empty());

  // exp under- and overflows: log(exp(a)) is +-inf outside a's f32 range.
  EXPECT_TRUE(rules("exp").empty());
  auto log = rules("log");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].kind, remat::InverseKind::Exp);
  EXPECT_FALSE(log[0].exact);

  // Recovering `a` from `a + a` would need `a` itself.
  EXPECT_TRUE(rules("double").empty());
  EXPECT_TRUE(rules("zero").empty());
}

TEST_F(RematOpsTest, DivisionInversesNeedAKnownNonZeroConstant) {
  parse("%a: tensor<8xf32>, %mask: tensor<8xf32>", R"(
  %two = remat.constant dense<2.0> : tensor<8xf32>
  %half = arith.constant dense<0.5> : tensor<8xf32>
  %some_zero = remat.constant dense<[1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %inf = remat.constant dense<0x7F800000> : tensor<8xf32>
  %e = remat.exp %a : tensor<8xf32>
  %0 = remat.mul %a, %two {remat.name = "mul_const"} : tensor<8xf32>
  %1 = remat.mul %half, %a {remat.name = "mul_arith_const"} : tensor<8xf32>
  %2 = remat.mul %a, %some_zero {remat.name = "mul_zero"} : tensor<8xf32>
  %3 = remat.mul %a, %inf {remat.name = "mul_inf"} : tensor<8xf32>
  %4 = remat.mul %a, %e {remat.name = "mul_exp"} : tensor<8xf32>
  %5 = remat.mul %a, %mask {remat.name = "mul_mask"} : tensor<8xf32>
  %6 = remat.div %a, %two {remat.name = "div_const"} : tensor<8xf32>
  %7 = remat.div %two, %a {remat.name = "div_by_value"} : tensor<8xf32>
)");
  auto mulConst = rules("mul_const");
  ASSERT_EQ(mulConst.size(), 1u);
  EXPECT_EQ(mulConst[0].recoveredOperand, 0u);
  EXPECT_EQ(mulConst[0].kind, remat::InverseKind::DivideByOther);
  EXPECT_EQ(mulConst[0].otherOperands, std::vector<unsigned>{1});
  EXPECT_FALSE(mulConst[0].exact);

  auto mulArith = rules("mul_arith_const");
  ASSERT_EQ(mulArith.size(), 1u);
  EXPECT_EQ(mulArith[0].recoveredOperand, 1u);
  EXPECT_EQ(mulArith[0].otherOperands, std::vector<unsigned>{0});

  // A zero or infinite element, an exp output (can underflow to 0) and an
  // unknown value (e.g. a mask) are not known non-zero.
  EXPECT_TRUE(rules("mul_zero").empty());
  EXPECT_TRUE(rules("mul_inf").empty());
  EXPECT_TRUE(rules("mul_exp").empty());
  EXPECT_TRUE(rules("mul_mask").empty());

  auto divConst = rules("div_const");
  ASSERT_EQ(divConst.size(), 1u);
  EXPECT_EQ(divConst[0].recoveredOperand, 0u);
  EXPECT_EQ(divConst[0].kind, remat::InverseKind::MultiplyByOther);
  EXPECT_EQ(divConst[0].otherOperands, std::vector<unsigned>{1});
  // b = a / c would divide by the result, which is zero wherever a is.
  EXPECT_TRUE(rules("div_by_value").empty());
}

TEST_F(RematOpsTest, ShapeAndCastInversesAreExactOnlyWhenLossless) {
  parse("%x: tensor<4x8xbf16>, %f: tensor<4x8xf32>, %i8: tensor<4x8xi8>, "
        "%i64: tensor<4x8xi64>",
        R"(
  %0 = remat.reshape %x {remat.name = "reshape"} : (tensor<4x8xbf16>) -> tensor<32xbf16>
  %1 = remat.transpose %x {permutation = array<i64: 1, 0>, remat.name = "transpose"} : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  %2 = remat.cast %x {remat.name = "bf16_to_f32"} : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %3 = remat.cast %f {remat.name = "f32_to_bf16"} : (tensor<4x8xf32>) -> tensor<4x8xbf16>
  %4 = remat.cast %i8 {remat.name = "i8_to_bf16"} : (tensor<4x8xi8>) -> tensor<4x8xbf16>
  %5 = remat.cast %i64 {remat.name = "i64_to_f32"} : (tensor<4x8xi64>) -> tensor<4x8xf32>
  %6 = remat.cast %i8 {remat.name = "i8_to_i64"} : (tensor<4x8xi8>) -> tensor<4x8xi64>
  %7 = remat.cast %x {remat.name = "bf16_to_f16"} : (tensor<4x8xbf16>) -> tensor<4x8xf16>
)");
  auto reshape = rules("reshape");
  ASSERT_EQ(reshape.size(), 1u);
  EXPECT_EQ(reshape[0].kind, remat::InverseKind::Reshape);
  EXPECT_TRUE(reshape[0].exact);
  auto transpose = rules("transpose");
  ASSERT_EQ(transpose.size(), 1u);
  EXPECT_EQ(transpose[0].kind, remat::InverseKind::Transpose);
  EXPECT_TRUE(transpose[0].exact);

  for (const char *widening : {"bf16_to_f32", "i8_to_bf16", "i8_to_i64"}) {
    auto cast = rules(widening);
    ASSERT_EQ(cast.size(), 1u) << widening;
    EXPECT_EQ(cast[0].kind, remat::InverseKind::Cast) << widening;
    EXPECT_TRUE(cast[0].exact) << widening;
  }
  // Narrowing or lossy: f32 -> bf16 rounds, i64 -> f32 rounds large values,
  // bf16 -> f16 loses range.
  for (const char *lossy : {"f32_to_bf16", "i64_to_f32", "bf16_to_f16"})
    EXPECT_TRUE(rules(lossy).empty()) << lossy;
}

TEST_F(RematOpsTest, LeakyReluIsInvertibleOnlyWithPositiveSlope) {
  parse("%x: tensor<8xf16>", R"(
  %0 = remat.leaky_relu %x {remat.name = "default"} : tensor<8xf16>
  %1 = remat.leaky_relu %x {alpha = 0.0, remat.name = "zero"} : tensor<8xf16>
  %2 = remat.leaky_relu %x {alpha = -0.5, remat.name = "negative"} : tensor<8xf16>
  %3 = remat.relu %x {remat.name = "relu"} : tensor<8xf16>
)");
  auto leaky = rules("default");
  ASSERT_EQ(leaky.size(), 1u);
  EXPECT_EQ(leaky[0].kind, remat::InverseKind::LeakyReluInverse);
  EXPECT_FALSE(leaky[0].exact);
  EXPECT_TRUE(rules("zero").empty());
  EXPECT_TRUE(rules("negative").empty());
  EXPECT_TRUE(rules("relu").empty());
}

} // namespace
