// The MLP half of a Llama-2 decoder layer (MaxText names, small shapes) with
// an auxiliary regularizer on the MLP output, as in REFERENCES.md's mlpwo
// story: the regularizer's backward reads `mlpwo`, so backward needs it. It
// is a matmul result, which automatic planning does not recompute, so without
// derivation it is saved; with inexact derivation allowed it can be rebuilt as
// layer_output - intermediate_inputs, both of which are available anyway (an
// output, and a value saved for the norm's backward).
func.func @llama_mlp_regularized(
    %x: tensor<16x64xbf16> {remat.role = "input"},
    %wa: tensor<64x64xbf16> {remat.role = "param"},
    %norm_w: tensor<64xbf16> {remat.role = "param"},
    %wi_0: tensor<172x64xbf16> {remat.role = "param"},
    %wi_1: tensor<172x64xbf16> {remat.role = "param"},
    %wo: tensor<64x172xbf16> {remat.role = "param"},
    %dy: tensor<16x64xbf16> {remat.role = "tangent"},
    %daux: tensor<16x64xbf16> {remat.role = "tangent"})
    -> (tensor<16x64xbf16> {remat.role = "output"},
        tensor<16x64xbf16> {remat.role = "output"},
        tensor<16x64xbf16> {remat.role = "grad", remat.grad_of = 0},
        tensor<64x64xbf16> {remat.role = "grad", remat.grad_of = 1},
        tensor<64xbf16> {remat.role = "grad", remat.grad_of = 2},
        tensor<172x64xbf16> {remat.role = "grad", remat.grad_of = 3},
        tensor<172x64xbf16> {remat.role = "grad", remat.grad_of = 4},
        tensor<64x172xbf16> {remat.role = "grad", remat.grad_of = 5})
    attributes {remat.graph = "joint"} {
  %attn = remat.matmul %x, %wa {transpose_b, remat.name = "out_proj"}
      : (tensor<16x64xbf16>, tensor<64x64xbf16>) -> tensor<16x64xbf16>
  %h = remat.add %x, %attn {remat.name = "intermediate_inputs"} : tensor<16x64xbf16>
  %hn, %rstd = remat.rmsnorm %h, %norm_w eps = 1.0e-05 {remat.name = "post_self_attention_layer_norm"}
      : (tensor<16x64xbf16>, tensor<64xbf16>) -> (tensor<16x64xbf16>, tensor<16xf32>)
  %gate = remat.matmul %hn, %wi_0 {transpose_b, remat.name = "mlpwi_0"}
      : (tensor<16x64xbf16>, tensor<172x64xbf16>) -> tensor<16x172xbf16>
  %gate_act = remat.silu %gate : tensor<16x172xbf16>
  %up = remat.matmul %hn, %wi_1 {transpose_b, remat.name = "mlpwi_1"}
      : (tensor<16x64xbf16>, tensor<172x64xbf16>) -> tensor<16x172xbf16>
  %act = remat.mul %gate_act, %up {remat.name = "mlp_activation"} : tensor<16x172xbf16>
  %down = remat.matmul %act, %wo {transpose_b, remat.name = "mlpwo"}
      : (tensor<16x172xbf16>, tensor<64x172xbf16>) -> tensor<16x64xbf16>
  %out = remat.add %h, %down {remat.name = "layer_output"} : tensor<16x64xbf16>
  %aux = remat.square %down {remat.name = "mlp_output_regularizer"} : tensor<16x64xbf16>

  // Backward. d(aux)/d(down) = 2 * down * daux.
  %d_reg = remat.mul %daux, %down : tensor<16x64xbf16>
  %d_reg2 = remat.mul_scalar %d_reg, 2.0 : tensor<16x64xbf16>
  %d_down = remat.add %dy, %d_reg2 : tensor<16x64xbf16>
  %d_act = remat.matmul %d_down, %wo
      : (tensor<16x64xbf16>, tensor<64x172xbf16>) -> tensor<16x172xbf16>
  %d_wo = remat.matmul %d_down, %act {transpose_a}
      : (tensor<16x64xbf16>, tensor<16x172xbf16>) -> tensor<64x172xbf16>
  %d_gate_act = remat.mul %d_act, %up : tensor<16x172xbf16>
  %d_up = remat.mul %d_act, %gate_act : tensor<16x172xbf16>
  %d_gate = remat.silu_backward %d_gate_act, %gate : tensor<16x172xbf16>
  %d_hn_up = remat.matmul %d_up, %wi_1
      : (tensor<16x172xbf16>, tensor<172x64xbf16>) -> tensor<16x64xbf16>
  %d_wi_1 = remat.matmul %d_up, %hn {transpose_a}
      : (tensor<16x172xbf16>, tensor<16x64xbf16>) -> tensor<172x64xbf16>
  %d_hn_gate = remat.matmul %d_gate, %wi_0
      : (tensor<16x172xbf16>, tensor<172x64xbf16>) -> tensor<16x64xbf16>
  %d_wi_0 = remat.matmul %d_gate, %hn {transpose_a}
      : (tensor<16x172xbf16>, tensor<16x64xbf16>) -> tensor<172x64xbf16>
  %d_hn = remat.add %d_hn_up, %d_hn_gate : tensor<16x64xbf16>
  %d_h_norm, %d_norm_w = remat.rmsnorm_backward %d_hn, %h, %norm_w, %rstd
      : (tensor<16x64xbf16>, tensor<16x64xbf16>, tensor<64xbf16>, tensor<16xf32>) -> (tensor<16x64xbf16>, tensor<64xbf16>)
  %d_h = remat.add %dy, %d_h_norm : tensor<16x64xbf16>
  %d_x_attn = remat.matmul %d_h, %wa
      : (tensor<16x64xbf16>, tensor<64x64xbf16>) -> tensor<16x64xbf16>
  %dx = remat.add %d_h, %d_x_attn : tensor<16x64xbf16>
  %d_wa = remat.matmul %d_h, %x {transpose_a}
      : (tensor<16x64xbf16>, tensor<16x64xbf16>) -> tensor<64x64xbf16>
  return %out, %aux, %dx, %d_wa, %d_norm_w, %d_wi_0, %d_wi_1, %d_wo
      : tensor<16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>, tensor<64x64xbf16>,
        tensor<64xbf16>, tensor<172x64xbf16>, tensor<172x64xbf16>, tensor<64x172xbf16>
}
