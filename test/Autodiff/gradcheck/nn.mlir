// Finite-difference check of the neural-network ops: each differentiates
// into the dialect's backward op, so this also checks the lowering of those
// backward ops against the forward ops'.
// RUN: remat-gradcheck %s | FileCheck %s

// CHECK: @softmax: PASS
func.func @softmax(
    %x: tensor<3x5xf32> {remat.role = "input"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.softmax %x dim = 1 : tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @log_softmax: PASS
func.func @log_softmax(
    %x: tensor<3x5xf32> {remat.role = "input"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.log_softmax %x dim = 0 : tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @rmsnorm: PASS
func.func @rmsnorm(
    %x: tensor<2x3x4xf32> {remat.role = "input"},
    %w: tensor<4xf32> {remat.role = "param"})
    -> (tensor<2x3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// CHECK: @rmsnorm_2d_weight: PASS
func.func @rmsnorm_2d_weight(
    %x: tensor<2x3x4xf32> {remat.role = "input"},
    %w: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<2x3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %rstd = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2xf32>)
  return %y : tensor<2x3x4xf32>
}

// CHECK: @layernorm: PASS
func.func @layernorm(
    %x: tensor<3x6xf32> {remat.role = "input"},
    %w: tensor<6xf32> {remat.role = "param"},
    %b: tensor<6xf32> {remat.role = "param"})
    -> (tensor<3x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<3x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<3x6xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<3x6xf32>
}

// CHECK: @batchnorm: PASS
func.func @batchnorm(
    %x: tensor<2x3x2x2xf32> {remat.role = "input"},
    %w: tensor<3xf32> {remat.role = "param"},
    %b: tensor<3xf32> {remat.role = "param"})
    -> (tensor<2x3x2x2xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mean, %invstd = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<2x3x2x2xf32>
}

// CHECK: @sdpa_causal_gqa: PASS
func.func @sdpa_causal_gqa(
    %q: tensor<1x4x3x4xf32> {remat.role = "input"},
    %k: tensor<1x2x3x4xf32> {remat.role = "input"},
    %v: tensor<1x2x3x2xf32> {remat.role = "input"})
    -> (tensor<1x4x3x2xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.5 {causal} : (tensor<1x4x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>) -> (tensor<1x4x3x2xf32>, tensor<1x4x3xf32>)
  return %o : tensor<1x4x3x2xf32>
}

// CHECK: @sdpa: PASS
func.func @sdpa(
    %q: tensor<2x1x3x4xf32> {remat.role = "input"},
    %k: tensor<2x1x5x4xf32> {remat.role = "input"},
    %v: tensor<2x1x5x3xf32> {remat.role = "input"})
    -> (tensor<2x1x3x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.5 : (tensor<2x1x3x4xf32>, tensor<2x1x5x4xf32>, tensor<2x1x5x3xf32>) -> (tensor<2x1x3x3xf32>, tensor<2x1x3xf32>)
  return %o : tensor<2x1x3x3xf32>
}

// The mask is a pure function of (seed, offset, index): the finite differences
// see the same mask as the backward.
// CHECK: @dropout: PASS
func.func @dropout(
    %x: tensor<4x8xf32> {remat.role = "input"},
    %seed: tensor<i64> {remat.role = "rng"},
    %offset: tensor<i64> {remat.role = "rng"})
    -> (tensor<4x8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.25 : (tensor<4x8xf32>, tensor<i64>, tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xi1>)
  return %y : tensor<4x8xf32>
}

// 8 lookups into 6 rows: some rows are hit twice (scatter-add), some never.
// CHECK: @embedding: PASS
func.func @embedding(
    %table: tensor<6x3xf32> {remat.role = "param"},
    %ids: tensor<2x4xi64> {remat.role = "input"})
    -> (tensor<2x4x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.embedding %table, %ids : (tensor<6x3xf32>, tensor<2x4xi64>) -> tensor<2x4x3xf32>
  return %y : tensor<2x4x3xf32>
}

// CHECK: @cross_entropy_mean: PASS
func.func @cross_entropy_mean(
    %logits: tensor<4x5xf32> {remat.role = "input"},
    %targets: tensor<4xi64> {remat.role = "input"})
    -> (tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %loss = remat.cross_entropy %logits, %targets : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: @cross_entropy_sum: PASS
func.func @cross_entropy_sum(
    %logits: tensor<4x5xf32> {remat.role = "input"},
    %targets: tensor<4xi64> {remat.role = "input"})
    -> (tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %loss = remat.cross_entropy %logits, %targets {reduction = "sum"} : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// CHECK: @conv2d: PASS
func.func @conv2d(
    %x: tensor<1x2x5x5xf32> {remat.role = "input"},
    %w: tensor<3x2x3x3xf32> {remat.role = "param"},
    %b: tensor<3xf32> {remat.role = "param"})
    -> (tensor<1x3x3x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.conv2d %x, %w, %b strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// CHECK: @conv2d_grouped_dilated: PASS
func.func @conv2d_grouped_dilated(
    %x: tensor<2x4x5x5xf32> {remat.role = "input"},
    %w: tensor<2x2x2x2xf32> {remat.role = "param"})
    -> (tensor<2x2x3x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.conv2d %x, %w strides = [1, 1] padding = [0, 0] dilation = [2, 2] groups = 2 : (tensor<2x4x5x5xf32>, tensor<2x2x2x2xf32>) -> tensor<2x2x3x3xf32>
  return %y : tensor<2x2x3x3xf32>
}

// CHECK: @max_pool2d: PASS
func.func @max_pool2d(
    %x: tensor<1x2x4x4xf32> {remat.role = "input"})
    -> (tensor<1x2x2x2xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %idx = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x4x4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %y : tensor<1x2x2x2xf32>
}

// CHECK: @avg_pool2d: PASS
func.func @avg_pool2d(
    %x: tensor<1x2x5x5xf32> {remat.role = "input"})
    -> (tensor<1x2x3x3xf32> {remat.role = "output"}, tensor<1x2x3x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.avg_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %b = remat.avg_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %a, %b : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
}
