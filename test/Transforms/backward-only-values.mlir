// RUN: remat-opt %s -remat-plan -remat-report="format=text output=-" -o /dev/null | FileCheck %s --check-prefix=MINCUT
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=0.5" -remat-report="format=text output=-" -o /dev/null | FileCheck %s --check-prefix=BUDGET
// RUN: remat-opt %s -remat-plan -remat-partition | FileCheck %s --check-prefix=PARTITION

// A weight's transpose and a zero accumulator that only backward reads:
// forward does not need them, so evaluating them in backward instead of
// forward adds no time, only memory saved. Before 2026-12-07 min-cut (the
// default) charged their replay at the exchange rate and saved both (18
// MiB, the transpose's replay priced as a 16 MiB read and write), and
// `budget`'s reasons priced moving them as recomputing them.

// MINCUT: saved for backward: 0 B
// MINCUT: recompute: 0 FLOPs, 0.000 us predicted
// MINCUT: wT recompute {{.*}} linalg.transpose recomputed from parameters only (only backward needs it: it runs there and not in forward, so it adds no time)
// MINCUT: acc2 recompute {{.*}} linalg.fill recomputed from parameters only (only backward needs it: it runs there and not in forward, so it adds no time)

// `budget` has room to save them (its schedule evaluates them last in
// forward), and says what moving them would cost: nothing.
// BUDGET: recompute: 0 FLOPs, 0.000 us predicted
// BUDGET: wT save {{.*}} saved: the budget ({{.*}}) has room for it (only backward needs it: evaluated there instead, it would add no time)

// The transpose runs in backward only.
// PARTITION-LABEL: func.func @lin_forward(
// PARTITION-NOT: linalg.transpose
// PARTITION-LABEL: func.func @lin_backward(
// PARTITION: linalg.transpose {{.*}}remat.name = "wT"

func.func @lin(%x: tensor<512x1024xf32> {remat.role = "input"},
               %w: tensor<1024x4096xf32> {remat.role = "param"},
               %dy: tensor<512x4096xf32> {remat.role = "tangent"})
    -> (tensor<512x4096xf32> {remat.role = "output"},
        tensor<512x1024xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<512x4096xf32>
  %acc1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %y = linalg.matmul {remat.name = "y"} ins(%x, %w : tensor<512x1024xf32>, tensor<1024x4096xf32>) outs(%acc1 : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  %ew = tensor.empty() : tensor<4096x1024xf32>
  %wT = linalg.transpose {remat.name = "wT"} ins(%w : tensor<1024x4096xf32>) outs(%ew : tensor<4096x1024xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<512x1024xf32>
  %acc2 = linalg.fill {remat.name = "acc2"} ins(%zero : f32) outs(%e2 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %dx = linalg.matmul ins(%dy, %wT : tensor<512x4096xf32>, tensor<4096x1024xf32>) outs(%acc2 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %y, %dx : tensor<512x4096xf32>, tensor<512x1024xf32>
}
