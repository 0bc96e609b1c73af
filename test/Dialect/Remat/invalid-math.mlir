// RUN: remat-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of the ops in RematMathOps.td.

func.func @dynamic_shape(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'remat.exp' op operand #0 must be statically shaped tensor of f64, f32, f16 or bf16, but got 'tensor<?x4xf32>'}}
  %0 = remat.exp %a : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @integer_add(%a: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'remat.add' op operand #0 must be statically shaped tensor of f64, f32, f16 or bf16, but got 'tensor<4xi64>'}}
  %0 = remat.add %a, %a : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @binary_mismatch(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.mul' op requires the same type for all operands and results}}
  %0 = "remat.mul"(%a, %b) : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_type() -> tensor<4xf32> {
  // expected-error @+1 {{'remat.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "remat.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gelu_mode(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.gelu' op has unknown approximate = "erf"; expected "none" (erf form) or "tanh"}}
  %0 = remat.gelu %x {approximate = "erf"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @gelu_backward_mode(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.gelu_backward' op has unknown approximate = "fast"; expected "none" (erf form) or "tanh"}}
  %0 = remat.gelu_backward %g, %x {approximate = "fast"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @where_condition(%c: tensor<4xi1>, %a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'remat.where' op condition shape [4] must equal the result shape [2, 4]}}
  %0 = remat.where %c, %a, %a : tensor<4xi1>, tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @where_i8_condition(%c: tensor<4xi8>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.where' op operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<4xi8>'}}
  %0 = remat.where %c, %a, %a : tensor<4xi8>, tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_shared_batch(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<3x4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op batch dimension 0 differs: rhs has 2, result has 3}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<3x4x4xf32>
  return %0 : tensor<3x4x4xf32>
}

// -----

func.func @compare_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'remat.compare' op has unknown predicate "gte"; expected one of eq, ne, lt, le, gt, ge}}
  %0 = remat.compare %a, %a {predicate = "gte"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @compare_shape(%a: tensor<4xf32>) -> tensor<2x2xi1> {
  // expected-error @+1 {{'remat.compare' op result shape [2, 2] must equal the operand shape [4]}}
  %0 = remat.compare %a, %a {predicate = "eq"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}

// -----

func.func @compare_types(%a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xi1> {
  // expected-error @+1 {{'remat.compare' op failed to verify that all of {lhs, rhs} have same type}}
  %0 = remat.compare %a, %b {predicate = "eq"} : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) -> tensor<2x2xbf16> {
  // expected-error @+1 {{'remat.cast' op changes only the element type; result shape [2, 2] must equal the input shape [4]}}
  %0 = remat.cast %x : (tensor<4xf32>) -> tensor<2x2xbf16>
  return %0 : tensor<2x2xbf16>
}

// -----

func.func @cast_same(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.cast' op casts 'f32' to itself; remove the cast}}
  %0 = remat.cast %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_rank1(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.matmul' op operands must have rank >= 2, got ranks 1 and 2}}
  %0 = remat.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_ranks(%a: tensor<2x4x8xf32>, %b: tensor<3x2x8x4xf32>) -> tensor<3x2x4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op operand ranks must be equal, or one of them 2 (a matrix shared by every batch element), got 3 and 4}}
  %0 = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x2x8x4xf32>) -> tensor<3x2x4x4xf32>
  return %0 : tensor<3x2x4x4xf32>
}

// -----

func.func @matmul_result_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op result must have rank 3 (the larger operand rank), got 2}}
  %0 = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @matmul_types(%a: tensor<4x8xf32>, %b: tensor<8x4xbf16>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op operands and result must have the same element type, got 'f32', 'bf16' and 'f32'}}
  %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xbf16>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+1 {{'remat.matmul' op batch dimension 0 differs: lhs has 2, rhs has 3, result has 2}}
  %0 = remat.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// -----

