// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file | FileCheck %s

// Elementwise ops are one all-parallel generic; bf16 is computed in f32 and
// rounded once.
// CHECK-LABEL: func.func @add_bf16
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xbf16>, %[[B:.*]]: tensor<4x8xbf16>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xbf16>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "paralleME: outs(%[[ACC]] : tensor<16x32xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_transpose_b(%a: tensor<16x64xf16>, %b: tensor<32x64xf16>) -> tensor<16x32xf16> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<16x64xf16>, tensor<32x64xf16>) -> tensor<16x32xf16>
  return %0 : tensor<16x32xf16>
}

// -----

// Softmax subtracts the row maximum before exp (numerically stable).
// CHECK-LABEL: func.func @softmax
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} imathterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] :
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

// Attention: scores, mareduction"]
// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]], %[[SUM]] :
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.div// CHECK: arith.maximumf
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}}, %[[MAX]] :
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
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parall %[[OFFSET]][] : tensor<i64>
// CHECK: %{{.*}}:2 = linalg.generic
// CHECKòÿÿÿ-SAME: outs(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<2x8xi1>)
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

// conv2d pads with tensor.pad and correlates over (n, k, oh, ow, c, r, s);
// the input map carries stride 2 and the group's channel offset.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 floordiv 2) * 2 + d4, d2 * 2 + d5, d3 * 2 + d6)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>
// CHECK-LABEL: func.func @conv2d_grouped
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor<1x4x10x10xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[W]], {{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %{{.*}} : tensor<1x4x10x10xf32>, tensor<4x2x3x3xf32>)
func.func @conv2d_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = remat.conv2d %x, %w strides = [2, 2] padding = [1, 1] dilation = [1, 1] groups = 2 : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Views: reshape through collapse/expand, slice as extract_slice.
// CHECK-LABEL: func.func @views
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1]] : tensor<4x6xf32> into tenso-check-prefix=BUDGET
// RUN: FileCheck %s r<24xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{f
func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %0 = remat.softmax %x dim = 1 : tensor<4x128xf32>
  return %0 : tensor<4x128xf32>
}

// -----

// Attention: scores, masked max, log-sum-exp, probabilities, P v; the
// causal mask compares the key index with the query index.
// CHECK-LABEL: func.func @sdpa_causal
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parall %[[OFFSET]][] : tensor<i64>
// CHECK: %{{.*}}:2 = linalg.generic
// CHECKòÿÿÿ-SAME: outs(%{{.*}}, %{{.*}} : tensor<2x8xf32>, tensor<2x8xi1>)
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
  %y, %mask = remat.drop