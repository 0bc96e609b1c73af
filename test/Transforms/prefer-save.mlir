// remat.prefer_save, end to end: min-cut and budget keep what they would
// otherwise recompute, a checkpoint policy wins over the tag without an
// error, and budget drops the tag only when no plan honouring it fits the
// budget (the reason says which tag yielded and why). Unit tests:
// unittests/Core/PreferTagsTest.cpp.
// RUN: remat-opt %s -remat-plan=exchange-rate=0 | FileCheck %s --check-prefix=MINCUT
// RUN: remat-opt %s -remat-plan="policy=nothing_saveable exchange-rate=0" | FileCheck %s --check-prefix=POLICY
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:1KiB" | FileCheck %s --check-prefix=ROOMY
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:128B" | FileCheck %s --check-prefix=TIGHT
// The plan records that the tags were dropped (remat.plan, remat-report).
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:1KiB" -remat-report -o /dev/null | FileCheck %s --check-prefix=ROOMY-JSON
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:1KiB" -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=ROOMY-TEXT
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:128B" -remat-report -o /dev/null | FileCheck %s --check-prefix=TIGHT-JSON
// RUN: remat-opt %s -remat-plan="strategy=budget memory-budget=activations:128B" -remat-report=format=text -o /dev/null | FileCheck %s --check-prefix=TIGHT-TEXT

// A chain of cheap pointwise ops whose backward reads every intermediate.
// Untagged, min-cut replays e1 and e2 from the input
// (test/Transforms/remat-plan.mlir); prefer_save keeps e1.
// MINCUT: remat.decision = ["save"], remat.name = "e1", remat.prefer_save, remat.reason = ["saved: recomputing it needs pointwise e1 which is prefer_save"]
// MINCUT: remat.decision = ["recompute"], remat.name = "e2", remat.reason = ["recomputed from e1 (cheaper than saving 32 B); the replay fuses into pointwise remat.mul#4"]

// POLICY: remat.decision = ["recompute"], remat.name = "e1", remat.prefer_save, remat.reason = ["recomputed from %arg0: checkpoint policy nothing_saveable does not save it; the replay fuses into pointwise remat.mul#5"]

// ROOMY-NOT: preferences_dropped
// ROOMY: remat.decision = ["save"], remat.name = "e1", remat.prefer_save, remat.reason = ["saved: recomputing it needs pointwise e1 which is prefer_save"]
// ROOMY: remat.decision = ["save"], remat.name = "e2", remat.reason = ["saved: the budget (1 KiB) has room for it, and recomputing it would cost 4.78e-07 us"]

// 128 B is the untagged chain's smallest budget: met only by recomputing e1.
// TIGHT: budget_bytes = 128 : i64
// TIGHT-SAME: preferences_dropped = true
// TIGHT: remat.decision = ["recompute"], remat.name = "e1", remat.prefer_save, remat.reason = ["recomputed from %arg0 (cheaper than saving 32 B; costs 4.78e-07 us to fit the budget; its prefer_save tag yields, as no plan honouring the prefer_* tags fits the budget); the replay fuses into pointwise remat.mul#5"]

// ROOMY-JSON:      "uses_inexact_derivation": false,
// ROOMY-JSON-NEXT: "preferences_dropped": false,
// ROOMY-TEXT:      inexact derivation:  not allowed
// ROOMY-TEXT-NOT:  prefer_* tags:
// ROOMY-TEXT:      VALUE
// TIGHT-JSON:      "uses_inexact_derivation": false,
// TIGHT-JSON-NEXT: "preferences_dropped": true,
// TIGHT-TEXT:      inexact derivation:  not allowed
// TIGHT-TEXT-NEXT: prefer_* tags:       dropped (no plan honouring them fits the budget)
// TIGHT-TEXT-EMPTY:
// TIGHT-TEXT-NEXT: VALUE

func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e1 = remat.exp %x {remat.name = "e1", remat.prefer_save} : tensor<8xf32>
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}
