// Placeholder replaced by the full layer below once every op exists.
func.func @tiny(%a: tensor<4x4xf32> {remat.role = "input"},
                %b: tensor<4x4xf32> {remat.role = "param"})
    -> (tensor<4x4xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %0 = remat.matmul %a, %b {remat.name = "query_proj", remat.no_auto_recompute}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = remat.add %0, %a : tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
