"""PyTorch 2.x's `_native_batch_norm_legit_functional` (training batch norm
that returns the updated running statistics instead of writing them) on
PyTorch 1.13, which has no such op: a hand-built joint graph whose node has
that name and 2.x's five results, exported, run with remat-run, and checked
against F.batch_norm(training=True) on the same values (output, new running
mean and variance, input gradient).

    torch_bn_functional.py TOOLS_DIR
"""

import os
import re
import subprocess
import sys
import tempfile

import torch
import torch.fx
import torch.nn.functional as F

from remat_torch.joint import graph_to_mlir

MOMENTUM, EPS = 0.1, 1e-5


def _native_batch_norm_legit_functional(x, w, b, rm, rv, training, momentum, eps):
    raise NotImplementedError("a stand-in: only its name and arguments matter")


def meta(node, tensor):
    node.meta["tensor_meta"] = tensor  # shape and dtype, like TensorMetadata


def build():
    graph = torch.fx.Graph()
    shapes = {"primals_1": (4, 3, 2, 2), "primals_2": (3,), "primals_3": (3,),
              "primals_4": (3,), "primals_5": (3,), "tangents_1": (4, 3, 2, 2)}
    nodes = {}
    for name, shape in shapes.items():
        nodes[name] = graph.placeholder(name)
        meta(nodes[name], torch.empty(shape))
    x, w, b, rm, rv = (nodes[f"primals_{i}"] for i in range(1, 6))
    bn = graph.call_function(_native_batch_norm_legit_functional,
                             (x, w, b, rm, rv, True, MOMENTUM, EPS))
    results = []
    for index, shape in enumerate([(4, 3, 2, 2), (3,), (3,), (3,), (3,)]):
        item = graph.call_function(__import__("operator").getitem, (bn, index))
        meta(item, torch.empty(shape))
        results.append(item)
    y, mean, invstd, new_rm, new_rv = results
    backward = graph.call_function(
        torch.ops.aten.native_batch_norm_backward.default,
        (nodes["tangents_1"], x, w, rm, rv, mean, invstd, True, EPS,
         [True, False, False]))
    gx = graph.call_function(__import__("operator").getitem, (backward, 0))
    meta(gx, torch.empty(4, 3, 2, 2))
    graph.output([y, new_rm, new_rv, gx, None, None, None, None])
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def main(tools):
    graph = graph_to_mlir(build(), num_fwd_outputs=3)
    assert not graph.unmapped, graph.unmapped
    text = graph.text
    print(text)
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "bn.mlir")
        with open(path, "w") as f:
            f.write(text)
        done = subprocess.run([os.path.join(tools, "remat-run"), path,
                               "--function=joint", "--print-inputs",
                               "--format=hex"], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: remat-run: {done.stderr}")
    values = {}
    for line in done.stdout.splitlines():
        match = re.match(r"@joint (argument|result) (\d+) [^:]*: (.*)$", line)
        if match:
            values[(match.group(1), int(match.group(2)))] = torch.tensor(
                [float.fromhex(v) for v in match.group(3).split()], dtype=torch.float64)
    x, w, b, rm, rv, g = (values[("argument", i)].float() for i in range(6))
    x = x.reshape(4, 3, 2, 2).requires_grad_(True)
    rm, rv = rm.clone(), rv.clone()
    y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=MOMENTUM, eps=EPS)
    (gx,) = torch.autograd.grad(y, x, g.reshape(4, 3, 2, 2))
    failures = 0
    for index, (label, expected) in enumerate([("output", y), ("running_mean", rm),
                                               ("running_var", rv), ("grad of x", gx)]):
        actual = values[("result", index)]
        error = float((actual - expected.detach().double().flatten()).abs().max())
        ok = error <= 1e-5
        failures += not ok
        print(f"{label}: max abs error {error:.3g} {'ok' if ok else 'MISMATCH'}")
    print("batch norm functional:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
