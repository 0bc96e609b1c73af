// Out-of-range ids (undefined behaviour in PyTorch): the forward ops read the
// nearest valid row or class, and the backward ops send the gradient to that
// same entry, so the pair is the gradient of one function. Before 2026-12-07
// backward dropped it: embedding_backward gave ids -5 and 100 no row, and
// cross_entropy_backward lost the one-hot term of targets -1 and 7.

// RUN: remat-run %s --function=embo --input=0:0,1,10,11,20,21,30,31,40,41,50,51,60,61 --input=1:-5,100,2 --input=2:1,1,1,1,1,1 | FileCheck %s --check-prefix=EMB
// EMB: @embo result 0 tensor<3x2xf32>: 0 1 60 61 20 21
// EMB: @embo result 1 tensor<7x2xf32>: 1 1 0 0 1 1 0 0 0 0 0 0 1 1

// RUN: remat-run %s --function=ceo --input=0:0,0,0,0,0,0 --input=1:-1,7 --input=2:1 | FileCheck %s --check-prefix=CE
// CE: @ceo result 0 tensor<f32>: 1.09861231
// CE: @ceo result 1 tensor<2x3xf32>: -0.333333343 0.166666657 0.166666657 0.166666657 0.166666657 -0.333333343

func.func @embo(%tab: tensor<7x2xf32>, %ids: tensor<3xi64>, %g: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<7x2xf32>) {
  %e = remat.embedding %tab, %ids : (tensor<7x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %gt = remat.embedding_backward %g, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<7x2xf32>
  return %e, %gt : tensor<3x2xf32>, tensor<7x2xf32>
}
func.func @ceo(%l: tensor<2x3xf32>, %t: tensor<2xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<2x3xf32>) {
  %0 = remat.cross_entropy %l, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  %1 = remat.cross_entropy_backward %g, %l, %t : (tensor<f32>, tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0, %1 : tensor<f32>, tensor<2x3xf32>
}
