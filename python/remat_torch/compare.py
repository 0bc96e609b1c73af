"""Side by side: PyTorch's min-cut partitioner and remat-plan on one graph.

    PYTHONPATH=python /usr/bin/python3 -m remat_torch.compare llama --layers 2
    PYTHONPATH=python /usr/bin/python3 -m remat_torch.compare mymod:build \\
        --input-shape 8,32

Traces the model once with AOTAutograd; PyTorch's
`min_cut_rematerialization_partition` partitions that joint graph, and the
same graph, exported, is planned by `remat-opt -remat-plan{strategy=min-cut}`
(its JSON report is read back). Both columns are measured the same way:
saved values are the forward values and primal inputs that backward reads,
parameters excluded (both treat them as always available), and their bytes
are storage bytes (a view holds its base); saved activation bytes leave the
primal inputs out too (the caller holds them through the step, so keeping
them adds nothing to the peak: remat's min-cut keeps them for free, PyTorch's
charges them), and the "no more saved bytes" checks compare those. Recomputed
ops are the ops the forward outputs need that backward evaluates again, with
FLOPs from the exporter's estimates. Planning time is PyTorch's partition call (deciding
and building the forward and backward graphs) against remat-opt's plan and
partition passes from -mlir-timing (deciding and splitting, in-process);
the whole remat-opt process is reported next to it. RNG arguments the
exporter adds for dropout are not saved values.
"""

import argparse
import json
import operator
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

from remat.cli import check_output_folders
from remat_torch import ops as op_table
from remat_torch.cli import UserError, call_model, run
from remat_torch.export import add_model_arguments, build_model, find_remat_opt
from remat_torch.emitter import type_bytes
from remat_torch.fxmeta import meta_from_getitems, meta_of
from remat_torch.joint import export_joint


def _bytes_of(node):
    meta = meta_of(node) or meta_from_getitems(node)
    if meta is None:
        return 0
    metas = meta if isinstance(meta, list) else [meta]
    return sum(type_bytes(*m) for m in metas if m is not None)


def storage_bytes(names, joint, param_names, extra_bytes=None,
                  count_inputs=True):
    """Bytes of memory a set of saved values holds: a view (transpose,
    reshape, expand, ...) holds its base's storage, so values sharing a base
    count once, and views of parameters count nothing (parameters are
    always resident); with `count_inputs` false, neither do primal inputs
    and their views. Both columns are measured this way."""
    nodes = {n.name: n for n in joint.graph.nodes}
    roots = {}
    for name in names:
        node = nodes.get(name)
        if node is None:  # a helper value the exporter added (addmm's mm)
            roots[name] = (extra_bytes or {}).get(name, 0)
            continue
        while (node.op == "call_function" and
               op_table.CLASSES.get(op_table.packet(node)) == "view" and
               node.all_input_nodes):
            node = node.all_input_nodes[0]
        if node.op == "placeholder" and (node.name in param_names or
                                         not count_inputs):
            continue
        roots[node.name] = _bytes_of(node)
    return sum(roots.values())


def torch_side(export, param_names):
    """Counts of PyTorch's partition of the joint graph."""
    capture = export.capture
    joint_nodes = {n.name: n for n in export.joint.graph.nodes}
    fw_outputs = list(next(n for n in capture.forward.graph.nodes
                           if n.op == "output").args[0])
    # Forward outputs first, then what backward needs (1.13 also appends
    # symbolic sizes in 2.x; non-nodes are skipped).
    num_outputs = export.num_fwd_outputs
    saved = [n for n in fw_outputs[num_outputs:] if isinstance(n, torch.fx.Node)]
    saved_names = [n.name for n in saved if n.name in joint_nodes and
                   n.name not in param_names]
    saved_count = len(saved_names)
    forward_ops = _forward_op_names(export.joint, export.num_fwd_outputs)
    recomputed = [n for n in capture.backward.graph.nodes
                  if n.op == "call_function" and n.name in forward_ops
                  and n.target is not operator.getitem]
    return {
        "saved values": saved_count,
        **_saved_bytes(saved_names, export.joint, param_names),
        "recomputed ops": len(recomputed),
        "recompute FLOPs": sum(op_table.node_flops(joint_nodes[n.name]) for n in recomputed),
        "planning time (s)": capture.partition_seconds,
    }


