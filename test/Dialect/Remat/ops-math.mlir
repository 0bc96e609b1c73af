// RUN: remat-opt %s -split-input-file | remat-opt -split-input-file | FileCheck %s
// RUN: remat-opt %s -split-input-file -mlir-print-op-generic | remat-opt -split-input-file | FileCheck %s

// Round trip of every op in RematMathOps.td: the pretty form and the generic
// form both parse back to the pretty form checked here.

// CHECK-LABEL: func.func @constants
// CHECK: remat.constant dense<0.000000e+00> : tensor<4x8xf32>
// CHECK: remat.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xbf16>
// CHECK: remat.constant dense<[0, 3]> : tensor<2xi64>
// CHECK: remat.constant dense<true> : tensor<2x2xi1>
func.func @constants() -> (tensor<4x8xf32>, tensor<2xbf16>, tensor<2xi64>, tensor<2x2xi1>) {
  %0 = remat.constant dense<0.0> : tensor<4x8xf32>
  %1 = remat.constant dense<[1.0, 2.0]> : tensor<2xbf16>
  %2 = remat.constant dense<[0, 3]> : tensor<2xi64>
  %3 = remat.constant dense<true> : tensor<2x2xi1>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<2xbf16>, tensor<2xi64>, tensor<2x2xi1>
}

