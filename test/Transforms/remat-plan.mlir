// RUN: remat-opt %s -split-input-file -remat-plan=exchange-rate=0 | FileCheck %s --check-prefix=MINCUT
// RUN: remat-opt %s -split-input-file -remat-plan=strategy=save-all | FileCheck %s --check-prefix=SAVEALL
// RUN: remat-opt %s -split-input-file -remat-plan=strategy=recompute-all | FileCheck %s --check-prefix=RECOMPUTEALL
// RUN: remat-opt %s -split-input-file -remat-plan="strategy=budget memory-budget=0.0" | FileCheck %s --check-prefix=BUDGET
// RUN: remat-opt %s -split-input-file -remat-plan="strategy=budget memory-budget=1.0" | FileCheck %s --check-prefix=FRACTION
// RUN: remat-opt %s -split-input-file -remat-plan="strategy=budget memory-budget=activations:1KiB" | FileCheck %s --check-prefix=BYTES
// RUN: remat-opt %s -split-input-file -remat-plan="strategy=optimal memory-budget=activations:1KiB" | FileCheck %s --check-prefix=OPTIMAL
// RUN: remat-opt %s -split-input-file -remat-plan="target=cpu exchange-rate=0" | FileCheck %s --check-prefix=CPU
// RUN: remat-opt %s -split-input-file -remat-plan="target-file=%S/Inputs/slow-h100.json exchange-rate=0" | FileCheck %s --check-prefix=TARGETFILE
// RUN: remat-opt %s -split-input-file -remat-plan="policy=everything_saveable exchange-rate=0" | FileCheck %s --check-prefix=POLICY
// RUN: remat-opt %s -split-input-file -remat-plan="allow-inexact-derivation=true exchange-rate=0" | FileCheck %s --check-prefix=INEXACT

// Malformed options: one error naming the option and the valid spellings.
// RUN: not remat-opt %s -remat-plan=strategy=fastest 2>&1 | FileCheck %s --check-prefix=BAD-STRATEGY
// RUN: not remat-opt %s -remat-plan=strategy=budget 2>&1 | FileCheck %s --check-prefix=NO-BUDGET
// RUN: not remat-opt %s -remat-plan="strategy=budget memory-budget=lots" 2>&1 | FileCheck %s --check-prefix=BAD-BUDGET
// RUN: not remat-opt %s -remat-plan=target=tpu 2>&1 | FileCheck %s --check-prefix=BAD-TARGET
// RUN: not remat-opt %s -remat-plan=target-file=%t.missing.json 2>&1 | FileCheck %s --check-prefix=NO-TARGET-FILE
// RUN: not remat-opt %s -remat-plan=policy=save_only_these_names 2>&1 | FileCheck %s --check-prefix=BAD-POLICY
// RUN: not remat-opt %s -remat-plan=policy=save_most:x 2>&1 | FileCheck %s --check-prefix=UNKNOWN-POLICY
// RUN: not remat-opt %s -remat-plan="strategy=budget memory-budget=activations:16B" 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: not remat-opt %s -remat-plan="strategy=optimal memory-budget=activations:16B" 2>&1 | FileCheck %s --check-prefix=INFEASIBLE-OPTIMAL
// RUN: remat-opt %s -remat-plan="memory-budget=activations:1KiB exchange-rate=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNUSED-BUDGET
// RUN: echo 'func.func @plain(%%a: f32) -> f32 { return %%a : f32 }' | not remat-opt -remat-plan=exchange-rate=0 2>&1 | FileCheck %s --check-prefix=NO-JOINT

// BAD-STRATEGY: error: remat-plan: bad option strategy=fastest: unknown strategy 'fastest'; valid strategies: save-all, recompute-all, min-cut, budget, optimal
// NO-BUDGET: error: remat-plan: strategy=budget needs a memory budget, e.g. memory-budget=512MiB or memory-budget=0.5
// BAD-BUDGET: error: remat-plan: bad option memory-budget=lots: memory budget 'lots'
// BAD-TARGET: error: remat-plan: bad option target=tpu: unknown target 'tpu'; valid targets: h100, h200, a100, mi300x, cpu
// NO-TARGET-FILE: error: remat-plan: cannot read target-file={{.*}}missing.json
// BAD-POLICY: error: remat-plan: bad option policy=save_only_these_names: checkpoint policy 'save_only_these_names' needs names
// UNKNOWN-POLICY: error: remat-plan: bad option policy=save_most:x: unknown checkpoint policy 'save_most'
// INFEASIBLE: error: remat-plan: cannot plan 'exp_chain' with strategy=budget: memory budget 16 B (16 bytes) is infeasible
// INFEASIBLE-SAME: raise the budget to at least 128 bytes
// INFEASIBLE-OPTIMAL: error: remat-plan: cannot plan 'exp_chain' with strategy=optimal: no schedule fits the budget of 16 bytes: the smallest activation peak any schedule reaches is 128 B (128 bytes)
// UNUSED-BUDGET: warning: remat-plan: memory-budget=activations:1KiB has no effect with strategy=min-cut; use strategy=budget or strategy=optimal
// NO-JOINT: error: remat-plan: no function is marked as a joint training graph

// A chain of cheap pointwise ops whose backward reads every intermediate:
// min-cut replays the chain from the input, save-all keeps it.

