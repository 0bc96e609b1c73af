"""PyTorch's higher-order ops (`torch.cond`, `scan`, `while_loop`,
`invoke_subgraph` from `torch.compiler.nested_compile_region`, ...) in a
joint graph: each call is one `remat.opaque` op.

A higher-order op takes FX subgraphs as operands (`get_attr` nodes that
read a GraphModule of the joint module) beside its tensors. The subgraphs
are not values: the op's tensor operands, nested in tuples as the op takes
them, are its operands in remat, and its tensor results (a tuple, read
through getitem) are its results. Its cost is an estimate from the
subgraphs' own nodes (the same per-node estimate as an opaque ATen op's:
`cond` the dearer branch, `scan` its body once per step of the scanned
dimension, any other op each subgraph once).

Such an op is never recomputed: realising the replay would mean copying
the call and its subgraph into the backward module, and a subgraph may draw
random numbers (dropout inside a branch), which a replay would draw anew.
So backward reads what it needs of its results from saved values, as it
does from PyTorch's own partition (docs/Python.md).
"""

import operator

import torch

from remat_torch.fxmeta import flat_nodes, meta_of, module_attribute
from remat_torch.ops import node_flops, packet

_HIGHER_ORDER = getattr(torch._ops, "HigherOrderOperator", None)


def is_higher_order(node):
    """Whether an FX node calls a higher-order op (PyTorch 2.x; 1.13 has
    none)."""
    return (_HIGHER_ORDER is not None and node.op == "call_function" and
            isinstance(node.target, _HIGHER_ORDER))


def subgraph_module(joint, node):
    """The module a `get_attr` node reads when it is a subgraph (an
    nn.Module, the GraphModule of a higher-order op's operand), else
    None."""
    if node.op != "get_attr":
        return None
    attribute = module_attribute(joint, node.target)
    return attribute if isinstance(attribute, torch.nn.Module) else None


def higher_order_flops(node, subgraphs):
    """The FLOP estimate of a higher-order op call: its subgraphs' nodes
    estimated one by one (`subgraphs`: get_attr node name -> module)."""
    modules = [subgraphs[a.name] for a in flat_nodes(node.args)
               if a.name in subgraphs]
    costs = [_module_flops(m) for m in modules]
    if not costs:
        return 0.0
    name = packet(node)
    if name == "cond":
        return max(costs)
    if name == "scan":
        steps = _scan_length(node, subgraphs)
        return costs[0] * steps + sum(costs[1:])
    return sum(costs)


def _scan_length(node, subgraphs):
    """The number of steps of a scan call: the leading size of its first
    scanned tensor (scan(combine, init, xs, additional_inputs)), 1 when it
    cannot be read."""
    tensors = [a for a in flat_nodes(node.args[2:3]) if a.name not in subgraphs]
    meta = meta_of(tensors[0]) if tensors else None
    if isinstance(meta, tuple) and meta[0]:
        return meta[0][0]
    return 1


def _module_flops(module):
    total = 0.0
    for node in module.graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem:
            continue
        if is_higher_order(node):
            nested = {a.name: sub for a in flat_nodes(node.args)
                      if (sub := subgraph_module(module, a)) is not None}
            total += higher_order_flops(node, nested)
            continue
        total += node_flops(node)
    return total
