// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-report -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=0.0" -remat-report="output=%t.budget.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=BUDGET < %t.budget.json
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=0.0" -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=BUDGET-TEXT
// RUN: remat-opt %s -remat-plan="policy=dots_saveable exchange-rate=0" -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=POLICY

// The report is byte-identical from run to run (CI diffs it).
// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-report="output=%t.1.json" -o /dev/null
// RUN: remat-opt %s -remat-plan=exchange-rate=0 -remat-report="output=%t.2.json" -o /dev/null
// RUN: diff %t.1.json %t.2.json

// Errors.
// RUN: not remat-opt %s -remat-plan -remat-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-FORMAT
// RUN: not remat-opt %s -remat-plan -remat-report=output=%t.missing/dir/report.json -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD-OUTPUT
// RUN: not remat-opt %s -remat-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPLANNED
// RUN: not remat-opt %s -remat-plan -remat-partition -remat-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARTITIONED

// Two planned functions: a JSON array, in module order.
// JSON:      [
// JSON-NEXT:   {
// JSON-NEXT:     "function": "exp_chain",
// JSON-NEXT:     "strategy": "min-cut",
// JSON-NEXT:     "target": "h100",
// JSON-NEXT:     "policy": null,
// JSON-NEXT:     "budget_bytes": null,
// JSON-NEXT:     "budget_total_bytes": null,
// JSON-NEXT:     "peak_memory_bytes": 160,
// JSON-NEXT:     "total_peak_bytes": 224,
// JSON-NEXT:     "saved_bytes": 32,
// JSON-NEXT:     "saved_input_bytes": 32,
// JSON-NEXT:     "input_bytes": 32,
// JSON-NEXT:     "parameter_bytes": 0,
// JSON-NEXT:     "tangent_bytes": 32,
// JSON-NEXT:     "recompute_flops": 64,
// JSON-NEXT:     "predicted_recompute_time_us": {{[0-9.e+-]+}},
// JSON-NEXT:     "predicted_total_time_us": {{[0-9.e+-]+}},
// JSON-NEXT:     "total_duration_increase": {{[0-9.e+-]+}},
// JSON-NEXT:     "allow_inexact_derivation": false,
// JSON-NEXT:     "uses_inexact_derivation": false,
// JSON-NEXT:     "preferences_dropped": false,
// JSON-NEXT:     "bans_lifted": false,
// JSON-NEXT:     "exchange_rate_bytes_per_us": 0,
// JSON-NEXT:     "budget_search_effort": null,
// JSON-NEXT:     "schedule_plans": null,
// JSON-NEXT:     "lower_bound_time_us": null,
// JSON-NEXT:     "lower_bound_kind": null,
// JSON-NEXT:     "optimality_gap": null,
// JSON-NEXT:     "lower_bound_stopped": false,
// JSON-NEXT:     "values": [
// JSON-NEXT:       {
// JSON-NEXT:         "name": "%arg0",
// JSON-NEXT:         "op": "argument",
// JSON-NEXT:         "shape": [
// JSON-NEXT:           8
// JSON-NEXT:         ],
// JSON-NEXT:         "dtype": "f32",
// JSON-NEXT:         "bytes": 32,
// JSON-NEXT:         "decision": "input",
// JSON-NEXT:         "reason": "input: a recomputation in backward reads this function input",
// JSON-NEXT:         "read_by": "recomputation",
// JSON-NEXT:         "compute_class": "none",
// JSON-NEXT:         "tags": []
// JSON-NEXT:       },
// JSON-NEXT:       {
// JSON-NEXT:         "name": "e1",
// JSON-NEXT:         "op": "remat.exp",
// JSON:              "decision": "recompute",
// JSON-NEXT:         "reason": "recomputed from %arg0: tagged prefer_recompute; the replay fuses into pointwise remat.mul#5",
// JSON-NEXT:         "compute_class": "pointwise",
// JSON-NEXT:         "tags": [
// JSON-NEXT:           "prefer_recompute"
// JSON-NEXT:         ]
// JSON:              "name": "y",
// JSON:              "decision": "save",
// JSON:          "function": "tagged_matmul",
// JSON:              "name": "%arg0",
// JSON:              "reason": "input: backward reads this function input",
// JSON-NEXT:         "read_by": "backward",
// Every primal argument is listed, also one nothing in backward reads (the
// weight: backward reads the saved projection), so that reports of one graph
// under different plans list the same values.
// JSON:              "name": "%arg1",
// JSON-NEXT:         "op": "argument",
// JSON:              "decision": "input",
// JSON-NEXT:         "reason": "parameter: always available; neither backward nor a recomputation reads it",
// JSON-NEXT:         "read_by": "none",
// JSON:              "name": "proj",
// JSON-NEXT:         "op": "remat.matmul",
// JSON-NEXT:         "shape": [
// JSON-NEXT:           4,
// JSON-NEXT:           4
// JSON-NEXT:         ],
// JSON-NEXT:         "dtype": "bf16",
// JSON-NEXT:         "bytes": 32,
// JSON-NEXT:         "decision": "save",
// JSON-NEXT:         "reason": "saved: recomputing it needs matmul proj which is no_auto_recompute",
// JSON-NEXT:         "compute_class": "matmul",
// JSON-NEXT:         "tags": [
// JSON-NEXT:           "no_auto_recompute"
// JSON-NEXT:         ]
// JSON:      ]