def _saved_bytes(saved_names, joint, param_names, extra=None):
    """The two byte rows of one column: with and without primal inputs."""
    return {
        "saved bytes": storage_bytes(saved_names, joint, param_names, extra),
        "saved activation bytes": storage_bytes(saved_names, joint, param_names,
                                                extra, count_inputs=False),
    }


def _forward_op_names(joint, num_fwd_outputs):
    """Ops the forward outputs need (PyTorch's "required forward" nodes).
    Ops that read no tangent but only serve backward (e.g. the sin in
    cos's gradient) are not forward ops in either column: both partitioners
    run them in backward without recomputing anything."""
    output = next(n for n in joint.graph.nodes if n.op == "output")
    stack = [n for n in list(output.args[0])[:num_fwd_outputs]
             if isinstance(n, torch.fx.Node)]
    required = set()
    while stack:
        node = stack.pop()
        if node.name in required:
            continue
        required.add(node.name)
        stack.extend(node.all_input_nodes)
    return {n.name for n in joint.graph.nodes
            if n.op == "call_function" and n.name in required}


def remat_side(export, remat_opt, param_names):
    """Plans the exported graph with remat-plan (min-cut) and reads the
    report and the partition statistics back."""
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "joint.mlir")
        report = os.path.join(scratch, "report.json")
        partitioned = os.path.join(scratch, "partitioned.mlir")
        with open(source, "w") as f:
            f.write(export.mlir)
        # Saved views are passed as themselves, so that every forward op
        # in the backward is a recomputation the plan chose (by default
        # remat-partition passes a saved view's storage and re-creates the
        # view in backward, which recomputes nothing).
        command = [remat_opt, source, "-remat-plan=strategy=min-cut",
                   f"-remat-report=output={report}",
                   "-remat-partition=pass-view-storage=false",
                   "-mlir-timing", "-o", partitioned]
        start = time.perf_counter()
        completed = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if completed.returncode != 0:
            raise UserError(f"remat-opt failed on the exported graph "
                            f"({' '.join(command)}):\n{completed.stderr.strip()}")
        with open(report) as f:
            plan = json.load(f)
        with open(partitioned) as f:
            recomputed = _recomputed_ops(f.read(), export.function,
                                         _forward_op_names(export.joint,
                                                           export.num_fwd_outputs))
    timings = _pass_timings(completed.stderr)
    plan_seconds = timings.get("RematPlanPass")
    partition_seconds = timings.get("RematPartitionPass")
    joint_nodes = {n.name: n for n in export.joint.graph.nodes}
    values = plan["values"]
    labels = export.argument_labels
    saved_names, extra = [], {}
    rng = set(export.rng_arguments)
    for v in values:
        if v["decision"] == "save":
            saved_names.append(v["name"])
            extra[v["name"]] = v["bytes"]
        elif v["decision"] == "input" and v.get("read_by") != "none":
            # RNG state the exporter added (dropout seed/offsets) is not
            # counted: PyTorch keeps its generator state outside the graph.
            if v["name"] in rng:
                continue
            placeholder = labels.get(v["name"], v["name"])
            if placeholder not in param_names:
                saved_names.append(placeholder)
    return {
        "saved values": len(saved_names),
        **_saved_bytes(saved_names, export.joint, param_names, extra),
        "recomputed ops": len(recomputed),
        "recompute FLOPs": sum(op_table.node_flops(joint_nodes[name]) for name in recomputed),
        # Deciding and splitting, as PyTorch's partition function does both:
        # the plan and partition passes, in-process (no parsing, printing or
        # process start; those are in "process wall").
        "planning time (s)": (plan_seconds + partition_seconds
                              if None not in (plan_seconds, partition_seconds)
                              else wall),
    }, plan, {"plan pass (s)": plan_seconds,
              "partition pass (s)": partition_seconds,
              "remat-opt total (s)": timings.get("Total"),
              "process wall (s)": wall}


def _pass_timings(stderr):
    """Seconds per line of -mlir-timing's report ("0.0123 ( 4.5%)  Name")."""
    timings = {}
    for line in stderr.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[-1] not in timings:
            try:
                timings[parts[-1]] = float(parts[0])
            except ValueError:
                pass
    return timings


