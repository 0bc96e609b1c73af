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

// must_recompute on an op whose storage a returned view shares: the value
// itself is not a result, so the tag applies and the value is recomputed, by
// every strategy, from the matmul's result, which is saved for it (before
// 2026-12-08 it was kept for free: remat_jax could not realise that plan, as
// a JAX name policy cannot save it under its view's name).
// RUN: remat-opt %s -remat-plan -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=VIEWED
// RUN: remat-opt %s -remat-plan=strategy=save-all -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=VIEWED
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=1.0peak" -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=VIEWED
// VIEWED-LABEL: remat plan for @viewed
// VIEWED: mm save {{.*}} saved: recomputing t starts from it
// VIEWED: t recompute {{.*}} recomputed from mm: tagged must_recompute
func.func @viewed(%x: tensor<4x4xf32> {remat.role = "input"},
                  %w: tensor<4x4xf32> {remat.role = "param"},
                  %dy: tensor<16xf32> {remat.role = "tangent"})
    -> (tensor<16xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 1})
    attributes {remat.graph = "joint"} {
  %mm = remat.matmul %x, %w {remat.name = "mm"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = remat.tanh %mm {remat.must_recompute, remat.name = "t"} : tensor<4x4xf32>
  %v = remat.reshape %t : (tensor<4x4xf32>) -> tensor<16xf32>
  %g = remat.reshape %dy : (tensor<16xf32>) -> tensor<4x4xf32>
  %gt = remat.mul %g, %t : tensor<4x4xf32>
  %gw = remat.matmul %x, %gt {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %v, %gw : tensor<16xf32>, tensor<4x4xf32>
}
