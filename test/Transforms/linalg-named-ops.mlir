// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-report="format=text output=-" -o /dev/null | FileCheck %s

// Every linalg structured op has the planner's linalg model, not only the
// 17 a hand-kept list named before 2026-12-07: a convolution or contraction
// is classed conv or matmul from its semantics, so automatic planning saves
// it. Before, linalg.conv_2d_nhwc_fhwc, depthwise convolutions,
// linalg.contract and linalg.batch_reduce_matmul fell to the region-op
// default (class "other", about a FLOP per element) and the bytes-only cut
// recomputed them at 1/1000 of their cost.

// CHECK-LABEL: remat plan for @conv_fhwc
// CHECK: conv save {{.*}} linalg.conv_2d_nhwc_fhwc saved: {{.*}}compute-intensive
func.func @conv_fhwc(%x: tensor<2x10x10x8xf32> {remat.role = "input"},
                     %k: tensor<8x3x3x8xf32> {remat.role = "param"},
                     %dy: tensor<2x8x8x8xf32> {remat.role = "tangent"})
    -> (tensor<2x8x8x8xf32> {remat.role = "output"},
        tensor<2x8x8x8xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.conv_2d_nhwc_fhwc {remat.name = "conv"} ins(%x, %k : tensor<2x10x10x8xf32>, tensor<8x3x3x8xf32>) outs(%acc : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %y = math.tanh %c : tensor<2x8x8x8xf32>
  %g = arith.mulf %dy, %c : tensor<2x8x8x8xf32>
  return %y, %g : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>
}

// CHECK-LABEL: remat plan for @depthwise
// CHECK: dw save {{.*}} linalg.depthwise_conv_2d_nhwc_hwc saved: {{.*}}compute-intensive
func.func @depthwise(%x: tensor<2x10x10x8xf32> {remat.role = "input"},
                     %k: tensor<3x3x8xf32> {remat.role = "param"},
                     %dy: tensor<2x8x8x8xf32> {remat.role = "tangent"})
    -> (tensor<2x8x8x8xf32> {remat.role = "output"},
        tensor<2x8x8x8xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {remat.name = "dw"} ins(%x, %k : tensor<2x10x10x8xf32>, tensor<3x3x8xf32>) outs(%acc : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %y = math.tanh %c : tensor<2x8x8x8xf32>
  %g = arith.mulf %dy, %c : tensor<2x8x8x8xf32>
  return %y, %g : tensor<2x8x8x8xf32>, tensor<2x8x8x8xf32>
}

// CHECK-LABEL: remat plan for @contract
// CHECK: m save {{.*}} linalg.contract saved: {{.*}}compute-intensive
// CHECK: brm save {{.*}} linalg.batch_reduce_matmul saved: {{.*}}compute-intensive
func.func @contract(%x: tensor<16x32xf32> {remat.role = "input"},
                    %w: tensor<2x16x32xf32> {remat.role = "param"},
                    %dy: tensor<16x32xf32> {remat.role = "tangent"})
    -> (tensor<16x32xf32> {remat.role = "output"},
        tensor<16x32xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x16xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %m = linalg.contract indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %x : tensor<16x32xf32>, tensor<16x32xf32>) outs(%acc : tensor<16x16xf32>) {remat.name = "m"} -> tensor<16x16xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xf32> into tensor<1x16x16xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %w1 = tensor.extract_slice %w[0, 0, 0] [1, 16, 32] [1, 1, 1] : tensor<2x16x32xf32> to tensor<1x16x32xf32>
  %r = linalg.batch_reduce_matmul {remat.name = "brm"} ins(%m3, %w1 : tensor<1x16x16xf32>, tensor<1x16x32xf32>) outs(%acc2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = math.tanh %r : tensor<16x32xf32>
  %gm = arith.mulf %dy, %r : tensor<16x32xf32>
  %gm2 = arith.mulf %gm, %gm : tensor<16x32xf32>
  %mm = linalg.matmul ins(%m, %gm2 : tensor<16x16xf32>, tensor<16x32xf32>) outs(%acc2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y, %mm : tensor<16x32xf32>, tensor<16x32xf32>
}
