// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file --verify-diagnostics

func.func @opaque(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'remat.opaque' op 'my_kernel' has no semantics to lower: remat.opaque stands for a computation the dialect does not model; replace it with typed remat ops or upstream linalg/arith/math ops before lowering}}
  %0 = remat.opaque "my_kernel"(%x) {flops = 4.0} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
