// cast: f16 inputs are kept (no widening) so the cast to f32 is real; the
// input perturbations are rounded to f16 and the check uses the rounded step.
// RUN: remat-gradcheck %s -no-widen | FileCheck %s

// CHECK: @cast: PASS
func.func @cast(
    %x: tensor<3x4xf16> {remat.role = "input"},
    %w: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.cast %x : (tensor<3x4xf16>) -> tensor<3x4xf32>
  %y = remat.mul %c, %w : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
