// remat-lower-to-nvvm{results-to-out-params}: tensor results become
// trailing memref arguments that the caller allocates (remat-run's calling
// convention), so the function returns nothing and the kernels write the
// results in place. Its three intermediates (softmax row maximum and sum,
// the normalized probabilities) are allocated in managed memory and all
// freed before it returns. Without the option the results are returned,
// allocated in managed memory too and not freed.
// RUN: remat-opt %s --remat-lower-to-nvvm=results-to-out-params=true | FileCheck %s --check-prefix=OUT
// RUN: remat-opt %s --remat-lower-to-nvvm | FileCheck %s --check-prefix=RET

// OUT: llvm.func @softmax_dropout({{[^>]*}}) {
// OUT-COUNT-3: llvm.call @mgpuMemAlloc(
// OUT-NOT: llvm.call @mgpuMemAlloc(
// OUT-COUNT-3: llvm.call @mgpuMemFree(
// OUT-NEXT: llvm.call @mgpuStreamSynchronize(
// OUT-NEXT: llvm.call @mgpuStreamDestroy(
// OUT-NEXT: llvm.return{{$}}

// RET: llvm.func @softmax_dropout({{.*}}) -> !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)> {
// RET-COUNT-5: llvm.call @mgpuMemAlloc(
// RET-NOT: llvm.call @mgpuMemAlloc(
// RET-COUNT-3: llvm.call @mgpuMemFree(
// RET-NOT: llvm.call @mgpuMemFree(
// RET: llvm.return %
func.func @softmax_dropout(%x: tensor<4x32xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<4x32xf32>, tensor<4x32xi1>) {
  %s = remat.softmax %x dim = 1 : tensor<4x32xf32>
  %y, %mask = remat.dropout %s, %seed, %offset p = 0.25 : (tensor<4x32xf32>, tensor<i64>, tensor<i64>) -> (tensor<4x32xf32>, tensor<4x32xi1>)
  return %y, %mask : tensor<4x32xf32>, tensor<4x32xi1>
}
