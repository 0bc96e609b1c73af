// Executes the elementwise ops on the host (remat-run: remat-lower-to-cpu +
// ExecutionEngine) and checks hand-computed values. x = [-1, 0, 0.5, 2].
// Transcendental results are matched to 6 significant digits (libm and the
// f32 formulas may differ from the exact value in the last bit).

// RUN: remat-run %s --function=unary --input=0:-1,0,0.5,2 | FileCheck %s --check-prefix=UNARY
// RUN: remat-run %s --function=binary --input=0:-1,0,0.5,2 --input=1:2,3,-4,0.5 | FileCheck %s --check-prefix=BINARY
// RUN: remat-run %s --function=activation_backward --input=0:-1,0,0.5,2 --input=1:2 | FileCheck %s --check-prefix=BACKWARD
// RUN: remat-run %s --function=select --input=0:-1,0,0.5,2 --input=1:2,0,-4,2 | FileCheck %s --check-prefix=SELECT
// RUN: remat-run %s --function=bf16 --input=0:1,3,-0.5,100 | FileCheck %s --check-prefix=BF16

// UNARY: @unary result 0 tensor<4xf32>: 1 -0 -0.5 -2
// UNARY-NEXT: @unary result 1 tensor<4xf32>: 0.367879{{[0-9]*}} 1 1.64872{{[0-9]*}} 7.38905{{[0-9]*}}
// UNARY-NEXT: @unary result 2 tensor<4xf32>: nan -inf -0.693147{{[0-9]*}} 0.693147{{[0-9]*}}
// UNARY-NEXT: @unary result 3 tensor<4xf32>: nan 0 0.707106{{[0-9]*}} 1.41421{{[0-9]*}}
// UNARY-NEXT: @unary result 4 tensor<4xf32>: nan inf 1.41421{{[0-9]*}} 0.707106{{[0-9]*}}
// UNARY-NEXT: @unary result 5 tensor<4xf32>: -0.761594{{[0-9]*}} 0 0.462117{{[0-9]*}} 0.964027{{[0-9]*}}
// UNARY-NEXT: @unary result 6 tensor<4xf32>: 0.268941{{[0-9]*}} 0.5 0.622459{{[0-9]*}} 0.880797{{[0-9]*}}
// UNARY-NEXT: @unary result 7 tensor<4xf32>: 0 0 0.5 2
// UNARY-NEXT: @unary result 8 tensor<4xf32>: -0.100000{{[0-9]*}} 0 0.5 2
// UNARY-NEXT: @unary result 9 tensor<4xf32>: -0.158655{{[0-9]*}} 0 0.345731{{[0-9]*}} 1.95449{{[0-9]*}}
// UNARY-NEXT: @unary result 10 tensor<4xf32>: -0.15880{{[0-9]*}} 0 0.345714{{[0-9]*}} 1.95459{{[0-9]*}}
// UNARY-NEXT: @unary result 11 tensor<4xf32>: -0.268941{{[0-9]*}} 0 0.311229{{[0-9]*}} 1.76159{{[0-9]*}}
// UNARY-NEXT: @unary result 12 tensor<4xf32>: 1 0 0.25 4
// UNARY-NEXT: @unary result 13 tensor<4xf32>: -1 0 0.125 8
// UNARY-NEXT: @unary result 14 tensor<4xf32>: 0 1 1.5 3
// UNARY-NEXT: @unary result 15 tensor<4xf32>: -3 0 1.5 6
func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.neg %x : tensor<4xf32>
  %1 = remat.exp %x : tensor<4xf32>
  %2 = remat.log %x : tensor<4xf32>
  %3 = remat.sqrt %x : tensor<4xf32>
  %4 = remat.rsqrt %x : tensor<4xf32>
  %5 = remat.tanh %x : tensor<4xf32>
  %6 = remat.sigmoid %x : tensor<4xf32>
  %7 = remat.relu %x : tensor<4xf32>
  %8 = remat.leaky_relu %x {alpha = 0.1 : f64} : tensor<4xf32>
  %9 = remat.gelu %x : tensor<4xf32>
  %10 = remat.gelu %x {approximate = "tanh"} : tensor<4xf32>
  %11 = remat.silu %x : tensor<4xf32>
  %12 = remat.square %x : tensor<4xf32>
  %13 = remat.pow_scalar %x, 3.0 : tensor<4xf32>
  %14 = remat.add_scalar %x, 1.0 : tensor<4xf32>
  %15 = remat.mul_scalar %x, 3.0 : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// BINARY: @binary result 0 tensor<4xf32>: 1 3 -3.5 2.5
