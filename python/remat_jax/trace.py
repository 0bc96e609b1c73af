"""Trace a JAX function's joint forward + backward graph and lower it to
StableHLO with JAX's own lowering.

The joint function is what `jax.vjp` builds: the forward outputs and the
gradients with respect to every floating-point argument leaf, with the
cotangents of the outputs as extra arguments. It is traced to a jaxpr,
rewritten (below), and lowered with `jax.jit(...).lower(...)`; the converter
(convert.py) then walks the StableHLO module with the MLIR bindings jaxlib
ships.

Why a jaxpr rewrite before lowering:

- `checkpoint_name` does not survive lowering: its primitive (`name`) lowers
  to nothing, and the name appears neither in the op nor in its location.
  Every `name` equation is replaced by our own identity primitive whose
  lowering is a marker, `stablehlo.custom_call @remat.checkpoint_name(%x)
  {backend_config = "<name>"}`, which the converter removes again after
  attaching the name to the op that produced `%x`. The marker exists only in
  the module we convert; nothing compiles or runs it.
- `scan` lowers to `stablehlo.while`, and remat's graphs have no loops: every
  scan is set to unroll fully (`unroll=0`), which JAX lowers as straight-line
  code, one copy of the body per iteration.
- Data-dependent control flow (`while_loop`, `cond`/`switch` on a traced
  predicate) has no equivalent: it is refused here, naming the construct and
  where it was written.
"""

import inspect
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

import jax
import jax.numpy as jnp
from jax.extend import core as jax_core
from jax.extend import source_info_util
from jax.extend.mlir import ir
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.interpreters import mlir as jax_mlir


MARKER = "remat.checkpoint_name"


class ExportError(Exception):
    """The function cannot be exported; the message says what and where."""


def _marker_lowering(ctx, x, *, name):
    # An identity: the result has the operand's type.
    call = hlo.CustomCallOp([x.type], [x], MARKER,
                            has_side_effect=False,
                            backend_config=ir.StringAttr.get(name))
    return call.results


# The stand-in for `name` equations: an identity with a lowering of its own.
checkpoint_name_marker = jax_core.Primitive("remat_checkpoint_name")
checkpoint_name_marker.def_impl(lambda x, *, name: x)
checkpoint_name_marker.def_abstract_eval(lambda x, *, name: x)
jax_mlir.register_lowering(checkpoint_name_marker, _marker_lowering)

# Control flow that depends on traced values, with what to tell the user.
_REFUSED = {
    "while": "lax.while_loop (or fori_loop with traced bounds)",
    "cond": "lax.cond / lax.switch on a traced predicate",
}


def _where(eqn):
    return source_info_util.summarize(eqn.source_info)


def _rewrite_jaxpr(jaxpr):
    eqns = []
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _REFUSED:
            raise ExportError(
                f"{_REFUSED[name]} at {_where(eqn)}: remat graphs have no "
                "data-dependent control flow; use jnp.where / lax.select, a "
                "Python condition on a static value, or lax.scan with a fixed "
                "length")
        if name == "name":
            eqns.append(eqn.replace(primitive=checkpoint_name_marker))
            continue
        params = {key: _rewrite_param(value) for key, value in eqn.params.items()}
        if name == "scan":
            params["unroll"] = 0  # fully unrolled: straight-line StableHLO
        eqns.append(eqn.replace(params=params))
    return jaxpr.replace(eqns=eqns)


def _rewrite_param(value):
    if isinstance(value, jax_core.ClosedJaxpr):
        return value.replace(jaxpr=_rewrite_jaxpr(value.jaxpr))
    if isinstance(value, jax_core.Jaxpr):
        return _rewrite_jaxpr(value)
    if isinstance(value, tuple) and any(
            isinstance(v, (jax_core.ClosedJaxpr, jax_core.Jaxpr)) for v in value):
        return tuple(_rewrite_param(v) for v in value)
    return value


@dataclass
class Argument:
    """One argument of the joint function (a leaf of an argument pytree, or
    the cotangent of one output leaf)."""
    label: str
    role: str                   # "param", "input" or "tangent"


@dataclass
class Result:
    """One result of the joint function."""
    role: str                   # "output" or "grad"
    grad_of: Optional[int] = None  # argument index, for a gradient


@dataclass
class TracedJoint:
    module: object              # the StableHLO ir.Module
    arguments: List[Argument]
    results: List[Result]


