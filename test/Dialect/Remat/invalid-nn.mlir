// RUN: remat-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the ops in RematNNOps.td, grouped by op
// family in the order of the .td file.

func.func @softmax_dynamic(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'remat.softmax' op operand #0 must be statically shaped tensor of f64, f32, f16 or bf16, but got 'tensor<?x8xf32>'}}
  %0 = remat.softmax %x dim = 1 : tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @softmax_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.softmax' op dim 2 is out of range for a rank-2 tensor; expected 0 <= dim < 2}}
  %0 = remat.softmax %x dim = 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @log_softmax_dim(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.log_softmax' op dim -1 is out of range for a rank-2 tensor; expected 0 <= dim < 2}}
  %0 = remat.log_softmax %x dim = -1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_backward_dim(%g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.softmax_backward' op dim 5 is out of range for a rank-2 tensor; expected 0 <= dim < 2}}
  %0 = remat.softmax_backward %g, %y dim = 5 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @log_softmax_backward_dim(%g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.log_softmax_backward' op dim 2 is out of range for a rank-2 tensor; expected 0 <= dim < 2}}
  %0 = remat.log_softmax_backward %g, %y dim = 2 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @rmsnorm_eps(%x: tensor<2x16x64xf32>, %w: tensor<64xf32>) -> tensor<2x16x64xf32> {
  // expected-error @+1 {{'remat.rmsnorm' op eps must be a finite number >= 0, got -1.000000e-05}}
  %0 = remat.rmsnorm %x, %w eps = -1.0e-05 : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

func.func @rmsnorm_weight_rank(%x: tensor<16x64xf32>, %w: tensor<2x16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'remat.rmsnorm' op weight must have rank between 1 and the input rank 2 (it spans the normalized trailing dimensions), got rank 3}}
  %0 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<16x64xf32>, tensor<2x16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func @rmsnorm_weight_shape(%x: tensor<2x16x64xf32>, %w: tensor<32xf32>) -> tensor<2x16x64xf32> {
  // expected-error @+1 {{'remat.rmsnorm' op weight shape [32] must equal the trailing dimensions of input shape [2, 16, 64], i.e. [64]}}
  %0 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x16x64xf32>, tensor<32xf32>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

func.func @rmsnorm_weight_type(%x: tensor<2x16x64xbf16>, %w: tensor<64xf32>) -> tensor<2x16x64xbf16> {
  // expected-error @+1 {{'remat.rmsnorm' op weight must have the input's element type 'bf16', got 'f32'}}
  %0 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x16x64xbf16>, tensor<64xf32>) -> tensor<2x16x64xbf16>
  return %0 : tensor<2x16x64xbf16>
}

// -----

func.func @rmsnorm_result(%x: tensor<2x16x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x16x64xf32> {
  // expected-error @+1 {{'remat.rmsnorm' op result must be 'tensor<2x16x64xbf16>' (the input's type), got 'tensor<2x16x64xf32>'}}
  %0 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xf32>
  return %0 : tensor<2x16x64xf32>
}

// -----

func.func @rmsnorm_rstd(%x: tensor<2x16x64xbf16>, %w: tensor<64xbf16>) -> tensor<2xf32> {
  // expected-error @+1 {{'remat.rmsnorm' op rstd must have shape [2, 16] (the input's leading, non-normalized dimensions), got [2]}}
  %0, %1 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2xf32>)
  return %1 : tensor<2xf32>
}

// -----

func.func @rmsnorm_rstd_type(%x: tensor<2x16x64xbf16>, %w: tensor<64xbf16>) -> tensor<2x16xbf16> {
  // expected-error @+1 {{'remat.rmsnorm' op result #1 must be statically shaped f32 (f64 for f64 inputs) tensor of saved statistics, but got 'tensor<2x16xbf16>'}}
  %0, %1 = remat.rmsnorm %x, %w eps = 1.0e-05 : (tensor<2x16x64xbf16>, tensor<64xbf16>) -> (tensor<2x16x64xbf16>, tensor<2x16xbf16>)
  return %1 : tensor<2x16xbf16>
}

// -----

func.func @rmsnorm_backward_grad(%g: tensor<2x16x64xf16>, %x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %r: tensor<2x16xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'remat.rmsnorm_backward' op grad must be 'tensor<2x16x64xf32>' (the input's type), got 'tensor<2x16x64xf16>'}}
  %gx, %gw = remat.rmsnorm_backward %g, %x, %w, %r : (tensor<2x16x64xf16>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>) -> (tensor<2x16x64xf32>, tensor<64xf32>)
  return %gw : tensor<64xf32>
}

// -----

func.func @rmsnorm_backward_rstd(%g: tensor<2x16x64xf32>, %x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %r: tensor<2xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'remat.rmsnorm_backward' op rstd must have shape [2, 16] (the input's leading, non-normalized dimensions), got [2]}}
  %gx, %gw = remat.rmsnorm_backward %g, %x, %w, %r : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2xf32>) -> (tensor<2x16x64xf32>, tensor<64xf32>)
  return %gw : tensor<64xf32>
}

// -----

func.func @rmsnorm_backward_grad_input(%g: tensor<2x16x64xf32>, %x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %r: tensor<2x16xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'remat.rmsnorm_backward' op grad_input must be 'tensor<2x16x64xf32>' (the input's type), got 'tensor<2x64x16xf32>'}}
  %gx, %gw = remat.rmsnorm_backward %g, %x, %w, %r : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>) -> (tensor<2x64x16xf32>, tensor<64xf32>)
  return %gw : tensor<64xf32>
}

// -----

func.func @rmsnorm_backward_grad_weight(%g: tensor<2x16x64xf32>, %x: tensor<2x16x64xf32>, %w: tensor<64xf32>, %r: tensor<2x16xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'remat.rmsnorm_backward' op grad_weight must be 'tensor<64xf32>' (the weight's type), got 'tensor<16x64xf32>'}}
  %gx, %gw = remat.rmsnorm_backward %g, %x, %w, %r : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>) -> (tensor<2x16x64xf32>, tensor<16x64xf32>)
  return %gw : tensor<16x64xf32>
}

// -----

func.func @layernorm_bias(%x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf32>) -> tensor<16x2x64xf16> {
  // expected-error @+1 {{'remat.layernorm' op bias must be 'tensor<64xf16>' (the weight's type), got 'tensor<64xf32>'}}
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf32>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>)
  return %y : tensor<16x2x64xf16>
}

// -----

func.func @layernorm_mean(%x: tensor<16x2x64xf16>, %w: tensor<2x64xf16>, %b: tensor<2x64xf16>) -> tensor<16x2x64xf16> {
  // expected-error @+1 {{'remat.layernorm' op mean must have shape [16] (the input's leading, non-normalized dimensions), got [16, 2]}}
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<16x2x64xf16>, tensor<2x64xf16>, tensor<2x64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16xf32>)
  return %y : tensor<16x2x64xf16>
}

// -----

// Statistics are f32, and f64 only for an f64 input (statsElementType).
func.func @layernorm_mean_type(%x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<16x2x64xf16> {
  // expected-error @+1 {{'remat.layernorm' op mean must have element type 'f32' (statistics of 'f16' values), got 'f64'}}
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05 : (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf64>, tensor<16x2xf32>)
  return %y : tensor<16x2x64xf16>
}

// -----

func.func @batchnorm_f64_stats_type(%x: tensor<4x3x2x2xf64>, %w: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<4x3x2x2xf64> {
  // expected-error @+1 {{'remat.batchnorm' op saved_invstd must have element type 'f64' (statistics of 'f64' values), got 'f32'}}
  %y, %mean, %invstd = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<4x3x2x2xf64>, tensor<3xf64>, tensor<3xf32>)
  return %y : tensor<4x3x2x2xf64>
}

// -----

func.func @layernorm_eps(%x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %b: tensor<64xf16>) -> tensor<16x2x64xf16> {
  // expected-error @+1 {{'remat.layernorm' op eps must be a finite number >= 0, got nan}}
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 0x7FF8000000000000 : (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>) -> (tensor<16x2x64xf16>, tensor<16x2xf32>, tensor<16x2xf32>)
  return %y : tensor<16x2x64xf16>
}

// -----

func.func @layernorm_backward_grad_bias(%g: tensor<16x2x64xf16>, %x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %mean: tensor<16x2xf32>, %rstd: tensor<16x2xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'remat.layernorm_backward' op grad_bias must be 'tensor<64xf16>' (the weight's type), got 'tensor<64xf32>'}}
  %gx, %gw, %gb = remat.layernorm_backward %g, %x, %w, %mean, %rstd : (tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<64xf16>, tensor<16x2xf32>, tensor<16x2xf32>) -> (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf32>)
  return %gb : tensor<64xf32>
}

// -----

func.func @layernorm_backward_rstd(%g: tensor<16x2x64xf16>, %x: tensor<16x2x64xf16>, %w: tensor<64xf16>, %mean: tensor<16x2xf32>, %rstd: tensor<2x16xf32>) -> tensor<64xf16> {
  // expected-error @+1 {{'remat.layernorm_backward' op rstd must have shape [16, 2] (the input's leading, non-normalized dimensions), got [2, 16]}}
  %gx, %gw, %gb = remat.layernorm_backward %g, %x, %w, %mean, %rstd : (tensor<16x2x64xf16>, tensor<16x2x64xf16>, tensor<64xf16>, tensor<16x2xf32>, tensor<2x16xf32>) -> (tensor<16x2x64xf16>, tensor<64xf16>, tensor<64xf16>)
  return %gb : tensor<64xf16>
}

// -----

func.func @batchnorm_rank(%x: tensor<16xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'remat.batchnorm' op input must have rank >= 2 ([N, C, ...], channels in dimension 1), got rank 1}}
  %y, %m, %s = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return %y : tensor<16xf32>
}

// -----

func.func @batchnorm_weight(%x: tensor<8x16x4x4xf32>, %w: tensor<8xf32>, %b: tensor<16xf32>) -> tensor<8x16x4x4xf32> {
  // expected-error @+1 {{'remat.batchnorm' op weight must be 'tensor<16xf32>' ([C] in the input's element type), got 'tensor<8xf32>'}}
  %y, %m, %s = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<8x16x4x4xf32>, tensor<8xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  return %y : tensor<8x16x4x4xf32>
}

// -----

func.func @batchnorm_invstd(%x: tensor<8x16x4x4xf32>, %w: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16x4x4xf32> {
  // expected-error @+1 {{'remat.batchnorm' op saved_invstd must have shape [16] ([C]), got [8]}}
  %y, %m, %s = remat.batchnorm %x, %w, %b eps = 1.0e-05 : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<8xf32>)
  return %y : tensor<8x16x4x4xf32>
}

// -----

func.func @batchnorm_backward_grad_bias(%g: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %w: tensor<16xf32>, %m: tensor<16xf32>, %s: tensor<16xf32>) -> tensor<16xf16> {
  // expected-error @+1 {{'remat.batchnorm_backward' op grad_bias must be 'tensor<16xf32>' ([C] in the input's element type), got 'tensor<16xf16>'}}
  %gx, %gw, %gb = remat.batchnorm_backward %g, %x, %w, %m, %s : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf16>)
  return %gb : tensor<16xf16>
}

// -----

func.func @batchnorm_backward_mean(%g: tensor<8x16x4x4xf32>, %x: tensor<8x16x4x4xf32>, %w: tensor<16xf32>, %m: tensor<8xf32>, %s: tensor<16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'remat.batchnorm_backward' op saved_mean must have shape [16] ([C]), got [8]}}
  %gx, %gw, %gb = remat.batchnorm_backward %g, %x, %w, %m, %s : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<8xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  return %gb : tensor<16xf32>
}

