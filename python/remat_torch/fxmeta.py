"""Shapes and dtypes of FX nodes, as PyTorch 1.13 and 2.x record them, and
the parts of a joint graph."""

import operator

import torch
import torch.fx

# Symbolic scalars (PyTorch 2.x; 1.13 has none of them): the values of size
# computations in a graph traced with dynamic shapes.
_SYMBOLIC_TYPES = tuple(getattr(torch, name) for name in
                        ("SymInt", "SymFloat", "SymBool") if hasattr(torch, name))


def is_symbolic(node):
    """Whether an FX node's value is a scalar (a size, or arithmetic on
    sizes), not a tensor: a SymInt placeholder of a graph traced with
    dynamic shapes, `sym_size`, `operator.mul` of sizes, ..."""
    val = node.meta.get("val", None)
    return isinstance(val, _SYMBOLIC_TYPES + (int, float, bool))


def size_hint(dim):
    """A dimension as an int: a symbolic one by the size it had when traced
    (its hint), as PyTorch's partitioner weighs it; None when it has no hint
    (a data-dependent size)."""
    if isinstance(dim, _SYMBOLIC_TYPES):
        hint = getattr(dim.node, "hint", None)
        return None if hint is None else int(hint)
    return int(dim)


def meta_of(node):
    """(shape, dtype) per result of a node, None for a None result. Reads
    `val` (FakeTensor, PyTorch 2.x) or `tensor_meta` (1.13)."""
    meta = node.meta.get("val", None)
    if meta is None:
        meta = node.meta.get("tensor_meta", None)
    if meta is None:
        return None

    def one(m):
        if m is None:
            return None
        shape = getattr(m, "shape", None)
        dtype = getattr(m, "dtype", None)
        if shape is None or dtype is None:
            return None
        sizes = tuple(size_hint(d) for d in shape)
        if None in sizes:
            return None
        return (sizes, dtype)

    # TensorMetadata is itself a NamedTuple: test for a shape first.
    if isinstance(meta, (tuple, list)) and not hasattr(meta, "shape"):
        return [one(m) for m in meta]
    return one(meta)


def meta_from_getitems(node):
    """PyTorch 1.13 records no metadata on multi-result nodes; their getitem
    users have it. Results nobody reads are dead and become None."""
    users = list(node.users)
    if not users or any(u.target is not operator.getitem for u in users):
        return None
    indices = {u.args[1]: meta_of(u) for u in users}
    if any(not isinstance(i, int) or m is None or isinstance(m, list)
           for i, m in indices.items()):
        return None
    return [indices.get(i) for i in range(max(indices) + 1)]


def module_attribute(module, target):
    """The attribute a get_attr node reads (a dotted path), or None."""
    for name in str(target).split("."):
        module = getattr(module, name, None)
    return module


def flat_nodes(args):
    """The FX nodes in an argument structure (a node, or lists, tuples and
    dicts of them), in order."""
    if isinstance(args, torch.fx.Node):
        return [args]
    if isinstance(args, dict):
        args = list(args.values())
    out = []
    if isinstance(args, (list, tuple)):
        for a in args:
            out.extend(flat_nodes(a))
    return out


def backward_region(graph):
    """The nodes of a joint graph that depend on a tangent (placeholders
    tangents_*): the backward proper."""
    backward = set()
    for node in graph.nodes:
        if (node.op == "placeholder" and node.name.startswith("tangents")) or \
                any(i in backward for i in node.all_input_nodes):
            backward.add(node)
    return backward