def _recomputed_ops(partitioned, function, forward_ops):
    """Required-forward ops remat-partition cloned into backward, by FX
    name (an exporter helper such as `addmm.mm` counts as its node).
    Counted from the IR: release builds of LLVM keep no pass statistics."""
    import re

    def names_in(stage):
        start = partitioned.find(f"func.func @{function}_{stage}(")
        if start < 0:
            raise RuntimeError(f"remat-partition produced no @{function}_{stage}")
        end = partitioned.find("\n  func.func", start + 1)
        body = partitioned[start:end if end >= 0 else len(partitioned)]
        return re.findall(r'remat\.name = "([^"]*)"', body)

    found = []
    for name in names_in("backward"):
        base = name if name in forward_ops else name.rsplit(".", 1)[0]
        if base in forward_ops and base not in found:
            found.append(base)
    return found


def _param_placeholders(export):
    count = export.param_count
    primals = [n.name for n in export.joint.graph.nodes
               if n.op == "placeholder" and not n.name.startswith("tangents")]
    return set(primals[:count])


def _format(value):
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _retime(export, remat_opt, params, theirs, ours, timing, repeats):
    """With repeats > 1: times both sides `repeats` times in all, each
    round PyTorch's partition (on a fresh copy of the joint graph) then
    remat-opt, and replaces the planning times and remat's timing breakdown
    by their medians (one slow moment of a shared machine then skews one
    sample, not the ratio)."""
    if repeats <= 1:
        return
    torch_s = [theirs["planning time (s)"]]
    remat_s = [ours["planning time (s)"]]
    timings = [timing]
    for _ in range(repeats - 1):
        torch_s.append(export.capture.time_partition())
        again, _, again_timing = remat_side(export, remat_opt, params)
        remat_s.append(again["planning time (s)"])
        timings.append(again_timing)
    theirs["planning time (s)"] = statistics.median(torch_s)
    ours["planning time (s)"] = statistics.median(remat_s)
    for key in timing:
        samples = [t[key] for t in timings if t.get(key) is not None]
        timing[key] = statistics.median(samples) if samples else None
    timing["timed calls per side"] = repeats


def compare(module, example_inputs, remat_opt, out=sys.stdout, details=None,
            repeats=1):
    """Prints the side-by-side table; returns (pytorch, remat) rows. When
    `details` is a dict it receives the joint graph's node count and remat's
    timing breakdown. `repeats`: timed calls per side (medians)."""
    export = export_joint(module, example_inputs, partitioner="min_cut", warn=False)
    params = _param_placeholders(export)
    ours, plan, timing = remat_side(export, remat_opt, params)
    theirs = torch_side(export, params)
    _retime(export, remat_opt, params, theirs, ours, timing, repeats)
    if details is not None:
        details.update(timing)
        details["joint nodes"] = sum(1 for n in export.joint.graph.nodes
                                     if n.op == "call_function")
        details["remat ops"] = export.mlir.count("\n    %")
    rows = list(theirs)
    width = max(len(r) for r in rows) + 2
    out.write(f"{'':{width}}{'pytorch min-cut':>18}{'remat min-cut':>18}{'remat/pytorch':>16}\n")
    for row in rows:
        a, b = theirs[row], ours[row]
        ratio = "n/a"
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a:
            ratio = f"{b / a:.3f}"
        elif a == 0 and b == 0:
            ratio = "1.000"
        out.write(f"{row:{width}}{_format(a):>18}{_format(b):>18}{ratio:>16}\n")
    if export.unmapped:
        out.write("unmapped ATen ops (opaque in remat): " + ", ".join(export.unmapped) + "\n")
    if export.declined:
        out.write("ATen ops kept opaque (use does not match the typed op): " +
                  ", ".join(sorted(export.declined)) + "\n")
    return theirs, ours


def speed_summary(theirs, ours, details):
    """One line: how much faster remat partitions, in-process and counting
    the whole remat-opt process."""
    torch_s = theirs["planning time (s)"]
    remat_s = ours["planning time (s)"]
    wall = details.get("process wall (s)")
    parts = [f"joint graph: {details.get('joint nodes')} FX nodes, "
             f"{details.get('remat ops')} remat ops"]
    if torch_s and remat_s:
        parts.append(f"speed: PyTorch partition {torch_s:.3f} s, remat plan + "
                     f"partition passes {remat_s:.4f} s: {torch_s / remat_s:.0f}x")
    if torch_s and wall:
        parts.append(f"whole remat-opt process (start, parse, verify, plan, "
                     f"report, partition, print) {wall:.3f} s: "
                     f"{torch_s / wall:.1f}x")
    return "; ".join(parts)


