// The remat dialect's discardable attributes. valid.mlir round-trips every
// tag, name, graph form and role (custom and generic form), on our ops and on
// upstream ops; plan-valid.mlir does the same for the plan attributes that
// remat-plan and remat-partition write. invalid.mlir and plan-invalid.mlir
// have one expected-error case for every message of verifyOperationAttribute,
// verifyRegionArgAttribute and verifyRegionResultAttribute.
//
// RUN: split-file %s %t
// RUN: remat-opt %t/valid.mlir | remat-opt | FileCheck %t/valid.mlir
// RUN: remat-opt %t/valid.mlir -mlir-print-op-generic | remat-opt | FileCheck %t/valid.mlir
// RUN: remat-opt %t/invalid.mlir -split-input-file -verify-diagnostics
// RUN: remat-opt %t/plan-valid.mlir | remat-opt | FileCheck %t/plan-valid.mlir --check-prefix=PLAN
// RUN: remat-opt %t/plan-valid.mlir -mlir-print-op-generic | remat-opt | FileCheck %t/plan-valid.mlir --check-prefix=PLAN
// RUN: remat-opt %t/plan-invalid.mlir -split-input-file -verify-diagnostics
// RUN: remat-opt %t/import-valid.mlir | remat-opt | FileCheck %t/import-valid.mlir --check-prefix=IMPORT
// RUN: remat-opt %t/import-invalid.mlir -split-input-file -verify-diagnostics

//--- valid.mlir

// CHECK-LABEL: func.func @every_tag
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.never_recompute} : tensor<8xf32>
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.no_auto_recompute} : tensor<8xf32>
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.must_recompute} : tensor<8xf32>
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.prefer_recompute} : tensor<8xf32>
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.prefer_save} : tensor<8xf32>
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.name = "mlpwo"} : tensor<8xf32>
func.func @every_tag(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = remat.add %a, %a {remat.never_recompute} : tensor<8xf32>
  %1 = remat.add %0, %a {remat.no_auto_recompute} : tensor<8xf32>
  %2 = remat.add %1, %a {remat.must_recompute} : tensor<8xf32>
  %3 = remat.add %2, %a {remat.prefer_recompute} : tensor<8xf32>
  %4 = remat.add %3, %a {remat.prefer_save} : tensor<8xf32>
  %5 = remat.add %4, %a {remat.name = "mlpwo"} : tensor<8xf32>
  return %5 : tensor<8xf32>
}

// Tags that do not contradict each other combine: a name with any tag, a hard
// tag with a preference in the same direction, never_recompute with
// no_auto_recompute (the stronger one wins in the planner).
// CHECK-LABEL: func.func @compatible_tags
// CHECK: remat.matmul %{{.*}}, %{{.*}} {remat.name = "query_proj", remat.never_recompute, remat.no_auto_recompute, remat.prefer_save}
// CHECK: remat.add %{{.*}}, %{{.*}} {remat.must_recompute, remat.name = "residual", remat.prefer_recompute}
func.func @compatible_tags(%a: tensor<4x4xbf16>) -> tensor<4x4xbf16> {
  %0 = remat.matmul %a, %a {remat.name = "query_proj", remat.never_recompute, remat.no_auto_recompute, remat.prefer_save}
      : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
  %1 = remat.add %0, %a {remat.must_recompute, remat.name = "residual", remat.prefer_recompute} : tensor<4x4xbf16>
  return %1 : tensor<4x4xbf16>
}

