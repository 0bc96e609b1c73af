#!/usr/bin/env python3
"""Writes the transformer-layer examples of remat, at real and small shapes.

    python3 examples/generate_layers.py            # rewrite the .mlir files
    python3 examples/generate_layers.py --check    # exit 1 if any is stale

One description of each layer gives every size and both graph forms, so the
Llama-2-7B layer and its 64-wide test version cannot drift apart, and the
joint graph's backward always mirrors its forward. The generated files are
committed; test/Examples/generated-up-to-date.test runs --check.

Graph forms (docs/Dialect.md):
  * forward: remat.graph = "forward", inputs and parameters in, the layer
    output out; the input of the future autodiff pass.
  * joint: remat.graph = "joint", primals plus the tangent of the layer output
    in, the layer output plus the gradient of the input and of every weight
    out. The backward is written op by op as AOTAutograd emits it (a linear's
    backward as two matmuls with transpose flags and a bias sum, an add's
    backward as nothing, norm/attention/activation backward ops reading the
    forward values they need). Backward ops read forward values directly:
    the joint graph saves nothing itself, the planner decides.

Only the Python standard library is used.
"""

import argparse
import math
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))


def tensor(shape, dtype):
    if not shape:
        return f"tensor<{dtype}>"
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{dtype}>"


def fmt_float(value):
    """A float literal MLIR parses back to the same f64 (MLIR needs a dot in
    the mantissa: 1.0e-05, not Python's 1e-05)."""
    text = repr(float(value))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + ("e" + exponent if exponent else "")


class Function:
    """Collects arguments, body lines and results of one func.func."""

    def __init__(self, name, graph):
        self.name = name
        self.graph = graph
        self.args = []  # (ssa, type, role)
        self.lines = []
        self.results = []  # (ssa, type, attrs)

    def arg(self, ssa, ty, role):
        self.args.append((ssa, ty, role))
        return ssa

    def comment(self, text):
        for line in textwrap.wrap(text, 76):
            self.lines.append(f"  // {line}")

    def blank(self):
        self.lines.append("")

    def op(self, line):
        self.lines.append(f"  {line}")

    def result(self, ssa, ty, role, grad_of=None):
        attrs = f'remat.role = "{role}"'
        if grad_of is not None:
            attrs += f", remat.grad_of = {grad_of}"
        self.results.append((ssa, ty, attrs))

    def index_of(self, ssa):
        for index, (name, _, _) in enumerate(self.args):
            if name == ssa:
                return index
        raise KeyError(ssa)

    def render(self):
        out = []
        arg_lines = [f'{ssa}: {ty} {{remat.role = "{role}"}}'
                     for ssa, ty, role in self.args]
        out.append(f"func.func @{self.name}(")
        out.append(",\n".join("    " + a for a in arg_lines))
        res_lines = [f"{ty} {{{attrs}}}" for _, ty, attrs in self.results]
        out[-1] += ")"
        out.append("    -> (" + ",\n        ".join(res_lines) + ")")
        out.append(f'    attributes {{remat.graph = "{self.graph}"}} {{')
        out.extend(self.lines)
        values = ", ".join(ssa for ssa, _, _ in self.results)
        types = ", ".join(ty for _, ty, _ in self.results)
        out.append(f"  return {values} : {types}")
        out.append("}")
        return "\n".join(out) + "\n"


