"""remat's plan as a `jax.checkpoint` policy.

A JAX checkpoint policy decides, per value, whether the forward pass saves
it for the backward pass; everything else the backward needs is recomputed
from the saved values and the function's arguments. remat's plan says the
same per value (save / recompute / derive / not needed). The values a plan
saves are turned into `jax.checkpoint_policies.save_only_these_names(...)`,
which needs every saved value to carry a `checkpoint_name`; a plan that
saves an unnamed value cannot be expressed and is refused with the list of
values to name.

`plan(fn, *args)` exports with `recompute_unnamed=True` (joint.export), so
the planner never saves a value JAX could not name: its choices are exactly
the choices a name policy has. A name used several times (a layer under
`scan`, a module called twice) is one name for JAX: remat's plan must then
save all of its instances that backward reads, or none.

A function whose forward pass has a top-level `lax.scan` (Flax's nn.scan,
MaxText's scan_layers) is planned in scan-body mode by default: one
iteration of the scan's body is exported and planned once, and the plan
applies to every iteration (`Plan.scan`); `checkpoint` then wraps the body
in `jax.checkpoint(body, policy=...)` inside the scan, as MaxText's nn.remat
inside nn.scan does. `scan="unroll"` plans the whole function with every
scan unrolled instead.
"""

import functools
import inspect
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import jax

import remat
from remat_jax.joint import JaxExport, export
from remat_jax.trace import (argument_names, checkpoint_scan_body,
                             keywords_last, leaf_spec)

# Decisions that keep a value away from the saved set although backward
# reads it.
_NOT_SAVED = ("recompute", "derive")
_NAME_POLICIES = ("save_only_these_names", "save_any_names_but_these")


class PolicyError(Exception):
    """remat's plan cannot be expressed as a JAX checkpoint policy."""


@dataclass
class ScanPlan:
    """What a scan-body plan means for the whole scan.

    The plan was made once, for one iteration of the body of the scan at
    `where`, and applies to each of its `length` iterations. Per iteration
    JAX saves (stacked over the iterations) the values the plan saves and
    the carry the body starts from, when backward reads it (the
    layer-boundary activation: jax.checkpoint keeps the inputs of the
    checkpointed body); `saved` lists them as (report name, bytes), a saved
    checkpoint name on the carry itself (MaxText's decoder_layer_input)
    counting once, as the carry. Loop-invariant operands (consts) and the
    per-layer parameter slices are not saved per iteration: JAX reads them
    from the scan's operands. Ops outside the scan are not planned."""
    length: int
    where: str
    carry: List[str]
    saved: List[Tuple[str, int]] = field(default_factory=list)
    # carry label -> checkpoint names the plan saves on the carry itself
    carry_names: Dict[str, List[str]] = field(default_factory=dict)

    @property
    def per_layer_saved_bytes(self):
        return sum(size for _, size in self.saved)

    @property
    def total_saved_bytes(self):
        return self.length * self.per_layer_saved_bytes


