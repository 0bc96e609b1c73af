// RUN: remat-opt %s -split-input-file -remat-autodiff | FileCheck %s
// RUN: remat-opt %s -split-input-file -remat-autodiff=replace=true | FileCheck %s --check-prefix=REPLACE

// Graph-level behaviour: signature, roles, activity, replace=true, opaque ops.

// The joint function keeps the forward's function attributes and argument
// roles. Values that do not depend on a differentiated argument (constants
// and what is computed from them) get no backward ops; an argument that
// reaches no output gets a zero gradient; an integer output gets no tangent.
// CHECK-LABEL: func.func @unused_and_constants(
// CHECK-SAME: attributes {remat.graph = "forward", remat.name = "block"}
// CHECK-LABEL: func.func @unused_and_constants_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4xf32> {remat.role = "input"}, %[[U:[^:]*]]: tensor<4xf32> {remat.role = "param"}, %[[C:[^:]*]]: tensor<4xi1> {remat.role = "input"}, %[[G:[^:]*]]: tensor<4xf32> {remat.role = "tangent"})
// CHECK-SAME: -> (tensor<4xf32> {remat.role = "output"}, tensor<4xi1> {remat.role = "output"}, tensor<4xf32> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<4xf32> {remat.grad_of = 1 : i64, remat.role = "grad"})
// CHECK-SAME: attributes {remat.graph = "joint", remat.name = "block"}
// CHECK:      %[[K:.*]] = remat.constant dense<2.000000e+00>
// CHECK-NEXT: %[[KK:.*]] = remat.exp %[[K]]
// CHECK-NEXT: %[[Y:.*]] = remat.mul %[[X]], %[[KK]]
// CHECK-NEXT: %[[DX:.*]] = remat.mul %[[G]], %[[KK]]
// CHECK-NEXT: %[[DU:.*]] = remat.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NEXT: return %[[Y]], %[[C]], %[[DX]], %[[DU]]

// With replace=true the joint function takes the forward's name and place.
// REPLACE-LABEL: func.func @unused_and_constants(
// REPLACE-SAME: {remat.role = "tangent"}
// REPLACE-SAME: attributes {remat.graph = "joint", remat.name = "block"}
// REPLACE-NOT:  func.func @unused_and_constants_joint
func.func @unused_and_constants(%x: tensor<4xf32> {remat.role = "input"}, %unused: tensor<4xf32> {remat.role = "param"}, %c: tensor<4xi1> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}, tensor<4xi1> {remat.role = "output"}) attributes {remat.graph = "forward", remat.name = "block"} {
  %k = remat.constant dense<2.0> : tensor<4xf32>
  %kk = remat.exp %k : tensor<4xf32>
  %y = remat.mul %x, %kk : tensor<4xf32>
  return %y, %c : tensor<4xf32>, tensor<4xi1>
}

// -----

// remat.opaque with a declared backward: an opaque backward kernel reading
// the result cotangents (zeros for results that reach no output), the
// operands and the results, returning one gradient per float operand; it
// costs twice the forward's FLOPs unless backward_flops says otherwise.
// CHECK-LABEL: func.func @opaque_declared_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8xf32> {remat.role = "input"}, %[[N:[^:]*]]: tensor<8xi64> {remat.role = "input"}, %[[G:[^:]*]]: tensor<8xf32> {remat.role = "tangent"}
// CHECK:      %[[Y:.*]]:2 = remat.opaque "my_kernel"(%[[X]], %[[N]]) {backward = "my_kernel_bwd", compute_class = "pointwise", flops = 1.000000e+02 : f64, remat.name = "custom"}
// CHECK-NEXT: %[[Z:.*]] = remat.constant dense<0.000000e+00> : tensor<8xf32>
// CHECK-NEXT: %[[DX:.*]] = remat.opaque "my_kernel_bwd"(%[[G]], %[[Z]], %[[X]], %[[N]], %[[Y]]#0, %[[Y]]#1) {compute_class = "pointwise", flops = 2.000000e+02 : f64} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi64>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT: return %[[Y]]#0, %[[DX]]
func.func @opaque_declared(%x: tensor<8xf32> {remat.role = "input"}, %n: tensor<8xi64> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %aux = remat.opaque "my_kernel"(%x, %n) {flops = 100.0, compute_class = "pointwise", backward = "my_kernel_bwd", remat.name = "custom"} : (tensor<8xf32>, tensor<8xi64>) -> (tensor<8xf32>, tensor<8xf32>)
  return %y : tensor<8xf32>
}

// -----

// One zero constant per type serves every rule that needs it.
// CHECK-LABEL: func.func @shared_zeros_joint(
// CHECK-COUNT-1: remat.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-NOT:     remat.constant
// CHECK:         return
func.func @shared_zeros(%c: tensor<4xi1> {remat.role = "input"},
                        %a: tensor<4xf32> {remat.role = "input"},
                        %b: tensor<4xf32> {remat.role = "input"},
                        %unused: tensor<4xf32> {remat.role = "param"})
    -> (tensor<4xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %w = remat.where %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  %v = remat.where %c, %w, %a : tensor<4xi1>, tensor<4xf32>
  return %v : tensor<4xf32>
}
