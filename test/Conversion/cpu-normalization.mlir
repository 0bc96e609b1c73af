// Executes softmax, the norms and cross-entropy (with their backward ops)
// on the host and checks hand-computed values.

// RUN: remat-run %s --function=softmax --input=0:0,0.693147182 | FileCheck %s --check-prefix=SOFTMAX
// RUN: remat-run %s --function=norms --input=0:1,2,3,4 --input=1:1,2,1,2 --input=2:0,0,1,1 | FileCheck %s --check-prefix=NORMS
// RUN: remat-run %s --function=cross_entropy --input=0:0,0.693147182,0,0 --input=1:1,0 | FileCheck %s --check-prefix=LOSS

// softmax([0, log 2]) = [1/3, 2/3]; log of it; with gy = [1, 0]:
// softmax_backward = y * (gy - sum(gy * y)) = [2/9, -2/9],
// log_softmax_backward = gy - exp(y) * sum(gy) = [2/3, -2/3].
// SOFTMAX: @softmax result 0 tensor<1x2xf32>: 0.33333{{[0-9]*}} 0.66666{{[0-9]*}}
// SOFTMAX-NEXT: @softmax result 1 tensor<1x2xf32>: -1.09861{{[0-9]*}} -0.405465{{[0-9]*}}
// SOFTMAX-NEXT: @softmax result 2 tensor<1x2xf32>: 0.22222{{[0-9]*}} -0.22222{{[0-9]*}}
// SOFTMAX-NEXT: @softmax result 3 tensor<1x2xf32>: 0.66666{{[0-9]*}} -0.66666{{[0-9]*}}
// SOFTMAX-NEXT: @softmax result 4 tensor<2x1xf32>: 1 1
func.func @softmax(%x: tensor<1x2xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<2x1xf32>) {
  %gy = remat.constant dense<[[1.0, 0.0]]> : tensor<1x2xf32>
  %y = remat.softmax %x dim = 1 : tensor<1x2xf32>
  %l = remat.log_softmax %x dim = 1 : tensor<1x2xf32>
  %gx = remat.softmax_backward %gy, %y dim = 1 : tensor<1x2xf32>
  %lgx = remat.log_softmax_backward %gy, %l dim = 1 : tensor<1x2xf32>
  // Along a size-1 dimension softmax is 1.
  %column = remat.reshape %x : (tensor<1x2xf32>) -> tensor<2x1xf32>
  %ones = remat.softmax %column dim = 1 : tensor<2x1xf32>
  return %y, %l, %gx, %lgx, %ones : tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<1x2xf32>, tensor<2x1xf32>
}

