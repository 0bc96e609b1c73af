// Tags on backward ops: every strategy runs each backward op once, after the
// save/recompute/derive decisions, so the tags change nothing. remat-plan
// says so once per function, at the first such op, and still plans (before,
// the tags were accepted and ignored without a word).
// RUN: remat-opt %s -remat-plan -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:1000" -o /dev/null 2>&1 | FileCheck %s
// RUN: remat-opt %s -remat-plan -remat-report=format=text -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=REPORT

// CHECK: tag-on-backward.mlir:[[# @LINE + 11]]:{{[0-9]+}}: warning: remat-plan: backward op remat.mul 'g' is tagged never_recompute and prefer_save, which has no effect: tags decide how a forward value reaches backward, and each backward op runs once; tag the forward op whose result backward reads (1 more backward op carries tags)
// CHECK-NOT: warning
// The forward value is still planned by its own (untagged) op.
// REPORT: {{^}}  a recompute 12 B
func.func @f(%x: tensor<3xf32> {remat.role = "input"},
             %dy: tensor<3xf32> {remat.role = "tangent"})
    -> (tensor<3xf32> {remat.role = "output"},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %a = remat.opaque "cos"(%x) {compute_class = "pointwise", flops = 12.0, remat.name = "a"} : (tensor<3xf32>) -> tensor<3xf32>
  %b = remat.opaque "cos"(%a) {compute_class = "pointwise", flops = 12.0, remat.name = "b"} : (tensor<3xf32>) -> tensor<3xf32>
  %g = remat.mul %dy, %a {remat.name = "g", remat.never_recompute, remat.prefer_save} : tensor<3xf32>
  %dx = remat.mul %g, %a {remat.must_recompute} : tensor<3xf32>
  return %b, %dx : tensor<3xf32>, tensor<3xf32>
}
