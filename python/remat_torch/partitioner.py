"""remat's plan as a PyTorch partition function.

`partition(joint_module, joint_inputs, *, num_fwd_outputs, **options)` has
the contract of PyTorch's `min_cut_rematerialization_partition`: it gets
AOTAutograd's joint forward+backward graph and returns the forward and
backward graph modules. Which values the forward saves comes from remat's
plan (planned in this process through the `remat` package):

- saved values become forward outputs (and backward inputs);
- recomputed ops run in backward, each chain just before the first backward
  op that reads it (the order remat's schedule gives them);
- derived values are computed in backward by their inverse op from values
  that are saved anyway (`h = out - mlp_out`, a reshape back, ...).

Keyword options are remat-plan's (`strategy`, `memory_budget`, `target`,
`target_file`, `policy`, `allow_inexact_derivation`, `recompute_banned`:
"allow" lets budget replay matmuls when nothing else fits, `exchange_rate`: for
min-cut, bytes per us of replay time, 0 for bytes alone, `budget_search_effort`:
a multiple of budget's search work, for lower peaks on large graphs,
`lower_bound_time_limit` and `optimal_time_limit` in seconds, `progress`), plus `report` (a path
for the JSON report), `strict`, `on_infeasible`, `on_plan`, `workspace` and
`op_times`.

Kernel workspace (`workspace`): scratch a kernel allocates and frees while it
runs (a depthwise `convolution_backward` on the CPU: an input-sized
temporary) is in no graph value, so by default the predicted peak leaves it
out. `workspace="profile"` runs each distinct call of the joint graph twice
on synthetic inputs before planning (remat_torch.workspace: at most two
training steps' kernels) and states what each allocated beyond its results as
`remat.workspace_bytes`, which the planner counts at the op's step; a dict
{FX node name: bytes} states it directly.

Op times (`op_times`): by default the planner predicts each op's time
from the target's roofline (`target`, "h100" unless given). `op_times=
"profile"` times each distinct call of the joint graph on synthetic inputs
instead (remat_torch.workspace.profile_op_times: a warm-up and five timed
runs, the median) and states it as `remat.fixed_time_us`, so that the plan
weighs recomputation, and the report predicts the step, in this machine's
eager kernel times (nothing is fused: such ops are charged as kernels when
replayed); a dict {FX node name: microseconds} states them directly, and
`PartitionInfo.op_times` holds what was stated, to pass back for the same
plan (profiled times vary from run to run). min-cut's exchange rate stays the
target's (bytes per microsecond) unless `exchange_rate` is given.

A graph remat cannot export or plan (dynamic shapes, an unsupported
construct) falls back to PyTorch's own partitioner with one warning naming
the reason, or raises `RematPartitionError` with `strict=True`. A memory
budget no plan meets raises `RematPartitionError` naming the smallest peak
remat reaches; `on_infeasible="closest"` plans at that peak instead, with a
warning.

Random ops (`random_ops`): by default ("save") they read no RNG state, so
the plan never replays them and their results (dropout's mask) are saved when
backward needs them, as PyTorch's partitioner does: replaying dropout on
the CPU made GPT-2 and BERT training steps 21-28% slower in
docs/benchmarks.md, and remat's cost model does not see that yet. With
"replay" (PyTorch 2.x), the plan may recompute them, and a random op the
backward replays runs under the generator state the forward saved
(PyTorch's own `functionalize_rng_ops`), so it draws the forward's numbers.
PyTorch 1.13 has no way to do that.
"""

import inspect
import math
import operator
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

import torch
import torch.fx
import torch.utils._pytree as pytree

import remat
from remat_torch import ops as op_table
from remat_torch.emitter import ExportError
from remat_torch.fxmeta import backward_region, flat_nodes, is_symbolic, size_hint
from remat_torch.joint import graph_to_mlir
from remat_torch.workspace import profile_op_times, profile_workspace


class RematPartitionError(Exception):
    """remat cannot partition this graph as asked; the message says why."""

    def __init__(self, message, smallest_peak_bytes=None):
        super().__init__(message)
        self.smallest_peak_bytes = smallest_peak_bytes


@dataclass
class PartitionInfo:
    """What one partition call did, for `on_plan` callbacks and tools."""
    report: Optional[remat.Report]
    # The backward's saved inputs, in order (FX names; a source saved only
    # for a derivation may carry a suffix FX added to keep names unique).
    saved: List[str] = field(default_factory=list)
    derived: List[str] = field(default_factory=list)  # FX names
    recomputed: List[str] = field(default_factory=list)  # FX names
    # Plan decisions the FX program realises differently (and how), e.g. a
    # saved exporter helper replaced by the FX value it belongs to.
    adjustments: List[str] = field(default_factory=list)
    fallback_reason: Optional[str] = None
    seconds: Dict[str, float] = field(default_factory=dict)
    # Kernel workspace stated to the planner: FX node name -> bytes.
    workspace: Dict[str, int] = field(default_factory=dict)
    # Op times stated to the planner: FX node name -> microseconds.
    op_times: Dict[str, float] = field(default_factory=dict)
    # A graph traced with dynamic shapes: each symbolic size it takes
    # (Dynamo's symbol, "s0") -> the size the plan was made for (its hint).
    # Empty for static shapes.
    sizes: Dict[str, int] = field(default_factory=dict)


# schedule_plans is not the user's to set: this partitioner realises
# per-value decisions, so it always plans with schedule_plans=False.
# decision_groups ties values by the exporter's names, which a PyTorch user
# never sees, so partition does not take it either.
_PLANNER_OPTIONS = tuple(key for key in remat.planner.OPTIONS
                         if key not in ("schedule_plans", "decision_groups"))


