// RUN: remat-opt %s -split-input-file | remat-opt -split-input-file | FileCheck %s
// RUN: remat-opt %s -split-input-file -mlir-print-op-generic | remat-opt -split-input-file | FileCheck %s

// Round trip of every op in RematNNOps.td: print, parse, print again, in the
// pretty and the generic form.

// CHECK-LABEL: func.func @softmax
// CHECK: remat.softmax %{{.*}} dim = 3 : tensor<2x4x16x16xbf16>
// CHECK: remat.log_softmax %{{.*}} dim = 0 : tensor<2x4x16x16xbf16>
func.func @softmax(%x: tensor<2x4x16x16xbf16>) -> (tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>) {
  %0 = remat.softmax %x dim = 3 : tensor<2x4x16x16xbf16>
  %1 = remat.log_softmax %x dim = 0 : tensor<2x4x16x16xbf16>
  return %0, %1 : tensor<2x4x16x16xbf16>, tensor<2x4x16x16xbf16>
}

// -----

// CHECK-LABEL: func.func @softmax_backward
// CHECK: remat.softmax_backward %{{.*}}, %{{.*}} dim = 1 : tensor<8x100xf32>
// CHECK: remat.log_softmax_backward %{{.*}}, %{{.*}} dim = 1 : tensor<8x100xf32>
func.func @softmax_backward(%g: tensor<8x100xf32>, %y: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x100xf32>) {
  %0 = remat.softmax_backward %g, %y dim = 1 : tensor<8x100xf32>
  %1 = remat.log_softmax_backward %g, %y dim = 1 : tensor<8x100xf32>
  return %0, %1 : tensor<8x100xf32>, tensor<8x100xf32>
}

// -----

// CHECK-LABEL: func.func @rmsnorm
// CHECK: remat.rmsnorm %{{.*}}, %{{.*}} eps = 9.9999999999999995E-7 : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
// CHECK: remat.rmsnorm %{{.*}}, %{{.*}} eps = 1.000000e-05 : (tensor<2x16x64xbf16>, tensor<16x64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2xf32>)
func.func @rmsnorm(%x: tensor<2x16x64xbf16>, %w: tensor<64xbf16>, %w2: tensor<16x64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2xf32>) {
  %0 = remat.rmsnorm %x, %w eps = 1.0e-06 : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
  %1, %rstd = remat.rmsnorm %x, %w2 eps = 1.0e-05 : (tensor<2x16x64xbf16>, tensor<16x64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2xf32>)
  return %0, %1, %rstd : tensor<2x16x64xbf16>, tensor<2x16x64xbf16>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @rmsnorm_backward
// CHECK: remat.rmsnorm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>) -> (tensor<2x16x64xf32>, tensor<64xf32>)
func.func @rmsnorm_backward(%g: tensor<2x16x64xf32>, %x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %rstd: tensor<2x16xf32>) -> (tensor<2x16x64xf32>, tensor<64xf32>) {
  %gx, %gw = remat.rmsnorm_backward %g, %x, %w, %rstd : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>) -> (tensor<2x16x64xf32>, tensor<64xf32>)
  return %gx, %gw : tensor<2x16x64xf32>, tensor<64xf32>
}

// -----

// CHECK-LABEL: func.func @layernorm
// CHECK: remat.layernorm %{{.*}}, %{{.*}}, %{{.*}} eps = 1.000000e-05 : (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>)
func.func @layernorm(%x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>) {
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>)
  return %y, %mean, %rstd : tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>
}

// -----

// CHECK-LABEL: func.func @layernorm_backward
// CHECK: remat.layernorm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<64xf16>, tensor<16x2xf32>, tensor<16x2xf32>) -> (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>)
func.func @layernorm_backward(%g: tensor<16x2x64xf16>, %x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %mean: tensor<16x2xf32>, %rstd: tensor<16x2xf32>) -> (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>) {
  %gx, %gw, %gb = remat.layernorm_backward %g, %x, %w, %mean, %rstd : (tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<64xf16>, tensor<16x2xf32>, tensor<16x2xf32>) -> (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>)
  return %gx, %gw, %gb : tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>
}

