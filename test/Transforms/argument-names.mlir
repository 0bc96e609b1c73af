// remat.name on a function argument names the input in reasons, reports and
// policies, as it names an op's results (docs/Dialect.md). The first holder
// of a name keeps it: arguments come first, so an op named like an argument
// gets the suffix ".1". remat-partition keeps the names on the arguments of
// the functions it writes.

// RUN: remat-opt %s -remat-plan="strategy=min-cut exchange-rate=0" | FileCheck %s --check-prefix=PLAN
// RUN: remat-opt %s -remat-plan="strategy=min-cut exchange-rate=0" -remat-report=output=- -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: remat-opt %s -remat-plan="strategy=min-cut exchange-rate=0" -remat-partition | FileCheck %s --check-prefix=PART

// PLAN-LABEL: func.func @named_input
// PLAN-SAME: {remat.decision = ["input"], remat.name = "tokens"
// PLAN: remat.exp %arg0 {remat.decision = ["recompute"], remat.name = "tokens", remat.reason = ["recomputed from tokens (cheaper than saving

// REPORT: "name": "tokens",
// REPORT: "name": "tokens.1",

// PART-LABEL: func.func @named_input_forward
// PART-SAME: {remat.name = "tokens", remat.role = "input"}
// PART-LABEL: func.func @named_input_backward
// PART-SAME: {remat.name = "tokens", remat.role = "input"}

func.func @named_input(%x: tensor<64xf32> {remat.role = "input", remat.name = "tokens"},
                       %dy: tensor<64xf32> {remat.role = "tangent"})
    -> (tensor<64xf32> {remat.role = "output"},
        tensor<64xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  %a = remat.exp %x {remat.name = "tokens"} : tensor<64xf32>
  %y = remat.exp %a : tensor<64xf32>
  %dy_a = remat.mul %dy, %y : tensor<64xf32>
  %da = remat.mul %dy_a, %a : tensor<64xf32>
  return %y, %da : tensor<64xf32>, tensor<64xf32>
}
