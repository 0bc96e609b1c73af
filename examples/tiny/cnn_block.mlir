// A ResNet/VGG-style CNN block, joint form: conv2d (3x3, stride 1, pad 1, no
// bias) + batchnorm (training mode) + relu + 2x2 max-pool, on an NCHW f32
// batch of 8 RGB 32x32 images. The backward reads the conv input (for the
// weight gradient), the conv output and batch statistics (batchnorm), the
// relu output (relu_backward) and the pooling indices (max_pool2d_backward,
// which needs no input tensor).

func.func @cnn_block(%x: tensor<8x3x32x32xf32> {remat.role = "input"},
                     %w: tensor<16x3x3x3xf32> {remat.role = "param"},
                     %gamma: tensor<16xf32> {remat.role = "param"},
                     %beta: tensor<16xf32> {remat.role = "param"},
                     %dy: tensor<8x16x16x16xf32> {remat.role = "tangent"})
    -> (tensor<8x16x16x16xf32> {remat.role = "output"},
        tensor<8x3x32x32xf32> {remat.role = "grad", remat.grad_of = 0},
        tensor<16x3x3x3xf32> {remat.role = "grad", remat.grad_of = 1},
        tensor<16xf32> {remat.role = "grad", remat.grad_of = 2},
        tensor<16xf32> {remat.role = "grad", remat.grad_of = 3})
    attributes {remat.graph = "joint"} {
  %conv = remat.conv2d %x, %w strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1 {remat.name = "conv"}
      : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x16x32x32xf32>
  %bn, %mean, %invstd = remat.batchnorm %conv, %gamma, %beta eps = 1.0e-05 {remat.name = "bn"}
      : (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  %act = remat.relu %bn {remat.name = "relu"} : tensor<8x16x32x32xf32>
  %pool, %indices = remat.max_pool2d %act kernel = [2, 2] strides = [2, 2] padding = [0, 0] {remat.name = "pool"}
      : (tensor<8x16x32x32xf32>) -> (tensor<8x16x16x16xf32>, tensor<8x16x16x16xi64>)
  // backward
  %d_act = remat.max_pool2d_backward %dy, %indices kernel = [2, 2] strides = [2, 2] padding = [0, 0]
      : (tensor<8x16x16x16xf32>, tensor<8x16x16x16xi64>) -> tensor<8x16x32x32xf32>
  %d_bn = remat.relu_backward %d_act, %act : tensor<8x16x32x32xf32>
  %d_conv, %d_gamma, %d_beta = remat.batchnorm_backward %d_bn, %conv, %gamma, %mean, %invstd
      : (tensor<8x16x32x32xf32>, tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
      -> (tensor<8x16x32x32xf32>, tensor<16xf32>, tensor<16xf32>)
  %dx = remat.conv2d_backward_input %d_conv, %w strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1
      : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
  %dw = remat.conv2d_backward_weight %d_conv, %x strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1
      : (tensor<8x16x32x32xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
  return %pool, %dx, %dw, %d_gamma, %d_beta
      : tensor<8x16x16x16xf32>, tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>
}
