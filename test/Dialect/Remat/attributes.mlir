// Tags, names, graph forms and roles: the remat dialect's discardable
// attributes. valid.mlir round-trips every one of them (custom and generic
// form), on our ops and on upstream ops; invalid.mlir has one expected-error
// case for every message of verifyOperationAttribute,
// verifyRegionArgAttribute and verifyRegionResultAttribute.
//
// RUN: split-file %s %t
// RUN: remat-opt %t/valid.mlir | remat-opt | FileCheck %t/valid.mlir
// RUN: remat-opt %t/valid.mlir -mlir-print-op-generic | remat-opt | FileCheck %t/valid.mlir
// RUN: remat-opt %t/invalid.mlir -split-input-file -verify-diagnostics

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

// The forward form: no tangents, no gradients.
// CHECK-LABEL: func.func @forward
// CHECK-SAME: {remat.role = "input"}
// CHECK-SAME: {remat.role = "param"}
// CHECK-SAME: -> (tensor<4x4xf32> {remat.role = "output"})
// CHECK-SAME: attributes {remat.graph = "forward"}
func.func @forward(%x: tensor<4x4xf32> {remat.role = "input"},
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
  // expected-error @+1 {{unknown remat attribute 'remat.dont_recompute'; known: never_recompute, no_auto_recompute, must_recompute, prefer_recompute, prefer_save, name, graph}}
  %0 = remat.add %a, %a {remat.dont_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// expected-error @+1 {{'remat.name' is not valid on argument #0; only 'remat.role' is}}
func.func @name_on_argument(%a: tensor<8xf32> {remat.name = "x"}) -> tensor<8xf32> {
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