def _torch_partitioners():
    try:
        from torch._functorch import partitioners
    except ImportError:  # PyTorch 1.13
        from functorch._src import partitioners
    return partitioners


def _num_fwd_outputs(joint_module, num_fwd_outputs):
    if num_fwd_outputs is not None:
        return num_fwd_outputs
    # PyTorch 1.13 passes no count; its partitioners read the output spec.
    spec = getattr(joint_module, "_out_spec", None)
    if spec is None:
        raise ExportError("the joint graph carries no output spec and no "
                          "num_fwd_outputs was given")
    return spec.children_specs[0].num_leaves


def _is_random(node):
    return node.op == "call_function" and \
        op_table.compute_class(op_table.packet(node)) == "random"


def _mutated_primals(graph):
    """Primals the forward mutates, so that a backward must not read them:
    PyTorch 2.x either returns their new values as forward outputs and
    copies them back after the forward (the output node's AOTAutograd
    descriptors say which), or, when the compiler keeps input mutations in
    the graph (Inductor does), writes them with an `aten.copy_` into the
    primal inside the forward graph. PyTorch 1.13 traces no such
    mutation."""
    output = next(n for n in graph.nodes if n.op == "output")
    primals = [n for n in graph.nodes if _is_primal(n)]
    mutated = set()
    for desc in output.meta.get("desc") or []:
        source = getattr(desc, "mutated_input", None)
        index = getattr(source, "idx", None)
        if isinstance(index, int) and 0 <= index < len(primals):
            mutated.add(primals[index])
    # Before 2026-12-07 these were missed: under Inductor a backward
    # replayed an op that had read a buffer's old value (spectral_norm's u
    # and v, an EMA) from its new one, and the gradients were wrong.
    copy = getattr(torch.ops.aten.copy_, "default", None)
    for node in graph.nodes:
        if node.op == "call_function" and node.target is copy and \
                node.args and _is_primal(node.args[0]):
            mutated.add(node.args[0])
    return mutated


def _is_tangent(node):
    return node.op == "placeholder" and node.name.startswith("tangents")


def _is_primal(node):
    return node.op == "placeholder" and not node.name.startswith("tangents")


class _PlanOnGraph:
    """Maps remat's report onto the FX joint graph."""

    def __init__(self, joint, mlir_graph):
        self.nodes = {n.name: n for n in joint.graph.nodes}
        self.mlir = mlir_graph
        # ssa -> the FX node holding that value (getitems for results of
        # multi-result nodes; the first of identical values such as detach).
        self.fx_of_ssa = {}
        for name, value in mlir_graph.values.items():
            if not isinstance(value, list):
                self.fx_of_ssa.setdefault(value.ssa, name)
        self.ssa_of_name = {}
        # ssa -> views of it that hold an FX value (a remat result PyTorch
        # returns reshaped, such as layer norm's statistics).
        self.fx_views = {}
        for ssa, origin in mlir_graph.origins.items():
            self.ssa_of_name.setdefault(origin.report_name, ssa)
            if origin.view_of is not None and ssa in self.fx_of_ssa:
                self.fx_views.setdefault(origin.view_of, ssa)
        self.adjustments = []

    def fx_node(self, name):
        """The FX node that holds report value `name`, or None. Exporter
        helpers that view an FX value map to that value; other helpers map
        to the single-result FX node they were emitted for."""
        placeholder = self.mlir.argument_labels.get(name)
        if placeholder is not None:
            return self.nodes.get(placeholder)
        ssa = self.ssa_of_name.get(name)
        seen = set()
        while ssa is not None and ssa not in seen:
            seen.add(ssa)
            fx = self.fx_of_ssa.get(ssa) or \
                self.fx_of_ssa.get(self.fx_views.get(ssa))
            if fx is not None:
                return self.nodes.get(fx)
            origin = self.mlir.origins.get(ssa)
            if origin is None:
                return None
            if origin.view_of is not None:
                ssa = origin.view_of
                continue
            owner = self.nodes.get(origin.node) if origin.node else None
            if owner is not None and not isinstance(
                    self.mlir.values.get(owner.name), list):
                return owner
            return None
        return None


def _rng_functionalization():
    """PyTorch 2.x's `functionalize_rng_ops`, which makes a random op
    replayed in backward draw the forward's numbers (the forward saves the
    generator state, `run_and_save_rng_state`; the backward runs the op
    again under it, `run_with_rng_state`; both have CPU kernels), or None
    where it does not exist (PyTorch 1.13)."""
    partitioners = _torch_partitioners()
    functionalize = getattr(partitioners, "functionalize_rng_ops", None)
    try:
        from torch._prims.rng_prims import run_and_save_rng_state  # noqa: F401
        from torch.utils.checkpoint import CheckpointPolicy
    except ImportError:
        return None
    if functionalize is None:
        return None

    def apply(joint_module, fw_module, bw_module):
        in_backward = {n.name for n in bw_module.graph.nodes if _is_random(n)}
        replayed = [n for n in joint_module.graph.nodes
                    if _is_random(n) and n.name in in_backward]
        if not replayed:
            return fw_module, bw_module
        # It rewrites the random ops tagged must-recompute that both
        # graphs hold: ours are exactly those the backward replays. The
        # tags come off again, so a fallback to PyTorch's partitioner sees
        # the graph as it was.
        previous = {n: n.meta.get("recompute") for n in replayed}
        for node in replayed:
            node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE
        try:
            return functionalize(joint_module, fw_module, bw_module, 0)
        finally:
            for node, policy in previous.items():
                if policy is None:
                    node.meta.pop("recompute", None)
                else:
                    node.meta["recompute"] = policy

    return apply


