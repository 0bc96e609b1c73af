"""Where a measured training-step peak goes, against remat's predicted peak.

    PYTHONPATH=python REMAT_BUILD_DIR=build .venv/bin/python \\
        -m remat_torch.attribute --models mobilenet_v2,llama

For each model (the sizes of `remat_torch.measure`) this compiles one
training step with remat's plan (`--strategy`, default min-cut, planned for
the `cpu` target as `measure` does), runs the forward and backward FX graphs
node by node (a `torch.fx.Interpreter`, which frees each value after its
last use as the generated code does, each node inside a profiler
`record_function`), profiles one step with the allocator's events, as
`measure` does, and classifies every allocation live at the measured peak:

- `graph, live`: the storage of an FX node's result, still to be read (or a
  function result: the loss, a gradient), what remat's simulator counts;
- `graph, held past last read`: an FX node's result that no node reads any
  more but something still holds (split by who: the backward's argument
  list holds every saved value until the backward graph returns);
- `kernel scratch`: allocated inside the node running at the peak and not
  one of its results (a kernel's workspace);
- `graph, not a result`: allocated inside an earlier node, not one of its
  results, still live;
- `outside the graphs`: allocated by the autograd engine or AOTAutograd's
  runtime (named by the innermost operator that allocated it), e.g. the
  tangent of the loss;
- `freed pre-step storage` (negative): storage that existed before the
  step and was freed during it.

The buckets sum to the measured peak (above the step's start, up to the
end of backward, as in `measure`). Beside them: remat's predicted peak and
`graph model peak`, the largest sum over the executed nodes of the graph
values live by the simulator's rule (produced, and not yet past their last
read; function results to the end; parameters, inputs and tangents not),
with the runtime's own storage sizes and views. A difference between the
predicted peak and the graph model peak is the planner's modelling of the
same program (its value sizes, views, or an order other than the one
executed); the buckets other than `graph, live` are what the runtime holds
that the program's values do not explain.
"""

import argparse
import copy
import gc
import json
import os
import sys

os.environ.setdefault("KINETO_LOG_LEVEL", "5")

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402

from remat_torch.cli import run  # noqa: E402
from remat_torch.measure import MEASURED, MIB, _remat_partition  # noqa: E402
from remat_torch.models import MODELS  # noqa: E402
from remat_torch.training import compile_step  # noqa: E402
from remat_torch.workspace import storage_of  # noqa: E402

TAG = "remat_node:"
BUCKETS = ("graph, live", "graph, held past last read", "kernel scratch",
           "graph, not a result", "outside the graphs",
           "freed pre-step storage")


def _tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _storages(value):
    """[(pointer, bytes)] of the storages under the tensors in `value`."""
    return [storage for storage in map(storage_of, _tensors(value))
            if storage[1]]


class _Recorder:
    """What the graphs did on the recorded step: per executed node (in
    order) its phase, name, target, the storages it read and returned."""

    def __init__(self):
        self.on = False
        self.nodes = []  # dicts, in execution order
        self.placeholders = {}  # (phase, name) -> storages
        self.outputs = {}  # phase -> storages of the graph's results


class _Tracing(torch.fx.Interpreter):
    def __init__(self, module, phase, recorder):
        super().__init__(module)
        self.phase, self.recorder = phase, recorder

    def run_node(self, n):
        recorder = self.recorder
        if not recorder.on:
            return super().run_node(n)
        if n.op == "output":
            args, _ = self.fetch_args_kwargs_from_env(n)
            recorder.outputs[self.phase] = _storages(args)
            return super().run_node(n)
        args, kwargs = self.fetch_args_kwargs_from_env(n)
        reads = _storages((args, kwargs))
        del args, kwargs
        label = f"{TAG}{self.phase}:{n.name}"
        with record_function(label):
            result = super().run_node(n)
        recorder.nodes.append({"label": label, "phase": self.phase,
                               "name": n.name, "target": str(n.target),
                               "reads": reads, "results": _storages(result)})
        return result


