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
are storage bytes (a view holds its base); recomputed ops are the ops the
forward outputs need that backward evaluates again, with FLOPs from the
exporter's estimates.
"""

import argparse
import json
import operator
import os
import subprocess
import sys
import tempfile
import time

import torch

from remat_torch import ops as op_table
from remat_torch.export import add_model_arguments, build_model, find_remat_opt
from remat_torch.joint import _meta_of, _meta_from_getitems, export_joint, type_bytes


def _bytes_of(node):
    meta = _meta_of(node) or _meta_from_getitems(node)
    if meta is None:
        return 0
    metas = meta if isinstance(meta, list) else [meta]
    return sum(type_bytes(*m) for m in metas if m is not None)


class _Shape:
    def __init__(self, shape):
        self.shape = shape


def node_flops(node):
    """The FLOP estimate the exporter gives opaque ops, for any node."""
    meta = _meta_of(node) or _meta_from_getitems(node)
    metas = [m for m in (meta if isinstance(meta, list) else [meta]) if m]
    operands = []
    for arg in node.args:
        if isinstance(arg, torch.fx.Node):
            m = _meta_of(arg)
            operands.append(_Shape(m[0] if m and not isinstance(m, list) else ()))
    try:
        return op_table.estimate_flops(node, op_table.packet(node), metas, operands)
    except (IndexError, TypeError):
        return 0.0


def storage_bytes(names, joint, param_names, extra_bytes=None):
    """Bytes of memory a set of saved values holds: a view (transpose,
    reshape, expand, ...) holds its base's storage, so values sharing a base
    count once, and views of parameters count nothing (parameters are
    always resident). Both columns are measured this way."""
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
        if node.op == "placeholder" and node.name in param_names:
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
    saved_bytes = storage_bytes(saved_names, export.joint, param_names)
    forward_ops = _forward_op_names(export.joint, export.num_fwd_outputs)
    recomputed = [n for n in capture.backward.graph.nodes
                  if n.op == "call_function" and n.name in forward_ops
                  and n.target is not operator.getitem]
    return {
        "saved values": saved_count,
        "saved bytes": saved_bytes,
        "recomputed ops": len(recomputed),
        "recompute FLOPs": sum(node_flops(joint_nodes[n.name]) for n in recomputed),
        "planning time (s)": capture.partition_seconds,
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
        command = [remat_opt, source, "-remat-plan=strategy=min-cut",
                   f"-remat-report=output={report}", "-remat-partition",
                   "-mlir-timing", "-o", partitioned]
        start = time.perf_counter()
        run = subprocess.run(command, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{run.stderr}")
        with open(report) as f:
            plan = json.load(f)
        with open(partitioned) as f:
            recomputed = _recomputed_ops(f.read(), export.function,
                                         _forward_op_names(export.joint,
                                                           export.num_fwd_outputs))
    plan_seconds = None
    for line in run.stderr.splitlines():
        parts = line.split()
        if parts and parts[-1] == "RematPlanPass" and plan_seconds is None:
            try:
                plan_seconds = float(parts[0])
            except ValueError:
                pass
    joint_nodes = {n.name: n for n in export.joint.graph.nodes}
    values = plan["values"]
    labels = export.argument_labels
    saved_names, extra = [], {}
    for v in values:
        if v["decision"] == "save":
            saved_names.append(v["name"])
            extra[v["name"]] = v["bytes"]
        elif v["decision"] == "input":
            placeholder = labels.get(v["name"], v["name"])
            if placeholder not in param_names:
                saved_names.append(placeholder)
    return {
        "saved values": len(saved_names),
        "saved bytes": storage_bytes(saved_names, export.joint, param_names, extra),
        "recomputed ops": len(recomputed),
        "recompute FLOPs": sum(node_flops(joint_nodes[name]) for name in recomputed),
        "planning time (s)": plan_seconds if plan_seconds is not None else wall,
    }, plan


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


def compare(module, example_inputs, remat_opt, out=sys.stdout):
    export = export_joint(module, example_inputs, partitioner="min_cut", warn=False)
    params = _param_placeholders(export)
    ours, plan = remat_side(export, remat_opt, params)
    theirs = torch_side(export, params)
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
    return theirs, ours


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python3 -m remat_torch.compare",
        description="Compare PyTorch's min-cut partitioner with remat-plan "
                    "on the same AOTAutograd joint graph.")
    add_model_arguments(parser)
    args = parser.parse_args(argv)
    module, inputs = build_model(args, parser)
    remat_opt = find_remat_opt(args.remat_opt, parser)
    theirs, ours = compare(module, inputs, remat_opt)
    if args.check_saved_bytes and ours["saved bytes"] > theirs["saved bytes"]:
        print(f"remat saves more bytes than PyTorch ({ours['saved bytes']} > "
              f"{theirs['saved bytes']})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