// A tool that sets tags says why in remat.tag_note (quoted in the reasons).
// CHECK-LABEL: func.func @tag_note
// CHECK: remat.opaque "call"(%{{.*}}) {remat.never_recompute, remat.tag_note = "an exporter's call op"}
func.func @tag_note(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = remat.opaque "call"(%a) {remat.never_recompute, remat.tag_note = "an exporter's call op"} : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// Tags and names are valid on upstream ops too, so linalg-on-tensors programs
// from other compilers can be tagged without converting them.
// CHECK-LABEL: func.func @upstream_ops
// CHECK: arith.addf %{{.*}}, %{{.*}} {remat.name = "x", remat.no_auto_recompute} : tensor<8xf32>
// CHECK: math.exp %{{.*}} {remat.must_recompute} : tensor<8xf32>
// CHECK: tensor.empty() {remat.prefer_save} : tensor<4x4xf32>
// CHECK: linalg.matmul {remat.name = "out_proj", remat.never_recompute}
// CHECK: remat.opaque "all_reduce"(%{{.*}}) {compute_class = "collective", remat.prefer_recompute}
func.func @upstream_ops(%a: tensor<8xf32>, %m: tensor<4x4xf32>) -> (tensor<8xf32>, tensor<4x4xf32>) {
  %0 = arith.addf %a, %a {remat.name = "x", remat.no_auto_recompute} : tensor<8xf32>
  %1 = math.exp %0 {remat.must_recompute} : tensor<8xf32>
  %init = tensor.empty() {remat.prefer_save} : tensor<4x4xf32>
  %2 = linalg.matmul {remat.name = "out_proj", remat.never_recompute}
      ins(%m, %m : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %3 = remat.opaque "all_reduce"(%2) {compute_class = "collective", remat.prefer_recompute}
      : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1, %3 : tensor<8xf32>, tensor<4x4xf32>
}

// The joint form: every argument and result has a role; gradients say which
// argument they belong to.
// CHECK-LABEL: func.func @joint
// CHECK-SAME: %{{.*}}: tensor<4x4xf32> {remat.role = "input"}
// CHECK-SAME: %{{.*}}: tensor<4x4xf32> {remat.role = "param"}
// CHECK-SAME: %{{.*}}: tensor<2xi64> {remat.role = "rng"}
// CHECK-SAME: %{{.*}}: tensor<4x4xf32> {remat.role = "tangent"}
// CHECK-SAME: -> (tensor<4x4xf32> {remat.role = "output"}, tensor<4x4xf32> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<4x4xf32> {remat.grad_of = 1 : i64, remat.role = "grad"})
// CHECK-SAME: attributes {remat.graph = "joint"}
func.func @joint(%x: tensor<4x4xf32> {remat.role = "input"},
                 %w: tensor<4x4xf32> {remat.role = "param"},
                 %seed: tensor<2xi64> {remat.role = "rng"},
                 %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 0},
        tensor<4x4xf32> {remat.role = "grad", remat.grad_of = 1})
    attributes {remat.graph = "joint"} {
  %y = remat.matmul %x, %w {remat.name = "query_proj"}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dx = remat.matmul %dy, %w {transpose_b}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %dw = remat.matmul %x, %dy {transpose_a}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y, %dx, %dw : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// The forward form: no tangents, no gradients. Arguments may be named.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: {remat.name = "tokens", remat.role = "input"}
// CHECK-SAME: {remat.role = "param"}
// CHECK-SAME: -> (tensor<4x4xf32> {remat.role = "output"})
// CHECK-SAME: attributes {remat.graph = "forward"}
func.func @forward(%x: tensor<4x4xf32> {remat.role = "input", remat.name = "tokens"},
                   %w: tensor<4x4xf32> {remat.role = "param"})
    -> (tensor<4x4xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %y = remat.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// Roles are verified on their own, so a function outside the graph forms
// (e.g. a helper) may carry them too.
// CHECK-LABEL: func.func private @declaration
// CHECK-SAME: (tensor<8xf32> {remat.role = "input"}) -> (tensor<8xf32> {remat.role = "output"})
func.func private @declaration(tensor<8xf32> {remat.role = "input"}) -> (tensor<8xf32> {remat.role = "output"})

//--- invalid.mlir

func.func @tag_note_not_a_string(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.tag_note' must be a non-empty string saying why the op carries its tags, e.g. {remat.never_recompute, remat.tag_note = "an exporter's call op"}}}
  %0 = remat.add %a, %a {remat.never_recompute, remat.tag_note = 1 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @tag_note_empty(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.tag_note' must be a non-empty string}}
  %0 = remat.add %a, %a {remat.must_recompute, remat.tag_note = ""} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @tag_note_without_a_tag(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.tag_note' explains the op's tags, but it has none; add the tag it explains or drop the note}}
  %0 = remat.add %a, %a {remat.name = "x", remat.tag_note = "why"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @tag_with_value(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.never_recompute' is a tag and takes no value; write it as a unit attribute, e.g. {remat.never_recompute}}}
  %0 = remat.add %a, %a {remat.never_recompute = true} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @tag_with_value_upstream(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.no_auto_recompute' is a tag and takes no value; write it as a unit attribute, e.g. {remat.no_auto_recompute}}}
  %0 = arith.addf %a, %a {remat.no_auto_recompute = "yes"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @must_tag_with_value(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.must_recompute' is a tag and takes no value; write it as a unit attribute, e.g. {remat.must_recompute}}}
  %0 = remat.add %a, %a {remat.must_recompute = 1 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @prefer_recompute_with_value(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.prefer_recompute' is a tag and takes no value; write it as a unit attribute, e.g. {remat.prefer_recompute}}}
  %0 = remat.add %a, %a {remat.prefer_recompute = false} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @prefer_save_with_value(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.prefer_save' is a tag and takes no value; write it as a unit attribute, e.g. {remat.prefer_save}}}
  %0 = remat.add %a, %a {remat.prefer_save = "x"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @never_and_must(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.must_recompute' requires it; remove one of them}}
  %0 = remat.add %a, %a {remat.never_recompute, remat.must_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @never_and_must_upstream(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.must_recompute' requires it; remove one of them}}
  %0 = math.exp %a {remat.must_recompute, remat.never_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @both_preferences(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.prefer_recompute' and 'remat.prefer_save'; keep at most one preference}}
  %0 = remat.add %a, %a {remat.prefer_save, remat.prefer_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @never_and_prefer_recompute(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.prefer_recompute' asks for it; remove one of them}}
  %0 = remat.add %a, %a {remat.never_recompute, remat.prefer_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @must_and_prefer_save(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{contradictory tags: 'remat.must_recompute' requires recomputation but 'remat.prefer_save' asks to save; remove one of them}}
  %0 = remat.add %a, %a {remat.must_recompute, remat.prefer_save} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @empty_name(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.name' must be a non-empty string, e.g. {remat.name = "query_proj"}}}
  %0 = remat.add %a, %a {remat.name = ""} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @name_not_a_string(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.name' must be a non-empty string, e.g. {remat.name = "query_proj"}}}
  %0 = arith.mulf %a, %a {remat.name = 7 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.graph' must be "joint" or "forward"}}
func.func @unknown_graph_form(%a: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "backward"} {
  return %a : tensor<8xf32>
}

// -----

func.func @graph_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.graph' is only valid on a function}}
  %0 = remat.add %a, %a {remat.graph = "joint"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #1 of a remat.graph = "joint" function has no 'remat.role'; mark it with {remat.role = "input"}, "param", "tangent" or "rng"}}
func.func @joint_argument_without_role(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32>)
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}

// -----

// A forward function has no tangents, so the hint leaves "tangent" out.
// expected-error @+1 {{argument #0 of a remat.graph = "forward" function has no 'remat.role'; mark it with {remat.role = "input"}, "param" or "rng"}}
func.func @forward_argument_without_role(%a: tensor<8xf32>)
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #1 is a tangent, but a remat.graph = "forward" function has no tangents; use remat.graph = "joint"}}
func.func @tangent_in_forward(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "forward"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #1 of a remat.graph = "joint" function has no 'remat.role'; mark it with {remat.role = "output"} or {remat.role = "grad"}}}
func.func @joint_result_without_role(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"}, tensor<8xf32>) attributes {remat.graph = "joint"} {
  return %a, %t : tensor<8xf32>, tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 of a remat.graph = "forward" function has no 'remat.role'; mark it with {remat.role = "output"}}}
func.func @forward_result_without_role(%a: tensor<8xf32> {remat.role = "input"})
    -> tensor<8xf32> attributes {remat.graph = "forward"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #1 is a gradient, but a remat.graph = "forward" function returns no gradients; use remat.graph = "joint"}}
func.func @grad_in_forward(%a: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}, tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "forward"} {
  return %a, %a : tensor<8xf32>, tensor<8xf32>
}

// -----

// expected-error @+1 {{a remat.graph = "joint" function needs at least one argument with {remat.role = "tangent"} (the cotangent of its output)}}
func.func @joint_without_tangent(%a: tensor<8xf32> {remat.role = "input"})
    -> (tensor<8xf32> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}

// -----

func.func @role_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.role' belongs on function arguments or results, not on an operation}}
  %0 = remat.add %a, %a {remat.role = "input"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @grad_of_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.grad_of' belongs on function arguments or results, not on an operation}}
  %0 = arith.addf %a, %a {remat.grad_of = 0 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @misspelled_tag(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{unknown remat attribute 'remat.dont_recompute'; known: never_recompute, no_auto_recompute, must_recompute, prefer_recompute, prefer_save, tag_note, name, graph}}
  %0 = remat.add %a, %a {remat.dont_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.never_recompute' is not valid on argument #0; only 'remat.role' and 'remat.name' are accepted there}}
func.func @tag_on_argument(%a: tensor<8xf32> {remat.never_recompute}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #0: 'remat.name' must be a non-empty string, e.g. {remat.name = "tokens"}}}
func.func @empty_name_on_argument(%a: tensor<8xf32> {remat.name = ""}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #1 has unknown role 'weight'; expected "input", "param", "tangent" or "rng"}}
func.func @unknown_argument_role(%a: tensor<8xf32> {remat.role = "input"}, %w: tensor<8xf32> {remat.role = "weight"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 has unknown role 'input'; expected "output" or "grad"}}
func.func @input_role_on_result(%a: tensor<8xf32>) -> (tensor<8xf32> {remat.role = "input"}) {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0: 'remat.grad_of' must be the index of a function argument}}
func.func @grad_of_out_of_range(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "grad", remat.grad_of = 2}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0: 'remat.grad_of' must be the index of a function argument}}
func.func @grad_of_not_an_integer(%a: tensor<8xf32>) -> (tensor<8xf32> {remat.grad_of = "a"}) {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.prefer_save' is not valid on result #0; only 'remat.role' and 'remat.grad_of' are}}
func.func @tag_on_result(%a: tensor<8xf32>) -> (tensor<8xf32> {remat.prefer_save}) {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{argument #0: 'remat.role' must be a string, e.g. {remat.role = "param"}}}
func.func @argument_role_not_a_string(%a: tensor<8xf32> {remat.role = 3}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0: 'remat.role' must be a string, e.g. {remat.role = "grad"}}}
func.func @result_role_not_a_string(%a: tensor<8xf32>) -> (tensor<8xf32> {remat.role = 3}) {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 has 'remat.grad_of' but role 'output'; only a {remat.role = "grad"} result is a gradient}}
func.func @grad_of_on_output(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output", remat.grad_of = 0}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 is the gradient of argument #1, whose role is 'tangent'; gradients are of "input" or "param" arguments}}
func.func @grad_of_tangent(%a: tensor<8xf32> {remat.role = "input"}, %t: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "grad", remat.grad_of = 1}) attributes {remat.graph = "joint"} {
  return %a : tensor<8xf32>
}

//--- plan-valid.mlir

// The plan attributes that remat-plan and remat-partition write: per-result
// decisions, reasons and derivations on ops, decisions on the arguments the
// backward reads, the plan summary on the function, and the stage and
// saved-value order of partitioned functions.
// PLAN-LABEL: func.func @planned
// PLAN-SAME: {remat.decision = ["input"], remat.reason = ["function input"], remat.role = "input"}
// PLAN-SAME: remat.plan = {peak_memory_bytes = 256 : i64, strategy = "min-cut", target = "h100"}
// PLAN: remat.matmul {{.*}} {remat.decision = ["save"], remat.name = "h", remat.reason = ["saved: recomputing it needs matmul h"]}
// PLAN: remat.add {{.*}} {remat.decision = ["derive"], remat.derivation = [{exact = false, from = ["z", "skip"], kind = "subtract-other", operand = 0 : i64, via = "z"}], remat.reason = ["derived as z - skip"]}
// PLAN: remat.sdpa {{.*}} {causal, remat.decision = ["save", "not-needed"], remat.derivation = [unit, unit], remat.reason = ["saved", "not read by backward"]}
func.func @planned(%x: tensor<4x4xf32> {remat.role = "input", remat.decision = ["input"], remat.reason = ["function input"]},
                   %skip: tensor<4x4xf32> {remat.role = "input"},
                   %q: tensor<1x1x4x4xf32> {remat.role = "input"},
                   %dy: tensor<4x4xf32> {remat.role = "tangent"})
    -> (tensor<4x4xf32> {remat.role = "output"}, tensor<1x1x4x4xf32> {remat.role = "output"})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "min-cut", target = "h100", peak_memory_bytes = 256 : i64}} {
  %h = remat.matmul %x, %x {remat.name = "h", remat.decision = ["save"], remat.reason = ["saved: recomputing it needs matmul h"]}
      : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %z = remat.add %h, %skip {remat.decision = ["derive"], remat.reason = ["derived as z - skip"],
      remat.derivation = [{via = "z", operand = 0, kind = "subtract-other", from = ["z", "skip"], exact = false}]} : tensor<4x4xf32>
  %o, %lse = remat.sdpa %q, %q, %q scale = 0.5 {causal, remat.decision = ["save", "not-needed"],
      remat.reason = ["saved", "not read by backward"], remat.derivation = [unit, unit]}
      : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4xf32>)
  return %z, %o : tensor<4x4xf32>, tensor<1x1x4x4xf32>
}

// PLAN-LABEL: func.func @planned_forward
// PLAN-SAME: attributes {remat.saved_values = ["h", "z"], remat.stage = "forward"}
func.func @planned_forward(%x: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {remat.stage = "forward", remat.saved_values = ["h", "z"]} {
  return %x : tensor<4x4xf32>
}

//--- plan-invalid.mlir

func.func @decision_count(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.decision' on an operation must be an array of 1 string(s), one per value}}
  %0 = remat.add %a, %a {remat.decision = ["save", "save"]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{result #0 is the gradient of argument #0 but has type 'tensor<4xf32>'; a gradient has its argument's type, 'tensor<3xf32>'}}
func.func @grad_of_other_type(%a: tensor<3xf32> {remat.role = "input"}, %t: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad", remat.grad_of = 0}) attributes {remat.graph = "joint"} {
  return %t : tensor<4xf32>
}

// -----

func.func @unknown_decision(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.decision' has unknown decision 'keep'; expected save, recompute, derive, not-needed or input}}
  %0 = remat.add %a, %a {remat.decision = ["keep"]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @reason_not_strings(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.reason' on an operation must be an array of 1 string(s), one per value}}
  %0 = arith.addf %a, %a {remat.reason = [1]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.decision' on argument #0 must be an array of 1 string(s), one per value}}
func.func @argument_decision(%a: tensor<8xf32> {remat.decision = "save"}) -> tensor<8xf32> {
  return %a : tensor<8xf32>
}

// -----

func.func @derivation_count(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.derivation' must be an array with one entry per result (1)}}
  %0 = remat.add %a, %a {remat.decision = ["derive"], remat.derivation = []} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @derivation_missing_field(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.derivation' entry #0 must be unit or a dictionary with via (string), operand (integer), kind (string), from (array) and exact (bool)}}
  %0 = remat.add %a, %a {remat.decision = ["derive"], remat.derivation = [{via = "z", operand = 0}]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @derivation_without_derive(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.derivation' entry #0 describes a derivation, but the result's 'remat.decision' is not "derive"}}
  %0 = remat.add %a, %a {remat.decision = ["save"], remat.derivation = [{via = "z", operand = 0, kind = "subtract-other", from = ["z", "a"], exact = false}]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @plan_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.plan' is only valid on a function}}
  %0 = remat.add %a, %a {remat.plan = {strategy = "min-cut", target = "h100", peak_memory_bytes = 0}} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @stage_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.stage' is only valid on a function}}
  %0 = remat.add %a, %a {remat.stage = "forward"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @saved_values_on_an_op(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.saved_values' is only valid on a function}}
  %0 = remat.add %a, %a {remat.saved_values = ["a"]} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.plan' must be a dictionary with at least strategy (string), target (string) and peak_memory_bytes (integer); it is written by -remat-plan}}
func.func @plan_without_peak(%a: tensor<8xf32>) -> tensor<8xf32>
    attributes {remat.plan = {strategy = "min-cut", target = "h100"}} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.stage' must be "forward" or "backward"}}
func.func @unknown_stage(%a: tensor<8xf32>) -> tensor<8xf32> attributes {remat.stage = "joint"} {
  return %a : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.saved_values' must be an array of value names}}
func.func @saved_values_not_names(%a: tensor<8xf32>) -> tensor<8xf32> attributes {remat.saved_values = [1, 2]} {
  return %a : tensor<8xf32>
}

//--- import-valid.mlir

// Graphs imported with profiled facts (e.g. Checkmate's JSON) state each op's
// phase, measured time and kernel workspace; a joint function whose ops carry a phase needs no
// tangent argument.
// IMPORT-LABEL: func.func @imported
// IMPORT-SAME: attributes {remat.graph = "joint"}
// IMPORT: remat.exp %arg0 {remat.fixed_time_us = 1.250000e+01 : f64, remat.phase = "forward"}
// IMPORT: remat.mul %{{.*}}, %{{.*}} {remat.phase = "backward", remat.workspace_bytes = 64 : i64}
func.func @imported(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "joint"} {
  %a = remat.exp %x {remat.phase = "forward", remat.fixed_time_us = 12.5 : f64} : tensor<4xf32>
  %b = remat.mul %a, %a {remat.phase = "backward", remat.workspace_bytes = 64 : i64} : tensor<4xf32>
  return %b : tensor<4xf32>
}

//--- import-invalid.mlir

func.func @unknown_phase(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.phase' must be "forward" or "backward", e.g. {remat.phase = "backward"}}}
  %0 = remat.add %a, %a {remat.phase = "middle"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @negative_time(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.fixed_time_us' must be a finite non-negative float (a measured time in microseconds), e.g. {remat.fixed_time_us = 12.5 : f64}}}
  %0 = remat.add %a, %a {remat.fixed_time_us = -1.0 : f64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @infinite_time(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.fixed_time_us' must be a finite non-negative float (a measured time in microseconds), e.g. {remat.fixed_time_us = 12.5 : f64}}}
  %0 = remat.add %a, %a {remat.fixed_time_us = 0x7FF0000000000000 : f64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @time_not_a_float(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.fixed_time_us' must be a finite non-negative float (a measured time in microseconds), e.g. {remat.fixed_time_us = 12.5 : f64}}}
  %0 = math.exp %a {remat.fixed_time_us = "fast"} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @negative_workspace(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.workspace_bytes' must be a non-negative integer (the bytes the op's kernel allocates while it runs), e.g. {remat.workspace_bytes = 4096 : i64}}}
  %0 = remat.add %a, %a {remat.workspace_bytes = -8 : i64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @workspace_not_an_integer(%a: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'remat.workspace_bytes' must be a non-negative integer}}
  %0 = math.exp %a {remat.workspace_bytes = 1.5 : f64} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