def _compile_step(module, partition_fn, recorder, hold_arguments=False):
    """`training.compile_step` with forward and backward run by `_Tracing`,
    under the calling convention of `capture._boxed`: the argument list is
    cleared once read, so that each argument is freed after its last use
    (`hold_arguments`: kept until the graph returns, as
    `make_boxed_func(gm.forward)` does, and `_boxed` did before)."""

    def compiler(phase):
        def compile_graph(gm, _inputs):
            interpreter = _Tracing(gm, phase, recorder)
            placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
            # A node nobody reads: the generated code drops its result at
            # once, Interpreter would keep it to the end.
            for n in gm.graph.nodes:
                if not n.users and n.op not in ("placeholder", "output"):
                    interpreter.user_to_last_uses.setdefault(n, []).append(n)

            def run_graph(args):
                env = dict(zip(placeholders, args))
                if recorder.on:
                    for node, value in env.items():
                        recorder.placeholders[(phase, node.name)] = \
                            _storages(value)
                if not hold_arguments:
                    args.clear()
                try:
                    return interpreter.run(initial_env=env)
                finally:
                    # Interpreter keeps its environment (the output node's
                    # value: the results) after run; the generated code
                    # holds nothing once it returns.
                    interpreter.env = {}
                    del env
            run_graph._boxed_call = True
            return run_graph
        return compile_graph

    return compile_step(module, partition_fn, compiler)


def _walk(events):
    stack = list(events)
    while stack:
        event = stack.pop()
        yield event
        stack.extend(event.children)


def _context(event):
    """(the FX node label enclosing `event` or None, the innermost named
    operator above it)."""
    node, innermost = None, None
    parent = event.parent
    while parent is not None:
        if innermost is None and parent.name:
            innermost = parent.name
        if parent.name.startswith(TAG):
            node = parent.name
            break
        parent = parent.parent
    return node, innermost


