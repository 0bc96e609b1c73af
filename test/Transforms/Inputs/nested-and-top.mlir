// A planned-at-the-top-level joint function beside one in a nested module
// (remat-report-nested.mlir).
module {
  func.func @top(%x: tensor<4xf32> {remat.role = "input"}, %dy: tensor<4xf32> {remat.role = "tangent"})
      -> (tensor<4xf32> {remat.role = "output"}, tensor<4xf32> {remat.role = "grad"})
      attributes {remat.graph = "joint"} {
    %e = remat.exp %x {remat.name = "e"} : tensor<4xf32>
    %d = remat.mul %dy, %e : tensor<4xf32>
    return %e, %d : tensor<4xf32>, tensor<4xf32>
  }
  module @inner {
    func.func @nested(%x: tensor<4xf32> {remat.role = "input"}, %dy: tensor<4xf32> {remat.role = "tangent"})
        -> (tensor<4xf32> {remat.role = "output"}, tensor<4xf32> {remat.role = "grad"})
        attributes {remat.graph = "joint"} {
      %e = remat.exp %x {remat.name = "e"} : tensor<4xf32>
      %d = remat.mul %dy, %e : tensor<4xf32>
      return %e, %d : tensor<4xf32>, tensor<4xf32>
    }
  }
}
