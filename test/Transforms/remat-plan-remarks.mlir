// RUN: remat-opt %s -split-input-file -verify-diagnostics -remat-plan="emit-remarks=true exchange-rate=0" -o /dev/null

// With emit-remarks, every decision is a remark on the op that produces the
// value (on the function for its arguments), so IDEs and tests see them.

// expected-remark @+1 {{remat-plan: '%arg0' is input: input: a recomputation in backward reads this function input}}
func.func @exp_chain(%x: tensor<8xf32> {remat.role = "input"},
                     %dy: tensor<8xf32> {remat.role = "tangent"})
    -> (tensor<8xf32> {remat.role = "output"},
        tensor<8xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  // expected-remark @+1 {{remat-plan: 'e1' is recompute: recomputed from %arg0 (cheaper than saving 32 B)}}
  %e1 = remat.exp %x {remat.name = "e1"} : tensor<8xf32>
  // expected-remark @+1 {{remat-plan: 'e2' is recompute: recomputed from e1 (cheaper than saving 32 B)}}
  %e2 = remat.exp %e1 {remat.name = "e2"} : tensor<8xf32>
  // expected-remark @+1 {{remat-plan: 'y' is save: saved: it is a function result, live until the end anyway}}
  %y = remat.exp %e2 {remat.name = "y"} : tensor<8xf32>
  %d2 = remat.mul %dy, %y : tensor<8xf32>
  %d1 = remat.mul %d2, %e2 : tensor<8xf32>
  %dx = remat.mul %d1, %e1 : tensor<8xf32>
  return %y, %dx : tensor<8xf32>, tensor<8xf32>
}

// -----

// The seed story: the fused attention is tagged no_auto_recompute, so it is
// saved although recomputing it would be cheaper in memory, and the remark
// says why; the projection's result is not needed by backward at all.

// expected-remark @+4 {{remat-plan: '%arg0' is input: input: backward reads this function input}}
// expected-remark @+3 {{remat-plan: '%arg1' is input: input: backward reads this function input}}
// expected-remark @+2 {{remat-plan: '%arg2' is input: input: backward reads this function input}}
// expected-remark @+1 {{remat-plan: '%arg3' is input: parameter: always available; backward reads it}}
func.func @tagged_attention(%q: tensor<1x2x8x4xf32> {remat.role = "input"},
                            %k: tensor<1x2x8x4xf32> {remat.role = "input"},
                            %v: tensor<1x2x8x4xf32> {remat.role = "input"},
                            %w: tensor<1x2x4x4xf32> {remat.role = "param"},
                            %dy: tensor<1x2x8x4xf32> {remat.role = "tangent"})
    -> (tensor<1x2x8x4xf32> {remat.role = "output"},
        tensor<1x2x8x4xf32> {remat.role = "grad", remat.grad_of = 0})
    attributes {remat.graph = "joint"} {
  // expected-remark @+2 {{remat-plan: 'attention_out#0' is save: saved: recomputing it needs attention attention_out which is no_auto_recompute}}
  // expected-remark @+1 {{remat-plan: 'attention_out#1' is save: saved: recomputing it needs attention attention_out which is no_auto_recompute}}
  %o, %lse = remat.sdpa %q, %k, %v scale = 0.5 {causal, remat.name = "attention_out", remat.no_auto_recompute}
      : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
  // expected-remark @+1 {{remat-plan: 'out_proj' is not-needed: not needed by backward: the backward of matmul out_proj reads only its inputs}}
  %y = remat.matmul %o, %w {remat.name = "out_proj"}
      : (tensor<1x2x8x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x8x4xf32>
  %do = remat.matmul %dy, %w {transpose_b}
      : (tensor<1x2x8x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x8x4xf32>
  %dq, %dk, %dv = remat.sdpa_backward %do, %q, %k, %v, %o, %lse scale = 0.5 {causal}
      : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8xf32>)
      -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>)
  return %y, %dq : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>
}
