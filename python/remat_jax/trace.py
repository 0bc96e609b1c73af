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
  code, one copy of the body per iteration. (Scan-body mode, at the end of
  this file, exports one iteration of a top-level scan's body instead.)
- Data-dependent control flow (`while_loop`, `cond`/`switch` on a traced
  predicate) is left as it is: the converter makes each such op one opaque
  op (a `while_loop` in a joint graph carries nothing differentiated, or
  `jax.vjp` would have refused it; JAX's PRNG lowers to one).
"""

import importlib.util
import inspect
import os
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

def _where(eqn):
    return source_info_util.summarize(eqn.source_info)


def _rewrite_jaxpr(jaxpr):
    eqns = []
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
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
        items = [_rewrite_param(v) for v in value]
        # A named tuple (custom_linear_solve's `jaxprs`) keeps its type.
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
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


def leaf_spec(leaf, label):
    """The jax.ShapeDtypeStruct of an argument leaf (an array, a
    ShapeDtypeStruct or a Python scalar); ExportError otherwise."""
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


def keywords_last(fn, count, keywords):
    """`fn` called as `fn(*args, **dict(zip(keywords, rest)))` on
    `*args, *rest` (`count` positional arguments first): keyword arguments
    passed by position, for what plans positional arguments only. Its
    signature names them, so labels stay the parameters' names."""
    if not keywords:
        return fn

    def call(*values):
        return fn(*values[:count], **dict(zip(keywords, values[count:])))

    call.__name__ = getattr(fn, "__name__", "fn")
    call.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
         for name in argument_names(fn, count) + list(keywords)])
    return call


def argument_names(fn, count):
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


def _flatten_arguments(fn, example_args, param_argnums):
    """(call, specs, arguments): `call(*leaves)` is `fn` on the leaves of
    its argument pytrees, `specs` their shapes and dtypes, `arguments` their
    labels and roles (param for the arguments in `param_argnums`)."""
    count = len(example_args)
    for index in param_argnums:
        if not 0 <= index < count:
            raise ExportError(f"param_argnums names argument {index}, but the "
                              f"function is called with {count} argument(s)")
    roots = argument_names(fn, count)
    arguments, specs, primal_trees = [], [], []
    for position, (root, value) in enumerate(zip(roots, example_args)):
        leaves, tree = jax.tree_util.tree_flatten_with_path(value)
        primal_trees.append(tree)
        role = "param" if position in param_argnums else "input"
        for path, leaf in leaves:
            label = _label(root, path)
            specs.append(leaf_spec(leaf, label))
            arguments.append(Argument(label, role))

    def call(*primal_leaves):
        args, start = [], 0
        for tree in primal_trees:
            n = tree.num_leaves
            args.append(jax.tree_util.tree_unflatten(
                tree, primal_leaves[start:start + n]))
            start += n
        return fn(*args)

    return call, specs, arguments


def trace_joint(fn, example_args, param_argnums=(0,)) -> TracedJoint:
    """Traces `fn(*example_args)`'s joint graph and lowers it to StableHLO.

    Arguments in `param_argnums` are parameters (`remat.role = "param"`),
    the others inputs; every leaf of an argument pytree is one argument of
    the joint function. Gradients are taken with respect to every
    floating-point leaf; integer leaves (token ids) have none."""
    call, specs, arguments = _flatten_arguments(fn, example_args,
                                                tuple(param_argnums))
    return _trace_flat_joint(call, specs, arguments)


def _concrete(const):
    """`const`, or zeros shaped like it where it is a tracer of an enclosing
    transformation: a function planned inside the user's jax.jit may close
    over the step's arguments (a loss scale, a learning rate, a PRNG key).
    Lowered, such a tracer became an extra argument of the graph (before
    2026-12-08 an ExportError about the argument count); the plan depends on
    its shape and dtype only, and the function JAX runs keeps the value."""
    if not isinstance(const, jax.core.Tracer):
        return const
    if jax.dtypes.issubdtype(const.dtype, jax.dtypes.extended):
        with jax.ensure_compile_time_eval():
            data = jax.random.key_data(const)
            return jax.random.wrap_key_data(
                np.zeros(data.shape, data.dtype),
                impl=jax.random.key_impl(const))
    return np.zeros(const.shape, const.dtype)


