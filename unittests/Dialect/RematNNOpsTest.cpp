//===- RematNNOpsTest.cpp - PlannerOpInterface facts of NN ops ------------===//
//
// Part of remat. Parses small functions and checks the facts the planner
// reads from the neural-network ops (RematNNOps.td): FLOPs, bytes, compute
// class and randomness. Lit cannot observe these answers; the formulas are
// the ones each op's ODS description states.
//
//===----------------------------------------------------------------------===//

#include "PlannerFactsTest.h"

using namespace mlir;

namespace {

class RematNNOpsTest : public remat::test::PlannerFactsTest {};

TEST_F(RematNNOpsTest, SdpaCountsTheTwoMatmulsAndHalvesThemWhenCausal) {
  // Llama-2-7B attention: batch 1, 32 heads, sequence 4096, head_dim 128.
  const std::string q = "tensor<1x32x4096x128xbf16>";
  const std::string lse = "tensor<1x32x4096xf32>";
  const std::string types =
      "(" + q + ", " + q + ", " + q + ") -> (" + q + ", " + lse + ")";
  parse("%q: " + q, R"(
  %o, %l = remat.sdpa %q, %q, %q scale = 0.088388347648318433 {remat.name = "full"} : )" +
                        types + R"(
  %co, %cl = remat.sdpa %q, %q, %q scale = 0.088388347648318433 {causal, remat.name = "causal"} : )" +
                        types);
  const double full = 4.0 * 1 * 32 * 4096 * 4096 * 128; // ~275 GFLOP
  EXPECT_DOUBLE_EQ(op("full").estimateFlops(), full);
  EXPECT_DOUBLE_EQ(op("causal").estimateFlops(), full / 2);
  EXPECT_EQ(op("full").classifyCompute(), remat::ComputeClass::Attention);
  EXPECT_FALSE(op("full").drawsRandomNumbers());
  EXPECT_FALSE(op("full").isViewOnly());
  // Flash attention reads q, k, v and writes the output and the f32
  // logsumexp, never an S x S matrix.
  const int64_t qBytes = int64_t{1} * 32 * 4096 * 128 * 2;
  EXPECT_EQ(op("full").estimateBytesRead(), 3 * qBytes);
  EXPECT_EQ(op("full").estimateBytesWritten(),
            qBytes + int64_t{1} * 32 * 4096 * 4);
}

TEST_F(RematNNOpsTest, SdpaFlopsUseQueryHeadsAndBothHeadDims) {
  // Grouped-query attention: 8 query heads over 2 key/value heads; keys are
  // longer than queries (24 vs 8) and the value head_dim (32) differs from
  // the query/key one (16).
  parse("%q: tensor<2x8x8x16xf32>, %k: tensor<2x2x24x16xf32>, "
        "%v: tensor<2x2x24x32xf32>, %go: tensor<2x8x8x32xf32>, "
        "%lse: tensor<2x8x8xf32>",
        R"(
  %o, %l = remat.sdpa %q, %k, %v scale = 0.25 {remat.name = "fwd"} : (tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>) -> (tensor<2x8x8x32xf32>, tensor<2x8x8xf32>)
  %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse scale = 0.25 {remat.name = "bwd"} : (tensor<2x8x8x32xf32>, tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32>) -> (tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>)
  %co, %cl = remat.sdpa %q, %k, %v scale = 0.25 {causal, remat.name = "causal_fwd"} : (tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>) -> (tensor<2x8x8x32xf32>, tensor<2x8x8xf32>)
  %cq, %ck, %cv = remat.sdpa_backward %go, %q, %k, %v, %co, %cl scale = 0.25 {causal, remat.name = "causal_bwd"} : (tensor<2x8x8x32xf32>, tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>, tensor<2x8x8x32xf32>, tensor<2x8x8xf32>) -> (tensor<2x8x8x16xf32>, tensor<2x2x24x16xf32>, tensor<2x2x24x32xf32>)
)");
  const double pairs = 2.0 * 8 * 8 * 24; // batch * query heads * Sq * Skv
  // Q K^T (2 * 16 per pair) and P V (2 * 32 per pair).
  EXPECT_DOUBLE_EQ(op("fwd").estimateFlops(), pairs * 2 * (16 + 32));
  // Scores, dQ, dK over head_dim 16; dV, dP over value head_dim 32.
  EXPECT_DOUBLE_EQ(op("bwd").estimateFlops(), pairs * 2 * (3 * 16 + 2 * 32));
  EXPECT_DOUBLE_EQ(op("causal_fwd").estimateFlops(),
                   op("fwd").estimateFlops() / 2);
  EXPECT_DOUBLE_EQ(op("causal_bwd").estimateFlops(),
                   op("bwd").estimateFlops() / 2);
  EXPECT_EQ(op("bwd").classifyCompute(), remat::ComputeClass::Attention);
}

