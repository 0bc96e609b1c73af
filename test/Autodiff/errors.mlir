// RUN: remat-opt %s -split-input-file -remat-autodiff -verify-diagnostics

func.func @opaque_without_backward(%x: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  // expected-error @+1 {{'remat.opaque' op 'fused_thing' has no derivative rule: a gradient flows through it, but remat.opaque ops carry no semantics; declare its backward kernel with {backward = "<name>"}}}
  %y = remat.opaque "fused_thing"(%x) {compute_class = "pointwise"} : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @upstream_op(%x: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  // expected-error @+1 {{'arith.addf' op has no derivative rule in remat-autodiff, but a gradient flows through it; express it with remat ops, or wrap it in remat.opaque with a declared backward}}
  %y = arith.addf %x, %x : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

func.func @second_order(%g: tensor<4x8xf32> {remat.role = "input"}, %y: tensor<4x8xf32> {remat.role = "input"})
    -> (tensor<4x8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  // expected-error @+1 {{'remat.softmax_backward' op has no derivative rule in remat-autodiff: it is a backward op (second-order differentiation is not supported) and a gradient flows through it}}
  %dx = remat.softmax_backward %g, %y dim = 1 : tensor<4x8xf32>
  return %dx : tensor<4x8xf32>
}

// -----

func.func @statistic_output(%x: tensor<4x8xf32> {remat.role = "input"}, %w: tensor<8xf32> {remat.role = "param"})
    -> (tensor<4x8xf32> {remat.role = "output"}, tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  // expected-error @+1 {{'remat.rmsnorm' op result #1 ('rstd') reaches an output, but remat-autodiff cannot differentiate through a saved statistic}}
  %y, %rstd = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>)
  return %y, %rstd : tensor<4x8xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{@integers_only has nothing to differentiate: no floating-point argument with remat.role = "input" or "param"}}
func.func @integers_only(%ids: tensor<4xi64> {remat.role = "input"}, %seed: tensor<i64> {remat.role = "rng"})
    -> (tensor<4xi64> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  return %ids : tensor<4xi64>
}

// -----

// expected-error @+1 {{@mask_only has no floating-point result to differentiate}}
func.func @mask_only(%x: tensor<4xf32> {remat.role = "input"}, %y: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xi1> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %m = remat.compare %x, %y {predicate = "lt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %m : tensor<4xi1>
}

// -----

// expected-error @+1 {{cannot add the joint function of @clash: the symbol @clash_joint already exists; rename it or run remat-autodiff with replace=true}}
func.func @clash(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  return %x : tensor<4xf32>
}
func.func @clash_joint() {
  return
}

// -----

// A value that depends on a differentiated argument, read only inside a
// region: before 2026-12-07 the op stayed inactive and %x got a zero
// gradient without a word.
func.func @captured_in_region(%x: tensor<4xf32> {remat.role = "input"}, %c: tensor<i1> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %b = tensor.extract %c[] : tensor<i1>
  // expected-error @+1 {{'scf.if' op reads a value that depends on a differentiated argument inside its region; remat-autodiff differentiates straight-line code (one block, no regions): compute the value outside the region, or write the function without control flow}}
  %y = scf.if %b -> tensor<4xf32> {
    %e = remat.exp %x : tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

// -----

// A gradient through a float scalar (tensor.extract of a parameter) reaches
// an op without a rule: an error, where before the scalar was inactive and
// %w's gradient was zero.
func.func @through_scalar(%x: tensor<4xf32> {remat.role = "input"}, %w: tensor<4xf32> {remat.role = "param"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %w[%c0] : tensor<4xf32>
  // expected-error @+1 {{'tensor.splat' op has no derivative rule in remat-autodiff, but a gradient flows through it}}
  %b = tensor.splat %e : tensor<4xf32>
  %y = remat.mul %x, %b : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{@scalar_param: argument #1 (f32, remat.role = "param") is a scalar; remat-autodiff differentiates tensors: pass it as a rank-0 tensor (tensor<f32>)}}
func.func @scalar_param(%x: tensor<4xf32> {remat.role = "input"}, %s: f32 {remat.role = "param"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  return %x : tensor<4xf32>
}
