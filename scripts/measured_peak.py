#!/usr/bin/env python3
"""Predicted against measured activation peak of planned programs.

For each strategy, plans a joint graph with `remat-opt --remat-plan
--remat-report --remat-partition`, runs the joint graph and the partitioned
forward + backward with `remat-run --check-partition --measure-memory`, and
compares the measured activation peak (remat-run's `activation-peak`;
arguments excluded) with the report's `peak_memory_bytes`.

remat-run calls the functions as a training runtime does: each result is
allocated by the function where it is computed and freed by the caller
after use (no out-parameters), and the backward owns the saved values and
frees each after its last read (`--backward-frees-saved`, the default, as
PyTorch's compiled backward does). So the forward phase is the forward's
heap high-water mark (its results included from their allocation) and the
backward phase is the forward outputs the caller still holds plus the
backward's high-water mark (saved values until freed, gradients from their
allocation).

Checked relations (docs/Lowering.md, "Measuring memory"):

  1. predicted <= measured. The lowered program frees no buffer before its
     last read (saved values included) and gives every computed value its
     own buffer (a simulator view is free and the lowering either aliases
     or copies it), so the values the simulator counts at its peak step are
     all allocated at that moment in the program too. A violation means
     the hooks missed allocations or the simulator counted storage that
     the program does not need.
  2. measured <= 1.05 x predicted, issue #16's target. The byte counts
     are deterministic, so this is not a noise margin: it is the gap the
     project accepts between the model and this runtime (every row of
     docs/benchmarks.md is at 1.00x today; a lowering that copies a view
     or needs scratch the model does not count shows up here).
  3. In every measured call nothing is live at return apart from the
     returned buffers: every other buffer the call allocates, and every
     saved value handed to the backward, is freed (remat-dealloc-at-last-use
     frees each right after its last read, as the simulator does; remat-run
     fails if an owned saved value is not freed).

The graphs are planned for the runtime measured here
(examples/targets/remat-cpu-lowering.json: the cpu preset with an
allocation granularity of 64 bytes, what the CPU lowering rounds each heap
buffer to), so the prediction counts allocated bytes as the hooks do.


  measured_peak.py check FILE FUNCTION    plan FILE under every strategy, check
  measured_peak.py table                  the docs table for every example
Tools come from PATH (lit puts the build's tools there) or --bin.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Planned for the runtime that is measured: the cpu preset with the CPU
# lowering's 64-byte allocation granularity (docs/Planner.md).
# The most measured may exceed predicted (issue #16's 5% target).
TOLERANCE = 1.05
TARGET_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           os.pardir, "examples", "targets",
                           "remat-cpu-lowering.json")
TARGET = "target-file=" + os.path.normpath(TARGET_FILE)
STRATEGIES = [
    ("save-all", f"strategy=save-all {TARGET}"),
    ("recompute-all", f"strategy=recompute-all {TARGET}"),
    ("min-cut", f"strategy=min-cut {TARGET}"),
    ("budget", f"strategy=budget memory-budget=0.5 {TARGET}"),
    ("optimal", f"strategy=optimal memory-budget=0.5 {TARGET}"),
]

# Joint-graph examples that remat-run lowers and runs in about a second.
# Left out: examples/tiny/{cos_chain, sum_of_four_inputs, split_sin_cos,
# checkpoint_cos_sin_mm_*} hold remat.opaque sin/cos, which has no lowering;
# examples/{gpt_layer_dropout,llama2_decoder_layer}.mlir have full-size
# shapes (GPT-3 2.7B, Llama-2 7B: GBs of activations, naive loops);
# *_forward.mlir are forward-only graphs (not joint).
EXAMPLES = [
    ("tiny/checkpoint_sigmoid_mm.mlir", "checkpoint_sigmoid_mm"),
    ("tiny/cnn_block.mlir", "cnn_block"),
    ("tiny/residual_derive.mlir", "residual_derive"),
    ("tiny/sigmoid_dropout_sigmoid.mlir", "sigmoid_dropout_sigmoid"),
    ("small/gpt_layer_dropout.mlir", "gpt_layer_dropout"),
    ("small/llama2_decoder_layer.mlir", "llama2_decoder_layer"),
]

MEMORY_LINE = re.compile(
    r"^@(\S+) memory \(bytes\): arguments (\d+) owned (\d+) results (\d+) "
    r"heap-high-water (\d+) stack (\d+) peak (\d+) "
    r"\| heap allocations (\d+) allocated (\d+) live-at-return (\d+)$")
PLAN_LINE = re.compile(
    r"^@\S+ \+ @\S+ memory \(bytes\): forward-phase (\d+) "
    r"backward-phase (\d+) activation-peak (\d+)$")


def tool(args, name):
    return os.path.join(args.bin, name) if args.bin else name


def measure(args, path, function, options, workdir, tag):
    """Plans `path` with `options`; returns (report, calls, plan figures)."""
    report_path = os.path.join(workdir, tag + ".json")
    partitioned = os.path.join(workdir, tag + ".mlir")
    subprocess.run([tool(args, "remat-opt"), path,
                    "--remat-plan=" + options,
                    "--remat-report=output=" + report_path,
                    "--remat-partition", "-o", partitioned], check=True)
    run = subprocess.run([tool(args, "remat-run"), path,
                          "--function=" + function,
                          "--check-partition=" + partitioned,
                          "--measure-memory"],
                         check=True, capture_output=True, text=True)
    with open(report_path) as stream:
        report = json.load(stream)
    if isinstance(report, list):
        report = report[0]
    calls, plan = {}, None
    for line in run.stdout.splitlines():
        if m := MEMORY_LINE.match(line):
            names = ("arguments", "owned", "results", "heap_peak", "stack",
                     "peak",
                     "allocations", "allocated", "live_at_return")
            calls[m.group(1)] = dict(zip(names, map(int, m.groups()[1:])))
        elif m := PLAN_LINE.match(line):
            plan = dict(zip(("forward", "backward", "peak"),
                            map(int, m.groups())))
    if plan is None or len(calls) != 3:
        sys.exit("no --measure-memory figures in remat-run's output:\n" +
                 run.stdout)
    return report, calls, plan


def check_one(label, report, calls, plan):
    """The checked relations; returns the failures."""
    failures = []
    predicted, measured = report["peak_memory_bytes"], plan["peak"]
    if predicted > measured:
        failures.append(f"{label}: predicted peak {predicted} exceeds the "
                        f"measured {measured}")
    if measured > TOLERANCE * predicted:
        failures.append(f"{label}: measured peak {measured} is more than "
                        f"{TOLERANCE:.2f}x the predicted {predicted}")
    for name, call in calls.items():
        if call["live_at_return"] != 0:
            failures.append(f"{label}: @{name} leaks "
                            f"{call['live_at_return']} heap bytes")
    return failures


def row(example, strategy, report, calls, plan, function):
    forward = calls[function + "_forward"]
    backward = calls[function + "_backward"]
    predicted = report["peak_memory_bytes"]
    return (example, strategy, predicted, plan["peak"],
            plan["peak"] / predicted if predicted else float("inf"),
            forward["results"], forward["heap_peak"], backward["owned"],
            backward["heap_peak"], calls[function]["peak"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", help="folder of remat-opt and remat-run "
                        "(default: PATH)")
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check")
    check.add_argument("file")
    check.add_argument("function")
    table = sub.add_parser("table")
    table.add_argument("--examples", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    args = parser.parse_args()

    if args.command == "check":
        jobs = [(os.path.basename(args.file), args.file, args.function)]
    else:
        jobs = [(name, os.path.join(args.examples, name), function)
                for name, function in EXAMPLES]
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as workdir:
        for example, path, function in jobs:
            for strategy, options in STRATEGIES:
                report, calls, plan = measure(args, path, function, options,
                                              workdir, function + "." +
                                              strategy)
                label = f"{example} {strategy}"
                failures += check_one(label, report, calls, plan)
                rows.append(row(example, strategy, report, calls, plan,
                                function))
    if args.command == "check":
        for r in rows:
            print(f"{r[1]}: predicted {r[2]} measured {r[3]} ratio "
                  f"{r[4]:.2f} (forward results {r[5]} heap {r[6]}, "
                  f"backward saved {r[7]} heap {r[8]}; joint graph "
                  f"{r[9]})")
    else:
        print("| example | strategy | predicted `peak_memory_bytes` | "
              "measured activation peak | measured / predicted | forward "
              "results | forward heap | saved, handed to backward | "
              "backward heap | joint graph, unplanned |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
              "| ---: |")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]:.2f} | "
                  f"{r[5]} | {r[6]} | {r[7]} | {r[8]} | {r[9]} |")
    for failure in failures:
        print("FAIL: " + failure)
    if failures:
        return 1
    print(f"PASS: predicted <= measured <= {TOLERANCE:.2f} x predicted, "
          "nothing leaked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