class Emitter:
    """Op helpers with the exact remat syntax (see the .td files)."""

    def __init__(self, fn):
        self.fn = fn

    @staticmethod
    def attrs(*entries):
        entries = [e for e in entries if e]
        return " {" + ", ".join(entries) + "}" if entries else ""

    def reshape(self, out, x, src, dst, name=None):
        a = self.attrs(f'remat.name = "{name}"' if name else None)
        self.fn.op(f"{out} = remat.reshape {x}{a} : ({src}) -> {dst}")
        return out

    def transpose(self, out, x, perm, src, dst):
        p = ", ".join(str(i) for i in perm)
        self.fn.op(f"{out} = remat.transpose {x} {{permutation = "
                   f"array<i64: {p}>}} : ({src}) -> {dst}")
        return out

    def matmul(self, out, a, b, ta, tb, result, name=None, flags=(),
               transpose_a=False, transpose_b=False):
        a_attrs = self.attrs("transpose_a" if transpose_a else None,
                             "transpose_b" if transpose_b else None,
                             f'remat.name = "{name}"' if name else None,
                             *flags)
        self.fn.op(f"{out} = remat.matmul {a}, {b}{a_attrs}")
        self.fn.op(f"    : ({ta}, {tb}) -> {result}")
        return out

    def binary(self, opname, out, a, b, ty, name=None):
        a_attrs = self.attrs(f'remat.name = "{name}"' if name else None)
        self.fn.op(f"{out} = remat.{opname} {a}, {b}{a_attrs} : {ty}")
        return out

    def unary(self, opname, out, x, ty, extra=None, name=None):
        a_attrs = self.attrs(extra, f'remat.name = "{name}"' if name else None)
        self.fn.op(f"{out} = remat.{opname} {x}{a_attrs} : {ty}")
        return out

    def sum(self, out, x, dims, src, dst):
        d = ", ".join(str(i) for i in dims)
        self.fn.op(f"{out} = remat.sum {x} {{dims = array<i64: {d}>}} "
                   f": ({src}) -> {dst}")
        return out


# Model configurations: (batch, seq, hidden, heads, ff, dtype).
LLAMA2_7B = dict(batch=1, seq=4096, hidden=4096, heads=32, ff=11008,
                 dtype="bf16", eps=1e-5)
LLAMA_SMALL = dict(batch=1, seq=16, hidden=64, heads=4, ff=172,
                   dtype="bf16", eps=1e-5)
# GPT-3 2.7B: h = 2560, a = 32, s = 2048, FF = 4h (Brown et al. 2020).
GPT_2_7B = dict(batch=1, seq=2048, hidden=2560, heads=32, ff=10240,
                dtype="f16", eps=1e-5, p=0.1)
GPT_SMALL = dict(batch=2, seq=16, hidden=64, heads=4, ff=256,
                 dtype="f16", eps=1e-5, p=0.1)


