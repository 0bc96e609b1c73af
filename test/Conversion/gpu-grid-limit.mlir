// A kernel needing more than 2^31 - 1 blocks (CUDA's grid limit in x; the
// launch passes the count in 32 bits) is an error naming the fix. Before
// 2026-12-07 the lowering emitted it, and the launch ran no block (2^33) or
// a few (2^32 + k: a partial result without an error).
// RUN: not remat-opt %s --remat-lower-to-nvvm -o /dev/null 2>&1 | FileCheck %s
// RUN: not remat-opt %s --remat-lower-to-rocdl -o /dev/null 2>&1 | FileCheck %s
// CHECK: error: remat-map-loops-to-gpu: a kernel over 1099511627776 elements needs 8589934592 blocks of 128 threads, more than the 2^31 - 1 a grid holds; raise threads-per-block (up to 1024) or split the tensor
// With 1024 threads a block it fits (2^30 blocks):
// RUN: remat-opt %s --remat-lower-to-nvvm=threads-per-block=1024 -o /dev/null

func.func @huge_exp(%x: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %0 = remat.exp %x : tensor<1048576x1048576xf32>
  return %0 : tensor<1048576x1048576xf32>
}
