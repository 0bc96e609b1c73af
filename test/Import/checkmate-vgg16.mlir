// Import Checkmate's VGG16 training graph and plan it with a budget given as
// a fraction of the no-recompute peak.

// RUN: remat-translate --import-checkmate-json %shared_data/checkmate/VGG16_b256_224x224_train.json -o %t.mlir
// RUN: FileCheck %s --check-prefix=IMPORT < %t.mlir
// RUN: remat-opt %t.mlir -remat-plan="strategy=save-all" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=PEAK
// RUN: remat-opt %t.mlir -remat-plan="strategy=budget memory-budget=0.9peak" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=BUDGET
// RUN: not remat-opt %t.mlir -remat-plan="strategy=budget memory-budget=0.8peak" -o /dev/null -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=TIGHT

// 45 nodes, one op each; forward nodes first, then backward (explicit
// phases, no tangent argument); the one sink is the input's gradient.
// IMPORT: func.func @VGG16_b256_224x224_train() -> (tensor<3288334336xi8> {remat.role = "grad"}) attributes {remat.graph = "joint"}
// IMPORT-NEXT: remat.opaque "block1_conv1"() {remat.fixed_time_us = 3.850000e+02 : f64, remat.name = "block1_conv1", remat.phase = "forward"} : () -> tensor<3288334336xi8>
// IMPORT-COUNT-44: remat.opaque
// IMPORT-NOT: remat.opaque
// IMPORT: return

// The save-all peak is the data README's topological peak, and the time of
// one evaluation of every op its total cost_cpu (15,500).
// PEAK: "peak_memory_bytes": 15825108992
// PEAK: "predicted_total_time_us": 15500
// PEAK: "total_duration_increase": 0

// Budget = floor(0.9 x 15,825,108,992). checkmate-graphs.test checks the
// peak against the budget and the TDI against the recompute time.
// BUDGET: "strategy": "budget"
// BUDGET: "budget_bytes": 14242598092
// BUDGET: "total_duration_increase":

// At 0.8 no plan fits; the error names the smallest budget that does, which
// is also the smallest any schedule meets (strategy=optimal says the same).
// TIGHT: error: remat-plan: cannot plan 'VGG16_b256_224x224_train' with strategy=budget: memory budget 11.8 GiB (12660087193 bytes) is infeasible: the smallest activation peak the budget strategy reaches is 12.2 GiB (13153337344 bytes
