// Executes contractions, reductions and shape ops on the host and checks
// hand-computed values. a = [[1, 2, 3], [4, 5, 6]], b = [[1, 0], [0, 1],
// [1, 1]], w = [[1, 0, 1], [0, 1, 1]] (= b^T), bias = [10, 20].

// RUN: remat-run %s --function=contractions --input=0:1,2,3,4,5,6 --input=1:1,0,0,1,1,1 --input=2:1,0,1,0,1,1 --input=3:10,20 | FileCheck %s --check-prefix=CONTRACT
// RUN: remat-run %s --function=reductions --input=0:1,2,3,4,5,6 | FileCheck %s --check-prefix=REDUCE
// RUN: remat-run %s --function=shapes --input=0:1,2,3,4,5,6 --input=1:7,8,9 --input=2:10,20 | FileCheck %s --check-prefix=SHAPES

// a @ b = [[4, 5], [10, 11]]; a @ a^T = [[14, 32], [32, 77]].
// CONTRACT: @contractions result 0 tensor<2x2xf32>: 4 5 10 11
// CONTRACT-NEXT: @contractions result 1 tensor<2x2xf32>: 14 32 32 77
// CONTRACT-NEXT: @contractions result 2 tensor<2x1x2xf32>: 4 5 10 11
// CONTRACT-NEXT: @contractions result 3 tensor<2x1x2xf32>: 4 5 10 11
// CONTRACT-NEXT: @contractions result 4 tensor<2x2xf32>: 14 25 20 31
// CONTRACT-NEXT: @contractions result 5 tensor<2x2xbf16>: 4 5 10 11
func.func @contractions(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %w: tensor<2x3xf32>, %bias: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>, tensor<2x2xf32>, tensor<2x2xbf16>) {
  %0 = remat.matmul %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %1 = remat.matmul %a, %a {transpose_b} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>
  // Batched lhs with a shared rank-2 rhs, and the same with transpose_a.
  %rows = remat.reshape %a : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %2 = remat.matmul %rows, %b : (tensor<2x1x3xf32>, tensor<3x2xf32>) -> tensor<2x1x2xf32>
  %columns = remat.reshape %a : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  %3 = remat.matmul %columns, %b {transpose_a} : (tensor<2x3x1xf32>, tensor<3x2xf32>) -> tensor<2x1x2xf32>
  %4 = remat.linear %a, %w, %bias : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %ah = remat.cast %a : (tensor<2x3xf32>) -> tensor<2x3xbf16>
  %bh = remat.cast %b : (tensor<3x2xf32>) -> tensor<3x2xbf16>
  %5 = remat.matmul %ah, %bh : (tensor<2x3xbf16>, tensor<3x2xbf16>) -> tensor<2x2xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1x2xf32>, tensor<2x1x2xf32>, tensor<2x2xf32>, tensor<2x2xbf16>
}

// REDUCE: @reductions result 0 tensor<2xf32>: 6 15
// REDUCE-NEXT: @reductions result 1 tensor<1x1xf32>: 3.5
// REDUCE-NEXT: @reductions result 2 tensor<3xf32>: 4 5 6
// REDUCE-NEXT: @reductions result 3 tensor<f32>: 21
// REDUCE-NEXT: @reductions result 4 tensor<2x1xf32>: 2 5
func.func @reductions(%a: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<1x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2x1xf32>) {
  %0 = remat.sum %a {dims = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = remat.mean %a {dims = array<i64: 1, 0>, keepdim} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  %2 = remat.max %a {dims = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %3 = remat.sum %a {dims = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  %4 = remat.mean %a {dims = array<i64: 1>, keepdim} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0, %1, %2, %3, %4 : tensor<2xf32>, tensor<1x1xf32>, tensor<3xf32>, tensor<f32>, tensor<2x1xf32>
}

// SHAPES: @shapes result 0 tensor<3x2xf32>: 1 2 3 4 5 6
// SHAPES-NEXT: @shapes result 1 tensor<3x2xf32>: 1 4 2 5 3 6
// SHAPES-NEXT: @shapes result 2 tensor<2x3xf32>: 7 8 9 7 8 9
// SHAPES-NEXT: @shapes result 3 tensor<2x3xf32>: 10 10 10 20 20 20
// SHAPES-NEXT: @shapes result 4 tensor<2x3xf32>: 10 10 10 20 20 20
// SHAPES-NEXT: @shapes result 5 tensor<2x1xf32>: 2 5
// SHAPES-NEXT: @shapes result 6 tensor<2x2xf32>: 1 3 4 6
// SHAPES-NEXT: @shapes result 7 tensor<2x5xf32>: 1 2 3 7 8 4 5 6 9 7
// SHAPES-NEXT: @shapes result 8 tensor<1x1x6xf32>: 1 2 3 4 5 6
func.func @shapes(%a: tensor<2x3xf32>, %c: tensor<3xf32>, %d: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<1x1x6xf32>) {
  %0 = remat.reshape %a : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = remat.transpose %a {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = remat.broadcast %c : (tensor<3xf32>) -> tensor<2x3xf32>
  %3 = remat.broadcast %d {dims = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x3xf32>
  %column = remat.reshape %d : (tensor<2xf32>) -> tensor<2x1xf32>
  %4 = remat.broadcast %column : (tensor<2x1xf32>) -> tensor<2x3xf32>
  %5 = remat.slice %a {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %6 = remat.slice %a {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 2>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %cd = remat.concat %c, %c {dim = 0} : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  %cd2 = remat.slice %cd {offsets = array<i64: 0>, sizes = array<i64: 4>} : (tensor<6xf32>) -> tensor<4xf32>
  %cd3 = remat.reshape %cd2 : (tensor<4xf32>) -> tensor<2x2xf32>
  %7 = remat.concat %a, %cd3 {dim = 1} : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %8 = remat.reshape %a : (tensor<2x3xf32>) -> tensor<1x1x6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3x2xf32>, tensor<3x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x5xf32>, tensor<1x1x6xf32>
}