def attribute_step(step, inputs, recorder, predicted_peak):
    """Runs and profiles one step; returns the attribution record."""
    gc.collect()
    recorder.nodes, recorder.placeholders, recorder.outputs = [], {}, {}
    recorder.on = True
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        step(*inputs)
    recorder.on = False
    tree = prof.profiler.kineto_results.experimental_event_tree()
    events = list(_walk(tree))
    backward_end = max(e.end_time_ns for e in events if e.name.startswith(
        "autograd::engine::evaluate_function"))
    spans = {e.name: (e.start_time_ns, e.end_time_ns) for e in events
             if e.name.startswith(TAG)}
    allocations = sorted((e for e in events if type(e.extra_fields).__name__
                          == "_ExtraFields_Allocation"),
                         key=lambda e: e.start_time_ns)

    # Allocation records: pointer, bytes, times, allocating node / operator.
    live, records = {}, []
    for event in allocations:
        fields = event.extra_fields
        if fields.alloc_size > 0:
            node, op = _context(event)
            record = {"ptr": fields.ptr, "bytes": fields.alloc_size,
                      "alloc": event.start_time_ns, "free": None,
                      "node": node, "op": op}
            live[fields.ptr] = record
            records.append(record)
        else:
            record = live.pop(fields.ptr, None)
            if record is None:  # allocated before the step
                records.append({"ptr": fields.ptr, "bytes": fields.alloc_size,
                                "alloc": event.start_time_ns, "free": None,
                                "node": None, "op": "pre-step storage"})
            else:
                record["free"] = event.start_time_ns

    # The measured peak, as measure._profiled_peak counts it.
    timeline = []
    for record in records:
        timeline.append((record["alloc"], record["bytes"]))
        if record["free"] is not None and record["bytes"] > 0:
            timeline.append((record["free"], -record["bytes"]))
    timeline.sort(key=lambda t: t[0])
    total = peak = 0
    peak_time = None
    for time, nbytes in timeline:
        if time > backward_end:
            break
        total += nbytes
        if total > peak:
            peak, peak_time = total, time

    # Executed nodes with their spans, and which allocation each storage of
    # theirs is (the one live at that pointer when the node ran).
    order = []
    for index, node in enumerate(recorder.nodes):
        start, end = spans[node["label"]]
        order.append(dict(node, index=index, start=start, end=end))
    by_ptr = {}
    for record in records:
        if record["bytes"] > 0:
            by_ptr.setdefault(record["ptr"], []).append(record)

    def allocation_at(ptr, time):
        for record in reversed(by_ptr.get(ptr, [])):
            if record["alloc"] <= time and (record["free"] is None or
                                            record["free"] >= time):
                return record
        return None

    label_index = {n["label"]: n["index"] for n in order}
    for node in order:
        for ptr, _ in node["results"]:
            record = allocation_at(ptr, node["end"])
            if record is not None and record["node"] == node["label"]:
                record["result_of"] = node["index"]
        for ptr, _ in node["reads"]:
            record = allocation_at(ptr, node["start"])
            if record is not None:
                record["last_read"] = max(record.get("last_read", -1),
                                          node["index"])
    function_results = set()
    for phase, storages in recorder.outputs.items():
        end = max(n["end"] for n in order if n["phase"] == phase)
        for ptr, _ in storages:
            record = allocation_at(ptr, end)
            if record is not None:
                # The forward's results are the loss and the saved values;
                # a saved value is read in backward (last_read), the loss
                # and the gradients live to the end.
                if phase == "bw":
                    function_results.add(id(record))
    loss_ptrs = set()
    if "fw" in recorder.outputs and recorder.outputs["fw"]:
        loss_ptrs.add(recorder.outputs["fw"][0][0])
    for record in records:
        if record.get("result_of") is not None and \
                order[record["result_of"]]["phase"] == "fw" and \
                record["ptr"] in loss_ptrs and "last_read" not in record:
            function_results.add(id(record))

    # The node running at the peak (or the last one started before it).
    running = None
    for node in order:
        if node["start"] <= peak_time:
            running = node
    at_peak = running["index"] if running else -1
    running_at_peak = running is not None and running["end"] >= peak_time

    buckets = {name: 0 for name in BUCKETS}
    detail = {name: {} for name in BUCKETS}
    for record in records:
        if record["alloc"] > peak_time or (record["free"] is not None and
                                           record["free"] <= peak_time):
            continue
        nbytes = record["bytes"]
        if nbytes < 0:
            bucket, what = "freed pre-step storage", "pre-step storage"
        elif record.get("result_of") is not None:
            node = order[record["result_of"]]
            what = f"{node['phase']} {node['target']}"
            if id(record) in function_results or \
                    record.get("last_read", -1) >= at_peak or \
                    record["result_of"] == at_peak:
                bucket = "graph, live"
            else:
                bucket = "graph, held past last read"
                last = order[record["last_read"]] if "last_read" in record \
                    else None
                what = ("saved, last read in backward" if last is not None and
                        last["phase"] == "bw" and node["phase"] == "fw" else
                        "forward value, last read in forward"
                        if node["phase"] == "fw" else "backward value")
        elif record["node"] is not None:
            index = label_index[record["node"]]
            node = order[index]
            what = f"{node['phase']} {node['target']}"
            bucket = ("kernel scratch" if index == at_peak and running_at_peak
                      else "graph, not a result")
        else:
            bucket, what = "outside the graphs", record["op"] or "?"
        buckets[bucket] += nbytes
        detail[bucket][what] = detail[bucket].get(what, 0) + nbytes

    # The graph model: values live by the simulator's rule, per node.
    graph_values = [r for r in records if r.get("result_of") is not None]
    model_peak, model_peak_node = 0, None
    for node in order:
        i = node["index"]
        live_bytes = sum(
            r["bytes"] for r in graph_values if r["result_of"] <= i and (
                id(r) in function_results or r.get("last_read", -1) >= i or
                r["result_of"] == i))
        if live_bytes > model_peak:
            model_peak, model_peak_node = live_bytes, node
    live_at_peak_by_rule = buckets["graph, live"]
    return {
        "measured_peak_bytes": peak,
        "measured_peak_node": None if running is None else
            f"{running['phase']} {running['name']} ({running['target']})"
            + ("" if running_at_peak else ", after it"),
        "predicted_peak_bytes": predicted_peak,
        "graph_model_peak_bytes": model_peak,
        "graph_model_peak_node": None if model_peak_node is None else
            f"{model_peak_node['phase']} {model_peak_node['name']} "
            f"({model_peak_node['target']})",
        "graph_live_at_measured_peak_bytes": live_at_peak_by_rule,
        "buckets": buckets,
        "detail": {k: dict(sorted(v.items(), key=lambda kv: -kv[1]))
                   for k, v in detail.items() if v},
        "nodes_executed": len(order),
    }