def llama_layer(cfg, joint, fn_name):
    B, S, H, NH, FF, dt = (cfg[k] for k in
                           ("batch", "seq", "hidden", "heads", "ff", "dtype"))
    HD = H // NH
    T = B * S
    eps = fmt_float(cfg["eps"])
    scale = fmt_float(1.0 / math.sqrt(HD))
    t3 = tensor([B, S, H], dt)
    tTH = tensor([T, H], dt)
    tTF = tensor([T, FF], dt)
    tHH = tensor([H, H], dt)
    tFH = tensor([FF, H], dt)
    tHF = tensor([H, FF], dt)
    tH = tensor([H], dt)
    tT32 = tensor([T], "f32")
    tSplit = tensor([B, S, NH, HD], dt)
    tHeads = tensor([B, NH, S, HD], dt)
    tLse = tensor([B, NH, S], "f32")

    fn = Function(fn_name, "joint" if joint else "forward")
    e = Emitter(fn)
    fn.arg("%x", t3, "input")
    fn.arg("%attn_norm_w", tH, "param")
    fn.arg("%wq", tHH, "param")
    fn.arg("%wk", tHH, "param")
    fn.arg("%wv", tHH, "param")
    fn.arg("%wo", tHH, "param")
    fn.arg("%mlp_norm_w", tH, "param")
    fn.arg("%wi_0", tFH, "param")
    fn.arg("%wi_1", tFH, "param")
    fn.arg("%wo_mlp", tHF, "param")
    if joint:
        fn.arg("%dy", t3, "tangent")

    fn.comment("---- forward ----")
    fn.comment("Tokens as rows: [batch*seq, hidden]. Weights are [out, in] "
               "(PyTorch/MaxText), so projections use transpose_b.")
    e.reshape("%h0", "%x", t3, tTH, name="decoder_layer_input")
    if joint:
        fn.op(f"%xn, %rstd1 = remat.rmsnorm %h0, %attn_norm_w eps = {eps} "
              f'{{remat.name = "pre_self_attention_layer_norm"}}')
        fn.op(f"    : ({tTH}, {tH}) -> ({tTH}, {tT32})")
    else:
        fn.op(f"%xn = remat.rmsnorm %h0, %attn_norm_w eps = {eps} "
              f'{{remat.name = "pre_self_attention_layer_norm"}}')
        fn.op(f"    : ({tTH}, {tH}) -> {tTH}")
    for proj, w, name in (("%q", "%wq", "query_proj"), ("%k", "%wk", "key_proj"),
                          ("%v", "%wv", "value_proj")):
        e.matmul(proj, "%xn", w, tTH, tHH, tTH, name=name, transpose_b=True)
    fn.comment(f"Split into {NH} heads of {HD}: [B, S, NH, HD] -> [B, NH, S, HD]. "
               "(Rotary embeddings are left out: pointwise, they change "
               "nothing the planner decides here.)")
    for v in ("q", "k", "v"):
        e.reshape(f"%{v}_split", f"%{v}", tTH, tSplit)
        e.transpose(f"%{v}_heads", f"%{v}_split", (0, 2, 1, 3), tSplit, tHeads)
    fn.comment("Fused causal attention. Recomputing it in backward costs a "
               "full attention forward: automatic planning must never choose "
               "to (the Thunder SDPA regression); a user policy still may.")
    fn.op(f"%attn, %lse = remat.sdpa %q_heads, %k_heads, %v_heads scale = {scale} "
          f'{{causal, remat.name = "attention_out", remat.no_auto_recompute}}')
    fn.op(f"    : ({tHeads}, {tHeads}, {tHeads}) -> ({tHeads}, {tLse})")
    e.transpose("%attn_t", "%attn", (0, 2, 1, 3), tHeads, tSplit)
    e.reshape("%attn_rows", "%attn_t", tSplit, tTH)
    e.matmul("%out_proj", "%attn_rows", "%wo", tTH, tHH, tTH, name="out_proj",
             transpose_b=True)
    e.binary("add", "%h1", "%h0", "%out_proj", tTH, name="intermediate_inputs")
    if joint:
        fn.op(f"%hn, %rstd2 = remat.rmsnorm %h1, %mlp_norm_w eps = {eps} "
              f'{{remat.name = "post_self_attention_layer_norm"}}')
        fn.op(f"    : ({tTH}, {tH}) -> ({tTH}, {tT32})")
    else:
        fn.op(f"%hn = remat.rmsnorm %h1, %mlp_norm_w eps = {eps} "
              f'{{remat.name = "post_self_attention_layer_norm"}}')
        fn.op(f"    : ({tTH}, {tH}) -> {tTH}")
    fn.comment("SwiGLU MLP.")
    e.matmul("%gate", "%hn", "%wi_0", tTH, tFH, tTF, name="mlpwi_0",
             transpose_b=True)
    e.unary("silu", "%gate_act", "%gate", tTF)
    e.matmul("%up", "%hn", "%wi_1", tTH, tFH, tTF, name="mlpwi_1",
             transpose_b=True)
    e.binary("mul", "%mlp_act", "%gate_act", "%up", tTF, name="mlp_activation")
    e.matmul("%down", "%mlp_act", "%wo_mlp", tTF, tHF, tTH, name="mlpwo",
             transpose_b=True)
    e.binary("add", "%h2", "%h1", "%down", tTH, name="layer_output")
    e.reshape("%y", "%h2", tTH, t3)
    fn.result("%y", t3, "output")
    if not joint:
        return fn.render()

    fn.blank()
    fn.comment("---- backward ----")
    fn.comment("No backward op reads %down (mlpwo): a matmul's backward reads "
               "its inputs, an add's backward reads nothing.")
    e.reshape("%dh2", "%dy", t3, tTH)
    fn.comment("layer_output = h1 + down: both gradients are %dh2.")
    fn.comment("down = mlp_act @ wo_mlp^T")
    e.matmul("%d_mlp_act", "%dh2", "%wo_mlp", tTH, tHF, tTF)
    e.matmul("%d_wo_mlp", "%dh2", "%mlp_act", tTH, tTF, tHF, transpose_a=True)
    fn.comment("mlp_act = gate_act * up")
    e.binary("mul", "%d_gate_act", "%d_mlp_act", "%up", tTF)
    e.binary("mul", "%d_up", "%d_mlp_act", "%gate_act", tTF)
    e.fn.op(f"%d_gate = remat.silu_backward %d_gate_act, %gate : {tTF}")
    fn.comment("up = hn @ wi_1^T, gate = hn @ wi_0^T")
    e.matmul("%d_hn_up", "%d_up", "%wi_1", tTF, tFH, tTH)
    e.matmul("%d_wi_1", "%d_up", "%hn", tTF, tTH, tFH, transpose_a=True)
    e.matmul("%d_hn_gate", "%d_gate", "%wi_0", tTF, tFH, tTH)
    e.matmul("%d_wi_0", "%d_gate", "%hn", tTF, tTH, tFH, transpose_a=True)
    e.binary("add", "%d_hn", "%d_hn_up", "%d_hn_gate", tTH)
    fn.op("%d_h1_norm, %d_mlp_norm_w = remat.rmsnorm_backward "
          "%d_hn, %h1, %mlp_norm_w, %rstd2")
    fn.op(f"    : ({tTH}, {tTH}, {tH}, {tT32}) -> ({tTH}, {tH})")
    fn.comment("Residual: h1 feeds both the norm and layer_output.")
    e.binary("add", "%dh1", "%dh2", "%d_h1_norm", tTH)
    fn.comment("h1 = h0 + out_proj: both gradients are %dh1. "
               "out_proj = attn_rows @ wo^T")
    e.matmul("%d_attn_rows", "%dh1", "%wo", tTH, tHH, tTH)
    e.matmul("%d_wo", "%dh1", "%attn_rows", tTH, tTH, tHH, transpose_a=True)
    e.reshape("%d_attn_t", "%d_attn_rows", tTH, tSplit)
    e.transpose("%d_attn", "%d_attn_t", (0, 2, 1, 3), tSplit, tHeads)
    fn.op("%d_q_heads, %d_k_heads, %d_v_heads = remat.sdpa_backward "
          f"%d_attn, %q_heads, %k_heads, %v_heads, %attn, %lse scale = {scale} "
          "{causal}")
    fn.op(f"    : ({tHeads}, {tHeads}, {tHeads}, {tHeads}, {tHeads}, {tLse})")
    fn.op(f"    -> ({tHeads}, {tHeads}, {tHeads})")
    for v, w in (("q", "%wq"), ("k", "%wk"), ("v", "%wv")):
        e.transpose(f"%d_{v}_split", f"%d_{v}_heads", (0, 2, 1, 3), tHeads,
                    tSplit)
        e.reshape(f"%d_{v}", f"%d_{v}_split", tSplit, tTH)
        e.matmul(f"%d_xn_{v}", f"%d_{v}", w, tTH, tHH, tTH)
        e.matmul(f"%d_w{v}", f"%d_{v}", "%xn", tTH, tTH, tHH, transpose_a=True)
    e.binary("add", "%d_xn_qk", "%d_xn_q", "%d_xn_k", tTH)
    e.binary("add", "%d_xn", "%d_xn_qk", "%d_xn_v", tTH)
    fn.op("%d_h0_norm, %d_attn_norm_w = remat.rmsnorm_backward "
          "%d_xn, %h0, %attn_norm_w, %rstd1")
    fn.op(f"    : ({tTH}, {tTH}, {tH}, {tT32}) -> ({tTH}, {tH})")
    e.binary("add", "%dh0", "%dh1", "%d_h0_norm", tTH)
    e.reshape("%dx", "%dh0", tTH, t3)

    fn.result("%dx", t3, "grad", fn.index_of("%x"))
    for grad, arg, ty in (("%d_attn_norm_w", "%attn_norm_w", tH),
                          ("%d_wq", "%wq", tHH), ("%d_wk", "%wk", tHH),
                          ("%d_wv", "%wv", tHH), ("%d_wo", "%wo", tHH),
                          ("%d_mlp_norm_w", "%mlp_norm_w", tH),
                          ("%d_wi_0", "%wi_0", tFH), ("%d_wi_1", "%wi_1", tFH),
                          ("%d_wo_mlp", "%wo_mlp", tHF)):
        fn.result(grad, ty, "grad", fn.index_of(arg))
    return fn.render()


