// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file --verify-diagnostics

func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.opaque' op 'my_kernel' has no semantics to lower: remat.opaque stands for a computation the dialect does not model; replace it with typed remat ops or upstream linalg/arith/math ops before lowering}}
  %0 = remat.opaque "my_kernel"(%x) {flops = 4.0} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f64 is planned, not lowered: the kernels compute in f32.
func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @below {{'remat.exp' op has f64 tensors, which remat plans but does not lower: its kernels compute in f32 and would lose precision; plan and partition the f64 graph with remat, and lower it with another compiler, or use f32}}
  %0 = remat.exp %x : tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// 2^65 bytes: the allocation size wrapped to a few bytes, which the kernels
// then overran (before 2026-12-08 only the GPU pipelines refused it, by their
// grid size). Also through remat-lower-to-cpu, whose first pass this is.
func.func @huge(%x: tensor<4611686018427387904x2xf32>) -> tensor<4611686018427387904x2xf32> {
  // expected-error @below {{'remat.exp' op has a value of type 'tensor<4611686018427387904x2xf32>', with more bytes than a 64-bit buffer size counts; the lowered program could not allocate it: shrink the shapes (remat plans such graphs, it does not lower them)}}
  %0 = remat.exp %x : tensor<4611686018427387904x2xf32>
  return %0 : tensor<4611686018427387904x2xf32>
}

// -----

// expected-error @below {{'func.func' op has a value of type 'tensor<4611686018427387904x4xi8>', with more bytes than a 64-bit buffer size counts}}
func.func @huge_argument(%x: tensor<4611686018427387904x4xi8>) -> tensor<1xi8> {
  %0 = tensor.empty() : tensor<1xi8>
  return %0 : tensor<1xi8>
}