def _required_forward(outputs):
    """Nodes the forward outputs are computed from (PyTorch's "required
    forward" nodes)."""
    required, stack = set(), list(outputs)
    while stack:
        node = stack.pop()
        if node not in required:
            required.add(node)
            stack.extend(node.all_input_nodes)
    return required


def _replayed_nodes(graph, saved, backward, num_fwd_outputs):
    """Non-backward nodes the backward has to run given `saved`: what the
    backward outputs reach, stopping at saved values and tangents, in graph
    order."""
    output = next(n for n in graph.nodes if n.op == "output")
    reached, stack = set(), flat_nodes(output.args[0])[num_fwd_outputs:]
    while stack:
        node = stack.pop()
        if node in reached or node in saved or _is_tangent(node):
            continue
        reached.add(node)
        stack.extend(node.all_input_nodes)
    return [n for n in graph.nodes if n in reached and n not in backward]


_DERIVATIONS = {
    # remat's InverseKind (the report's "derivation") -> (ATen op, args,
    # kwargs) computing the value from `f` = [c, others...], the values the
    # rule reads (lib/Core/Derivation.cpp), and `meta`, the value's own
    # shape and dtype.
    "subtract-other": lambda f, meta: (torch.ops.aten.sub.Tensor, (f[0], f[1]), {}),
    "add-other": lambda f, meta: (torch.ops.aten.add.Tensor, (f[0], f[1]), {}),
    "subtract-from-other": lambda f, meta: (torch.ops.aten.sub.Tensor, (f[1], f[0]), {}),
    "divide-by-other": lambda f, meta: (torch.ops.aten.div.Tensor, (f[0], f[1]), {}),
    "multiply-by-other": lambda f, meta: (torch.ops.aten.mul.Tensor, (f[0], f[1]), {}),
    "divide-other-by": lambda f, meta: (torch.ops.aten.div.Tensor, (f[1], f[0]), {}),
    "negate": lambda f, meta: (torch.ops.aten.neg.default, (f[0],), {}),
    "log": lambda f, meta: (torch.ops.aten.log.default, (f[0],), {}),
    "exp": lambda f, meta: (torch.ops.aten.exp.default, (f[0],), {}),
    "reshape": lambda f, meta: (torch.ops.aten.reshape.default,
                                (f[0], _static_shape(meta.shape)), {}),
    "cast": lambda f, meta: (torch.ops.aten._to_copy.default, (f[0],),
                             {"dtype": meta.dtype}),
}


def _static_shape(shape):
    """`shape` as ints, a symbolic size (dynamic shapes) as -1: a backward
    graph has no name for `s77` (before 2026-12-07 the reshape baked it in,
    and the first backward raised NameError). _choose_saved builds no
    reshape derivation for a shape with two symbolic sizes."""
    return [d if isinstance(d, int) else -1 for d in shape]


def _symbolic_sizes(shape):
    return sum(not isinstance(d, int) for d in shape)


def _transpose_inverse(via):
    """The builder (as in _DERIVATIONS) undoing transpose `via`, the FX node
    whose result the derivation reads, or None for another op."""
    target = str(via.target)
    if target == "aten.t.default":
        return lambda f, meta: (torch.ops.aten.t.default, (f[0],), {})
    if target == "aten.transpose.int":
        dims = tuple(via.args[1:3])
        return lambda f, meta: (torch.ops.aten.transpose.int,
                                (f[0],) + dims, {})
    if target == "aten.permute.default":
        dims = list(via.args[1])
        inverse = [0] * len(dims)
        for position, dim in enumerate(dims):
            inverse[dim % len(dims)] = position
        return lambda f, meta: (torch.ops.aten.permute.default,
                                (f[0], inverse), {})
    return None


def _choose_saved(plan_on_graph, report, joint):
    """The FX nodes to save and the derivations to build in backward:
    (saved nodes in graph order, {derived node: (builder, [source nodes])}),
    a builder as in _DERIVATIONS."""
    saved, derived = set(), {}
    backward = backward_region(joint.graph)
    for row in report.values:
        decision = row["decision"]
        if decision not in ("save", "derive"):
            continue
        node = plan_on_graph.fx_node(row["name"])
        if node is None:
            plan_on_graph.adjustments.append(
                f"{row['name']}: {decision} decision has no FX value to "
                "apply to; backward recomputes what it needs instead")
            continue
        if node.op == "get_attr" and decision == "save":
            continue  # a module's constant: the backward reads it as is
        if node in backward:
            # An exporter helper of a backward node (the scalar constant of
            # a backward division, say): the forward cannot compute it.
            plan_on_graph.adjustments.append(
                f"{row['name']}: belongs to backward op '{node.name}', which "
                "computes it")
            continue
        if decision == "save":
            saved.add(node)
            continue
        kind = row.get("derivation")
        sources = [plan_on_graph.fx_node(n) for n in row.get("derived_from", [])]
        build = _DERIVATIONS.get(kind)
        if kind == "transpose" and sources and sources[0] is not None:
            build = _transpose_inverse(sources[0])
        if build is None or None in sources or _meta_tensor(node) is None:
            plan_on_graph.adjustments.append(
                f"{row['name']}: derivation '{kind}' is not built in FX; "
                "backward recomputes it instead")
            continue
        if kind == "reshape" and _symbolic_sizes(_meta_tensor(node).shape) > 1:
            plan_on_graph.adjustments.append(
                f"{row['name']}: a reshape to a shape with several symbolic "
                "sizes is not built in FX; backward recomputes it instead")
            continue
        derived[node] = (build, sources)
    # Derivation sources are kept for backward (the plan saves them, or
    # they are inputs), unless derived themselves (a chain).
    for _, sources in derived.values():
        saved.update(s for s in sources if s not in derived)
    return saved, derived


