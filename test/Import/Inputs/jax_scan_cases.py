"""Scanned layers (issue #18 item 4): remat_jax plans the body of a
top-level lax.scan once and applies the plan to every iteration.

For llama_scan (MaxText's scan_layers) at 3 and 5 layers, under remat's
default strategy and MaxText's `full` policy:

- the body's joint graph has the same ops for 3 and 5 layers (planned
  once, independent of the number of layers), while the unrolled graph
  grows with it;
- JAX's saved residuals under `remat_jax.checkpoint(fn)`
  (print_saved_residuals, arguments and constants left out: JAX keeps
  those anyway) are exactly, stacked over the layers, each checkpoint name
  the body plan saves ([N, *shape]) and the carry the body starts from
  ([N, *carry shape]); a name the plan saves on the carry itself (MaxText's
  `decoder_layer_input`) is the carry, saved once;
- `plan.scan.total_saved_bytes` is the bytes of those residuals, and
  `N x plan.scan.per_layer_saved_bytes`;
- gradients under the wrapped function equal the unwrapped function's
  bitwise, through jax.vjp and through jax.jit(jax.grad(...));
- the same residuals as MaxText's own construction, nn.scan over
  nn.remat(layer, policy=remat_jax.policy(plan)).

Also a plain lax.scan under jax.jit with two carries, per-iteration outputs
and reverse=True; scan="body" refusing two top-level scans, a nested scan,
a scan inside a custom_jvp function and a function without a scan, each
with one clear message; and scan="unroll" still planning the unrolled graph.

Prints one line per case and "scan cases: PASS"; exits 1 otherwise.
"""

import contextlib
import io
import math
import re
import sys

import numpy as np

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name, print_saved_residuals

import remat_jax
from remat_jax.models import DecoderLayer, MODELS

MAXTEXT_FULL = "save_only_these_names:decoder_layer_input"
_RESIDUAL = re.compile(r"^(\w+)\[([\d,]*)\] (.*)$")
_BYTES = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8, "i32": 4, "bool": 1}


def jax_residuals(fn, args):
    """(dtype, shape) of every residual JAX saves under `fn` that is
    neither an argument nor a constant, sorted."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_saved_residuals(fn, *args)
    found = []
    for line in printed.getvalue().splitlines():
        match = _RESIDUAL.match(line.strip())
        if not match:
            raise AssertionError(f"unexpected print_saved_residuals line: {line}")
        dtype, dims, what = match.groups()
        if what.startswith(("from the argument", "from a constant")):
            continue
        found.append((dtype, tuple(int(d) for d in dims.split(",") if d)))
    return sorted(found)


def expected_residuals(plan):
    """What JAX should save for a scan-body plan, from the plan's saved
    checkpoint names and the export: each name stacked over the
    iterations; the carries stacked; a name on a view of the carry is the
    carry."""
    exported, n = plan.export, plan.scan.length
    carry = [exported.argument_labels[i] for i in exported.scan.carry_arguments]
    on_carry = set()
    stacked = []
    for name in plan.saved_names():
        (instance,) = exported.instances(name)  # one instance in one body
        if instance in exported.argument_views and \
                exported.operands[instance][0] in carry:
            on_carry.add(exported.operands[instance][0])
            continue
        entry = plan.report.value(instance)
        stacked.append((entry["dtype"], (n,) + tuple(exported.named_shapes[instance])))
    for name in carry:
        entry = plan.report.value(name)
        if entry.get("read_by", "none") != "none" or name in on_carry:
            stacked.append((entry["dtype"], (n,) + tuple(entry["shape"])))
    return sorted(stacked)


def residual_bytes(residuals):
    return sum(_BYTES[dtype] * math.prod(shape) for dtype, shape in residuals)


def same(a, b):
    leaves_a, leaves_b = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(leaves_a) == len(leaves_b) and all(
        np.array_equal(x, y) for x, y in zip(leaves_a, leaves_b))


def gradients_equal(fn, wrapped, args):
    out = jax.eval_shape(fn, *args)
    cotangent = jax.tree_util.tree_map(
        lambda s: jax.random.normal(jax.random.PRNGKey(7), s.shape, s.dtype), out)
    plain = jax.vjp(fn, *args)[1](cotangent)
    got = jax.vjp(wrapped, *args)[1](cotangent)

    def loss(f):
        return lambda *a: sum(jnp.sum(jnp.sin(leaf))
                              for leaf in jax.tree_util.tree_leaves(f(*a)))
    jitted = jax.jit(jax.grad(loss(wrapped)))(*args)
    jitted_plain = jax.jit(jax.grad(loss(fn)))(*args)
    return same(plain, got) and same(jitted, jitted_plain)


class RematScannedDecoder(nn.Module):
    """MaxText's construction: nn.scan over nn.remat(layer, policy=...)."""
    layers: int
    heads: int
    head_dim: int
    hidden: int
    policy: object

    @nn.compact
    def __call__(self, x):
        class Step(nn.Module):
            heads: int
            head_dim: int
            hidden: int

            @nn.compact
            def __call__(self, carry, _):
                layer = DecoderLayer(self.heads, self.head_dim, self.hidden,
                                     name="layer")
                return layer(carry), None

        remat_step = nn.remat(Step, policy=self.policy, prevent_cse=False)
        scanned = nn.scan(remat_step, variable_axes={"params": 0},
                          split_rngs={"params": True}, length=self.layers)
        y, _ = scanned(self.heads, self.head_dim, self.hidden,
                       name="decoder")(x, None)
        return y