def _leaf_spec(leaf, label):
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if not hasattr(leaf, "shape") or not hasattr(leaf, "dtype"):
        if isinstance(leaf, (int, float, bool)):
            leaf = np.asarray(leaf)
        else:
            raise ExportError(f"argument {label} is a {type(leaf).__name__}, "
                              "not an array: pass arrays (or "
                              "jax.ShapeDtypeStruct) as example arguments")
    return jax.ShapeDtypeStruct(np.shape(leaf), leaf.dtype)


def _argument_names(fn, count):
    """The names of fn's first `count` positional parameters, for labels."""
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = [p.name for p in parameters
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[i] if i < len(names) else f"arg{i}" for i in range(count)]


def _label(root, path):
    rest = jax.tree_util.keystr(tuple(path), simple=True, separator=".")
    return f"{root}.{rest}" if rest else root


def _inexact(dtype):
    return jnp.issubdtype(dtype, jnp.inexact)


def trace_joint(fn, example_args, param_argnums=(0,)) -> TracedJoint:
    """Traces `fn(*example_args)`'s joint graph and lowers it to StableHLO.

    Arguments in `param_argnums` are parameters (`remat.role = "param"`),
    the others inputs; every leaf of an argument pytree is one argument of
    the joint function. Gradients are taken with respect to every
    floating-point leaf; integer leaves (token ids) have none."""
    count = len(example_args)
    for index in param_argnums:
        if not 0 <= index < count:
            raise ExportError(f"param_argnums names argument {index}, but the "
                              f"function is called with {count} argument(s)")
    roots = _argument_names(fn, count)
    arguments, specs, primal_trees = [], [], []
    for position, (root, value) in enumerate(zip(roots, example_args)):
        leaves, tree = jax.tree_util.tree_flatten_with_path(value)
        primal_trees.append(tree)
        role = "param" if position in param_argnums else "input"
        for path, leaf in leaves:
            label = _label(root, path)
            specs.append(_leaf_spec(leaf, label))
            arguments.append(Argument(label, role))
    num_primals = len(specs)
    differentiable = [i for i, s in enumerate(specs) if _inexact(s.dtype)]

    def call(*primal_leaves):
        args, start = [], 0
        for tree in primal_trees:
            n = tree.num_leaves
            args.append(jax.tree_util.tree_unflatten(
                tree, primal_leaves[start:start + n]))
            start += n
        return fn(*args)

    out_shapes = jax.eval_shape(call, *specs)
    out_leaves, out_tree = jax.tree_util.tree_flatten_with_path(out_shapes)
    if not out_leaves:
        raise ExportError("the function returns no arrays: a joint graph "
                          "needs a forward output to differentiate")
    tangent_of = [i for i, (_, leaf) in enumerate(out_leaves)
                  if _inexact(leaf.dtype)]
    if not tangent_of:
        raise ExportError("no output of the function is floating point, so "
                          "there is nothing to differentiate")
    if not differentiable:
        raise ExportError("no argument of the function is floating point, so "
                          "it has no gradients")
    for i in tangent_of:
        path, leaf = out_leaves[i]
        specs.append(jax.ShapeDtypeStruct(leaf.shape, leaf.dtype))
        arguments.append(Argument(_label("ct", path), "tangent"))

    def joint(*leaves):
        primal_leaves, tangents = leaves[:num_primals], leaves[num_primals:]
        outputs, vjp = jax.vjp(call, *primal_leaves)
        flat_outputs = jax.tree_util.tree_leaves(outputs)
        cotangents = [np.zeros(leaf.shape, jax.dtypes.float0)
                      for _, leaf in out_leaves]
        for i, tangent in zip(tangent_of, tangents):
            cotangents[i] = tangent
        grads = vjp(jax.tree_util.tree_unflatten(out_tree, cotangents))
        return [*flat_outputs, *(grads[i] for i in differentiable)]

    closed = jax.make_jaxpr(joint)(*specs)
    closed = closed.replace(jaxpr=_rewrite_jaxpr(closed.jaxpr))
    lowered = jax.jit(jax_core.jaxpr_as_fun(closed),
                      keep_unused=True).lower(*specs)
    results = [Result("output") for _ in out_leaves] + \
        [Result("grad", i) for i in differentiable]
    return TracedJoint(lowered.compiler_ir("stablehlo"), arguments, results)
