"""Measured training steps: PyTorch's partitioner against remat's.

    PYTHONPATH=python .venv/bin/python -m remat_torch.measure \\
        --json measure.json --markdown measure.md --plots docs/img
    PYTHONPATH=python /usr/bin/python3 -m remat_torch.measure --quick \\
        --models gpt2,resnet18

Each model trains real steps (forward and backward, eager ATen kernels
through `remat_torch.training.compile_step`) under several partition
functions on the same weights, inputs and seed:

- PyTorch's `min_cut_rematerialization_partition` as it is; on PyTorch 2.x
  also with `torch._functorch.config.activation_memory_budget` at each of
  `--torch-budgets` (the partitioner reads the option when it runs, so it is
  patched around the partition call);
- remat's `min-cut` plan (`remat_torch.partition`, `target="cpu"`), at the
  target's exchange rate (the default) and at rate 0 (bytes alone);
- remat's `budget` plan at the point of each PyTorch configuration. remat's
  budget bounds remat's own simulated peak, not the allocator's, so a
  measured PyTorch peak is not a remat budget as it stands; it is mapped
  through remat's min-cut run, whose plan was both simulated and measured:
  budget = remat min-cut predicted peak + (PyTorch's measured peak - remat
  min-cut measured peak), i.e. "the same measured memory as PyTorch's
  configuration", assuming that the gap between the allocator's peak and
  remat's (kernel temporaries, views) does not depend on the plan. A
  budget remat cannot meet is reported as infeasible with the smallest
  peak remat reaches. PyTorch configurations that reach the same peak
  share one remat budget. Like PyTorch's budget solvers, remat may then
  recompute matmuls when no plan inside its automatic bans fits
  (`recompute_banned="allow"`).

What is measured, per configuration:

- saved bytes: the tensors the forward graph returns for backward (beyond
  its real outputs), read at run time; tensors whose storage belongs to a
  parameter, buffer or input are left out (always resident), and each
  storage counts once (a view shares its base's storage);
- peak: the allocator's live bytes during one step above what was live when
  the step started, from the PyTorch profiler's memory events (each
  allocation and free, in time order, summed), up to the end of the
  autograd engine's last backward function (gradient accumulation
  included). The gradient copies `compile_step` makes after backward, for
  the correctness check, are not counted. Resident bytes (parameters,
  buffers, inputs) are reported beside it; a total is their sum;
- step time: the median of `--repeats` calls of `compile_step`'s step
  (seeding, forward, backward, copying the gradients out) after `--warmup`
  calls, without the profiler, on `--threads` threads (default 1);
  configurations take turns step by step, so that load from other
  processes spreads over all of them alike;
- remat's own prediction for its plans: `peak_memory_bytes` and
  `predicted_total_time_us` of the plan's report, and the relative error
  |predicted - measured| / measured against the measured peak and median
  step. Nothing is calibrated. remat's peak is its simulator's: every
  forward and backward value at its full size (a view shares its base's
  storage), the gradients (the joint function's results, live to the end)
  included, parameters, inputs and tangents not, plus the kernel scratch
  of the op at each step: remat's plans are made with
  `workspace="profile"` (each distinct call of the joint graph run twice
  before planning, remat_torch.workspace; `--workspace none` leaves
  scratch out, as before 2026-12). `python -m remat_torch.attribute`
  splits a measured peak into what the graphs' values, the runtime and
  the kernels hold.
  The graphs run with the boxed calling convention (`capture._boxed`), so
  that a saved value is freed after its last read, as remat assumes, on
  PyTorch 2.x and 1.13 alike.
  remat's time is the
  roofline of its `cpu` target, a nominal 32-core AVX-512 socket, against
  one thread here plus Python's per-op dispatch (with `--op-times profile`
  the sum of the op times profiled before planning);
- correctness: the first step's loss and gradients against an eager
  forward and backward of the same module with the same seed ("equal" is
  bit for bit; "MISMATCH" beyond a relative 1e-5).
"""

import argparse
import copy
import functools
import gc
import json
import os
import statistics
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Dict, Optional

# Kineto logs an error about the missing GPU each time the profiler starts
# on a CPU-only machine; level 5 keeps it quiet. Set before torch loads.
os.environ.setdefault("KINETO_LOG_LEVEL", "5")

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

