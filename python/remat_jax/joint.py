"""A JAX function's joint graph as remat `.mlir` text.

`export(fn, *example_args)` traces the joint forward + backward function
(trace.py), converts its StableHLO (convert.py) and returns the text with
what a plan needs to be mapped back onto JAX: which names in remat's report
are `checkpoint_name`s, and where each unnamed value came from.
"""

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from remat_jax.convert import Converter
from remat_jax.graph import Origin
from remat_jax.trace import ScanBody, trace_joint, trace_scan_body

SCAN_MODES = ("body", "unroll")


@dataclass
class JaxExport:
    """An exported joint graph, and how to read remat's report on it.

    Report names: a value with a `checkpoint_name` is reported under that
    name (`query_proj.1` for its second holder, e.g. the second iteration of
    a scan), an argument under its label (`params.mlp.wo.kernel`), any
    other op result as `%N` (`%N#i` for result i of a multi-result op),
    N being the position of its op in the function, as remat-plan numbers
    it.

    - `checkpoint_names`: report name -> checkpoint name, for named values.
    - `named_shapes`: report name -> shape of the JAX value the checkpoint
      name was given to (the remat value may be the matmul before the
      reshape JAX's dot_general folds in: same elements, other shape).
    - `argument_views`: report names of named views of arguments (a
      `checkpoint_name` applied to an argument; recomputing one only reads
      the argument).
    - `origins`: report name -> the StableHLO op and JAX source line an
      unnamed value came from.
    - `operands`: report name -> report names of the values its op reads.
    - `argument_labels`: the report names of the arguments, in order.
    - `opaque`: StableHLO op -> how many were exported as remat.opaque
      (`stablehlo.add on i32`: an op typed for other element types or
      uses, with this use's element types).
    - `scan`: for a scan-body export (scan="body"), the scan whose body
      this graph is one iteration of (trace.ScanBody: length, where, which
      arguments are the carry); None for a whole function."""
    mlir: str
    function: str
    checkpoint_names: Dict[str, str]
    named_shapes: Dict[str, tuple]
    argument_views: Set[str]
    origins: Dict[str, Origin]
    operands: Dict[str, List[str]]
    argument_labels: List[str]
    opaque: Dict[str, int] = field(default_factory=dict)
    scan: Optional[ScanBody] = None

    def instances(self, checkpoint_name):
        """The report names of every value named `checkpoint_name`."""
        return [report for report, name in self.checkpoint_names.items()
                if name == checkpoint_name]


def export(fn, *example_args, param_argnums=(0,), function_name="joint",
           recompute_unnamed=False, warn=True, scan="unroll",
           recompute_names=(), save_names=()) -> JaxExport:
    """The joint graph of `fn(*example_args)`.

    Arguments whose positions are in `param_argnums` are parameters (a
    pytree of arrays, as in Flax's `apply(params, ...)`; the default is the
    first argument), the others inputs; every array leaf is one argument of
    the joint function, named by its position in the pytree
    (`params.layer.kernel`). The cotangents of the outputs are `tangent`
    arguments (`ct`, or `ct.<path>` for a pytree of outputs); the results
    are the outputs, then the gradient of every floating-point argument
    leaf (`remat.grad_of` = its argument index).

    `scan`: "unroll" (the default here) exports the whole function, every
    `lax.scan` unrolled (one copy of its body per iteration); "body"
    exports one iteration of the body of fn's top-level scan instead
    (trace.trace_scan_body: its arguments are the scan's consts, the carry
    and the per-iteration slices; `JaxExport.scan` says which scan); None
    chooses "body" when fn has a scan, else the whole function. ExportError
    when "body" cannot plan fn's scans (several, nested, inside a custom
    derivative): it says so and suggests "unroll".

    `recompute_unnamed=True` tags every forward op without a
    `checkpoint_name` `remat.must_recompute`, so that a plan saves nothing
    a JAX name policy could not save (remat_jax.plan does this); with it,
    the values whose checkpoint name is in `recompute_names` are tagged
    too (every instance of such a name is recomputed), and those whose name
    is in `save_names` are tagged `remat.never_recompute` (every instance
    is saved where backward needs it).

    StableHLO ops without a typed remat equivalent become `remat.opaque`
    with a FLOP estimate and a compute class; `warn` lists them in a
    warning."""
    if scan not in SCAN_MODES + (None,):
        raise ValueError(f"scan={scan!r}: expected \"body\", \"unroll\" or "
                         "None (body when the function has a scan)")
    body = None
    if scan != "unroll":
        body = trace_scan_body(fn, example_args, tuple(param_argnums),
                               required=scan == "body")
    if body is None:
        traced, info = trace_joint(fn, example_args, tuple(param_argnums)), None
    else:
        traced, info = body
    exported = _convert(traced, function_name, recompute_unnamed, info,
                        recompute_names, save_names)
    if exported.opaque and warn:
        warnings.warn("remat_jax: StableHLO ops without a typed remat "
                      "equivalent, exported as remat.opaque with estimated "
                      "costs: " + ", ".join(sorted(exported.opaque)),
                      stacklevel=2)
    return exported


def _convert(traced, function_name, recompute_unnamed, scan,
             recompute_names=(), save_names=()):
    """A traced joint function (trace.TracedJoint) as a JaxExport."""
    converter = Converter(traced.module, function_name)
    function = converter.run([(a.label, a.role) for a in traced.arguments],
                             traced.results)
    function.remove_dead_ops()
    names = function.assign_names()
    if recompute_unnamed:
        function.tag_unnamed_forward_ops(also=recompute_names,
                                         keep=save_names)
    text = function.text()
    report_names = dict(zip(map(id, function.arguments),
                            function.argument_names))
    origins, operands = {}, {}
    for index, op in enumerate(function.ops):
        base = op.name or f"%{index}"
        for result, value in enumerate(op.results):
            name = base if len(op.results) == 1 else f"{base}#{result}"
            report_names[id(value)] = name
            operands[name] = [report_names[id(v)] for v in op.operands]
            if op.name is None:
                origins[name] = op.origin
    opaque = Counter(op.props["op_name"].strip('"') +
                     (f" on {op.note}" if op.note else "")
                     for op in function.ops if op.kind == "remat.opaque")
    return JaxExport(text, function_name, names, dict(function.named_shapes),
                     set(function.argument_views), origins, operands,
                     list(function.argument_names), dict(opaque), scan)


def export_joint_graph(fn, *example_args, **options) -> str:
    """The joint (forward + backward) graph of `fn(*example_args)` as remat
    `.mlir` text; `options` are export()'s."""
    return export(fn, *example_args, **options).mlir
