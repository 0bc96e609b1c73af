// Finite-difference check of matmul (every transpose combination, batched,
// a rank-2 operand shared across a batch) and linear.
// RUN: remat-gradcheck %s | FileCheck %s

// CHECK: @matmul: PASS
func.func @matmul(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<4x5xf32> {remat.role = "param"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @matmul_ta: PASS
func.func @matmul_ta(
    %a: tensor<4x3xf32> {remat.role = "input"},
    %b: tensor<4x5xf32> {remat.role = "param"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b {transpose_a} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @matmul_tb: PASS
func.func @matmul_tb(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<5x4xf32> {remat.role = "param"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b {transpose_b} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @matmul_ta_tb: PASS
func.func @matmul_ta_tb(
    %a: tensor<4x3xf32> {remat.role = "input"},
    %b: tensor<5x4xf32> {remat.role = "param"})
    -> (tensor<3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<4x3xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// CHECK: @matmul_batched: PASS
func.func @matmul_batched(
    %a: tensor<2x3x4xf32> {remat.role = "input"},
    %b: tensor<2x5x4xf32> {remat.role = "input"})
    -> (tensor<2x3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b {transpose_b} : (tensor<2x3x4xf32>, tensor<2x5x4xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// CHECK: @matmul_shared_lhs: PASS
func.func @matmul_shared_lhs(
    %a: tensor<3x4xf32> {remat.role = "param"},
    %b: tensor<2x4x5xf32> {remat.role = "input"})
    -> (tensor<2x3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b : (tensor<3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// CHECK: @matmul_shared_rhs: PASS
func.func @matmul_shared_rhs(
    %a: tensor<2x3x4xf32> {remat.role = "input"},
    %b: tensor<5x4xf32> {remat.role = "param"})
    -> (tensor<2x3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.matmul %a, %b {transpose_b} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// CHECK: @linear: PASS
func.func @linear(
    %x: tensor<2x3x4xf32> {remat.role = "input"},
    %w: tensor<5x4xf32> {remat.role = "param"},
    %b: tensor<5xf32> {remat.role = "param"})
    -> (tensor<2x3x5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.linear %x, %w, %b : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) -> tensor<2x3x5xf32>
  return %y : tensor<2x3x5xf32>
}

// CHECK: @linear_vector: PASS
func.func @linear_vector(
    %x: tensor<4xf32> {remat.role = "input"},
    %w: tensor<5x4xf32> {remat.role = "param"})
    -> (tensor<5xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.linear %x, %w : (tensor<4xf32>, tensor<5x4xf32>) -> tensor<5xf32>
  return %y : tensor<5xf32>
}