from remat.cli import check_output_folders, write_output  # noqa: E402
from remat.machine import cpu_model, load_average  # noqa: E402
from remat_torch import RematPartitionError, partition  # noqa: E402
from remat_torch.capture import _aot_api  # noqa: E402
from remat_torch.cli import UserError, run  # noqa: E402
from remat_torch.models import MODELS  # noqa: E402
from remat_torch.training import compile_step  # noqa: E402
from remat_torch.workspace import event_times_ns, storage_of  # noqa: E402

# Measured models: name -> (MODELS factory, sizes, sizes with --quick).
# Sizes run one step in about a second or less on one thread of a 2-core
# machine; --quick sizes are the factories' tiny defaults.
MEASURED = {
    "resnet18": ("resnet18", {"size": 64, "batch": 4}, {}),
    "resnet50": ("resnet50", {"size": 64, "batch": 4}, {}),
    "mobilenet_v2": ("mobilenet_v2", {"size": 64, "batch": 4}, {}),
    "vit": ("vit", {"size": 32, "patch": 4, "layers": 4, "heads": 4,
                    "dim": 128, "hidden": 512, "batch": 4}, {}),
    "llama": ("llama", {"layers": 4, "dim": 128, "heads": 4, "hidden": 344,
                        "seq": 128, "batch": 4}, {}),
    "gpt2": ("gpt2", {"layers": 4, "dim": 128, "heads": 4, "seq": 128,
                      "batch": 4, "vocab": 1024}, {}),
    "bert": ("bert", {"layers": 4, "dim": 128, "heads": 4, "hidden": 512,
                      "seq": 128, "batch": 4, "vocab": 1024}, {}),
}
TOLERANCE = 1e-5
MIB = 2.0 ** 20

# activation_memory_budget_solver values of PyTorch 2.x's partitioner: its
# knapsack solvers (dp is its default; ilp needs scipy).
SOLVERS = ("dp", "greedy", "ilp")
DEFAULT_SOLVER = "dp"


def _torch_major():
    return int(torch.__version__.split(".")[0])


@dataclass
class Config:
    """One way to partition: who plans, and with which options."""
    label: str
    partitioner: str  # "pytorch" or "remat"
    torch_budget: Optional[float] = None  # activation_memory_budget (2.x)
    torch_solver: Optional[str] = None  # activation_memory_budget_solver
    remat_options: Dict = field(default_factory=dict)
    budget_for: Optional[str] = None  # the PyTorch configuration mapped


def _num_real_outputs(joint_module, kwargs):
    """How many of the joint graph's outputs are the forward's own (the
    rest are gradients): PyTorch 2.x passes the count, 1.13's partitioners
    read it from the output spec."""
    if kwargs.get("num_fwd_outputs") is not None:
        return kwargs["num_fwd_outputs"]
    return joint_module._out_spec.children_specs[0].num_leaves


def _resident_tensors(module, inputs):
    """What is live before a step and stays: parameters, buffers, inputs."""
    return list(module.parameters()) + list(module.buffers()) + \
        [x for x in inputs if isinstance(x, torch.Tensor)]


def _storage_bytes(tensors):
    return sum(dict(storage_of(t) for t in tensors).values())


class _SavedProbe:
    """Wraps a partition function so that the forward graph it returns
    reports the storage of the tensors it saves for backward, on the steps
    where `record` is set. Only pointers and sizes are kept: holding the
    tensors would keep them alive past backward."""

    def __init__(self, partition_fn, resident_pointers):
        self.partition_fn = partition_fn
        self.resident = resident_pointers
        self.record = False
        self.saved_tensors = None
        self.saved_storages = None  # pointer -> bytes, resident left out

    def __call__(self, joint_module, joint_inputs, **kwargs):
        real = _num_real_outputs(joint_module, kwargs)
        fw_module, bw_module = self.partition_fn(joint_module, joint_inputs,
                                                 **kwargs)

        def record(_module, _args, outputs):
            if self.record:
                saved = [t for t in outputs[real:] if isinstance(t, torch.Tensor)]
                self.saved_tensors = len(saved)
                self.saved_storages = {p: n for p, n in map(storage_of, saved)
                                       if p not in self.resident}

        # The compilers call the graph as a module (capture._boxed).
        fw_module.register_forward_hook(record)
        return fw_module, bw_module


