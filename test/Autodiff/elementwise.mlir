// RUN: remat-opt %s -split-input-file -remat-autodiff | FileCheck %s

// Binary elementwise ops: both operands are differentiated.

// CHECK-LABEL: func.func @binary_joint(
// CHECK-SAME: %[[A:.*]]: tensor<4x8xf32> {remat.role = "input"}, %[[B:.*]]: tensor<4x8xf32> {remat.role = "param"}, %[[DY:.*]]: tensor<4x8xf32> {remat.role = "tangent"})
// CHECK-SAME: -> (tensor<4x8xf32> {remat.role = "output"}, tensor<4x8xf32> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<4x8xf32> {remat.grad_of = 1 : i64, remat.role = "grad"})
// CHECK-SAME: attributes {remat.graph = "joint"}
// CHECK:      %[[SUM:.*]] = remat.add %[[A]], %[[B]] {remat.name = "s"}
// CHECK:      %[[DIFF:.*]] = remat.sub %[[SUM]], %[[B]]
// CHECK:      %[[PROD:.*]] = remat.mul %[[DIFF]], %[[A]]
// CHECK:      %[[QUOT:.*]] = remat.div %[[PROD]], %[[B]]
// CHECK:      %[[POW:.*]] = remat.pow %[[QUOT]], %[[A]]
//   pow: d base = g * e * base^(e - 1), d exponent = g * c * log(base)
// CHECK:      %[[EM1:.*]] = remat.add_scalar %[[A]], -1.0{{.*}}
// CHECK:      %[[P:.*]] = remat.pow %[[QUOT]], %[[EM1]]
// CHECK:      %[[EP:.*]] = remat.mul %[[A]], %[[P]]
// CHECK:      %[[DQ:.*]] = remat.mul %[[DY]], %[[EP]]
// CHECK:      %[[GC:.*]] = remat.mul %[[DY]], %[[POW]]
// CHECK:      %[[LOG:.*]] = remat.log %[[QUOT]]
// CHECK:      %[[DA0:.*]] = remat.mul %[[GC]], %[[LOG]]
//   div: d lhs = g / b, d rhs = -(g * c) / b
// CHECK:      %[[DPROD:.*]] = remat.div %[[DQ]], %[[B]]
// CHECK:      %[[GQ:.*]] = remat.mul %[[DQ]], %[[QUOT]]
// CHECK:      %[[GQB:.*]] = remat.div %[[GQ]], %[[B]]
// CHECK:      %[[DB0:.*]] = remat.neg %[[GQB]]
//   mul: d lhs = g * rhs, d rhs = g * lhs; fan-out into %a accumulates
// CHECK:      %[[DDIFF:.*]] = remat.mul %[[DPROD]], %[[A]]
// CHECK:      %[[DA1:.*]] = remat.mul %[[DPROD]], %[[DIFF]]
// CHECK:      %[[DA01:.*]] = remat.add %[[DA0]], %[[DA1]]
//   sub: d lhs = g, d rhs = -g
// CHECK:      %[[NEG:.*]] = remat.neg %[[DDIFF]]
// CHECK:      %[[DB1:.*]] = remat.add %[[DB0]], %[[NEG]]
//   add: both get g
// CHECK:      %[[DA:.*]] = remat.add %[[DA01]], %[[DDIFF]]
// CHECK:      %[[DB:.*]] = remat.add %[[DB1]], %[[DDIFF]]
// CHECK:      return %[[POW]], %[[DA]], %[[DB]]
func.func @binary(%a: tensor<4x8xf32> {remat.role = "input"},
                  %b: tensor<4x8xf32> {remat.role = "param"})
    -> (tensor<4x8xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %s = remat.add %a, %b {remat.name = "s"} : tensor<4x8xf32>
  %d = remat.sub %s, %b : tensor<4x8xf32>
  %m = remat.mul %d, %a : tensor<4x8xf32>
  %q = remat.div %m, %b : tensor<4x8xf32>
  %p = remat.pow %q, %a : tensor<4x8xf32>
  return %p : tensor<4x8xf32>
}

// -----

// Unary math ops read their input or output, whichever the formula needs.