// -----

func.func @sdpa_rank(%q: tensor<4x16x8xf32>, %k: tensor<1x4x16x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op query must have rank 4 ([batch, heads, seq, head_dim]), got rank 3}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_element_type(%q: tensor<1x4x16x8xbf16>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xbf16>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op key and value must have the query's element type 'bf16', got 'f32' and 'bf16'}}
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.125 : (tensor<1x4x16x8xbf16>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xbf16>) -> (tensor<1x4x16x8xbf16>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_batch(%q: tensor<2x4x16x8xf32>, %k: tensor<1x4x16x8xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op key and value batch sizes must equal the query's 2, got 1 and 1}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<2x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return %lse : tensor<2x4x16xf32>
}

// -----

func.func @sdpa_kv_heads(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op key and value must have the same number of heads, got 4 and 2}}
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_gqa(%q: tensor<1x4x16x8xf32>, %k: tensor<1x3x16x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op key/value heads (3) must divide query heads (4) for grouped-query attention}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x3x16x8xf32>, tensor<1x3x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_kv_length(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x12x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op key and value must have the same sequence length, got 16 and 12}}
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x12x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_head_dim(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x16xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op query and key must have the same head_dim, got 8 and 16}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_scale(%q: tensor<1x4x16x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op scale must be a finite number > 0, got 0.000000e+00}}
  %o, %lse = remat.sdpa %q, %q, %q scale = 0.0 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_output(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x32x8xf32>) -> tensor<1x4x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op output must be 'tensor<1x4x16x8xf32>' ([batch, query heads, query seq, value head_dim] in the query's element type), got 'tensor<1x4x32x8xf32>'}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x32x8xf32>, tensor<1x4x32x8xf32>) -> (tensor<1x4x32x8xf32>, tensor<1x4x16xf32>)
  return %lse : tensor<1x4x16xf32>
}

