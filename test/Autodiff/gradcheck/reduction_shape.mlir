// Finite-difference check of the reductions and shape ops.
// RUN: remat-gradcheck %s | FileCheck %s

// CHECK: @sum: PASS
func.func @sum(
    %x: tensor<3x4x2xf32> {remat.role = "input"})
    -> (tensor<3x2xf32> {remat.role = "output"}, tensor<1x4x1xf32> {remat.role = "output"}, tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.sum %x {dims = array<i64: 1>} : (tensor<3x4x2xf32>) -> tensor<3x2xf32>
  %b = remat.sum %x {dims = array<i64: 2, 0>, keepdim} : (tensor<3x4x2xf32>) -> tensor<1x4x1xf32>
  %c = remat.sum %x {dims = array<i64: 0, 1, 2>} : (tensor<3x4x2xf32>) -> tensor<f32>
  return %a, %b, %c : tensor<3x2xf32>, tensor<1x4x1xf32>, tensor<f32>
}

// CHECK: @mean: PASS
func.func @mean(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}, tensor<3x1xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.mean %x {dims = array<i64: 0>} : (tensor<3x4xf32>) -> tensor<4xf32>
  %b = remat.mean %x {dims = array<i64: 1>, keepdim} : (tensor<3x4xf32>) -> tensor<3x1xf32>
  return %a, %b : tensor<4xf32>, tensor<3x1xf32>
}

// CHECK: @max: PASS
func.func @max(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3xf32> {remat.role = "output"}, tensor<1x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.max %x {dims = array<i64: 1>} : (tensor<3x4xf32>) -> tensor<3xf32>
  %b = remat.max %x {dims = array<i64: 0>, keepdim} : (tensor<3x4xf32>) -> tensor<1x4xf32>
  return %a, %b : tensor<3xf32>, tensor<1x4xf32>
}

// CHECK: @reshape_transpose: PASS
func.func @reshape_transpose(
    %x: tensor<2x3x4xf32> {remat.role = "input"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %t = remat.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %y = remat.reshape %t : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// CHECK: @broadcast: PASS
func.func @broadcast(
    %b: tensor<4xf32> {remat.role = "param"},
    %c: tensor<3x1xf32> {remat.role = "param"},
    %d: tensor<3xf32> {remat.role = "param"})
    -> (tensor<2x3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %bb = remat.broadcast %b : (tensor<4xf32>) -> tensor<2x3x4xf32>
  %cb = remat.broadcast %c : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %db = remat.broadcast %d {dims = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3x4xf32>
  %s = remat.mul %bb, %cb : tensor<2x3x4xf32>
  %y = remat.add %s, %db : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// CHECK: @slice: PASS
func.func @slice(
    %x: tensor<5x10xf32> {remat.role = "input"})
    -> (tensor<5x3xf32> {remat.role = "output"}, tensor<2x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 5, 3>} : (tensor<5x10xf32>) -> tensor<5x3xf32>
  %b = remat.slice %x {offsets = array<i64: 1, 1>, sizes = array<i64: 2, 3>, strides = array<i64: 3, 4>} : (tensor<5x10xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<5x3xf32>, tensor<2x3xf32>
}

// CHECK: @concat: PASS
func.func @concat(
    %a: tensor<3x2xf32> {remat.role = "input"},
    %b: tensor<3x3xf32> {remat.role = "param"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.concat %a, %b {dim = 1} : (tensor<3x2xf32>, tensor<3x3xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}
