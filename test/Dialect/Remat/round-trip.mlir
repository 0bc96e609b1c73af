// RUN: remat-opt %s -split-input-file | remat-opt -split-input-file | FileCheck %s
// RUN: remat-opt %s -split-input-file -mlir-print-op-generic | remat-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @add
// CHECK: remat.add %{{.*}}, %{{.*}} : tensor<4x8xf32>
func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = remat.add %a, %b : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK: remat.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4x8xbf16>, tensor<2x16x8xbf16>) -> tensor<2x4x16xbf16>
func.func @matmul(%a: tensor<2x4x8xbf16>, %b: tensor<2x16x8xbf16>) -> tensor<2x4x16xbf16> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<2x4x8xbf16>, tensor<2x16x8xbf16>) -> tensor<2x4x16xbf16>
  return %0 : tensor<2x4x16xbf16>
}

// -----

// CHECK-LABEL: func.func @opaque
// CHECK: remat.opaque "flash_attn"(%{{.*}}) {compute_class = "attention", flops = 1.000000e+09 : f64} : (tensor<8xf16>) -> tensor<8xf16>
func.func @opaque(%a: tensor<8xf16>) -> tensor<8xf16> {
  %0 = remat.opaque "flash_attn"(%a) {flops = 1.0e9 : f64, compute_class = "attention"} : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}