def _pytorch_partition(budget, solver=None):
    """PyTorch's min-cut partitioner; with `budget`, under
    `activation_memory_budget` and, with `solver`, its
    `activation_memory_budget_solver` (both read by the partitioner when it
    runs)."""
    min_cut = _aot_api()[3]
    if budget is None:
        return min_cut
    patch = {"activation_memory_budget": budget}
    if solver is not None:
        patch["activation_memory_budget_solver"] = solver

    def partition_with_budget(joint_module, joint_inputs, **kwargs):
        with torch._functorch.config.patch(**patch):
            return min_cut(joint_module, joint_inputs, **kwargs)

    return partition_with_budget


def _remat_partition(options, on_plan):
    """remat's partition function with `options`, planned for the CPU;
    strict, so that a graph remat cannot take fails instead of silently
    running PyTorch's partitioner."""
    def partition_fn(joint_module, joint_inputs, **kwargs):
        return partition(joint_module, joint_inputs, target="cpu",
                         strict=True, on_plan=on_plan, **options, **kwargs)

    return partition_fn


def _eager_reference(module, inputs, seed):
    """Loss and gradients of a plain eager step: what every partition must
    reproduce."""
    module = copy.deepcopy(module)
    torch.manual_seed(seed)
    loss = module(*inputs)
    loss.backward()
    return loss.detach(), [p.grad for p in module.parameters() if p.requires_grad]


def _compare(result, reference):
    """(loss verdict, gradients verdict): "equal" (bit for bit), "≈ rel X"
    (within TOLERANCE) or "MISMATCH rel X"; X is the relative difference
    (normwise, the worst parameter for gradients)."""
    def verdict(equal, relative):
        if equal:
            return "equal", 0.0
        word = "≈" if relative <= TOLERANCE else "MISMATCH"
        return f"{word} rel {relative:.1e}", relative

    def relative(a, b):
        return float((a - b).norm() / b.norm().clamp_min(1e-30))

    loss, grads = result
    ref_loss, ref_grads = reference
    loss_verdict = verdict(torch.equal(loss, ref_loss), relative(loss, ref_loss))
    pairs = list(zip(grads, ref_grads))
    if any((g is None) != (r is None) for g, r in pairs):
        return loss_verdict, ("MISMATCH (a gradient is missing)", float("inf"))
    pairs = [(g, r) for g, r in pairs if g is not None]
    grads_verdict = verdict(all(torch.equal(g, r) for g, r in pairs),
                            max((relative(g, r) for g, r in pairs), default=0.0))
    return loss_verdict, grads_verdict


def _profiled_peak(step, inputs):
    """Peak live bytes above the step's start, up to the end of backward,
    from the profiler's allocation and free events."""
    gc.collect()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(*inputs)
    memory, backward_end = [], None
    for event in prof.profiler.kineto_results.events():
        start, end = event_times_ns(event)
        if event.name() == "[memory]":
            memory.append((start, event.nbytes()))
        elif event.name().startswith("autograd::engine::evaluate_function"):
            backward_end = end if backward_end is None else max(backward_end, end)
    if backward_end is None:
        raise RuntimeError("the profiler recorded no backward pass")
    memory.sort(key=lambda m: m[0])  # stable: ties keep the recorded order
    live = peak = 0
    for start, nbytes in memory:
        if start > backward_end:
            break
        live += nbytes
        peak = max(peak, live)
    return peak


def _one_line(error):
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