def attribute_model(name, options, seed=0, hold_arguments=False,
                    quick=False):
    factory, sizes, quick_sizes = MEASURED.get(name, (name, {}, {}))
    sizes = dict(quick_sizes if quick else sizes)
    torch.manual_seed(seed)
    module, inputs = MODELS[factory](**sizes)
    module.train()
    module = copy.deepcopy(module)
    infos, recorder = [], _Recorder()
    step = _compile_step(module, _remat_partition(options, infos.append),
                         recorder, hold_arguments)
    step(*inputs, seed=seed)  # compiles forward and backward
    record = attribute_step(lambda *a: step(*a, seed=seed), inputs, recorder,
                            infos[0].report.peak_memory_bytes)
    record.update(model=name, sizes=sizes, options=options,
                  hold_arguments=hold_arguments)
    return record


def markdown(records):
    lines = ["| model | measured peak | predicted | graph model peak | "
             + " | ".join(BUCKETS) + " |",
             "| --- | ---: | ---: | ---: | " + " | ".join(["---:"] * len(BUCKETS))
             + " |"]
    for r in records:
        lines.append(f"| {r['model']} | {r['measured_peak_bytes'] / MIB:.2f} | "
                     f"{r['predicted_peak_bytes'] / MIB:.2f} | "
                     f"{r['graph_model_peak_bytes'] / MIB:.2f} | " +
                     " | ".join(f"{r['buckets'][b] / MIB:.2f}" for b in BUCKETS)
                     + " |")
    lines.append("")
    lines.append("MiB. Measured peak at:")
    for r in records:
        lines.append(f"- {r['model']}: {r['measured_peak_node']}; graph model "
                     f"peak at {r['graph_model_peak_node']}")
        for bucket, items in r["detail"].items():
            top = ", ".join(f"{k} {v / MIB:.2f}" for k, v in
                            list(items.items())[:4])
            lines.append(f"  - {bucket}: {top}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m remat_torch.attribute",
        description="Attribute the measured peak of one training step under "
                    "remat's plan to graph values, runtime holds, kernel "
                    "scratch and the autograd runtime.")
    parser.add_argument("--models", default="mobilenet_v2,llama",
                        help="comma-separated, from: " + ", ".join(MEASURED)
                             + " (default: mobilenet_v2,llama)")
    parser.add_argument("--strategy", default="min-cut")
    parser.add_argument("--exchange-rate", type=float,
                        help="min-cut's exchange rate (default: the target's)")
    parser.add_argument("--hold-arguments", action="store_true",
                        help="run the graphs with the calling convention "
                             "remat_torch used before (the argument list held "
                             "until the graph returns, as make_boxed_func "
                             "does) instead of capture._boxed's")
    parser.add_argument("--json", help="write the records here")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true",
                        help="the models' tiny default sizes (a smoke test)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    options = {"strategy": args.strategy}
    if args.exchange_rate is not None:
        options["exchange_rate"] = args.exchange_rate
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    unknown = [n for n in names if n not in MEASURED and n not in MODELS]
    if unknown or not names:
        parser.error(f"unknown model(s) {', '.join(unknown) or '(none given)'}; "
                     f"choose from {', '.join(MEASURED)} or "
                     f"{', '.join(n for n in MODELS if n not in MEASURED)}")
    records = []
    for name in names:
        print(f"attribute: {name}", file=sys.stderr, flush=True)
        records.append(attribute_model(name, options, args.seed,
                                       args.hold_arguments, args.quick))
    sys.stdout.write(markdown(records))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(records, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(run("python -m remat_torch.attribute", main))
