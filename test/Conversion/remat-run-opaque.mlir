// A module that cannot be lowered (remat.opaque) is reported with the
// lowering's message and exit code 2.
// RUN: not remat-run %s --function=f 2>&1 | FileCheck %s
// CHECK: remat-run: error: lowering the module to the host (remat-lower-to-cpu) failed:
// CHECK: 'remat.opaque' op 'my_kernel' has no semantics to lower
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = remat.opaque "my_kernel"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