@dataclass
class Plan:
    """remat's report on a JAX function's joint graph, with the export it
    was planned from (to map report names back to checkpoint names).

    In scan-body mode (`scan` is set) the report and the export are those
    of one iteration of the scan's body, and `scan` says what they mean for
    the whole scan (ScanPlan: `length`, `per_layer_saved_bytes`,
    `total_saved_bytes`)."""
    report: remat.Report
    export: JaxExport
    scan: Optional[ScanPlan] = None
    # Checkpoint names remat_jax.plan made recomputed in every instance,
    # because a plan under a memory budget saved them in some places only (a
    # name policy saves every instance of a name or none).
    tied: List[str] = field(default_factory=list)
    # The same without a budget: checkpoint names remat_jax.plan made saved
    # in every instance backward needs (as the name policy would save them).
    kept: List[str] = field(default_factory=list)

    def saved_names(self):
        """The checkpoint names of the values the plan saves (sorted)."""
        return sorted({self.export.checkpoint_names.get(name, name)
                       for name in self.report.names("save")})

    def summary(self):
        """A few lines of text: what was planned, what is saved, and how
        many bytes (per layer and in total, in scan-body mode)."""
        report = self.report
        options = f"strategy {report.strategy}"
        if report.data.get("policy"):
            options += f", policy {report.policy}"
        if report.data.get("budget_bytes") is not None:
            options += (f", memory budget {report.budget_bytes} bytes" +
                        (" per iteration" if self.scan else ""))
        names = ", ".join(self.saved_names()) or "none"
        if self.tied:
            names += ("; recomputed in every instance, because the plan "
                      "under the budget saved them in some only: " +
                      ", ".join(self.tied))
        if self.kept:
            names += ("; saved in every instance, because the plan saved "
                      "them in some only and a name policy saves every "
                      "instance: " + ", ".join(self.kept))
        ops = self.export.mlir.count(' = "remat.')
        if self.scan is None:
            return "\n".join([
                f"planned the whole function ({ops} ops)",
                f"options: {options}",
                f"checkpoint names saved: {names}",
                f"saved bytes (the report's, with the inputs backward reads): "
                f"{report.saved_bytes}"]) + "\n"
        scan = self.scan
        lines = [
            f"planned once for the lax.scan body at {scan.where}: one "
            f"iteration, {ops} ops; the plan applies to each of the scan's "
            f"{scan.length} iterations",
            f"options: {options}",
            f"checkpoint names saved: {names}",
            f"saved per iteration (JAX stacks each over the {scan.length} "
            "iterations):"]
        for name, size in scan.saved:
            entry = report.value(name)
            shape = "x".join(str(d) for d in entry.get("shape", [])) or "scalar"
            what = ""
            if name in scan.carry:
                what = "  the carry the body starts from (jax.checkpoint keeps it)"
                if scan.carry_names.get(name):
                    what += ", named " + ", ".join(scan.carry_names[name])
            lines.append(f"  {name:<20} {entry.get('dtype', '?')}[{shape}] "
                         f"{size:>10} bytes{what}")
        if not scan.saved:
            lines.append("  nothing")
        lines += [
            f"per-layer saved bytes: {scan.per_layer_saved_bytes}",
            f"total saved bytes: {scan.length} x {scan.per_layer_saved_bytes} "
            f"= {scan.total_saved_bytes}",
            "not planned: the ops outside the scan (JAX's autodiff decides "
            "what they save)"]
        return "\n".join(lines) + "\n"


def _scan_plan(report, exported):
    """The ScanPlan of a plan of a scan-body export."""
    scan = exported.scan
    carry = [exported.argument_labels[i] for i in scan.carry_arguments]
    saved, named = [], {name: [] for name in carry}
    for entry in report.values:
        if entry["decision"] != "save":
            continue
        name = entry["name"]
        if name in exported.argument_views:
            # A named view of an argument: the carry, if anything (JAX
            # saves it once); a parameter slice or a const costs nothing.
            for operand in exported.operands.get(name, []):
                if operand in named:
                    named[operand].append(
                        exported.checkpoint_names.get(name, name))
            continue
        saved.append((name, entry["bytes"]))
    read = [name for name in carry
            if report.value(name).get("read_by", "none") != "none" or
            named[name]]
    return ScanPlan(scan.length, scan.where, carry,
                    [(name, report.value(name)["bytes"]) for name in read] +
                    saved, named)


def expand_policy(text, exported):
    """remat's form of a checkpoint policy written with JAX's meaning.

    A checkpoint name stands for all its instances (`query_proj` ->
    `query_proj,query_proj.1`), as JAX matches names. JAX's
    `save_any_names_but_these:L` saves the *named* values not in L and
    nothing unnamed; remat's would also save every unnamed value (remat
    names those `%N`), so it becomes `save_only_these_names` of the other
    checkpoint names. Raises ValueError for a name in such a policy that no
    value has, TypeError for a policy that is not a string."""
    split = _name_policy(text)
    if split is None:
        return text
    head, names = split
    known = sorted(set(exported.checkpoint_names.values()))
    # An instance's report name (`h.1`) or an argument's label names one
    # value; remat-plan takes those as they are.
    values = set(exported.checkpoint_names) | set(exported.argument_labels)
    for name in names:
        if name in known or (head == "save_only_these_names" and
                             name in values):
            continue
        hint = ""
        if any("," in k for k in known):
            hint = ("; a name with a comma cannot be written in a policy "
                    "string")
        raise ValueError(
            f"checkpoint policy {text} names '{name}', but no value has that "
            "checkpoint name; names: " + (", ".join(known) or "(none)") +
            " (names inside lax.cond, lax.switch or lax.while_loop bodies "
            "are not seen: such an op is planned as one op)" + hint)
    if head == "save_any_names_but_these":
        names = [name for name in known if name not in names]
        if not names:
            return "nothing_saveable"
    expanded = []
    for name in names:
        expanded += exported.instances(name) or [name]
    return "save_only_these_names:" + ",".join(expanded)


