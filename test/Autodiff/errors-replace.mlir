// RUN: remat-opt %s -remat-autodiff=replace=true -verify-diagnostics

// expected-error @+1 {{cannot replace @layer by its joint function: it is referenced elsewhere in the module and the joint function has another signature; run remat-autodiff without replace=true}}
func.func @layer(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @layer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