def gpt_layer(cfg, joint, fn_name):
    B, S, H, NH, FF, dt = (cfg[k] for k in
                           ("batch", "seq", "hidden", "heads", "ff", "dtype"))
    HD = H // NH
    T = B * S
    eps = fmt_float(cfg["eps"])
    p = fmt_float(cfg["p"])
    scale = fmt_float(1.0 / math.sqrt(HD))
    t3 = tensor([B, S, H], dt)
    tTH = tensor([T, H], dt)
    tT3H = tensor([T, 3 * H], dt)
    tTF = tensor([T, FF], dt)
    tTHm = tensor([T, H], "i1")
    tTFm = tensor([T, FF], "i1")
    tH = tensor([H], dt)
    t3H = tensor([3 * H], dt)
    tF = tensor([FF], dt)
    tW_qkv = tensor([3 * H, H], dt)
    tW_proj = tensor([H, H], dt)
    tW_fc1 = tensor([FF, H], dt)
    tW_fc2 = tensor([H, FF], dt)
    tT32 = tensor([T], "f32")
    tSplit = tensor([B, S, NH, HD], dt)
    tHeads = tensor([B, NH, S, HD], dt)
    tScores = tensor([B, NH, S, S], dt)
    tScoresMask = tensor([B, NH, S, S], "i1")
    tCausal = tensor([S, S], "i1")
    tScalar = tensor([], dt)
    tRng = tensor([], "i64")

    fn = Function(fn_name, "joint" if joint else "forward")
    e = Emitter(fn)
    fn.arg("%x", t3, "input")
    fn.arg("%causal_mask", tCausal, "input")
    params = [("%ln1_w", tH), ("%ln1_b", tH), ("%w_qkv", tW_qkv),
              ("%b_qkv", t3H), ("%w_proj", tW_proj), ("%b_proj", tH),
              ("%ln2_w", tH), ("%ln2_b", tH), ("%w_fc1", tW_fc1),
              ("%b_fc1", tF), ("%w_fc2", tW_fc2), ("%b_fc2", tH)]
    for ssa, ty in params:
        fn.arg(ssa, ty, "param")
    fn.arg("%rng_seed", tRng, "rng")
    fn.arg("%rng_offset_attn", tRng, "rng")
    fn.arg("%rng_offset_proj", tRng, "rng")
    fn.arg("%rng_offset_mlp", tRng, "rng")
    if joint:
        fn.arg("%dy", t3, "tangent")

    fn.comment("---- forward ----")
    fn.comment(f"Megatron GPT layer: s = {S}, b = {B}, h = {H}, a = {NH}, "
               f"{dt} activations, 1-byte (i1) dropout masks.")
    e.reshape("%h0", "%x", t3, tTH, name="decoder_layer_input")
    fn.op(f"%ln1, %ln1_mean, %ln1_rstd = remat.layernorm %h0, %ln1_w, %ln1_b "
          f"eps = {eps}")
    fn.op(f"    : ({tTH}, {tH}, {tH}) -> ({tTH}, {tT32}, {tT32})")
    fn.op('%qkv = remat.linear %ln1, %w_qkv, %b_qkv {remat.name = "qkv_proj"}')
    fn.op(f"    : ({tTH}, {tW_qkv}, {t3H}) -> {tT3H}")
    for i, v in enumerate(("q", "k", "v")):
        fn.op(f"%{v}_rows = remat.slice %qkv {{offsets = array<i64: 0, {i * H}>, "
              f"sizes = array<i64: {T}, {H}>}} : ({tT3H}) -> {tTH}")
        e.reshape(f"%{v}_split", f"%{v}_rows", tTH, tSplit)
        e.transpose(f"%{v}_heads", f"%{v}_split", (0, 2, 1, 3), tSplit, tHeads)
    fn.comment("Attention core, unfused (Megatron's accounting: softmax output, "
               "dropout mask and dropout output are activations).")
    e.matmul("%scores", "%q_heads", "%k_heads", tHeads, tHeads, tScores,
             name="attention_scores", transpose_b=True)
    fn.op(f"%scaled = remat.mul_scalar %scores, {scale} : {tScores}")
    fn.op(f"%masked_fill = remat.constant dense<-1.000000e+04> : {tScalar}")
    fn.op(f"%masked_fill_b = remat.broadcast %masked_fill : ({tScalar}) -> "
          f"{tScores}")
    fn.op(f"%causal_b = remat.broadcast %causal_mask : ({tCausal}) -> "
          f"{tScoresMask}")
    fn.comment("%causal_mask is true where a key lies in the future of the "
               "query (masked out).")
    fn.op(f"%masked = remat.where %causal_b, %masked_fill_b, %scaled : "
          f"{tScoresMask}, {tScores}")
    fn.op(f'%probs = remat.softmax %masked dim = 3 {{remat.name = '
          f'"attention_probs"}} : {tScores}')
    fn.op(f"%probs_drop, %probs_mask = remat.dropout %probs, %rng_seed, "
          f"%rng_offset_attn p = {p}")
    fn.op(f"    : ({tScores}, {tRng}, {tRng}) -> ({tScores}, {tScoresMask})")
    e.matmul("%context", "%probs_drop", "%v_heads", tScores, tHeads, tHeads,
             name="context")
    e.transpose("%context_t", "%context", (0, 2, 1, 3), tHeads, tSplit)
    e.reshape("%context_rows", "%context_t", tSplit, tTH)
    fn.op('%proj = remat.linear %context_rows, %w_proj, %b_proj '
          '{remat.name = "out_proj"}')
    fn.op(f"    : ({tTH}, {tW_proj}, {tH}) -> {tTH}")
    fn.op(f"%proj_drop, %proj_mask = remat.dropout %proj, %rng_seed, "
          f"%rng_offset_proj p = {p}")
    fn.op(f"    : ({tTH}, {tRng}, {tRng}) -> ({tTH}, {tTHm})")
    e.binary("add", "%h1", "%h0", "%proj_drop", tTH, name="attention_residual")
    fn.op(f"%ln2, %ln2_mean, %ln2_rstd = remat.layernorm %h1, %ln2_w, %ln2_b "
          f"eps = {eps}")
    fn.op(f"    : ({tTH}, {tH}, {tH}) -> ({tTH}, {tT32}, {tT32})")
    fn.op('%fc1 = remat.linear %ln2, %w_fc1, %b_fc1 {remat.name = "mlpwi"}')
    fn.op(f"    : ({tTH}, {tW_fc1}, {tF}) -> {tTF}")
    e.unary("gelu", "%gelu", "%fc1", tTF, extra='approximate = "tanh"')
    fn.op('%fc2 = remat.linear %gelu, %w_fc2, %b_fc2 {remat.name = "mlpwo"}')
    fn.op(f"    : ({tTF}, {tW_fc2}, {tH}) -> {tTH}")
    fn.op(f"%fc2_drop, %fc2_mask = remat.dropout %fc2, %rng_seed, "
          f"%rng_offset_mlp p = {p}")
    fn.op(f"    : ({tTH}, {tRng}, {tRng}) -> ({tTH}, {tTHm})")
    e.binary("add", "%h2", "%h1", "%fc2_drop", tTH, name="layer_output")
    e.reshape("%y", "%h2", tTH, t3)
    fn.result("%y", t3, "output")
    if not joint:
        return fn.render()

    fn.blank()
    fn.comment("---- backward ----")
    e.reshape("%dh2", "%dy", t3, tTH)
    fn.comment("layer_output = h1 + fc2_drop: both gradients are %dh2.")
    fn.op(f"%d_fc2 = remat.dropout_backward %dh2, %fc2_mask p = {p} : "
          f"({tTH}, {tTHm}) -> {tTH}")
    fn.comment("fc2 = gelu @ w_fc2^T + b_fc2")
    e.matmul("%d_gelu", "%d_fc2", "%w_fc2", tTH, tW_fc2, tTF)
    e.matmul("%d_w_fc2", "%d_fc2", "%gelu", tTH, tTF, tW_fc2, transpose_a=True)
    e.sum("%d_b_fc2", "%d_fc2", (0,), tTH, tH)
    fn.op(f'%d_fc1 = remat.gelu_backward %d_gelu, %fc1 {{approximate = "tanh"}} '
          f": {tTF}")
    e.matmul("%d_ln2", "%d_fc1", "%w_fc1", tTF, tW_fc1, tTH)
    e.matmul("%d_w_fc1", "%d_fc1", "%ln2", tTF, tTH, tW_fc1, transpose_a=True)
    e.sum("%d_b_fc1", "%d_fc1", (0,), tTF, tF)
    fn.op("%d_h1_norm, %d_ln2_w, %d_ln2_b = remat.layernorm_backward "
          "%d_ln2, %h1, %ln2_w, %ln2_mean, %ln2_rstd")
    fn.op(f"    : ({tTH}, {tTH}, {tH}, {tT32}, {tT32}) -> ({tTH}, {tH}, {tH})")
    e.binary("add", "%dh1", "%dh2", "%d_h1_norm", tTH)
    fn.comment("h1 = h0 + proj_drop")
    fn.op(f"%d_proj = remat.dropout_backward %dh1, %proj_mask p = {p} : "
          f"({tTH}, {tTHm}) -> {tTH}")
    e.matmul("%d_context_rows", "%d_proj", "%w_proj", tTH, tW_proj, tTH)
    e.matmul("%d_w_proj", "%d_proj", "%context_rows", tTH, tTH, tW_proj,
             transpose_a=True)
    e.sum("%d_b_proj", "%d_proj", (0,), tTH, tH)
    e.reshape("%d_context_t", "%d_context_rows", tTH, tSplit)
    e.transpose("%d_context", "%d_context_t", (0, 2, 1, 3), tSplit, tHeads)
    fn.comment("context = probs_drop @ v")
    e.matmul("%d_probs_drop", "%d_context", "%v_heads", tHeads, tHeads,
             tScores, transpose_b=True)
    e.matmul("%d_v_heads", "%probs_drop", "%d_context", tScores, tHeads,
             tHeads, transpose_a=True)
    fn.op(f"%d_probs = remat.dropout_backward %d_probs_drop, %probs_mask "
          f"p = {p} : ({tScores}, {tScoresMask}) -> {tScores}")
    fn.op(f"%d_masked = remat.softmax_backward %d_probs, %probs dim = 3 : "
          f"{tScores}")
    fn.op(f"%zero = remat.constant dense<0.000000e+00> : {tScalar}")
    fn.op(f"%zero_b = remat.broadcast %zero : ({tScalar}) -> {tScores}")
    fn.comment("The mask is broadcast again from the input rather than read "
               "through the forward's view, so the backward reads an input, "
               "not an activation.")
    fn.op(f"%causal_b_bwd = remat.broadcast %causal_mask : ({tCausal}) -> "
          f"{tScoresMask}")
    fn.op(f"%d_scaled = remat.where %causal_b_bwd, %zero_b, %d_masked : "
          f"{tScoresMask}, {tScores}")
    fn.op(f"%d_scores = remat.mul_scalar %d_scaled, {scale} : {tScores}")
    fn.comment("scores = q @ k^T")
    e.matmul("%d_q_heads", "%d_scores", "%k_heads", tScores, tHeads, tHeads)
    e.matmul("%d_k_heads", "%d_scores", "%q_heads", tScores, tHeads, tHeads,
             transpose_a=True)
    for v in ("q", "k", "v"):
        e.transpose(f"%d_{v}_split", f"%d_{v}_heads", (0, 2, 1, 3), tHeads,
                    tSplit)
        e.reshape(f"%d_{v}_rows", f"%d_{v}_split", tSplit, tTH)
    fn.op(f"%d_qkv = remat.concat %d_q_rows, %d_k_rows, %d_v_rows {{dim = 1}}")
    fn.op(f"    : ({tTH}, {tTH}, {tTH}) -> {tT3H}")
    e.matmul("%d_ln1", "%d_qkv", "%w_qkv", tT3H, tW_qkv, tTH)
    e.matmul("%d_w_qkv", "%d_qkv", "%ln1", tT3H, tTH, tW_qkv, transpose_a=True)
    e.sum("%d_b_qkv", "%d_qkv", (0,), tT3H, t3H)
    fn.op("%d_h0_norm, %d_ln1_w, %d_ln1_b = remat.layernorm_backward "
          "%d_ln1, %h0, %ln1_w, %ln1_mean, %ln1_rstd")
    fn.op(f"    : ({tTH}, {tTH}, {tH}, {tT32}, {tT32}) -> ({tTH}, {tH}, {tH})")
    e.binary("add", "%dh0", "%dh1", "%d_h0_norm", tTH)
    e.reshape("%dx", "%dh0", tTH, t3)

    fn.result("%dx", t3, "grad", fn.index_of("%x"))
    for ssa, ty in params:
        fn.result("%d_" + ssa[1:], ty, "grad", fn.index_of(ssa))
    return fn.render()


