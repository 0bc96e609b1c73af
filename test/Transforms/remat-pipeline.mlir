// RUN: remat-opt %s -remat-pipeline=exchange-rate=0 | FileCheck %s
// RUN: remat-opt %s -remat-pipeline="strategy=save-all target=cpu" | FileCheck %s --check-prefix=SAVEALL
// RUN: remat-opt %s -remat-pipeline="strategy=budget memory-budget=0.0 report=%t.json" | FileCheck %s --check-prefix=BUDGET
// RUN: FileCheck %s --check-prefix=BUDGET-REPORT < %t.json
// RUN: remat-opt %s -remat-pipeline="policy=nothing_saveable report=- report-format=text exchange-rate=0" -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: remat-opt %s -remat-pipeline="allow-inexact-derivation=true emit-remarks=true target-file=%S/Inputs/slow-h100.json exchange-rate=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS
// RUN: not remat-opt %s -remat-pipeline="strategy=optimal" 2>&1 | FileCheck %s --check-prefix=NO-BUDGET
// RUN: remat-opt %s -remat-pipeline="keep-joint=true exchange-rate=0" | FileCheck %s --check-prefix=KEEP

// remat-pipeline = remat-plan (with the same options), then remat-report
// when report= is given, then remat-partition.

// CHECK-NOT: func.func @exp_chain(
// CHECK-LABEL: func.func @exp_chain_forward(
// CHECK-SAME: remat.saved_values = ["y"], remat.stage = "forward"
// CHECK-LABEL: func.func @exp_chain_backward(
// CHECK: remat.exp
// CHECK: remat.exp

// SAVEALL-LABEL: func.func @exp_chain_forward(
// SAVEALL-SAME: remat.saved_values = ["e1", "e2", "y"]
// SAVEALL-LABEL: func.func @exp_chain_backward(
// SAVEALL-NOT: remat.exp

// BUDGET-LABEL: func.func @exp_chain_forward(
// BUDGET-SAME: remat.saved_values = ["e2", "y"]
// BUDGET-REPORT: "strategy": "budget",
// BUDGET-REPORT: "budget_bytes": 128,

// TEXT: policy:              nothing_saveable
// TEXT: e2     recompute

// REMARKS: remark: remat-plan: 'e1' is recompute

// NO-BUDGET: error: remat-plan: strategy=optimal needs a memory budget

// remat-partition's options pass through (since 2026-12-07; before, an
// embedder building the pipeline could not set them).
// KEEP-LABEL: func.func @exp_chain(
// KEEP-SAME: remat.graph = "joint"
// KEEP-LABEL: func.func @exp_chain_forward(
func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1"} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}
