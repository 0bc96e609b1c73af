// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file | FileCheck %s

// Elementwise ops are one all-parallel generic; bf16 is computed in f32 and
// rounded once.
// CHECK-LABEL: func.func @add_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<4x8xbf16>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xbf16>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xbf16>, tensor<4x8xbf16>) outs(%[[INIT]] : tensor<4x8xbf16>)
// CHECK: ^bb0(%[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[YF:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[XF]], %[[YF]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK: linalg.yield %[[T]] : bf16
// CHECK: return %[[R]]
// CHECK-NOT: remat.
func.func @add_bf16(%a: tensor<4x8xbf16>, %b: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %0 = remat.add %a, %b : tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// A matmul is an all-parallel generic over the result whose body sums over
// k in an f32 register (no f32 accumulator tensor) and rounds once to the
// result type; transpose_b swaps the rhs indices.
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-SAME: (%[[A:.*]]: tensor<16x64xf16>, %[[B:.*]]: tensor<32x64xf16>)
// CHECK-NOT: tensor<16x32xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<16x32xf16>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK-DAG: tensor.extract %[[A]][%[[I]], %[[K]]] : tensor<16x64xf16>
// CHECK-DAG: tensor.extract %[[B]][%[[J]], %[[K]]] : tensor<32x64xf16>
// CHECK: %[[P:.*]] = arith.mulf
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: scf.yield %[[NEXT]] : f32
// CHECK: %[[R:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
// CHECK-NOT: tensor<16x32xf32>
func.func @matmul_transpose_b(%a: tensor<16x64xf16>, %b: tensor<32x64xf16>) -> tensor<16x32xf16> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<16x64xf16>, tensor<32x64xf16>) -> tensor<16x32xf16>
  return %0 : tensor<16x32xf16>
}

// -----

// Softmax subtracts the row maximum before exp (numerically stable).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<4xf32>)
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[NEG_INF]]) -> (f32)
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} outs(%{{.*}} : tensor<4xf32>)
// CHECK: scf.for
// CHECK: tensor.extract %[[MAX]]
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = remat.softmax %x dim = 1 : tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

// Attention: scores, masked max, log-sum-exp, probabilities, P v; the
// causal mask compares the key index with the query index.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<1x2x8x8xf32>)
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<1x2x8xf32>)
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[MASKED:.*]] = arith.cmpi ugt, %[[J]], %[[I]] : index
// CHECK: arith.select %[[MASKED]], %{{.*}}, %{{.*}} : f32
// CHECK: arith.maximumf
// CHECK: math.log
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: return %{{.*}}, %{{.*}} : tensor<1x2x8x4xbf16>, tensor<1x2x8xf32>
func.func @sdpa_causal(%q: tensor<1x2x8x4xbf16>, %k: tensor<1x2x8x4xbf16>, %v: tensor<1x2x8x4xbf16>) -> (tensor<1x2x8x4xbf16>, tensor<1x2x8xf32>) {
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.5 {causal} : (tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>, tensor<1x2x8x4xbf16>) -> (tensor<1x2x8x4xbf16>, tensor<1x2x8xf32>)
  return %o, %lse : tensor<1x2x8x4xbf16>, tensor<1x2x8xf32>
}

// -----

// Dropout draws from a hash of (seed, offset + linear index): the key is
// mixed once outside the generic, each element mixes key ^ counter and
// compares the top 24 bits with ceil(p * 2^24) = 1677722 for p = 0.1.
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[SEED:.*]]: tensor<i64>, %[[OFFSET:.*]]: tensor<i64>)
// CHECK-DAG: %[[S:.*]] = tensor.extract %[[SEED]][] : tensor<i64>
// CHECK-DAG: %[[O:.*]] = tensor.extract %[[OFFSET]][] : tensor<i64>
// CHECK: %{{.*}}:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<2x8xi1>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.addi %[[O]], %{{.*}} : i64
// CHECK: arith.xori
// CHECK: arith.shrui
// CHECK: %[[THRESHOLD:.*]] = arith.constant 1677722 : i64
// CHECK: %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[THRESHOLD]] : i64
// CHECK: arith.select %[[KEEP]]
// CHECK: linalg.yield %{{.*}}, %[[KEEP]] : f32, i1
func.func @dropout(%x: tensor<2x8xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<2x8xf32>, tensor<2x8xi1>) {
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.1 : (tensor<2x8xf32>, tensor<i64>, tensor<i64>) -> (tensor<2x8xf32>, tensor<2x8xi1>)
  return %y, %mask : tensor<2x8xf32>, tensor<2x8xi1>
}

// -----

// conv2d correlates over (n, k, oh, ow) in parallel and (c, r, s) in
// loops, reading the input at padded coordinates without a padded copy
// (zero where a tap falls in the padding); the input index carries stride 2
// and the group's channel offset ((k floordiv 2) * 2 + c).
// CHECK-LABEL: func.func @conv2d_grouped
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK: %[[N:.*]] = linalg.index 0 : index
// CHECK: %[[K:.*]] = linalg.index 1 : index
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step
// CHECK: tensor.extract %[[W]][%[[K]], %[[C]], %[[R]], %[[S]]] : tensor<4x2x3x3xf32>
// CHECK: arith.divsi %[[K]], %{{.*}} : index
// CHECK: %[[CHANNEL:.*]] = arith.addi %{{.*}}, %[[C]] : index
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: %[[IN:.*]] = tensor.extract %[[X]][%[[N]], %[[CHANNEL]], %{{.*}}, %{{.*}}] : tensor<1x4x8x8xf32>
// CHECK: arith.select %{{.*}}, %[[IN]], %{{.*}} : f32
// CHECK-NOT: tensor.pad
func.func @conv2d_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 2 : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Views: reshape through collapse/expand, slice as extract_slice.
// CHECK-LABEL: func.func @views
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x6xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 4] : tensor<24xf32> into tensor<2x3x4xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [4, 2] [1, 2] : tensor<4x6xf32> to tensor<4x2xf32>
func.func @views(%x: tensor<4x6xf32>) -> (tensor<2x3x4xf32>, tensor<4x2xf32>) {
  %0 = remat.reshape %x : (tensor<4x6xf32>) -> tensor<2x3x4xf32>
  %1 = remat.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 4, 2>, strides = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<4x2xf32>
}
