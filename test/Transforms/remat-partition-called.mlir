// A joint function something still calls: remat-partition would erase it and
// leave an invalid module, which the verifier then blamed on the input
// (before 2026-12-08). It refuses, at the call; keep-joint=true keeps the
// joint function, and the call stays valid.
// RUN: remat-opt %s -remat-plan -remat-partition -verify-diagnostics -o /dev/null
// RUN: remat-opt %s -remat-plan -remat-partition=keep-joint=true 2>/dev/null | FileCheck %s

// CHECK: func.func @f(
// CHECK: func.func @f_forward(
// CHECK: func.func @f_backward(
// CHECK: call @f(

// expected-note @+1 {{the joint function}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e = remat.exp %x : tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>, %dy: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  // expected-error @+1 {{remat-partition: this op refers to @f, a joint function that remat-partition replaces by a forward and a backward function; give keep-joint=true to keep it beside them, or plan a copy that nothing calls}}
  %a, %b = func.call @f(%x, %dy) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}
