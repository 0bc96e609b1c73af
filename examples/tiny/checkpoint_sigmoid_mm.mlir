// PyTorch partitioner test case 4: y = sigmoid(mm(x, w)) inside a user
// checkpoint region, written as the tags such a region puts on its ops
// (remat.must_recompute). Known answer: the forward has 1 matmul, the backward
// recomputes it: 3 matmuls in backward (1 recompute + 2 for the gradients).

func.func @checkpoint_sigmoid_mm(%x: tensor<4x4xf32> {remat.role = "input"},
                                 %w: tensor<4x4xf32> {remat.role = "param"},
                                 %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 1})
    attributes {remat.graph = "joint"} {
  %m = remat.matmul %x, %w {remat.must_recompute, remat.name = "mm"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = remat.sigmoid %m {remat.must_recompute} : tensor<4x4xf32>
  // backward
  %d_m = remat.sigmoid_backward %dy, %y : tensor<4x4xf32>
  %dx = remat.matmul %d_m, %w {transpose_b} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dw = remat.matmul %x, %d_m {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y, %dx, %dw : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