def _name_policy(text):
    """(kind, checkpoint names) of a save_only_these_names /
    save_any_names_but_these policy string, None for another policy;
    ValueError for an empty name (a stray comma), which the name lookup
    reported as a name no value has (before 2026-12-08)."""
    _require_policy_string(text)
    if text is None or ":" not in text:
        return None
    head, _, listed = text.partition(":")
    head = head.strip()
    if head not in _NAME_POLICIES:
        return None
    names = [name.strip() for name in listed.split(",")]
    if "" in names:
        raise ValueError(f"checkpoint policy {text} has an empty name: "
                         "separate the names by single commas")
    return head, names


def _checkable_policy(text):
    """`text` as remat.check_options can read it before any graph: a name
    policy's JAX names (which may hold spaces: `attn out`) stand for report
    names that exist only once the function is exported, so only the kind
    is checked here, and the names when the plan is made (before 2026-12-08
    checkpoint() refused such a name that plan() accepted)."""
    split = _name_policy(text)
    if split is None:
        return text
    head, names = split
    return head + ":" + ",".join(f"name{i}" for i in range(len(names)))


def _require_policy_string(chosen):
    if chosen is not None and not isinstance(chosen, str):
        raise TypeError(
            f"policy={chosen!r}: remat_jax takes a policy by its JAX name, as "
            "a string (\"nothing_saveable\", \"save_only_these_names:a,b\", "
            "\"save_any_names_but_these:a\"), not a policy function")


def _refuse_unnamed_policy(chosen):
    if chosen in ("dots_saveable", "everything_saveable"):
        raise ValueError(f"policy {chosen} saves values without a "
                         "checkpoint_name, which remat_jax.policy cannot "
                         "express; give jax.checkpoint JAX's own policy, or "
                         "plan with recompute_unnamed=False to see remat's plan")


def plan(fn, *example_args, param_argnums=(0,), recompute_unnamed=True,
         scan=None, **options) -> Plan:
    """Exports `fn`'s joint graph and plans it in this process.

    `options` are remat-plan's (`strategy`, `memory_budget`, `policy`,
    `target`, ...; see remat.plan). Names in a `save_only_these_names` /
    `save_any_names_but_these` policy are checkpoint names and stand for all
    their instances. With `recompute_unnamed` (the default) values without a
    checkpoint name are always recomputed, as under any JAX name policy.

    `scan`: None (the default) plans in scan-body mode when fn's forward
    pass has a lax.scan, else the whole function; "body" insists on
    scan-body mode; "unroll" plans the whole function, every scan unrolled.
    In scan-body mode one iteration of the body is planned, once, and
    `Plan.scan` gives the per-layer and total saved bytes; a
    `memory_budget` is then a budget for one iteration of the body (the
    planner's peak of the body's joint function), not for the whole step."""
    _require_policy_string(options.get("policy"))
    if recompute_unnamed:
        _refuse_unnamed_policy(options.get("policy"))
    planned = _plan_tied(fn, example_args, param_argnums, recompute_unnamed,
                         scan, options)
    _warn_where_silent(fn, planned, recompute_unnamed, scan, options)
    return planned