def _meta_tensor(node):
    val = node.meta.get("val", node.meta.get("tensor_meta"))
    if val is None or not hasattr(val, "shape"):
        return None
    return val


def _close_saved_set(graph, saved, derived, num_fwd_outputs, adjustments,
                     replay_random):
    """Makes the saved set one PyTorch can extract: backward may replay
    forward ops but not read primals or forward outputs it was not given
    (they are saved), never replays an op that reads an input the forward
    mutates, and replays a random op only when `replay_random` (its
    generator state is then saved). Adds what is missing (primals, outputs,
    the results of such ops) until nothing is; returns the nodes backward
    replays."""
    backward = backward_region(graph)
    mutated = _mutated_primals(graph)
    output = next(n for n in graph.nodes if n.op == "output")
    # The forward returns these anyway; remat counts them as available, so
    # the backward reads them instead of computing them again.
    forward_outputs = set(flat_nodes(output.args[0])[:num_fwd_outputs])
    while True:
        replayed = _replayed_nodes(graph, saved | set(derived), backward,
                                   num_fwd_outputs)
        missing = []
        for node in replayed:
            if _is_primal(node) or node in forward_outputs or is_symbolic(node):
                # A size the backward needs is handed over as PyTorch's
                # partitioners hand it (a saved SymInt), not computed again
                # from the tensor it was read from.
                missing.append(node)
            elif (_is_random(node) and not replay_random) or \
                    (any(i in mutated for i in node.all_input_nodes) and
                     not (_is_training_batch_norm(node) and _HAS_NO_STATS)):
                why = ("replaying a random op draws other numbers"
                       if _is_random(node) else
                       "it reads an input the forward updates in place")
                if not _is_random(node) and _is_view(node):
                    # A saved view of the input would show the update to
                    # whatever backward replays from it (before 2026-12-07,
                    # F.linear's permute of a weight the forward then
                    # scaled in place: wrong gradients under Inductor).
                    view, node = node, _snapshot(graph, node)
                    adjustments.append(
                        f"{view.name}: not replayed in backward; it is a view "
                        "of an input the forward updates in place, so a copy "
                        f"of it taken where the forward reads it, {node.name}, "
                        "is saved")
                else:
                    adjustments.append(f"{node.name}: not replayed in "
                                       f"backward, its results are saved "
                                       f"({why})")
                users = [u for u in node.users if u.target is operator.getitem]
                missing.extend(users if users else [node])
        if not missing:
            return replayed
        saved.update(missing)


def _is_view(node):
    """Whether the ATen op of `node` returns an alias of an input (its
    schema says so: permute, t, view, expand, slice, ...)."""
    schema = getattr(node.target, "_schema", None)
    return node.op == "call_function" and schema is not None and any(
        r.alias_info is not None for r in schema.returns)


def _snapshot(graph, view):
    """A copy of `view` taken right after it, read by every user of `view`
    instead: what a saved view of an input the forward updates in place
    must be, so that it keeps the values the forward read."""
    with graph.inserting_after(view):
        copy = graph.call_function(torch.ops.aten.clone.default, (view,))
    view.replace_all_uses_with(copy, delete_user_cb=lambda user: user is not copy)
    copy.meta = dict(view.meta)
    return copy


def _extract(joint, saved_nodes, num_fwd_outputs, static_lifetime_input_indices):
    partitioners = _torch_partitioners()
    extract = partitioners._extract_fwd_bwd_modules
    try:
        parameters = inspect.signature(extract).parameters
    except (TypeError, ValueError):  # pragma: no cover
        parameters = {}
    if "saved_sym_nodes" not in parameters:  # PyTorch 1.13
        return extract(joint, saved_nodes)
    saved_sym_nodes = [n for n in saved_nodes if is_symbolic(n)]
    saved_nodes = [n for n in saved_nodes if not is_symbolic(n)]
    kwargs = {"num_fwd_outputs": num_fwd_outputs}
    if "static_lifetime_input_nodes" in parameters and \
            static_lifetime_input_indices is not None:
        try:
            from torch.utils._ordered_set import OrderedSet
        except ImportError:  # pragma: no cover
            OrderedSet = set
        primals = [n for n in joint.graph.nodes if _is_primal(n)]
        kwargs["static_lifetime_input_nodes"] = OrderedSet(
            primals[i] for i in static_lifetime_input_indices)
    return extract(joint, saved_nodes, saved_sym_nodes, **kwargs)


def _drop_unread(graph):
    """Erases the call_function nodes nobody reads (and then those only
    they read). Not Graph.eliminate_dead_code: that lints the topological
    order, which the backward has only after _place_lazily (derivations are
    appended where they are built)."""
    while True:
        dead = [n for n in graph.nodes if n.op == "call_function" and
                not n.users and not n.is_impure()]
        if not dead:
            return
        for node in dead:
            graph.erase_node(node)


