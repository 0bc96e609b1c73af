// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-plan
// RUN: not remat-opt %s -split-input-file -remat-plan=policy=save_only_these_names:e 2>&1 | FileCheck %s --check-prefix=CONTRADICTION

// Errors of remat-plan that point at the IR; option errors are in
// remat-plan.mlir.

// expected-error @+1 {{remat-plan: 'forward_only' is a remat.graph = "forward" function; remat-plan needs the joint (forward + backward) form}}
func.func @forward_only(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %y = remat.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-plan: 'unmarked' marks argument roles but has no remat.graph attribute; add attributes {remat.graph = "joint"} to plan it}}
func.func @unmarked(%x: tensor<4xf32> {remat.role = "input"},
                    %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"}) {
  %d = remat.mul %dy, %x : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A module remat-partition wrote (plan -> partition -> plan): the halves are
// named as such (the message pointed at the first function and advised
// marking the forward half joint before).
// expected-error @+1 {{remat-plan: 'f_forward' is the forward half of a partitioned joint function (what remat-partition writes); plan the joint function before partitioning it}}
func.func @f_forward(%x: tensor<4xf32> {remat.role = "input"})
    -> (tensor<4xf32> {remat.role = "output"}, tensor<4xf32>)
    attributes {remat.saved_values = ["%0"], remat.stage = "forward"} {
  %y = remat.exp %x : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}

// -----

// A joint declaration without a body (the message called it a forward-form
// function to differentiate before 2026-12-07).
// expected-error @+1 {{remat-plan: 'decl' is marked remat.graph = "joint" but is a declaration without a body; remat-plan plans a joint function's ops: give it its body}}
func.func private @decl(%x: tensor<4xf32> {remat.role = "input"},
                        %t: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"}) attributes {remat.graph = "joint"}

// -----

// A joint function one module down is not planned: the error says where it
// is and how to reach it (before, "no function is marked as a joint
// training graph"). (A file holding one module alone makes it the top.)
module {
  module @inner {
    // expected-error @+1 {{remat-plan: 'nested' is a joint function in a nested module; remat-plan plans the functions of the module it runs on: run remat-plan on that module (--pass-pipeline='builtin.module(builtin.module(remat-plan))') or move the function to the top level}}
    func.func @nested(%x: tensor<4xf32> {remat.role = "input"},
                      %dy: tensor<4xf32> {remat.role = "tangent"})
        -> (tensor<4xf32> {remat.role = "output"},
            tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
        attributes {remat.graph = "joint"} {
      %y = remat.exp %x : tensor<4xf32>
      %d = remat.mul %dy, %y : tensor<4xf32>
      return %y, %d : tensor<4xf32>, tensor<4xf32>
    }
  }
}

// -----

// Beside a top-level joint function, it is planned and the nested one is
// named in a warning, not skipped silently.
func.func @top(%x: tensor<4xf32> {remat.role = "input"},
               %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %y = remat.exp %x : tensor<4xf32>
  %d = remat.mul %dy, %y : tensor<4xf32>
  return %y, %d : tensor<4xf32>, tensor<4xf32>
}
module @inner {
  // expected-warning @+1 {{remat-plan: 'nested' is a joint function in a nested module and is not planned: run remat-plan on that module (--pass-pipeline='builtin.module(builtin.module(remat-plan))') or move the function to the top level}}
  func.func @nested(%x: tensor<4xf32> {remat.role = "input"},
                    %dy: tensor<4xf32> {remat.role = "tangent"})
      -> (tensor<4xf32> {remat.role = "output"},
          tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
      attributes {remat.graph = "joint"} {
    %y = remat.exp %x : tensor<4xf32>
    %d = remat.mul %dy, %y : tensor<4xf32>
    return %y, %d : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

func.func @unknown_op(%x: tensor<4xf32> {remat.role = "input"},
                      %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %c = arith.constant dense<2.0> : tensor<4xf32>
  // expected-error @+1 {{remat-plan cannot plan 'tensor.insert_slice': it does not implement PlannerOpInterface; wrap it in remat.opaque "<name>"(...) {flops = ..., compute_class = "..."} or attach a remat::PlannerOpInterface::ExternalModel to it (remat/Dialect/Remat/IR/RematInterfaces.h; docs/Dialect.md, "External models")}}
  %y = tensor.insert_slice %x into %c[0] [4] [1] : tensor<4xf32> into tensor<4xf32>
  %d = remat.mul %dy, %y : tensor<4xf32>
  return %y, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @dynamic_shape(%x: tensor<4xf32> {remat.role = "input"},
                         %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  // expected-error @+1 {{remat-plan: result #0 of 'tensor.cast' has type 'tensor<?xf32>' with a dynamic shape; remat-plan needs static shapes to size memory, so specialise the shapes before planning}}
  %dynamic = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  %e = tensor.cast %dynamic : tensor<?xf32> to tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A bufferized program (memrefs) and vectors each get their own advice.
// expected-error @+1 {{remat-plan: argument #0 has type 'memref<4xf32>'; remat-plan plans programs on tensors: run it before bufferization}}
func.func @memref_argument(%x: memref<4xf32> {remat.role = "input"},
                           %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  return %dy : tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-plan: argument #0 has type 'vector<4xf32>'; remat-plan plans statically shaped ranked tensors and scalars only}}
func.func @vector_argument(%x: vector<4xf32> {remat.role = "input"},
                           %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  return %dy : tensor<4xf32>
}

// -----

// complex<f16> (PyTorch's complex32) has no size the planner knows;
// complex<f32> and complex<f64> do (remat-plan-complex.mlir).
func.func @complex_half(%x: tensor<4xf32> {remat.role = "input"},
                        %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  // expected-error @+1 {{remat-plan: result #0 of 'remat.opaque' has element type 'complex<f16>', which remat-plan cannot size; supported: f64, f32, f16, bf16, i64/index, i32, i8, i1, complex<f32>, complex<f64>}}
  %c = remat.opaque "aten.complex"(%x, %x) {compute_class = "pointwise"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f16>>
  %r = remat.opaque "aten.real"(%c) {compute_class = "view"} : (tensor<4xcomplex<f16>>) -> tensor<4xf32>
  %d = remat.mul %dy, %r : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @contradictory_tags(%x: tensor<4xf32> {remat.role = "input"},
                              %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  // expected-error @+1 {{contradictory tags: 'remat.never_recompute' forbids recomputation but 'remat.must_recompute' requires it; remove one of them}}
  %e = remat.exp %x {remat.never_recompute, remat.must_recompute} : tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

// A tag and a name policy that contradict each other: the core names both.
// CONTRADICTION: error: remat-plan: cannot plan 'tag_against_policy' with strategy=min-cut: checkpoint policy save_only_these_names:e saves 'e', but its producer op pointwise e is tagged must_recompute; drop the tag or the name from the policy
func.func @tag_against_policy(%x: tensor<4xf32> {remat.role = "input"},
                              %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad"})
    attributes {remat.graph = "joint"} {
  %e = remat.exp %x {remat.name = "e", remat.must_recompute} : tensor<4xf32>
  %y = remat.exp %e {remat.name = "y"} : tensor<4xf32>
  %d1 = remat.mul %dy, %y : tensor<4xf32>
  %d2 = remat.mul %d1, %e : tensor<4xf32>
  return %y, %d2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A forward output computed in backward: the plan left it out and only
// remat-partition refused it, blaming a tangent also where an explicit phase
// was the cause (before 2026-12-08). Errors the core says are about an op
// are reported at the op (before 2026-12-08 at the function).
func.func @output_reads_tangent(%x: tensor<4xf32> {remat.role = "input"},
                                %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %e = remat.exp %x : tensor<4xf32>
  // expected-error @+1 {{remat-plan: cannot plan 'output_reads_tangent' with strategy=min-cut: value 3 '%1' is a function result with role output, but it is computed in backward: op 1 (remat.mul) reads value 1 '%arg1', which is a tangent. A forward output may not depend on backward: give the result role grad if it is a gradient, or compute it from forward values}}
  %t = remat.mul %e, %dy : tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %t, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @output_marked_backward(%x: tensor<4xf32> {remat.role = "input"},
                                  %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  // expected-error @+1 {{value 2 '%0' is a function result with role output, but it is computed in backward: op 0 (remat.exp) is marked phase backward.}}
  %e = remat.exp %x {remat.phase = "backward"} : tensor<4xf32>
  %d = remat.mul %dy, %e : tensor<4xf32>
  return %e, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @random_must_recompute(%x: tensor<4xf32> {remat.role = "input"},
                                 %seed: tensor<i64> {remat.role = "input"},
                                 %off: tensor<i64> {remat.role = "input"},
                                 %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  // expected-error @+1 {{op random remat.dropout#0 is tagged must_recompute, but it is a random op whose RNG state is not a graph input}}
  %y, %m = remat.dropout %x, %seed, %off p = 0.5 {remat.must_recompute} : (tensor<4xf32>, tensor<i64>, tensor<i64>) -> (tensor<4xf32>, tensor<4xi1>)
  %d = remat.mul %dy, %y : tensor<4xf32>
  return %y, %d : tensor<4xf32>, tensor<4xf32>
}