def _warn_where_silent(fn, planned, recompute_unnamed, scan, options):
    """PlanWarnings for plans that would otherwise do less than asked
    without a word: nothing is named (every strategy is then
    nothing_saveable), a budget in scan-body mode (it bounds one
    iteration), named values outside a scan that default scan-body mode
    leaves unplanned."""
    body = planned.export.scan
    if recompute_unnamed and not planned.export.checkpoint_names:
        planned_what = (f"the body of the lax.scan at {body.where}" if body
                        else getattr(fn, "__name__", "the function"))
        warnings.warn(
            f"remat_jax: {planned_what} names no "
            "value with jax.ad_checkpoint.checkpoint_name, and a JAX name "
            "policy saves only named values, so the plan saves nothing and "
            "backward recomputes every intermediate value "
            f"(nothing_saveable), whatever the strategy "
            f"({planned.report.strategy}); name the values worth keeping "
            "(checkpoint_name(x @ w, \"proj\")), or plan with "
            "recompute_unnamed=False to see remat's plan without that limit",
            remat.PlanWarning, stacklevel=3)
    if body is not None and options.get("memory_budget") is not None:
        warnings.warn(
            f"remat_jax: memory_budget={options['memory_budget']!r} bounds "
            "the peak of one iteration of the scan's body; JAX holds the "
            f"values the plan saves for all {body.length} iterations at once "
            "(Plan.scan.total_saved_bytes), which the budget does not see, so "
            "a smaller budget need not save less in all; pass scan=\"unroll\" "
            "to bound the whole step",
            remat.PlanWarning, stacklevel=3)
    if scan is None and body is not None and body.outside_names:
        names = sorted(set(body.outside_names))
        warnings.warn(
            f"remat_jax: planned only the body of the lax.scan at "
            f"{body.where} (scan-body mode, the default for a function with "
            f"a lax.scan); {len(body.outside_names)} named value(s) outside "
            f"it ({', '.join(names[:8])}{', ...' if len(names) > 8 else ''}) "
            "are left to JAX's autodiff, which saves what it needs of them; "
            "pass scan=\"unroll\" to plan the whole function, or "
            "scan=\"body\" to say this is meant",
            remat.PlanWarning, stacklevel=3)


def _plan_tied(fn, example_args, param_argnums, recompute_unnamed, scan,
               options):
    """plan()'s planning: the export and plan, again with the names a plan
    splits tied, until none is."""
    # A plan decides each value alone, and may save a name in some layers
    # but compute it again in others (`budget` by its search; any strategy
    # when the last layer's value is read only to replay an unnamed one),
    # which no name policy expresses: plan again with every instance of
    # such a name recomputed under a memory budget (less memory, so still
    # within it), else saved (what the name policy of the plan's names
    # would save), until none is split. A policy the user gave that names
    # instances (`save_only_these_names:h.1`) is theirs: policy() refuses
    # the plan instead, saying why.
    tied, kept = set(), set()
    ties = tied if options.get("memory_budget") is not None else kept
    may_tie = recompute_unnamed and (options.get("policy") is None or
                                     options.get("strategy") == "budget")
    while True:
        exported = export(fn, *example_args, param_argnums=param_argnums,
                          recompute_unnamed=recompute_unnamed, warn=False,
                          scan=scan, recompute_names=sorted(tied),
                          save_names=sorted(kept))
        planned = plan_export(exported, recompute_unnamed=recompute_unnamed,
                              **dict(options))
        planned.tied, planned.kept = sorted(tied), sorted(kept)
        if not may_tie:
            return planned
        split = set(_split_names(planned.report, exported.checkpoint_names,
                                 exported.operands, exported.argument_views))
        if not split - ties:
            # Nothing split, or a tie that did not hold: policy() says why.
            return planned
        ties |= split


def decision_groups(exported):
    """remat-plan's `decision_groups` for a name policy: the instances of
    each checkpoint name, by report name, in name order."""
    groups = {}
    for report, name in sorted(exported.checkpoint_names.items()):
        groups.setdefault(name, []).append(report)
    return [groups[name] for name in sorted(groups)] or None