def header(title, lines):
    text = ["// " + line for line in textwrap.wrap(title, 77)] + ["//"]
    text += [f"// {line}" if line else "//" for line in lines]
    text += ["//", "// Generated by examples/generate_layers.py; edit that "
             "script, not this file.", ""]
    return "\n".join(text) + "\n"


def llama_desc(cfg):
    HD = cfg["hidden"] // cfg["heads"]
    return (f"batch {cfg['batch']}, sequence {cfg['seq']}, hidden "
            f"{cfg['hidden']}, {cfg['heads']} heads of {HD}, FF {cfg['ff']}, "
            f"{cfg['dtype']}")


def gpt_desc(cfg):
    return (f"s = {cfg['seq']}, b = {cfg['batch']}, h = {cfg['hidden']}, "
            f"a = {cfg['heads']}, FF {cfg['ff']}, {cfg['dtype']}, dropout "
            f"p = {cfg['p']}")


LLAMA_NOTES = [
    "Structure (MaxText names on the ops): decoder_layer_input, RMSNorm,",
    "query_proj / key_proj / value_proj, heads, fused causal SDPA",
    "(attention_out, tagged remat.no_auto_recompute), out_proj, residual add,",
    "RMSNorm, SwiGLU MLP (mlpwi_0 with silu, mlpwi_1, mul, mlpwo), residual.",
]
GPT_NOTES = [
    "Megatron-style: LayerNorm, QKV linear, attention with an explicit",
    "softmax and dropout on the probabilities, out projection + dropout +",
    "residual, LayerNorm, fc1, GeLU, fc2, dropout, residual. Dropout draws",
    "from explicit RNG state (remat.role = \"rng\" arguments), so a recompute",
    "regenerates the same mask. The forward values the backward reads are",
    "Megatron's activations, sbh(34 + 5as/h) bytes (Korthikanti et al. 2022,",
    "counting the layer input), plus the two layer norms' f32 mean and rstd",
    "(4 vectors of s*b floats), which that accounting ignores.",
]