// TEXT:      remat plan for @exp_chain
// TEXT-NEXT:   strategy:            min-cut
// TEXT-NEXT:   target:              h100
// TEXT-NEXT:   policy:              none
// TEXT-NEXT:   budget:              none
// TEXT-NEXT:   peak memory:         160 B
// TEXT-NEXT:   total peak:          224 B (with the inputs, parameters and tangents)
// TEXT-NEXT:   saved for backward:  32 B, of which 32 B graph inputs
// TEXT-NEXT:   recompute:           64 FLOPs, 0.000 us predicted (total duration +0.000%)
// TEXT-NEXT:   inexact derivation:  not allowed
// TEXT-NEXT:   exchange rate:       0 (min-cut weighs saved bytes alone)
// TEXT-EMPTY:
// TEXT-NEXT:   VALUE  DECISION   BYTES  SHAPE  OP         REASON
// TEXT-NEXT:   %arg0  input      32 B   8xf32  argument   input: a recomputation in backward reads this function input
// TEXT-NEXT:   e1     recompute  32 B   8xf32  remat.exp  recomputed from %arg0: tagged prefer_recompute; the replay fuses into pointwise remat.mul#5
// TEXT-NEXT:   e2     recompute  32 B   8xf32  remat.exp  recomputed from e1 (cheaper than saving 32 B); the replay fuses into pointwise remat.mul#4
// TEXT-NEXT:   y      save       32 B   8xf32  remat.exp  saved: it is a function result, live until the end anyway
// TEXT-EMPTY:
// TEXT-NEXT: remat plan for @tagged_matmul
// TEXT:        VALUE  DECISION  BYTES  SHAPE     OP            REASON
// TEXT-NEXT:   %arg0  input     32 B   4x4xbf16  argument      input: backward reads this function input
// TEXT-NEXT:   %arg1  input     32 B   4x4xbf16  argument      parameter: always available; neither backward nor a recomputation reads it
// TEXT-NEXT:   proj   save

// BUDGET:      "function": "exp_chain",
// BUDGET-NEXT: "strategy": "budget",
// BUDGET:      "budget_bytes": 128,
// BUDGET-NEXT: "budget_total_bytes": null,
// BUDGET-NEXT: "peak_memory_bytes": 128,
// BUDGET:      "lower_bound_time_us": {{[0-9.e+-]+}},
// BUDGET-NEXT: "lower_bound_kind": "{{evaluate-once|backward-lp}}",
// BUDGET-NEXT: "optimality_gap": {{[0-9.e+-]+}},
// BUDGET-NEXT: "lower_bound_stopped": false,

// BUDGET-TEXT: strategy:            budget
// BUDGET-TEXT: lower bound:         {{[0-9.]+}} us total ({{evaluate-once|backward-lp}}), optimality gap {{[0-9.]+}}%

// POLICY: policy:              dots_saveable
// POLICY: proj   save      32 B   4x4xbf16  remat.matmul  saved: checkpoint policy dots_saveable saves it

// BAD-FORMAT: error: remat-report: bad option format=xml; expected json or text
// BAD-OUTPUT: error: remat-report: cannot write output={{.*}}report.json
// UNPLANNED: error: remat-report: function 'exp_chain' is a joint graph without a plan; run -remat-plan first
// PARTITIONED: error: remat-report: no planned joint function in the module; run -remat-plan first (and report before -remat-partition, which replaces the joint function unless keep-joint=true)

func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1", remat.prefer_recompute} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}

func.func @tagged_matmul(%x: tensor<4x4xbf16> {remat.role = "input"},
                         %w: tensor<4x4xbf16> {remat.role = "param"},
                         %dy: tensor<4x4xbf16> {remat.role = "tangent"})
    -> (tensor<4x4xbf16> {remat.role = "output"},
        tensor<4x4xbf16> {remat.role = "grad", remat.grad_of = 1})
    attributes {remat.graph = "joint"} {
  %p = remat.matmul %x, %w {remat.name = "proj", remat.no_auto_recompute} : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %y = remat.tanh %p {remat.name = "act"} : tensor<4x4xbf16>
  %g = remat.tanh_backward %dy, %y : tensor<4x4xbf16>
  %h = remat.mul %g, %p : tensor<4x4xbf16>
  %dw = remat.matmul %x, %h {transpose_a} : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
  return %y, %dw : tensor<4x4xbf16>, tensor<4x4xbf16>
}
