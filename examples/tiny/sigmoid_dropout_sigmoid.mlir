// PyTorch partitioner test case 6: y = sigmoid(dropout(sigmoid(x))) with both
// sigmoids tagged must-save (remat.never_recompute). Known answer: the dropout
// is recomputed from the RNG state (%seed, %offset: always available), so its
// mask is not saved; neither sigmoid is recomputed.

func.func @sigmoid_dropout_sigmoid(%x: tensor<4x4xf32> {remat.role = "input"},
                                   %seed: tensor<i64> {remat.role = "rng"},
                                   %offset: tensor<i64> {remat.role = "rng"},
                                   %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %s1 = remat.sigmoid %x {remat.never_recompute} : tensor<4x4xf32>
  %d, %mask = remat.dropout %s1, %seed, %offset p = 5.000000e-01
      : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> (tensor<4x4xf32>, tensor<4x4xi1>)
  %y = remat.sigmoid %d {remat.never_recompute} : tensor<4x4xf32>
  // backward
  %d_d = remat.sigmoid_backward %dy, %y : tensor<4x4xf32>
  %d_s1 = remat.dropout_backward %d_d, %mask p = 5.000000e-01
      : (tensor<4x4xf32>, tensor<4x4xi1>) -> tensor<4x4xf32>
  %dx = remat.sigmoid_backward %d_s1, %s1 : tensor<4x4xf32>
  return %y, %dx : tensor<4x4xf32>, tensor<4x4xf32>
}
