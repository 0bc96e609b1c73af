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

func.func @contradictory(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.must_recompute' requires it; remove one of them}}
  %0 = remat.add %a, %a {remat.never_recompute, remat.must_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #1 of a remat.graph = "joint" function has no 'remat.role'; mark it with {remat.role = "input"}, "param", "tangent" or "rng"}}
func.func @missing_role(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32>)
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}