def _place_lazily(bw_module, recomputed_names, derived):
    """Reorders the backward graph so that each recomputed op and each
    derivation runs just before the first op that needs it, depth first,
    first operand first (remat's schedule for per-value plans), and each
    getitem right after the op whose result it takes (the simulator's
    model: each result is its own value, live from its op); the other
    backward ops keep their order."""
    graph = bw_module.graph
    nodes = list(graph.nodes)
    lazy = {n for n in nodes if n.name in recomputed_names or n in derived}
    order, placed = [], set()

    def place(node):
        stack = [(node, False)]
        while stack:
            current, expanded = stack.pop()
            if current in placed:
                continue
            if expanded:
                placed.add(current)
                order.append(current)
                # A multi-result op's getitems run right after it: the
                # generated code holds the op's result tuple, and with it
                # every result, until the last getitem from it.
                for user in current.users:
                    if user.target is operator.getitem and user not in placed:
                        placed.add(user)
                        order.append(user)
                continue
            stack.append((current, True))
            for source in reversed(current.all_input_nodes):
                if source not in placed and source in lazy:
                    stack.append((source, False))

    for node in nodes:
        if node.op == "placeholder":
            placed.add(node)
            continue
        if node in lazy:
            continue
        place(node)
    # Every backward graph has placeholders (the tangents at least).
    cursor = [n for n in nodes if n.op == "placeholder"][-1]
    for node in order:
        if cursor.next is not node:
            cursor.append(node)
        cursor = node


class _SavedInterface:
    """The values the forward hands to the backward: the forward's outputs
    after its `num_fwd_outputs` real ones, and the backward's placeholders
    before the tangents, pair by pair. Rewrites of the backward that need
    another saved value, or no longer need one, go through here so the two
    sides stay in step. Saved sizes (SymInts, dynamic shapes) are the
    forward's last outputs and the backward's first inputs, as AOTAutograd
    passes them; they are kept as extracted."""

    def __init__(self, fw_module, bw_module, num_fwd_outputs):
        self.fw_graph, self.bw_graph = fw_module.graph, bw_module.graph
        self.fw_output = next(n for n in self.fw_graph.nodes if n.op == "output")
        returned = list(self.fw_output.args[0])
        self.real_outputs = returned[:num_fwd_outputs]
        placeholders = [n for n in self.bw_graph.nodes
                        if n.op == "placeholder" and not _is_tangent(n)]
        saved = returned[num_fwd_outputs:]
        self.sizes = [n for n in saved if is_symbolic(n)]
        saved = [n for n in saved if not is_symbolic(n)]
        size_inputs = [n for n in placeholders if is_symbolic(n)]
        placeholders = [n for n in placeholders if not is_symbolic(n)]
        if [n.name for n in self.sizes] != [n.name for n in size_inputs] or \
                len(saved) != len(placeholders) or any(
                f.name != b.name for f, b in zip(saved, placeholders)):
            raise _Unsupported("the forward's saved outputs do not match the "
                               "backward's inputs")
        self.pairs = list(zip(saved, placeholders))
        self.fw_nodes = {n.name: n for n in self.fw_graph.nodes}

    def existing(self, fw_name):
        """The backward's input for forward value `fw_name`, or None."""
        return next((p for f, p in self.pairs if f.name == fw_name), None)

    def placeholder(self, fw_name):
        """The backward's input for forward value `fw_name`, added (saved)
        when the backward did not read it yet; None if the forward has no
        such value."""
        existing = self.existing(fw_name)
        if existing is not None:
            return existing
        fw_node = self.fw_nodes.get(fw_name)
        if fw_node is None:
            return None
        # After the saved values (and sizes), before the tangents.
        inputs = [n for n in self.bw_graph.nodes
                  if n.op == "placeholder" and not _is_tangent(n)]
        where = (self.bw_graph.inserting_after(inputs[-1]) if inputs else
                 self.bw_graph.inserting_before(next(iter(self.bw_graph.nodes))))
        with where:
            placeholder = self.bw_graph.placeholder(fw_name)
        placeholder.meta = dict(fw_node.meta)
        self.pairs.append((fw_node, placeholder))
        return placeholder

    def drop_unused(self):
        """Forgets saved values the backward no longer reads."""
        kept = []
        for fw_node, placeholder in self.pairs:
            if placeholder.users:
                kept.append((fw_node, placeholder))
            else:
                self.bw_graph.erase_node(placeholder)
        self.pairs = kept

    def write(self):
        self.fw_output.args = (tuple(self.real_outputs) +
                               tuple(f for f, _ in self.pairs) +
                               tuple(self.sizes),)
        self.fw_graph.eliminate_dead_code()


def _build_derivations(saved, derived):
    """Replaces each derived value the backward reads (a saved input, as the
    extraction made it) by its inverse op on other saved values; a source
    the backward did not read yet is saved for it, and a source derived in
    turn (a chain) is built first. Returns the nodes built (placed later,
    before their first use) and the FX names derived."""
    # Sources first; only what the backward reads, directly or through a
    # chain, is built.
    order, state = [], {}

    def visit(node):
        if state.get(node) is not None:
            return
        state[node] = "visiting"
        for source in derived[node][1]:
            if source in derived and state.get(source) is None:
                visit(source)
        order.append(node)
        state[node] = "done"

    for node in derived:
        if saved.existing(node.name) is not None:
            visit(node)
    built, done, values = set(), [], {}
    for node in order:
        build, sources = derived[node]
        if any(s not in values and s.name not in saved.fw_nodes
               for s in sources):
            continue  # a source is not at hand: backward reads it saved
        inputs = [values[s] if s in values else saved.placeholder(s.name)
                  for s in sources]
        op, args, kwargs = build(inputs, _meta_tensor(node))
        # A link of a chain the backward does not read itself goes after
        # its inputs (_place_lazily moves it before its first use).
        target = saved.existing(node.name)
        if target is not None:
            where = saved.bw_graph.inserting_before(target)
        else:
            position = {n: i for i, n in enumerate(saved.bw_graph.nodes)}
            where = saved.bw_graph.inserting_after(
                max(inputs, key=position.__getitem__))
        with where:
            value = saved.bw_graph.call_function(op, tuple(args), kwargs)
        value.meta = dict(node.meta)
        if target is not None:
            target.replace_all_uses_with(value)
        values[node] = value
        built.add(value)
        done.append(node.name)
    return built, done