// x = [1, 2, 3, 4]: mean 2.5, biased variance 1.25, rstd = 1/sqrt(1.25) =
// 0.894427191, xhat = [-1.3416408, -0.4472136, 0.4472136, 1.3416408].
// layernorm with w = [1, 2, 1, 2], b = [0, 0, 1, 1]: xhat * w + b.
// layernorm_backward, gy = [1, 0, 0, 0]: g = gy * w = [1, 0, 0, 0],
// gx = rstd * (g - mean(g) - xhat * mean(g * xhat))
//    = 0.894427191 * [0.3, -0.4, -0.1, 0.2], gw = gy * xhat, gb = gy.
// rmsnorm (w = 1): rstd = 1/sqrt(7.5) = 0.365148372, y = x * rstd;
// rmsnorm_backward: gx = rstd * g - x * rstd^3 / 4 * sum(g * x),
// gw = gy * x * rstd. batchnorm of the same numbers as [2, 1, 1, 2]
// (one channel) equals layernorm with w = 1, b = 0.
// NORMS: @norms result 0 tensor<1x4xf32>: -1.34164{{[0-9]*}} -0.894427{{[0-9]*}} 1.44721{{[0-9]*}} 3.68328{{[0-9]*}}
// NORMS-NEXT: @norms result 1 tensor<1xf32>: 2.5
// NORMS-NEXT: @norms result 2 tensor<1xf32>: 0.894427{{[0-9]*}}
// NORMS-NEXT: @norms result 3 tensor<1x4xf32>: 0.268328{{[0-9]*}} -0.357770{{[0-9]*}} -0.0894427{{[0-9]*}} 0.178885{{[0-9]*}}
// NORMS-NEXT: @norms result 4 tensor<4xf32>: -1.34164{{[0-9]*}} 0 0 0
// NORMS-NEXT: @norms result 5 tensor<4xf32>: 1 0 0 0
// NORMS-NEXT: @norms result 6 tensor<1x4xf32>: 0.365148{{[0-9]*}} 0.730296{{[0-9]*}} 1.09544{{[0-9]*}} 1.46059{{[0-9]*}}
// NORMS-NEXT: @norms result 7 tensor<1xf32>: 0.365148{{[0-9]*}}
// NORMS-NEXT: @norms result 8 tensor<1x4xf32>: 0.352976{{[0-9]*}} -0.0243432{{[0-9]*}} -0.0365148{{[0-9]*}} -0.0486864{{[0-9]*}}
// NORMS-NEXT: @norms result 9 tensor<4xf32>: 0.365148{{[0-9]*}} 0 0 0
// NORMS-NEXT: @norms result 10 tensor<2x1x1x2xf32>: -1.34164{{[0-9]*}} -0.447213{{[0-9]*}} 0.447213{{[0-9]*}} 1.34164{{[0-9]*}}
// NORMS-NEXT: @norms result 11 tensor<1xf32>: 2.5
// NORMS-NEXT: @norms result 12 tensor<1xf32>: 0.894427{{[0-9]*}}
// NORMS-NEXT: @norms result 13 tensor<2x1x1x2xf32>: 0.268328{{[0-9]*}} -0.357770{{[0-9]*}} -0.0894427{{[0-9]*}} 0.178885{{[0-9]*}}
// NORMS-NEXT: @norms result 14 tensor<1xf32>: -1.34164{{[0-9]*}}
// NORMS-NEXT: @norms result 15 tensor<1xf32>: 1
func.func @norms(%x: tensor<1x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<1xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>) {
  %gy = remat.constant dense<[[1.0, 0.0, 0.0, 0.0]]> : tensor<1x4xf32>
  %ones = remat.constant dense<1.0> : tensor<4xf32>
  %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 0.0 : (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>)
  %gx, %gw, %gb = remat.layernorm_backward %gy, %x, %w, %mean, %rstd : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %ry, %rr = remat.rmsnorm %x, %ones eps = 0.0 : (tensor<1x4xf32>, tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>)
  %rgx, %rgw = remat.rmsnorm_backward %gy, %x, %ones, %rr : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<1xf32>) -> (tensor<1x4xf32>, tensor<4xf32>)
  %bx = remat.reshape %x : (tensor<1x4xf32>) -> tensor<2x1x1x2xf32>
  %bgy = remat.reshape %gy : (tensor<1x4xf32>) -> tensor<2x1x1x2xf32>
  %one = remat.constant dense<1.0> : tensor<1xf32>
  %zero = remat.constant dense<0.0> : tensor<1xf32>
  %by, %bm, %bi = remat.batchnorm %bx, %one, %zero eps = 0.0 : (tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>)
  %bgx, %bgw, %bgb = remat.batchnorm_backward %bgy, %bx, %one, %bm, %bi : (tensor<2x1x1x2xf32>, tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>)
  return %y, %mean, %rstd, %gx, %gw, %gb, %ry, %rr, %rgx, %rgw, %by, %bm, %bi, %bgx, %bgw, %bgb : tensor<1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>, tensor<1xf32>, tensor<1x4xf32>, tensor<4xf32>, tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<2x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>
}

// logits [[0, log 2], [0, 0]], targets [1, 0]: row losses log 3 - log 2 and
// log 2, mean log(3) / 2 = 0.549306144, sum log 3. Gradient (mean, g = 1):
// (softmax - onehot) / 2 = [[1/6, -1/6], [-1/4, 1/4]].
// LOSS: @cross_entropy result 0 tensor<f32>: 0.549306{{[0-9]*}}
// LOSS-NEXT: @cross_entropy result 1 tensor<f32>: 1.09861{{[0-9]*}}
// LOSS-NEXT: @cross_entropy result 2 tensor<2x2xf32>: 0.16666{{[0-9]*}} -0.16666{{[0-9]*}} -0.25 0.25
// LOSS-NEXT: @cross_entropy result 3 tensor<2x2xbf16>: 0.333984375 -0.333984375 -0.5 0.5
func.func @cross_entropy(%logits: tensor<2x2xf32>, %targets: tensor<2xi64>) -> (tensor<f32>, tensor<f32>, tensor<2x2xf32>, tensor<2x2xbf16>) {
  %mean = remat.cross_entropy %logits, %targets : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  %sum = remat.cross_entropy %logits, %targets {reduction = "sum"} : (tensor<2x2xf32>, tensor<2xi64>) -> tensor<f32>
  %one = remat.constant dense<1.0> : tensor<f32>
  %g = remat.cross_entropy_backward %one, %logits, %targets : (tensor<f32>, tensor<2x2xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  %lh = remat.cast %logits : (tensor<2x2xf32>) -> tensor<2x2xbf16>
  %oneh = remat.constant dense<1.0> : tensor<bf16>
  %gh = remat.cross_entropy_backward %oneh, %lh, %targets {reduction = "sum"} : (tensor<bf16>, tensor<2x2xbf16>, tensor<2xi64>) -> tensor<2x2xbf16>
  return %mean, %sum, %g, %gh : tensor<f32>, tensor<f32>, tensor<2x2xf32>, tensor<2x2xbf16>
}