def markdown(theirs, ours, details):
    """The comparison as markdown tables, with the two goals judged."""
    calls = details.get("timed calls per side")
    lines = [f"Joint graph: {details.get('joint nodes')} FX nodes (ATen ops), "
             f"{details.get('remat ops')} remat ops after export." +
             (f" Times are medians of {calls} calls per side, alternating "
              "(PyTorch's partition on a fresh copy of the joint graph, then "
              "remat-opt)." if calls else ""), "",
             "| | PyTorch min-cut | remat min-cut | remat / PyTorch |",
             "| --- | ---: | ---: | ---: |"]
    for row in theirs:
        a, b = theirs[row], ours[row]
        ratio = f"{b / a:.3g}" if isinstance(a, (int, float)) and a and \
            isinstance(b, (int, float)) else "n/a"
        lines.append(f"| {row} | {_format(a)} | {_format(b)} | {ratio} |")
    lines += ["", "| remat-opt, one process | seconds |", "| --- | ---: |"]
    for key in ("plan pass (s)", "partition pass (s)", "remat-opt total (s)",
                "process wall (s)"):
        lines.append(f"| {key[:-4]} | {_format(details.get(key))} |")
    torch_s, remat_s = theirs["planning time (s)"], ours["planning time (s)"]
    wall = details.get("process wall (s)")
    lines += ["", "| goal | measured | verdict |", "| --- | --- | --- |"]
    if torch_s and remat_s:
        speed = torch_s / remat_s
        plan_only = details.get("plan pass (s)")
        alone = f"; {torch_s / plan_only:.0f}x for the plan pass alone" \
            if plan_only else ""
        lines.append(f"| >= 100x faster than PyTorch's partitioner | {speed:.0f}x "
                     f"(plan + partition passes, the work PyTorch's partition "
                     f"function does){alone}; {torch_s / wall:.1f}x counting "
                     f"the whole remat-opt process | "
                     f"{'met' if speed >= 100 else 'missed'} |")
    saved_a = theirs["saved activation bytes"]
    saved_b = ours["saved activation bytes"]
    lines.append(f"| saved activation bytes no more than PyTorch | {saved_b} "
                 f"vs {saved_a} | {'met' if saved_b <= saved_a else 'missed'} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m remat_torch.compare",
        description="Compare PyTorch's min-cut partitioner with remat-plan "
                    "on the same AOTAutograd joint graph.")
    add_model_arguments(parser)
    parser.add_argument("--remat-opt", help="remat-opt binary (default: "
                        "$REMAT_BUILD_DIR/bin, build/bin, then PATH)")
    parser.add_argument("--check-saved-bytes", action="store_true",
                        help="fail if remat saves more activation bytes "
                        "(saved bytes less primal inputs)")
    parser.add_argument("--json", metavar="FILE",
                        help="also write both columns, the graph size and "
                             "remat's timing breakdown as JSON")
    parser.add_argument("--markdown", metavar="FILE",
                        help="also write the tables and the goals (>= 100x "
                             "faster, no more saved activation bytes) as markdown "
                             "(scripts/bench.sh puts it in docs/benchmarks.md)")
    parser.add_argument("--repeats", type=int, default=1,
                        help="timed partition calls per side, alternating; "
                             "planning times are their medians (default 1)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats {args.repeats}: expected at least 1")
    check_output_folders(parser, ("--json", args.json),
                         ("--markdown", args.markdown))
    module, inputs = build_model(args, parser)
    remat_opt = find_remat_opt(args.remat_opt, parser)
    details = {}
    theirs, ours = call_model(module, inputs, lambda m, i: compare(
        m, i, remat_opt, details=details, repeats=args.repeats))
    print(speed_summary(theirs, ours, details))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pytorch": theirs, "remat": ours, "remat timing": details},
                      f, indent=2)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(markdown(theirs, ours, details))
    row = "saved activation bytes"
    if args.check_saved_bytes and ours[row] > theirs[row]:
        print(f"remat saves more activation bytes than PyTorch ({ours[row]} > "
              f"{theirs[row]})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(run("python3 -m remat_torch.compare", main))
