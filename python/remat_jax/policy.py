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
"""

import functools
from dataclasses import dataclass

import jax

import remat
from remat_jax.joint import JaxExport, export

# Decisions that keep a value away from the saved set although backward
# reads it.
_NOT_SAVED = ("recompute", "derive")
_NAME_POLICIES = ("save_only_these_names", "save_any_names_but_these")


class PolicyError(Exception):
    """remat's plan cannot be expressed as a JAX checkpoint policy."""


@dataclass
class Plan:
    """remat's report on a JAX function's joint graph, with the export it
    was planned from (to map report names back to checkpoint names)."""
    report: remat.Report
    export: JaxExport

    def saved_names(self):
        """The checkpoint names of the values the plan saves (sorted)."""
        return sorted({self.export.checkpoint_names.get(name, name)
                       for name in self.report.names("save")})


def expand_policy(text, exported):
    """remat's form of a checkpoint policy written with JAX's meaning.

    A checkpoint name stands for all its instances (`query_proj` ->
    `query_proj,query_proj.1`), as JAX matches names. JAX's
    `save_any_names_but_these:L` saves the *named* values not in L and
    nothing unnamed; remat's would also save every unnamed value (remat
    names those `%N`), so it becomes `save_only_these_names` of the other
    checkpoint names. Raises ValueError for a name in such a policy that no
    value has (remat-plan refuses unknown names in save_only_these_names
    itself)."""
    if text is None or ":" not in text:
        return text
    head, _, listed = text.partition(":")
    head = head.strip()
    if head not in _NAME_POLICIES:
        return text
    names = [name.strip() for name in listed.split(",")]
    known = sorted(set(exported.checkpoint_names.values()))
    if head == "save_any_names_but_these":
        for name in names:
            if name not in known:
                raise ValueError(f"checkpoint policy {text} names '{name}', but "
                                 "no value has that checkpoint name; names: " +
                                 (", ".join(known) or "(none)"))
        names = [name for name in known if name not in names]
        if not names:
            return "nothing_saveable"
    expanded = []
    for name in names:
        expanded += exported.instances(name) or [name]
    return "save_only_these_names:" + ",".join(expanded)


def plan(fn, *example_args, param_argnums=(0,), recompute_unnamed=True,
         **options) -> Plan:
    """Exports `fn`'s joint graph and plans it in this process.

    `options` are remat-plan's (`strategy`, `memory_budget`, `policy`,
    `target`, ...; see remat.plan). Names in a `save_only_these_names` /
    `save_any_names_but_these` policy are checkpoint names and stand for all
    their instances. With `recompute_unnamed` (the default) values without a
    checkpoint name are always recomputed, as under any JAX name policy."""
    chosen = options.get("policy")
    if recompute_unnamed and chosen in ("dots_saveable", "everything_saveable"):
        raise ValueError(f"policy {chosen} saves values without a "
                         "checkpoint_name, which remat_jax.policy cannot "
                         "express; give jax.checkpoint JAX's own policy, or "
                         "plan with recompute_unnamed=False to see remat's plan")
    exported = export(fn, *example_args, param_argnums=param_argnums,
                      recompute_unnamed=recompute_unnamed, warn=False)
    if chosen is not None:
        options["policy"] = expand_policy(chosen, exported)
    return Plan(remat.plan(exported.mlir, **options), exported)


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
    # A view of an argument costs nothing to recompute: JAX keeps the
    # arguments of a checkpointed function anyway.
    computed_again = _computed_again(report, operands) - free
    for checkpoint in checkpoint_names:
        others = [v["name"] for v in report.values
                  if names.get(v["name"]) == checkpoint and
                  v["name"] in computed_again]
        if others:
            kept = [n for n in saved if names[n] == checkpoint]
            raise PolicyError(
                f"remat's plan saves {', '.join(kept)} but computes "
                f"{', '.join(others)} again in backward; a JAX name policy "
                f"saves every value named '{checkpoint}' (every layer of a "
                "scan), so this plan cannot be expressed by name")
    if not checkpoint_names:
        return jax.checkpoint_policies.nothing_saveable
    return jax.checkpoint_policies.save_only_these_names(*checkpoint_names)


def checkpoint(fn, *, param_argnums=(0,), prevent_cse=True, **options):
    """`jax.checkpoint(fn, policy=policy(plan(fn, *args, **options)))`,
    planned once per argument shapes and dtypes, at the first call.

    The returned function has `plan(*args)`, the Plan it uses for those
    arguments. Arguments may be tracers (inside jax.grad or jax.jit):
    planning needs only their shapes and dtypes."""
    plans = {}

    def plan_for(*args):
        leaves, tree = jax.tree_util.tree_flatten(args)
        specs = [jax.ShapeDtypeStruct(x.shape, x.dtype) for x in leaves]
        key = (tree, tuple((s.shape, str(s.dtype)) for s in specs))
        if key not in plans:
            plans[key] = plan(fn, *jax.tree_util.tree_unflatten(tree, specs),
                              param_argnums=param_argnums, **options)
        return plans[key]

    @functools.wraps(fn)
    def wrapped(*args):
        chosen = policy(plan_for(*args))
        return jax.checkpoint(fn, policy=chosen, prevent_cse=prevent_cse)(*args)

    wrapped.plan = plan_for
    return wrapped
