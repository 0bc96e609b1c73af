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
