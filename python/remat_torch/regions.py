"""Checkpoint regions: mark ops that must (or should) be recomputed or saved.

PyTorch 2.x marks the ops of a `torch.utils.checkpoint` region (and of
selective activation checkpointing) in the joint graph itself: each FX node
carries `node.meta["recompute"]`, a `CheckpointPolicy` (MUST_SAVE,
PREFER_SAVE, MUST_RECOMPUTE, PREFER_RECOMPUTE; older 2.x releases write
True for "recompute"). The exporter turns that into remat's tags.

PyTorch 1.13 has no such metadata, and `torch.utils.checkpoint` hides the
region from AOTAutograd (see docs/Importers.md). `checkpoint(fn, *args,
policy=...)` marks one instead: it wraps each tensor argument and each
tensor result of `fn` in an identity marker op (`remat_torch::region_enter`
/ `region_exit`, defined with torch.library), so the joint graph shows where
the region starts and ends; the exporter drops the markers and tags every
forward op traced between them. The markers are identities, so the model
computes the same values with or without them (eagerly, each costs a copy).
"""

import itertools
import operator

import torch

# Policy spellings -> remat tags (docs/Dialect.md, "Tags").
TAGS = {
    "must_recompute": "remat.must_recompute",
    "prefer_recompute": "remat.prefer_recompute",
    "must_save": "remat.never_recompute",
    "prefer_save": "remat.prefer_save",
}

_library = None
_regions = {}  # region id -> (policy, default)
_ids = itertools.count(1)


def _define_markers():
    global _library
    if _library is not None:
        return
    library = torch.library.Library("remat_torch", "DEF")
    library.define("region_enter(Tensor x, int region) -> Tensor")
    library.define("region_exit(Tensor x, int region) -> Tensor")
    # CompositeExplicitAutograd: one kernel for every backend (real, meta and
    # fake tensors), and the op stays one node in traced graphs. A copy, as
    # an op may not return an alias of its input without saying so.
    for op in ("region_enter", "region_exit"):
        library.impl(op, lambda x, region: x.clone(), "CompositeExplicitAutograd")
    _library = library


class _Marker(torch.autograd.Function):
    """Identity with respect to autograd: the gradient passes unchanged and
    the backward records no op."""

    @staticmethod
    def forward(ctx, x, region, exit_):
        op = torch.ops.remat_torch.region_exit if exit_ else \
            torch.ops.remat_torch.region_enter
        return op(x, region)

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


def _tag_name(tag, where):
    if tag not in TAGS:
        raise ValueError(f"{where}: unknown policy '{tag}'; use one of "
                         f"{', '.join(TAGS)}")
    return tag


def checkpoint(fn, *args, policy=None, default="must_recompute"):
    """Calls `fn(*args)` as a checkpoint region for the remat exporter.

    Every forward op of the region gets a tag: `policy` maps an ATen op name
    (the overload packet, e.g. "mm", "sigmoid", "native_dropout") to one of
    "must_recompute", "prefer_recompute", "must_save", "prefer_save" (a dict,
    or a callable returning a name or None); ops it does not name get
    `default` ("must_recompute", as torch.utils.checkpoint recomputes the
    whole region). At least one argument must be a tensor (where the region
    starts); the tensors `fn` returns (a tensor, or a tuple/list of them) end
    it.
    """
    _tag_name(default, "checkpoint(default=...)")
    if isinstance(policy, dict):
        for op, tag in policy.items():
            _tag_name(tag, f"checkpoint(policy={{'{op}': ...}})")
    elif policy is not None and not callable(policy):
        raise TypeError("checkpoint(policy=...) takes a dict {aten op: policy} "
                        "or a callable(aten op) -> policy")
    if not any(isinstance(a, torch.Tensor) for a in args):
        raise ValueError("checkpoint(fn, *args): pass at least one tensor "
                         "argument (the region starts at its arguments)")
    _define_markers()
    region = next(_ids)
    _regions[region] = (policy, default)
    marked = [_Marker.apply(a, region, False) if isinstance(a, torch.Tensor)
              else a for a in args]
    out = fn(*marked)
    if isinstance(out, torch.Tensor):
        return _Marker.apply(out, region, True)
    if isinstance(out, (tuple, list)):
        return type(out)(_Marker.apply(o, region, True)
                         if isinstance(o, torch.Tensor) else o for o in out)
    raise TypeError(f"checkpoint(fn, ...): fn returned {type(out).__name__}; "
                    "return a tensor or a tuple/list of tensors")


