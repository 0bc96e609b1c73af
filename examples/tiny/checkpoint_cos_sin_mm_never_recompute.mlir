// PyTorch partitioner test case 5: y = cos(sin(mm(x, x) @ x)) inside a user
// checkpoint region (its other ops tagged remat.prefer_recompute),
// with every matmul tagged remat.never_recompute (PyTorch's MUST_SAVE). Known
// answer: the forward has 2 matmuls, the backward only the 4 of the gradients.

func.func @checkpoint_cos_sin_mm_never_recompute(%x: tensor<4x4xf32> {remat.role = "input"},
                                 %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %m1 = remat.matmul %x, %x {remat.never_recompute} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = remat.matmul %m1, %x {remat.never_recompute} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = remat.opaque "sin"(%m2) {compute_class = "pointwise", flops = 64.0, remat.prefer_recompute} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = remat.opaque "cos"(%s) {compute_class = "pointwise", flops = 64.0, remat.prefer_recompute} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  // backward
  %sin_s = remat.opaque "sin"(%s) {compute_class = "pointwise", flops = 64.0} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %neg_sin_s = remat.neg %sin_s : tensor<4x4xf32>
  %d_s = remat.mul %dy, %neg_sin_s : tensor<4x4xf32>
  %cos_m2 = remat.opaque "cos"(%m2) {compute_class = "pointwise", flops = 64.0} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %d_m2 = remat.mul %d_s, %cos_m2 : tensor<4x4xf32>
  %d_m1 = remat.matmul %d_m2, %x {transpose_b} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dx_m2 = remat.matmul %m1, %d_m2 {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dx_lhs = remat.matmul %d_m1, %x {transpose_b} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dx_rhs = remat.matmul %x, %d_m1 {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dx_sum = remat.add %dx_m2, %dx_lhs : tensor<4x4xf32>
  %dx = remat.add %dx_sum, %dx_rhs : tensor<4x4xf32>
  return %y, %dx : tensor<4x4xf32>, tensor<4x4xf32>
}
