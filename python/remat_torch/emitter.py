"""Writing one remat function as `.mlir` text, op by op.

The Emitter prints each op in MLIR's generic form (which remat-opt parses
for every op and verifies) and remembers, for every value it creates, the
name remat's report will give it and the FX node it was emitted for, so a
plan can be mapped back onto the FX graph (remat_torch.partition).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional

import torch

from remat.mlir_text import quoted, tensor_type as _tensor_text


class ExportError(Exception):
    """The graph cannot be exported; the message names the node and why."""


DTYPES = {
    torch.float64: "f64",
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int8: "i8",
    torch.uint8: "i8",
    torch.bool: "i1",
    # Only opaque ops carry these (no typed op takes complex numbers).
    torch.complex64: "complex<f32>",
    torch.complex128: "complex<f64>",
}
# Float dtypes remat's typed ops take (Remat_FloatTensor in RematOps.td).
FLOAT_DTYPES = (torch.float64, torch.float32, torch.float16, torch.bfloat16)
# Every dtype a typed op takes (Remat_AnyTensor); a node with another
# (int32, complex) is emitted as remat.opaque.
TYPED_DTYPES = FLOAT_DTYPES + (torch.int64, torch.int8, torch.uint8, torch.bool)
# remat ops whose result is a view of operand 0 (same storage, no new
# buffer in PyTorch).
VIEW_OPS = ("remat.broadcast", "remat.reshape", "remat.transpose")
# Every op the dialect makes a view (no kernel, so no workspace).
STORAGE_VIEW_OPS = VIEW_OPS + ("remat.slice",)


# Stands for a node's remat.fixed_time_us until finish_node_time knows
# which of its ops computes the node's value.
_TIME_PLACEHOLDER = "<remat-time-us>"


def _float_attr(value):
    return f"{float(value):.6e} : f64"


def tensor_type(shape, dtype, where):
    if dtype not in DTYPES:
        raise ExportError(f"{where}: dtype {dtype} has no remat equivalent "
                          f"(supported: {', '.join(str(d) for d in DTYPES)})")
    return _tensor_text(shape, DTYPES[dtype])


def type_bytes(shape, dtype):
    n = 1
    for d in shape:
        n *= d
    size = 1 if dtype in (torch.bool, torch.int8, torch.uint8) else \
        torch.empty((), dtype=dtype).element_size()
    return n * size


def flops_attr(value):
    """A cost estimate as an f64 attribute (7 significant digits)."""
    return f"{float(value):.6e} : f64"


@dataclass
class Value:
    """An SSA value in the emitted function."""
    ssa: str
    shape: tuple
    dtype: torch.dtype

    @property
    def type(self):
        return tensor_type(self.shape, self.dtype, self.ssa)


@dataclass
class Origin:
    """Where an emitted value comes from: the name remat's report gives it,
    the FX node being lowered when it was emitted, and, for a view op, the
    value it views."""
    report_name: str
    node: Optional[str]
    op: str
    view_of: Optional[str] = None  # ssa


class Emitter:
    def __init__(self, function_name):
        self.function_name = function_name
        self.lines: List[str] = []
        self.counter = 0
        self.values: Dict[str, object] = {}  # fx node name -> Value or list
        self.unmapped: Dict[str, int] = {}
        # ATen op -> "node: reason" for uses a typed mapping declined.
        self.declined: Dict[str, List[str]] = {}
        self.argument_labels: Dict[str, str] = {}  # value name -> placeholder
        self.first_extra_argument = 0  # set to the graph's argument count
        self.rng_arguments: Dict[str, Value] = {}  # label -> argument
        # Tags (remat.must_recompute, ...) for every op emitted for the
        # node being lowered (checkpoint regions), and the remat.tag_note
        # saying where they come from (written only with a tag).
        self.tags: List[str] = []
        self.tag_note: Optional[str] = None
        # False when the graph will run as PyTorch FX code
        # (remat_torch.partition): PyTorch's random ops cannot be replayed
        # with the same numbers there, so they stay opaque random ops with
        # no RNG state (which the planner saves), instead of remat.dropout
        # with RNG inputs.
        self.replayable_random = True
        # Subgraphs the graph reads (get_attr node name -> module): operands
        # of higher-order ops, not values (remat_torch.higher_order).
        self.subgraphs: Dict[str, object] = {}
        # The FX node being lowered, and every emitted value's origin (ssa
        # -> Origin).
        self.current_node: Optional[str] = None
        # Kernel scratch of the FX node being lowered (bytes): stated on
        # every op but views emitted for it, as remat.workspace_bytes (the
        # scratch is held while any of them runs).
        self.workspace = 0
        # Whether the FX node being lowered belongs to the backward (it
        # depends on a tangent).
        self.in_backward = False
        # Profiled time of the FX node being lowered (us), or None: stated
        # as remat.fixed_time_us on the op that computes the node's value
        # and as 0 on the other non-view ops emitted for it (one kernel,
        # charged once); see finish_node_time.
        self.op_time_us: Optional[float] = None
        self._timed_lines: List[int] = []
        self.origins: Dict[str, Origin] = {}
        self._last: List[Value] = []

    def rng_argument(self, label):
        """A rank-0 i64 argument with remat.role = "rng" (a dropout's seed or
        offset), appended after the tangents; one per label."""
        if label not in self.rng_arguments:
            index = self.first_extra_argument + len(self.rng_arguments)
            self.rng_arguments[label] = Value(f"%arg{index}", (), torch.int64)
        return self.rng_arguments[label]

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, name, operands, results, inherent=None, discardable=None):
        """Emits one op in generic form; `results` is a list of (shape,
        dtype); returns the list of result Values."""
        ssa = self.fresh()
        if len(results) == 1:
            result_values = [Value(ssa, *results[0])]
            lhs = ssa
        else:
            result_values = [Value(f"{ssa}#{i}", *r) for i, r in enumerate(results)]
            lhs = f"{ssa}:{len(results)}"
        props = ""
        if inherent:
            # A None value is a unit attribute, written as its bare name.
            props = " <{" + ", ".join(k if v is None else f"{k} = {v}"
                                      for k, v in inherent.items()) + "}>"
        attrs = ""
        discardable = dict(discardable or {})
        # Tags steer forward values only: on a backward op (a region's or
        # PyTorch's recompute metadata reaches backward nodes too, and a
        # higher-order call in backward) they do nothing, and remat-plan
        # warns of them.
        tags = [] if self.in_backward else self.tags
        for tag in tags:
            discardable[tag] = None
        if tags and self.tag_note:
            discardable["remat.tag_note"] = quoted(self.tag_note)
        if self.in_backward and not operands:
            # A constant a backward node makes (zeros like a gradient, a
            # scalar helper): without operands remat would classify it as
            # forward, and a plan could save what PyTorch computes in
            # backward.
            discardable["remat.phase"] = '"backward"'
        if self.workspace > 0 and name not in STORAGE_VIEW_OPS:
            discardable["remat.workspace_bytes"] = f"{self.workspace} : i64"
        if self.op_time_us is not None and name not in STORAGE_VIEW_OPS:
            discardable["remat.fixed_time_us"] = _TIME_PLACEHOLDER
            self._timed_lines.append(len(self.lines))
        if discardable:
            attrs = " {" + ", ".join(k if v is None else f"{k} = {v}"
                                     for k, v in discardable.items()) + "}"
        operand_types = ", ".join(v.type for v in operands)
        result_types = ", ".join(v.type for v in result_values)
        if len(result_values) != 1:
            result_types = f"({result_types})"
        prefix = f"{lhs} = " if result_values else ""
        self.lines.append(
            f"    {prefix}\"{name}\"({', '.join(v.ssa for v in operands)}){props}{attrs}"
            f" : ({operand_types}) -> {result_types if result_values else '()'}")
        self._record(name, operands, result_values, discardable.get("remat.name"))
        self._last = result_values
        return result_values

    def truncate(self, mark):
        """Drops the ops emitted since `len(self.lines)` was `mark` (a
        declined typed lowering; see nn_ops.lower_nn)."""
        del self.lines[mark:]
        self._timed_lines = [i for i in self._timed_lines if i < mark]

    def finish_node_time(self, value):
        """Writes the node's time on the op among those emitted for it that
        defines `value` (the node's Value, or its first one), else on the
        last of them; the others get 0. Ends the node."""
        lines, self._timed_lines = self._timed_lines, []
        time_us, self.op_time_us = self.op_time_us, None
        if time_us is None or not lines:
            return
        target = lines[-1]
        ssa = getattr(value, "ssa", None)
        if ssa is not None:
            defined = ssa.split("#")[0]
            for index in lines:
                if self.lines[index].lstrip().startswith(
                        (f"{defined} = ", f"{defined}:")):
                    target = index
        for index in lines:
            text = _float_attr(time_us) if index == target else \
                _float_attr(0.0)
            self.lines[index] = self.lines[index].replace(
                _TIME_PLACEHOLDER, text, 1)

    def _record(self, op, operands, results, quoted_name):
        base = quoted_name[1:-1] if quoted_name else None
        view_of = operands[0].ssa if op in VIEW_OPS and operands else None
        for index, value in enumerate(results):
            if base is None:
                report_name = value.ssa
            elif len(results) == 1:
                report_name = base
            else:
                report_name = f"{base}#{index}"
            self.origins[value.ssa] = Origin(report_name, self.current_node,
                                             op, view_of)

    def rename_last(self, old, new):
        """Renames the op just emitted (its remat.name `old` becomes `new`)."""
        self.lines[-1] = self.lines[-1].replace(quoted(old), quoted(new))
        for value in self._last:
            origin = self.origins[value.ssa]
            if origin.report_name == old:
                origin.report_name = new