def outputs():
    files = {}
    for sub, cfg, label in (("", LLAMA2_7B, "Llama-2-7B"),
                            ("small/", LLAMA_SMALL, "Small Llama-style")):
        desc = llama_desc(cfg)
        files[f"{sub}llama2_decoder_layer.mlir"] = header(
            f"{label} decoder layer, joint (forward + backward) form: {desc}.",
            LLAMA_NOTES + ["", "The forward-only form is "
                           "llama2_decoder_layer_forward.mlir."]) + \
            llama_layer(cfg, True, "llama2_decoder_layer")
        files[f"{sub}llama2_decoder_layer_forward.mlir"] = header(
            f"{label} decoder layer, forward-only form: {desc}.",
            LLAMA_NOTES + ["", "The joint form is llama2_decoder_layer.mlir."]
        ) + llama_layer(cfg, False, "llama2_decoder_layer_forward")
    for sub, cfg, label in (("", GPT_2_7B, "GPT-3 2.7B-shaped"),
                            ("small/", GPT_SMALL, "Small GPT-style")):
        desc = gpt_desc(cfg)
        files[f"{sub}gpt_layer_dropout.mlir"] = header(
            f"{label} transformer layer with dropout, joint form: {desc}.",
            GPT_NOTES + ["", "The forward-only form is "
                         "gpt_layer_dropout_forward.mlir."]) + \
            gpt_layer(cfg, True, "gpt_layer_dropout")
        files[f"{sub}gpt_layer_dropout_forward.mlir"] = header(
            f"{label} transformer layer with dropout, forward-only form: "
            f"{desc}.",
            GPT_NOTES + ["", "The joint form is gpt_layer_dropout.mlir."]) + \
            gpt_layer(cfg, False, "gpt_layer_dropout_forward")
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing; exit 1 if stale")
    parser.add_argument("--dir", default=HERE,
                        help="examples directory (default: this script's)")
    args = parser.parse_args()
    stale = []
    for relative, text in outputs().items():
        path = os.path.join(args.dir, relative)
        if args.check:
            try:
                with open(path, encoding="utf-8") as f:
                    current = f.read()
            except OSError:
                current = None
            if current != text:
                stale.append(relative)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    if stale:
        print("stale generated examples (run python3 "
              "examples/generate_layers.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