def _refuse_checkpoints(jaxpr):
    """ExportError when `jaxpr` calls jax.checkpoint (nn.remat) at any
    depth: JAX decides what is saved inside by that checkpoint's own policy,
    and its recomputation, which reads no cotangent, was planned as forward
    values, so the report named saves JAX does not make (before
    2026-12-08)."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _CHECKPOINTS:
            where = _user_where(eqn) or _where(eqn)
            raise ExportError(
                f"the function calls jax.checkpoint (or nn.remat) at {where}: "
                "JAX decides what is saved inside it by that checkpoint's "
                "policy, so remat's plan would not be what JAX runs; remove "
                "it and let remat plan the whole function (remat_jax."
                "checkpoint wraps it in one jax.checkpoint), or plan the "
                "function inside it")
        for sub in _subjaxprs(eqn):
            _refuse_checkpoints(sub)


def _trace_flat_joint(call, specs, arguments) -> TracedJoint:
    """The joint graph of `call(*leaves)`, a function of arrays with these
    `specs` and `arguments` (labels and roles), returning a pytree."""
    arguments, specs = list(arguments), list(specs)
    num_primals = len(specs)
    differentiable = [i for i, s in enumerate(specs) if _inexact(s.dtype)]
    forward, out_shapes = jax.make_jaxpr(call, return_shape=True)(*specs)
    _refuse_checkpoints(forward.jaxpr)
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
    closed = closed.replace(jaxpr=_rewrite_jaxpr(closed.jaxpr),
                            consts=[_concrete(c) for c in closed.consts])
    lowered = jax.jit(jax_core.jaxpr_as_fun(closed),
                      keep_unused=True).lower(*specs)
    results = [Result("output") for _ in out_leaves] + \
        [Result("grad", i) for i in differentiable]
    return TracedJoint(lowered.compiler_ir("stablehlo"), arguments, results)


# -- scanned layers ---------------------------------------------------------
#
# scan="body": a function whose forward jaxpr has one top-level `scan` (a
# layer stack under lax.scan / Flax's nn.scan, MaxText's scan_layers) is
# planned for one iteration of the scan's body, and the plan is applied the
# way MaxText applies nn.remat inside nn.scan: the body runs under
# jax.checkpoint(body, policy=...), so that JAX saves, per iteration, the
# body's inputs backward needs (the carry: the layer-boundary activation)
# and the values the policy names, stacked over the iterations.

# Primitives that call their sub-jaxpr once, as it is: a scan inside one is
# still at the top level of the function.
_CALLS = {"jit": "jaxpr", "pjit": "jaxpr", "closed_call": "call_jaxpr",
          "core_call": "call_jaxpr"}
# Where a scan cannot be planned on its own, with what to tell the user.
# The primitives of jax.checkpoint (and Flax's nn.remat), by JAX version.
_CHECKPOINTS = ("checkpoint", "remat", "remat2")
_HIDING = {
    "custom_jvp_call": "a jax.custom_jvp function (its derivative is the "
                       "custom rule, not the scan's)",
    "custom_vjp_call": "a jax.custom_vjp function (its derivative is the "
                       "custom rule, not the scan's)",
    "custom_vjp_call_jaxpr": "a jax.custom_vjp function (its derivative is "
                             "the custom rule, not the scan's)",
    "scan": "the body of another lax.scan (a nested scan)",
    "while": "a lax.while_loop",
    "cond": "a lax.cond",
}


@dataclass
class ScanBody:
    """The top-level scan whose body a scan-body export holds."""
    length: int                 # iterations
    where: str                  # the user's line that built the scan
    num_consts: int             # body arguments: consts, carries, xs slices
    num_carry: int
    num_xs: int
    reverse: bool
    # Checkpoint names on values computed outside the scan (not planned).
    outside_names: tuple = ()

    @property
    def carry_arguments(self):
        """Indices of the carry arguments of the body's joint function."""
        return list(range(self.num_consts, self.num_consts + self.num_carry))


@dataclass
class _ScanSite:
    eqn: object                 # the scan equation
    path: tuple                 # the call equations around it, outermost first
    operands: list              # per scan operand: the argument leaf it is, or None
    where: str