class _Run:
    """One configuration of one model: compiled once, checked, profiled,
    then timed alongside the others."""

    def __init__(self, config):
        self.config = config
        self.step = None
        self.inputs = None
        self.seed = None
        self.times = []
        self.info = None
        self.row = {"configuration": config.label,
                    "partitioner": config.partitioner,
                    "torch_activation_memory_budget": config.torch_budget,
                    "torch_activation_memory_budget_solver":
                        config.torch_solver,
                    "remat_options": dict(config.remat_options),
                    "budget_for": config.budget_for, "status": "ok"}

    def prepare(self, module, inputs, seed, reference):
        """Compiles a copy of `module`, checks its first step against
        `reference`, records what the forward saves and profiles one step.
        A failure is recorded in the row (status and message)."""
        self.inputs, self.seed = inputs, seed
        module = copy.deepcopy(module)
        infos = []
        if self.config.partitioner == "pytorch":
            partition_fn = _pytorch_partition(self.config.torch_budget,
                                              self.config.torch_solver)
        else:
            partition_fn = _remat_partition(self.config.remat_options,
                                            infos.append)
        probe = _SavedProbe(partition_fn, {storage_of(t)[0] for t in
                                           _resident_tensors(module, inputs)})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            start = time.perf_counter()
            try:
                step = compile_step(module, probe)
                result = step(*inputs, seed=seed)
            except RematPartitionError as error:
                smallest = error.smallest_peak_bytes
                self.row["status"] = "infeasible" if smallest else "failed"
                self.row["message"] = str(error).splitlines()[0]
                self.row["smallest_peak_bytes"] = smallest
                return
            except ImportError:  # remat's extension: no configuration can run
                raise
            except Exception as error:  # reported in the table, not raised
                self.row["status"] = "failed"
                self.row["message"] = _one_line(error)
                return
            self.row["first_step_s"] = time.perf_counter() - start
        self.row["warnings"] = sorted({str(w.message).splitlines()[0]
                                       for w in caught})
        (self.row["loss"], loss_rel), (self.row["grads"], grads_rel) = \
            _compare(result, reference)
        self.row["loss_value"] = float(result[0])
        self.row["loss_relative_difference"] = loss_rel
        self.row["grads_relative_difference"] = grads_rel
        del result
        probe.record = True
        step(*inputs, seed=seed)
        probe.record = False
        self.row["saved_tensors"] = probe.saved_tensors
        self.row["saved_bytes"] = sum(probe.saved_storages.values())
        self.row["peak_bytes"] = _profiled_peak(
            functools.partial(step, seed=seed), inputs)
        self.step = step
        if infos:
            self.info = infos[0]
            report = self.info.report
            self.row.update({
                "remat_predicted_peak_bytes": report.peak_memory_bytes,
                "remat_predicted_saved_bytes": report.saved_bytes,
                "remat_predicted_time_us": report.predicted_total_time_us,
                "remat_predicted_recompute_time_us":
                    report.predicted_recompute_time_us,
                "remat_budget_bytes": report.budget_bytes,
                "saved_values": len(self.info.saved),
                "recomputed": len(self.info.recomputed),
                "derived": len(self.info.derived),
                "adjustments": list(self.info.adjustments),
            })

    def time_one_step(self):
        gc.collect()
        start = time.perf_counter()
        self.step(*self.inputs, seed=self.seed)
        self.times.append(time.perf_counter() - start)

    def finish(self, warmup):
        """Median step time and, for remat's plans, prediction errors."""
        if self.step is None:
            return self.row
        timed = self.times[warmup:]
        self.row["step_ms_all"] = [1e3 * t for t in timed]
        self.row["step_ms"] = 1e3 * statistics.median(timed)
        if self.info is not None:
            peak, step_us = self.row["peak_bytes"], 1e3 * self.row["step_ms"]
            predicted_peak = self.row["remat_predicted_peak_bytes"]
            predicted_us = self.row["remat_predicted_time_us"]
            self.row["peak_error"] = (abs(predicted_peak - peak) / peak
                                      if peak else None)
            self.row["time_error"] = abs(predicted_us - step_us) / step_us
        self.step = None  # frees the compiled graphs
        return self.row


def _remat_budget_configs(torch_runs, remat_min_cut):
    """remat `budget` configurations at the PyTorch configurations' measured
    peaks, mapped through remat's min-cut run (see the module docstring);
    PyTorch configurations that reach the same peak share one. PyTorch's
    budget solvers may recompute matmuls, so remat's may too when no plan
    inside the automatic bans fits (recompute_banned="allow")."""
    offset = remat_min_cut["remat_predicted_peak_bytes"] - \
        remat_min_cut["peak_bytes"]
    by_budget = {}
    for torch_run in torch_runs:
        if torch_run.row["status"] == "ok":
            budget = torch_run.row["peak_bytes"] + offset
            by_budget.setdefault(budget, []).append(torch_run.config.label)
    configs = []
    for budget, labels in by_budget.items():
        points = ", ".join(labels)
        configs.append(Config(f"remat budget {budget / MIB:.2f} MiB (@ {points})",
                              "remat", budget_for=points,
                              remat_options={"strategy": "budget",
                                             "memory_budget":
                                                 f"activations:{budget}",
                                             "recompute_banned": "allow"}))
    return configs