// CHECK-LABEL: func.func @unary_joint(
// CHECK-SAME: %[[X:.*]]: tensor<8xf32> {remat.role = "input"}, %[[DY:.*]]: tensor<8xf32> {remat.role = "tangent"})
// CHECK:      %[[NEG:.*]] = remat.neg %[[X]]
// CHECK:      %[[EXP:.*]] = remat.exp %[[NEG]]
// CHECK:      %[[LOG:.*]] = remat.log %[[EXP]]
// CHECK:      %[[SQRT:.*]] = remat.sqrt %[[LOG]]
// CHECK:      %[[RSQRT:.*]] = remat.rsqrt %[[SQRT]]
// CHECK:      %[[SQ:.*]] = remat.square %[[RSQRT]]
//   square: g * 2x
// CHECK:      %[[TWOX:.*]] = remat.mul_scalar %[[RSQRT]], 2.0{{.*}}
// CHECK:      %[[G5:.*]] = remat.mul %[[DY]], %[[TWOX]]
//   rsqrt: g * (-y^3 / 2)
// CHECK:      %[[CUBE:.*]] = remat.pow_scalar %[[RSQRT]], 3.0{{.*}}
// CHECK:      %[[HALF:.*]] = remat.mul_scalar %[[CUBE]], -5.0{{.*}}e-01
// CHECK:      %[[G4:.*]] = remat.mul %[[G5]], %[[HALF]]
//   sqrt: (g / 2) / y
// CHECK:      %[[GH:.*]] = remat.mul_scalar %[[G4]], 5.0{{.*}}e-01
// CHECK:      %[[G3:.*]] = remat.div %[[GH]], %[[SQRT]]
//   log: g / x
// CHECK:      %[[G2:.*]] = remat.div %[[G3]], %[[EXP]]
//   exp: g * y
// CHECK:      %[[G1:.*]] = remat.mul %[[G2]], %[[EXP]]
// CHECK:      %[[G0:.*]] = remat.neg %[[G1]]
// CHECK:      return %[[SQ]], %[[G0]]
func.func @unary(%x: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %0 = remat.neg %x : tensor<8xf32>
  %1 = remat.exp %0 : tensor<8xf32>
  %2 = remat.log %1 : tensor<8xf32>
  %3 = remat.sqrt %2 : tensor<8xf32>
  %4 = remat.rsqrt %3 : tensor<8xf32>
  %5 = remat.square %4 : tensor<8xf32>
  return %5 : tensor<8xf32>
}

// -----

// Activations use the dialect's activation backward ops, with the saved
// tensor each one names (output for relu/sigmoid/tanh, input otherwise) and
// the forward's attributes.

// CHECK-LABEL: func.func @activations_joint(
// CHECK-SAME: %[[X:.*]]: tensor<8xbf16> {remat.role = "input"}, %[[DY:.*]]: tensor<8xbf16> {remat.role = "tangent"})
// CHECK:      %[[R:.*]] = remat.relu %[[X]]
// CHECK:      %[[S:.*]] = remat.sigmoid %[[R]]
// CHECK:      %[[T:.*]] = remat.tanh %[[S]]
// CHECK:      %[[L:.*]] = remat.leaky_relu %[[T]] {alpha = 2.0{{.*}}e-01 : f64}
// CHECK:      %[[G:.*]] = remat.gelu %[[L]] {approximate = "tanh"}
// CHECK:      %[[SI:.*]] = remat.silu %[[G]]
// CHECK:      %[[DG:.*]] = remat.silu_backward %[[DY]], %[[G]]
// CHECK:      %[[DL:.*]] = remat.gelu_backward %[[DG]], %[[L]] {approximate = "tanh"}
// CHECK:      %[[DT:.*]] = remat.leaky_relu_backward %[[DL]], %[[T]] {alpha = 2.0{{.*}}e-01 : f64}
// CHECK:      %[[DS:.*]] = remat.tanh_backward %[[DT]], %[[T]]
// CHECK:      %[[DR:.*]] = remat.sigmoid_backward %[[DS]], %[[S]]
// CHECK:      %[[DX:.*]] = remat.relu_backward %[[DR]], %[[R]]
// CHECK:      return %[[SI]], %[[DX]]
func.func @activations(%x: tensor<8xbf16> {remat.role = "input"})
    -> (tensor<8xbf16> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %0 = remat.relu %x : tensor<8xbf16>
  %1 = remat.sigmoid %0 : tensor<8xbf16>
  %2 = remat.tanh %1 : tensor<8xbf16>
  %3 = remat.leaky_relu %2 {alpha = 0.2 : f64} : tensor<8xbf16>
  %4 = remat.gelu %3 {approximate = "tanh"} : tensor<8xbf16>
  %5 = remat.silu %4 : tensor<8xbf16>
  return %5 : tensor<8xbf16>
}

