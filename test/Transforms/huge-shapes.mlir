// Shapes whose element counts pass 2^63: bytes saturate at INT64_MAX and
// FLOPs are counted in doubles. Before 2026-12-07 the matmul's FLOPs
// (2 * 4e9 * 16 * 8e9) were an int64 product that wrapped, and planning
// failed with "op 3 (remat.matmul) has -1.56592e+20 FLOPs".

// RUN: remat-opt %s -remat-plan -remat-report=format=text -o /dev/null | FileCheck %s
// CHECK: peak memory:         8388608.0 TiB (9223372036854775807 B)

func.func @lin(%x: tensor<4000000000x8000000000xf32> {remat.role = "input"}, %w: tensor<16x8000000000xf32> {remat.role = "param"}, %dy: tensor<4000000000x16xf32> {remat.role = "tangent"})
    -> (tensor<4000000000x16xf32> {remat.role = "output"}, tensor<4000000000x8000000000xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %y = remat.matmul %x, %w {transpose_b} : (tensor<4000000000x8000000000xf32>, tensor<16x8000000000xf32>) -> tensor<4000000000x16xf32>
  %t = remat.exp %y : tensor<4000000000x16xf32>
  %d = remat.mul %dy, %t : tensor<4000000000x16xf32>
  %dx = remat.matmul %d, %w : (tensor<4000000000x16xf32>, tensor<16x8000000000xf32>) -> tensor<4000000000x8000000000xf32>
  return %y, %dx : tensor<4000000000x16xf32>, tensor<4000000000x8000000000xf32>
}