def measure_model(name, sizes, factory, torch_budgets, repeats, warmup, seed,
                  log, exchange_rates=(), torch_solvers=(DEFAULT_SOLVER,),
                  workspace="profile", op_times=None):
    """Measures every configuration of one model; returns its JSON record.
    remat's configurations plan with `workspace` and `op_times`
    (remat_torch.partition's options: "profile" states each kernel's
    measured scratch, or time)."""
    torch.manual_seed(seed)
    module, inputs = MODELS[factory](**sizes)
    module.train()
    reference = _eager_reference(module, inputs, seed)
    record = {
        "model": name, "factory": factory, "sizes": sizes,
        "parameter_bytes": _storage_bytes(module.parameters()),
        "buffer_bytes": _storage_bytes(module.buffers()),
        "input_bytes": _storage_bytes(x for x in inputs
                                      if isinstance(x, torch.Tensor)),
        "resident_bytes": _storage_bytes(_resident_tensors(module, inputs)),
        "reference_loss": float(reference[0]),
    }
    runs = []

    def measure(config):
        log(f"{name}: {config.label}")
        if config.partitioner == "remat":
            profiles = {"workspace": workspace, "op_times": op_times}
            config.remat_options = dict(
                config.remat_options,
                **{k: v for k, v in profiles.items() if v is not None})
        runs.append(_Run(config))
        row = runs[-1].row
        budget = config.remat_options.get("memory_budget", "activations:1")
        if int(budget.split(":")[-1]) <= 0:
            row.update(status="infeasible", message="the mapped budget, "
                       f"{budget.split(':')[-1]} bytes, is not positive")
        else:
            runs[-1].prepare(module, inputs, seed, reference)
        if row["status"] != "ok":
            log(f"{name}: {config.label}: {row['status']}: {row['message']}")

    measure(Config("pytorch min-cut", "pytorch"))
    for budget in torch_budgets:
        for solver in torch_solvers:
            # PyTorch's default solver keeps the plain label.
            suffix = "" if solver == DEFAULT_SOLVER else f" ({solver})"
            measure(Config(f"pytorch budget {budget:g}{suffix}", "pytorch",
                           torch_budget=budget, torch_solver=solver))
    torch_runs = list(runs)
    measure(Config("remat min-cut", "remat",
                   remat_options={"strategy": "min-cut"}))
    remat_min_cut = runs[-1].row
    # The other end of min-cut's curve: bytes alone (exchange rate 0), the
    # objective of PyTorch's partitioner.
    measure(Config("remat min-cut, bytes only", "remat",
                   remat_options={"strategy": "min-cut", "exchange_rate": 0}))
    for rate in exchange_rates:
        measure(Config(f"remat min-cut, rate {rate:g}", "remat",
                       remat_options={"strategy": "min-cut",
                                      "exchange_rate": rate}))
    if remat_min_cut["status"] == "ok":
        for config in _remat_budget_configs(torch_runs, remat_min_cut):
            measure(config)

    timed = [r for r in runs if r.step is not None]
    log(f"{name}: timing {len(timed)} configurations, {warmup} + {repeats} "
        "steps each, in turns")
    for _ in range(warmup + repeats):
        for r in timed:
            r.time_one_step()
    record["configurations"] = [r.finish(warmup) for r in runs]
    return record


def _mib(nbytes):
    return "—" if nbytes is None else f"{nbytes / MIB:.2f}"


def _percent(fraction):
    return "—" if fraction is None else f"{100 * fraction:.0f}%"


