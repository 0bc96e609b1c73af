// `optimal` weighs derivations in its MILP (docs/Optimal.md, "Derivations").
// `a` is a matmul (automatic planning does not replay it) that backward
// reads; y = a + b is a function result, held anyway, so a = y - b. Holding
// a through z and z2 peaks at 16 KiB; deriving it in backward, from y and a
// replay of b = tanh(x), peaks at 12.1 KiB. `optimal` derives a, and so does
// `budget`, whose derivation search replays a source whose op reads only
// free values (before, it could only save b for it, which frees nothing, and
// it found no plan under 16 KiB). The partitioned program computes the joint
// graph's gradients within the rounding of the subtraction.

// RUN: remat-opt %s --remat-plan="strategy=budget memory-budget=activations:13KiB allow-inexact-derivation=true" --remat-report="format=text output=-" -o /dev/null | FileCheck %s --check-prefix=BUDGET
// BUDGET: peak memory: 12.1 KiB (12416 B)
// BUDGET: a derive {{.*}} derived as y - b (inexact: floating-point rounding may differ)
// BUDGET: b not-needed {{.*}} replayed for the derivation of a

// RUN: remat-opt %s --remat-plan="strategy=optimal memory-budget=activations:13KiB allow-inexact-derivation=true" --remat-report="format=text output=-" -o /dev/null | FileCheck %s --check-prefix=PLAN
// PLAN: peak memory: 12.1 KiB (12416 B)
// PLAN: inexact derivation: allowed, used
// PLAN: a derive {{.*}} derived as y - b (inexact: floating-point rounding may differ)
// PLAN: b not-needed {{.*}} replayed for the derivation of a
// PLAN: y save {{.*}} function result

// Without inexact derivation (an f32 subtraction is inexact) there is none.
// RUN: not remat-opt %s --remat-plan="strategy=optimal memory-budget=activations:13KiB" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// EXACT: fits the budget of 13312 bytes: the smallest activation peak it reaches is 16 KiB (16384 bytes)

// RUN: remat-opt %s --remat-plan="strategy=optimal memory-budget=activations:13KiB allow-inexact-derivation=true" --remat-partition -o %t.partitioned.mlir
// RUN: FileCheck %s --check-prefix=PARTITION < %t.partitioned.mlir
// PARTITION: func.func @derive_backward
// PARTITION: remat.tanh
// PARTITION-NEXT: remat.sub
// RUN: remat-run %s --function=derive --check-partition=%t.partitioned.mlir --atol=1e-5 --rtol=1e-4 | FileCheck %s --check-prefix=EXEC
// EXEC: PASS: @derive vs @derive_forward + @derive_backward

func.func @derive(
    %x: tensor<32x32xf32> {remat.role = "input"},
    %w: tensor<32x32xf32> {remat.role = "param"},
    %dy: tensor<32x32xf32> {remat.role = "tangent"},
    %dq: tensor<32xf32> {remat.role = "tangent"})
    -> (tensor<32x32xf32> {remat.role = "output"},
        tensor<32xf32> {remat.role = "output"},
        tensor<32x32xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %a = remat.matmul %x, %w {remat.name = "a"}
      : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %b = remat.tanh %x {remat.name = "b"} : tensor<32x32xf32>
  %y = remat.add %a, %b {remat.name = "y"} : tensor<32x32xf32>
  %z = remat.exp %y {remat.name = "z"} : tensor<32x32xf32>
  %z2 = remat.exp %z {remat.name = "z2"} : tensor<32x32xf32>
  %q = "remat.sum"(%z2) <{dims = array<i64: 1>}> {remat.name = "q"}
      : (tensor<32x32xf32>) -> tensor<32xf32>
  %dqb = "remat.broadcast"(%dq) : (tensor<32xf32>) -> tensor<32x32xf32>
  %g0 = remat.mul %dqb, %a : tensor<32x32xf32>
  %g = remat.add %g0, %dy : tensor<32x32xf32>
  return %y, %q, %g : tensor<32x32xf32>, tensor<32xf32>, tensor<32x32xf32>
}