// -----

// Scalar forms: pow_scalar differentiates to e * x^(e - 1) (x itself for
// e = 2, a zero gradient for e = 0); add_scalar passes the gradient.

// CHECK-LABEL: func.func @scalar_forms_joint(
// CHECK-SAME: %[[X:.*]]: tensor<8xf16> {remat.role = "input"}, %[[DY:.*]]: tensor<8xf16> {remat.role = "tangent"})
// CHECK:      %[[A:.*]] = remat.add_scalar %[[X]], 1.0
// CHECK:      %[[M:.*]] = remat.mul_scalar %[[A]], 3.0
// CHECK:      %[[P3:.*]] = remat.pow_scalar %[[M]], 3.0
// CHECK:      %[[P2:.*]] = remat.pow_scalar %[[P3]], 2.0
// CHECK:      %[[TWO:.*]] = remat.mul_scalar %[[P3]], 2.0
// CHECK:      %[[G2:.*]] = remat.mul %[[DY]], %[[TWO]]
// CHECK:      %[[SQ:.*]] = remat.pow_scalar %[[M]], 2.0
// CHECK:      %[[THREE:.*]] = remat.mul_scalar %[[SQ]], 3.0
// CHECK:      %[[G1:.*]] = remat.mul %[[G2]], %[[THREE]]
// CHECK:      %[[G0:.*]] = remat.mul_scalar %[[G1]], 3.0
// CHECK-NOT:  remat.add_scalar
// CHECK:      return %[[P2]], %[[G0]]
func.func @scalar_forms(%x: tensor<8xf16> {remat.role = "input"})
    -> (tensor<8xf16> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %0 = remat.add_scalar %x, 1.0 : tensor<8xf16>
  %1 = remat.mul_scalar %0, 3.0 : tensor<8xf16>
  %2 = remat.pow_scalar %1, 3.0 : tensor<8xf16>
  %3 = remat.pow_scalar %2, 2.0 : tensor<8xf16>
  return %3 : tensor<8xf16>
}

// -----

// where: the i1 condition gets nothing; each branch gets the gradient where
// it was picked and zeros elsewhere. cast: the gradient is cast back.

// CHECK-LABEL: func.func @where_cast_joint(
// CHECK-SAME: %[[C:.*]]: tensor<4xi1> {remat.role = "input"}, %[[A:.*]]: tensor<4xbf16> {remat.role = "input"}, %[[B:.*]]: tensor<4xbf16> {remat.role = "param"}, %[[DY:.*]]: tensor<4xf32> {remat.role = "tangent"})
// CHECK-SAME: -> (tensor<4xf32> {remat.role = "output"}, tensor<4xbf16> {remat.grad_of = 1 : i64, remat.role = "grad"}, tensor<4xbf16> {remat.grad_of = 2 : i64, remat.role = "grad"})
// CHECK:      %[[W:.*]] = remat.where %[[C]], %[[A]], %[[B]]
// CHECK:      %[[Y:.*]] = remat.cast %[[W]] : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK:      %[[DW:.*]] = remat.cast %[[DY]] : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK:      %[[ZERO:.*]] = remat.constant dense<0.000000e+00> : tensor<4xbf16>
// CHECK:      %[[DA:.*]] = remat.where %[[C]], %[[DW]], %[[ZERO]]
// CHECK:      %[[DB:.*]] = remat.where %[[C]], %[[ZERO]], %[[DW]]
// CHECK:      return %[[Y]], %[[DA]], %[[DB]]
func.func @where_cast(%c: tensor<4xi1> {remat.role = "input"},
                      %a: tensor<4xbf16> {remat.role = "input"},
                      %b: tensor<4xbf16> {remat.role = "param"})
    -> (tensor<4xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %w = remat.where %c, %a, %b : tensor<4xi1>, tensor<4xbf16>
  %y = remat.cast %w : (tensor<4xbf16>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
