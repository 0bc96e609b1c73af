// Issue #16: an op's workspace (`remat.workspace_bytes`: scratch its kernel
// allocates and frees while it runs) counts at the op's own step, in the
// simulator and in every search `budget` runs. Graph: a (4 B) -> b (1 B) and
// an independent w (1 B) whose kernel needs 8 B of workspace; b and w are
// results. In the graph's order (a, w, b) w runs while a is live: 4 + 1 + 8
// = 13 B. Running w first peaks at 9 B (w and its workspace), then a and b
// add 4 + 1 to w's 1; nothing recomputed. Without the workspace the graph's
// order would peak at 6 B and w's place would not matter.

// RUN: remat-opt %s "-remat-plan=strategy=save-all" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=SAVE
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.7peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=BUDGET
// RUN: remat-opt %s "-remat-plan=strategy=budget memory-budget=0.7peak" -remat-partition | FileCheck %s --check-prefix=ORDER
// RUN: not remat-opt %s "-remat-plan=strategy=budget memory-budget=0.6peak" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIGHT

// SAVE: "peak_memory_bytes": 13,

// BUDGET: "budget_bytes": 9,
// BUDGET: "peak_memory_bytes": 9,
// BUDGET: "predicted_recompute_time_us": 0,

// ORDER-LABEL: func.func @workspace_forward()
// ORDER-NEXT: remat.opaque "w"()
// ORDER-NEXT: remat.opaque "a"()
// ORDER-NEXT: remat.opaque "b"

// TIGHT: error: {{.*}}memory budget 7 B (7 bytes) is infeasible

func.func @workspace() -> (tensor<1xi8> {remat.role = "output"}, tensor<1xi8> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  %a = remat.opaque "a"() {remat.fixed_time_us = 1.0 : f64, remat.name = "a", remat.phase = "forward"} : () -> tensor<4xi8>
  %w = remat.opaque "w"() {remat.fixed_time_us = 1.0 : f64, remat.name = "w", remat.phase = "forward", remat.workspace_bytes = 8 : i64} : () -> tensor<1xi8>
  %b = remat.opaque "b"(%a) {remat.fixed_time_us = 1.0 : f64, remat.name = "b", remat.phase = "forward"} : (tensor<4xi8>) -> tensor<1xi8>
  return %b, %w : tensor<1xi8>, tensor<1xi8>
}
