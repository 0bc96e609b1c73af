// Names are unique per function: the first holder keeps a name, later ones
// get ".1", ".2", ... but never a name the function gives a value itself.
// Here ops are named "h", "h" and "h.1": the second "h" becomes "h.2", so
// that "h.1" is the op the user named so, in the report and in a policy
// (before, the second "h" took "h.1" and the user's "h.1" became "h.1.1",
// so save_only_these_names:h.1 saved the wrong value, silently).

// RUN: remat-opt %s -remat-plan="policy=save_only_these_names:h.1,z exchange-rate=0" -remat-report=format=text -o /dev/null | FileCheck %s

// CHECK:      {{^}}  h not-needed {{.*}} remat.matmul
// CHECK-NEXT: {{^}}  z save {{.*}} remat.add
// CHECK-NEXT: {{^}}  h.2 recompute {{.*}} remat.exp
// CHECK-NEXT: {{^}}  h.1 save {{.*}} remat.exp saved: checkpoint policy save_only_these_names:h.1,z saves it

func.func @f(%x: tensor<4x4xf32> {remat.role = "input"},
             %w: tensor<4x4xf32> {remat.role = "param"},
             %dout: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %h = remat.matmul %x, %w {remat.name = "h"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = remat.add %h, %x {remat.name = "z"} : tensor<4x4xf32>
  %g = remat.exp %z {remat.name = "h"} : tensor<4x4xf32>
  %k = remat.exp %g {remat.name = "h.1"} : tensor<4x4xf32>
  %out = remat.exp %k : tensor<4x4xf32>
  // backward: d out = dout * out, then through the exps.
  %d_k = remat.mul %dout, %out : tensor<4x4xf32>
  %d_g = remat.mul %d_k, %k : tensor<4x4xf32>
  %d_z = remat.mul %d_g, %g : tensor<4x4xf32>
  return %out, %d_z : tensor<4x4xf32>, tensor<4x4xf32>
}
