// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-partition | FileCheck %s

// The program every strategy (and `optimal`) models, docs/Optimal.md: a
// forward op nothing saved or returned reads is dropped from forward; a
// backward op whose result nobody reads stays in backward, once, at its
// place in graph order.

// CHECK-LABEL: func.func @dead_forward(
// CHECK-NOT: deadf
// CHECK: return
// CHECK-LABEL: func.func @dead_backward(
// CHECK: %[[D2:.*]] = remat.mul
// CHECK: remat.exp {{.*}} {remat.name = "e1"}
// CHECK: %[[E2:.*]] = remat.exp {{.*}} {remat.name = "e2"}
// CHECK: remat.mul %[[D2]], %[[E2]] {remat.name = "deadb"}
// CHECK-NEXT: %[[D1:.*]] = remat.mul %[[D2]], %[[E2]] :
// CHECK-NEXT: remat.mul %[[D1]]
// CHECK-NEXT: return
func.func @dead(%x: tensor<8xf32> {remat.role = "input"},
                %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1"} : tensor<8xf32>
  %deadf = remat.exp %x {remat.name = "deadf"} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %deadb = remat.mul %d2, %e2 {remat.name = "deadb"} : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}