// -----

func.func @sdpa_logsumexp(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x32x8xf32>) -> tensor<1x2x16xf32> {
  // expected-error @+1 {{'remat.sdpa' op logsumexp must have shape [1, 4, 16] ([batch, query heads, query seq]), got [1, 2, 16]}}
  %o, %lse = remat.sdpa %q, %k, %k scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x2x16xf32>)
  return %lse : tensor<1x2x16xf32>
}

// -----

func.func @sdpa_backward_grad(%g: tensor<1x4x16x8xf16>, %q: tensor<1x4x16x8xf32>, %o: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'remat.sdpa_backward' op grad must be 'tensor<1x4x16x8xf32>' (the output's type), got 'tensor<1x4x16x8xf16>'}}
  %gq, %gk, %gv = remat.sdpa_backward %g, %q, %q, %q, %o, %lse scale = 0.125 : (tensor<1x4x16x8xf16>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return %gq : tensor<1x4x16x8xf32>
}

// -----

func.func @sdpa_backward_grad_key(%g: tensor<1x4x16x8xf32>, %q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>, %lse: tensor<1x4x16xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'remat.sdpa_backward' op grad_key must be 'tensor<1x2x16x8xf32>' (the key's type), got 'tensor<1x4x16x8xf32>'}}
  %gq, %gk, %gv = remat.sdpa_backward %g, %q, %k, %k, %g, %lse scale = 0.125 {causal} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>)
  return %gq : tensor<1x4x16x8xf32>
}

// -----

func.func @sdpa_backward_output(%g: tensor<1x4x16x8xf32>, %q: tensor<1x4x16x8xf32>, %o: tensor<1x4x8x8xf32>, %lse: tensor<1x4x16xf32>) -> tensor<1x4x16x8xf32> {
  // expected-error @+1 {{'remat.sdpa_backward' op output must be 'tensor<1x4x16x8xf32>' ([batch, query heads, query seq, value head_dim] in the query's element type), got 'tensor<1x4x8x8xf32>'}}
  %gq, %gk, %gv = remat.sdpa_backward %g, %q, %q, %q, %o, %lse scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return %gq : tensor<1x4x16x8xf32>
}

// -----

func.func @sdpa_backward_grad_query(%g: tensor<1x4x16x8xf32>, %q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16xf32>) -> tensor<1x4x16x8xbf16> {
  // expected-error @+1 {{'remat.sdpa_backward' op grad_query must be 'tensor<1x4x16x8xf32>' (the query's type), got 'tensor<1x4x16x8xbf16>'}}
  %gq, %gk, %gv = remat.sdpa_backward %g, %q, %q, %q, %g, %lse scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xbf16>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return %gq : tensor<1x4x16x8xbf16>
}

// -----

func.func @sdpa_backward_grad_value(%g: tensor<1x4x16x8xf32>, %q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16xf32>) -> tensor<1x4x16x4xf32> {
  // expected-error @+1 {{'remat.sdpa_backward' op grad_value must be 'tensor<1x4x16x8xf32>' (the value's type), got 'tensor<1x4x16x4xf32>'}}
  %gq, %gk, %gv = remat.sdpa_backward %g, %q, %q, %q, %g, %lse scale = 0.125 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x4xf32>)
  return %gv : tensor<1x4x16x4xf32>
}

// -----

func.func @dropout_p(%x: tensor<16x64xbf16>, %s: tensor<i64>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{'remat.dropout' op p must be in [0, 1), got 1.000000e+00}}
  %y, %m = remat.dropout %x, %s, %s p = 1.0 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<16x64xi1>)
  return %y : tensor<16x64xbf16>
}