def plan_export(exported, recompute_unnamed=True, **options) -> Plan:
    """Plans a JaxExport (joint.export, exported with this
    `recompute_unnamed`) in this process: plan()'s second half."""
    chosen = options.get("policy")
    if recompute_unnamed:
        _refuse_unnamed_policy(chosen)
    if chosen is not None:
        options["policy"] = expand_policy(chosen, exported)
    # A checkpoint policy realises per-value decisions (which names are
    # saved), never a recorded schedule: `budget` may only choose plans
    # that its decisions express (as remat_torch.partition does).
    if options.pop("schedule_plans", False):
        raise ValueError("schedule_plans=True: a JAX checkpoint policy "
                         "realises per-value decisions, not a recorded "
                         "schedule; leave schedule_plans unset")
    # A name policy decides per checkpoint name: `budget` decides each
    # name's instances (query_proj, query_proj.1, ...) as one.
    if (recompute_unnamed and options.get("strategy") == "budget" and
            options.get("decision_groups") is None):
        options["decision_groups"] = decision_groups(exported)
    report = remat.plan(exported.mlir, schedule_plans=False, **options)
    if exported.scan is None:
        return Plan(report, exported)
    return Plan(report, exported, _scan_plan(report, exported))


def _describe(report, name, origins):
    entry = report.value(name)
    shape = "x".join(str(d) for d in entry.get("shape", [])) or "scalar"
    text = f"{name} ({entry.get('dtype', '?')}[{shape}], {entry.get('op', '?')}"
    origin = origins.get(name)
    if origin is not None:
        text += f" from {origin.describe()}"
    return text + ")"


def _computed_again(report, operands):
    """Report names of the forward values backward computes again: the
    recomputed and derived ones, and the unsaved values a recomputation
    reads on its way (reported `not-needed`, "replayed only to recompute
    ..."). Without `operands` (a bare Report) only the first two."""
    decisions = {v["name"]: v["decision"] for v in report.values}
    again = {n for n, d in decisions.items() if d in _NOT_SAVED}
    work = [n for n, d in decisions.items() if d == "recompute"]
    while work:
        for operand in operands.get(work.pop(), []):
            if decisions.get(operand) == "not-needed" and operand not in again:
                again.add(operand)
                work.append(operand)
    return again


def _split_names(report, names, operands, free):
    """{checkpoint name: (its saved report names, its report names computed
    again in backward)} for every name the plan saves in some places and
    computes again in others: a name policy cannot express that. `names`
    maps report names to checkpoint names; `free` are named views of
    arguments (recomputing one only reads the argument, which JAX keeps)."""
    saved = [name for name in report.names("save") if name in names]
    computed_again = _computed_again(report, operands) - set(free)
    split = {}
    for checkpoint in sorted({names[name] for name in saved}):
        others = [v["name"] for v in report.values
                  if names.get(v["name"]) == checkpoint and
                  v["name"] in computed_again]
        if others:
            split[checkpoint] = ([n for n in saved if names[n] == checkpoint],
                                 others)
    return split


def policy(report_or_plan):
    """A `jax.checkpoint` policy that saves exactly the values remat's plan
    saves: `save_only_these_names` of their checkpoint names
    (`nothing_saveable` when the plan saves nothing).

    Takes a `Plan` (remat_jax.plan) or a `remat.Report` of a graph exported
    by remat_jax (where a name that starts with `%` is an unnamed value).
    Raises PolicyError when a saved value has no checkpoint name (listing
    them, with the JAX source line of each), or when the plan saves some
    instances of a name but computes others again in backward (recomputes,
    derives, or replays them to recompute something else; only recomputed
    and derived ones are seen in a bare Report)."""
    if isinstance(report_or_plan, Plan):
        report = report_or_plan.report
        exported = report_or_plan.export
        names, origins = exported.checkpoint_names, exported.origins
        operands, free = exported.operands, exported.argument_views
    elif isinstance(report_or_plan, remat.Report):
        report = report_or_plan
        names = {v["name"]: v["name"] for v in report.values
                 if not v["name"].startswith("%")}
        origins, operands, free = {}, {}, set()
    else:
        raise TypeError("policy() takes a remat_jax.Plan or a remat.Report, "
                        f"not {type(report_or_plan).__name__}")
    saved = report.names("save")
    unnamed = [name for name in saved if name not in names]
    if unnamed:
        raise PolicyError(
            "remat's plan saves values without a checkpoint_name, which a JAX "
            "policy cannot save by name: " +
            "; ".join(_describe(report, n, origins) for n in unnamed) +
            ". Name them with jax.ad_checkpoint.checkpoint_name(x, \"...\"), "
            "or plan with remat_jax.plan (which never saves unnamed values)")
    checkpoint_names = sorted({names[name] for name in saved})
    for checkpoint, (kept, others) in _split_names(report, names, operands,
                                                   free).items():
        raise PolicyError(
            f"remat's plan saves {', '.join(kept)} but computes "
            f"{', '.join(others)} again in backward; a JAX name policy "
            f"saves every value named '{checkpoint}' (every layer of a "
            "scan), so this plan cannot be expressed by name")
    if not checkpoint_names:
        return jax.checkpoint_policies.nothing_saveable
    return jax.checkpoint_policies.save_only_these_names(*checkpoint_names)


