// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-partition

// expected-error @+1 {{remat-partition: function 'unplanned' is a joint graph without a plan; run -remat-plan first}}
func.func @unplanned(%x: tensor<4xf32> {remat.role = "input"},
                     %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %d = remat.mul %dy, %x : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @clash_forward() {
  return
}
// expected-error @+1 {{remat-partition: cannot create @clash_forward for 'clash': a symbol with that name exists; rename it}}
func.func @clash(%x: tensor<4xf32> {remat.role = "input"},
                 %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "min-cut", target = "h100", peak_memory_bytes = 0 : i64}} {
  %d = remat.mul %dy, %x : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A hand-edited plan that derives a value through an op that does not read
// it is rejected with a pointer to the value.
func.func @bad_derivation(%x: tensor<4xf32> {remat.role = "input"},
                          %s: tensor<4xf32> {remat.role = "input"},
                          %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"}, tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "min-cut", target = "h100", peak_memory_bytes = 0 : i64}} {
  // expected-error @+1 {{remat-partition: the derivation of 'e' names 'y', which is not produced by an op reading this value as operand #1; re-run remat-plan}}
  %e = remat.exp %x {remat.name = "e", remat.decision = ["derive"], remat.reason = ["edited"],
                     remat.derivation = [{via = "y", operand = 1 : i64, kind = "subtract-other", from = ["y"], exact = false}]} : tensor<4xf32>
  %y = remat.add %e, %s {remat.name = "y", remat.decision = ["save"], remat.reason = ["edited"]} : tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %y, %d : tensor<4xf32>, tensor<4xf32>
}
