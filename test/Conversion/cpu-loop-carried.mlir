// An scf.for carrying a tensor its body recomputes (remat ops make new
// tensors) lowers for the host: each iteration yields a new buffer, and the
// buffer-deallocation pipeline frees the last one (before 2026-12-08
// one-shot bufferization refused it: "Yield operand #0 is not equivalent to
// the corresponding iter bbArg"). The loop's results equal the unrolled
// function's bitwise, and a 1000-iteration loop holds no more heap than a
// 3-iteration one.
// RUN: remat-run %s --function=loop --compare=unrolled | FileCheck %s
// CHECK: compare result 0: bitwise-equal
// CHECK: compare result 1: bitwise-equal
// CHECK: PASS: @loop vs @unrolled
// RUN: remat-run %s --function=loop --measure-memory | FileCheck %s --check-prefix=MEMORY
// RUN: remat-run %s --function=loop1000 --measure-memory | FileCheck %s --check-prefix=MEMORY
// MEMORY: heap-high-water 320 {{.*}} live-at-return 0
// A plan of it runs the same (the partitioned loop too):
// RUN: remat-opt %s -remat-plan -remat-partition -o %t.part.mlir
// RUN: remat-run %s --function=loop --check-partition=%t.part.mlir | FileCheck %s --check-prefix=PARTITION
// PARTITION: PASS: @loop vs @loop_forward + @loop_backward
// A plan whose backward loops over bounds its forward loops over too passes
// them as index values, which the runner cannot pass: --check-partition says so (before
// 2026-12-08: "must define @bounds_forward and @bounds_backward").
// RUN: not remat-run %s --function=bounds --check-partition=%t.part.mlir 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: remat-run: error: '{{.*}}.part.mlir' defines @bounds_forward, but the runner cannot call it: it must be public and take and return statically shaped tensors only (a saved index or scalar is not one)

func.func @loop(%x: tensor<4xf32> {remat.role = "input"},
                %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = remat.exp %x : tensor<4xf32>
  %t = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %e) -> tensor<4xf32> {
    %s = remat.sigmoid %acc : tensor<4xf32>
    %s2 = remat.add %s, %e : tensor<4xf32>
    scf.yield %s2 : tensor<4xf32>
  }
  %d = remat.mul %dy, %t : tensor<4xf32>
  return %t, %d : tensor<4xf32>, tensor<4xf32>
}

func.func @unrolled(%x: tensor<4xf32>, %dy: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %e = remat.exp %x : tensor<4xf32>
  %s0 = remat.sigmoid %e : tensor<4xf32>
  %t0 = remat.add %s0, %e : tensor<4xf32>
  %s1 = remat.sigmoid %t0 : tensor<4xf32>
  %t1 = remat.add %s1, %e : tensor<4xf32>
  %s2 = remat.sigmoid %t1 : tensor<4xf32>
  %t = remat.add %s2, %e : tensor<4xf32>
  %d = remat.mul %dy, %t : tensor<4xf32>
  return %t, %d : tensor<4xf32>, tensor<4xf32>
}

func.func @loop1000(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000 : index
  %e = remat.exp %x : tensor<4xf32>
  %t = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %e) -> tensor<4xf32> {
    %s = remat.sigmoid %acc : tensor<4xf32>
    %s2 = remat.add %s, %e : tensor<4xf32>
    scf.yield %s2 : tensor<4xf32>
  }
  return %t : tensor<4xf32>
}

func.func @bounds(%x: tensor<4xf32> {remat.role = "input"},
                  %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = remat.exp %x : tensor<4xf32>
  %u = remat.tanh %e : tensor<4xf32>
  %t = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %u) -> tensor<4xf32> {
    %s = remat.sigmoid %acc : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  %d = remat.mul %dy, %t : tensor<4xf32>
  %g = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %d) -> tensor<4xf32> {
    %s = remat.mul %acc, %u : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %t, %g : tensor<4xf32>, tensor<4xf32>
}
