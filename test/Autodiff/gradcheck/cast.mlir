// cast: f16 inputs are kept (no widening) so the cast to f32 is real; the
// input perturbations are rounded to f16 and the check uses the rounded step.
// RUN: remat-gradcheck %s -no-widen -function=cast | FileCheck %s --check-prefix=CHECK-CAST
// RUN: remat-gradcheck %s -function=mixed_precision | FileCheck %s
// A narrow output, kept with -no-widen, rounds at its own type's unit
// roundoff (bf16: 2^-8; f32's 2^-24 was used before 2026-12-07, and no
// narrow output could pass); a bf16 output needs a step it can resolve:
// RUN: remat-gradcheck %s -no-widen -eps=0.05 -function=cast_down | FileCheck %s --check-prefix=CHECK-DOWN
// CHECK-DOWN: @cast_down: PASS

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

func.func @cast_down(%x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xbf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.cast %x : (tensor<3x4xf32>) -> tensor<3x4xbf16>
  return %y : tensor<3x4xbf16>
}