// -----

// CHECK-LABEL: func.func @batchnorm
// CHECK: remat.batchnorm %{{.*}}, %{{.*}}, %{{.*}} eps = 1.000000e-05 : (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>)
// CHECK: remat.batchnorm_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x16x10x10xf32>, tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>)
func.func @batchnorm(%x: tensor<8x16x10x10xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>, %g: tensor<8x16x10x10xf32>) -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>) {
  %y, %mean, %invstd = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>)
  %gx, %gw, %gb = remat.batchnorm_backward %g, %x, %w, %mean, %invstd : (tensor<8x16x10x10xf32>, tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>)
  return %gx, %gw, %gb : tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>
}

// -----

// Grouped-query attention (8 query heads share 2 key/value heads), causal.
// CHECK-LABEL: func.func @sdpa_gqa_causal
// CHECK: remat.sdpa %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 {causal} : (tensor<2x8x32x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16>) -> (tensor<2x8x32x64xbf16>, tensor<2x8x32xf32>)
func.func @sdpa_gqa_causal(%q: tensor<2x8x32x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>) -> (tensor<2x8x32x64xbf16>, tensor<2x8x32xf32>) {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.125 {causal} : (tensor<2x8x32x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16>) -> (tensor<2x8x32x64xbf16>, tensor<2x8x32xf32>)
  return %o, %lse : tensor<2x8x32x64xbf16>, tensor<2x8x32xf32>
}

// -----

// Cross attention: key length differs from query length, value head_dim from
// query head_dim.
// CHECK-LABEL: func.func @sdpa_cross
// CHECK: remat.sdpa %{{.*}}, %{{.*}}, %{{.*}} scale = 2.500000e-01 : (tensor<1x4x8x16xf32>, tensor<1x4x24x16xf32>, tensor<1x4x24x32xf32>) -> (tensor<1x4x8x32xf32>, tensor<1x4x8xf32>)
func.func @sdpa_cross(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x24x16xf32>, %v: tensor<1x4x24x32xf32>) -> tensor<1x4x8x32xf32> {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.25 : (tensor<1x4x8x16xf32>, tensor<1x4x24x16xf32>, tensor<1x4x24x32xf32>) -> (tensor<1x4x8x32xf32>, tensor<1x4x8xf32>)
  return %o : tensor<1x4x8x32xf32>
}

// -----

// CHECK-LABEL: func.func @sdpa_backward
// CHECK: remat.sdpa_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} scale = 1.250000e-01 {causal} : (tensor<2x8x32x64xf16>, tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x8x32x64xf16>, tensor<2x8x32xf32>) -> (tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>)
func.func @sdpa_backward(%go: tensor<2x8x32x64xf16>, %q: tensor<2x8x32x64xf16>, %k: tensor<2x2x32x64xf16>, %v: tensor<2x2x32x64xf16>, %o: tensor<2x8x32x64xf16>, %lse: tensor<2x8x32xf32>) -> (tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>) {
  %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse scale = 0.125 {causal} : (tensor<2x8x32x64xf16>, tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x8x32x64xf16>, tensor<2x8x32xf32>) -> (tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>)
  return %gq, %gk, %gv : tensor<2x8x32x64xf16>, tensor<2x2x32x64xf16>, tensor<2x2x32x64xf16>
}

// -----

