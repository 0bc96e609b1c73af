// PyTorch partitioner test case 2: y = cos(cos(a + b + c + d)), loss = sum(y).
// Known answer under min-cut: 1 value saved (the sum %s3), not the 4 inputs.
// An add's backward reads nothing, so every input's gradient is %d_s3.

func.func @sum_of_four_inputs(%a: tensor<3xf32> {remat.role = "input"},
                              %b: tensor<3xf32> {remat.role = "input"},
                              %c: tensor<3xf32> {remat.role = "input"},
                              %d: tensor<3xf32> {remat.role = "input"},
                              %dy: tensor<3xf32> {remat.role = "tangent"})
    -> (tensor<3xf32> {remat.role = "output"},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 0},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 1},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 2},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 3})
    attributes {remat.graph = "joint"} {
  %s1 = remat.add %a, %b : tensor<3xf32>
  %s2 = remat.add %s1, %c : tensor<3xf32>
  %s3 = remat.add %s2, %d {remat.name = "sum"} : tensor<3xf32>
  %c1 = remat.opaque "cos"(%s3) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %c2 = remat.opaque "cos"(%c1) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  // backward
  %sin1 = remat.opaque "sin"(%c1) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %neg1 = remat.neg %sin1 : tensor<3xf32>
  %d_c1 = remat.mul %dy, %neg1 : tensor<3xf32>
  %sin0 = remat.opaque "sin"(%s3) {compute_class = "pointwise", flops = 12.0} : (tensor<3xf32>) -> tensor<3xf32>
  %neg0 = remat.neg %sin0 : tensor<3xf32>
  %d_s3 = remat.mul %d_c1, %neg0 : tensor<3xf32>
  return %c2, %d_s3, %d_s3, %d_s3, %d_s3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}
