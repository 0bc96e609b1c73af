// An output that is not finite makes every finite difference NaN: before
// 2026-12-08 gradcheck reported "FAIL (tolerance nan)", a wrong gradient,
// where the gradient was fine. Now an error says why nothing can be checked:
// at the seeded inputs (a mean over an empty dimension is nan) and one step
// away (sqrt(100 - x^2) at x +- 1000).
// RUN: not remat-gradcheck %s -function=empty_mean 2>&1 | FileCheck %s --check-prefix=BASE
// BASE: remat-gradcheck: @empty_mean: output #0 is not finite at the seeded inputs (element 0 is nan), so finite differences cannot check the gradients: change the function (a mean or max over an empty dimension is nan or -inf) or the inputs (-seed)
// RUN: not remat-gradcheck %s -function=disc -eps=1000 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: remat-gradcheck: @disc: the outputs are not finite one step (eps 1000.000000) from the seeded value of argument #0, so finite differences cannot check its gradient there: use a smaller -eps
// RUN: remat-gradcheck %s -function=disc | FileCheck %s --check-prefix=PASS
// PASS: @disc: PASS

func.func @empty_mean(%x: tensor<0x8xf32> {remat.role = "input"},
                      %w: tensor<8x8xf32> {remat.role = "param"})
    -> (tensor<f32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %h = remat.matmul %x, %w : (tensor<0x8xf32>, tensor<8x8xf32>) -> tensor<0x8xf32>
  %m = remat.mean %h {dims = array<i64: 0, 1>} : (tensor<0x8xf32>) -> tensor<f32>
  return %m : tensor<f32>
}

func.func @disc(%x: tensor<4xf32> {remat.role = "param"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  %sq = remat.square %x : tensor<4xf32>
  %n = remat.neg %sq : tensor<4xf32>
  %d = remat.add_scalar %n, 100.0 : tensor<4xf32>
  %y = remat.sqrt %d : tensor<4xf32>
  return %y : tensor<4xf32>
}
