// remat-approximate-math's powf (the ROCDL kernels' pow) against the host's
// libm pow, run on the CPU: negative bases with integral exponents keep
// their sign, a fractional exponent of a negative base is NaN, a zero
// exponent gives 1. Before 2026-12-07 upstream's expansion, exp(y * log x),
// gave NaN for every negative base.

// RUN: remat-opt %s --pass-pipeline="builtin.module(remat-lower-to-linalg,func.func(remat-approximate-math))" -o %t.mlir
// RUN: remat-run %t.mlir --function=p --input=0:-2,-1,-0.5,2,-0.0,0,-8,3 --input=1:2,3,-2,0.5,0,-1,0.5,0 | FileCheck %s
// RUN: remat-run %s --function=p --input=0:-2,-1,-0.5,2,-0.0,0,-8,3 --input=1:2,3,-2,0.5,0,-1,0.5,0 | FileCheck %s

// CHECK: @p result 0 tensor<8xf32>: 4 -1 4 1.4142135{{[0-9]*}} 1 inf nan 1
func.func @p(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %0 = remat.pow %x, %y : tensor<8xf32>
  return %0 : tensor<8xf32>
}
