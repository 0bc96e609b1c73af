// remat-run reports bad requests with one precise message and a non-zero
// exit; a failed --compare exits 1 and says FAIL.

// RUN: not remat-run %s --function=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: remat-run: error: no callable function 'missing' in '{{.*}}remat-run-errors.mlir': it must be public, have a body, and take and return statically shaped tensors

// A tensor the machine cannot hold is refused before anything is allocated
// (before 2026-12-07 the lowered code wrote through malloc's null pointer,
// a segfault, or LLVM's allocator aborted); the planner, which saturates
// sizes, plans such graphs.
// RUN: not remat-run %s --function=huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: remat-run: error: @huge: argument 0 tensor<4294967296x4294967296xf32> has more bytes than 64 bits count; remat-run executes examples: shrink the shapes
// RUN: not remat-run %s --function=large 2>&1 | FileCheck %s --check-prefix=LARGE
// LARGE: remat-run: error: @large: a value of tensor.empty tensor<1000000000x1000000000xf32> needs 4000000000000000000 bytes, more than this machine's memory

// RUN: not remat-run %s --function=double --input=0:1,2,3 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: remat-run: error: --input=0:1,2,3: argument 0 (tensor<4xf32>) needs 4 values (or one to fill it), got 3

// RUN: not remat-run %s --function=double --input=1:1 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: remat-run: error: --input: '1' is not an argument index (the function has 1 arguments)

// RUN: not remat-run %s --function=double --perturb=0:4:0.1 2>&1 | FileCheck %s --check-prefix=PERTURB
// PERTURB: remat-run: error: --perturb=0:4:0.1: element index must be in [0, 4) and eps a number

// RUN: not remat-run %s --function=double --compare=triple --input=0:1 | FileCheck %s --check-prefix=COMPARE
// COMPARE: compare result 0: differs max-abs-error 1 max-rel-error 0.5 (4 of 4 elements differ)
// COMPARE: FAIL: @double vs @triple

// Within a tolerance that covers the difference the comparison passes.
// RUN: remat-run %s --function=double --compare=triple --input=0:1 --atol=1 | FileCheck %s --check-prefix=TOLERANCE
// TOLERANCE: compare result 0: differs max-abs-error 1 max-rel-error 0.5 (0 of 4 elements outside tolerance)
// TOLERANCE: PASS: @double vs @triple

// --perturb adds eps to one element (for finite differences).
// RUN: remat-run %s --function=double --input=0:1 --perturb=0:2:0.5 | FileCheck %s --check-prefix=PERTURBED
// PERTURBED: @double result 0 tensor<4xf32>: 2 2 3 2

// --check-partition runs its own comparison; --compare beside it was
// ignored without a word.
// RUN: not remat-run %s --function=double --check-partition=%s --compare=triple 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: remat-run: error: --check-partition and --compare=triple cannot be combined: the first compares a joint function with its partition, the second two functions; run them one at a time

// --format=hex prints C99 hex floats.
// RUN: remat-run %s --function=double --input=0:0.75 --format=hex | FileCheck %s --check-prefix=HEX
// HEX: @double result 0 tensor<4xf32>: 0x1.8p+0 0x1.8p+0 0x1.8p+0 0x1.8p+0

func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = remat.mul_scalar %x, 2.0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @triple(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = remat.mul_scalar %x, 3.0 : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @huge(%x: tensor<4294967296x4294967296xf32>) -> tensor<4294967296x4294967296xf32> {
  return %x : tensor<4294967296x4294967296xf32>
}

func.func @large(%x: tensor<1xf32>) -> tensor<1xf32> {
  %big = tensor.empty() : tensor<1000000000x1000000000xf32>
  %sum = arith.addf %big, %big : tensor<1000000000x1000000000xf32>
  return %x : tensor<1xf32>
}