TEST_F(RematNNOpsTest, SquareSdpaBackwardIsTwoAndAHalfForwards) {
  parse("%q: tensor<2x4x64x32xf16>, %lse: tensor<2x4x64xf32>", R"(
  %o, %l = remat.sdpa %q, %q, %q scale = 0.125 {remat.name = "fwd"} : (tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>) -> (tensor<2x4x64x32xf16>, tensor<2x4x64xf32>)
  %gq, %gk, %gv = remat.sdpa_backward %q, %q, %q, %q, %o, %lse scale = 0.125 {remat.name = "bwd"} : (tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64xf32>) -> (tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>, tensor<2x4x64x32xf16>)
)");
  EXPECT_DOUBLE_EQ(op("fwd").estimateFlops(), 4.0 * 2 * 4 * 64 * 64 * 32);
  EXPECT_DOUBLE_EQ(op("bwd").estimateFlops(), 10.0 * 2 * 4 * 64 * 64 * 32);
}

TEST_F(RematNNOpsTest, Conv2dCountsMultiplyAddsPerGroupAndBias) {
  // ResNet-50 stem: 7x7 stride 2 on 224x224 gives 112x112.
  parse("%x: tensor<32x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, "
        "%b: tensor<64xf32>, %dx: tensor<1x32x56x56xf32>, "
        "%dw: tensor<32x1x3x3xf32>",
        R"(
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [3, 3] dilation = [1, 1] groups = 1 {remat.name = "stem"} : (tensor<32x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<32x64x112x112xf32>
  %1 = remat.conv2d %x, %w, %b strides = [2, 2] padding = [3, 3] dilation = [1, 1] groups = 1 {remat.name = "stem_bias"} : (tensor<32x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<32x64x112x112xf32>
  %2 = remat.conv2d %dx, %dw strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 32 {remat.name = "depthwise"} : (tensor<1x32x56x56xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x56x56xf32>
)");
  const double stem =
      2.0 * 32 * 64 * 112 * 112 * 3 * 7 * 7; // 2*N*K*OH*OW*C*R*S
  EXPECT_DOUBLE_EQ(op("stem").estimateFlops(), stem);
  EXPECT_DOUBLE_EQ(op("stem_bias").estimateFlops(),
                   stem + 32.0 * 64 * 112 * 112);
  // Depthwise: each output channel sees one input channel (C / groups = 1).
  EXPECT_DOUBLE_EQ(op("depthwise").estimateFlops(),
                   2.0 * 1 * 32 * 56 * 56 * 1 * 3 * 3);
  EXPECT_EQ(op("stem").classifyCompute(), remat::ComputeClass::Conv);
  EXPECT_FALSE(op("stem").drawsRandomNumbers());
}

TEST_F(RematNNOpsTest, Conv2dBackwardOpsCostOneForwardEach) {
  parse("%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>, "
        "%g: tensor<2x4x5x5xf16>",
        R"(
  %y = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 {remat.name = "fwd"} : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  %gx = remat.conv2d_backward_input %g, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 {remat.name = "dinput"} : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x9x9xf16>
  %gw = remat.conv2d_backward_weight %g, %x strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 {remat.name = "dweight"} : (tensor<2x4x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<4x3x3x3xf16>
)");
  const double forward = 2.0 * 2 * 4 * 5 * 5 * 3 * 3 * 3;
  EXPECT_DOUBLE_EQ(op("fwd").estimateFlops(), forward);
  EXPECT_DOUBLE_EQ(op("dinput").estimateFlops(), forward);
  EXPECT_DOUBLE_EQ(op("dweight").estimateFlops(), forward);
  EXPECT_EQ(op("dinput").classifyCompute(), remat::ComputeClass::Conv);
  EXPECT_EQ(op("dweight").classifyCompute(), remat::ComputeClass::Conv);
}

TEST_F(RematNNOpsTest, DropoutIsRandomAndWritesItsMask) {
  parse("%x: tensor<16x64xbf16>, %seed: tensor<i64>, %offset: tensor<i64>", R"(
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.1 {remat.name = "drop"} : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi1>)
  %gx = remat.dropout_backward %y, %mask p = 0.1 {remat.name = "drop_bwd"} : (tensor<16x64xbf16>, tensor<16x64xi1>) -> tensor<16x64xbf16>
)");
  remat::PlannerOpInterface drop = op("drop");
  ASSERT_TRUE(drop);
  EXPECT_TRUE(drop.drawsRandomNumbers());
  EXPECT_EQ(drop.classifyCompute(), remat::ComputeClass::Random);
  EXPECT_DOUBLE_EQ(drop.estimateFlops(), 3.0 * 16 * 64);
  // bf16 output plus a 1-byte-per-element mask (Megatron's accounting); the
  // RNG state is two 8-byte scalars.
  EXPECT_EQ(drop.estimateBytesWritten(), 16 * 64 * 2 + 16 * 64 * 1);
  EXPECT_EQ(drop.estimateBytesRead(), 16 * 64 * 2 + 8 + 8);
  // The backward reuses the mask: no random numbers.
  EXPECT_FALSE(op("drop_bwd").drawsRandomNumbers());
  EXPECT_EQ(op("drop_bwd").classifyCompute(), remat::ComputeClass::Pointwise);
}

TEST_F(RematNNOpsTest, ComputeClassesOfTheOtherFamilies) {
  parse("%x: tensor<8x100xf32>, %w: tensor<100xf32>, %t: tensor<8xi64>, "
        "%table: tensor<1000x64xbf16>, %ids: tensor<4x8xi64>, "
        "%img: tensor<1x2x8x8xf32>",
        R"(
  %0 = remat.softmax %x dim = 1 {remat.name = "softmax"} : tensor<8x100xf32>
  %1, %2 = remat.rmsnorm %x, %w eps = 1.0e-5 {remat.name = "rmsnorm"} : (tensor<8x100xf32>, tensor<100xf32>) -> (tensor<8x100xf32>, tensor<8xf32>)
  %3, %4, %5 = remat.layernorm %x, %w, %w eps = 1.0e-5 {remat.name = "layernorm"} : (tensor<8x100xf32>, tensor<100xf32>, tensor<100xf32>) -> (tensor<8x100xf32>, tensor<8xf32>, tensor<8xf32>)
  %6 = remat.cross_entropy %x, %t {remat.name = "loss"} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
  %7 = remat.embedding %table, %ids {remat.name = "embed"} : (tensor<1000x64xbf16>, tensor<4x8xi64>) -> tensor<4x8x64xbf16>
  %8, %9 = remat.max_pool2d %img kernel = [2, 2] strides = [2, 2] padding = [0, 0] {remat.name = "maxpool"} : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  %10 = remat.avg_pool2d %img kernel = [2, 2] strides = [2, 2] padding = [0, 0] {remat.name = "avgpool"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
)");
  EXPECT_EQ(op("softmax").classifyCompute(),
            remat::ComputeClass::Normalization);
  EXPECT_DOUBLE_EQ(op("softmax").estimateFlops(), 5.0 * 8 * 100);
  EXPECT_EQ(op("rmsnorm").classifyCompute(),
            remat::ComputeClass::Normalization);
  EXPECT_EQ(op("layernorm").classifyCompute(),
            remat::ComputeClass::Normalization);
  EXPECT_EQ(op("loss").classifyCompute(), remat::ComputeClass::Reduction);
  EXPECT_EQ(op("embed").classifyCompute(), remat::ComputeClass::Other);
  EXPECT_FALSE(op("embed").isViewOnly());
  EXPECT_DOUBLE_EQ(op("embed").estimateFlops(), 0.0);
  // A gather reads the indices and the 32 rows it returns, not the table.
  EXPECT_EQ(op("embed").estimateBytesRead(), 4 * 8 * 8 + 4 * 8 * 64 * 2);
  EXPECT_EQ(op("maxpool").classifyCompute(), remat::ComputeClass::Reduction);
  EXPECT_DOUBLE_EQ(op("maxpool").estimateFlops(), 1.0 * 2 * 4 * 4 * 2 * 2);
  EXPECT_DOUBLE_EQ(op("avgpool").estimateFlops(),
                   1.0 * 2 * 4 * 4 * (2 * 2 + 1));
}

} // namespace
