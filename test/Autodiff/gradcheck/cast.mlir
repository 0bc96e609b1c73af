// cast: f16 inputs are kept (no widening) so the cast to f32 is real; the
// input perturbations are rounded to f16 and the check uses the rounded step.
// RUN: remat-gradcheck %s -no-widen -function=cast | FileCheck %s --check-prefix=CHECK-CAST
// RUN: remat-gradcheck %s -function=mixed_precision | FileCheck %s

// CHECK-CAST: @cast: PASS
func.func @cast(
    %x: tensor<3x4xf16> {remat.role = "input"},
    %w: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.cast %x : (tensor<3x4xf16>) -> tensor<3x4xf32>
  %y = remat.mul %c, %w : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// Mixed precision widened to f32: the bf16 <-> f32 casts become identities
// and are dropped, the rest is checked in f32.
// CHECK: @mixed_precision: PASS
func.func @mixed_precision(
    %x: tensor<3x4xbf16> {remat.role = "input"},
    %w: tensor<4x2xf32> {remat.role = "param"})
    -> (tensor<3x2xbf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %xf = remat.cast %x : (tensor<3x4xbf16>) -> tensor<3x4xf32>
  %y = remat.matmul %xf, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  %yb = remat.cast %y : (tensor<3x2xf32>) -> tensor<3x2xbf16>
  return %yb : tensor<3x2xbf16>
}
