"""PyTorch's checkpoint-region partitioner cases 4-6 (../shared/REFERENCES.md,
"Small cases with known answers") through the PyTorch importer.

    torch_checkpoint_cases.py REMAT_OPT

Each case is traced with AOTAutograd, its region marked with
remat_torch.checkpoint (PyTorch 1.13 has no region metadata), exported,
planned (min-cut) and partitioned by remat-opt; the script counts matmuls in
the partitioned forward and backward and reads the plan's decisions. The
"meta" variants mark the same region the way PyTorch 2.x does, with
node.meta["recompute"] = CheckpointPolicy.*, on the traced graph.

Known answers:
4. sigmoid(mm(x, y)) in a region: forward 1 mm, backward 3 (1 recomputed).
5. cos(sin(mm(x, x) @ x)) in a region: forward 2 mm; mm must-recompute ->
   backward 6 mm; mm must-save -> backward 4 mm.
6. sigmoid(dropout(sigmoid(x))), sigmoid must-save: dropout recomputed from
   its seed/offset, its mask not saved; no sigmoid recomputed.
Exits non-zero on the first mismatch.
"""

import enum
import json
import os
import re
import subprocess
import sys
import tempfile

import torch
import torch.nn.functional as F

import remat_torch
from remat_torch.capture import capture_joint
from remat_torch.joint import graph_to_mlir
from remat_torch.ops import packet


def case4(x, y):
    return remat_torch.checkpoint(lambda a, b: torch.sigmoid(torch.mm(a, b)),
                                  x, y).sum()


def case4_plain(x, y):
    return torch.sigmoid(torch.mm(x, y)).sum()


def _cos_sin(a):
    return torch.cos(torch.sin(torch.mm(torch.mm(a, a), a)))


def case5_recompute(x):
    return remat_torch.checkpoint(_cos_sin, x, policy={"mm": "must_recompute"},
                                  default="prefer_recompute").sum()


def case5_save(x):
    return remat_torch.checkpoint(_cos_sin, x, policy={"mm": "must_save"},
                                  default="prefer_recompute").sum()


def case6(x):
    inner = lambda a: torch.sigmoid(F.dropout(torch.sigmoid(a), 0.5, True))
    return remat_torch.checkpoint(inner, x, policy={"sigmoid": "must_save"}).sum()


class CheckpointPolicy(enum.Enum):
    """Stand-in with the names of PyTorch 2.x's
    torch.utils.checkpoint.CheckpointPolicy (1.13 has none)."""
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


def export_with_meta(fn, inputs, policy):
    """Traces `fn` and sets node.meta["recompute"] on its forward ops as
    PyTorch 2.x does for a checkpoint region, then exports."""
    capture = capture_joint(fn, list(inputs))
    required = _forward_ops(capture.joint, capture.num_fwd_outputs)
    for node in capture.joint.graph.nodes:
        if node.op == "call_function" and node.name in required and \
                packet(node) != "sum":
            node.meta["recompute"] = policy(packet(node))
    return graph_to_mlir(capture.joint, function_name="joint",
                         num_fwd_outputs=capture.num_fwd_outputs).text


def _forward_ops(joint, num_fwd_outputs):
    output = next(n for n in joint.graph.nodes if n.op == "output")
    stack = [n for n in list(output.args[0])[:num_fwd_outputs]
             if isinstance(n, torch.fx.Node)]
    seen = set()
    while stack:
        node = stack.pop()
        if node.name not in seen:
            seen.add(node.name)
            stack.extend(node.all_input_nodes)
    return seen


def plan(remat_opt, text):
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "joint.mlir")
        report = os.path.join(scratch, "report.json")
        with open(source, "w") as f:
            f.write(text)
        done = subprocess.run([remat_opt, source, "-remat-plan=strategy=min-cut",
                               f"-remat-report=output={report}",
                               "-remat-partition"], capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"FAIL: remat-opt: {done.stderr}")
        with open(report) as f:
            decisions = {v["name"]: v for v in json.load(f)["values"]}
    stages = {}
    for stage in ("forward", "backward"):
        start = done.stdout.index(f"func.func @joint_{stage}(")
        end = done.stdout.find("func.func @", start + 1)
        stages[stage] = done.stdout[start:end if end >= 0 else None]
    return stages, decisions


def count(body, op):
    return len(re.findall(rf"\b{re.escape(op)}\b", body))


def main(remat_opt):
    failures = []

    def expect(case, what, actual, wanted):
        verdict = "ok" if actual == wanted else "MISMATCH"
        print(f"  {what}: {actual} (expected {wanted}) {verdict}")
        if actual != wanted:
            failures.append(f"{case}: {what}")

    square = lambda: torch.randn(4, 4)
    runs = [
        ("case 4: sigmoid(mm(x, y)) in a region", lambda: remat_torch.export_joint_graph(
            case4, (square(), square())), (1, 3)),
        ("case 4 via 2.x meta (MUST_RECOMPUTE)", lambda: export_with_meta(
            case4_plain, (square(), square()),
            lambda op: CheckpointPolicy.MUST_RECOMPUTE), (1, 3)),
        ("case 5: cos(sin(mm(x, x) @ x)), mm must-recompute",
         lambda: remat_torch.export_joint_graph(case5_recompute, (square(),)), (2, 6)),
        ("case 5: cos(sin(mm(x, x) @ x)), mm must-save",
         lambda: remat_torch.export_joint_graph(case5_save, (square(),)), (2, 4)),
        ("case 5 via 2.x meta, mm MUST_SAVE", lambda: export_with_meta(
            lambda x: _cos_sin(x).sum(), (square(),),
            lambda op: CheckpointPolicy.MUST_SAVE if op == "mm"
            else CheckpointPolicy.PREFER_RECOMPUTE), (2, 4)),
    ]
    for title, make, (forward_mm, backward_mm) in runs:
        print(f"case {title}")
        text = make()
        stages, _ = plan(remat_opt, text)
        expect(title, "forward matmuls", count(stages["forward"], "remat.matmul"),
               forward_mm)
        expect(title, "backward matmuls", count(stages["backward"], "remat.matmul"),
               backward_mm)

    title = "case 6: sigmoid(dropout(sigmoid(x))), sigmoid must-save"
    print(f"case {title}")
    text = remat_torch.export_joint_graph(case6, (square(),))
    expect(title, "typed dropout in the export", count(text, "remat.dropout"), 1)
    stages, decisions = plan(remat_opt, text)
    dropout = [v for v in decisions.values() if v["op"] == "remat.dropout"]
    sigmoid = [v for v in decisions.values() if v["op"] == "remat.sigmoid"]
    # The output is not needed by backward (the second sigmoid is saved);
    # the mask is recomputed, from the saved first sigmoid and the RNG state.
    expect(title, "dropout decisions (output, mask)",
           [v["decision"] for v in dropout], ["not-needed", "recompute"])
    expect(title, "mask saved", any(v["decision"] == "save" for v in dropout), False)
    expect(title, "dropout in backward (recomputed from seed/offset)",
           count(stages["backward"], "remat.dropout"), 1)
    expect(title, "sigmoid decisions", sorted({v["decision"] for v in sigmoid}),
           ["save"])
    expect(title, "sigmoids in backward", count(stages["backward"], "remat.sigmoid"), 0)

    print("checkpoint cases:", "FAIL (" + "; ".join(failures) + ")"
          if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
