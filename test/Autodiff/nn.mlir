// RUN: remat-opt %s -split-input-file -remat-autodiff | FileCheck %s

// Neural-network ops differentiate into the dialect's backward ops, which
// read the forward values (and statistics) directly.

// CHECK-LABEL: func.func @softmaxes_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32> {remat.role = "input"}, %[[G:[^:]*]]: tensor<4x8xf32> {remat.role = "tangent"}
// CHECK:      %[[S:.*]] = remat.softmax %[[X]] dim = 1 {remat.name = "probs"}
// CHECK-NEXT: %[[L:.*]] = remat.log_softmax %[[S]] dim = 0
// CHECK-NEXT: %[[DS:.*]] = remat.log_softmax_backward %[[G]], %[[L]] dim = 0
// CHECK-NEXT: %[[DX:.*]] = remat.softmax_backward %[[DS]], %[[S]] dim = 1
// CHECK-NEXT: return %[[L]], %[[DX]]
func.func @softmaxes(%x: tensor<4x8xf32> {remat.role = "input"})
    -> (tensor<4x8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %s = remat.softmax %x dim = 1 {remat.name = "probs"} : tensor<4x8xf32>
  %l = remat.log_softmax %s dim = 0 : tensor<4x8xf32>
  return %l : tensor<4x8xf32>
}

// -----

// The one-result rmsnorm becomes the two-result form (tags kept), since its
// backward reads rstd.
// CHECK-LABEL: func.func @rmsnorm_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4x16xbf16> {remat.role = "input"}, %[[W:[^:]*]]: tensor<16xbf16> {remat.role = "param"}, %[[G:[^:]*]]: tensor<2x4x16xbf16> {remat.role = "tangent"}
// CHECK:      %[[Y:.*]], %[[RSTD:.*]] = remat.rmsnorm %[[X]], %[[W]] eps = 1.000000e-05 {remat.name = "norm", remat.prefer_save} : (tensor<2x4x16xbf16>, tensor<16xbf16>) -> (tensor<2x4x16xbf16>, tensor<2x4xf32>)
// CHECK-NEXT: %[[DX:.*]], %[[DW:.*]] = remat.rmsnorm_backward %[[G]], %[[X]], %[[W]], %[[RSTD]]
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]]
func.func @rmsnorm(%x: tensor<2x4x16xbf16> {remat.role = "input"}, %w: tensor<16xbf16> {remat.role = "param"})
    -> (tensor<2x4x16xbf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.rmsnorm %x, %w eps = 1.0e-05 {remat.name = "norm", remat.prefer_save} : (tensor<2x4x16xbf16>, tensor<16xbf16>) -> tensor<2x4x16xbf16>
  return %y : tensor<2x4x16xbf16>
}

// -----

// CHECK-LABEL: func.func @layernorm_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xf16> {{.*}}, %[[W:[^:]*]]: tensor<16xf16> {{.*}}, %[[B:[^:]*]]: tensor<16xf16> {{.*}}, %[[G:[^:]*]]: tensor<8x16xf16> {remat.role = "tangent"}
// CHECK:      %[[Y:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = remat.layernorm %[[X]], %[[W]], %[[B]]
// CHECK-NEXT: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = remat.layernorm_backward %[[G]], %[[X]], %[[W]], %[[MEAN]], %[[RSTD]]
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]]
func.func @layernorm(%x: tensor<8x16xf16> {remat.role = "input"}, %w: tensor<16xf16> {remat.role = "param"}, %b: tensor<16xf16> {remat.role = "param"})
    -> (tensor<8x16xf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<8x16xf16>, tensor<16xf16>, tensor<16xf16>) -> (tensor<8x16xf16>, tensor<8xf32>, tensor<8xf32>)
  return %y : tensor<8x16xf16>
}

// -----

