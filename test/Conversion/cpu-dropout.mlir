// Dropout's counter-based generator on the host (docs/Lowering.md):
// key = mix(seed), keep_i = (mix(key ^ (offset + i)) >> 40) >= ceil(p 2^24)
// with mix the SplitMix64 output function. The expected masks below were
// computed from that definition independently (in Python), so they pin
// the generator; recomputing with the same seed and offset gives the same
// mask, and offset 8 continues the counter stream of offset 0.

// RUN: remat-run %s --function=masks --input=0:1 --input=1:7 | FileCheck %s --check-prefix=MASKS
// RUN: remat-run %s --function=rate --input=1:3 --input=2:0 | FileCheck %s --check-prefix=RATE
// RUN: remat-run %s --function=forward_then_backward --compare=recompute_then_backward | FileCheck %s --check-prefix=RECOMPUTE

// MASKS: @masks result 0 tensor<16xi1>: 1 0 0 0 1 1 1 0 0 1 0 1 0 1 1 0
// MASKS-NEXT: @masks result 1 tensor<16xf32>: 2 0 0 0 2 2 2 0 0 2 0 2 0 2 2 0
// MASKS-NEXT: @masks result 2 tensor<16xi1>: 1 0 0 0 1 1 1 0 0 1 0 1 0 1 1 0
// MASKS-NEXT: @masks result 3 tensor<16xi8>: 0 1 0 1 0 1 1 0 0 1 0 0 0 1 0 0
// MASKS-NEXT: @masks result 4 tensor<16xi1>: 1 0 1 1 1 1 1 0 0 1 1 1 0 1 1 0
// MASKS-NEXT: @masks result 5 tensor<16xf32>: 4 0 0 0 4 4 4 0 0 4 0 4 0 4 4 0
// MASKS-NEXT: @masks result 6 tensor<16xi1>: 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
func.func @masks(%x: tensor<16xf32>, %seed: tensor<i64>) -> (tensor<16xi1>, tensor<16xf32>, tensor<16xi1>, tensor<16xi8>, tensor<16xi1>, tensor<16xf32>, tensor<16xi1>) {
  %zero = remat.constant dense<0> : tensor<i64>
  %eight = remat.constant dense<8> : tensor<i64>
  %y, %mask = remat.dropout %x, %seed, %zero p = 0.5 : (tensor<16xf32>, tensor<i64>, tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>)
  // A recomputation regenerates the same mask.
  %y2, %mask2 = remat.dropout %x, %seed, %zero p = 0.5 : (tensor<16xf32>, tensor<i64>, tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>)
  %y3, %mask3 = remat.dropout %x, %seed, %eight p = 0.5 : (tensor<16xf32>, tensor<i64>, tensor<i64>) -> (tensor<16xf32>, tensor<16xi8>)
  %y4, %mask4 = remat.dropout %x, %seed, %zero p = 0.25 : (tensor<16xf32>, tensor<i64>, tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>)
  // The backward scales the gradient by 1 / (1 - p) where the mask keeps.
  %two = remat.constant dense<2.0> : tensor<16xf32>
  %g = remat.dropout_backward %two, %mask p = 0.5 : (tensor<16xf32>, tensor<16xi1>) -> tensor<16xf32>
  %y5, %mask5 = remat.dropout %x, %seed, %zero p = 0.0 : (tensor<16xf32>, tensor<i64>, tensor<i64>) -> (tensor<16xf32>, tensor<16xi1>)
  return %mask, %y, %mask2, %mask3, %mask4, %g, %mask5 : tensor<16xi1>, tensor<16xf32>, tensor<16xi1>, tensor<16xi8>, tensor<16xi1>, tensor<16xf32>, tensor<16xi1>
}

// The kept fraction of 4096 draws at p = 0.3 is near 0.7, and kept values
// are x / 0.7 (x = 1 here, bf16).
// RATE: @rate result 0 tensor<f32>: {{0\.(6[89]|7[01])[0-9]*}}
// RATE-NEXT: @rate result 1 tensor<bf16>: 1.4296875
func.func @rate(%x: tensor<4096xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<f32>, tensor<bf16>) {
  %ones = remat.constant dense<1.0> : tensor<4096xbf16>
  %y, %mask = remat.dropout %ones, %seed, %offset p = 0.3 : (tensor<4096xbf16>, tensor<i64>, tensor<i64>) -> (tensor<4096xbf16>, tensor<4096xi1>)
  %kept = remat.cast %mask : (tensor<4096xi1>) -> tensor<4096xf32>
  %fraction = remat.mean %kept {dims = array<i64: 0>} : (tensor<4096xf32>) -> tensor<f32>
  %max = remat.max %y {dims = array<i64: 0>} : (tensor<4096xbf16>) -> tensor<bf16>
  return %fraction, %max : tensor<f32>, tensor<bf16>
}

// Saving the mask and recomputing the dropout in the backward give
// bitwise-identical gradients (seeded inputs; seed and offset are random
// i64 arguments).
// RECOMPUTE: compare result 0: bitwise-equal
// RECOMPUTE: PASS: @forward_then_backward vs @recompute_then_backward
func.func @forward_then_backward(%x: tensor<8x32xbf16>, %seed: tensor<i64>, %offset: tensor<i64>, %gy: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %y, %mask = remat.dropout %x, %seed, %offset p = 0.1 : (tensor<8x32xbf16>, tensor<i64>, tensor<i64>) -> (tensor<8x32xbf16>, tensor<8x32xi1>)
  %gx = remat.dropout_backward %gy, %mask p = 0.1 : (tensor<8x32xbf16>, tensor<8x32xi1>) -> tensor<8x32xbf16>
  return %gx : tensor<8x32xbf16>
}
func.func @recompute_then_backward(%x: tensor<8x32xbf16>, %seed: tensor<i64>, %offset: tensor<i64>, %gy: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
  %zeros = remat.constant dense<0.0> : tensor<8x32xbf16>
  %y, %mask = remat.dropout %zeros, %seed, %offset p = 0.1 : (tensor<8x32xbf16>, tensor<i64>, tensor<i64>) -> (tensor<8x32xbf16>, tensor<8x32xi1>)
  %gx = remat.dropout_backward %gy, %mask p = 0.1 : (tensor<8x32xbf16>, tensor<8x32xi1>) -> tensor<8x32xbf16>
  return %gx : tensor<8x32xbf16>
}