def _library_dirs():
    dirs = [os.path.dirname(os.path.abspath(jax.__file__))]
    for name in ("jaxlib", "flax"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            dirs.append(os.path.dirname(os.path.abspath(spec.origin)))
    return tuple(d + os.sep for d in dirs)


def _user_where(eqn):
    """The innermost frame of eqn's traceback outside JAX, jaxlib, Flax and
    this file (nn.scan builds its scan inside Flax: the user's line is the
    call of the scanned module), as file:line (function); "" if none."""
    traceback = eqn.source_info.traceback
    libraries, own = _library_dirs(), os.path.abspath(__file__)
    for frame in (traceback.frames if traceback is not None else []):
        path = os.path.abspath(frame.file_name)
        if path.startswith(libraries) or path == own:
            continue
        return f"{frame.file_name}:{frame.line_num} ({frame.function_name})"
    return ""


def _subjaxprs(eqn):
    for value in eqn.params.values():
        for item in (value if isinstance(value, tuple) else (value,)):
            if isinstance(item, jax_core.ClosedJaxpr):
                yield item.jaxpr
            elif isinstance(item, jax_core.Jaxpr):
                yield item


def _layer_scan(eqn):
    """Whether `eqn` is a scan that could be a layer stack: one with a
    floating-point result. A scan of integers only has nothing to
    differentiate: library code loops that way (jnp.searchsorted), and
    before 2026-12-08 such a scan took default scan-body mode over, which
    then found nothing to differentiate."""
    return eqn.primitive.name == "scan" and any(
        _inexact(v.aval.dtype) for v in eqn.outvars)


def _first_scan(jaxpr):
    """The first scan equation with a floating-point result (_layer_scan)
    at any depth of `jaxpr`, or None."""
    for eqn in jaxpr.eqns:
        if _layer_scan(eqn):
            return eqn
        for sub in _subjaxprs(eqn):
            found = _first_scan(sub)
            if found is not None:
                return found
    return None


def _find_scans(jaxpr, env, path, found, hidden):
    """Appends the top-level scans of `jaxpr` (looking through calls) to
    `found` and (wrapper equation, scan equation) of scans inside anything
    else to `hidden`. `env`: jaxpr variable -> argument leaf index."""
    def operand(var):
        return None if isinstance(var, jax_core.Literal) else env.get(var)

    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if _layer_scan(eqn):
            found.append(_ScanSite(eqn, path, [operand(v) for v in eqn.invars],
                                   _user_where(eqn) or _where(eqn)))
        elif name in _CALLS and _CALLS[name] in eqn.params:
            sub = eqn.params[_CALLS[name]]
            inner = sub.jaxpr if isinstance(sub, jax_core.ClosedJaxpr) else sub
            inner_env = {iv: operand(ov) for iv, ov in zip(inner.invars, eqn.invars)}
            _find_scans(inner, inner_env, path + (eqn,), found, hidden)
        else:
            for sub in _subjaxprs(eqn):
                scan = _first_scan(sub)
                if scan is not None:
                    hidden.append((eqn, scan))
                    break


def _names_outside_scans(jaxpr):
    """The checkpoint names in `jaxpr` outside every lax.scan, in order."""
    names = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "name":
            names.append(eqn.params["name"])
        elif eqn.primitive.name != "scan":
            for sub in _subjaxprs(eqn):
                names += _names_outside_scans(sub)
    return names


def _top_level_scan(closed):
    """The one top-level scan of a traced function (None if it has no scan
    at all); ExportError when scan="body" cannot plan its scans."""
    _refuse_checkpoints(closed.jaxpr)
    found, hidden = [], []
    env = {v: i for i, v in enumerate(closed.jaxpr.invars)}
    _find_scans(closed.jaxpr, env, (), found, hidden)
    mode = ("scan-body mode (scan=\"body\", the default for a function "
            "with a lax.scan)")
    advice = ("; use scan=\"unroll\" (--scan unroll) to plan the whole "
              "function with every scan unrolled")
    if hidden:
        wrapper, scan = hidden[0]
        what = _HIDING.get(wrapper.primitive.name,
                           f"a {wrapper.primitive.name} primitive")
        outer = _user_where(wrapper)
        raise ExportError(f"the lax.scan at {_user_where(scan) or _where(scan)} "
                          f"is inside {what}" + (f" at {outer}" if outer else "") +
                          f": {mode} plans the body of a top-level scan only" +
                          advice)
    if len(found) > 1:
        raise ExportError(f"the function has {len(found)} top-level lax.scan "
                          "loops (at " + "; at ".join(s.where for s in found) +
                          f"): {mode} plans one scanned layer stack" + advice)
    if not found:
        return None
    nested = _first_scan(found[0].eqn.params["jaxpr"].jaxpr)
    if nested is not None:
        inner = _user_where(nested) or _where(nested)
        raise ExportError(f"the lax.scan at {found[0].where} has another scan "
                          f"in its body (at {inner}): {mode} plans a body "
                          "without loops" + advice)
    return found[0]


def _specs_of(jaxpr):
    return [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype)
            for v in jaxpr.invars]