// CHECK-LABEL: func.func @dropout
// CHECK: remat.dropout %{{.*}}, %{{.*}}, %{{.*}} p = 1.000000e-01 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi1>)
// CHECK: remat.dropout %{{.*}}, %{{.*}}, %{{.*}} p = 0.000000e+00 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi8>)
// CHECK: remat.dropout_backward %{{.*}}, %{{.*}} p = 1.000000e-01 : (tensor<16x64xbf16>, tensor<16x64xi1>) -> tensor<16x64xbf16>
func.func @dropout(%x: tensor<16x64xbf16>, %seed: tensor<i64>, %offset: tensor<i64>, %g: tensor<16x64xbf16>) -> (tensor<16x64xbf16>, tensor<16x64xi8>, tensor<16x64xbf16>) {
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.1 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi1>)
  %y8, %mask8 = remat.dropout %x, %seed, %offset p = 0.0 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi8>)
  %gx = remat.dropout_backward %g, %mask p = 0.1 : (tensor<16x64xbf16>, tensor<16x64xi1>) -> tensor<16x64xbf16>
  return %y, %mask8, %gx : tensor<16x64xbf16>, tensor<16x64xi8>, tensor<16x64xbf16>
}

// -----

// CHECK-LABEL: func.func @embedding
// CHECK: remat.embedding %{{.*}}, %{{.*}} : (tensor<100x32xbf16>, tensor<2x8xi64>) -> tensor<2x8x32xbf16>
// CHECK: remat.embedding %{{.*}}, %{{.*}} : (tensor<100x32xbf16>, tensor<i64>) -> tensor<32xbf16>
// CHECK: remat.embedding_backward %{{.*}}, %{{.*}} : (tensor<2x8x32xbf16>, tensor<2x8xi64>) -> tensor<100x32xbf16>
func.func @embedding(%table: tensor<100x32xbf16>, %ids: tensor<2x8xi64>, %id: tensor<i64>, %g: tensor<2x8x32xbf16>) -> (tensor<2x8x32xbf16>, tensor<32xbf16>, tensor<100x32xbf16>) {
  %e = remat.embedding %table, %ids : (tensor<100x32xbf16>, tensor<2x8xi64>) -> tensor<2x8x32xbf16>
  %row = remat.embedding %table, %id : (tensor<100x32xbf16>, tensor<i64>) -> tensor<32xbf16>
  %gt = remat.embedding_backward %g, %ids : (tensor<2x8x32xbf16>, tensor<2x8xi64>) -> tensor<100x32xbf16>
  return %e, %row, %gt : tensor<2x8x32xbf16>, tensor<32xbf16>, tensor<100x32xbf16>
}

// -----

// The default reduction ("mean") is elided when printed.
// CHECK-LABEL: func.func @cross_entropy
// CHECK: remat.cross_entropy %{{.*}}, %{{.*}} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
// CHECK: remat.cross_entropy %{{.*}}, %{{.*}} {reduction = "sum"} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
// CHECK: remat.cross_entropy_backward %{{.*}}, %{{.*}}, %{{.*}} {reduction = "sum"} : (tensor<f32>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x100xf32>
func.func @cross_entropy(%logits: tensor<8x100xf32>, %targets: tensor<8xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<8x100xf32>) {
  %mean = remat.cross_entropy %logits, %targets {reduction = "mean"} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
  %sum = remat.cross_entropy %logits, %targets {reduction = "sum"} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
  %gl = remat.cross_entropy_backward %g, %logits, %targets {reduction = "sum"} : (tensor<f32>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x100xf32>
  return %mean, %sum, %gl : tensor<f32>, tensor<f32>, tensor<8x100xf32>
}

// -----

// (9 + 2*1 - 1*(3-1) - 1) / 2 + 1 = 5.
// CHECK-LABEL: func.func @conv2d
// CHECK: remat.conv2d %{{.*}}, %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) -> tensor<2x4x5x5xf16>
// CHECK: remat.conv2d %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
func.func @conv2d(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>, %b: tensor<4xf16>) -> (tensor<2x4x5x5xf16>, tensor<2x4x5x5xf16>) {
  %0 = remat.conv2d %x, %w, %b strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) -> tensor<2x4x5x5xf16>
  %1 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0, %1 : tensor<2x4x5x5xf16>, tensor<2x4x5x5xf16>
}

// -----

