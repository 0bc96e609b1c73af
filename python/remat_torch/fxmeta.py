"""Shapes and dtypes of FX nodes, as PyTorch 1.13 and 2.x record them."""

import operator

import torch.fx


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
        return (tuple(int(d) for d in shape), dtype)

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