def checkpoint(fn, *, param_argnums=(0,), prevent_cse=None, scan=None,
               static_argnums=(), static_argnames=(), **options):
    """`jax.checkpoint(fn, policy=policy(plan(fn, *args, **options)))`,
    planned once per argument shapes and dtypes, at the first call.

    In scan-body mode (`scan`: see plan; the default when fn has a
    lax.scan) only the scan's body is checkpointed, inside the scan, with
    the body plan's policy (MaxText's nn.remat inside nn.scan): JAX saves
    per iteration the body's inputs backward needs (the carry) and the
    policy's names, stacked over the iterations; the ops outside the scan
    are differentiated by JAX as usual, without jax.checkpoint.

    `prevent_cse` is jax.checkpoint's; by default True for the whole
    function and False for a scan body (the scan already keeps XLA from
    merging the recomputation with the forward pass; MaxText passes
    prevent_cse=not scan_layers).

    `static_argnums` / `static_argnames` are jax.checkpoint's: those
    arguments (a Python int such as a layer count, Flax's `train=True`, a
    callable) are not traced; each distinct value (hashable, as in JAX)
    gets its own plan. `param_argnums` count all positional arguments,
    static ones included.

    The returned function has `plan(*args, **kwargs)`, the Plan it uses
    for those arguments. Arguments may be tracers (inside jax.grad or
    jax.jit) or Python scalars: planning needs only their shapes and dtypes.
    Other keyword arguments are arguments as in jax.checkpoint (traced),
    planned after the positional ones. The options are checked here, not
    at the first call: TypeError / ValueError as remat.plan raises them."""
    static_argnums = _static_indices(static_argnums)
    static_argnames = _static_names(static_argnames)
    _require_policy_string(options.get("policy"))
    if options.get("recompute_unnamed", True):
        _refuse_unnamed_policy(options.get("policy"))
    checked = {key: value for key, value in options.items()
               if key != "recompute_unnamed"}
    if "policy" in checked:
        checked["policy"] = _checkable_policy(checked["policy"])
    remat.check_options(**checked)
    plans, bodies = {}, {}
    positions = _positional_parameters(fn)

    def planned(args, kwargs):
        """(key, fn with static arguments bound and keywords last,
        arguments, their specs, param_argnums among them)."""
        count = len(args)
        bound, args, kwargs, statics, params = _bind_static(
            fn, args, kwargs, static_argnums, static_argnames, param_argnums)
        keywords = tuple(sorted(kwargs))
        # param_argnums count fn's positional parameters: a keyword is a
        # parameter when it names one of those positions (before 2026-12-08
        # the indices fell on the keywords in sorted order, so
        # step(params=w, batch=x) made `batch` the parameter).
        wanted = {i % count if -count <= i < 0 else i for i in param_argnums}
        params = tuple(i % len(args) for i in params
                       if -len(args) <= i < len(args)) + \
            tuple(len(args) + j for j, k in enumerate(keywords)
                  if positions.get(k) in wanted)
        values = tuple(args) + tuple(kwargs[k] for k in keywords)
        _require_array_leaves(values, argument_names(bound, len(args)) +
                              list(keywords))
        leaves, tree = jax.tree_util.tree_flatten(values)
        specs = [leaf_spec(x, f"leaf {i}") for i, x in enumerate(leaves)]
        key = (len(args), keywords, tree,
               tuple((s.shape, str(s.dtype)) for s in specs), statics)
        return (key, keywords_last(bound, len(args), keywords), values,
                jax.tree_util.tree_unflatten(tree, specs), params)

    def plan_for(*args, **kwargs):
        key, call, _, specs, params = planned(args, kwargs)
        if key not in plans:
            plans[key] = plan(call, *specs, param_argnums=params,
                              scan=scan, **options)
        return plans[key]

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        chosen_plan = plan_for(*args, **kwargs)
        chosen = policy(chosen_plan)
        key, call, values, specs, _ = planned(args, kwargs)
        if chosen_plan.scan is None:
            return jax.checkpoint(call, policy=chosen, prevent_cse=(
                True if prevent_cse is None else prevent_cse))(*values)
        if key not in bodies:
            bodies[key] = checkpoint_scan_body(call, specs, chosen,
                                               bool(prevent_cse))
        return bodies[key](*values)

    wrapped.plan = plan_for
    return wrapped