def maxtext_residuals(layers, policy, args):
    module = RematScannedDecoder(layers, 4, 8, 64, policy)

    def fn(params, x):
        return module.apply({"params": params}, x)
    return jax_residuals(fn, args), fn


def check_llama_scan(options):
    label = f"llama_scan {options or 'default'}"
    body_ops = {}
    for layers in (3, 5):
        model = MODELS["llama_scan"](layers=layers)
        wrapped = remat_jax.checkpoint(model.fn, **options)
        plan = wrapped.plan(*model.args)
        if plan.scan is None or plan.scan.length != layers:
            return f"{label}: not planned in scan-body mode for {layers} layers"
        body_ops[layers] = plan.export.mlir.count(' = "remat.')
        got = jax_residuals(wrapped, model.args)
        want = expected_residuals(plan)
        if got != want:
            return (f"{label}, {layers} layers: JAX saves {got}, the body "
                    f"plan says {want}")
        if residual_bytes(got) != plan.scan.total_saved_bytes or \
                plan.scan.total_saved_bytes != layers * plan.scan.per_layer_saved_bytes:
            return (f"{label}, {layers} layers: JAX saves "
                    f"{residual_bytes(got)} bytes, the plan says "
                    f"{plan.scan.total_saved_bytes} ({layers} x "
                    f"{plan.scan.per_layer_saved_bytes})")
        if not gradients_equal(model.fn, wrapped, model.args):
            return f"{label}, {layers} layers: gradients differ"
        maxtext, maxtext_fn = maxtext_residuals(
            layers, remat_jax.policy(plan), model.args)
        if maxtext != got:
            return (f"{label}, {layers} layers: nn.scan over nn.remat saves "
                    f"{maxtext}, remat_jax.checkpoint saves {got}")
        if not same(jax.grad(lambda p, x: jnp.sum(maxtext_fn(p, x)))(*model.args),
                    jax.grad(lambda p, x: jnp.sum(wrapped(p, x)))(*model.args)):
            return f"{label}, {layers} layers: nn.remat's gradients differ"
        print(f"{label}, {layers} layers: saves {', '.join(plan.saved_names())} "
              f"and the carry; per layer {plan.scan.per_layer_saved_bytes} "
              f"bytes, total {plan.scan.total_saved_bytes} = JAX's residuals "
              f"{got}; gradients equal; nn.scan over nn.remat saves the same")
    if body_ops[3] != body_ops[5]:
        return f"{label}: the body graph has {body_ops[3]} ops for 3 layers, " \
            f"{body_ops[5]} for 5"
    print(f"{label}: body graph {body_ops[3]} ops for 3 and for 5 layers")
    return None


def check_unrolled_grows():
    """The unrolled graph (scan="unroll", what remat_jax did before) grows
    with the layers; the body graph does not (check_llama_scan)."""
    ops = {}
    for layers in (3, 5):
        model = MODELS["llama_scan"](layers=layers)
        plan = remat_jax.plan(model.fn, *model.args, scan="unroll",
                              policy=MAXTEXT_FULL)
        if plan.scan is not None:
            return "scan=\"unroll\" planned a body"
        ops[layers] = plan.export.mlir.count(' = "remat.')
    if not ops[3] < ops[5]:
        return f"the unrolled graphs do not grow: {ops}"
    print(f"llama_scan, scan=\"unroll\": {ops[3]} ops for 3 layers, {ops[5]} "
          "for 5")
    return None


def check_plain_scan():
    """lax.scan under jax.jit: two carries, ys, reverse, a const. The
    function returns the scan's results as they are: ops after the scan
    would add residuals of their own, which JAX's autodiff chooses (scan
    mode plans the body only)."""
    params = {"w": jax.random.normal(jax.random.PRNGKey(0), (4, 8, 8)) / 3,
              "v": jax.random.normal(jax.random.PRNGKey(1), (8,))}
    x = jax.random.normal(jax.random.PRNGKey(2), (2, 8))

    @jax.jit
    def fn(params, x):
        def body(carry, w):
            a, b = carry
            h = checkpoint_name(jnp.sin(a @ w + params["v"]), "h")
            g = checkpoint_name(jnp.tanh(h * b), "g")
            return (g + b, b * 0.5 + h), jnp.sum(h * h)
        return jax.lax.scan(body, (x, x * 0.5), params["w"], reverse=True)

    for options in ({}, {"policy": "save_only_these_names:h"}):
        wrapped = remat_jax.checkpoint(fn, **options)
        plan = wrapped.plan(params, x)
        got, want = jax_residuals(wrapped, (params, x)), expected_residuals(plan)
        if got != want or residual_bytes(got) != plan.scan.total_saved_bytes:
            return (f"plain scan {options}: JAX saves {got}, the plan says "
                    f"{want}, {plan.scan.total_saved_bytes} bytes")
        if not gradients_equal(fn, wrapped, (params, x)):
            return f"plain scan {options}: gradients differ"
        carries = [name for name, _ in plan.scan.saved if name in plan.scan.carry]
        print(f"plain scan {options or 'default'}: arguments "
              f"{', '.join(plan.export.argument_labels)}; saves names: "
              f"{', '.join(plan.saved_names()) or 'none'}; carries: "
              f"{', '.join(carries)}; "
              f"total {plan.scan.total_saved_bytes} bytes = JAX's; gradients equal")
    return None


