// Seeded ids stay in range for every op that reads them, also through a
// reshape, and for the smallest of two bounds. Before 2026-12-07 only the
// first direct user bounded them: reshaped ids fell back to 16 and read
// outside a 5-row table, and ids read by an embedding of 50 rows and a
// cross-entropy of 3 classes were out of range for the loss (both FAILed,
// and remat-run --check-partition ran on the same ids).
// RUN: remat-gradcheck %s | FileCheck %s
// CHECK: @reshaped: PASS
// CHECK: @two_bounds: PASS

func.func @reshaped(%t: tensor<5x3xf32> {remat.role = "param"}, %ids: tensor<2x2xi64> {remat.role = "input"})
    -> (tensor<4x3xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %i2 = remat.reshape %ids : (tensor<2x2xi64>) -> tensor<4xi64>
  %e = remat.embedding %t, %i2 : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  return %e : tensor<4x3xf32>
}

func.func @two_bounds(%t: tensor<50x3xf32> {remat.role = "param"}, %l: tensor<4x3xf32> {remat.role = "input"}, %ids: tensor<4xi64> {remat.role = "input"})
    -> (tensor<4x3xf32> {remat.role = "output"}, tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %e = remat.embedding %t, %ids : (tensor<50x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
  %ce = remat.cross_entropy %l, %ids : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %e, %ce : tensor<4x3xf32>, tensor<f32>
}