def marker_kind(node):
    """"enter", "exit" or None for an FX node."""
    target = str(node.target)
    if target.startswith("remat_torch.region_enter"):
        return "enter"
    if target.startswith("remat_torch.region_exit"):
        return "exit"
    return None


def _policy_tag(region, number, op_name):
    """(tag, note) for an op of `region`: the remat tag its policy (or the
    region's default) gives `op_name`, and the remat.tag_note saying so,
    which calls the region by `number` (its place in the graph)."""
    policy, default = _regions.get(region, (None, "must_recompute"))
    tag = None
    if isinstance(policy, dict):
        tag = policy.get(op_name)
    elif policy is not None:
        tag = policy(op_name)
        if tag is not None:
            _tag_name(tag, f"checkpoint policy for '{op_name}'")
    where = f"set by remat_torch.checkpoint: region {number}'s"
    note = (f"{where} policy gives {op_name} {tag}" if tag is not None
            else f"{where} default, {default}")
    return TAGS[tag or default], note


# PyTorch 2.x CheckpointPolicy names -> remat tags.
_META_POLICIES = {
    "MUST_SAVE": "remat.never_recompute",
    "PREFER_SAVE": "remat.prefer_save",
    "MUST_RECOMPUTE": "remat.must_recompute",
    "PREFER_RECOMPUTE": "remat.prefer_recompute",
}


def _meta_note(number, policy):
    """The remat.tag_note of a tag read from PyTorch 2.x's checkpoint
    metadata: which region (numbered in graph order from PyTorch's
    `ac_graph_id`, when it records one) and what its policy said."""
    where = ("PyTorch's activation checkpointing" if number is None else
             f"PyTorch's activation-checkpoint region {number}")
    return f"set by remat_torch: {where} marks it {policy}"


def node_tags(graph, packet):
    """FX node name -> (list of remat tags, remat.tag_note saying where they
    come from), from checkpoint-region markers and from PyTorch 2.x
    `recompute` metadata. `packet(node)` gives the ATen op name a policy is
    keyed by."""
    nodes = list(graph.nodes)
    tags = {}
    numbers = {}  # PyTorch's ac_graph_id -> region number in graph order
    for node in nodes:
        meta = node.meta.get("recompute") if node.op == "call_function" else None
        if meta is None or meta is False:
            continue
        region = node.meta.get("ac_graph_id")
        number = None if region is None else \
            numbers.setdefault(region, len(numbers) + 1)
        if meta is True:  # PyTorch 2.0/2.1: a region op, recomputed
            tags[node.name] = (["remat.must_recompute"],
                               _meta_note(number, "recomputed"))
            continue
        name = getattr(meta, "name", str(meta))
        if name not in _META_POLICIES:
            raise ValueError(f"node '{node.name}' has recompute metadata "
                             f"{meta!r}; known policies: "
                             f"{', '.join(_META_POLICIES)}")
        tags[node.name] = ([_META_POLICIES[name]], _meta_note(number, name))

    spans = {}
    for position, node in enumerate(nodes):
        kind = marker_kind(node) if node.op == "call_function" else None
        if kind is None:
            continue
        region = int(node.args[1])
        first, last = spans.get(region, (None, None))
        if kind == "enter":
            first = position if first is None else min(first, position)
        else:
            last = position if last is None else max(last, position)
        spans[region] = (first, last)
    for region, (first, last) in sorted(spans.items()):
        if first is None or last is None or last < first:
            raise ValueError(f"checkpoint region {region} has no "
                             f"{'start' if first is None else 'end'} in the "
                             "joint graph (did fn return a tensor computed "
                             "from its arguments?)")
    # Notes number the regions in graph order (the ids count every call of
    # checkpoint() in the process, tracing included).
    ordered = sorted(spans.items(), key=lambda item: item[1][0])
    for number, (region, (first, last)) in enumerate(ordered, 1):
        for node in nodes[first + 1:last]:
            if node.op != "call_function" or marker_kind(node) is not None:
                continue
            if node.target is operator.getitem:
                continue
            tag, note = _policy_tag(region, number, packet(node))
            tags[node.name] = ([tag], note)
    return tags
