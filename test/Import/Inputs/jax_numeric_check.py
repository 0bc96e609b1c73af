"""End-to-end check of the StableHLO -> remat mapping against JAX itself.

    jax_numeric_check.py TOOLS_DIR MODEL...

For each model (a built-in one of remat_jax.models, or MODULE:FACTORY
returning (fn, example_args) with argument 0 the parameters, whose output
is one array): exports the joint graph,
requires that no op stayed remat.opaque, plans and partitions it with
remat-opt (min-cut), then runs it with remat-run (lowered to the CPU):

1. the joint function on remat's seeded inputs (--print-inputs --format=hex
   prints the exact argument values), and the partitioned forward +
   backward against it (--check-partition, bitwise);
2. JAX on the same values: `jax.vjp` of the model's function at the printed
   parameters and inputs, pulled back along the printed cotangent. Every
   forward output and gradient remat returns is compared with JAX's
   (|a - b| <= atol + rtol * |b|).

Prints one line per model and "numeric check: PASS"; exits 1 otherwise.
"""

import importlib
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import jax

from remat_jax import export
from remat_jax.models import MODELS, Model

ATOL, RTOL = 1e-4, 1e-3


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {done.returncode}:\n"
                 f"{done.stdout}{done.stderr}")
    return done.stdout


def printed_values(text, kind):
    values = {}
    for line in text.splitlines():
        match = re.match(rf"@joint {kind} (\d+) [^:]*: ?(.*)$", line)
        if match:
            values[int(match.group(1))] = np.array(
                [float.fromhex(x) for x in match.group(2).split()], np.float32)
    return [values[i] for i in range(len(values))]


def load(name):
    if name in MODELS:
        return MODELS[name]()
    module, factory = name.split(":")
    fn, args = getattr(importlib.import_module(module), factory)()
    return Model(fn, tuple(args), name)


def check(tools, name):
    model = load(name)
    exported = export(model.fn, *model.args, warn=False)
    if exported.opaque:
        return f"ops stayed remat.opaque: {', '.join(sorted(exported.opaque))}"
    with tempfile.TemporaryDirectory() as scratch:
        joint = os.path.join(scratch, "joint.mlir")
        partitioned = os.path.join(scratch, "partitioned.mlir")
        with open(joint, "w") as f:
            f.write(exported.mlir)
        run([os.path.join(tools, "remat-opt"), joint,
             "-remat-plan=strategy=min-cut", "-remat-partition", "-o", partitioned])
        # The JIT at -O0: these graphs are small, compiling them dominates.
        remat_run = [os.path.join(tools, "remat-run"), joint, "--function=joint",
                     "--opt-level=0"]
        printed = run(remat_run + ["--print-inputs", "--format=hex"])
        partition = run(remat_run + [f"--check-partition={partitioned}"])
    if "FAIL" in partition or "PASS" not in partition:
        return "partitioned forward + backward differ from the joint function:\n" \
            + partition
    arguments = printed_values(printed, "argument")
    results = printed_values(printed, "result")
    leaves, tree = jax.tree_util.tree_flatten(model.args)
    primals = jax.tree_util.tree_unflatten(tree, [
        value.reshape(np.shape(leaf)) for value, leaf in zip(arguments, leaves)])
    outputs, vjp = jax.vjp(model.fn, *primals)
    cotangent = arguments[len(leaves)].reshape(np.shape(outputs))
    expected = [outputs] + jax.tree_util.tree_leaves(vjp(cotangent))
    worst = 0.0
    for index, (got, want) in enumerate(zip(results, expected)):
        want = np.asarray(want, np.float32).reshape(-1)
        error = np.abs(got - want)
        if np.any(error > ATOL + RTOL * np.abs(want)):
            return f"result {index} differs from JAX by up to {error.max():.3g}"
        worst = max(worst, float(error.max()))
    print(f"{name}: {len(results)} results match JAX (largest error "
          f"{worst:.1e}); partitioned = joint bitwise")
    return None


def main(tools, names):
    failed = False
    for name in names:
        problem = check(tools, name)
        if problem:
            print(f"{name}: FAIL: {problem}")
            failed = True
    print("numeric check:", "FAIL" if failed else "PASS")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
