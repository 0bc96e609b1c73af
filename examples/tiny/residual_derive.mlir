// A gated residual block where a needed value is derivable:
// h = x @ w (a projection, which automatic planning does not recompute),
// z = h + skip (the residual, with a skip input), out = silu(z) * h (a gate).
//
// The backward needs x (the matmul's weight gradient), z (silu_backward reads
// its input), silu(z) and h (a mul's backward reads both operands). Without
// derivation a planner saves both h and z (h is a matmul output it may not
// recompute) and recomputes silu(z) from z. With inexact derivation allowed it
// can save z alone and derive h = z - skip through the add's inverse rule:
// skip is a function input, available in backward anyway.

func.func @residual_derive(%x: tensor<4x4xf32> {remat.role = "input"},
                           %skip: tensor<4x4xf32> {remat.role = "input"},
                           %w: tensor<4x4xf32> {remat.role = "param"},
                           %dout: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 1},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 2})
    attributes {remat.graph = "joint"} {
  %h = remat.matmul %x, %w {remat.name = "h"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = remat.add %h, %skip {remat.name = "z"} : tensor<4x4xf32>
  %g = remat.silu %z {remat.name = "gate"} : tensor<4x4xf32>
  %out = remat.mul %g, %h {remat.name = "out"} : tensor<4x4xf32>
  // backward
  %d_g = remat.mul %dout, %h : tensor<4x4xf32>
  %d_h_gate = remat.mul %dout, %g : tensor<4x4xf32>
  %d_z = remat.silu_backward %d_g, %z : tensor<4x4xf32>
  // z = h + skip: both gradients are %d_z.
  %d_h = remat.add %d_h_gate, %d_z : tensor<4x4xf32>
  %dx = remat.matmul %d_h, %w {transpose_b} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dw = remat.matmul %x, %d_h {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %out, %dx, %d_z, %dw : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
