// Finite-difference check of every elementwise op on its own (small f32
// shapes; log/sqrt/rsqrt/div/pow read a guarded positive operand).
// RUN: remat-gradcheck %s | FileCheck %s
// A gradient off by 5% is caught:
// RUN: not remat-gradcheck %s -function=mul -scale-gradients=1.05 | FileCheck %s --check-prefix=WRONG
// WRONG: grad of argument #0 {{.*}}: FAIL
// WRONG: @mul: FAIL
// A step of 0 or below, or a negative tolerance, is refused (eps=0 passed
// every check with NaN differences before):
// RUN: not remat-gradcheck %s -function=mul -eps=0 -scale-gradients=100 2>&1 | FileCheck %s --check-prefix=EPS
// RUN: not remat-gradcheck %s -function=mul -eps=-1 2>&1 | FileCheck %s --check-prefix=EPS
// EPS: remat-gradcheck: eps={{.*}}: the finite-difference step must be a positive number
// RUN: not remat-gradcheck %s -function=mul -rtol=-1 2>&1 | FileCheck %s --check-prefix=RTOL
// RTOL: remat-gradcheck: rtol and rounding-ulps must be non-negative numbers
// No probe at all is refused too (it passed, exit 0, before 2026-12-07):
// RUN: not remat-gradcheck %s -function=mul -max-exhaustive=0 -directions=0 -element-probes=0 -scale-gradients=100 2>&1 | FileCheck %s --check-prefix=PROBES
// PROBES: remat-gradcheck: max-exhaustive=0 with directions=0 and element-probes=0 leaves no probe, so every check would pass: give at least one

// CHECK: @add: PASS
func.func @add(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.add %a, %b : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @sub: PASS
func.func @sub(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.sub %a, %b : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @mul: PASS
func.func @mul(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.mul %a, %b : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @div: PASS
func.func @div(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %b : tensor<3x4xf32>
  %pos = remat.add_scalar %sq, 0.5 : tensor<3x4xf32>
  %y = remat.div %a, %pos : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @pow: PASS
func.func @pow(
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %base = remat.exp %a : tensor<3x4xf32>
  %y = remat.pow %base, %b : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @neg: PASS
func.func @neg(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.neg %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @exp: PASS
func.func @exp(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.exp %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @log: PASS
func.func @log(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %x : tensor<3x4xf32>
  %pos = remat.add_scalar %sq, 0.5 : tensor<3x4xf32>
  %y = remat.log %pos : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @sqrt: PASS
func.func @sqrt(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %x : tensor<3x4xf32>
  %pos = remat.add_scalar %sq, 0.5 : tensor<3x4xf32>
  %y = remat.sqrt %pos : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @rsqrt: PASS
func.func @rsqrt(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %x : tensor<3x4xf32>
  %pos = remat.add_scalar %sq, 0.5 : tensor<3x4xf32>
  %y = remat.rsqrt %pos : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @tanh: PASS
func.func @tanh(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.tanh %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @sigmoid: PASS
func.func @sigmoid(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.sigmoid %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @relu: PASS
func.func @relu(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.relu %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @leaky_relu: PASS
func.func @leaky_relu(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.leaky_relu %x {alpha = 0.2 : f64} : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @gelu: PASS
func.func @gelu(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.gelu %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @gelu_tanh: PASS
func.func @gelu_tanh(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.gelu %x {approximate = "tanh"} : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @silu: PASS
func.func @silu(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.silu %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @square: PASS
func.func @square(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.square %x : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @pow_scalar: PASS
func.func @pow_scalar(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}, tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %x : tensor<3x4xf32>
  %pos = remat.add_scalar %sq, 0.5 : tensor<3x4xf32>
  %y = remat.pow_scalar %x, 3.0 : tensor<3x4xf32>
  %z = remat.pow_scalar %pos, -1.5 : tensor<3x4xf32>
  return %y, %z : tensor<3x4xf32>, tensor<3x4xf32>
}

// CHECK: @scalar_forms: PASS
func.func @scalar_forms(
    %x: tensor<3x4xf32> {remat.role = "input"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %a = remat.add_scalar %x, 2.0 : tensor<3x4xf32>
  %y = remat.mul_scalar %a, -3.0 : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}

// CHECK: @where: PASS
func.func @where(
    %c: tensor<3x4xi1> {remat.role = "input"},
    %a: tensor<3x4xf32> {remat.role = "input"},
    %b: tensor<3x4xf32> {remat.role = "param"})
    -> (tensor<3x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.where %c, %a, %b : tensor<3x4xi1>, tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
