// RUN: remat-opt %s -split-input-file -verify-diagnostics

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op contraction dimensions differ: lhs has 8, rhs has 4}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @opaque_class(%a: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'remat.opaque' op has unknown compute class 'tensorcore'; expected one of pointwise, reduction, normalization, matmul, conv, attention, random, view, collective, other}}
  %0 = remat.opaque "k"(%a) {compute_class = "tensorcore"} : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

// NaN FLOPs made a replay look free and put "nan" into the JSON report.
func.func @opaque_nan_flops(%a: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'remat.opaque' op 'flops' must be a finite number >= 0}}
  %0 = remat.opaque "k"(%a) {compute_class = "pointwise", flops = 0x7FF8000000000000 : f64} : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// -----

func.func @opaque_infinite_flops(%a: tensor<8xf16>) -> tensor<8xf16> {
  // expected-error @+1 {{'remat.opaque' op 'flops' must be a finite number >= 0}}
  %0 = remat.opaque "k"(%a) {compute_class = "pointwise", flops = 0x7FF0000000000000 : f64} : (tensor<8xf16>) -> tensor<8xf16>
  return %0 : tensor<8xf16>
}

// Tag, name, graph-form and role errors are in attributes.mlir.
