"""MaxText's remat policies against remat's plans, measured on the CPU.

    PYTHONPATH=python .venv/bin/python -m remat_jax.compare \\
        --json compare.json --markdown compare.md --plot docs/img/x.png
    PYTHONPATH=python .venv/bin/python -m remat_jax.compare --layers 2 \\
        --batch 2 --seq 8 --dim 32 --hidden 64 --steps 2

One model (default: `llama_stack`, MaxText-style Llama decoder layers
unrolled as MaxText stacks them without `scan_layers`), one training step
(`jax.value_and_grad` of the mean square of the stack's output, under
`jax.jit`), wrapped in one `jax.checkpoint` per configuration:

- no checkpoint (the reference the gradients are checked against);
- each MaxText policy (remat_jax.maxtext), as `save_only_these_names` of
  its names and `decoder_layer_input` (MaxText remats each layer, so each
  layer's input is kept; `maxtext.stack_names`), JAX's own policy object;
- remat's default plan (`min-cut`), through `remat_jax.plan` and
  `remat_jax.policy`;
- remat's `budget` plan at each policy's peak: the policy is planned by
  remat first (`policy=` its remat spelling), which gives remat's
  predicted peak of that policy; that peak is the `memory_budget` of a
  `budget` plan, with `recompute_banned="allow"` (the leaner policies
  recompute projections, which remat's automatic bans never do). Policies with the same spelling share one budget row. A
  budget remat cannot meet is reported as infeasible (with the smallest
  peak its budget strategy reaches); a plan a name policy cannot express
  (PolicyError) is reported as such.

Every plan is made for remat's `cpu` target. What is measured, per
configuration, in one process:

- JAX's saved residuals: what `jax.ad_checkpoint.print_saved_residuals`
  lists for the checkpointed stack (what `jax.vjp` keeps for backward),
  residuals from an argument or a constant left out (always resident);
  their bytes and checkpoint names;
- XLA's figures for the compiled step (`compiled.memory_analysis()`):
  temp, argument, output and alias bytes, total = argument + output +
  temp - alias. XLA's CPU scheduler that favours concurrency (the default)
  schedules the recomputation of a checkpoint as early as it can, which
  keeps the recomputed values as long as saved ones would be (temp bytes
  then hardly depend on the policy); `--xla-scheduler memory` (the default
  here) turns it off (`--xla_cpu_enable_concurrency_optimized_scheduler=
  false`), as the GPU and TPU schedulers order for memory;
- step time: the median of `--steps` calls of the compiled step after
  `--warmup` more, `block_until_ready`, configurations taking turns step
  by step (load from other processes spreads over all of them alike), on
  `--threads` threads (default 1: XLA's intra-op threads off).
  Configurations that compile to the same program (the optimised HLO
  without debug information) are timed once and share the timing;
- remat's prediction: `peak_memory_bytes`, `saved_bytes` and
  `predicted_total_time_us` of the plan (for a policy row, remat's plan
  under that policy);
- checks: the gradients and the loss against the unwrapped step (equal
  bit for bit, or within a relative 1e-5, else MISMATCH); JAX's residuals
  (under MaxText's policy in a policy row, under `remat_jax.policy(plan)`
  in remat's rows) are exactly the values the row's remat plan saves (as
  test/Import/jax-policy.test checks); for `llama_stack`, MaxText's own
  form (`nn.remat` per layer with MaxText's policy object) keeps the same
  residual bytes as the whole-stack form, but for the first layer's input
  (an argument there).

`llama_scan` is checkpointed as a whole too (JAX applies the policy inside
the scan), while remat_jax plans one iteration of its body: remat's peaks
and budgets are then per layer. `llama` is one layer.

The goals (issue #18): at each policy's peak, remat's budget plan is no
slower than the policy; remat's default is no slower than the fastest
policy whose XLA temp bytes are within remat's. Both are read against the
measured medians; on a shared machine a few per cent are noise (each row
shows the spread of its timed steps).
"""

import argparse
import contextlib
import hashlib
import io
import json
import os
import re
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import numpy as np

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import print_saved_residuals

import remat
from remat.cli import UserError, check_output_folders, write_output
from remat.machine import cpu_model, load_average
from remat.planner import PlanError
from remat_jax import maxtext
from remat_jax.models import MODELS, DecoderLayer
from remat_jax.policy import PolicyError, plan as plan_for
from remat_jax.policy import policy as policy_for
from remat_jax.trace import ExportError

PROG = "python -m remat_jax.compare"
MIB = 2.0 ** 20
TOLERANCE = 1e-5
SCHEDULER_FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler"
THREAD_FLAGS = ("--xla_cpu_multi_thread_eigen=false",
                "intra_op_parallelism_threads=1")