def check_refusals():
    w = {"w": jnp.ones((3, 4, 4)) / 4, "v": jnp.ones((4, 4)) / 4}
    x = jnp.ones((2, 4))

    def layer(c, wi):
        return jnp.tanh(checkpoint_name(jnp.sin(c @ wi), "h")), None

    def two(p, x):
        y, _ = jax.lax.scan(layer, x, p["w"])
        z, _ = jax.lax.scan(layer, y, p["w"])
        return z

    def nested(p, x):
        def outer(c, wi):
            c, _ = jax.lax.scan(lambda c, _: (jnp.sin(c @ wi), None), c, None,
                                length=2)
            return c, None
        return jax.lax.scan(outer, x, p["w"])[0]

    @jax.custom_jvp
    def custom(p, x):
        return jax.lax.scan(layer, x, p["w"])[0]
    custom.defjvp(lambda primals, tangents: (custom(*primals),
                                              custom(*tangents)))

    def plain(p, x):
        return jnp.sin(x @ p["v"])

    cases = [("two scans", two, {}), ("nested", nested, {}),
             ("custom_jvp", custom, {}), ("no scan", plain, {"scan": "body"})]
    for label, fn, options in cases:
        try:
            remat_jax.plan(fn, w, x, **options)
            return f"{label}: scan=\"body\" accepted it"
        except remat_jax.ExportError as error:
            print(f"{label}: {error}")
    # The same functions plan with scan="unroll" (custom_jvp: its rule).
    for label, fn in (("two scans", two), ("nested", nested)):
        plan = remat_jax.plan(fn, w, x, scan="unroll")
        if plan.scan is not None:
            return f"{label}: scan=\"unroll\" planned a body"
        print(f"{label}, scan=\"unroll\": {plan.summary().splitlines()[0]}")
    try:
        remat_jax.plan(plain, w, x, scan="loop")
        return "scan=\"loop\" was accepted"
    except ValueError as error:
        print(f"bad mode: {error}")
    return None


def check_integer_scan_ignored():
    """A scan of integers only (inside jnp.searchsorted) is no layer stack:
    default mode plans the whole function, and a layer scan beside it is
    still the one planned (before 2026-12-08 the integer scan took the
    default mode over: "no output of the function is floating point")."""
    edges = jnp.linspace(-1, 1, 9)
    ws = [jnp.eye(4) / 2 for _ in range(2)]
    x = jnp.ones((2, 4)) / 10

    def loop(ws, x):
        for w in ws:
            x = checkpoint_name(jnp.tanh(x @ w), "h")
        return jnp.sum(x ** 2) + 0.0 * jnp.sum(jnp.searchsorted(edges, x[:, 0]))

    def scanned(w, x):
        x, _ = jax.lax.scan(
            lambda c, wi: (checkpoint_name(jnp.tanh(c @ wi), "h"), None), x, w)
        return jnp.sum(x ** 2) + 0.0 * jnp.sum(jnp.searchsorted(edges, x[:, 0]))

    plan = remat_jax.plan(loop, ws, x)
    if plan.scan is not None:
        return "integer scan: planned as a scan body"
    if not gradients_equal(loop, remat_jax.checkpoint(loop), (ws, x)):
        return "integer scan: gradients differ"
    stacked = jnp.stack(ws)
    plan = remat_jax.plan(scanned, stacked, x)
    if plan.scan is None:
        return "integer scan beside a layer scan: the layer scan not planned"
    if not gradients_equal(scanned, remat_jax.checkpoint(scanned), (stacked, x)):
        return "integer scan beside a layer scan: gradients differ"
    print("integer scan: whole function planned; beside a layer scan, the "
          "layer scan's body; gradients equal")
    return None


def main():
    problems = [check_llama_scan({}), check_llama_scan({"policy": MAXTEXT_FULL}),
                check_unrolled_grows(), check_plain_scan(), check_refusals(),
                check_integer_scan_ignored()]
    problems = [p for p in problems if p]
    for problem in problems:
        print("FAIL:", problem)
    print("scan cases:", "FAIL" if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
