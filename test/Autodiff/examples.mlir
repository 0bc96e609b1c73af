// The joint graphs of the bundled forward examples come from remat-autodiff.
// RUN: remat-opt %examples/small/llama2_decoder_layer_forward.mlir -remat-autodiff | FileCheck %s --check-prefix=LLAMA
// RUN: remat-opt %examples/small/gpt_layer_dropout_forward.mlir -remat-autodiff | FileCheck %s --check-prefix=GPT
// RUN: remat-opt %examples/llama2_decoder_layer_forward.mlir -remat-autodiff | FileCheck %s --check-prefix=LLAMA-7B
// RUN: remat-opt %examples/gpt_layer_dropout_forward.mlir -remat-autodiff | FileCheck %s --check-prefix=GPT-LARGE

// Llama-2 layer: one gradient per parameter and the input; MaxText names and
// the no_auto_recompute tag stay on the forward ops; the norms become
// two-result; sdpa_backward reads the attention output and logsumexp; the
// residual fan-out accumulates.
// LLAMA-LABEL: func.func @llama2_decoder_layer_forward_joint(
// LLAMA-SAME: %[[DY:[^:]*]]: tensor<1x16x64xbf16> {remat.role = "tangent"}
// LLAMA-SAME: tensor<1x16x64xbf16> {remat.grad_of = 0 : i64, remat.role = "grad"}
// LLAMA-SAME: tensor<64x172xbf16> {remat.grad_of = 9 : i64, remat.role = "grad"}
// LLAMA-SAME: attributes {remat.graph = "joint"}
// LLAMA:      %[[XN:.*]], %[[RSTD1:.*]] = remat.rmsnorm {{.*}} {remat.name = "pre_self_attention_layer_norm"}
// LLAMA:      remat.matmul %[[XN]], %{{.*}} {remat.name = "query_proj", transpose_b}
// LLAMA:      %[[ATTN:.*]], %[[LSE:.*]] = remat.sdpa {{.*}} {causal, remat.name = "attention_out", remat.no_auto_recompute}
// LLAMA:      %[[H1:.*]] = remat.add %{{.*}}, %{{.*}} {remat.name = "intermediate_inputs"}
// LLAMA:      %[[HN:.*]], %[[RSTD2:.*]] = remat.rmsnorm %[[H1]], {{.*}} {remat.name = "post_self_attention_layer_norm"}
// LLAMA:      %[[GATE:.*]] = remat.matmul %[[HN]], {{.*}} {remat.name = "mlpwi_0", transpose_b}
// LLAMA:      remat.matmul {{.*}} {remat.name = "mlpwo", transpose_b}
// LLAMA:      %[[DH2:.*]] = remat.reshape %[[DY]] : (tensor<1x16x64xbf16>) -> tensor<16x64xbf16>
// LLAMA:      remat.silu_backward %{{.*}}, %[[GATE]] : tensor<16x172xbf16>
// LLAMA:      %[[DHN:.*]], %[[DW2:.*]] = remat.rmsnorm_backward %{{.*}}, %[[H1]], %{{.*}}, %[[RSTD2]]
// LLAMA:      %[[DH1:.*]] = remat.add %[[DH2]], %[[DHN]]
// LLAMA:      remat.sdpa_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ATTN]], %[[LSE]] scale = 2.500000e-01 {causal}
// LLAMA:      %{{.*}}, %[[DW1:.*]] = remat.rmsnorm_backward %{{.*}}, %{{.*}}, %{{.*}}, %[[RSTD1]]
// LLAMA:      return
// LLAMA-SAME: %[[DW1]]
// LLAMA-SAME: %[[DW2]]

// GPT layer: each dropout's backward reads that dropout's mask; the rng
// arguments and the i1 causal mask get no gradient, the masked-out scores
// get zeros; the q/k/v slices of the
// fused projection scatter back into its gradient.
// GPT-LABEL: func.func @gpt_layer_dropout_forward_joint(
// GPT-SAME: %{{[^:]*}}: tensor<2x16x64xf16> {remat.role = "tangent"}
// GPT-SAME: -> (tensor<2x16x64xf16> {remat.role = "output"}, tensor<2x16x64xf16> {remat.grad_of = 0 : i64, remat.role = "grad"}, tensor<64xf16> {remat.grad_of = 2 : i64, remat.role = "grad"}
// GPT-SAME: tensor<64xf16> {remat.grad_of = 13 : i64, remat.role = "grad"})
// GPT:        %[[QKV:.*]] = remat.linear {{.*}} {remat.name = "qkv_proj"}
// GPT:        %[[CAUSAL:.*]] = remat.broadcast %{{.*}} : (tensor<16x16xi1>) -> tensor<2x4x16x16xi1>
// GPT:        %[[PROBS:.*]] = remat.softmax {{.*}} {remat.name = "attention_probs"}
// GPT:        %{{.*}}, %[[M_ATTN:.*]] = remat.dropout %[[PROBS]]
// GPT:        %{{.*}}, %[[M_PROJ:.*]] = remat.dropout
// GPT:        %[[FC1:.*]] = remat.linear {{.*}} {remat.name = "mlpwi"}
// GPT:        %{{.*}}, %[[M_MLP:.*]] = remat.dropout
// GPT:        remat.dropout_backward %{{.*}}, %[[M_MLP]] p = 1.000000e-01
// GPT:        remat.gelu_backward %{{.*}}, %[[FC1]] {approximate = "tanh"}
// GPT:        remat.layernorm_backward
// GPT:        remat.dropout_backward %{{.*}}, %[[M_PROJ]] p = 1.000000e-01
// GPT:        remat.dropout_backward %{{.*}}, %[[M_ATTN]] p = 1.000000e-01
// GPT-NEXT:   remat.softmax_backward %{{.*}}, %[[PROBS]] dim = 3
// GPT-NEXT:   %[[ZERO:.*]] = remat.constant dense<0.000000e+00> : tensor<2x4x16x16xf16>
// GPT-NEXT:   remat.where %[[CAUSAL]], %[[ZERO]], %{{.*}} : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf16>
// GPT-NEXT:   remat.mul_scalar %{{.*}}, 2.500000e-01
// GPT:        remat.concat {{.*}} -> tensor<32x192xf16>
// GPT:        remat.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<32x192xf16>, tensor<32x64xf16>) -> tensor<192x64xf16>
// GPT:        remat.layernorm_backward
// GPT:        return

// The full-size layers differentiate too (bf16 Llama-2-7B, GPT).
// LLAMA-7B-LABEL: func.func @llama2_decoder_layer_forward_joint(
// LLAMA-7B:       remat.sdpa_backward
// LLAMA-7B:       remat.rmsnorm_backward
// GPT-LARGE-LABEL: func.func @gpt_layer_dropout_forward_joint(
// GPT-LARGE:       remat.dropout_backward
// GPT-LARGE:       remat.layernorm_backward
