// PyTorch partitioner test case 3: y0, y1 = split(x, 2); y = sin(y0) + cos(y1).
// Known answer under min-cut: only x is saved; the split (two slice views) is
// recomputed in backward.

func.func @split_sin_cos(%x: tensor<4xf32> {remat.role = "input"},
                         %dy: tensor<2xf32> {remat.role = "tangent"})
    -> (tensor<2xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %y0 = remat.slice %x {offsets = array<i64: 0>, sizes = array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>
  %y1 = remat.slice %x {offsets = array<i64: 2>, sizes = array<i64: 2>} : (tensor<4xf32>) -> tensor<2xf32>
  %sin = remat.opaque "sin"(%y0) {compute_class = "pointwise", flops = 8.0} : (tensor<2xf32>) -> tensor<2xf32>
  %cos = remat.opaque "cos"(%y1) {compute_class = "pointwise", flops = 8.0} : (tensor<2xf32>) -> tensor<2xf32>
  %y = remat.add %sin, %cos : tensor<2xf32>
  // backward: d sin(u) = cos(u) du, d cos(u) = -sin(u) du, split's backward
  // is a concatenation.
  %cos0 = remat.opaque "cos"(%y0) {compute_class = "pointwise", flops = 8.0} : (tensor<2xf32>) -> tensor<2xf32>
  %d_y0 = remat.mul %dy, %cos0 : tensor<2xf32>
  %sin1 = remat.opaque "sin"(%y1) {compute_class = "pointwise", flops = 8.0} : (tensor<2xf32>) -> tensor<2xf32>
  %neg1 = remat.neg %sin1 : tensor<2xf32>
  %d_y1 = remat.mul %dy, %neg1 : tensor<2xf32>
  %dx = remat.concat %d_y0, %d_y1 {dim = 0} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %y, %dx : tensor<2xf32>, tensor<4xf32>
}
