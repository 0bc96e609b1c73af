// RUN: remat-opt %s -remat-plan -remat-report="format=text output=-" -remat-partition | FileCheck %s

// A value a region captures is read by the op that owns the region: here
// the backward linalg.generic multiplies by %s2, computed in forward and
// tagged never_recompute. Before 2026-12-07 only region ops without planner
// facts read their captures, so the plan said s2 was not needed by backward
// and remat-partition replayed the tagged op there.

// CHECK: s2 save {{.*}} arith.mulf saved: tagged never_recompute
// CHECK-LABEL: func.func @cap_forward(
// CHECK: %[[S2:.*]] = arith.mulf {{.*}}remat.name = "s2"
// CHECK: return %{{.*}}, %[[S2]] :
// CHECK-LABEL: func.func @cap_backward(
// CHECK-SAME: %[[SAVED:[^:]*]]: f32,
// CHECK-NOT: remat.name = "s2"
// CHECK: arith.mulf %{{.*}}, %[[SAVED]] : f32
// CHECK-NOT: remat.name = "s2"
// CHECK: return
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @cap(%x: tensor<4x8xf32> {remat.role = "input"},
               %alpha: f32 {remat.role = "param"},
               %dy: tensor<4x8xf32> {remat.role = "tangent"})
    -> (tensor<4x8xf32> {remat.role = "output"},
        tensor<4x8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %two = arith.constant 2.0 : f32
  %s = arith.addf %alpha, %alpha : f32
  %s2 = arith.mulf %s, %two {remat.name = "s2", remat.never_recompute} : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) attrs = {remat.name = "y"} {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %s2 : f32
      linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %dx = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%dy : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %s2 : f32
      linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %y, %dx : tensor<4x8xf32>, tensor<4x8xf32>
}