// Depthwise (groups = channels), dilated, rectangular attributes:
// height (10 + 2*2 - 2*(3-1) - 1) / 1 + 1 = 10, width (12 + 0 - 1*(1-1) - 1) / 3 + 1 = 4.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK: remat.conv2d %{{.*}}, %{{.*}} strides = [1, 3] padding = [2, 0] dilation = [2, 1] groups = 8 : (tensor<1x8x10x12xf32>, tensor<8x1x3x1xf32>) -> tensor<1x8x10x4xf32>
func.func @conv2d_depthwise(%x: tensor<1x8x10x12xf32>, %w: tensor<8x1x3x1xf32>) -> tensor<1x8x10x4xf32> {
  %0 = remat.conv2d %x, %w strides = [1, 3] padding = [2, 0] dilation = [2, 1] groups = 8 : (tensor<1x8x10x12xf32>, tensor<8x1x3x1xf32>) -> tensor<1x8x10x4xf32>
  return %0 : tensor<1x8x10x4xf32>
}

// -----

// With stride 2 both a 9x9 and a 10x10 input give a 5x5 output; the result
// type of the input gradient picks one.
// CHECK-LABEL: func.func @conv2d_backward
// CHECK: remat.conv2d_backward_input %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x9x9xf16>
// CHECK: remat.conv2d_backward_input %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x10x10xf16>
// CHECK: remat.conv2d_backward_weight %{{.*}}, %{{.*}} strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<4x3x3x3xf16>
func.func @conv2d_backward(%g: tensor<2x4x5x5xf16>, %w: tensor<4x3x3x3xf16>, %x: tensor<2x3x9x9xf16>) -> (tensor<2x3x9x9xf16>, tensor<2x3x10x10xf16>, tensor<4x3x3x3xf16>) {
  %gx = remat.conv2d_backward_input %g, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x9x9xf16>
  %gx10 = remat.conv2d_backward_input %g, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x10x10xf16>
  %gw = remat.conv2d_backward_weight %g, %x strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<4x3x3x3xf16>
  return %gx, %gx10, %gw : tensor<2x3x9x9xf16>, tensor<2x3x10x10xf16>, tensor<4x3x3x3xf16>
}

// -----

// (8 + 2*1 - 3) / 2 + 1 = 4.
// CHECK-LABEL: func.func @max_pool2d
// CHECK: remat.max_pool2d %{{.*}} kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
// CHECK: remat.max_pool2d_backward %{{.*}}, %{{.*}} kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x8x8xf32>
func.func @max_pool2d(%x: tensor<1x2x8x8xf32>, %g: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>) {
  %y, %idx = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  %gx = remat.max_pool2d_backward %g, %idx kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x8x8xf32>
  return %y, %gx : tensor<1x2x4x4xf32>, tensor<1x2x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @avg_pool2d
// CHECK: remat.avg_pool2d %{{.*}} kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<1x2x8x8xbf16>) -> tensor<1x2x4x4xbf16>
// CHECK: remat.avg_pool2d %{{.*}} kernel = [3, 3] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<1x2x8x8xbf16>) -> tensor<1x2x4x4xbf16>
// CHECK: remat.avg_pool2d_backward %{{.*}} kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<1x2x4x4xbf16>) -> tensor<1x2x8x8xbf16>
func.func @avg_pool2d(%x: tensor<1x2x8x8xbf16>, %g: tensor<1x2x4x4xbf16>) -> (tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>, tensor<1x2x8x8xbf16>) {
  %y = remat.avg_pool2d %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<1x2x8x8xbf16>) -> tensor<1x2x4x4xbf16>
  %y2 = remat.avg_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<1x2x8x8xbf16>) -> tensor<1x2x4x4xbf16>
  %gx = remat.avg_pool2d_backward %g kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<1x2x4x4xbf16>) -> tensor<1x2x8x8xbf16>
  return %y, %y2, %gx : tensor<1x2x4x4xbf16>, tensor<1x2x4x4xbf16>, tensor<1x2x8x8xbf16>
}