func.func @matmul_transposed_contraction(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'remat.matmul' op contraction dimensions differ: lhs has 4, rhs has 8}}
  %0 = remat.matmul %a, %b : (tensor<8x4xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @matmul_result(%a: tensor<4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.matmul' op result must be 4x16 in its last two dimensions, got 4x8}}
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @linear_weight_rank(%x: tensor<4x8xf32>, %w: tensor<16x8x1xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'remat.linear' op weight must have rank 2 ([out, in]), got rank 3}}
  %0 = remat.linear %x, %w : (tensor<4x8xf32>, tensor<16x8x1xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @linear_scalar_input(%x: tensor<f32>, %w: tensor<16x8xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'remat.linear' op input must have rank >= 1 ([..., in]), got rank 0}}
  %0 = remat.linear %x, %w : (tensor<f32>, tensor<16x8xf32>) -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @linear_types(%x: tensor<4x8xbf16>, %w: tensor<16x8xf32>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'remat.linear' op input, weight and result must have the same element type, got 'bf16', 'f32' and 'bf16'}}
  %0 = remat.linear %x, %w : (tensor<4x8xbf16>, tensor<16x8xf32>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

func.func @linear_in_features(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'remat.linear' op input's last dimension must equal the weight's in-features 8 (weight is [out, in] = [16, 8]), got 16}}
  %0 = remat.linear %x, %w : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @linear_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'remat.linear' op bias must be 'tensor<16xf32>' ([out]), got 'tensor<8xf32>'}}
  %0 = remat.linear %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @linear_result(%x: tensor<2x4x8xf32>, %w: tensor<16x8xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'remat.linear' op expected result type 'tensor<2x4x16xf32>' ([..., out]), got 'tensor<8x16xf32>'}}
  %0 = remat.linear %x, %w : (tensor<2x4x8xf32>, tensor<16x8xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

func.func @sum_no_dims(%x: tensor<4x8xf32>) -> tensor<f32> {
  // expected-error @+1 {{'remat.sum' op needs a non-empty 'dims'; to reduce every dimension list them all, e.g. dims = array<i64: 0, 1>}}
  %0 = remat.sum %x {dims = array<i64>} : (tensor<4x8xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mean_dim_range(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.mean' op reduction dimension 2 is out of range for an input of rank 2; expected 0 <= dim < 2}}
  %0 = remat.mean %x {dims = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_negative_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.max' op reduction dimension -1 is out of range for an input of rank 2; expected 0 <= dim < 2}}
  %0 = remat.max %x {dims = array<i64: -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sum_repeated_dim(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.sum' op reduction dimension 1 appears more than once in 'dims' [1, 1]}}
  %0 = remat.sum %x {dims = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sum_result(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.sum' op expected result type 'tensor<4x1xf32>' (dims [1] with keepdim), got 'tensor<4xf32>'}}
  %0 = remat.sum %x {dims = array<i64: 1>, keepdim} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @max_result(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.max' op expected result type 'tensor<4xf32>' (dims [1] without keepdim), got 'tensor<8xf32>'}}
  %0 = remat.max %x {dims = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reshape_type(%x: tensor<4x8xf32>) -> tensor<32xbf16> {
  // expected-error @+1 {{'remat.reshape' op must keep the element type 'f32', got 'bf16'; use remat.cast to convert}}
  %0 = remat.reshape %x : (tensor<4x8xf32>) -> tensor<32xbf16>
  return %0 : tensor<32xbf16>
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<30xf32> {
  // expected-error @+1 {{'remat.reshape' op must keep the element count: input 'tensor<4x8xf32>' has 32, result 'tensor<30xf32>' has 30}}
  %0 = remat.reshape %x : (tensor<4x8xf32>) -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// -----

func.func @transpose_length(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'remat.transpose' op permutation [1, 0, 2] has 3 entries, expected one per input dimension (2)}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @transpose_not_permutation(%x: tensor<4x8x2xf32>) -> tensor<8x8x2xf32> {
  // expected-error @+1 {{'remat.transpose' op permutation [1, 1, 2] must hold each of 0..2 exactly once}}
  %0 = remat.transpose %x {permutation = array<i64: 1, 1, 2>} : (tensor<4x8x2xf32>) -> tensor<8x8x2xf32>
  return %0 : tensor<8x8x2xf32>
}

// -----

func.func @transpose_result(%x: tensor<4x8x2xf32>) -> tensor<8x4x2xf32> {
  // expected-error @+1 {{'remat.transpose' op expected result type 'tensor<2x4x8xf32>' for permutation [2, 0, 1], got 'tensor<8x4x2xf32>'}}
  %0 = remat.transpose %x {permutation = array<i64: 2, 0, 1>} : (tensor<4x8x2xf32>) -> tensor<8x4x2xf32>
  return %0 : tensor<8x4x2xf32>
}

// -----

func.func @broadcast_type(%x: tensor<8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'remat.broadcast' op must keep the element type 'f32', got 'f16'}}
  %0 = remat.broadcast %x : (tensor<8xf32>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @broadcast_rank(%x: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.broadcast' op cannot broadcast rank 2 to the smaller rank 1}}
  %0 = remat.broadcast %x : (tensor<4x8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @broadcast_dims_length(%x: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.broadcast' op 'dims' [0, 1] has 2 entries, expected one per input dimension (1)}}
  %0 = remat.broadcast %x {dims = array<i64: 0, 1>} : (tensor<4xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @broadcast_dims_order(%x: tensor<4x8xf32>) -> tensor<8x4x2xf32> {
  // expected-error @+1 {{'remat.broadcast' op 'dims' [1, 0] must be strictly increasing result dimensions in [0, 3)}}
  %0 = remat.broadcast %x {dims = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4x2xf32>
  return %0 : tensor<8x4x2xf32>
}

// -----

func.func @broadcast_size(%x: tensor<3xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.broadcast' op input dimension 0 (size 3) maps to result dimension 1 (size 8); it must be 1 or equal to it}}
  %0 = remat.broadcast %x : (tensor<3xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @broadcast_explicit_size(%x: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.broadcast' op input dimension 0 (size 8) maps to result dimension 0 (size 4); it must be 1 or equal to it}}
  %0 = remat.broadcast %x {dims = array<i64: 0>} : (tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @slice_length(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'remat.slice' op 'offsets' has 1 entries, expected one per input dimension (2)}}
  %0 = remat.slice %x {offsets = array<i64: 1>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_strides_length(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'remat.slice' op 'strides' has 3 entries, expected one per input dimension (2)}}
  %0 = remat.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>, strides = array<i64: 1, 1, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_type(%x: tensor<4x8xf32>) -> tensor<2x8xbf16> {
  // expected-error @+1 {{'remat.slice' op must keep the element type 'f32', got 'bf16'}}
  %0 = remat.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}

// -----

func.func @slice_stride_zero(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'remat.slice' op dimension 1: offset 0, size 8, stride 0 must satisfy offset >= 0, size >= 0, stride >= 1}}
  %0 = remat.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>, strides = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'remat.slice' op dimension 1: elements 2..8 (offset 2, size 4, stride 2) exceed the input size 8}}
  %0 = remat.slice %x {offsets = array<i64: 0, 2>, sizes = array<i64: 2, 4>, strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @slice_result(%x: tensor<4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'remat.slice' op result shape [2, 4] must equal 'sizes' [2, 8]}}
  %0 = remat.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 8>} : (tensor<4x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @concat_empty() -> tensor<0xf32> {
  // expected-error @+1 {{'remat.concat' op needs at least one input}}
  %0 = remat.concat {dim = 0} : () -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @concat_dim(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'remat.concat' op dim 2 is out of range for rank 2; expected 0 <= dim < 2}}
  %0 = remat.concat %a {dim = 2} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @concat_input_type(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'remat.concat' op input #1 has type 'tensor<4x8xbf16>'; every input needs the result's rank (2) and element type ('f32')}}
  %0 = remat.concat %a, %b {dim = 1} : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @concat_other_dim(%a: tensor<4x8xf32>, %b: tensor<3x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'remat.concat' op input #1 has size 3 in dimension 0, but the result has 4; only dimension 1 may differ}}
  %0 = remat.concat %a, %b {dim = 1} : (tensor<4x8xf32>, tensor<3x8xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @concat_sum(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) -> tensor<4x12xf32> {
  // expected-error @+1 {{'remat.concat' op result dimension 1 must be 10 (the sum of the inputs'), got 12}}
  %0 = remat.concat %a, %b {dim = 1} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x12xf32>
  return %0 : tensor<4x12xf32>
}
