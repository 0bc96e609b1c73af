// RUN: remat-opt %s -split-input-file -verify-diagnostics

// The attributes remat-plan and remat-partition write are verified like the
// dialect's tags: one expected-error per message of RematDialect.cpp.

func.func @wrong_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.decision' on an operation must be an array of 1 string(s), one per value}}
  %0 = remat.exp %a {remat.decision = ["save", "save"]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_decision(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.decision' has unknown decision 'keep'; expected save, recompute, derive, not-needed or input}}
  %0 = remat.exp %a {remat.decision = ["keep"]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reason_not_strings(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.reason' on an operation must be an array of 1 string(s), one per value}}
  %0 = remat.exp %a {remat.reason = [1]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.decision' on argument #0 must be an array of 1 string(s), one per value}}
func.func @argument_decision(%a: tensor<4xf32> {remat.decision = "input"}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

func.func @derivation_count(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.derivation' must be an array with one entry per result (1)}}
  %0 = remat.exp %a {remat.decision = ["derive"], remat.derivation = []} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @derivation_fields(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.derivation' entry #0 must be unit or a dictionary with via (string), operand (integer), kind (string), from (array) and exact (bool)}}
  %0 = remat.exp %a {remat.decision = ["derive"], remat.derivation = [{via = "y"}]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @derivation_not_derived(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.derivation' entry #0 describes a derivation, but the result's 'remat.decision' is not "derive"}}
  %0 = remat.exp %a {remat.decision = ["save"], remat.derivation = [{via = "y", operand = 0 : i64, kind = "log", from = ["y"], exact = false}]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @plan_on_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'remat.plan' is only valid on a function}}
  %0 = remat.exp %a {remat.plan = {strategy = "min-cut"}} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.plan' must be a dictionary with at least strategy (string), target (string) and peak_memory_bytes (integer); it is written by -remat-plan}}
func.func @plan_fields() attributes {remat.plan = {strategy = "min-cut"}} {
  return
}

// -----

// expected-error @+1 {{'remat.stage' must be "forward" or "backward"}}
func.func @bad_stage() attributes {remat.stage = "middle"} {
  return
}

// -----

// expected-error @+1 {{'remat.saved_values' must be an array of value names}}
func.func @bad_saved_values() attributes {remat.saved_values = [1, 2]} {
  return
}

// -----

// The attributes the passes write verify as written.
func.func @planned(%a: tensor<4xf32> {remat.decision = ["input"], remat.reason = ["input: backward reads this function input"]})
    -> tensor<4xf32>
    attributes {remat.plan = {strategy = "min-cut", target = "h100", peak_memory_bytes = 16 : i64},
                remat.stage = "forward", remat.saved_values = ["e"]} {
  %0 = remat.exp %a {remat.decision = ["derive"], remat.reason = ["derived as log(y)"],
                     remat.derivation = [{via = "y", operand = 0 : i64, kind = "log", from = ["y"], exact = false}]} : tensor<4xf32>
  return %0 : tensor<4xf32>
}