def markdown(results):
    """The tables (one per model) and the notes under them."""
    threads = results["threads"]
    lines = [f"PyTorch {results['torch_version']}, {threads} "
             f"thread{'s' if threads != 1 else ''}; {results['cpu']}, nproc "
             f"{results['nproc']}; load "
             f"average {results['load_average_start']} at start, "
             f"{results['load_average_end']} at end; {results['repeats']} "
             f"timed steps after {results['warmup']} warm-up per "
             f"configuration; {results['wall_s']:.0f} s in all." +
             (" remat's op times profiled here before planning "
              "(`--op-times profile`)."
              if results.get("op_times") == "profile" else ""), ""]
    for model in results["models"]:
        sizes = ", ".join(f"{k}={v}" for k, v in model["sizes"].items())
        lines.append(f"#### {model['model']} ({sizes or 'default sizes'})")
        lines.append("")
        lines.append(
            f"Parameters {_mib(model['parameter_bytes'])} MiB (their "
            f"gradients as much again), buffers {_mib(model['buffer_bytes'])} "
            f"MiB, inputs {_mib(model['input_bytes'])} MiB; reference loss "
            f"{model['reference_loss']:.6g}.")
        lines.append("")
        lines.append("| configuration | saved MiB | peak MiB | resident MiB | "
                     "step ms | remat peak MiB | remat ms | peak error | "
                     "time error | loss | grads |")
        lines.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
                     "---: | --- | --- |")
        notes = []
        for row in model["configurations"]:
            if row["status"] != "ok":
                lines.append(f"| {row['configuration']} | {row['status']} | "
                             + " | ".join(["—"] * 9) + " |")
                smallest = row.get("smallest_peak_bytes")
                notes.append((row["configuration"], (
                    f"infeasible; the smallest peak remat's budget strategy "
                    f"reaches is {_mib(smallest)} MiB" if smallest else
                    _shortened(row["message"]))))
                continue
            remat_ms = row.get("remat_predicted_time_us")
            lines.append("| %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s |" % (
                row["configuration"], _mib(row["saved_bytes"]),
                _mib(row["peak_bytes"]), _mib(model["resident_bytes"]),
                row["step_ms"], _mib(row.get("remat_predicted_peak_bytes")),
                "—" if remat_ms is None else f"{remat_ms / 1e3:.1f}",
                _percent(row.get("peak_error")), _percent(row.get("time_error")),
                row["loss"], row["grads"]))
            for warning in row.get("warnings", []):
                notes.append((row["configuration"], f"warning: {warning}"))
            adjustments = row.get("adjustments")
            if adjustments:
                notes.append((row["configuration"],
                              f"{len(adjustments)} plan decisions realised "
                              f"otherwise, e.g. {adjustments[0]}"))
        lines.append("")
        for note in _grouped(notes):
            lines.append(f"- {note}")
        if notes:
            lines.append("")
    while not lines[-1]:
        lines.pop()
    lines.extend(_correctness_summary(results))
    return "\n".join(lines).rstrip() + "\n"


def _shortened(message):
    """A failure message up to PyTorch's "Hint:" (the JSON keeps it all)."""
    return message.split(" Hint:")[0]


def _grouped(notes):
    """"a, b: text" lines from (configuration, text) notes, configurations
    with the same text together, in first-seen order."""
    by_text = {}
    for configuration, text in notes:
        by_text.setdefault(text, []).append(configuration)
    return [f"{', '.join(configurations)}: {text}"
            for text, configurations in by_text.items()]


def _correctness_summary(results):
    """Two lines: how many configurations reproduced the eager loss, and
    the gradients (per partitioner, naming those that did not)."""
    ran = [(model["model"], row) for model in results["models"]
           for row in model["configurations"] if row["status"] == "ok"]
    losses = sum(not row["loss"].startswith("MISMATCH") for _, row in ran)
    parts, wrong = [], []
    for partitioner, name in (("remat", "remat"), ("pytorch", "PyTorch")):
        rows = [(m, r) for m, r in ran if r["partitioner"] == partitioner]
        good = sum(not r["grads"].startswith("MISMATCH") for _, r in rows)
        parts.append(f"{name} {good} of {len(rows)}")
        wrong += [f"{m} {r['configuration']}" for m, r in rows
                  if r["grads"].startswith("MISMATCH")]
    return ["", f"Loss equal to the eager reference: {losses} of {len(ran)} "
                "configurations that ran.",
            f"Gradients equal to the eager reference (bit for bit, or within "
            f"a relative {TOLERANCE:g}): {', '.join(parts)}" +
            (f"; MISMATCH: {', '.join(wrong)}." if wrong else ".")]


