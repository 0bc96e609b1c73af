// A function that returns one value twice (a partitioned forward returns an
// output that is also saved for backward) runs on the CPU: the lowering gives
// each repeated result its own tensor before results become out-parameters.
// RUN: remat-opt %s --remat-lower-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: remat-run %s --function=twice --input=0:0,1,2,3 | FileCheck %s

// LINALG-LABEL: func.func @twice
// LINALG: %[[Y:.*]] = linalg.generic
// LINALG: %[[COPY:.*]] = linalg.copy ins(%[[Y]] : tensor<4xf32>)
// LINALG: return %[[Y]], %[[COPY]]
func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = remat.neg %x : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}
// CHECK: @twice result 0 tensor<4xf32>: -0 -1 -2 -3
// CHECK: @twice result 1 tensor<4xf32>: -0 -1 -2 -3
