//===- RematNNOps.td - neural-network ops and their backward ops -*- tablegen -*-===//
//
// Part of remat. Included from RematOps.td (base classes live there):
// softmax, norms, attention, dropout, embedding, losses, convolution,
// pooling, each with the backward ops autodiff and importers emit.
//
// Syntax convention for every op in this file: operands, then each required
// attribute as `name = value`, then the attribute dictionary for flags and
// defaulted attributes, then the types. Ops whose operand and result types
// all agree print one type; the others print `functional-type`.
//
// Statistics that a backward op needs (norm mean/rstd, attention logsumexp,
// dropout mask, max-pool indices) are results of the forward op, so the
// planner sees them as values it may save, recompute or let die, and the
// backward op reads them instead of redoing the forward work. They are f32
// (accumulation precision) whatever the data type, as in PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD

//===----------------------------------------------------------------------===//
// Constraints and base class
//===----------------------------------------------------------------------===//

def Remat_StatsTensor : StaticShapeTensorOf<[F32, F64]> {
  let summary = "statically shaped f32 (f64 for f64 inputs) tensor of saved "
                "statistics";
}
def Remat_RngScalar : 0DTensorOf<[I64]> {
  let summary = "rank-0 i64 tensor (RNG seed or offset)";
}
def Remat_LossScalar : 0DTensorOf<[F64, F32, F16, BF16]> {
  let summary = "rank-0 tensor of f64, f32, f16 or bf16";
}

// Every NN op has a hand-written verifier (shapes, ranks, element types) in
// RematNNOps.cpp.
class Remat_NNOp<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, traits> {
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

def Remat_SoftmaxOp : Remat_NNOp<"softmax", [SameOperandsAndResultType]> {
  let summary = "softmax along one dimension";
  let description = [{
    ```mlir
    %y = remat.softmax %x dim = 3 : tensor<2x32x128x128xbf16>
    ```
    `y = exp(x - max(x)) / sum(exp(x - max(x)))` along `dim`
    (`0 <= dim < rank`). Its backward (`remat.softmax_backward`) reads the
    output, not the input.

    Planner facts: normalization; 5 FLOPs per element (max, subtract, exp,
    sum, divide).
  }];
  let arguments = (ins Remat_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:` type($result)
  }];
}

def Remat_LogSoftmaxOp : Remat_NNOp<"log_softmax",
    [SameOperandsAndResultType]> {
  let summary = "log-softmax along one dimension";
  let description = [{
    ```mlir
    %y = remat.log_softmax %x dim = 1 : tensor<8x32000xf32>
    ```
    `y = x - max(x) - log(sum(exp(x - max(x))))` along `dim`
    (`0 <= dim < rank`). Its backward (`remat.log_softmax_backward`) reads
    the output, not the input.

    Planner facts: normalization; 5 FLOPs per element.
  }];
  let arguments = (ins Remat_FloatTensor:$input, I64Attr:$dim);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dim` `=` $dim attr-dict `:` type($result)
  }];
}

def Remat_SoftmaxBackwardOp : Remat_NNOp<"softmax_backward",
    [SameOperandsAndResultType]> {
  let summary = "gradient of softmax with respect to its input";
  let description = [{
    ```mlir
    %gx = remat.softmax_backward %gy, %y dim = 3 : tensor<2x32x128x128xbf16>
    ```
    `gx = y * (gy - sum(gy * y))` with the sum along `dim`, where `y` is the
    output of the forward `remat.softmax` and `gy` the gradient of `y`.

    Planner facts: normalization; 4 FLOPs per element.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$output,
                       I64Attr:$dim);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $output `dim` `=` $dim attr-dict `:` type($result)
  }];
}

