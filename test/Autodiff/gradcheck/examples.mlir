// Finite-difference check of the bundled small Llama-2 and GPT layers
// (widened from bf16 / f16 to f32). Large gradients are probed along random
// +-1 directions and at random elements.
// RUN: remat-gradcheck %examples/small/llama2_decoder_layer_forward.mlir | FileCheck %s --check-prefix=LLAMA
// RUN: remat-gradcheck %examples/small/gpt_layer_dropout_forward.mlir | FileCheck %s --check-prefix=GPT
// A 5% error in the gradients is caught in every gradient of the Llama layer:
// RUN: not remat-gradcheck %examples/small/llama2_decoder_layer_forward.mlir -scale-gradients=1.05 | FileCheck %s --check-prefix=LLAMA-WRONG
// LLAMA-WRONG-COUNT-10: grad of argument #{{[0-9]+}} {{.*}}: FAIL
// LLAMA-WRONG: @llama2_decoder_layer_forward: FAIL
// LLAMA-COUNT-10: grad of argument #{{[0-9]+}} {{.*}}: PASS
// LLAMA: @llama2_decoder_layer_forward: PASS
// GPT-COUNT-13: grad of argument #{{[0-9]+}} {{.*}}: PASS
// GPT: @gpt_layer_dropout_forward: PASS

