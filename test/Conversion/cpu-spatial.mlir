// Executes convolution, pooling and embedding (with their gradients) on the
// host and checks hand-computed values. x = [[1, 2, 3], [4, 5, 6],
// [7, 8, 9]] (conv) or [[1, 5, 2], [4, 3, 9], [7, 8, 6]] (pooling).

// RUN: remat-run %s --function=conv --input=0:1,2,3,4,5,6,7,8,9 --input=1:1,0,0,1 --input=2:1 --input=3:1,2,3,4,5,6,7,8 --input=4:2,3 | FileCheck %s --check-prefix=CONV
// RUN: remat-run %s --function=pool --input=0:1,5,2,4,3,9,7,8,6 --input=1:1,2,3,4 | FileCheck %s --check-prefix=POOL
// RUN: remat-run %s --function=embedding --input=0:1,2,3,4,5,6 --input=1:2,0,2 --input=2:1,1,2,2,3,3 | FileCheck %s --check-prefix=EMBED

// Diagonal 2x2 kernel: y[i][j] = x[i][j] + x[i+1][j+1] (+ bias 1); with
// padding 1 and stride 2 the windows start at (-1, -1), (-1, 1), (1, -1),
// (1, 1). The input gradient of ones counts the taps that read each
// element; the weight gradient sums each 2x2 window. Depthwise (groups = 2)
// scales channel c by w[c].
// CONV: @conv result 0 tensor<1x1x2x2xf32>: 7 9 13 15
// CONV-NEXT: @conv result 1 tensor<1x1x2x2xf32>: 1 3 7 14
// CONV-NEXT: @conv result 2 tensor<1x1x3x3xf32>: 1 1 0 1 2 1 0 1 1
// CONV-NEXT: @conv result 3 tensor<1x1x2x2xf32>: 12 16 24 28
// CONV-NEXT: @conv result 4 tensor<1x2x2x2xf32>: 2 4 6 8 15 18 21 24
// CONV-NEXT: @conv result 5 tensor<1x1x3x3xf32>: 1 0 1 0 0 0 1 0 1
// CONV-NEXT: @conv result 6 tensor<1x1x2x2xf32>: 1 3 7 9
func.func @conv(%x: tensor<1x1x3x3xf32>, %w: tensor<1x1x2x2xf32>, %b: tensor<1xf32>, %xd: tensor<1x2x2x2xf32>, %wd: tensor<2x1x1x1xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) {
  %ones = remat.constant dense<1.0> : tensor<1x1x2x2xf32>
  %0 = remat.conv2d %x, %w, %b strides = [1, 1] padding = [0, 0] dilation = [1, 1] groups = 1 : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  %1 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %2 = remat.conv2d_backward_input %ones, %w strides = [1, 1] padding = [0, 0] dilation = [1, 1] groups = 1 : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  %3 = remat.conv2d_backward_weight %ones, %x strides = [1, 1] padding = [0, 0] dilation = [1, 1] groups = 1 : (tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %4 = remat.conv2d %xd, %wd strides = [1, 1] padding = [0, 0] dilation = [1, 1] groups = 2 : (tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  // Dilation 2 with a 2x2 kernel of ones on a 3x3 input: one output that
  // reads the corners; its input gradient marks them, its weight gradient
  // reads them.
  %one = remat.constant dense<1.0> : tensor<1x1x1x1xf32>
  %kernel = remat.constant dense<1.0> : tensor<1x1x2x2xf32>
  %5 = remat.conv2d_backward_input %one, %kernel strides = [1, 1] padding = [0, 0] dilation = [2, 2] groups = 1 : (tensor<1x1x1x1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  %6 = remat.conv2d_backward_weight %one, %x strides = [1, 1] padding = [0, 0] dilation = [2, 2] groups = 1 : (tensor<1x1x1x1xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>
}

// Max over 2x2 windows (stride 1): 5 9 8 9 at flat indices 1 5 7 5; the
// gradient [1, 2, 3, 4] goes to those positions (5 receives 2 + 4).
// Average: 2x2 windows, then padding 1 and stride 2 without and with the
// padded positions in the divisor, and the gradients of ones.
// POOL: @pool result 0 tensor<1x1x2x2xf32>: 5 9 8 9
// POOL-NEXT: @pool result 1 tensor<1x1x2x2xi64>: 1 5 7 5
// POOL-NEXT: @pool result 2 tensor<1x1x3x3xf32>: 0 1 0 0 0 6 0 3 0
// POOL-NEXT: @pool result 3 tensor<1x1x2x2xf32>: 3.25 4.75 5.5 6.5
// POOL-NEXT: @pool result 4 tensor<1x1x2x2xf32>: 1 3.5 5.5 6.5
// POOL-NEXT: @pool result 5 tensor<1x1x2x2xf32>: 0.25 1.75 2.75 6.5
// POOL-NEXT: @pool result 6 tensor<1x1x3x3xf32>: 0.25 0.5 0.25 0.5 1 0.5 0.25 0.5 0.25
// POOL-NEXT: @pool result 7 tensor<1x1x3x3xf32>: 1 0.5 0.5 0.5 0.25 0.25 0.5 0.25 0.25
// POOL-NEXT: @pool result 8 tensor<1x1x2x2xf32>: 5 9 8 9
func.func @pool(%x: tensor<1x1x3x3xf32>, %gy: tensor<1x1x2x2xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) {
  %ones = remat.constant dense<1.0> : tensor<1x1x2x2xf32>
  %y, %idx = remat.max_pool2d %x kernel = [2, 2] strides = [1, 1] padding = [0, 0] : (tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  %gx = remat.max_pool2d_backward %gy, %idx kernel = [2, 2] strides = [1, 1] padding = [0, 0] : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>) -> tensor<1x1x3x3xf32>
  %a = remat.avg_pool2d %x kernel = [2, 2] strides = [1, 1] padding = [0, 0] : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %ap = remat.avg_pool2d %x kernel = [2, 2] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %api = remat.avg_pool2d %x kernel = [2, 2] strides = [2, 2] padding = [1, 1] : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  %ga = remat.avg_pool2d_backward %ones kernel = [2, 2] strides = [1, 1] padding = [0, 0] : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  %gap = remat.avg_pool2d_backward %ones kernel = [2, 2] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<1x1x2x2xf32>) -> tensor<1x1x3x3xf32>
  // Kernel 3, stride 2, padding 1 (padding counts as -inf) gives the same
  // maxima here.
  %yp, %idxp = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>)
  return %y, %idx, %gx, %a, %ap, %api, %ga, %gap, %yp : tensor<1x1x2x2xf32>, tensor<1x1x2x2xi64>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>
}

// Rows 2, 0, 2 of [[1, 2], [3, 4], [5, 6]]; the gradient scatter-adds rows
// [1, 1], [2, 2], [3, 3] into rows 2, 0, 2.
// EMBED: @embedding result 0 tensor<3x2xf32>: 5 6 1 2 5 6
// EMBED-NEXT: @embedding result 1 tensor<3x2xf32>: 2 2 0 0 4 4
// EMBED-NEXT: @embedding result 2 tensor<3x2xbf16>: 2 2 0 0 4 4
func.func @embedding(%table: tensor<3x2xf32>, %ids: tensor<3xi64>, %g: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xbf16>) {
  %e = remat.embedding %table, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %gt = remat.embedding_backward %g, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %gh = remat.cast %g : (tensor<3x2xf32>) -> tensor<3x2xbf16>
  %ids2 = remat.reshape %ids : (tensor<3xi64>) -> tensor<1x3xi64>
  %gh2 = remat.reshape %gh : (tensor<3x2xbf16>) -> tensor<1x3x2xbf16>
  %gth = remat.embedding_backward %gh2, %ids2 : (tensor<1x3x2xbf16>, tensor<1x3xi64>) -> tensor<3x2xbf16>
  return %e, %gt, %gth : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xbf16>
}