def trace_scan_body(fn, example_args, param_argnums=(0,), required=True):
    """(TracedJoint, ScanBody) of one iteration of the body of `fn`'s
    top-level scan: the joint graph of body(consts, carry, xs slices) ->
    {"carry": carry out, "ys": per-iteration outputs}.

    Body arguments: a const or xs operand that is a leaf of fn's arguments
    keeps that leaf's label and role (a per-layer slice of a stacked
    parameter is `params.decoder.layer.mlp.wi_0.kernel`, a param); the
    carry is `carry` (`carry.<i>` for several), an input: it is the
    layer-boundary activation; other operands (values fn computes before
    the scan) are `const.<i>` / `xs.<i>`, inputs. The cotangents are
    `ct.carry`, `ct.ys`. Returns None when fn has no scan and not
    `required`."""
    call, specs, arguments = _flatten_arguments(fn, example_args,
                                                tuple(param_argnums))
    closed = jax.make_jaxpr(call)(*specs)
    site = _top_level_scan(closed)
    if site is None:
        if not required:
            return None
        raise ExportError("scan=\"body\": the function has no lax.scan (or "
                          "nn.scan) to plan; leave scan unset to plan it whole")
    params = site.eqn.params
    body = params["jaxpr"]
    consts, carries = params["num_consts"], params["num_carry"]
    body_arguments = []
    for position, outer in enumerate(site.operands):
        if consts <= position < consts + carries:
            index = position - consts
            label = "carry" if carries == 1 else f"carry.{index}"
            body_arguments.append(Argument(label, "input"))
        elif outer is not None:
            body_arguments.append(Argument(arguments[outer].label,
                                           arguments[outer].role))
        elif position < consts:
            body_arguments.append(Argument(f"const.{position}", "input"))
        else:
            body_arguments.append(Argument(
                f"xs.{position - consts - carries}", "input"))
    run_body = jax_core.jaxpr_as_fun(body)

    def body_fn(*leaves):
        outs = list(run_body(*leaves))
        carry, ys = outs[:carries], outs[carries:]
        result = {"carry": carry[0] if len(carry) == 1 else carry}
        if ys:
            result["ys"] = ys[0] if len(ys) == 1 else ys
        return result

    traced = _trace_flat_joint(body_fn, _specs_of(body.jaxpr), body_arguments)
    info = ScanBody(params["length"], site.where, consts, carries,
                    len(site.operands) - consts - carries, params["reverse"],
                    tuple(_names_outside_scans(closed.jaxpr)))
    return traced, info


def _replace_eqn(jaxpr, path, old, new):
    """`jaxpr` with equation `old` (inside the calls of `path`) replaced."""
    if path:
        call = path[0]
        key = _CALLS[call.primitive.name]
        sub = call.params[key]
        if isinstance(sub, jax_core.ClosedJaxpr):
            sub = sub.replace(jaxpr=_replace_eqn(sub.jaxpr, path[1:], old, new))
        else:
            sub = _replace_eqn(sub, path[1:], old, new)
        old, new = call, call.replace(params={**call.params, key: sub})
    return jaxpr.replace(eqns=[new if eqn is old else eqn for eqn in jaxpr.eqns])


def checkpoint_scan_body(fn, example_args, policy, prevent_cse=False):
    """`fn` traced on arguments shaped like `example_args`, with the body
    of its top-level scan under `jax.checkpoint(body, policy=policy)` (what
    MaxText's nn.remat inside nn.scan does). Returns a function of the
    same arguments (arrays or tracers of those shapes and dtypes); it
    computes what `fn` computes and is differentiable like it."""
    call, specs, _ = _flatten_arguments(fn, example_args, ())
    closed, out_shape = jax.make_jaxpr(call, return_shape=True)(*specs)
    site = _top_level_scan(closed)
    if site is None:
        raise ExportError("the function has no lax.scan whose body could be "
                          "checkpointed")
    body = site.eqn.params["jaxpr"]
    wrapped = jax.make_jaxpr(jax.checkpoint(
        jax_core.jaxpr_as_fun(body), policy=policy,
        prevent_cse=prevent_cse))(*_specs_of(body.jaxpr))
    scan = site.eqn.replace(params={**site.eqn.params, "jaxpr": wrapped})
    closed = closed.replace(jaxpr=_replace_eqn(closed.jaxpr, site.path,
                                               site.eqn, scan))
    run = jax_core.jaxpr_as_fun(closed)
    out_tree = jax.tree_util.tree_structure(out_shape)

    def with_checkpointed_body(*args):
        leaves = jax.tree_util.tree_leaves(args)
        return jax.tree_util.tree_unflatten(out_tree, run(*leaves))
    return with_checkpointed_body
