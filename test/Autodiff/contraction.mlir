// RUN: remat-opt %s -split-input-file -remat-autodiff | FileCheck %s

// Contractions: matmul with every transpose combination and matrix
// broadcasting, and linear.

// C = A B: dA = G B^T, dB = A^T G. Names and tags stay on the forward op.
// CHECK-LABEL: func.func @matmul_plain_joint(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x8xf32> {remat.role = "input"}, %[[B:[^:]*]]: tensor<8x6xf32> {remat.role = "param"}, %[[G:[^:]*]]: tensor<4x6xf32> {remat.role = "tangent"}
// CHECK:      %[[C:.*]] = remat.matmul %[[A]], %[[B]] {remat.name = "proj"}
// CHECK-NEXT: %[[DA:.*]] = remat.matmul %[[G]], %[[B]] {transpose_b} : (tensor<4x6xf32>, tensor<8x6xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.matmul %[[A]], %[[G]] {transpose_a} : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
// CHECK-NEXT: return %[[C]], %[[DA]], %[[DB]]
func.func @matmul_plain(%a: tensor<4x8xf32> {remat.role = "input"}, %b: tensor<8x6xf32> {remat.role = "param"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.matmul %a, %b {remat.name = "proj"} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// C = A^T B: dA = B G^T, dB = A G.
// CHECK-LABEL: func.func @matmul_ta_joint(
// CHECK-SAME: %[[A:[^:]*]]: tensor<8x4xf32> {{.*}}, %[[B:[^:]*]]: tensor<8x6xf32> {{.*}}, %[[G:[^:]*]]: tensor<4x6xf32> {remat.role = "tangent"}
// CHECK:      remat.matmul %[[A]], %[[B]] {transpose_a}
// CHECK-NEXT: remat.matmul %[[B]], %[[G]] {transpose_b} : (tensor<8x6xf32>, tensor<4x6xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: remat.matmul %[[A]], %[[G]] : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
func.func @matmul_ta(%a: tensor<8x4xf32> {remat.role = "input"}, %b: tensor<8x6xf32> {remat.role = "param"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.matmul %a, %b {transpose_a} : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// C = A B^T (PyTorch weights): dA = G B, dB = G^T A.
// CHECK-LABEL: func.func @matmul_tb_joint(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x8xf32> {{.*}}, %[[B:[^:]*]]: tensor<6x8xf32> {{.*}}, %[[G:[^:]*]]: tensor<4x6xf32> {remat.role = "tangent"}
// CHECK:      remat.matmul %[[A]], %[[B]] {transpose_b}
// CHECK-NEXT: remat.matmul %[[G]], %[[B]] : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: remat.matmul %[[G]], %[[A]] {transpose_a} : (tensor<4x6xf32>, tensor<4x8xf32>) -> tensor<6x8xf32>
func.func @matmul_tb(%a: tensor<4x8xf32> {remat.role = "input"}, %b: tensor<6x8xf32> {remat.role = "param"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// C = A^T B^T: dA = B^T G^T, dB = G^T A^T.
// CHECK-LABEL: func.func @matmul_ta_tb_joint(
// CHECK-SAME: %[[A:[^:]*]]: tensor<8x4xf32> {{.*}}, %[[B:[^:]*]]: tensor<6x8xf32> {{.*}}, %[[G:[^:]*]]: tensor<4x6xf32> {remat.role = "tangent"}
// CHECK:      remat.matmul %[[A]], %[[B]] {transpose_a, transpose_b}
// CHECK-NEXT: remat.matmul %[[B]], %[[G]] {transpose_a, transpose_b} : (tensor<6x8xf32>, tensor<4x6xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: remat.matmul %[[G]], %[[A]] {transpose_a, transpose_b} : (tensor<4x6xf32>, tensor<8x4xf32>) -> tensor<6x8xf32>
func.func @matmul_ta_tb(%a: tensor<8x4xf32> {remat.role = "input"}, %b: tensor<6x8xf32> {remat.role = "param"})
    -> (tensor<4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.matmul %a, %b {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// A rank-2 operand shared across a batch: its gradient sums over the batch.
// CHECK-LABEL: func.func @matmul_shared_rhs_joint(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x4x8xf32> {{.*}}, %[[B:[^:]*]]: tensor<8x6xf32> {{.*}}, %[[G:[^:]*]]: tensor<2x4x6xf32> {remat.role = "tangent"}
// CHECK:      remat.matmul %[[G]], %[[B]] {transpose_b} : (tensor<2x4x6xf32>, tensor<8x6xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: %[[BATCHED:.*]] = remat.matmul %[[A]], %[[G]] {transpose_a} : (tensor<2x4x8xf32>, tensor<2x4x6xf32>) -> tensor<2x8x6xf32>
// CHECK-NEXT: remat.sum %[[BATCHED]] {dims = array<i64: 0>} : (tensor<2x8x6xf32>) -> tensor<8x6xf32>
func.func @matmul_shared_rhs(%a: tensor<2x4x8xf32> {remat.role = "input"}, %b: tensor<8x6xf32> {remat.role = "param"})
    -> (tensor<2x4x6xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
  return %c : tensor<2x4x6xf32>
}

// -----

// linear: rows flattened, dx = dy W, dW = dy^T x, db = sum over rows.
// CHECK-LABEL: func.func @linear_bias_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8xbf16> {{.*}}, %[[W:[^:]*]]: tensor<16x8xbf16> {{.*}}, %[[B:[^:]*]]: tensor<16xbf16> {{.*}}, %[[G:[^:]*]]: tensor<2x3x16xbf16> {remat.role = "tangent"}
// CHECK:      %[[Y:.*]] = remat.linear %[[X]], %[[W]], %[[B]] {remat.name = "fc"}
// CHECK-NEXT: %[[G2:.*]] = remat.reshape %[[G]] : (tensor<2x3x16xbf16>) -> tensor<6x16xbf16>
// CHECK-NEXT: %[[DX2:.*]] = remat.matmul %[[G2]], %[[W]] : (tensor<6x16xbf16>, tensor<16x8xbf16>) -> tensor<6x8xbf16>
// CHECK-NEXT: %[[DX:.*]] = remat.reshape %[[DX2]] : (tensor<6x8xbf16>) -> tensor<2x3x8xbf16>
// CHECK-NEXT: %[[X2:.*]] = remat.reshape %[[X]] : (tensor<2x3x8xbf16>) -> tensor<6x8xbf16>
// CHECK-NEXT: %[[DW:.*]] = remat.matmul %[[G2]], %[[X2]] {transpose_a} : (tensor<6x16xbf16>, tensor<6x8xbf16>) -> tensor<16x8xbf16>
// CHECK-NEXT: %[[DB:.*]] = remat.sum %[[G2]] {dims = array<i64: 0>} : (tensor<6x16xbf16>) -> tensor<16xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]]
func.func @linear_bias(%x: tensor<2x3x8xbf16> {remat.role = "input"}, %w: tensor<16x8xbf16> {remat.role = "param"}, %b: tensor<16xbf16> {remat.role = "param"})
    -> (tensor<2x3x16xbf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.linear %x, %w, %b {remat.name = "fc"} : (tensor<2x3x8xbf16>, tensor<16x8xbf16>, tensor<16xbf16>) -> tensor<2x3x16xbf16>
  return %y : tensor<2x3x16xbf16>
}

// -----

// linear on a vector (no leading dims): one row.
// CHECK-LABEL: func.func @linear_vector_joint(
// CHECK:      remat.reshape %{{.*}} : (tensor<16xf32>) -> tensor<1x16xf32>
// CHECK:      remat.matmul %{{.*}} {transpose_a} : (tensor<1x16xf32>, tensor<1x8xf32>) -> tensor<16x8xf32>
func.func @linear_vector(%x: tensor<8xf32> {remat.role = "input"}, %w: tensor<16x8xf32> {remat.role = "param"})
    -> (tensor<16xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.linear %x, %w : (tensor<8xf32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %y : tensor<16xf32>
}