// -----

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// CHECK: %[[ADD:.*]] = remat.add %[[A]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[SUB:.*]] = remat.sub %[[ADD]], %[[B]] : tensor<4x8xf32>
// CHECK: %[[MUL:.*]] = remat.mul %[[SUB]], %[[A]] : tensor<4x8xf32>
// CHECK: %[[DIV:.*]] = remat.div %[[MUL]], %[[B]] : tensor<4x8xf32>
// CHECK: remat.pow %[[DIV]], %[[B]] : tensor<4x8xf32>
func.func @binary(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = remat.add %a, %b : tensor<4x8xf32>
  %1 = remat.sub %0, %b : tensor<4x8xf32>
  %2 = remat.mul %1, %a : tensor<4x8xf32>
  %3 = remat.div %2, %b : tensor<4x8xf32>
  %4 = remat.pow %3, %b : tensor<4x8xf32>
  return %4 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK: remat.neg %{{.*}} : tensor<8xf16>
// CHECK: remat.exp %{{.*}} : tensor<8xf16>
// CHECK: remat.log %{{.*}} : tensor<8xf16>
// CHECK: remat.sqrt %{{.*}} : tensor<8xf16>
// CHECK: remat.rsqrt %{{.*}} : tensor<8xf16>
// CHECK: remat.tanh %{{.*}} : tensor<8xf16>
// CHECK: remat.sigmoid %{{.*}} : tensor<8xf16>
// CHECK: remat.relu %{{.*}} : tensor<8xf16>
// CHECK: remat.silu %{{.*}} : tensor<8xf16>
// CHECK: remat.square %{{.*}} : tensor<8xf16>
func.func @unary(%x: tensor<8xf16>) -> tensor<8xf16> {
  %0 = remat.neg %x : tensor<8xf16>
  %1 = remat.exp %0 : tensor<8xf16>
  %2 = remat.log %1 : tensor<8xf16>
  %3 = remat.sqrt %2 : tensor<8xf16>
  %4 = remat.rsqrt %3 : tensor<8xf16>
  %5 = remat.tanh %4 : tensor<8xf16>
  %6 = remat.sigmoid %5 : tensor<8xf16>
  %7 = remat.relu %6 : tensor<8xf16>
  %8 = remat.silu %7 : tensor<8xf16>
  %9 = remat.square %8 : tensor<8xf16>
  return %9 : tensor<8xf16>
}

// -----

// Default attribute values are elided when printed.
// CHECK-LABEL: func.func @attributes
// CHECK: remat.leaky_relu %{{.*}} : tensor<2x3xbf16>
// CHECK: remat.leaky_relu %{{.*}} {alpha = 2.000000e-01 : f64} : tensor<2x3xbf16>
// CHECK: remat.gelu %{{.*}} : tensor<2x3xbf16>
// CHECK: remat.gelu %{{.*}} {approximate = "tanh"} : tensor<2x3xbf16>
// CHECK: remat.pow_scalar %{{.*}}, 3.000000e+00 : tensor<2x3xbf16>
// CHECK: remat.add_scalar %{{.*}}, 1.000000e+00 : tensor<2x3xbf16>
// CHECK: remat.mul_scalar %{{.*}}, 1.250000e-01 : tensor<2x3xbf16>
func.func @attributes(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = remat.leaky_relu %x : tensor<2x3xbf16>
  %1 = remat.leaky_relu %0 {alpha = 0.2} : tensor<2x3xbf16>
  %2 = remat.gelu %1 {approximate = "none"} : tensor<2x3xbf16>
  %3 = remat.gelu %2 {approximate = "tanh"} : tensor<2x3xbf16>
  %4 = remat.pow_scalar %3, 3.0 : tensor<2x3xbf16>
  %5 = remat.add_scalar %4, 1.0 : tensor<2x3xbf16>
  %6 = remat.mul_scalar %5, 0.125 : tensor<2x3xbf16>
  return %6 : tensor<2x3xbf16>
}

// -----

// CHECK-LABEL: func.func @where_cast
// CHECK-SAME: (%[[C:.*]]: tensor<4x8xi1>, %[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<4x8xbf16>,
// CHECK: %[[W:.*]] = remat.where %[[C]], %[[A]], %[[B]] : tensor<4x8xi1>, tensor<4x8xbf16>
// CHECK: %[[F:.*]] = remat.cast %[[W]] : (tensor<4x8xbf16>) -> tensor<4x8xf32>
// CHECK: remat.cast %[[C]] : (tensor<4x8xi1>) -> tensor<4x8xf32>
// CHECK: %[[GT:.*]] = remat.compare %[[A]], %[[B]] {predicate = "gt"} : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
// CHECK: remat.where %[[GT]], %[[A]], %[[B]] : tensor<4x8xi1>, tensor<4x8xbf16>
// CHECK: remat.compare %{{.*}}, %{{.*}} {predicate = "eq"} : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
// CHECK: remat.where %[[C]], %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi64>
func.func @where_cast(%c: tensor<4x8xi1>, %a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>, %i: tensor<4x8xi64>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi64>) {
  %0 = remat.where %c, %a, %b : tensor<4x8xi1>, tensor<4x8xbf16>
  %1 = remat.cast %0 : (tensor<4x8xbf16>) -> tensor<4x8xf32>
  %2 = remat.cast %c : (tensor<4x8xi1>) -> tensor<4x8xf32>
  %gt = remat.compare %a, %b {predicate = "gt"} : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xi1>
  %max = remat.where %gt, %a, %b : tensor<4x8xi1>, tensor<4x8xbf16>
  %eq = remat.compare %i, %i {predicate = "eq"} : (tensor<4x8xi64>, tensor<4x8xi64>) -> tensor<4x8xi1>
  %3 = remat.where %c, %i, %i : tensor<4x8xi1>, tensor<4x8xi64>
  return %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xi64>
}

// -----

// CHECK-LABEL: func.func @activation_backward
// CHECK-SAME: (%[[G:.*]]: tensor<16xf32>, %[[X:.*]]: tensor<16xf32>, %[[Y:.*]]: tensor<16xf32>)
// CHECK: remat.relu_backward %[[G]], %[[Y]] : tensor<16xf32>
// CHECK: remat.leaky_relu_backward %[[G]], %[[X]] {alpha = 2.000000e-01 : f64} : tensor<16xf32>
// CHECK: remat.gelu_backward %[[G]], %[[X]] : tensor<16xf32>
// CHECK: remat.gelu_backward %[[G]], %[[X]] {approximate = "tanh"} : tensor<16xf32>
// CHECK: remat.silu_backward %[[G]], %[[X]] : tensor<16xf32>
// CHECK: remat.sigmoid_backward %[[G]], %[[Y]] : tensor<16xf32>
// CHECK: remat.tanh_backward %[[G]], %[[Y]] : tensor<16xf32>
func.func @activation_backward(%g: tensor<16xf32>, %x: tensor<16xf32>, %y: tensor<16xf32>)
    -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %0 = remat.relu_backward %g, %y : tensor<16xf32>
  %1 = remat.leaky_relu_backward %g, %x {alpha = 0.2} : tensor<16xf32>
  %2 = remat.gelu_backward %g, %x : tensor<16xf32>
  %3 = remat.gelu_backward %g, %x {approximate = "tanh"} : tensor<16xf32>
  %4 = remat.silu_backward %g, %x : tensor<16xf32>
  %5 = remat.sigmoid_backward %g, %y : tensor<16xf32>
  %6 = remat.tanh_backward %g, %y : tensor<16xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// CHECK-LABEL: func.func @contractions
// CHECK: remat.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: remat.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: remat.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4x3x8xbf16>, tensor<2x4x3x8xbf16>) -> tensor<2x4x3x3xbf16>
// CHECK: remat.matmul %{{.*}}, %{{.*}} : (tensor<2x4x3x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x3x16xbf16>
// CHECK: remat.matmul %{{.*}}, %{{.*}} {transpose_a, transpose_b} : (tensor<8x3xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x3x16xbf16>
// CHECK: remat.linear %{{.*}}, %{{.*}} : (tensor<2x16x64xbf16>, tensor<128x64xbf16>) -> tensor<2x16x128xbf16>
// CHECK: remat.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x16x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<2x16x128xbf16>
// CHECK: remat.linear %{{.*}}, %{{.*}} : (tensor<64xbf16>, tensor<128x64xbf16>) -> tensor<128xbf16>
func.func @contractions(%a: tensor<4x8xf32>, %at: tensor<8x4xf32>, %b: tensor<8x16xf32>,
                        %q: tensor<2x4x3x8xbf16>, %x: tensor<2x16x64xbf16>,
                        %w: tensor<128x64xbf16>, %bias: tensor<128xbf16>, %v: tensor<64xbf16>,
                        %m: tensor<8x16xbf16>, %mt: tensor<8x3xbf16>, %r: tensor<2x4x16x8xbf16>) {
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = remat.matmul %at, %b {transpose_a} : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %2 = remat.matmul %q, %q {transpose_b} : (tensor<2x4x3x8xbf16>, tensor<2x4x3x8xbf16>) -> tensor<2x4x3x3xbf16>
  %6 = remat.matmul %q, %m : (tensor<2x4x3x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x3x16xbf16>
  %7 = remat.matmul %mt, %r {transpose_a, transpose_b} : (tensor<8x3xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x3x16xbf16>
  %3 = remat.linear %x, %w : (tensor<2x16x64xbf16>, tensor<128x64xbf16>) -> tensor<2x16x128xbf16>
  %4 = remat.linear %x, %w, %bias : (tensor<2x16x64xbf16>, tensor<128x64xbf16>, tensor<128xbf16>) -> tensor<2x16x128xbf16>
  %5 = remat.linear %v, %w : (tensor<64xbf16>, tensor<128x64xbf16>) -> tensor<128xbf16>
  return
}

// -----

// CHECK-LABEL: func.func @reductions
// CHECK: remat.sum %{{.*}} {dims = array<i64: 1>} : (tensor<4x8x2xf32>) -> tensor<4x2xf32>
// CHECK: remat.sum %{{.*}} {dims = array<i64: 2, 0>, keepdim} : (tensor<4x8x2xf32>) -> tensor<1x8x1xf32>
// CHECK: remat.mean %{{.*}} {dims = array<i64: 0, 1, 2>} : (tensor<4x8x2xf32>) -> tensor<f32>
// CHECK: remat.max %{{.*}} {dims = array<i64: 2>, keepdim} : (tensor<4x8x2xf32>) -> tensor<4x8x1xf32>
func.func @reductions(%x: tensor<4x8x2xf32>) {
  %0 = remat.sum %x {dims = array<i64: 1>} : (tensor<4x8x2xf32>) -> tensor<4x2xf32>
  %1 = remat.sum %x {dims = array<i64: 2, 0>, keepdim} : (tensor<4x8x2xf32>) -> tensor<1x8x1xf32>
  %2 = remat.mean %x {dims = array<i64: 0, 1, 2>} : (tensor<4x8x2xf32>) -> tensor<f32>
  %3 = remat.max %x {dims = array<i64: 2>, keepdim} : (tensor<4x8x2xf32>) -> tensor<4x8x1xf32>
  return
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: remat.reshape %{{.*}} : (tensor<4x8xf32>) -> tensor<2x16xf32>
// CHECK: remat.reshape %{{.*}} : (tensor<2x3xi64>) -> tensor<6xi64>
// CHECK: remat.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK: remat.transpose %{{.*}} {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x8x4xbf16>) -> tensor<2x8x16x4xbf16>
// CHECK: remat.broadcast %{{.*}} : (tensor<8xf32>) -> tensor<4x8xf32>
// CHECK: remat.broadcast %{{.*}} : (tensor<1x8xf32>) -> tensor<3x4x8xf32>
// CHECK: remat.broadcast %{{.*}} {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x8xf32>
// CHECK: remat.slice %{{.*}} {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
// CHECK: remat.slice %{{.*}} {offsets = array<i64: 0, 1>, sizes = array<i64: 4, 4>, strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
// CHECK: remat.concat %{{.*}}, %{{.*}} {dim = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
// CHECK: remat.concat %{{.*}} {dim = 0 : i64} : (tensor<8xi1>) -> tensor<8xi1>
func.func @shapes(%x: tensor<4x8xf32>, %i: tensor<2x3xi64>, %h: tensor<2x16x8x4xbf16>, %v: tensor<8xf32>,
                  %r: tensor<1x8xf32>, %c: tensor<4xf32>, %y: tensor<4x2xf32>, %m: tensor<8xi1>) {
  %0 = remat.reshape %x : (tensor<4x8xf32>) -> tensor<2x16xf32>
  %1 = remat.reshape %i : (tensor<2x3xi64>) -> tensor<6xi64>
  %2 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %3 = remat.transpose %h {permutation = array<i64: 0, 2, 1, 3>} : (tensor<2x16x8x4xbf16>) -> tensor<2x8x16x4xbf16>
  %4 = remat.broadcast %v : (tensor<8xf32>) -> tensor<4x8xf32>
  %5 = remat.broadcast %r : (tensor<1x8xf32>) -> tensor<3x4x8xf32>
  %6 = remat.broadcast %c {dims = array<i64: 0>} : (tensor<4xf32>) -> tensor<4x8xf32>
  %7 = remat.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  %8 = remat.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 4, 4>, strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  %9 = remat.concat %x, %y {dim = 1} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  %10 = remat.concat %m {dim = 0} : (tensor<8xi1>) -> tensor<8xi1>
  return
}
