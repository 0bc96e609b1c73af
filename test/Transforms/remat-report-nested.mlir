// Joint functions in nested modules: the report of the enclosing module
// covers the plans made one level down, names qualified by their modules,
// in IR order; a report to a file on the nested modules themselves is
// refused (each nested instance would overwrite the file, which one last
// varying from run to run under threading: before 2026-12-07 the file held
// one module's functions, silently).

// RUN: remat-opt %s --pass-pipeline="builtin.module(builtin.module(remat-plan{exchange-rate=0}),remat-report{format=text output=%t.txt})" -o /dev/null
// RUN: FileCheck %s < %t.txt
// RUN: remat-opt %s --pass-pipeline="builtin.module(builtin.module(remat-plan{exchange-rate=0}),remat-report{output=%t.json})" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: not remat-opt %s --pass-pipeline="builtin.module(builtin.module(remat-plan,remat-report{output=%t.nested.json}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NESTED-FILE
// RUN: remat-opt %s --pass-pipeline="builtin.module(builtin.module(remat-plan{exchange-rate=0},remat-report{format=text}))" -mlir-disable-threading -o /dev/null | FileCheck %s --check-prefix=NESTED-TEXT
// A top-level plan and report leave the unplanned nested functions out
// (remat-plan warns of them), as before.
// RUN: remat-opt %S/Inputs/nested-and-top.mlir -remat-plan -remat-report=format=text -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOP-ONLY

// CHECK: remat plan for @first::@layer
// CHECK: remat plan for @module#1::@layer
// CHECK-NOT: remat plan for

// JSON: "function": "first::@layer",
// JSON: "function": "module#1::@layer",

// TOP-ONLY: warning: remat-plan: 'nested' is a joint function in a nested module and is not planned
// TOP-ONLY: remat plan for @top
// TOP-ONLY-NOT: remat plan for
// TOP-ONLY-NOT: error

// Each nested instance reports its own module's functions, unqualified.
// NESTED-TEXT: remat plan for @layer
// NESTED-TEXT: remat plan for @layer

// NESTED-FILE: error: remat-report: output={{.*}}nested.json on a nested module: each nested module's report would overwrite the others'. Run remat-report on the enclosing module, whose report covers the plans of the modules nested in it

module {
  module @first {
    func.func @layer(%x: tensor<4xf32> {remat.role = "input"},
                     %dy: tensor<4xf32> {remat.role = "tangent"})
        -> (tensor<4xf32> {remat.role = "output"},
            tensor<4xf32> {remat.role = "grad"})
        attributes {remat.graph = "joint"} {
      %e = remat.exp %x {remat.name = "e"} : tensor<4xf32>
      %d = remat.mul %dy, %e : tensor<4xf32>
      return %e, %d : tensor<4xf32>, tensor<4xf32>
    }
  }
  module {
    func.func @layer(%x: tensor<4xf32> {remat.role = "input"},
                     %dy: tensor<4xf32> {remat.role = "tangent"})
        -> (tensor<4xf32> {remat.role = "output"},
            tensor<4xf32> {remat.role = "grad"})
        attributes {remat.graph = "joint"} {
      %e = remat.exp %x {remat.name = "e"} : tensor<4xf32>
      %t = remat.tanh %e {remat.name = "t"} : tensor<4xf32>
      %d = remat.mul %dy, %t : tensor<4xf32>
      return %t, %d : tensor<4xf32>, tensor<4xf32>
    }
  }
}