// MINCUT-LABEL: func.func @exp_chain
// MINCUT-SAME: %{{.*}}: tensor<8xf32> {remat.decision = ["input"], remat.reason = ["input: a recomputation in backward reads this function input"], remat.role = "input"}
// MINCUT-SAME: remat.plan = {allow_inexact_derivation = false,
// MINCUT-SAME: strategy = "min-cut", tangent_bytes = 32 : i64, target = "h100"
// MINCUT: remat.exp %{{.*}} {remat.decision = ["recompute"], remat.name = "e1", remat.reason = ["recomputed from %arg0 (cheaper than saving 32 B); the replay fuses into pointwise remat.mul#5"]}
// MINCUT: remat.exp %{{.*}} {remat.decision = ["recompute"], remat.name = "e2", remat.reason = ["recomputed from e1 (cheaper than saving 32 B); the replay fuses into pointwise remat.mul#4"]}
// MINCUT: remat.exp %{{.*}} {remat.decision = ["save"], remat.name = "y"
// Backward ops carry no decision.
// MINCUT: remat.mul %{{[^ ]*}}, %{{[^ ]*}} : tensor<8xf32>
// MINCUT-NOT: remat.decision

// SAVEALL-LABEL: func.func @exp_chain
// SAVEALL-SAME: strategy = "save-all"
// SAVEALL: remat.decision = ["save"], remat.name = "e1"
// SAVEALL: remat.decision = ["save"], remat.name = "e2"

// RECOMPUTEALL-LABEL: func.func @exp_chain
// RECOMPUTEALL-SAME: recompute_flops = 6.400000e+01 : f64
// RECOMPUTEALL-SAME: strategy = "recompute-all"
// RECOMPUTEALL: remat.decision = ["recompute"], remat.name = "e1"

// BUDGET-LABEL: func.func @exp_chain
// BUDGET-SAME: budget_bytes = 128 : i64
// BUDGET-SAME: peak_memory_bytes = 128 : i64
// BUDGET-SAME: strategy = "budget"
// BUDGET: remat.decision = ["recompute"], remat.name = "e1", remat.reason = ["recomputed from %arg0 (cheaper than saving 32 B; costs 4.78e-07 us to fit the budget); the replay fuses into pointwise remat.mul#5"]
// BUDGET: remat.decision = ["save"], remat.name = "e2", remat.reason = ["saved: the budget (128 B) has room for it, and recomputing it would cost 4.78e-07 us"]

// BYTES-LABEL: func.func @exp_chain
// BYTES-SAME: budget_bytes = 1024 : i64

// FRACTION-LABEL: func.func @exp_chain
// FRACTION-SAME: budget_bytes = 160 : i64
// FRACTION-SAME: strategy = "budget"
// FRACTION: remat.decision = ["save"], remat.name = "e1"

// OPTIMAL-LABEL: func.func @exp_chain
// OPTIMAL-SAME: budget_bytes = 1024 : i64
// OPTIMAL-SAME: strategy = "optimal"
// OPTIMAL: remat.decision = ["save"], remat.name = "e1", remat.reason = ["saved: the optimal schedule keeps it from forward"]

// CPU-LABEL: func.func @exp_chain
// CPU-SAME: target = "cpu"

// TARGETFILE-LABEL: func.func @exp_chain
// TARGETFILE-SAME: target = "slow-h100"

// POLICY-LABEL: func.func @exp_chain
// POLICY-SAME: policy = "everything_saveable"
// POLICY: remat.decision = ["save"], remat.name = "e1", remat.reason = ["saved: checkpoint policy everything_saveable saves it"]
func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1"} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  // Backward: d exp(a) = exp(a) * d.
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// A residual add whose left operand backward needs: h is a matmul result
// automatic planning does not recompute; with inexact derivation it is
// rebuilt as z - skip from values available anyway.

// MINCUT-LABEL: func.func @residual
// MINCUT: remat.matmul {{.*}}remat.decision = ["save"], remat.name = "h", remat.reason = ["saved: recomputing it needs matmul h which is compute-intensive (matmul, conv and attention are not recomputed automatically; a policy or must_recompute can allow it)"]

// INEXACT-LABEL: func.func @residual
// INEXACT-SAME: uses_inexact_derivation = true
// INEXACT: remat.matmul {{.*}}{remat.decision = ["derive"], remat.derivation = [{exact = false, from = ["z", "%arg1"], kind = "subtract-other", operand = 0 : i64, via = "z"}], remat.name = "h", remat.reason = ["derived as z - %arg1 (inexact: floating-point rounding may differ); 64 B less saved for {{.*}} us in backward"]}
// INEXACT: remat.add {{.*}}{remat.decision = ["save"], remat.name = "z"
func.func @residual(%x: tensor<4x4xf32> {remat.role = "input"},
                    %skip: tensor<4x4xf32> {remat.role = "input"},
                    %w: tensor<4x4xf32> {remat.role = "param"},
                    %dz: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 2})
    attributes {remat.graph = "joint"} {
  %h = remat.matmul %x, %w {remat.name = "h"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = remat.add %h, %skip {remat.name = "z"} : tensor<4x4xf32>
  %g = remat.mul %dz, %h : tensor<4x4xf32>
  %dw = remat.matmul %x, %g {transpose_a} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %z, %dw : tensor<4x4xf32>, tensor<4x4xf32>
}
