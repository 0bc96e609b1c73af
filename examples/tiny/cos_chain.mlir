// PyTorch partitioner test case 1: y = cos(cos(cos(x))), loss = sum(y).
// Joint graph as AOTAutograd emits it: d cos(u) = -sin(u) * du.
// Known answer under min-cut with default bans: 1 value saved (x); both inner
// cos are recomputed in backward. remat has no cos/sin op, so they are
// remat.opaque with compute_class "pointwise" (4 FLOPs per element, as exp).

func.func @cos_chain(%x: tensor<3xf32> {remat.role = "input"},
                     %dy: tensor<3xf32> {remat.role = "tangent"})
    -> (tensor<3xf32> {remat.role = "output"},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c1 = remat.opaque "cos"(%x) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %c2 = remat.opaque "cos"(%c1) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %c3 = remat.opaque "cos"(%c2) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  // backward
  %s2 = remat.opaque "sin"(%c2) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %n2 = remat.neg %s2 : tensor<3xf32>
  %d2 = remat.mul %dy, %n2 : tensor<3xf32>
  %s1 = remat.opaque "sin"(%c1) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %n1 = remat.neg %s1 : tensor<3xf32>
  %d1 = remat.mul %d2, %n1 : tensor<3xf32>
  %s0 = remat.opaque "sin"(%x) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %n0 = remat.neg %s0 : tensor<3xf32>
  %dx = remat.mul %d1, %n0 : tensor<3xf32>
  return %c3, %dx : tensor<3xf32>, tensor<3xf32>
}
