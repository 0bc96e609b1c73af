"""End-to-end check of the typed ATen mapping against PyTorch's autograd.

    torch_numeric_check.py TOOLS_DIR MODEL [size=value ...]

Exports the joint graph of a built-in model (remat_torch.models), requires
that no op stayed remat.opaque, plans and partitions it with remat-opt
(min-cut), then runs it with remat-run (lowered to the CPU and JIT-compiled):

1. the joint function on remat's seeded inputs (--print-inputs --format=hex
   prints the exact argument values), and the partitioned forward +
   backward against it (--check-partition, bitwise);
2. PyTorch's eager module on the same values: parameters, buffers and
   inputs set from the printed arguments, the printed tangents as
   grad_outputs of torch.autograd.grad. Every forward output and gradient
   remat returns is compared with PyTorch's (|a - b| <= atol + rtol * |b|).

Prints one line per result and "numeric check: PASS"; exits 1 otherwise.
Dropout is random with different generators on both sides, so models with
dropout must be built with dropout=0 here.
"""

import os
import re
import subprocess
import sys
import tempfile

import torch

from remat_torch.joint import _named_tensors, export_joint
from remat_torch.models import MODELS

ATOL, RTOL = 1e-4, 1e-3


def parse_values(text):
    values = []
    for item in text.split():
        values.append(float.fromhex(item) if item.startswith(("0x", "-0x"))
                      else float(item))
    return values


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n"
                 f"{done.stdout}{done.stderr}")
    return done.stdout


def main(tools, model, sizes):
    module, inputs = MODELS[model](**sizes)
    exported = export_joint(module, inputs)
    if "remat.opaque" in exported.mlir:
        ops = sorted(set(re.findall(r'"remat\.opaque"\([^)]*\) <\{op_name = "([^"]*)"',
                                    exported.mlir)))
        sys.exit(f"FAIL: ops stayed remat.opaque: {', '.join(ops)}")
    remat_opt = os.path.join(tools, "remat-opt")
    remat_run = os.path.join(tools, "remat-run")
    with tempfile.TemporaryDirectory() as scratch:
        joint = os.path.join(scratch, "joint.mlir")
        partitioned = os.path.join(scratch, "partitioned.mlir")
        with open(joint, "w") as f:
            f.write(exported.mlir)
        run([remat_opt, joint, "-remat-plan=strategy=min-cut", "-remat-partition",
             "-o", partitioned])
        printed = run([remat_run, joint, "--function=joint", "--print-inputs",
                       "--format=hex"])
        check = run([remat_run, joint, "--function=joint",
                     f"--check-partition={partitioned}"])
    print("partitioned forward + backward vs joint:",
          "PASS" if "PASS" in check and "FAIL" not in check else "FAIL")
    if "FAIL" in check or "PASS" not in check:
        print(check)
        return 1

    arguments, results = {}, {}
    for line in printed.splitlines():
        match = re.match(r"@joint (argument|result) (\d+) [^:]*: ?(.*)$", line)
        if match:
            table = arguments if match.group(1) == "argument" else results
            table[int(match.group(2))] = parse_values(match.group(3))

    # Roles of the results, from the exported signature.
    header = exported.mlir.splitlines()[1]
    signature = header[header.index(") -> (") + 6:]
    roles = re.findall(r'\{remat\.(?:grad_of = (\d+) : i64, remat\.)?role = "(\w+)"\}',
                       signature)

    named = _named_tensors(module)
    primals = [t for _, t in named] + list(inputs)
    labels = [n for n, _ in named] + [f"input{i}" for i in range(len(inputs))]
    with torch.no_grad():
        for index, tensor in enumerate(primals):
            values = torch.tensor(arguments[index], dtype=torch.float64)
            tensor.copy_(values.reshape(tensor.shape).to(tensor.dtype))
    module.train()
    # Parameters and floating-point inputs get gradients; buffers (batch
    # norm's running statistics) do not.
    parameters = {id(p) for p in module.parameters()}
    leaves = [t for i, t in enumerate(primals) if t.is_floating_point() and
              (id(t) in parameters or i >= len(named))]
    for leaf in leaves:
        leaf.requires_grad_(True)
    output = module(*inputs)
    outputs = [output] if isinstance(output, torch.Tensor) else list(output)
    tangents = []
    for offset, out in enumerate(outputs):
        values = arguments[len(primals) + offset]
        tangents.append(torch.tensor(values, dtype=out.dtype).reshape(out.shape))
    grads = torch.autograd.grad(outputs, leaves, tangents, allow_unused=True)
    grad_of = {id(leaf): g for leaf, g in zip(leaves, grads)}

    failures = 0
    next_output = 0
    for index, (primal, role) in enumerate(roles):
        if role == "output":
            expected, label = outputs[next_output], f"output {next_output}"
            next_output += 1
        else:
            tensor = primals[int(primal)]
            expected, label = grad_of[id(tensor)], f"grad of {labels[int(primal)]}"
        expected = expected.detach().double().flatten()
        actual = torch.tensor(results[index], dtype=torch.float64)
        error = (actual - expected).abs()
        bound = ATOL + RTOL * expected.abs()
        bad = int((error > bound).sum())
        print(f"result {index} ({label}): {actual.numel()} elements, max abs "
              f"error {float(error.max()):.3g}{'' if not bad else f', {bad} out of tolerance'}")
        failures += bad > 0
    print("numeric check:", "FAIL" if failures else "PASS")
    return 1 if failures else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sizes = {}
    for item in sys.argv[3:]:
        key, _, value = item.partition("=")
        sizes[key] = float(value) if "." in value else int(value)
    sys.exit(main(sys.argv[1], sys.argv[2], sizes))