def Remat_LogSoftmaxBackwardOp : Remat_NNOp<"log_softmax_backward",
    [SameOperandsAndResultType]> {
  let summary = "gradient of log-softmax with respect to its input";
  let description = [{
    ```mlir
    %gx = remat.log_softmax_backward %gy, %y dim = 1 : tensor<8x32000xf32>
    ```
    `gx = gy - exp(y) * sum(gy)` with the sum along `dim`, where `y` is the
    output of the forward `remat.log_softmax`.

    Planner facts: normalization; 4 FLOPs per element.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$output,
                       I64Attr:$dim);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $output `dim` `=` $dim attr-dict `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def Remat_RmsNormOp : Remat_NNOp<"rmsnorm"> {
  let summary = "RMS normalization over the trailing dimensions";
  let description = [{
    ```mlir
    %y = remat.rmsnorm %x, %w eps = 1.0e-05
        : (tensor<1x4096x4096xbf16>, tensor<4096xbf16>) -> tensor<1x4096x4096xbf16>
    %y, %rstd = remat.rmsnorm %x, %w eps = 1.0e-05
        : (tensor<1x4096x4096xbf16>, tensor<4096xbf16>)
        -> (tensor<1x4096x4096xbf16>, tensor<1x4096xf32>)
    ```
    `y = x * rstd * weight` with `rstd = 1 / sqrt(mean(x^2) + eps)`, the
    mean taken over the trailing dimensions that `weight` spans (its rank
    `k` must be between 1 and the rank of `x`, and its shape equal to the
    last `k` dimensions of `x`). `weight` has the element type of `x`.

    The optional second result `rstd` exposes the statistic that
    `remat.rmsnorm_backward` reads: f32, shaped like the leading
    (non-normalized) dimensions of `x`. A forward-only graph may omit it;
    autodiff emits the two-result form.

    Planner facts: normalization; 4 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$weight,
                       F64Attr:$eps);
  let results = (outs Remat_FloatTensor:$result,
                      Optional<Remat_StatsTensor>:$rstd);
  let assemblyFormat = [{
    $input `,` $weight `eps` `=` $eps attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_RmsNormBackwardOp : Remat_NNOp<"rmsnorm_backward"> {
  let summary = "gradients of RMS normalization";
  let description = [{
    ```mlir
    %gx, %gw = remat.rmsnorm_backward %gy, %x, %w, %rstd
        : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>)
        -> (tensor<2x16x64xf32>, tensor<64xf32>)
    ```
    Given the gradient `gy` of the output of `remat.rmsnorm`, its input `x`,
    `weight` and the `rstd` it returned, computes the gradients of `x` (type
    of `x`) and of `weight` (type of `weight`). Shapes follow
    `remat.rmsnorm`; `gy` has the type of `x`.

    Planner facts: normalization; 9 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       Remat_FloatTensor:$weight, Remat_StatsTensor:$rstd);
  let results = (outs Remat_FloatTensor:$grad_input,
                      Remat_FloatTensor:$grad_weight);
  let assemblyFormat = [{
    $grad `,` $input `,` $weight `,` $rstd attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_LayerNormOp : Remat_NNOp<"layernorm"> {
  let summary = "layer normalization over the trailing dimensions";
  let description = [{
    ```mlir
    %y, %mean, %rstd = remat.layernorm %x, %w, %b eps = 1.0e-05
        : (tensor<2048x4x6144xbf16>, tensor<6144xbf16>, tensor<6144xbf16>)
        -> (tensor<2048x4x6144xbf16>, tensor<2048x4xf32>, tensor<2048x4xf32>)
    ```
    `y = (x - mean) * rstd * weight + bias` with `mean` and
    `rstd = 1 / sqrt(var + eps)` (biased variance) taken over the trailing
    dimensions that `weight` spans; `bias` has the shape of `weight`, both the
    element type of `x`. As PyTorch's `native_layer_norm`, the statistics
    `mean` and `rstd` are results (f32, shaped like the leading dimensions of
    `x`) so that `remat.layernorm_backward` need not recompute them.

    Planner facts: normalization; 7 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$weight,
                       Remat_FloatTensor:$bias, F64Attr:$eps);
  let results = (outs Remat_FloatTensor:$result, Remat_StatsTensor:$mean,
                      Remat_StatsTensor:$rstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias `eps` `=` $eps attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_LayerNormBackwardOp : Remat_NNOp<"layernorm_backward"> {
  let summary = "gradients of layer normalization";
  let description = [{
    ```mlir
    %gx, %gw, %gb = remat.layernorm_backward %gy, %x, %w, %mean, %rstd
        : (tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>,
           tensor<2x16xf32>, tensor<2x16xf32>)
        -> (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
    Given the gradient `gy` of the output of `remat.layernorm`, its input
    `x`, `weight`, and the `mean` and `rstd` it returned, computes the
    gradients of `x`, `weight` and `bias` (the latter two typed like
    `weight`). The bias itself is not needed.

    Planner facts: normalization; 13 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       Remat_FloatTensor:$weight, Remat_StatsTensor:$mean,
                       Remat_StatsTensor:$rstd);
  let results = (outs Remat_FloatTensor:$grad_input,
                      Remat_FloatTensor:$grad_weight,
                      Remat_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad `,` $input `,` $weight `,` $mean `,` $rstd attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_BatchNormOp : Remat_NNOp<"batchnorm"> {
  let summary = "batch normalization in training mode (batch statistics)";
  let description = [{
    ```mlir
    %y, %mean, %invstd = remat.batchnorm %x, %w, %b eps = 1.0e-05
        : (tensor<32x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>)
        -> (tensor<32x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
    Normalizes `x` (`[N, C, ...]`, rank >= 2, channels in dimension 1, e.g.
    NCHW) per channel with the batch statistics:
    `y = (x - saved_mean) * saved_invstd * weight + bias`, `saved_invstd =
    1 / sqrt(var + eps)` (biased variance) over every dimension but 1.
    `weight` and `bias` are `[C]` in the element type of `x`; `saved_mean`
    and `saved_invstd` are `[C]` f32 and feed `remat.batchnorm_backward`.
    Running-statistics updates do not affect gradients and are not modeled
    here; an importer that needs them emits them as separate ops.

    Planner facts: normalization; 7 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$weight,
                       Remat_FloatTensor:$bias, F64Attr:$eps);
  let results = (outs Remat_FloatTensor:$result, Remat_StatsTensor:$saved_mean,
                      Remat_StatsTensor:$saved_invstd);
  let assemblyFormat = [{
    $input `,` $weight `,` $bias `eps` `=` $eps attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_BatchNormBackwardOp : Remat_NNOp<"batchnorm_backward"> {
  let summary = "gradients of training-mode batch normalization";
  let description = [{
    ```mlir
    %gx, %gw, %gb = remat.batchnorm_backward %gy, %x, %w, %mean, %invstd
        : (tensor<8x16x10x10xf32>, tensor<8x16x10x10xf32>, tensor<16xf32>,
           tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x10x10xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
    Given the gradient `gy` of the output of `remat.batchnorm`, its input
    `x`, `weight` and the `saved_mean` / `saved_invstd` it returned, computes
    the gradients of `x`, `weight` and `bias`.

    Planner facts: normalization; 13 FLOPs per element of `x`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       Remat_FloatTensor:$weight, Remat_StatsTensor:$saved_mean,
                       Remat_StatsTensor:$saved_invstd);
  let results = (outs Remat_FloatTensor:$grad_input,
                      Remat_FloatTensor:$grad_weight,
                      Remat_FloatTensor:$grad_bias);
  let assemblyFormat = [{
    $grad `,` $input `,` $weight `,` $saved_mean `,` $saved_invstd attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Remat_SdpaOp : Remat_NNOp<"sdpa"> {
  let summary = "fused scaled-dot-product attention (flash-attention style)";
  let description = [{
    ```mlir
    %o, %lse = remat.sdpa %q, %k, %v scale = 0.088388347648318433 {causal}
        : (tensor<1x32x4096x128xbf16>, tensor<1x32x4096x128xbf16>,
           tensor<1x32x4096x128xbf16>)
        -> (tensor<1x32x4096x128xbf16>, tensor<1x32x4096xf32>)
    ```
    `o = softmax(scale * q @ k^T + mask) @ v`, with `q` `[B, Hq, Sq, D]`,
    `k` `[B, Hkv, Skv, D]`, `v` `[B, Hkv, Skv, Dv]` and `o` `[B, Hq, Sq, Dv]`,
    all of one element type. Grouped-query attention: `Hkv` must divide `Hq`
    and query head `h` attends with key/value head `h / (Hq / Hkv)`.
    `causal` masks key `j` for query `i` when `j > i` (top-left aligned, as
    PyTorch's `is_causal`). `scale` is required and positive (usually
    `1 / sqrt(D)`).

    The second result `logsumexp` (`[B, Hq, Sq]`, f32) is the per-row
    log-sum-exp of the scaled scores, as flash attention returns it, so that
    `remat.sdpa_backward` recomputes the probabilities blockwise instead of
    reading an `Sq x Skv` matrix.

    Planner facts: attention; FLOPs of the two matmuls,
    `2 * B * Hq * Sq * Skv * (D + Dv)` (`4 * b * h * s * s * d` when square),
    halved when `causal`.
  }];
  let arguments = (ins Remat_FloatTensor:$query, Remat_FloatTensor:$key,
                       Remat_FloatTensor:$value, F64Attr:$scale,
                       UnitAttr:$causal);
  let results = (outs Remat_FloatTensor:$result,
                      Remat_StatsTensor:$logsumexp);
  let assemblyFormat = [{
    $query `,` $key `,` $value `scale` `=` $scale attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_SdpaBackwardOp : Remat_NNOp<"sdpa_backward"> {
  let summary = "gradients of fused scaled-dot-product attention";
  let description = [{
    ```mlir
    %gq, %gk, %gv = remat.sdpa_backward %go, %q, %k, %v, %o, %lse
        scale = 0.125 {causal}
        : (tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>,
           tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16xf32>)
        -> (tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>)
    ```
    Given the gradient `grad` of the output of `remat.sdpa`, its inputs `q`,
    `k`, `v`, its output and logsumexp, computes the gradients of `q`, `k`
    and `v` (typed like them; for grouped-query attention the key/value
    gradients sum over the query heads of each group). `scale` and `causal`
    must repeat the forward op's.

    Planner facts: attention; the five matmuls of the flash-attention
    backward (scores recomputed, dV, dP, dQ, dK):
    `2 * B * Hq * Sq * Skv * (3 * D + 2 * Dv)` (`10 * b * h * s * s * d` when
    square), halved when `causal`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$query,
                       Remat_FloatTensor:$key, Remat_FloatTensor:$value,
                       Remat_FloatTensor:$output, Remat_StatsTensor:$logsumexp,
                       F64Attr:$scale, UnitAttr:$causal);
  let results = (outs Remat_FloatTensor:$grad_query,
                      Remat_FloatTensor:$grad_key,
                      Remat_FloatTensor:$grad_value);
  let assemblyFormat = [{
    $grad `,` $query `,` $key `,` $value `,` $output `,` $logsumexp
    `scale` `=` $scale attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

def Remat_DropoutOp : Remat_NNOp<"dropout", [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["drawsRandomNumbers"]>]> {
  let summary = "dropout with explicit RNG state and its mask as a result";
  let description = [{
    ```mlir
    %y, %mask = remat.dropout %x, %seed, %offset p = 1.000000e-01
        : (tensor<4096x4x6144xbf16>, tensor<i64>, tensor<i64>)
        -> (tensor<4096x4x6144xbf16>, tensor<4096x4x6144xi1>)
    ```
    Zeroes each element of `x` with probability `p` (`0 <= p < 1`) and
    scales the kept ones by `1 / (1 - p)`. The random numbers are a pure
    function of (`seed`, `offset`, element index), counter-based like
    PyTorch's Philox generator: `seed` and `offset` are rank-0 i64 operands,
    typically graph arguments with `remat.role = "rng"`, so recomputing the
    op regenerates exactly the same mask.

    The keep-mask (i1 or i8, shape of `x`, 1 = kept) is a result, so a plan
    may either save it (1 byte per element, as Megatron does) and feed it to
    `remat.dropout_backward`, or let it die and regenerate it by recomputing
    the dropout from the saved RNG state.

    Planner facts: random (draws random numbers); 3 FLOPs per element
    (draw, compare, scale).
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_RngScalar:$seed,
                       Remat_RngScalar:$offset, F64Attr:$p);
  let results = (outs Remat_FloatTensor:$result, Remat_MaskTensor:$mask);
  let assemblyFormat = [{
    $input `,` $seed `,` $offset `p` `=` $p attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_DropoutBackwardOp : Remat_NNOp<"dropout_backward"> {
  let summary = "gradient of dropout, from its mask";
  let description = [{
    ```mlir
    %gx = remat.dropout_backward %gy, %mask p = 1.000000e-01
        : (tensor<16x64xbf16>, tensor<16x64xi1>) -> tensor<16x64xbf16>
    ```
    `gx = gy * mask / (1 - p)`, where `mask` is the keep-mask that
    `remat.dropout` returned (same shape as `gy`) and `p` repeats the
    forward op's. No random numbers are drawn.

    Planner facts: pointwise; 2 FLOPs per element.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_MaskTensor:$mask,
                       F64Attr:$p);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $mask `p` `=` $p attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

def Remat_EmbeddingOp : Remat_NNOp<"embedding", [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["estimateBytesRead"]>]> {
  let summary = "row lookup in an embedding table";
  let description = [{
    ```mlir
    %e = remat.embedding %table, %ids
        : (tensor<32000x4096xbf16>, tensor<1x4096xi64>) -> tensor<1x4096x4096xbf16>
    ```
    Gathers rows of `table` (`[V, D]`) at the i64 `indices` (any shape
    `[...]`); the result is `[..., D]` in the element type of the table.
    Indices outside `[0, V)` are undefined behaviour, as in PyTorch.

    Planner facts: other (a gather; no FLOPs). It reads the indices and only
    the gathered rows, not the whole table.
  }];
  let arguments = (ins Remat_FloatTensor:$table, Remat_IndexTensor:$indices);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $table `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_EmbeddingBackwardOp : Remat_NNOp<"embedding_backward"> {
  let summary = "gradient of an embedding lookup (scatter-add into the table)";
  let description = [{
    ```mlir
    %gt = remat.embedding_backward %ge, %ids
        : (tensor<1x4096x4096xbf16>, tensor<1x4096xi64>) -> tensor<32000x4096xbf16>
    ```
    Adds each row of `grad` (`[..., D]`) into row `indices[...]` of a zero
    table; the result type gives the table shape `[V, D]` (V is PyTorch's
    `num_weights`), in the element type of `grad`.

    Planner facts: reduction (scatter-add); 1 FLOP per element of `grad`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_IndexTensor:$indices);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

def Remat_CrossEntropyOp : Remat_NNOp<"cross_entropy"> {
  let summary = "softmax cross-entropy loss with class-index targets";
  let description = [{
    ```mlir
    %loss = remat.cross_entropy %logits, %targets {reduction = "sum"}
        : (tensor<4096x32000xf32>, tensor<4096xi64>) -> tensor<f32>
    ```
    `loss_n = logsumexp(logits[n, :]) - logits[n, targets[n]]` for logits
    `[N, C]` and i64 targets `[N]`, reduced to a rank-0 tensor of the
    logits' element type by `reduction`: `"mean"` (the default) or `"sum"`.

    Planner facts: reduction; 5 FLOPs per logit plus 1 per row.
  }];
  let arguments = (ins Remat_FloatTensor:$logits, Remat_IndexTensor:$targets,
                       DefaultValuedStrAttr<StrAttr, "mean">:$reduction);
  let results = (outs Remat_LossScalar:$result);
  let assemblyFormat = [{
    $logits `,` $targets attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_CrossEntropyBackwardOp : Remat_NNOp<"cross_entropy_backward"> {
  let summary = "gradient of the cross-entropy loss with respect to the logits";
  let description = [{
    ```mlir
    %gl = remat.cross_entropy_backward %gloss, %logits, %targets
        {reduction = "sum"}
        : (tensor<f32>, tensor<8x100xf32>, tensor<8xi64>) -> tensor<8x100xf32>
    ```
    `grad_logits = grad_loss * (softmax(logits) - onehot(targets))`, divided
    by `N` when `reduction = "mean"` (which must repeat the forward op's).
    `grad_loss` is rank-0 in the logits' element type; the result has the
    logits' type.

    Planner facts: reduction; 6 FLOPs per logit (softmax recomputed, then
    scaled) plus 1 per row (the one-hot subtraction).
  }];
  let arguments = (ins Remat_LossScalar:$grad, Remat_FloatTensor:$logits,
                       Remat_IndexTensor:$targets,
                       DefaultValuedStrAttr<StrAttr, "mean">:$reduction);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $logits `,` $targets attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

def Remat_Conv2dOp : Remat_NNOp<"conv2d"> {
  let summary = "2-D convolution, NCHW, with optional bias and groups";
  let description = [{
    ```mlir
    %y = remat.conv2d %x, %w, %b strides = [2, 2] padding = [3, 3]
        dilation = [1, 1] groups = 1
        : (tensor<32x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>)
        -> tensor<32x64x112x112xf32>
    ```
    Cross-correlation of `input` `[N, C, H, W]` with `weight`
    `[K, C / groups, R, S]`, plus the optional `bias` `[K]`; the result is
    `[N, K, OH, OW]` with
    `OH = (H + 2 * padding[0] - dilation[0] * (R - 1) - 1) / strides[0] + 1`
    (integer division) and likewise `OW` with index 1. `strides`, `padding`
    (symmetric, per side) and `dilation` are `[height, width]` pairs;
    `groups` must divide both `C` and `K` (`groups = C = K` is depthwise).
    All tensors share one element type.

    Planner facts: conv; `2 * N * K * OH * OW * (C / groups) * R * S` FLOPs,
    plus `N * K * OH * OW` for the bias.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$weight,
                       Optional<Remat_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? `strides` `=` $strides
    `padding` `=` $padding `dilation` `=` $dilation `groups` `=` $groups
    attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_Conv2dBackwardInputOp : Remat_NNOp<"conv2d_backward_input"> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    ```mlir
    %gx = remat.conv2d_backward_input %gy, %w strides = [2, 2] padding = [3, 3]
        dilation = [1, 1] groups = 1
        : (tensor<32x64x112x112xf32>, tensor<64x3x7x7xf32>)
        -> tensor<32x3x224x224xf32>
    ```
    The transposed convolution of `grad` (`[N, K, OH, OW]`, the gradient of
    a `remat.conv2d` result) with that op's `weight`. The result type is the
    forward input's type `[N, C, H, W]`: with strides above 1 several input
    sizes give the same output size, so the type picks one. The attributes
    repeat the forward op's and the shapes must satisfy its formula.

    Planner facts: conv; the forward's `2 * N * K * OH * OW * (C / groups) *
    R * S` FLOPs.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$weight,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $weight `strides` `=` $strides `padding` `=` $padding
    `dilation` `=` $dilation `groups` `=` $groups attr-dict `:`
    functional-type(operands, results)
  }];
}

def Remat_Conv2dBackwardWeightOp : Remat_NNOp<"conv2d_backward_weight"> {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    ```mlir
    %gw = remat.conv2d_backward_weight %gy, %x strides = [2, 2]
        padding = [3, 3] dilation = [1, 1] groups = 1
        : (tensor<32x64x112x112xf32>, tensor<32x3x224x224xf32>)
        -> tensor<64x3x7x7xf32>
    ```
    Correlates the forward `input` (`[N, C, H, W]`) with `grad` (`[N, K, OH,
    OW]`) to give the weight gradient, typed like the forward weight
    `[K, C / groups, R, S]`. The attributes repeat the forward op's. The
    bias gradient is a plain sum of `grad` over N, OH and OW (a reduction
    op), so it has no op of its own.

    Planner facts: conv; the forward's `2 * N * K * OH * OW * (C / groups) *
    R * S` FLOPs.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation, I64Attr:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $input `strides` `=` $strides `padding` `=` $padding
    `dilation` `=` $dilation `groups` `=` $groups attr-dict `:`
    functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Remat_MaxPool2dOp : Remat_NNOp<"max_pool2d"> {
  let summary = "2-D max pooling, NCHW, returning the argmax indices";
  let description = [{
    ```mlir
    %y, %idx = remat.max_pool2d %x kernel = [3, 3] strides = [2, 2]
        padding = [1, 1]
        : (tensor<32x64x112x112xf32>)
        -> (tensor<32x64x56x56xf32>, tensor<32x64x56x56xi64>)
    ```
    Maximum over `kernel` windows of `input` `[N, C, H, W]` (padding counts
    as minus infinity); the result is `[N, C, OH, OW]` with
    `OH = (H + 2 * padding[0] - kernel[0]) / strides[0] + 1` (floor) and
    likewise `OW`. Padding may be at most half the kernel, as in PyTorch.
    `indices` (i64, the result's shape) holds, for each output, the flat
    position `h * W + w` of the maximum in its input plane; it is what
    `remat.max_pool2d_backward` reads.

    Planner facts: reduction; one comparison per window element,
    `N * C * OH * OW * kernel[0] * kernel[1]` FLOPs.
  }];
  let arguments = (ins Remat_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding);
  let results = (outs Remat_FloatTensor:$result, Remat_IndexTensor:$indices);
  let assemblyFormat = [{
    $input `kernel` `=` $kernel `strides` `=` $strides `padding` `=` $padding
    attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_MaxPool2dBackwardOp : Remat_NNOp<"max_pool2d_backward"> {
  let summary = "gradient of 2-D max pooling, from its indices";
  let description = [{
    ```mlir
    %gx = remat.max_pool2d_backward %gy, %idx kernel = [3, 3]
        strides = [2, 2] padding = [1, 1]
        : (tensor<32x64x56x56xf32>, tensor<32x64x56x56xi64>)
        -> tensor<32x64x112x112xf32>
    ```
    Scatters (adds) each element of `grad` to the input position that
    `indices` (from `remat.max_pool2d`) names; the result type is the
    forward input's type. Unlike PyTorch's signature, the forward input is
    not an operand: only its shape is needed, which the result type gives,
    so a plan need not keep the input alive for this op. The attributes
    repeat the forward op's and the shapes must satisfy its formula.

    Planner facts: reduction; 1 FLOP per element of `grad`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_IndexTensor:$indices,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `,` $indices `kernel` `=` $kernel `strides` `=` $strides
    `padding` `=` $padding attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_AvgPool2dOp : Remat_NNOp<"avg_pool2d"> {
  let summary = "2-D average pooling, NCHW";
  let description = [{
    ```mlir
    %y = remat.avg_pool2d %x kernel = [2, 2] strides = [2, 2] padding = [0, 0]
        : (tensor<8x16x32x32xf32>) -> tensor<8x16x16x16xf32>
    ```
    Mean over `kernel` windows of `input` `[N, C, H, W]`, shapes as in
    `remat.max_pool2d`. `count_include_pad` (default true, as PyTorch)
    decides whether padded positions count in the divisor.

    Planner facts: reduction; `N * C * OH * OW * (kernel[0] * kernel[1] + 1)`
    FLOPs (window sum and one division).
  }];
  let arguments = (ins Remat_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input `kernel` `=` $kernel `strides` `=` $strides `padding` `=` $padding
    attr-dict `:` functional-type(operands, results)
  }];
}

def Remat_AvgPool2dBackwardOp : Remat_NNOp<"avg_pool2d_backward"> {
  let summary = "gradient of 2-D average pooling";
  let description = [{
    ```mlir
    %gx = remat.avg_pool2d_backward %gy kernel = [2, 2] strides = [2, 2]
        padding = [0, 0]
        : (tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
    ```
    Spreads each element of `grad` evenly over its window; the result type
    is the forward input's type (the input itself is not needed). The
    attributes, `count_include_pad` included, repeat the forward op's and
    the shapes must satisfy its formula.

    Planner facts: reduction; `N * C * OH * OW * kernel[0] * kernel[1]`
    FLOPs.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<BoolAttr, "true">:$count_include_pad);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $grad `kernel` `=` $kernel `strides` `=` $strides `padding` `=` $padding
    attr-dict `:` functional-type(operands, results)
  }];
}

#endif // REMAT_DIALECT_REMAT_IR_REMATNNOPS_TD
