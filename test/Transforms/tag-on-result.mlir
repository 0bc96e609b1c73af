// must_recompute on an op whose result the function returns: the result is
// held to the end anyway, so the value is saved, and the reason says the tag
// could not apply (before, the reason did not mention the tag at all).
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:1000" -remat-report=format=text -o /dev/null | FileCheck %s
// RUN: remat-opt %s -remat-plan -remat-report=format=text -o /dev/null | FileCheck %s

// CHECK: c2 save {{.*}} saved: it is a function result, live until the end anyway (its must_recompute tag cannot apply: a result is never freed before backward)
func.func @f(%x: tensor<3xf32> {remat.role = "input"},
             %dy: tensor<3xf32> {remat.role = "tangent"})
    -> (tensor<3xf32> {remat.role = "output"},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c1 = remat.opaque "cos"(%x) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %c2 = remat.opaque "cos"(%c1) {compute_class = "pointwise", flops = 12.0, remat.must_recompute, remat.name = "c2"} : (tensor<3xf32>) -> tensor<3xf32>
  %d1 = remat.mul %dy, %c2 : tensor<3xf32>
  %s0 = remat.opaque "sin"(%d1) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %dx = remat.mul %s0, %c1 : tensor<3xf32>
  return %c2, %dx : tensor<3xf32>, tensor<3xf32>
}