_BATCH_NORM_FUNCTIONAL = "aten._native_batch_norm_legit_functional.default"
_HAS_NO_STATS = hasattr(getattr(torch.ops.aten, "_native_batch_norm_legit", None),
                        "no_stats")


def _is_training_batch_norm(node):
    """2.x's training-mode batch norm, which also returns the updated
    running statistics: its first three results do not depend on them."""
    return node.op == "call_function" and \
        str(node.target) == _BATCH_NORM_FUNCTIONAL and \
        len(node.args) >= 8 and node.args[5] is True


def _unread_running_stats(graph):
    """A training-mode `native_batch_norm_backward` computes from the batch
    statistics its forward saved and ignores its running_mean/running_var
    operands (ATen's kernels read them in eval mode only), so they become
    None. Otherwise the backward reads the updated running statistics:
    available where they are forward outputs (a BatchNorm module's buffers),
    but not where they are not (InstanceNorm with track_running_stats, a
    BatchNorm applied twice), and a replayed batch norm had no such
    results (the partition fell back to PyTorch's)."""
    for node in graph.nodes:
        if node.op == "call_function" and \
                str(node.target) == "aten.native_batch_norm_backward.default" \
                and len(node.args) >= 8 and node.args[7] is True:
            node.args = node.args[:3] + (None, None) + node.args[5:]


def _is_updating_batch_norm(node):
    """1.13's training-mode batch norm with running statistics, which it
    updates in place (2.x traces the functional form instead)."""
    return node.op == "call_function" and \
        str(node.target) == "aten.native_batch_norm.default" and \
        len(node.args) >= 8 and node.args[5] is True and \
        node.args[3] is not None


def _batch_norm_without_running_stats(saved):
    """A training batch norm the backward replays becomes
    `_native_batch_norm_legit.no_stats` (the same kernel, bit for bit,
    without the running statistics), so the backward reads no input the
    forward updates in place; on 1.13 its running statistics become None.
    Returns the new nodes. Last first: a later
    replayed batch norm of the same module reads the earlier one's updated
    statistics (results 3 and 4), and once it is replaced nothing does."""
    graph = saved.bw_graph
    replacements = set()
    for node in reversed(list(graph.nodes)):
        if _is_updating_batch_norm(node):
            # 1.13's batch norm updates the running statistics in place: a
            # replay without them computes the same results and updates
            # nothing (it updated them a second time before 2026-12-07).
            node.args = node.args[:3] + (None, None) + node.args[5:]
            continue
        if not _is_training_batch_norm(node):
            continue
        x, weight, bias = node.args[:3]
        training, momentum, eps = node.args[5:8]
        with graph.inserting_before(node):
            replacement = graph.call_function(
                torch.ops.aten._native_batch_norm_legit.no_stats,
                (x, weight, bias, training, momentum, eps))
        replacement.meta = dict(node.meta)
        if "val" in node.meta:
            replacement.meta["val"] = node.meta["val"][:3]
        for user in list(node.users):
            if user.target is operator.getitem and user.args[1] > 2 and \
                    not user.users:
                graph.erase_node(user)  # dead: the extraction copies freely
                continue
            if user.target is not operator.getitem or user.args[1] > 2:
                raise _Unsupported(f"the backward reads the running "
                                   f"statistics of '{node.name}'")
            user.replace_input_with(node, replacement)
        graph.erase_node(node)
        replacements.add(replacement)
    return replacements


def _plan(text, options, on_infeasible):
    try:
        return remat.plan(text, **options), None
    except remat.PlanError as error:
        if not error.infeasible_budget:
            raise
        if on_infeasible != "closest":
            raise RematPartitionError(
                f"remat_torch.partition: {error.message}\n(pass "
                "on_infeasible=\"closest\" to plan at the smallest peak "
                "instead)", error.smallest_peak_bytes) from None
        # The smallest peak the error names is an activation peak.
        closest = dict(options,
                       memory_budget=f"activations:{error.smallest_peak_bytes}")
        peak = error.smallest_peak_bytes
        warning = (f"remat_torch.partition: memory_budget="
                   f"{options.get('memory_budget')!r} cannot be met; planning "
                   f"at the smallest activation peak remat reaches, {peak} "
                   f"bytes ({peak / 2**20:.2f} MiB)")
        return remat.plan(text, **closest), warning


