// A small Checkmate-style graph (a 4-layer chain and its backward, unit costs
// and sizes) planned exactly with strategy=optimal at fractions of its peak,
// and by the budget heuristic, which matches the optimum here.

// RUN: split-file %s %t
// RUN: remat-translate --import-checkmate-json %t/linear.json -o %t/linear.mlir
// RUN: remat-opt %t/linear.mlir -remat-plan="strategy=optimal memory-budget=1.0peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=FULL
// RUN: remat-opt %t/linear.mlir -remat-plan="strategy=optimal memory-budget=0.7peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=SEVENTY
// RUN: remat-opt %t/linear.mlir -remat-plan="strategy=optimal memory-budget=0.5peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=HALF
// RUN: remat-opt %t/linear.mlir -remat-plan="strategy=budget memory-budget=0.7peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=SEVENTY

// The peak without recomputation is 6 B; nothing is recomputed at 1.0.
// FULL: "budget_bytes": 6
// FULL: "peak_memory_bytes": 6
// FULL: "total_duration_increase": 0,

// floor(0.7 x 6) = 4 B: two ops re-run, TDI 2/9.
// SEVENTY: "budget_bytes": 4
// SEVENTY: "peak_memory_bytes": 4
// SEVENTY: "predicted_recompute_time_us": 2
// SEVENTY: "total_duration_increase": 0.222222

// 3 B: six re-evaluations (a value recomputed more than once), TDI 6/9.
// HALF: "budget_bytes": 3
// HALF: "predicted_recompute_time_us": 6
// HALF: "total_duration_increase": 0.666666

//--- linear.json
{"directed": true,
 "nodes": [{"id": 0, "name": "f0", "backward": false, "cost_cpu": 1, "cost_ram": 1},
           {"id": 1, "name": "f1", "backward": false, "cost_cpu": 1, "cost_ram": 1},
           {"id": 2, "name": "f2", "backward": false, "cost_cpu": 1, "cost_ram": 1},
           {"id": 3, "name": "f3", "backward": false, "cost_cpu": 1, "cost_ram": 1},
           {"id": 4, "name": "loss_grad", "backward": true, "cost_cpu": 1, "cost_ram": 1},
           {"id": 5, "name": "b3", "backward": true, "cost_cpu": 1, "cost_ram": 1},
           {"id": 6, "name": "b2", "backward": true, "cost_cpu": 1, "cost_ram": 1},
           {"id": 7, "name": "b1", "backward": true, "cost_cpu": 1, "cost_ram": 1},
           {"id": 8, "name": "b0", "backward": true, "cost_cpu": 1, "cost_ram": 1}],
 "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2}, {"source": 2, "target": 3},
           {"source": 3, "target": 4}, {"source": 4, "target": 5}, {"source": 3, "target": 5},
           {"source": 5, "target": 6}, {"source": 2, "target": 6},
           {"source": 6, "target": 7}, {"source": 1, "target": 7},
           {"source": 7, "target": 8}, {"source": 0, "target": 8}]}
