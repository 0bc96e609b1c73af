// Every error remat-partition reports on a malformed or stale
// remat.schedule (docs/Dialect.md, "Plan attributes"). The joint function:
// ops 0 (a) and 1 (y) are forward, 2 (d) and 3 (dx) backward; values 0 (x),
// 1 (dy), 2 (a), 3 (y), 4 (d), 5 (dx). A valid schedule is
// {backward_start = 2, steps = [0, 1, 2, 3]}.

// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-partition

// expected-error @+1 {{'remat.schedule' must be {backward_start = <i64>, steps = array<i64: ...>}, with an optional fingerprint = <i64>; it is written by -remat-plan}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = [0, 1, 2, 3]} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'remat.schedule' must be {backward_start = <i64>, steps = array<i64: ...>}, with an optional fingerprint = <i64>; it is written by -remat-plan}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' has backward_start = 5, outside [0, 4]; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 5 : i64, steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' names op 7 at step 2, but the function has 4 ops; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 0, 1, 7, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' derives value 99 at step 2, but the function has 6 values; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 0, 1, -100, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' derives 'a' at step 2, but the plan records no valid derivation for it; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 0, 1, -3, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' evaluates backward op #2 ('remat.tanh_backward') in its forward part, at step 2; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 3 : i64, steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' evaluates backward op #3 ('remat.tanh_backward') twice, again at step 4; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 0, 1, 2, 3, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' does not evaluate backward op #3 ('remat.tanh_backward'); re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 0, 1, 2>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' reads 'a' at step 0 before any step produces it; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, steps = array<i64: 1, 0, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' does not evaluate output 'y' in its forward part; re-run remat-plan on the joint function to record a fresh one}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 1 : i64, steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// A fingerprint that is not an integer.
// expected-error @+1 {{'remat.schedule' must be {backward_start = <i64>, steps = array<i64: ...>}, with an optional fingerprint = <i64>; it is written by -remat-plan}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, fingerprint = "f", steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}

// -----

// A valid schedule whose fingerprint (written by remat-plan) is not this
// function's: the function changed after planning.
// expected-error @+1 {{remat-partition: the recorded schedule (remat.schedule) of 'f' belongs to another version of the function: its ops or their operands changed after remat-plan (fingerprint 0, now}}
func.func @f(%x: tensor<4xf32> {remat.role = "input"},
             %dy: tensor<4xf32> {remat.role = "tangent"})
    -> (tensor<4xf32> {remat.role = "output"},
        tensor<4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint",
                remat.plan = {strategy = "budget", target = "h100", peak_memory_bytes = 0 : i64},
                remat.schedule = {backward_start = 2 : i64, fingerprint = 0 : i64, steps = array<i64: 0, 1, 2, 3>}} {
  %a = remat.tanh %x {remat.name = "a"} : tensor<4xf32>
  %y = remat.tanh %a {remat.name = "y"} : tensor<4xf32>
  %d = remat.tanh_backward %dy, %y {remat.name = "d"} : tensor<4xf32>
  %dx = remat.tanh_backward %d, %a {remat.name = "dx"} : tensor<4xf32>
  return %y, %dx : tensor<4xf32>, tensor<4xf32>
}