def partition(joint_module, _joint_inputs=None, compiler=None, *,
              num_fwd_outputs=None, static_lifetime_input_indices=None,
              strategy="min-cut", memory_budget=None, target=None,
              target_file=None, policy=None, allow_inexact_derivation=False,
              recompute_banned="never", exchange_rate=None,
              budget_search_effort=None, lower_bound_time_limit=None,
              optimal_time_limit=None, progress=None, random_ops="save",
              report=None, strict=False,
              on_infeasible="error", workspace=None, op_times=None,
              on_plan: Optional[Callable[[PartitionInfo], None]] = None,
              **unknown):
    """Partitions AOTAutograd's joint graph with remat's plan; returns
    (forward module, backward module). See the module docstring."""
    if unknown:
        _unknown_options(unknown)
    _require_joint_graph(joint_module)
    options = {"strategy": strategy, "memory_budget": memory_budget,
               "target": target, "target_file": target_file, "policy": policy,
               "allow_inexact_derivation": allow_inexact_derivation,
               "recompute_banned": recompute_banned,
               "exchange_rate": exchange_rate,
               "budget_search_effort": budget_search_effort,
               "lower_bound_time_limit": lower_bound_time_limit,
               "optimal_time_limit": optimal_time_limit,
               "progress": progress}
    check_options(on_infeasible=on_infeasible, random_ops=random_ops,
                  workspace=workspace, op_times=op_times, report=report,
                  on_plan=on_plan, strict=strict, **options)
    # The backward realises remat's decisions (what is saved, derived or
    # replayed once before its first reader) in the graph's order, not a
    # recorded schedule: a `budget` plan that only a schedule expresses (a
    # searched forward order, several replays of one op) would run with
    # another peak than predicted, above the budget (GPT-2 at 17.38 MiB:
    # 18.32 measured, 14.32 predicted).
    options["schedule_plans"] = False
    info = PartitionInfo(report=None)
    start = time.perf_counter()
    try:
        result = _partition(joint_module, _joint_inputs, options,
                            num_fwd_outputs, static_lifetime_input_indices,
                            on_infeasible, random_ops, workspace, op_times,
                            info)
    except RematPartitionError:
        raise
    except (ExportError, remat.PlanError, _Unsupported) as error:
        reason = getattr(error, "message", None) or str(error)
        if strict:
            raise RematPartitionError(
                f"remat_torch.partition: cannot partition this graph: {reason}") from None
        info.fallback_reason = reason
        warnings.warn("remat_torch.partition: falling back to PyTorch's "
                      f"min-cut partitioner for this graph: {reason}")
        result = _pytorch_partition(joint_module, _joint_inputs, num_fwd_outputs,
                                    static_lifetime_input_indices)
    info.seconds["total"] = time.perf_counter() - start
    if report is not None and info.report is not None:
        info.report.write(report)
    elif report is not None and os.path.exists(report):
        # A graph that fell back has no report: leave no earlier run's
        # report there to be read as this one's.
        os.remove(report)
    if on_plan is not None:
        on_plan(info)
    return result


def _require_joint_graph(module):
    """TypeError when `module` is not AOTAutograd's joint graph (its inputs
    are primals_<i> and tangents_<i>): `torch.compile(backend=
    remat_torch.partition)` hands a Dynamo graph to a partition function."""
    graph = getattr(module, "graph", None)
    if graph is not None and not any(
            n.op == "placeholder" and n.name.startswith(("primals", "tangents"))
            for n in graph.nodes):
        raise TypeError("remat_torch.partition is AOTAutograd's partition_fn: "
                        "it takes a joint forward + backward graph, not the "
                        "model's graph; for torch.compile pass "
                        "backend=remat_torch.backend(...)")


_OWN_OPTIONS = ("random_ops", "report", "strict", "on_infeasible", "on_plan",
                "workspace", "op_times")


def _unknown_options(names):
    raise TypeError("remat_torch.partition: unknown option(s) " +
                    ", ".join(sorted(names)) + "; planner options are " +
                    ", ".join(_PLANNER_OPTIONS) + ", plus " +
                    ", ".join(_OWN_OPTIONS))


def check_options(**options):
    """Raises TypeError/ValueError for options `partition` would reject."""
    unknown = set(options) - set(_PLANNER_OPTIONS) - set(_OWN_OPTIONS)
    if unknown:
        _unknown_options(unknown)
    if options.get("on_infeasible", "error") not in ("error", "closest"):
        raise ValueError("on_infeasible: expected 'error' or 'closest', got "
                         f"{options['on_infeasible']!r}")
    workspace = options.get("workspace", None)
    if not (workspace is None or workspace == "profile" or
            (isinstance(workspace, dict) and all(
                isinstance(k, str) and isinstance(v, int) and
                not isinstance(v, bool) and v >= 0
                for k, v in workspace.items()))):
        raise ValueError("workspace: expected None, 'profile' or a dict of "
                         "FX node name -> bytes (int >= 0), got "
                         f"{workspace!r}")
    op_times = options.get("op_times", None)
    if not (op_times is None or op_times == "profile" or
            (isinstance(op_times, dict) and all(
                isinstance(k, str) and isinstance(v, (int, float)) and
                not isinstance(v, bool) and math.isfinite(v) and v >= 0
                for k, v in op_times.items()))):
        raise ValueError("op_times: expected None, 'profile' or a dict of "
                         "FX node name -> microseconds (a finite number >= 0), "
                         f"got {op_times!r}")
    strict = options.get("strict", False)
    if not isinstance(strict, bool):
        raise TypeError(f"strict: expected True or False, got {strict!r}")
    report = options.get("report")
    if report is not None:
        if not isinstance(report, (str, os.PathLike)):
            raise TypeError("report: expected a path (str or os.PathLike) for "
                            f"the JSON report, got {type(report).__name__}")
        folder = os.path.dirname(os.fspath(report)) or "."
        if not os.path.isdir(folder):
            raise ValueError(f"report: {report}: the folder {folder} does not "
                             "exist")
    on_plan = options.get("on_plan")
    if on_plan is not None and not callable(on_plan):
        raise TypeError("on_plan: expected a callable that takes a "
                        f"PartitionInfo, got {type(on_plan).__name__}")
    random_ops = options.get("random_ops", "save")
    if random_ops not in ("save", "replay"):
        raise ValueError("random_ops: expected 'save' or 'replay', got "
                         f"{random_ops!r}")
    if random_ops == "replay" and _rng_functionalization() is None:
        raise ValueError("random_ops='replay' needs PyTorch 2.x's RNG "
                         f"functionalization; this is PyTorch {torch.__version__}")
    remat.check_options(**{k: v for k, v in options.items()
                           if k in _PLANNER_OPTIONS})


class _Unsupported(Exception):
    """A graph construct this partitioner does not handle (the message says
    which); partition falls back to PyTorch's."""