def plot(model, torch_version, directory):
    """Measured peak (x) against median step time (y, the bar spans the
    fastest and slowest timed step) of every configuration that ran, both
    partitioners' points numbered and named beside the axes; returns the
    PNG's path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(9, 4.8))
    styles = {"pytorch": ("o", "tab:blue", "PyTorch"),
              "remat": ("s", "tab:orange", "remat")}
    labels = []  # (x, y, text, color)
    for partitioner, (marker, color, legend) in styles.items():
        rows = [r for r in model["configurations"]
                if r["partitioner"] == partitioner and r["status"] == "ok"]
        if not rows:
            continue
        x = [r["peak_bytes"] / MIB for r in rows]
        y = [r["step_ms"] for r in rows]
        spread = [[r["step_ms"] - min(r["step_ms_all"]) for r in rows],
                  [max(r["step_ms_all"]) - r["step_ms"] for r in rows]]
        axes.errorbar(x, y, yerr=spread, fmt=marker, color=color,
                      label=legend, capsize=3, zorder=3)
        for r, px, py in zip(rows, x, y):
            if r.get("budget_for"):
                text = "remat budget @ " + r["budget_for"].replace(
                    "pytorch", "PyTorch")
            else:
                text = f"{legend} {r['configuration'].split(' ', 1)[1]}"
            if "MISMATCH" in r["grads"] or "MISMATCH" in r["loss"]:
                text += " (wrong gradients)"
            labels.append((px, py, text, color))
    # Points carry numbers (points close together share one), the labels
    # are listed beside the axes: long labels would overlap each other.
    xs, ys = [l[0] for l in labels], [l[1] for l in labels]
    near_x = 0.02 * (max(xs, default=0) - min(xs, default=0) or 1.0)
    near_y = 0.03 * (max(ys, default=0) - min(ys, default=0) or 1.0)
    groups = []  # [x, y, [numbers]]
    for number, (px, py, text, color) in enumerate(labels, 1):
        group = next((g for g in groups if abs(g[0] - px) < near_x and
                      abs(g[1] - py) < near_y), None)
        if group is None:
            groups.append([px, py, [number]])
        else:
            group[2].append(number)
        axes.text(1.03, 1 - 0.06 * (number - 1), f"{number}  {text}",
                  transform=axes.transAxes, fontsize=7, color=color,
                  va="top")
    for px, py, numbers in groups:
        axes.annotate(",".join(map(str, numbers)), (px, py),
                      textcoords="offset points", xytext=(5, 3), fontsize=7)
    sizes = ", ".join(f"{k}={v}" for k, v in model["sizes"].items())
    figure.suptitle(f"{model['model']} ({sizes or 'default sizes'}), "
                    f"PyTorch {torch_version}", fontsize=9)
    axes.set_xlabel("measured peak above resident (MiB)")
    axes.set_ylabel("median step time (ms)")
    axes.margins(x=0.1, y=0.1)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout(rect=(0, 0, 0.68, 1))
    path = os.path.join(directory, f"measure-{model['model']}-torch"
                                   f"{_torch_major()}.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def _budgets(text):
    try:
        budgets = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"'{text}': expected fractions separated by commas, e.g. 0.75,0.5")
    if any(not 0.0 <= b <= 1.0 for b in budgets):
        raise argparse.ArgumentTypeError(f"'{text}': each budget must be in [0, 1]")
    return budgets


def _solvers(text):
    solvers = [x.strip() for x in text.split(",") if x.strip()]
    unknown = [x for x in solvers if x not in SOLVERS]
    if unknown or not solvers:
        raise argparse.ArgumentTypeError(
            f"'{text}': expected solvers separated by commas, from "
            f"{', '.join(SOLVERS)}")
    return solvers


def _rates(text):
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        rates = [-1.0]
    if any(not (r >= 0 and r != float("inf")) for r in rates):
        raise argparse.ArgumentTypeError(
            f"'{text}': expected non-negative bytes per us separated by "
            "commas, e.g. 76800,1228800")
    return rates


def _count(minimum):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"'{text}': expected an integer >= {minimum}")
        return value
    return parse


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m remat_torch.measure",
        description="Measure real training steps (saved bytes, peak memory, "
                    "step time, remat's predictions) under PyTorch's "
                    "partitioner and remat's.")
    parser.add_argument("--models", default=",".join(MEASURED),
                        help="comma-separated: " + ", ".join(MEASURED) +
                             " (measured sizes), or any other built-in model "
                             "at its default sizes (default: all measured)")
    parser.add_argument("--json", help="write the raw numbers here")
    parser.add_argument("--markdown", help="write the tables here (they are "
                                           "printed in any case)")
    parser.add_argument("--plots", metavar="DIR",
                        help="write measure-<model>-torch<major>.png here")
    parser.add_argument("--repeats", type=_count(1),
                        help="timed steps per configuration (default 7; 5 "
                             "with --quick)")
    parser.add_argument("--warmup", type=_count(0), default=2,
                        help="untimed steps first (default 2)")
    parser.add_argument("--torch-budgets", type=_budgets,
                        help="PyTorch 2.x activation_memory_budget values "
                             "(default 0.75,0.5,0.25; 0.5 with --quick; "
                             "ignored on 1.x, which has no such option)")
    parser.add_argument("--torch-solvers", type=_solvers,
                        default=[DEFAULT_SOLVER],
                        help="PyTorch 2.x activation_memory_budget_solver "
                             "values, each run at every --torch-budgets value "
                             "(default dp, PyTorch's; also greedy, ilp)")
    parser.add_argument("--exchange-rates", type=_rates, default=[],
                        help="also remat's min-cut at these exchange rates "
                             "(bytes per us of replay time), beside the "
                             "target's rate and 0")
    parser.add_argument("--threads", type=_count(1), default=1,
                        help="torch.set_num_threads (default 1: PyTorch's own "
                             "default differs between builds, and a "
                             "multi-threaded step on a shared machine is "
                             "timed mostly by the other load)")
    parser.add_argument("--workspace", choices=("profile", "none"),
                        default="profile",
                        help="remat's plans state kernel workspace profiled "
                             "before planning (remat_torch.partition's "
                             "workspace='profile', the default) or none")
    parser.add_argument("--op-times", choices=("model", "profile"),
                        default="model",
                        help="remat's plans weigh op times from the target's "
                             "roofline (the default) or profiled here before "
                             "planning (remat_torch.partition's "
                             "op_times='profile'), which also makes the "
                             "predicted step these eager kernels' sum")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes: a smoke test")
    args = parser.parse_args(argv)

    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MEASURED and n not in MODELS]
    if unknown or not names:
        parser.error(f"unknown model(s) {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(MEASURED)} or "
                     f"{', '.join(n for n in MODELS if n not in MEASURED)}")
    repeats = args.repeats or (5 if args.quick else 7)
    budgets = args.torch_budgets
    if budgets is None:
        budgets = [0.5] if args.quick else [0.75, 0.5, 0.25]
    if _torch_major() < 2:
        budgets = []
    if args.plots and not os.path.isdir(args.plots):
        parser.error(f"--plots {args.plots}: no such directory")
    check_output_folders(parser, ("--json", args.json),
                         ("--markdown", args.markdown))
    if args.plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            parser.error("--plots needs matplotlib, which this interpreter "
                         "cannot import (Debian: apt install python3-matplotlib)")

    torch.set_num_threads(args.threads)

    def log(message):
        print(f"measure: {message}", file=sys.stderr, flush=True)

    start = time.perf_counter()
    results = {"torch_version": torch.__version__,
               "threads": torch.get_num_threads(), "cpu": cpu_model(),
               "nproc": os.cpu_count(), "load_average_start": load_average(),
               "repeats": repeats, "warmup": args.warmup, "seed": args.seed,
               "torch_budgets": budgets, "torch_solvers": args.torch_solvers,
               "exchange_rates": args.exchange_rates,
               "workspace": args.workspace, "op_times": args.op_times,
               "quick": args.quick, "models": []}
    for name in names:
        factory, sizes, quick_sizes = MEASURED.get(name, (name, {}, {}))
        sizes = dict(quick_sizes if args.quick else sizes)
        try:
            results["models"].append(measure_model(
                name, sizes, factory, budgets, repeats, args.warmup, args.seed,
                log, args.exchange_rates, args.torch_solvers,
                None if args.workspace == "none" else args.workspace,
                "profile" if args.op_times == "profile" else None))
        except ImportError as error:  # remat's extension is not built
            raise UserError(str(error)) from error
    results["load_average_end"] = load_average()
    results["wall_s"] = time.perf_counter() - start

    table = markdown(results)
    sys.stdout.write(table)
    if args.markdown:
        write_output(args.markdown, table)
    if args.json:
        write_output(args.json, json.dumps(results, indent=1))
    if args.plots:
        for model in results["models"]:
            log(f"plot: {plot(model, torch.__version__, args.plots)}")
    return 0


if __name__ == "__main__":
    sys.exit(run("python -m remat_torch.measure", main))