// BINARY-NEXT: @binary result 1 tensor<4xf32>: -3 -3 4.5 1.5
// BINARY-NEXT: @binary result 2 tensor<4xf32>: -2 0 -2 1
// BINARY-NEXT: @binary result 3 tensor<4xf32>: -0.5 0 -0.125 4
// BINARY-NEXT: @binary result 4 tensor<4xf32>: 1 0 16 1.41421{{[0-9]*}}
func.func @binary(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.add %a, %b : tensor<4xf32>
  %1 = remat.sub %a, %b : tensor<4xf32>
  %2 = remat.mul %a, %b : tensor<4xf32>
  %3 = remat.div %a, %b : tensor<4xf32>
  %4 = remat.pow %a, %b : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Gradient g = 2 everywhere, the saved tensor is x.
// BACKWARD: @activation_backward result 0 tensor<4xf32>: 0 0 2 2
// BACKWARD-NEXT: @activation_backward result 1 tensor<4xf32>: 0.200000{{[0-9]*}} 0.200000{{[0-9]*}} 2 2
// BACKWARD-NEXT: @activation_backward result 2 tensor<4xf32>: -0.166630{{[0-9]*}} 1 1.73499{{[0-9]*}} 2.17046{{[0-9]*}}
// BACKWARD-NEXT: @activation_backward result 3 tensor<4xf32>: -0.165928{{[0-9]*}} 1 1.7347{{[0-9]*}} 2.17219{{[0-9]*}}
// BACKWARD-NEXT: @activation_backward result 4 tensor<4xf32>: 0.14465{{[0-9]*}} 1 1.47992{{[0-9]*}} 2.18156{{[0-9]*}}
// BACKWARD-NEXT: @activation_backward result 5 tensor<4xf32>: -4 0 0.5 -4
// BACKWARD-NEXT: @activation_backward result 6 tensor<4xf32>: 0 2 1.5 -6
func.func @activation_backward(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.relu_backward %g, %x : tensor<4xf32>
  %1 = remat.leaky_relu_backward %g, %x {alpha = 0.1 : f64} : tensor<4xf32>
  %2 = remat.gelu_backward %g, %x : tensor<4xf32>
  %3 = remat.gelu_backward %g, %x {approximate = "tanh"} : tensor<4xf32>
  %4 = remat.silu_backward %g, %x : tensor<4xf32>
  %5 = remat.sigmoid_backward %g, %x : tensor<4xf32>
  %6 = remat.tanh_backward %g, %x : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// SELECT: @select result 0 tensor<4xi1>: 0 0 1 0
// SELECT-NEXT: @select result 1 tensor<4xi1>: 1 1 0 1
// SELECT-NEXT: @select result 2 tensor<4xf32>: 2 0 0.5 2
// SELECT-NEXT: @select result 3 tensor<4xi64>: -1 0 0 2
// SELECT-NEXT: @select result 4 tensor<4xi1>: 1 0 1 1
// SELECT-NEXT: @select result 5 tensor<4xf16>: -1 0 0.5 2
// SELECT-NEXT: @select result 6 tensor<4xf32>: 1 0 1 1
// SELECT-NEXT: @select result 7 tensor<4xf32>: 0 0 0 0
func.func @select(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>) {
  %gt = remat.compare %a, %b {predicate = "gt"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %le = remat.compare %a, %b {predicate = "le"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %max = remat.where %gt, %a, %b : tensor<4xi1>, tensor<4xf32>
  %int = remat.cast %a : (tensor<4xf32>) -> tensor<4xi64>
  %bool = remat.cast %a : (tensor<4xf32>) -> tensor<4xi1>
  %half = remat.cast %a : (tensor<4xf32>) -> tensor<4xf16>
  %back = remat.cast %bool : (tensor<4xi1>) -> tensor<4xf32>
  %zero = remat.constant dense<0.0> : tensor<4xf32>
  return %gt, %le, %max, %int, %bool, %half, %back, %zero : tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xi64>, tensor<4xi1>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
}

// bf16 computes in f32 and rounds once to 8 significant bits: 9 / 3 = 3
// exactly, 1 / 100 rounds to 0.0100097656, 100 * 100 = 10000 rounds to 9984.
// BF16: @bf16 result 0 tensor<4xbf16>: 1 3 -2 0.0100097656
// BF16-NEXT: @bf16 result 1 tensor<4xbf16>: 1 9 0.25 9984
func.func @bf16(%x: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %numerator = remat.constant dense<[1.0, 9.0, 1.0, 1.0]> : tensor<4xbf16>
  %q = remat.div %numerator, %x : tensor<4xbf16>
  %s = remat.square %x : tensor<4xbf16>
  return %q, %s : tensor<4xbf16>, tensor<4xbf16>
}