TARGET = "cpu"


# --- the model --------------------------------------------------------------

class Stack(nn.Module):
    """`layers` decoder layers one after another, named `layers_<i>` as
    MaxText's Decoder names them without scan_layers. With `remat_layers`,
    each layer is `nn.remat(DecoderLayer, policy=policy)`, as MaxText's
    set_remat_policy wraps it (`policy` None is MaxText's `full`)."""
    layers: int
    heads: int
    head_dim: int
    hidden: int
    remat_layers: bool = False
    policy: object = None

    @nn.compact
    def __call__(self, x):
        layer = DecoderLayer
        if self.remat_layers:
            layer = nn.remat(DecoderLayer, policy=self.policy, prevent_cse=True)
        for i in range(self.layers):
            x = layer(self.heads, self.head_dim, self.hidden,
                      name=f"layers_{i}")(x)
        return x


@dataclass
class Built:
    fn: object
    args: tuple
    description: str
    # MaxText policy name -> the function with MaxText's own per-layer
    # nn.remat under that policy (llama_stack only)
    maxtext_form: Optional[object] = None


def llama_stack(batch=2, seq=8, dim=32, heads=4, hidden=64, layers=2,
                dtype="float32"):
    """`layers` MaxText-style Llama decoder layers, unrolled."""
    x = jax.random.normal(jax.random.PRNGKey(1), (batch, seq, dim),
                          jnp.dtype(dtype))
    module = Stack(layers, heads, dim // heads, hidden)
    params = module.init(jax.random.PRNGKey(0), x)["params"]

    def fn(params, x):
        return module.apply({"params": params}, x)

    def maxtext_form(policy):
        wrapped = Stack(layers, heads, dim // heads, hidden, True,
                        maxtext.jax_policy(policy))
        return lambda params, x: wrapped.apply({"params": params}, x)

    return Built(fn, (params, x), "MaxText-style Llama decoder layers, "
                 "unrolled", maxtext_form)


def _builtin(name):
    def build(**sizes):
        model = MODELS[name](**sizes)
        return Built(model.fn, model.args, model.description)
    return build


COMPARED = {"llama_stack": llama_stack, "llama_scan": _builtin("llama_scan"),
            "llama": _builtin("llama")}
SIZES = ("layers", "batch", "seq", "dim", "heads", "hidden")
# The benchmark's size (scripts/bench.sh): a step in tens of milliseconds
# on one thread. seq stays at 8, the size of every recorded run (chosen when
# a causal mask of more than 100 elements reached remat as an i1 hex
# constant its parser rejected; convert.py now rewrites those).
DEFAULT_SIZES = {"layers": 4, "batch": 64, "seq": 8, "dim": 128, "heads": 4,
                 "hidden": 344}


# --- residuals --------------------------------------------------------------

_RESIDUAL = re.compile(r"^(\w+)\[([\d,]*)\] (.*)$")


def _itemsize(short_dtype):
    if short_dtype in ("bool", "pred"):
        return 1
    match = re.match(r"^[a-z]+(\d+)", short_dtype)
    if not match:
        raise ValueError(f"unknown dtype in print_saved_residuals: {short_dtype}")
    return max(1, int(match.group(1)) // 8)


def jax_residuals(fn, args):
    """[(checkpoint name or None, shape, bytes)] of what JAX saves for
    backward of `fn(*args)`, leaving out arguments and constants."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_saved_residuals(fn, *args)
    found = []
    for line in printed.getvalue().splitlines():
        match = _RESIDUAL.match(line.strip())
        if not match:
            raise RuntimeError(f"unexpected print_saved_residuals line: {line}")
        dtype, dims, what = match.groups()
        if what.startswith(("from the argument", "from a constant")):
            continue
        shape = tuple(int(d) for d in dims.split(",") if d)
        name = re.match(r"named '([^']+)'", what)
        found.append((name.group(1) if name else None, shape,
                      int(np.prod(shape, dtype=np.int64)) * _itemsize(dtype)))
    return sorted(found, key=repr)


def plan_residuals(plan, scan_length=None):
    """(name or None, shape) JAX should save for the plan's saved names:
    one array per instance of a name in an unrolled model; in a model whose
    layers are one scan of `scan_length` iterations, one stacked array per
    name, which JAX prints without its name (the export may hold the scan's
    body once, or once per iteration)."""
    expected = []
    for name in plan.saved_names():
        instances = plan.export.instances(name)
        shapes = [tuple(plan.export.named_shapes[i]) for i in instances]
        if scan_length and len(instances) in (1, scan_length):
            expected.append((None, (scan_length,) + shapes[0]))
        else:
            expected += [(name, shape) for shape in shapes]
    return sorted(expected, key=repr)


# --- one configuration ------------------------------------------------------

def _loss(fn):
    def loss(params, x):
        return jnp.mean(jnp.square(fn(params, x).astype(jnp.float32)))
    return loss


def _relative(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-30))


def _compare(result, reference):
    """(verdict, worst relative difference) over the loss and every
    gradient leaf: "equal" (bit for bit), "≈ rel X" within TOLERANCE, else
    "MISMATCH rel X"."""
    got = jax.tree_util.tree_leaves(result)
    want = jax.tree_util.tree_leaves(reference)
    if len(got) != len(want):
        return "MISMATCH (other outputs)", float("inf")
    if all(np.array_equal(g, w) for g, w in zip(got, want)):
        return "equal", 0.0
    worst = max(_relative(g, w) for g, w in zip(got, want))
    word = "≈" if worst <= TOLERANCE else "MISMATCH"
    return f"{word} rel {worst:.1e}", worst


@dataclass
class Row:
    label: str
    kind: str  # "none", "maxtext", "remat"
    policy: Optional[str] = None  # the MaxText policy (maxtext rows)
    budget_for: List[str] = field(default_factory=list)
    data: Dict = field(default_factory=dict)
    compiled: object = None
    residuals: List = field(default_factory=list)
    times: List[float] = field(default_factory=list)

    def __post_init__(self):
        self.data.update({"configuration": self.label, "kind": self.kind,
                          "status": "ok"})
        if self.policy:
            self.data["policy"] = self.policy
        if self.budget_for:
            self.data["budget_for"] = list(self.budget_for)


def _remat_fields(plan):
    """remat's figures for a plan. A plan of a scan's body (remat_jax plans
    one iteration of a scanned stack) predicts one iteration: its peak and
    time are per layer; its saved bytes are given for the whole scan."""
    report = plan.report
    fields = {"remat_predicted_peak_bytes": report.peak_memory_bytes,
              "remat_predicted_saved_bytes": report.saved_bytes,
              "remat_predicted_time_us": report.predicted_total_time_us,
              "remat_saved_names": plan.saved_names()}
    scan = getattr(plan, "scan", None)
    if scan is not None:
        fields["remat_scope"] = f"one of {scan.length} scan iterations"
        fields["remat_predicted_saved_bytes"] = scan.total_saved_bytes
    return fields


def _prepare(row, fn, args, reference, log):
    """Residuals, compile, memory analysis, first step checked."""
    residuals = jax_residuals(fn, args)
    row.data["jax_saved_bytes"] = sum(r[2] for r in residuals)
    row.data["jax_saved_names"] = sorted({r[0] for r in residuals if r[0]})
    row.data["jax_saved_unnamed"] = sum(1 for r in residuals if not r[0])
    row.residuals = residuals
    step = jax.jit(jax.value_and_grad(_loss(fn)))
    start = time.perf_counter()
    compiled = step.lower(*args).compile()
    row.data["compile_s"] = time.perf_counter() - start
    stats = compiled.memory_analysis()
    memory = {key: int(getattr(stats, key + "_size_in_bytes"))
              for key in ("temp", "argument", "output", "alias",
                          "generated_code")}
    memory["total"] = (memory["argument"] + memory["output"] +
                       memory["temp"] - memory["alias"])
    peak = getattr(stats, "peak_memory_in_bytes", 0)
    if peak:
        memory["peak"] = int(peak)
    row.data["xla"] = memory
    row.data["program"] = _program_hash(compiled)
    result = jax.block_until_ready(compiled(*args))
    if reference is not None:
        row.data["grads"], row.data["grads_relative_difference"] = \
            _compare(result, reference)
    row.compiled = compiled
    log(f"{row.label}: JAX saves {row.data['jax_saved_bytes'] / MIB:.2f} "
        f"MiB, XLA temp {memory['temp'] / MIB:.2f} MiB")
    return result


def _program_hash(compiled):
    """A hash of the optimised HLO without its debug information (module
    name, source locations, op metadata): two rows with the same hash run
    the same program."""
    text = re.sub(r"^HloModule \S+", "HloModule", compiled.as_text(), count=1)
    text = re.sub(r"^(FileNames|FunctionNames|FileLocations|StackFrames)\n"
                  r"(.+\n)*", "", text, flags=re.M)
    text = re.sub(r",? metadata=\{[^{}]*\}", "", text)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _check_plan_residuals(row, plan, residuals, scan_length):
    """JAX's residuals under the plan's policy are the plan's saved set."""
    got = sorted(((name, shape) for name, shape, _ in residuals), key=repr)
    want = plan_residuals(plan, scan_length)
    row.data["residuals_match_plan"] = got == want
    if got != want:
        row.data["residuals_mismatch"] = {"jax": [list(map(str, g)) for g in got],
                                          "plan": [list(map(str, w)) for w in want]}


def compare(model="llama_stack", sizes=None, steps=5, warmup=1, log=None):
    """Measures every configuration (see the module docstring); returns the
    JSON-ready record. XLA's flags (scheduler, threads) are whatever
    XLA_FLAGS held when JAX's CPU backend started: main() sets them."""
    log = log or (lambda message: None)
    sizes = dict(DEFAULT_SIZES if sizes is None else sizes)
    if model != "llama_stack" and model != "llama_scan":
        sizes.pop("layers", None)
    built = COMPARED[model](**sizes)
    fn, args = built.fn, built.args
    scan_length = sizes.get("layers") if model == "llama_scan" else None
    start = time.perf_counter()
    record = {"model": model, "sizes": sizes, "description": built.description,
              "jax_version": jax.__version__, "target": TARGET,
              "xla_flags": os.environ.get("XLA_FLAGS", ""),
              "steps": steps, "warmup": warmup,
              "load_average_start": load_average(),
              "parameter_bytes": sum(int(np.asarray(leaf).nbytes) for leaf in
                                     jax.tree_util.tree_leaves(args[0])),
              "input_bytes": sum(int(np.asarray(leaf).nbytes) for leaf in
                                 jax.tree_util.tree_leaves(args[1:]))}
    rows = []

    reference_row = Row("no checkpoint", "none")
    rows.append(reference_row)
    reference = _prepare(reference_row, fn, args, None, log)
    reference_row.data["grads"] = "reference"

    min_cut = plan_for(fn, *args, target=TARGET)
    available = set(min_cut.export.checkpoint_names.values())
    record["checkpoint_names"] = sorted(available)

    # MaxText's policies, and remat's plan of each.
    spellings = {}  # remat spelling -> [policies]
    for name in maxtext.POLICIES:
        row = Row(name, "maxtext", policy=name)
        rows.append(row)
        spelling = maxtext.remat_spelling(name, available)
        row.data["jax_policy_names"] = list(maxtext.stack_names(name))
        row.data["absent_names"] = maxtext.absent_names(name, available)
        row.data["remat_policy"] = spelling
        wrapped = jax.checkpoint(fn, policy=maxtext.stack_policy(name),
                                 prevent_cse=True)
        _prepare(row, wrapped, args, reference, log)
        try:
            planned = plan_for(fn, *args, target=TARGET, policy=spelling)
        except PlanError as error:
            row.data["remat_plan_error"] = str(error).splitlines()[0]
        else:
            row.data.update(_remat_fields(planned))
            _check_plan_residuals(row, planned, row.residuals, scan_length)
            spellings.setdefault(spelling, []).append(name)
        if built.maxtext_form is not None:
            own = jax_residuals(built.maxtext_form(name), args)
            first_input = int(np.asarray(args[1]).nbytes)
            row.data["maxtext_form_saved_bytes"] = sum(r[2] for r in own)
            row.data["maxtext_form_matches"] = (
                row.data["maxtext_form_saved_bytes"] + first_input ==
                row.data["jax_saved_bytes"])

    # remat's default plan.
    row = Row("remat min-cut", "remat")
    rows.append(row)
    _remat_row(row, min_cut, fn, args, reference, scan_length, log)

    # remat's budget plan at each policy's peak.
    by_name = {r.policy: r for r in rows if r.kind == "maxtext"}
    for spelling, names in spellings.items():
        peak = by_name[names[0]].data["remat_predicted_peak_bytes"]
        row = Row(f"remat budget @ {', '.join(names)}", "remat",
                  budget_for=names)
        row.data["budget_bytes"] = peak
        rows.append(row)
        try:
            with warnings.catch_warnings():
                # The budget is a body peak on purpose here: the policy's.
                warnings.filterwarnings("ignore", "remat_jax: memory_budget=",
                                        remat.PlanWarning)
                planned = plan_for(fn, *args, target=TARGET,
                                   strategy="budget",
                                   memory_budget=f"activations:{int(peak)}",
                                   recompute_banned="allow")
        except PlanError as error:
            row.data["status"] = ("infeasible" if error.infeasible_budget
                                  else "failed")
            row.data["smallest_peak_bytes"] = error.smallest_peak_bytes
            row.data["message"] = str(error).splitlines()[0]
            log(f"{row.label}: {row.data['status']}")
            continue
        _remat_row(row, planned, fn, args, reference, scan_length, log)

    # Rows that compiled to the same program share one timing: their
    # differences would be noise.
    programs = {}
    for r in rows:
        if r.compiled is not None:
            programs.setdefault(r.data["program"], []).append(r)
    timed = [group[0] for group in programs.values()]
    log(f"timing {len(timed)} programs ({sum(map(len, programs.values()))} "
        f"configurations), {warmup} + {steps} steps each, in turns")
    for index in range(warmup + steps):
        for r in timed:
            begin = time.perf_counter()
            jax.block_until_ready(r.compiled(*args))
            if index >= warmup:
                r.times.append(time.perf_counter() - begin)
    for number, group in enumerate(programs.values()):
        first = group[0]
        letter = chr(ord("A") + number) if number < 26 else \
            first.data["program"]
        for r in group:
            r.data["program_label"] = letter
            r.data["step_ms_all"] = [1e3 * t for t in first.times]
            r.data["step_ms"] = 1e3 * statistics.median(first.times)
            if r is not first:
                r.data["timed_as"] = first.label
            r.compiled = None
    _relate(rows)
    record["configurations"] = [r.data for r in rows]
    record["goals"] = goals(record)
    record["load_average_end"] = load_average()
    record["wall_s"] = time.perf_counter() - start
    return record


def _remat_row(row, planned, fn, args, reference, scan_length, log):
    row.data.update(_remat_fields(planned))
    row.data["remat_strategy"] = planned.report.strategy
    if row.data.get("budget_bytes") is not None:
        row.data["within_budget"] = (planned.report.peak_memory_bytes <=
                                     row.data["budget_bytes"])
    try:
        chosen = policy_for(planned)
    except PolicyError as error:
        row.data["status"] = "inexpressible"
        row.data["message"] = str(error)
        log(f"{row.label}: not a name policy: {str(error)[:120]}")
        return
    wrapped = jax.checkpoint(fn, policy=chosen, prevent_cse=True)
    _prepare(row, wrapped, args, reference, log)
    _check_plan_residuals(row, planned, row.residuals, scan_length)


def _relate(rows):
    """Each budget row against the policies at whose peak it planned."""
    by_policy = {r.policy: r.data for r in rows if r.kind == "maxtext"}
    for r in rows:
        if not r.budget_for or r.data["status"] != "ok":
            continue
        versus = {}
        for name in r.budget_for:
            policy = by_policy[name]
            versus[name] = {
                "step_ratio": r.data["step_ms"] / policy["step_ms"],
                "temp_ratio": _ratio(r.data["xla"]["temp"],
                                     policy["xla"]["temp"]),
                "saved_ratio": _ratio(r.data["jax_saved_bytes"],
                                      policy["jax_saved_bytes"]),
            }
        r.data["versus_policy"] = versus


def _ratio(a, b):
    return a / b if b else (1.0 if a == b else float("inf"))


def goals(record):
    """The two goals of issue #18, read from the measured rows."""
    rows = record["configurations"]
    policies = [r for r in rows if r["kind"] == "maxtext"]
    budget = {name: r for r in rows for name in r.get("budget_for", [])}
    at_peak = []
    for policy in policies:
        name = policy["policy"]
        entry = {"policy": name}
        row = budget.get(name)
        if row is None:
            entry["verdict"] = "no budget row (" + policy.get(
                "remat_plan_error", "remat did not plan the policy") + ")"
        elif row["status"] == "infeasible":
            entry["verdict"] = "infeasible"
            entry["policy_peak_bytes"] = row["budget_bytes"]
            entry["smallest_peak_bytes"] = row["smallest_peak_bytes"]
        elif row["status"] != "ok":
            entry["verdict"] = row["status"]
        else:
            ratio = row["versus_policy"][name]["step_ratio"]
            entry["step_ratio"] = ratio
            entry["same_program"] = row["program"] == policy["program"]
            entry["verdict"] = "met" if ratio <= 1.0 else "missed"
        at_peak.append(entry)
    default = next(r for r in rows if r["configuration"] == "remat min-cut")
    no_budget = {"remat_temp_bytes": default.get("xla", {}).get("temp")}
    if default["status"] == "ok":
        fitting = [p for p in policies
                   if p["xla"]["temp"] <= default["xla"]["temp"]]
        no_budget["remat_step_ms"] = default["step_ms"]
        if fitting:
            fastest = min(fitting, key=lambda p: p["step_ms"])
            ratio = default["step_ms"] / fastest["step_ms"]
            no_budget.update(fastest=fastest["policy"],
                             fastest_step_ms=fastest["step_ms"],
                             step_ratio=ratio,
                             same_program=fastest["program"] ==
                             default["program"],
                             verdict="met" if ratio <= 1.0 else "missed")
        else:
            no_budget["verdict"] = "no policy fits in remat's memory"
    else:
        no_budget["verdict"] = default["status"]
    return {"at_each_policy_peak": at_peak, "default": no_budget}


# --- output -----------------------------------------------------------------

def _mib(nbytes):
    return "—" if nbytes is None else f"{nbytes / MIB:.2f}"


def _short_names(row):
    names = row.get("jax_saved_names") or []
    short = {"decoder_layer_input": "input", "query_proj": "q",
             "key_proj": "k", "value_proj": "v", "out_proj": "out",
             "mlpwi_0": "wi_0", "mlpwi_1": "wi_1", "mlpwo": "wo"}
    text = ", ".join(short.get(n, n) for n in names) or "nothing"
    if row.get("jax_saved_unnamed"):
        text += f" (+{row['jax_saved_unnamed']} unnamed)"
    return text


def markdown(record):
    sizes = ", ".join(f"{k}={v}" for k, v in record["sizes"].items())
    lines = [f"{record['model']} ({sizes}): {record['description']}; JAX "
             f"{record['jax_version']}, remat target `{record['target']}`; "
             f"XLA_FLAGS `{record['xla_flags'] or '(none)'}`; {record['cpu']}, "
             f"nproc {record['nproc']}; load average "
             f"{record['load_average_start']} at start, "
             f"{record['load_average_end']} at end; median of "
             f"{record['steps']} steps after {record['warmup']} warm-up, "
             f"configurations in turns; {record['wall_s']:.0f} s in all. "
             f"Parameters {_mib(record['parameter_bytes'])} MiB, input "
             f"{_mib(record['input_bytes'])} MiB.", "",
             "| configuration | saves | JAX saved MiB | XLA temp MiB | XLA total "
             "MiB | program | step ms (min-max) | remat peak MiB | remat saved "
             "MiB | vs policy: step, temp, saved | grads |",
             "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- "
             "| --- |"]
    notes = []
    for row in record["configurations"]:
        if row["status"] != "ok":
            lines.append(f"| {row['configuration']} | {row['status']} | " +
                         " | ".join(["—"] * 9) + " |")
            if row["status"] == "infeasible":
                notes.append(
                    f"{row['configuration']}: infeasible at "
                    f"{_mib(row['budget_bytes'])} MiB (remat's predicted peak "
                    f"of the policy); the smallest peak remat's budget "
                    f"strategy reaches is {_mib(row['smallest_peak_bytes'])} "
                    "MiB: it does not recompute matmul results on its own "
                    "(remat's automatic bans), which every policy below "
                    "`minimal` does")
            else:
                notes.append(f"{row['configuration']}: {row['message']}")
            continue
        times = row["step_ms_all"]
        versus = row.get("versus_policy")
        versus_text = "; ".join(
            f"{v['step_ratio']:.2f}x, {v['temp_ratio']:.2f}x, "
            f"{v['saved_ratio']:.2f}x" + (f" ({name})" if len(versus) > 1 else "")
            for name, v in versus.items()) if versus else ""
        lines.append(
            "| %s | %s | %s | %s | %s | %s | %.1f (%.1f-%.1f) | %s | %s | %s | %s |"
            % (row["configuration"], _short_names(row),
               _mib(row["jax_saved_bytes"]), _mib(row["xla"]["temp"]),
               _mib(row["xla"]["total"]), row["program_label"],
               row["step_ms"], min(times),
               max(times), _mib(row.get("remat_predicted_peak_bytes")),
               _mib(row.get("remat_predicted_saved_bytes")), versus_text,
               row["grads"]))
        if row.get("remat_scope"):
            notes.append(f"{row['configuration']}: remat's peak is that of "
                         f"{row['remat_scope']} (remat_jax plans a scan's "
                         "body once); its saved bytes are the whole scan's")
        if row.get("absent_names"):
            notes.append(f"{row['configuration']}: the model has no "
                         f"{', '.join(row['absent_names'])} (see "
                         "remat_jax/maxtext.py); JAX's policy ignores them, "
                         "remat plans without them")
    lines.append("")
    notes.insert(0, "program: rows with the same letter compiled to the same "
                 "XLA program (the optimised HLO without debug information) "
                 "and share one timing")
    lines += [f"- {note}" for note in _grouped(notes)]
    lines += ["", _checks(record), "", "Goals:", ""] + _goal_lines(record)
    return "\n".join(lines).rstrip() + "\n"


def _grouped(notes):
    """Policies whose absent-name notes say the same thing share a line."""
    by_text = {}
    for note in notes:
        head, _, text = note.partition(": ")
        by_text.setdefault(text, []).append(head)
    return [f"{', '.join(heads)}: {text}" for text, heads in by_text.items()]


def _checks(record):
    rows = [r for r in record["configurations"] if r["status"] == "ok"]
    grads = [r for r in rows if r["kind"] != "none"]
    good = [r for r in grads if not r["grads"].startswith("MISMATCH")]
    planned = [r for r in rows if "residuals_match_plan" in r]
    matched = [r for r in planned if r["residuals_match_plan"]]
    text = (f"Checks: gradients and loss equal to the unwrapped step's (bit "
            f"for bit, or within a relative {TOLERANCE:g}) in {len(good)} of "
            f"{len(grads)} configurations; JAX's residuals exactly the values "
            f"remat's plan saves in {len(matched)} of {len(planned)} plans "
            "(each policy as remat plans it, and remat's own)")
    budgets = [r for r in rows if "within_budget" in r]
    within = [r for r in budgets if r["within_budget"]]
    text += (f"; remat's predicted peak within the budget in {len(within)} of "
             f"{len(budgets)} budget plans")
    forms = [r for r in rows if "maxtext_form_matches" in r]
    if forms:
        same = [r for r in forms if r["maxtext_form_matches"]]
        text += (f"; MaxText's own per-layer `nn.remat` keeps the same bytes "
                 f"as the whole-stack form for {len(same)} of {len(forms)} "
                 "policies")
    bad = [r["configuration"] for r in grads if r not in good] + \
        [r["configuration"] for r in planned if r not in matched] + \
        [r["configuration"] for r in budgets if r not in within] + \
        [r["configuration"] for r in forms if not r["maxtext_form_matches"]]
    return text + (f". FAILED: {', '.join(bad)}." if bad else ".")


def _goal_lines(record):
    lines = []
    for entry in record["goals"]["at_each_policy_peak"]:
        if entry["verdict"] in ("met", "missed"):
            ratio = entry["step_ratio"]
            how = (f"{100 * (1 - ratio):.0f}% faster" if ratio <= 1 else
                   f"{100 * (ratio - 1):.0f}% slower")
            if entry["same_program"]:
                how = "the same XLA program"
            lines.append(f"- at {entry['policy']}'s peak: {entry['verdict']} "
                         f"(remat's budget plan {ratio:.2f}x the policy's "
                         f"step, {how})")
        elif entry["verdict"] == "infeasible":
            lines.append(f"- at {entry['policy']}'s peak: missed, remat's "
                         f"budget plan is infeasible at "
                         f"{_mib(entry['policy_peak_bytes'])} MiB (its "
                         f"smallest: {_mib(entry['smallest_peak_bytes'])} MiB)")
        else:
            lines.append(f"- at {entry['policy']}'s peak: {entry['verdict']}")
    default = record["goals"]["default"]
    if "fastest" in default:
        ratio = default["step_ratio"]
        lines.append(
            f"- no budget: {default['verdict']}: remat's min-cut "
            f"{default['remat_step_ms']:.1f} ms against {default['fastest']} "
            f"{default['fastest_step_ms']:.1f} ms ({ratio:.2f}x"
            f"{', the same XLA program' if default['same_program'] else ''}), "
            f"the fastest policy whose XLA temp is within remat's "
            f"{_mib(default['remat_temp_bytes'])} MiB")
    else:
        lines.append(f"- no budget: {default['verdict']}")
    return lines


def plot(record, path):
    """XLA temp bytes (left) and JAX's saved bytes (right) against the
    median step, the bar spanning the fastest and slowest step; points
    numbered, the numbers named beside the axes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in record["configurations"] if r["status"] == "ok"]
    styles = {"none": ("D", "tab:gray"), "maxtext": ("o", "tab:blue"),
              "remat": ("s", "tab:orange")}
    figure, panels = plt.subplots(1, 2, figsize=(10, 4.4), sharey=True)
    for axes, key, title in (
            (panels[0], lambda r: r["xla"]["temp"], "XLA temp (MiB)"),
            (panels[1], lambda r: r["jax_saved_bytes"],
             "JAX saved residuals (MiB)")):
        points = {}  # (x, y) -> numbers drawn there
        for number, r in enumerate(rows, 1):
            marker, color = styles[r["kind"]]
            x, y = key(r) / MIB, r["step_ms"]
            spread = [[y - min(r["step_ms_all"])], [max(r["step_ms_all"]) - y]]
            # remat's squares hollow and larger: a policy's point under
            # one (the same program) stays visible.
            hollow = {"mfc": "none", "ms": 11, "mew": 1.5} \
                if r["kind"] == "remat" else {}
            axes.errorbar([x], [y], yerr=spread, fmt=marker, color=color,
                          capsize=3, zorder=3, **hollow)
            points.setdefault((round(x, 3), round(y, 3)), []).append(number)
        for (x, y), numbers in points.items():
            axes.annotate(",".join(map(str, numbers)), (x, y),
                          textcoords="offset points", xytext=(5, 3),
                          fontsize=7)
        axes.set_xlabel(title)
        axes.grid(True, alpha=0.3)
        axes.margins(x=0.12, y=0.12)
    panels[0].set_ylabel("median step time (ms)")
    for number, r in enumerate(rows, 1):
        color = styles[r["kind"]][1]
        label = r["configuration"] if r["kind"] != "maxtext" else \
            "MaxText " + r["configuration"]
        panels[1].text(1.04, 1 - 0.06 * (number - 1), f"{number}  {label}",
                       transform=panels[1].transAxes, fontsize=7, color=color,
                       va="top")
    sizes = ", ".join(f"{k}={v}" for k, v in record["sizes"].items())
    figure.suptitle(f"{record['model']} ({sizes}), JAX "
                    f"{record['jax_version']} on the CPU", fontsize=9)
    figure.tight_layout(rect=(0, 0, 0.75, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def configure_xla(scheduler, threads):
    """Adds the XLA CPU flags for `scheduler` and `threads` to XLA_FLAGS;
    they take effect only if JAX's CPU backend has not started yet."""
    flags = os.environ.get("XLA_FLAGS", "").split()
    flags = [f for f in flags if not f.startswith(SCHEDULER_FLAG)]
    flags.append(f"{SCHEDULER_FLAG}={'false' if scheduler == 'memory' else 'true'}")
    if threads == 1:
        flags += [f for f in THREAD_FLAGS if f not in flags]
    os.environ["XLA_FLAGS"] = " ".join(flags)


def _positive(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected an integer >= 1")
    return value


def _count(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}': expected an integer >= 0")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="MaxText's remat policies against remat's min-cut and "
                    "budget plans: JAX's saved residuals, XLA's memory "
                    "figures and the step time of one training step on the "
                    "CPU.")
    parser.add_argument("--model", default="llama_stack",
                        choices=sorted(COMPARED))
    for size in SIZES:
        parser.add_argument(f"--{size}", type=_positive,
                            help=f"default {DEFAULT_SIZES[size]}")
    parser.add_argument("--steps", type=_positive, default=5,
                        help="timed steps per configuration (default 5)")
    parser.add_argument("--warmup", type=_count, default=1,
                        help="untimed steps first (default 1; the first, "
                             "checked step is not timed either)")
    parser.add_argument("--threads", choices=("1", "all"), default="1",
                        help="XLA CPU intra-op threads (default 1)")
    parser.add_argument("--xla-scheduler", choices=("memory", "concurrency"),
                        default="memory",
                        help="XLA's CPU scheduler (default memory: see "
                             "the module docstring)")
    parser.add_argument("--json", help="write the raw numbers here")
    parser.add_argument("--markdown", help="write the table here (it is "
                                           "printed in any case)")
    parser.add_argument("--plot", metavar="PNG", help="write the Pareto plot")
    args = parser.parse_args(argv)
    sizes = dict(DEFAULT_SIZES)
    sizes.update({k: getattr(args, k) for k in SIZES
                  if getattr(args, k) is not None})
    if args.model == "llama" and args.layers is not None:
        parser.error("--layers: the llama model is one decoder layer")
    if sizes["dim"] % sizes["heads"]:
        parser.error(f"--dim {sizes['dim']} is not a multiple of --heads "
                     f"{sizes['heads']}")
    check_output_folders(parser, ("--json", args.json),
                         ("--markdown", args.markdown), ("--plot", args.plot))
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plot needs matplotlib, which this interpreter "
                         "cannot import")
    configure_xla(args.xla_scheduler, 1 if args.threads == "1" else None)

    def log(message):
        print(f"compare: {message}", file=sys.stderr, flush=True)

    try:
        record = compare(args.model, sizes, args.steps, args.warmup, log)
    except ImportError as error:  # remat's extension is not built
        raise UserError(str(error)) from error
    record["cpu"], record["nproc"] = cpu_model(), os.cpu_count()
    table = markdown(record)
    sys.stdout.write(table)
    if args.markdown:
        write_output(args.markdown, table)
    if args.json:
        write_output(args.json, json.dumps(record, indent=1))
    if args.plot:
        log(f"plot: {plot(record, args.plot)}")
    return 0


def run(argv=None):
    """main(), with a user's mistake reported as one line and status 1."""
    return remat.cli.run(PROG, main, argv, (ExportError,))


if __name__ == "__main__":
    sys.exit(run())
