// Upstream elementwise ops on tensors (math.cos, math.sin, arith.mulf), as
// the opaque-op lowering error advises writing them, run on the host: the CPU
// pipeline turns them into linalg.generic before bufferizing (before
// 2026-12-07 remat-run failed with "op was not bufferized"), and the
// partitioned program of a plan that replays them matches the joint graph.
// x = [0, 0.5, 1]: cos(cos(cos x)), and d/dx = -sin(cos(cos x)) * -sin(cos x)
// * -sin(x) * dy with dy = 1.

// RUN: remat-run %s --function=cos_chain --input=0:0,0.5,1 --input=1:1 | FileCheck %s
// RUN: remat-opt %s -remat-plan=strategy=recompute-all -remat-partition -o %t.partitioned.mlir
// RUN: remat-run %s --function=cos_chain --check-partition=%t.partitioned.mlir | FileCheck %s --check-prefix=PARTITION

// CHECK: @cos_chain result 0 tensor<3xf32>: 0.857553{{[0-9]*}} 0.802685{{[0-9]*}} 0.654289{{[0-9]*}}
// CHECK-NEXT: @cos_chain result 1 tensor<3xf32>: -0 -0.219936{{[0-9]*}} -0.327339{{[0-9]*}}
// PARTITION: PASS: @cos_chain vs @cos_chain_forward + @cos_chain_backward


func.func @cos_chain(%x: tensor<3xf32> {remat.role = "input"},
                     %dy: tensor<3xf32> {remat.role = "tangent"})
    -> (tensor<3xf32> {remat.role = "output"},
        tensor<3xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c1 = math.cos %x : tensor<3xf32>
  %c2 = math.cos %c1 : tensor<3xf32>
  %c3 = math.cos %c2 : tensor<3xf32>
  %s2 = math.sin %c2 : tensor<3xf32>
  %n2 = arith.negf %s2 : tensor<3xf32>
  %d2 = arith.mulf %dy, %n2 : tensor<3xf32>
  %s1 = math.sin %c1 : tensor<3xf32>
  %n1 = arith.negf %s1 : tensor<3xf32>
  %d1 = arith.mulf %d2, %n1 : tensor<3xf32>
  %s0 = math.sin %x : tensor<3xf32>
  %n0 = arith.negf %s0 : tensor<3xf32>
  %dx = arith.mulf %d1, %n0 : tensor<3xf32>
  return %c3, %dx : tensor<3xf32>, tensor<3xf32>
}
