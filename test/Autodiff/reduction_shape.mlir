// RUN: remat-opt %s -split-input-file -remat-autodiff | FileCheck %s

// Reductions (their gradients broadcast back) and shape ops (inverse views,
// sums over broadcast dims, zero padding for slices, slices for concat).

// sum broadcasts the gradient back along the reduced dims (explicit dims
// mapping without keepdim, numpy rules with keepdim or to a scalar); mean
// also scales by 1/N. The three gradients of %x accumulate.
// CHECK-LABEL: func.func @sum_mean_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {remat.role = "input"}, %[[G0:[^:]*]]: tensor<4xf32> {remat.role = "tangent"}, %[[G1:[^:]*]]: tensor<1x8xf32> {remat.role = "tangent"}, %[[G2:[^:]*]]: tensor<f32> {remat.role = "tangent"}
// CHECK:      %[[B2:.*]] = remat.broadcast %[[G2]] : (tensor<f32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[B1:.*]] = remat.broadcast %[[G1]] : (tensor<1x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[MEAN:.*]] = remat.mul_scalar %[[B1]], 2.5{{0*}}e-01
// CHECK-NEXT: %[[ACC:.*]] = remat.add %[[B2]], %[[MEAN]]
// CHECK-NEXT: %[[B0:.*]] = remat.broadcast %[[G0]] {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DX:.*]] = remat.add %[[ACC]], %[[B0]]
// CHECK-NEXT: return {{.*}}, %[[DX]]
func.func @sum_mean(%x: tensor<4x8xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}, tensor<1x8xf32> {remat.role = "output"}, tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %s = remat.sum %x {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  %m = remat.mean %x {dims = array<i64: 0>, keepdim} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %t = remat.sum %x {dims = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<f32>
  return %s, %m, %t : tensor<4xf32>, tensor<1x8xf32>, tensor<f32>
}

// -----

// max: the gradient goes to the maxima, split between ties.
// CHECK-LABEL: func.func @max_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {remat.role = "input"}, %[[G:[^:]*]]: tensor<4xf32> {remat.role = "tangent"}
// CHECK:      %[[M:.*]] = remat.max %[[X]]
// CHECK-NEXT: %[[MB:.*]] = remat.broadcast %[[M]] {dims = array<i64: 0>}
// CHECK-NEXT: %[[EQ:.*]] = remat.compare %[[X]], %[[MB]] {predicate = "eq"} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
// CHECK-NEXT: %[[EQF:.*]] = remat.cast %[[EQ]] : (tensor<4x8xi1>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[TIES:.*]] = remat.sum %[[EQF]] {dims = array<i64: 1>}
// CHECK-NEXT: %[[SHARE:.*]] = remat.div %[[G]], %[[TIES]]
// CHECK-NEXT: %[[SB:.*]] = remat.broadcast %[[SHARE]] {dims = array<i64: 0>}
// CHECK-NEXT: %[[DX:.*]] = remat.mul %[[SB]], %[[EQF]]
// CHECK-NEXT: return %[[M]], %[[DX]]
func.func @max(%x: tensor<4x8xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %m = remat.max %x {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %m : tensor<4xf32>
}

// -----

// reshape and transpose invert themselves.
// CHECK-LABEL: func.func @views_joint(
// CHECK-SAME: %[[G:[^:]*]]: tensor<4x6xf32> {remat.role = "tangent"}
// CHECK:      %[[R:.*]] = remat.reshape %[[G]] : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: %[[T:.*]] = remat.transpose %[[R]] {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT: return {{.*}}, %[[T]]
func.func @views(%x: tensor<2x3x4xf32> {remat.role = "input"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %t = remat.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %r = remat.reshape %t : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// broadcast: sum over the new and the stretched dims, reshape to the input.
// CHECK-LABEL: func.func @broadcasts_joint(
// CHECK-SAME: %[[G:[^:]*]]: tensor<4x8xf32> {remat.role = "tangent"}
// CHECK:      %[[DD:.*]] = remat.sum %[[G]] {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[DC1:.*]] = remat.sum %[[G]] {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[DC:.*]] = remat.reshape %[[DC1]] : (tensor<4xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.sum %[[G]] {dims = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return {{.*}}, %[[DB]], %[[DC]], %[[DD]]
func.func @broadcasts(%b: tensor<8xf32> {remat.role = "param"}, %c: tensor<4x1xf32> {remat.role = "param"}, %d: tensor<4xf32> {remat.role = "param"})
    -> (tensor<4x8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %bb = remat.broadcast %b : (tensor<8xf32>) -> tensor<4x8xf32>
  %cb = remat.broadcast %c : (tensor<4x1xf32>) -> tensor<4x8xf32>
  %db = remat.broadcast %d {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x8xf32>
  %s = remat.add %bb, %cb : tensor<4x8xf32>
  %y = remat.add %s, %db : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

// slice: the gradient is padded back with zeros by concatenation; a strided
// dim first interleaves stride - 1 zeros (reshape + concat), trimmed to fit.
// CHECK-LABEL: func.func @slices_joint(
// CHECK-SAME: %[[GA:[^:]*]]: tensor<4x3xf32> {remat.role = "tangent"}, %[[GB:[^:]*]]: tensor<2x3xf32> {remat.role = "tangent"}
// CHECK:      %[[COL:.*]] = remat.reshape %[[GB]] : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK-NEXT: %[[Z0:.*]] = remat.constant dense<0.000000e+00> : tensor<2x1x3xf32>
// CHECK-NEXT: %[[SPREAD:.*]] = remat.concat %[[COL]], %[[Z0]] {dim = 1 : i64}
// CHECK-NEXT: %[[ROWS:.*]] = remat.reshape %[[SPREAD]] : (tensor<2x2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[TRIM:.*]] = remat.slice %[[ROWS]] {offsets = array<i64: 0, 0>, sizes = array<i64: 3, 3>}
// CHECK-NEXT: %[[Z1:.*]] = remat.constant dense<0.000000e+00> : tensor<1x3xf32>
// CHECK-NEXT: %[[PAD0:.*]] = remat.concat %[[Z1]], %[[TRIM]] {dim = 0 : i64} : (tensor<1x3xf32>, tensor<3x3xf32>) -> tensor<4x3xf32>
// CHECK:      remat.concat %{{.*}} {dim = 2 : i64} : (tensor<4x3x1xf32>, tensor<4x3x3xf32>) -> tensor<4x3x4xf32>
// CHECK:      remat.slice %{{.*}} {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 9>}
// CHECK:      %[[DB:.*]] = remat.concat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x1xf32>, tensor<4x9xf32>) -> tensor<4x10xf32>
// CHECK-NEXT: %[[ZL:.*]] = remat.constant dense<0.000000e+00> : tensor<4x2xf32>
// CHECK-NEXT: %[[ZR:.*]] = remat.constant dense<0.000000e+00> : tensor<4x5xf32>
// CHECK-NEXT: %[[DA:.*]] = remat.concat %[[ZL]], %[[GA]], %[[ZR]] {dim = 1 : i64}
// CHECK-NEXT: %[[DX:.*]] = remat.add %[[DB]], %[[DA]]
// CHECK-NEXT: return {{.*}}, %[[DX]]
func.func @slices(%x: tensor<4x10xf32> {remat.role = "input"})
    -> (tensor<4x3xf32> {remat.role = "output"}, tensor<2x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 3>} : (tensor<4x10xf32>) -> tensor<4x3xf32>
  %b = remat.slice %x {offsets = array<i64: 1, 1>, sizes = array<i64: 2, 3>, strides = array<i64: 2, 4>} : (tensor<4x10xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<4x3xf32>, tensor<2x3xf32>
}

// -----

// concat: each input gets its slice of the gradient.
// CHECK-LABEL: func.func @concat_joint(
// CHECK-SAME: %[[G:[^:]*]]: tensor<4x5xf32> {remat.role = "tangent"}
// CHECK:      %[[DA:.*]] = remat.slice %[[G]] {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 2>} : (tensor<4x5xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.slice %[[G]] {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 3>} : (tensor<4x5xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: return {{.*}}, %[[DA]], %[[DB]]
func.func @concat(%a: tensor<4x2xf32> {remat.role = "input"}, %b: tensor<4x3xf32> {remat.role = "input"})
    -> (tensor<4x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.concat %a, %b {dim = 1} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
  return %c : tensor<4x5xf32>
}

// -----

// Slices that tile their source along one dim (a fused q/k/v projection)
// get one concat of their cotangents instead of zero-padded sums; a piece
// that reaches no output contributes zeros.
// CHECK-LABEL: func.func @qkv_split_joint(
// CHECK-SAME: %[[GQ:[^:]*]]: tensor<4x2xf32> {remat.role = "tangent"}, %[[GV:[^:]*]]: tensor<4x2xf32> {remat.role = "tangent"}
// CHECK:      %[[DQK:.*]] = remat.mul %[[GQ]], %{{.*}}
// CHECK-NEXT: %[[DK:.*]] = remat.mul %[[GQ]], %{{.*}}
// CHECK-NEXT: %[[DQKV:.*]] = remat.concat %[[DQK]], %[[DK]], %[[GV]] {dim = 1 : i64} : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x6xf32>
// CHECK-NOT:  remat.add
// CHECK:      return
func.func @qkv_split(%qkv: tensor<4x6xf32> {remat.role = "input"})
    -> (tensor<4x2xf32> {remat.role = "output"}, tensor<4x2xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %q = remat.slice %qkv {offsets = array<i64: 0, 0>, sizes = array<i64: 4, 2>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %k = remat.slice %qkv {offsets = array<i64: 0, 2>, sizes = array<i64: 4, 2>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %v = remat.slice %qkv {offsets = array<i64: 0, 4>, sizes = array<i64: 4, 2>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  %s = remat.mul %q, %k : tensor<4x2xf32>
  return %s, %v : tensor<4x2xf32>, tensor<4x2xf32>
}