def _positional_parameters(fn):
    """{name: position} of fn's parameters that may be passed positionally
    (empty when fn has no signature to read)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return {}
    return {parameter.name: index
            for index, parameter in enumerate(parameters)
            if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY,
                                  inspect.Parameter.POSITIONAL_OR_KEYWORD)}


def _static_indices(argnums):
    """static_argnums as a tuple of ints (an int or an iterable of them)."""
    argnums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not all(isinstance(i, int) and not isinstance(i, bool)
               for i in argnums):
        raise TypeError(f"static_argnums={argnums!r}: expected an int or a "
                        "tuple of ints, as for jax.checkpoint")
    return argnums


def _static_names(argnames):
    """static_argnames as a tuple of strings (a str or an iterable)."""
    argnames = (argnames,) if isinstance(argnames, str) else tuple(argnames)
    if not all(isinstance(name, str) for name in argnames):
        raise TypeError(f"static_argnames={argnames!r}: expected a str or a "
                        "tuple of str, as for jax.checkpoint")
    return argnames


def _bind_static(fn, args, kwargs, argnums, argnames, param_argnums):
    """(fn with the static arguments of this call bound, the other
    positional arguments, the other keyword arguments, a hashable key of
    the static values, param_argnums among the remaining positions)."""
    if not argnums and not argnames:
        return fn, args, kwargs, (), param_argnums
    count = len(args)
    positions = set()
    for index in argnums:
        if not -count <= index < count:
            raise ValueError(f"static_argnums={argnums!r}: this call passes "
                             f"{count} positional argument(s)")
        positions.add(index % count)
    positions = sorted(positions)
    params = [i % count for i in param_argnums if -count <= i < count]
    overlap = [i for i in params if i in positions]
    if overlap:
        raise ValueError(f"param_argnums {tuple(param_argnums)} and "
                         f"static_argnums {argnums!r} share position(s) "
                         f"{overlap}: parameters are arrays to differentiate, "
                         "static arguments are not traced")
    fixed = [(i, args[i]) for i in positions]
    named = {k: kwargs[k] for k in argnames if k in kwargs}
    statics = (tuple(fixed), tuple(sorted(named.items())))
    try:
        hash(statics)
    except TypeError as error:
        raise TypeError("remat_jax.checkpoint: a static argument must be "
                        f"hashable, as for jax.checkpoint ({error})") from None
    rest = [a for i, a in enumerate(args) if i not in positions]

    def bound(*values, **keywords):
        full = list(values)
        for index, value in fixed:
            full.insert(index, value)
        return fn(*full, **keywords, **named)

    bound.__name__ = getattr(fn, "__name__", "fn")
    names = argument_names(fn, count)
    bound.__signature__ = inspect.Signature(
        [inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
         for index, name in enumerate(names) if index not in positions])
    return (bound, tuple(rest),
            {k: v for k, v in kwargs.items() if k not in named}, statics,
            tuple(i - sum(p < i for p in positions) for i in params))


def _require_array_leaves(values, names):
    """TypeError naming the argument when one holds something JAX cannot
    trace (a callable, a string, None is fine: it has no leaves)."""
    for name, value in zip(names, values):
        for leaf in jax.tree_util.tree_leaves(value):
            if isinstance(leaf, (int, float, bool, complex)) or (
                    hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
                continue
            raise TypeError(
                f"remat_jax.checkpoint: argument {name} holds a "
                f"{type(leaf).__name__}, which JAX cannot trace; pass it as a "
                "static argument (static_argnums / static_argnames, as for "
                "jax.checkpoint) or bind it with functools.partial")