// -----

func.func @dropout_mask(%x: tensor<16x64xbf16>, %s: tensor<i64>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{'remat.dropout' op mask must have shape [16, 64] (the input's shape), got [64, 16]}}
  %y, %m = remat.dropout %x, %s, %s p = 0.1 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xbf16>, tensor<64x16xi1>)
  return %y : tensor<16x64xbf16>
}

// -----

func.func @dropout_result(%x: tensor<16x64xbf16>, %s: tensor<i64>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'remat.dropout' op result must be 'tensor<16x64xbf16>' (the input's type), got 'tensor<16x64xf32>'}}
  %y, %m = remat.dropout %x, %s, %s p = 0.1 : (tensor<16x64xbf16>, tensor<i64>, tensor<i64>) -> (tensor<16x64xf32>, tensor<16x64xi1>)
  return %y : tensor<16x64xf32>
}

// -----

func.func @dropout_seed_rank(%x: tensor<16x64xbf16>, %s: tensor<1xi64>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{'remat.dropout' op operand #1 must be rank-0 i64 tensor (RNG seed or offset), but got 'tensor<1xi64>'}}
  %y, %m = remat.dropout %x, %s, %s p = 0.1 : (tensor<16x64xbf16>, tensor<1xi64>, tensor<1xi64>) -> (tensor<16x64xbf16>, tensor<16x64xi1>)
  return %y : tensor<16x64xbf16>
}

// -----

func.func @dropout_backward_p(%g: tensor<16x64xbf16>, %m: tensor<16x64xi8>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{'remat.dropout_backward' op p must be in [0, 1), got -5.000000e-01}}
  %0 = remat.dropout_backward %g, %m p = -0.5 : (tensor<16x64xbf16>, tensor<16x64xi8>) -> tensor<16x64xbf16>
  return %0 : tensor<16x64xbf16>
}

// -----

func.func @dropout_backward_mask(%g: tensor<16x64xbf16>, %m: tensor<16x32xi8>) -> tensor<16x64xbf16> {
  // expected-error @+1 {{'remat.dropout_backward' op mask must have shape [16, 64] (the grad's shape), got [16, 32]}}
  %0 = remat.dropout_backward %g, %m p = 0.5 : (tensor<16x64xbf16>, tensor<16x32xi8>) -> tensor<16x64xbf16>
  return %0 : tensor<16x64xbf16>
}

// -----

func.func @dropout_backward_result(%g: tensor<16x64xbf16>, %m: tensor<16x64xi8>) -> tensor<16x64xf16> {
  // expected-error @+1 {{'remat.dropout_backward' op result must be 'tensor<16x64xbf16>' (the grad's type), got 'tensor<16x64xf16>'}}
  %0 = remat.dropout_backward %g, %m p = 0.5 : (tensor<16x64xbf16>, tensor<16x64xi8>) -> tensor<16x64xf16>
  return %0 : tensor<16x64xf16>
}

// -----

func.func @embedding_table(%t: tensor<100xbf16>, %i: tensor<8xi64>) -> tensor<8xbf16> {
  // expected-error @+1 {{'remat.embedding' op table must have rank 2 ([num_embeddings, embedding_dim]), got rank 1}}
  %0 = remat.embedding %t, %i : (tensor<100xbf16>, tensor<8xi64>) -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}

// -----

func.func @embedding_result(%t: tensor<100x32xbf16>, %i: tensor<2x8xi64>) -> tensor<16x32xbf16> {
  // expected-error @+1 {{'remat.embedding' op result must be 'tensor<2x8x32xbf16>' (the indices' shape plus [embedding_dim], in the table's element type), got 'tensor<16x32xbf16>'}}
  %0 = remat.embedding %t, %i : (tensor<100x32xbf16>, tensor<2x8xi64>) -> tensor<16x32xbf16>
  return %0 : tensor<16x32xbf16>
}

// -----

func.func @embedding_indices(%t: tensor<100x32xbf16>, %i: tensor<8xi32>) -> tensor<8x32xbf16> {
  // expected-error @+1 {{'remat.embedding' op operand #1 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<8xi32>'}}
  %0 = remat.embedding %t, %i : (tensor<100x32xbf16>, tensor<8xi32>) -> tensor<8x32xbf16>
  return %0 : tensor<8x32xbf16>
}

// -----

func.func @embedding_backward_rank(%g: tensor<8x32xbf16>, %i: tensor<8xi64>) -> tensor<3200xbf16> {
  // expected-error @+1 {{'remat.embedding_backward' op result must have rank 2 ([num_embeddings, embedding_dim]), got rank 1}}
  %0 = remat.embedding_backward %g, %i : (tensor<8x32xbf16>, tensor<8xi64>) -> tensor<3200xbf16>
  return %0 : tensor<3200xbf16>
}

// -----

func.func @embedding_backward_grad(%g: tensor<8x16xbf16>, %i: tensor<8xi64>) -> tensor<100x32xbf16> {
  // expected-error @+1 {{'remat.embedding_backward' op grad must have shape [8, 32] (the indices' shape plus [embedding_dim]), got [8, 16]}}
  %0 = remat.embedding_backward %g, %i : (tensor<8x16xbf16>, tensor<8xi64>) -> tensor<100x32xbf16>
  return %0 : tensor<100x32xbf16>
}

// -----

func.func @embedding_backward_element_type(%g: tensor<8x32xbf16>, %i: tensor<8xi64>) -> tensor<100x32xf32> {
  // expected-error @+1 {{'remat.embedding_backward' op result must have the grad's element type 'bf16', got 'f32'}}
  %0 = remat.embedding_backward %g, %i : (tensor<8x32xbf16>, tensor<8xi64>) -> tensor<100x32xf32>
  return %0 : tensor<100x32xf32>
}

// -----

func.func @cross_entropy_reduction(%l: tensor<8x100xf32>, %t: tensor<8xi64>) -> tensor<f32> {
  // expected-error @+1 {{'remat.cross_entropy' op reduction must be "mean" or "sum", got "none"}}
  %0 = remat.cross_entropy %l, %t {reduction = "none"} : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_logits(%l: tensor<2x8x100xf32>, %t: tensor<8xi64>) -> tensor<f32> {
  // expected-error @+1 {{'remat.cross_entropy' op logits must have rank 2 ([N, C]), got rank 3}}
  %0 = remat.cross_entropy %l, %t : (tensor<2x8x100xf32>, tensor<8xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_targets(%l: tensor<8x100xf32>, %t: tensor<100xi64>) -> tensor<f32> {
  // expected-error @+1 {{'remat.cross_entropy' op targets must have shape [8] ([N], one class index per row of the logits), got [100]}}
  %0 = remat.cross_entropy %l, %t : (tensor<8x100xf32>, tensor<100xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_result(%l: tensor<8x100xbf16>, %t: tensor<8xi64>) -> tensor<f32> {
  // expected-error @+1 {{'remat.cross_entropy' op result must have the logits' element type 'bf16', got 'f32'}}
  %0 = remat.cross_entropy %l, %t : (tensor<8x100xbf16>, tensor<8xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_result_rank(%l: tensor<8x100xf32>, %t: tensor<8xi64>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.cross_entropy' op result #0 must be rank-0 tensor of f64, f32, f16 or bf16, but got 'tensor<8xf32>'}}
  %0 = remat.cross_entropy %l, %t : (tensor<8x100xf32>, tensor<8xi64>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @cross_entropy_backward_grad(%g: tensor<f16>, %l: tensor<8x100xf32>, %t: tensor<8xi64>) -> tensor<8x100xf32> {
  // expected-error @+1 {{'remat.cross_entropy_backward' op grad must have the logits' element type 'f32', got 'f16'}}
  %0 = remat.cross_entropy_backward %g, %l, %t : (tensor<f16>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x100xf32>
  return %0 : tensor<8x100xf32>
}

// -----

func.func @cross_entropy_backward_result(%g: tensor<f32>, %l: tensor<8x100xf32>, %t: tensor<8xi64>) -> tensor<8x10xf32> {
  // expected-error @+1 {{'remat.cross_entropy_backward' op result must be 'tensor<8x100xf32>' (the logits' type), got 'tensor<8x10xf32>'}}
  %0 = remat.cross_entropy_backward %g, %l, %t {reduction = "sum"} : (tensor<f32>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  return %0 : tensor<8x10xf32>
}

// -----

func.func @cross_entropy_backward_reduction(%g: tensor<f32>, %l: tensor<8x100xf32>, %t: tensor<8xi64>) -> tensor<8x100xf32> {
  // expected-error @+1 {{'remat.cross_entropy_backward' op reduction must be "mean" or "sum", got "avg"}}
  %0 = remat.cross_entropy_backward %g, %l, %t {reduction = "avg"} : (tensor<f32>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x100xf32>
  return %0 : tensor<8x100xf32>
}

// -----

func.func @conv2d_strides_size(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op strides must have 2 elements ([height, width]), got 3}}
  %0 = remat.conv2d %x, %w strides = [2, 2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_padding_negative(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op padding must be >= 0 in both dimensions, got [1, -1]}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, -1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_dilation_zero(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op dilation must be >= 1 in both dimensions, got [0, 1]}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [0, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_groups(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op groups must be >= 1, got 0}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 0 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_input_rank(%x: tensor<3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op input must have rank 4 ([N, C, H, W]), got rank 3}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_element_type(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op input, weight and result must have one element type, got 'f16', 'f32' and 'f16'}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf32>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_batch(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<1x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op result batch size must be the input's 2, got 1}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<1x4x5x5xf16>
  return %0 : tensor<1x4x5x5xf16>
}

// -----

func.func @conv2d_groups_divide(%x: tensor<2x6x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op groups = 3 must divide the input channels (6) and the output channels (4)}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 3 : (tensor<2x6x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_filters(%x: tensor<2x3x9x9xf16>, %w: tensor<8x3x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op weight has 8 filters but result has 4 channels; they must be equal}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<8x3x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_weight_channels(%x: tensor<2x6x9x9xf16>, %w: tensor<4x6x3x3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op weight dimension 1 must be C / groups = 3, got 6}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 2 : (tensor<2x6x9x9xf16>, tensor<4x6x3x3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_window(%x: tensor<2x3x4x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x1x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op the height window (7) exceeds the padded input height (4)}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [0, 1] dilation = [3, 1] groups = 1 : (tensor<2x3x4x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x1x5xf16>
  return %0 : tensor<2x4x1x5xf16>
}

// -----

func.func @conv2d_output_height(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x4x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op result height must be (H + 2 * padding[0] - dilation[0] * (R - 1) - 1) / strides[0] + 1 = 5 for input height 9, got 4}}
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x4x5xf16>
  return %0 : tensor<2x4x4x5xf16>
}

// -----

func.func @conv2d_output_width(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x4x9x9xf16> {
  // expected-error @+1 {{'remat.conv2d' op result width must be (W + 2 * padding[1] - dilation[1] * (S - 1) - 1) / strides[1] + 1 = 7 for input width 9, got 9}}
  %0 = remat.conv2d %x, %w strides = [1, 1] padding = [1, 1] dilation = [1, 2] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x9x9xf16>
  return %0 : tensor<2x4x9x9xf16>
}

// -----

func.func @conv2d_bias(%x: tensor<2x3x9x9xf16>, %w: tensor<4x3x3x3xf16>, %b: tensor<3xf16>) -> tensor<2x4x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d' op bias must be 'tensor<4xf16>' ([K] in the weight's element type), got 'tensor<3xf16>'}}
  %0 = remat.conv2d %x, %w, %b strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x3x9x9xf16>, tensor<4x3x3x3xf16>, tensor<3xf16>) -> tensor<2x4x5x5xf16>
  return %0 : tensor<2x4x5x5xf16>
}

// -----

func.func @conv2d_backward_input_size(%g: tensor<2x4x5x5xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x3x11x9xf16> {
  // expected-error @+1 {{'remat.conv2d_backward_input' op grad height must be (H + 2 * padding[0] - dilation[0] * (R - 1) - 1) / strides[0] + 1 = 6 for result height 11, got 5}}
  %0 = remat.conv2d_backward_input %g, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x11x9xf16>
  return %0 : tensor<2x3x11x9xf16>
}

// -----

func.func @conv2d_backward_input_filters(%g: tensor<2x8x5x5xf16>, %w: tensor<4x3x3x3xf16>) -> tensor<2x3x9x9xf16> {
  // expected-error @+1 {{'remat.conv2d_backward_input' op weight has 4 filters but grad has 8 channels; they must be equal}}
  %0 = remat.conv2d_backward_input %g, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x8x5x5xf16>, tensor<4x3x3x3xf16>) -> tensor<2x3x9x9xf16>
  return %0 : tensor<2x3x9x9xf16>
}

// -----

func.func @conv2d_backward_weight_kernel(%g: tensor<2x4x5x5xf16>, %x: tensor<2x3x9x9xf16>) -> tensor<4x3x5x5xf16> {
  // expected-error @+1 {{'remat.conv2d_backward_weight' op grad height must be (H + 2 * padding[0] - dilation[0] * (R - 1) - 1) / strides[0] + 1 = 4 for input height 9, got 5}}
  %0 = remat.conv2d_backward_weight %g, %x strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<4x3x5x5xf16>
  return %0 : tensor<4x3x5x5xf16>
}

// -----

func.func @conv2d_backward_weight_rank(%g: tensor<2x4x5x5xf16>, %x: tensor<2x3x9x9xf16>) -> tensor<4x3x3xf16> {
  // expected-error @+1 {{'remat.conv2d_backward_weight' op result must have rank 4 ([K, C / groups, R, S]), got rank 3}}
  %0 = remat.conv2d_backward_weight %g, %x strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 1 : (tensor<2x4x5x5xf16>, tensor<2x3x9x9xf16>) -> tensor<4x3x3xf16>
  return %0 : tensor<4x3x3xf16>
}

// -----

func.func @max_pool2d_kernel(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op kernel must be >= 1 in both dimensions, got [0, 3]}}
  %y, %i = remat.max_pool2d %x kernel = [0, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @max_pool2d_padding(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op padding [2, 2] must be at most half the kernel [3, 3]}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [2, 2] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x5x5xi64>)
  return %y : tensor<1x2x5x5xf32>
}

// -----

func.func @max_pool2d_rank(%x: tensor<2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op input must have rank 4 ([N, C, H, W]), got rank 3}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>)
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @max_pool2d_element_type(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xbf16> {
  // expected-error @+1 {{'remat.max_pool2d' op result must have the element type of input, 'f32', got 'bf16'}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xbf16>, tensor<1x2x4x4xi64>)
  return %y : tensor<1x2x4x4xbf16>
}

// -----

func.func @max_pool2d_channels(%x: tensor<1x2x8x8xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op result must have the N and C dimensions of input ([1, 2]), got [1, 3]}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xi64>)
  return %y : tensor<1x3x4x4xf32>
}

// -----

func.func @max_pool2d_output(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x3xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op result width must be (W + 2 * padding[1] - kernel[1]) / strides[1] + 1 = 4 for input width 8, got 3}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x3xf32>, tensor<1x2x4x3xi64>)
  return %y : tensor<1x2x4x3xf32>
}

// -----

func.func @max_pool2d_window(%x: tensor<1x2x1x8xf32>) -> tensor<1x2x1x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op the height window (4) exceeds the padded input height (3)}}
  %y, %i = remat.max_pool2d %x kernel = [4, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x1x8xf32>) -> (tensor<1x2x1x4xf32>, tensor<1x2x1x4xi64>)
  return %y : tensor<1x2x1x4xf32>
}

// -----

func.func @max_pool2d_indices(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'remat.max_pool2d' op indices must have shape [1, 2, 4, 4] (the result's shape), got [1, 2, 16]}}
  %y, %i = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x8x8xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x16xi64>)
  return %y : tensor<1x2x4x4xf32>
}

// -----

func.func @max_pool2d_backward_indices(%g: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x2xi64>) -> tensor<1x2x8x8xf32> {
  // expected-error @+1 {{'remat.max_pool2d_backward' op indices must have shape [1, 2, 4, 4] (the grad's shape), got [1, 2, 4, 2]}}
  %0 = remat.max_pool2d_backward %g, %i kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x4x4xf32>, tensor<1x2x4x2xi64>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

func.func @max_pool2d_backward_result(%g: tensor<1x2x4x4xf32>, %i: tensor<1x2x4x4xi64>) -> tensor<1x2x16x16xf32> {
  // expected-error @+1 {{'remat.max_pool2d_backward' op grad height must be (H + 2 * padding[0] - kernel[0]) / strides[0] + 1 = 8 for result height 16, got 4}}
  %0 = remat.max_pool2d_backward %g, %i kernel = [3, 3] strides = [2, 2] padding = [1, 1] : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xi64>) -> tensor<1x2x16x16xf32>
  return %0 : tensor<1x2x16x16xf32>
}

// -----

func.func @avg_pool2d_strides(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  // expected-error @+1 {{'remat.avg_pool2d' op strides must have 2 elements ([height, width]), got 1}}
  %0 = remat.avg_pool2d %x kernel = [2, 2] strides = [2] padding = [0, 0] : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

func.func @avg_pool2d_output(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x3x4xf32> {
  // expected-error @+1 {{'remat.avg_pool2d' op result height must be (H + 2 * padding[0] - kernel[0]) / strides[0] + 1 = 4 for input height 8, got 3}}
  %0 = remat.avg_pool2d %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<1x2x8x8xf32>) -> tensor<1x2x3x4xf32>
  return %0 : tensor<1x2x3x4xf32>
}

// -----

func.func @avg_pool2d_backward_batch(%g: tensor<2x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  // expected-error @+1 {{'remat.avg_pool2d_backward' op grad must have the N and C dimensions of result ([1, 2]), got [2, 2]}}
  %0 = remat.avg_pool2d_backward %g kernel = [2, 2] strides = [2, 2] padding = [0, 0] : (tensor<2x2x4x4xf32>) -> tensor<1x2x8x8xf32>
  return %0 : tensor<1x2x8x8xf32>
}

// -----

// A table with no rows: every index is out of range (before 2026-12-07 this
// verified and the compiled lookup crashed).
func.func @embedding_no_rows(%t: tensor<0x2xf32>, %i: tensor<3xi64>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'remat.embedding' op table has no rows (num_embeddings 0), so each of the 3 indices is out of range}}
  %0 = remat.embedding %t, %i : (tensor<0x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @embedding_backward_no_rows(%g: tensor<3x2xf32>, %i: tensor<3xi64>) -> tensor<0x2xf32> {
  // expected-error @+1 {{'remat.embedding_backward' op result has no rows (num_embeddings 0), so each of the 3 indices is out of range}}
  %0 = remat.embedding_backward %g, %i : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}

// -----

func.func @cross_entropy_no_classes(%l: tensor<2x0xf32>, %t: tensor<2xi64>) -> tensor<f32> {
  // expected-error @+1 {{'remat.cross_entropy' op logits have no classes (C = 0), so each of the 2 targets is out of range}}
  %0 = remat.cross_entropy %l, %t : (tensor<2x0xf32>, tensor<2xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}