// CHECK-LABEL: func.func @batchnorm_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4x4xf32> {{.*}}, %[[W:[^:]*]]: tensor<3xf32> {{.*}}, %[[B:[^:]*]]: tensor<3xf32> {{.*}}, %[[G:[^:]*]]: tensor<2x3x4x4xf32> {remat.role = "tangent"}
// CHECK:      %[[Y:.*]], %[[MEAN:.*]], %[[INVSTD:.*]] = remat.batchnorm %[[X]], %[[W]], %[[B]]
// CHECK-NEXT: %[[DX:.*]], %[[DW:.*]], %[[DB:.*]] = remat.batchnorm_backward %[[G]], %[[X]], %[[W]], %[[MEAN]], %[[INVSTD]]
// CHECK-NEXT: return %[[Y]], %[[DX]], %[[DW]], %[[DB]]
func.func @batchnorm(%x: tensor<2x3x4x4xf32> {remat.role = "input"}, %w: tensor<3xf32> {remat.role = "param"}, %b: tensor<3xf32> {remat.role = "param"})
    -> (tensor<2x3x4x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mean, %invstd = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return %y : tensor<2x3x4x4xf32>
}

// -----

// Grouped-query attention: sdpa_backward reads q, k, v, the output and the
// logsumexp; scale and causal repeat the forward's, tags stay on the forward.
// CHECK-LABEL: func.func @sdpa_joint(
// CHECK-SAME: %[[Q:[^:]*]]: tensor<1x4x8x16xf16> {{.*}}, %[[K:[^:]*]]: tensor<1x2x8x16xf16> {{.*}}, %[[V:[^:]*]]: tensor<1x2x8x16xf16> {{.*}}, %[[G:[^:]*]]: tensor<1x4x8x16xf16> {remat.role = "tangent"}
// CHECK:      %[[O:.*]], %[[LSE:.*]] = remat.sdpa %[[Q]], %[[K]], %[[V]] scale = 2.500000e-01 {causal, remat.name = "attention_out", remat.no_auto_recompute}
// CHECK-NEXT: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = remat.sdpa_backward %[[G]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] scale = 2.500000e-01 {causal} :
// CHECK-SAME: -> (tensor<1x4x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>)
// CHECK-NEXT: return %[[O]], %[[DQ]], %[[DK]], %[[DV]]
func.func @sdpa(%q: tensor<1x4x8x16xf16> {remat.role = "input"}, %k: tensor<1x2x8x16xf16> {remat.role = "input"}, %v: tensor<1x2x8x16xf16> {remat.role = "input"})
    -> (tensor<1x4x8x16xf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.25 {causal, remat.name = "attention_out", remat.no_auto_recompute} : (tensor<1x4x8x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> (tensor<1x4x8x16xf16>, tensor<1x4x8xf32>)
  return %o : tensor<1x4x8x16xf16>
}

// -----

// dropout: the backward reads the forward's mask; the rng arguments get no
// gradient.
// CHECK-LABEL: func.func @dropout_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x16xbf16> {remat.role = "input"}, %[[SEED:[^:]*]]: tensor<i64> {remat.role = "rng"}, %[[OFF:[^:]*]]: tensor<i64> {remat.role = "rng"}, %[[G:[^:]*]]: tensor<8x16xbf16> {remat.role = "tangent"}
// CHECK-SAME: -> (tensor<8x16xbf16> {remat.role = "output"}, tensor<8x16xbf16> {remat.grad_of = 0 : i64, remat.role = "grad"})
// CHECK:      %[[Y:.*]], %[[MASK:.*]] = remat.dropout %[[X]], %[[SEED]], %[[OFF]] p = 1.000000e-01
// CHECK-NEXT: %[[DX:.*]] = remat.dropout_backward %[[G]], %[[MASK]] p = 1.000000e-01 : (tensor<8x16xbf16>, tensor<8x16xi1>) -> tensor<8x16xbf16>
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @dropout(%x: tensor<8x16xbf16> {remat.role = "input"}, %seed: tensor<i64> {remat.role = "rng"}, %offset: tensor<i64> {remat.role = "rng"})
    -> (tensor<8x16xbf16> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.1 : (tensor<8x16xbf16>, tensor<i64>, tensor<i64>) -> (tensor<8x16xbf16>, tensor<8x16xi1>)
  return %y : tensor<8x16xbf16>
}

// -----

// A scalar loss: its tangent is the seed (1.0 for a plain gradient). Integer
// inputs (ids, targets) get no gradient.
// CHECK-LABEL: func.func @embedding_loss_joint(
// CHECK-SAME: %[[T:[^:]*]]: tensor<32x16xf32> {remat.role = "param"}, %[[IDS:[^:]*]]: tensor<2x4xi64> {remat.role = "input"}, %[[W:[^:]*]]: tensor<10x16xf32> {remat.role = "param"}, %[[TGT:[^:]*]]: tensor<8xi64> {remat.role = "input"}, %[[DL:[^:]*]]: tensor<f32> {remat.role = "tangent"}
// CHECK-SAME: -> (tensor<f32> {remat.role = "output"}, tensor<32x16xf32> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<10x16xf32> {remat.grad_of = 2 : i64, remat.role = "grad"})
// CHECK:      %[[LOGITS:.*]] = remat.linear
// CHECK-NEXT: %[[LOSS:.*]] = remat.cross_entropy %[[LOGITS]], %[[TGT]] {reduction = "sum"}
// CHECK-NEXT: %[[DLOGITS:.*]] = remat.cross_entropy_backward %[[DL]], %[[LOGITS]], %[[TGT]] {reduction = "sum"}
// CHECK:      %[[DE:.*]] = remat.reshape %{{.*}} : (tensor<8x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[DT:.*]] = remat.embedding_backward %[[DE]], %[[IDS]] : (tensor<2x4x16xf32>, tensor<2x4xi64>) -> tensor<32x16xf32>
// CHECK-NEXT: return %[[LOSS]], %[[DT]], %{{.*}}
func.func @embedding_loss(%table: tensor<32x16xf32> {remat.role = "param"}, %ids: tensor<2x4xi64> {remat.role = "input"}, %w: tensor<10x16xf32> {remat.role = "param"}, %targets: tensor<8xi64> {remat.role = "input"})
    -> (tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %e = remat.embedding %table, %ids : (tensor<32x16xf32>, tensor<2x4xi64>) -> tensor<2x4x16xf32>
  %rows = remat.reshape %e : (tensor<2x4x16xf32>) -> tensor<8x16xf32>
  %logits = remat.linear %rows, %w : (tensor<8x16xf32>, tensor<10x16xf32>) -> tensor<8x10xf32>
  %loss = remat.cross_entropy %logits, %targets {reduction = "sum"} : (tensor<8x10xf32>, tensor<8xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// -----

// conv2d: input and weight gradients by the conv backward ops, the bias
// gradient as a sum; pooling backward ops (max reads the indices); fan-out
// of the conv result accumulates.
// CHECK-LABEL: func.func @conv_pool_joint(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x8x8xf32> {{.*}}, %[[W:[^:]*]]: tensor<4x3x3x3xf32> {{.*}}, %[[B:[^:]*]]: tensor<4xf32> {{.*}}, %[[GM:[^:]*]]: tensor<2x4x4x4xf32> {remat.role = "tangent"}, %[[GA:[^:]*]]: tensor<2x4x4x4xf32> {remat.role = "tangent"}
// CHECK:      %[[M:.*]], %[[IDX:.*]] = remat.max_pool2d
// CHECK:      %[[DA:.*]] = remat.avg_pool2d_backward %[[GA]] kernel = [3, 3] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<2x4x4x4xf32>) -> tensor<2x4x8x8xf32>
// CHECK-NEXT: %[[DM:.*]] = remat.max_pool2d_backward %[[GM]], %[[IDX]] kernel = [2, 2] strides = [2, 2] padding = [0, 0]
// CHECK-NEXT: %[[DY:.*]] = remat.add %[[DA]], %[[DM]]
// CHECK-NEXT: %[[DX:.*]] = remat.conv2d_backward_input %[[DY]], %[[W]] strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-NEXT: %[[DW:.*]] = remat.conv2d_backward_weight %[[DY]], %[[X]] strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x8x8xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
// CHECK-NEXT: %[[DB:.*]] = remat.sum %[[DY]] {dims = array<i64: 0, 2, 3>} : (tensor<2x4x8x8xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[DX]], %[[DW]], %[[DB]]
func.func @conv_pool(%x: tensor<2x3x8x8xf32> {remat.role = "input"}, %w: tensor<4x3x3x3xf32> {remat.role = "param"}, %b: tensor<4xf32> {remat.role = "param"})
    -> (tensor<2x4x4x4xf32> {remat.role = "output"}, tensor<2x4x4x4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %y = remat.conv2d %x, %w, %b strides = [1, 1] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x8x8xf32>
  %m, %idx = remat.max_pool2d %y kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<2x4x8x8xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
  %a = remat.avg_pool2d %y kernel = [3, 3] strides = [2, 2] padding = [1, 1] {count_include_pad = false} : (tensor<2x4x8x8xf32>) -> tensor<2x4x4x4xf32>
  return %m, %a : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
}