def _pytorch_partition(joint_module, joint_inputs, num_fwd_outputs,
                       static_lifetime_input_indices):
    min_cut = _torch_partitioners().min_cut_rematerialization_partition
    parameters = inspect.signature(min_cut).parameters
    kwargs = {}
    if "num_fwd_outputs" in parameters:
        kwargs["num_fwd_outputs"] = num_fwd_outputs
    if "static_lifetime_input_indices" in parameters:
        kwargs["static_lifetime_input_indices"] = static_lifetime_input_indices
    return min_cut(joint_module, joint_inputs, **kwargs)


def _device_of(joint_inputs):
    """The one device of the joint graph's example inputs, or None (none
    given, or several devices)."""
    leaves = pytree.tree_flatten(joint_inputs)[0]
    devices = {x.device for x in leaves if isinstance(x, torch.Tensor)}
    return devices.pop() if len(devices) == 1 else None


def _partition(joint_module, joint_inputs, options, num_fwd_outputs,
               static_lifetime_input_indices, on_infeasible, random_ops,
               workspace, op_times, info):
    clock = time.perf_counter()
    num_fwd_outputs = _num_fwd_outputs(joint_module, num_fwd_outputs)
    for node in joint_module.graph.nodes:
        if node.op not in ("placeholder", "call_function", "output", "get_attr"):
            raise _Unsupported(f"node '{node.name}' is a {node.op}")
        if node.op == "call_function" and not callable(node.target):
            raise _Unsupported(f"node '{node.name}' calls {node.target!r}")
    _unread_running_stats(joint_module.graph)
    # PyTorch's partitioners also run common-subexpression elimination
    # here; remat plans the graph as traced (a duplicate op is planned like
    # any other), which saves its cost.
    joint_module.graph.eliminate_dead_code()
    replay_random = _rng_functionalization() if random_ops == "replay" else None
    if workspace == "profile":
        # 1.13's node metadata records no device: the inputs' device.
        workspace = profile_workspace(joint_module.graph,
                                      _device_of(joint_inputs))
        info.seconds["workspace"] = time.perf_counter() - clock
        clock = time.perf_counter()
    info.workspace = dict(workspace or {})
    if op_times == "profile":
        op_times = profile_op_times(joint_module.graph,
                                    _device_of(joint_inputs))
        info.seconds["op_times"] = time.perf_counter() - clock
        clock = time.perf_counter()
    info.op_times = dict(op_times or {})
    mlir_graph = graph_to_mlir(joint_module, num_fwd_outputs=num_fwd_outputs,
                               replayable_random=replay_random is not None,
                               workspace_bytes=workspace,
                               op_times_us=op_times)
    info.seconds["export"] = time.perf_counter() - clock
    info.sizes = {str(n.meta["val"]): size_hint(n.meta["val"])
                  for n in joint_module.graph.nodes
                  if n.op == "placeholder" and
                  isinstance(n.meta.get("val"), getattr(torch, "SymInt", ()))}

    clock = time.perf_counter()
    report, warning = _plan(mlir_graph.text, options, on_infeasible)
    if warning:
        warnings.warn(warning)
    info.report = report
    info.seconds["plan"] = time.perf_counter() - clock

    clock = time.perf_counter()
    on_graph = _PlanOnGraph(joint_module, mlir_graph)
    saved, derived = _choose_saved(on_graph, report, joint_module)
    recomputed = _close_saved_set(joint_module.graph, saved, derived,
                                  num_fwd_outputs, on_graph.adjustments,
                                  replay_random is not None)
    order = {n: i for i, n in enumerate(joint_module.graph.nodes)}
    saved_list = sorted(saved | set(derived), key=order.__getitem__)
    fw_module, bw_module = _extract(joint_module, saved_list, num_fwd_outputs,
                                    static_lifetime_input_indices)
    saved_interface = _SavedInterface(fw_module, bw_module, num_fwd_outputs)
    built, derived_names = _build_derivations(saved_interface, derived)
    built |= _batch_norm_without_running_stats(saved_interface)
    for node in reversed(list(bw_module.graph.nodes)):
        if _is_random(node) and not node.users:
            # Dead, but drawing from the generator in backward would still
            # shift every later random number.
            bw_module.graph.erase_node(node)
    # Results nobody reads (a getitem of a replayed multi-result op, such as
    # layer norm's normalized output when backward reads only its
    # statistics): _place_lazily keeps a node no replay lists where the
    # graph has it, at the start of backward, with the replays it reads, and
    # those stayed live through the whole backward (issue #16: 0.5 MiB above
    # the simulated peak on BERT, 1 MiB on MobileNetV2 at exchange rate 0).
    _drop_unread(bw_module.graph)
    saved_interface.drop_unused()
    saved_interface.write()
    fw_module.recompile()
    _place_lazily(bw_module, {n.name for n in recomputed}, built)
    if replay_random is not None:
        fw_module, bw_module = replay_random(joint_module, fw_module, bw_module)
    for node in bw_module.graph.nodes:
        if _is_random(node):
            raise _Unsupported(f"the backward graph would replay random op "
                               f"'{node.name}' with other numbers")
    bw_module.recompile()
    info.derived = derived_names
    info.saved = [p.name for p in bw_module.graph.nodes
                  if p.op == "placeholder" and not _is_tangent(p)]
    output = next(n for n in joint_module.graph.nodes if n.op == "output")
    required = _required_forward(flat_nodes(output.args[0])[:num_fwd_outputs])
    info.recomputed = [n.name for n in recomputed
                       if n in required and n.op == "call_function" and
                       n.target is not operator.getitem]
    info.adjustments = on_graph.adjustments
    info.seconds["split"] = time.perf_counter() - clock
    return fw_module, bw_module
