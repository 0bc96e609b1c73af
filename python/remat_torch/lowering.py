"""Lowering one FX node to remat ops: the NN ops of nn_ops.py first, then
the typed ops of ops.py, else `remat.opaque` with a cost estimate."""

import operator

from remat_torch.emitter import TYPED_DTYPES, ExportError, flops_attr
from remat_torch.fxmeta import flat_nodes, is_symbolic
from remat_torch.higher_order import higher_order_flops, is_higher_order
from remat_torch.nn_ops import lower_nn
from remat_torch.ops import _name_attr, compute_class, estimate_flops, lower_typed, packet


def lower_node(emitter, node, results, where):
    """Emits the remat op(s) for one FX node: a typed NN op, else a typed
    op, else `remat.opaque` with a FLOP estimate and a compute class (a
    higher-order op's call is always one opaque op, remat_torch.higher_order)."""
    name = packet(node)
    if is_higher_order(node):
        _emit_opaque(emitter, node, results, where, f"higher_order.{name}",
                     "other", lambda operands, present:
                     higher_order_flops(node, emitter.subgraphs),
                     never_recompute_note=f"set by remat_torch: a "
                     f"higher-order {name} call is not replayed")
        return
    if _typed_dtypes_only(emitter, node, results):
        typed = lower_nn(emitter, node, name, results)
        if typed is not None:
            if results_are_tuple(node):
                emitter.values[node.name] = typed
            else:
                emitter.values[node.name] = typed[0]
            return
        typed = lower_typed(emitter, node, name, results, where)
        if typed is not None:
            emitter.values[node.name] = typed[0]
            return
    klass = compute_class(name)
    if klass is None:
        emitter.unmapped[name] = emitter.unmapped.get(name, 0) + 1
        klass = "other"
    # A random opaque op reads no RNG state, so the planner saves its
    # results (a replay would draw other numbers) and says so in their
    # reasons; a checkpoint region's must_recompute, which would contradict
    # that, is dropped (its prefer_recompute stays, and the reason says the
    # save wins over it).
    _emit_opaque(emitter, node, results, where, str(node.target), klass,
                 lambda operands, present:
                 estimate_flops(node, name, present, operands))


def _emit_opaque(emitter, node, results, where, op_name, klass, flops,
                 never_recompute_note=None):
    """Emits `node` as one remat.opaque op: its tensor operands (sizes and
    subgraphs are not operands), `flops(operands, present results)` as its
    estimate; tagged never_recompute (a checkpoint region's recompute tag
    yields to that) with `never_recompute_note` as its remat.tag_note (the
    plan's reasons quote it) when that is given; marked `random` (without a
    region's must_recompute) for a random op."""
    operands = []
    for arg in flat_nodes(node.args) + flat_nodes(list(node.kwargs.values())):
        if is_symbolic(arg) or arg.name in emitter.subgraphs:
            continue  # a size (dynamic shapes) or a subgraph: no tensor
        value = emitter.values.get(arg.name)
        if value is None:
            raise ExportError(f"{where}: operand '{arg.name}' was not exported")
        if isinstance(value, list):
            raise ExportError(f"{where}: operand '{arg.name}' is a tuple")
        operands.append(value)
    present = [r for r in results if r is not None]
    inherent = {"op_name": f'"{op_name}"',
                "flops": flops_attr(flops(operands, present)),
                "compute_class": f'"{klass}"'}
    discardable = _name_attr(node)
    tags, tag_note = emitter.tags, emitter.tag_note
    if klass == "random":
        inherent["random"] = None
        emitter.tags = [t for t in tags if t != "remat.must_recompute"]
    if never_recompute_note:
        emitter.tags = [t for t in tags if t not in (
            "remat.must_recompute", "remat.prefer_recompute",
            "remat.never_recompute")] + ["remat.never_recompute"]
        emitter.tag_note = never_recompute_note
    values = emitter.emit("remat.opaque", operands, present, inherent,
                          discardable)
    emitter.tags, emitter.tag_note = tags, tag_note
    if not results_are_tuple(node):
        emitter.values[node.name] = values[0]
        return
    # Multi-result node: getitem indices address `results`, Nones included.
    it = iter(values)
    emitter.values[node.name] = [next(it) if r is not None else None for r in results]


def _typed_dtypes_only(emitter, node, results):
    """Whether every tensor the node reads or makes has a dtype remat's
    typed ops take: a view or an add of int32 or complex values would not
    verify, so such a node is opaque (its class still makes a view a
    view)."""
    if any(r is not None and r[1] not in TYPED_DTYPES for r in results):
        return False
    for arg in flat_nodes(node.args) + flat_nodes(list(node.kwargs.values())):
        value = emitter.values.get(arg.name)
        for v in value if isinstance(value, list) else [value]:
            if v is not None and v.dtype not in TYPED_DTYPES:
                return False
    return True


def results_are_tuple(node):
    meta = node.meta.get("val", node.meta.get("tensor_meta"))
    if meta is None:  # 1.13: only the getitem users carry metadata
        return bool(node.users) and all(u.target is operator.getitem
                                        for u in node.users)
    return isinstance(meta, (list, tuple)) and not hasattr(meta, "shape")
