"""How long a whole partition call takes: PyTorch's min-cut partitioner
against `remat_torch.partition`, on one AOTAutograd joint graph, in one
process, each call on a fresh copy of the graph.

    PYTHONPATH=python .venv/bin/python -m remat_torch.speed llama --layers 32

Both calls end by building the forward and backward FX modules with
PyTorch's `_extract_fwd_bwd_modules`; its time is reported apart for each
side (it is the same work on both), so the table shows what deciding costs
and what building the modules costs.
"""

import argparse
import copy
import functools
import inspect
import json
import statistics
import sys
import time

import torch

from remat_torch import partitioner
from remat_torch.capture import _aot_api, capture_joint
from remat_torch.cli import call_model, run
from remat_torch.export import add_model_arguments, build_model


def _fresh(joint):
    copied = copy.deepcopy(joint)
    # deepcopy drops node metadata in PyTorch 1.13.
    for original, node in zip(joint.graph.nodes, copied.graph.nodes):
        node.meta = dict(original.meta)
    if hasattr(joint, "_out_spec"):
        copied._out_spec = joint._out_spec
    return copied


class _ExtractionTimer:
    """Times PyTorch's `_extract_fwd_bwd_modules` while installed."""

    def __init__(self):
        self.partitioners = partitioner._torch_partitioners()
        self.original = self.partitioners._extract_fwd_bwd_modules
        self.seconds = 0.0

    def __enter__(self):
        @functools.wraps(self.original)  # callers inspect its signature
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return self.original(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        self.partitioners._extract_fwd_bwd_modules = timed
        return self

    def __exit__(self, *exc):
        self.partitioners._extract_fwd_bwd_modules = self.original


def measure(module, inputs, repeats=5, **options):
    """Median seconds of each side's whole call and of its module building,
    plus remat's export/plan/split breakdown (from its median call)."""
    capture = capture_joint(module, list(inputs))
    joint = capture.joint
    min_cut = _aot_api()[3]
    kwargs = {}
    if "num_fwd_outputs" in inspect.signature(min_cut).parameters:
        kwargs["num_fwd_outputs"] = capture.num_fwd_outputs
    infos = []
    calls = {
        "pytorch": lambda graph: min_cut(graph, None, **kwargs),
        "remat": lambda graph: partitioner.partition(
            graph, None, num_fwd_outputs=capture.num_fwd_outputs,
            on_plan=infos.append, **options),
    }
    rows = {}
    for side, call in calls.items():
        call(_fresh(joint))  # warm-up: imports, first-call caches
        totals, building = [], []
        for _ in range(repeats):
            graph = _fresh(joint)
            with _ExtractionTimer() as timer:
                start = time.perf_counter()
                call(graph)
                totals.append(time.perf_counter() - start)
            building.append(timer.seconds)
        rows[side] = {"total (s)": statistics.median(totals),
                      "building modules (s)": statistics.median(building),
                      "runs (s)": totals}
    timed = infos[1:]  # the warm-up call is not counted
    for key in ("export", "plan", "split"):
        rows["remat"][f"{key} (s)"] = statistics.median(
            i.seconds[key] for i in timed)
    rows["nodes"] = sum(1 for n in joint.graph.nodes if n.op == "call_function")
    rows["torch"] = torch.__version__
    return rows


def markdown(rows, title):
    torch_row, remat_row = rows["pytorch"], rows["remat"]
    deciding_torch = torch_row["total (s)"] - torch_row["building modules (s)"]
    deciding_remat = remat_row["total (s)"] - remat_row["building modules (s)"]
    lines = [
        f"{title}: PyTorch {rows['torch']}, joint graph of {rows['nodes']} "
        "ATen ops, median of the calls on fresh copies.", "",
        "| | PyTorch min-cut | remat_torch.partition | PyTorch / remat |",
        "| --- | ---: | ---: | ---: |",
        f"| whole partition call (s) | {torch_row['total (s)']:.3f} | "
        f"{remat_row['total (s)']:.3f} | "
        f"{torch_row['total (s)'] / remat_row['total (s)']:.1f}x |",
        f"| building the two FX modules (s) | "
        f"{torch_row['building modules (s)']:.3f} | "
        f"{remat_row['building modules (s)']:.3f} | |",
        f"| deciding (the rest) (s) | {deciding_torch:.3f} | "
        f"{deciding_remat:.3f} | {deciding_torch / deciding_remat:.1f}x |",
        "", "remat's call: export to .mlir text "
        f"{remat_row['export (s)']:.3f} s, plan in process (parse, plan, "
        f"report) {remat_row['plan (s)']:.3f} s, split (map the plan, build "
        f"and order the modules) {remat_row['split (s)']:.3f} s.", ""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m remat_torch.speed",
        description="Time PyTorch's whole partition call against "
                    "remat_torch.partition on one joint graph.")
    add_model_arguments(parser)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--strategy", default="min-cut")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--markdown", metavar="FILE")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    module, inputs = build_model(args, parser)
    rows = call_model(module, inputs, lambda m, i: measure(
        m, i, repeats=args.repeats, strategy=args.strategy))
    text = markdown(rows, f"{args.model} ({args.strategy})")
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(run("python -m remat_torch.speed", main))
