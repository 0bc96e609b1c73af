// A schedule that re-evaluates forward ops more than once: budget (and
// optimal) at the smallest budget of this tanh chain keep a4 and y from
// forward and, for each of the last three backward ops, recompute the chain
// from x up to the value it reads (a1 three times, a2 twice). remat-plan
// records that schedule, since per-value decisions (recompute a1, a2, a3
// once and keep them) cannot express it, and remat-partition emits it as is.

// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" | FileCheck %s --check-prefix=PLAN
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" -remat-partition | FileCheck %s
// RUN: remat-opt %s "-remat-plan=strategy=optimal memory-budget=0.0" -remat-partition | FileCheck %s
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=REPORT

// The gradients of the partitioned program are the joint function's.
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" -remat-partition -o %t.budget.mlir
// RUN: remat-run %s --function=tanh_chain --check-partition=%t.budget.mlir | FileCheck %s --check-prefix=EXEC

// A plan whose decisions express its schedule records none, and re-planning
// removes a schedule an earlier plan recorded.
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=1.0" | FileCheck %s --check-prefix=NONE
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" -remat-plan=strategy=min-cut | FileCheck %s --check-prefix=NONE

// A pass that changes the joint function after remat-plan (here sed turns
// the first tanh into an exp) makes the recorded schedule stale although it
// still fits the function: its fingerprint no longer matches.
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.0" | sed '0,/remat.tanh /s//remat.exp /' | not remat-opt -remat-partition 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: error: remat-partition: the recorded schedule (remat.schedule) of 'tanh_chain' belongs to another version of the function: its ops or their operands changed after remat-plan (fingerprint {{-?[0-9]+}}, now {{-?[0-9]+}}); re-run remat-plan on the joint function to record a fresh one

// Per-value decisions need no fingerprint: remat-partition builds the program
// from the IR it is given, so after the same edit a min-cut plan still
// partitions into a program that computes the edited function's gradients.
// RUN: remat-opt %s -remat-plan=strategy=min-cut | sed '0,/remat.tanh /s//remat.exp /' > %t.edited.mlir
// RUN: remat-opt %t.edited.mlir -remat-partition -o %t.edited-partitioned.mlir
// RUN: remat-run %t.edited.mlir --function=tanh_chain --check-partition=%t.edited-partitioned.mlir | FileCheck %s --check-prefix=EXEC

// PLAN-LABEL: func.func @tanh_chain
// PLAN-SAME: remat.schedule = {backward_start = 5 : i64, fingerprint = {{-?[0-9]+}} : i64, steps = array<i64: 0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 7, 0, 1, 8, 0, 9>}

// NONE-NOT: remat.schedule

// REPORT: "peak_memory_bytes": 4096,

// CHECK-LABEL: func.func @tanh_chain_forward
// CHECK-SAME: remat.saved_values = ["a4", "y"]
// CHECK: %[[A1:.*]] = remat.tanh %arg0 {remat.name = "a1"}
// CHECK-NEXT: %[[A2:.*]] = remat.tanh %[[A1]] {remat.name = "a2"}
// CHECK-NEXT: %[[A3:.*]] = remat.tanh %[[A2]] {remat.name = "a3"}
// CHECK-NEXT: %[[A4:.*]] = remat.tanh %[[A3]] {remat.name = "a4"}
// CHECK-NEXT: %[[Y:.*]] = remat.tanh %[[A4]] {remat.name = "y"}
// CHECK-NEXT: return %[[Y]], %[[A4]], %[[Y]]

// CHECK-LABEL: func.func @tanh_chain_backward
// CHECK-SAME: (%[[SA4:[^:]*]]: tensor<256xf32>, %[[SY:[^:]*]]: tensor<256xf32>, %[[X:[^:]*]]: tensor<256xf32> {remat.role = "input"}, %[[DY:[^:]*]]: tensor<256xf32> {remat.role = "tangent"})
// CHECK-NEXT: %[[D4:.*]] = remat.tanh_backward %[[DY]], %[[SY]] {remat.name = "d4"}
// CHECK-NEXT: %[[D3:.*]] = remat.tanh_backward %[[D4]], %[[SA4]] {remat.name = "d3"}
// CHECK-NEXT: %[[R1A1:.*]] = remat.tanh %[[X]] {remat.name = "a1"}
// CHECK-NEXT: %[[R1A2:.*]] = remat.tanh %[[R1A1]] {remat.name = "a2"}
// CHECK-NEXT: %[[R1A3:.*]] = remat.tanh %[[R1A2]] {remat.name = "a3"}
// CHECK-NEXT: %[[D2:.*]] = remat.tanh_backward %[[D3]], %[[R1A3]] {remat.name = "d2"}
// CHECK-NEXT: %[[R2A1:.*]] = remat.tanh %[[X]] {remat.name = "a1"}
// CHECK-NEXT: %[[R2A2:.*]] = remat.tanh %[[R2A1]] {remat.name = "a2"}
// CHECK-NEXT: %[[D1:.*]] = remat.tanh_backward %[[D2]], %[[R2A2]] {remat.name = "d1"}
// CHECK-NEXT: %[[R3A1:.*]] = remat.tanh %[[X]] {remat.name = "a1"}
// CHECK-NEXT: %[[DX:.*]] = remat.tanh_backward %[[D1]], %[[R3A1]] {remat.name = "dx"}
// CHECK-NEXT: return %[[DX]]

// EXEC: compare output 0: bitwise-equal
// EXEC: compare gradient 1 (of argument 0): bitwise-equal
// EXEC: PASS: @tanh_chain vs @tanh_chain_forward + @tanh_chain_backward

func.func @tanh_chain(%x: tensor<256xf32> {remat.role = "input"},
                      %dy: tensor<256xf32> {remat.role = "tangent"})
    -> (tensor<256xf32> {remat.role = "output"},
        tensor<256xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %a1 = remat.tanh %x {remat.name = "a1"} : tensor<256xf32>
  %a2 = remat.tanh %a1 {remat.name = "a2"} : tensor<256xf32>
  %a3 = remat.tanh %a2 {remat.name = "a3"} : tensor<256xf32>
  %a4 = remat.tanh %a3 {remat.name = "a4"} : tensor<256xf32>
  %y = remat.tanh %a4 {remat.name = "y"} : tensor<256xf32>
  %d4 = remat.tanh_backward %dy, %y {remat.name = "d4"} : tensor<256xf32>
  %d3 = remat.tanh_backward %d4, %a4 {remat.name = "d3"} : tensor<256xf32>
  %d2 = remat.tanh_backward %d3, %a3 {remat.name = "d2"} : tensor<256xf32>
  %d1 = remat.tanh_backward %d2, %a2 {remat.name = "d1"} : tensor<256xf32>
  %dx = remat.tanh_backward %d1, %a1 {remat.name = "dx"} : tensor<256xf32>
  return %y, %dx : tensor<256xf32>, tensor<256xf32>
}
