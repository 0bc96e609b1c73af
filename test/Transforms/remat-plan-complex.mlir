// Complex values (PyTorch's complex64/complex128: rotary embeddings built
// with torch.polar and view_as_complex) are sized 8 and 16 bytes per
// element and planned like any other; only opaque ops carry them, and an
// opaque op of class `view` shares its operand's storage, as
// view_as_complex and view_as_real do. Graph: q (f32 [4x8]) is read as 4x4
// complex pairs (a view of the input: no bytes), rotated by a complex64
// parameter (128 bytes), and the output is their magnitude; backward reads
// the conjugate of the rotated values (a view: save-all saves the rotated
// values' 128 bytes).

// RUN: remat-opt %s "-remat-plan=strategy=save-all" -remat-report=output=- -o /dev/null | FileCheck %s

// CHECK:      "saved_bytes": 128,
// CHECK:      "name": "pairs",
// CHECK:      "dtype": "complex<f32>",
// CHECK-NEXT: "bytes": 128,
// CHECK-NEXT: "decision": "not-needed",
// CHECK:      "name": "rotated",
// CHECK:      "dtype": "complex<f32>",
// CHECK-NEXT: "bytes": 128,
// CHECK-NEXT: "decision": "not-needed",
// CHECK:      "name": "conj",
// CHECK:      "dtype": "complex<f32>",
// CHECK-NEXT: "bytes": 128,
// CHECK-NEXT: "decision": "save",

func.func @rotary(%q: tensor<4x8xf32> {remat.role = "input"},
                  %freqs: tensor<4x4xcomplex<f32>> {remat.role = "param"},
                  %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x8xf32> {remat.role = "grad"}) attributes {remat.graph = "joint"} {
  %pairs = remat.opaque "aten.view_as_complex"(%q) {compute_class = "view", remat.name = "pairs"} : (tensor<4x8xf32>) -> tensor<4x4xcomplex<f32>>
  %rotated = remat.opaque "aten.mul"(%pairs, %freqs) {compute_class = "pointwise", flops = 96.0, remat.name = "rotated"} : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
  %out = remat.opaque "aten.abs"(%rotated) {compute_class = "pointwise", flops = 48.0, remat.name = "out"} : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
  %dc = remat.opaque "aten.complex"(%dy, %dy) {compute_class = "pointwise", flops = 16.0, remat.name = "dc"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xcomplex<f32>>
  %conj = remat.opaque "aten.conj"(%rotated) {compute_class = "view", remat.name = "conj"} : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
  %dpairs = remat.opaque "aten.mul"(%dc, %conj) {compute_class = "pointwise", flops = 96.0, remat.name = "dpairs"} : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
  %dq = remat.opaque "aten.view_as_real"(%dpairs) {compute_class = "view", remat.name = "dq"} : (tensor<4x4xcomplex<f32>>) -> tensor<4x8xf32>
  return %out, %dq : tensor<4x4xf32>, tensor<4x8xf32>
}

