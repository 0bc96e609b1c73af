// RUN: remat-opt %s -split-input-file -remat-plan=exchange-rate=0 -remat-partition | FileCheck %s
// RUN: remat-opt %s -split-input-file -remat-plan="allow-inexact-derivation=true exchange-rate=0" -remat-partition | FileCheck %s --check-prefix=DERIVE
// RUN: remat-opt %s -split-input-file -remat-plan=exchange-rate=0 -remat-partition=keep-joint=true | FileCheck %s --check-prefix=KEEP
// RUN: echo 'func.func @plain(%%a: f32) -> f32 { return %%a : f32 }' | not remat-opt -remat-partition 2>&1 | FileCheck %s --check-prefix=NO-JOINT
// More errors (pointing at the IR) are in remat-partition-errors.mlir.

// NO-JOINT: error: remat-partition: no function is marked remat.graph = "joint"; nothing to split (run -remat-plan on a joint function first)

// min-cut recomputes e1 and e2 from the input: forward returns y (an output,
// also passed to backward) and backward replays the exps just before their
// first use.

// CHECK-LABEL: func.func @exp_chain_forward(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32> {remat.role = "input"})
// CHECK-SAME: -> (tensor<8xf32> {remat.role = "output"}, tensor<8xf32>)
// CHECK-SAME: attributes {remat.saved_values = ["y"], remat.stage = "forward"}
// CHECK: %[[E1:.*]] = remat.exp %[[X]] {remat.name = "e1"}
// CHECK: %[[E2:.*]] = remat.exp %[[E1]] {remat.name = "e2"}
// CHECK: %[[Y:.*]] = remat.exp %[[E2]] {remat.name = "y"}
// CHECK: return %[[Y]], %[[Y]]

// CHECK-LABEL: func.func @exp_chain_backward(
// CHECK-SAME: %[[SY:[^:]*]]: tensor<8xf32>, %[[BX:[^:]*]]: tensor<8xf32> {remat.role = "input"}, %[[DY:[^:]*]]: tensor<8xf32> {remat.role = "tangent"})
// CHECK-SAME: -> (tensor<8xf32> {remat.grad_of = 1 : i64, remat.role = "grad"})
// CHECK-SAME: attributes {remat.saved_values = ["y"], remat.stage = "backward"}
// CHECK: %[[D2:.*]] = remat.mul %[[DY]], %[[SY]]
// CHECK: %[[RE1:.*]] = remat.exp %[[BX]] {remat.name = "e1"}
// CHECK: %[[RE2:.*]] = remat.exp %[[RE1]] {remat.name = "e2"}
// CHECK: %[[D1:.*]] = remat.mul %[[D2]], %[[RE2]]
// CHECK: %[[DX:.*]] = remat.mul %[[D1]], %[[RE1]]
// CHECK: return %[[DX]]
// CHECK-NOT: func.func @exp_chain(

// KEEP-LABEL: func.func @exp_chain(
// KEEP-SAME: remat.graph = "joint", remat.plan =
// KEEP: func.func @exp_chain_forward(
// KEEP: func.func @exp_chain_backward(
func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1"} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// A matmul result backward reads: saved by default, derived as z - skip
// when inexact derivation is allowed (z is an output, so it is passed to
// backward anyway).

// CHECK-LABEL: func.func @residual_forward(
// CHECK-SAME: attributes {remat.saved_values = ["h"], remat.stage = "forward"}
// CHECK: %[[H:.*]] = remat.matmul
// CHECK: %[[Z:.*]] = remat.add %[[H]]
// CHECK: return %[[Z]], %[[H]]
// CHECK-LABEL: func.func @residual_backward(
// CHECK-SAME: %[[SH:[^:]*]]: tensor<4x4xf32>, %[[X:[^:]*]]: tensor<4x4xf32> {remat.role = "input"}, %{{[^:]*}}: tensor<4x4xf32> {remat.role = "input"}, %{{[^:]*}}: tensor<4x4xf32> {remat.role = "param"}, %[[DZ:[^:]*]]: tensor<4x4xf32> {remat.role = "tangent"})
// CHECK: %[[G:.*]] = remat.mul %[[DZ]], %[[SH]]
// CHECK: remat.matmul %[[X]], %[[G]] {transpose_a}

// DERIVE-LABEL: func.func @residual_forward(
// DERIVE-SAME: attributes {remat.saved_values = ["z"], remat.stage = "forward"}
// DERIVE-LABEL: func.func @residual_backward(
// DERIVE-SAME: %[[SZ:[^:]*]]: tensor<4x4xf32>, %{{[^:]*}}: tensor<4x4xf32> {remat.role = "input"}, %[[SKIP:[^:]*]]: tensor<4x4xf32> {remat.role = "input"}
// DERIVE: %[[H:.*]] = remat.sub %[[SZ]], %[[SKIP]] : tensor<4x4xf32>
// DERIVE: remat.mul %{{.*}}, %[[H]]
func.func @residual(%x: tensor<4x4xf32> {remat.role = "input"},
                    %skip: tensor<4x4xf32> {remat.role = "input"},
                    %w: tensor<4x4xf32> {remat.role = "param"},
                    %dz: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 2})
    attributes {remat.graph = "joint"} {
  %h = remat.matmul %x, %w {remat.name = "h"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = remat.add %h, %skip {remat.name = "z"} : tensor<4x4xf32>
  %g = remat.mul %dz, %h : tensor<4x4xf32>
  %dw = remat.matmul %x, %g {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %z, %dw : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// The same program on upstream linalg/arith ops (planned through the
// external models): the derivation is emitted as arith.subf.

// CHECK-LABEL: func.func @linalg_residual_forward(
// CHECK: linalg.matmul {remat.name = "h"}
// CHECK-LABEL: func.func @linalg_residual_backward(

// DERIVE-LABEL: func.func @linalg_residual_backward(
// DERIVE-SAME: %[[SZ:[^:]*]]: tensor<4x4xf32>
// DERIVE-SAME: %[[SKIP:[^:]*]]: tensor<4x4xf32> {remat.role = "input"}, %{{[^:]*}}: tensor<4x4xf32> {remat.role = "param"}
// DERIVE: %[[H:.*]] = arith.subf %[[SZ]], %[[SKIP]] : tensor<4x4xf32>
// DERIVE: arith.mulf %{{.*}}, %[[H]]
func.func @linalg_residual(%x: tensor<4x4xf32> {remat.role = "input"},
                           %skip: tensor<4x4xf32> {remat.role = "input"},
                           %w: tensor<4x4xf32> {remat.role = "param"},
                           %dz: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 2})
    attributes {remat.graph = "joint"} {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %h = linalg.matmul {remat.name = "h"} ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = arith.addf %h, %skip {remat.name = "z"} : tensor<4x4xf32>
  %g = arith.mulf %dz, %h : tensor<4x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) permutation = [1, 0]
  %dw = linalg.matmul ins(%xt, %g : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %z, %dw : tensor<4x4xf32>, tensor<4x4xf32>
}
