"""Export a model's joint training graph as remat `.mlir`.

    PYTHONPATH=python /usr/bin/python3 -m remat_torch.export \\
        mypackage.models:build --input-shape 8,32 -o joint.mlir
    PYTHONPATH=python /usr/bin/python3 -m remat_torch.export llama \\
        --layers 2 --dim 256 -o llama.mlir

MODEL is a built-in name (see remat_torch/models.py) or MODULE:FACTORY, a
function returning an nn.Module, a function, or a (module, example_inputs)
pair. Example inputs are random tensors of the --input-shape shapes (one
flag per input) unless the factory returns them.
"""

import argparse
import os
import shutil
import sys
import warnings

import torch

import remat.cli
from remat_torch.cli import call_model, run
from remat_torch.joint import export_joint
from remat_torch.models import MODELS

PROG = "python3 -m remat_torch.export"

_DTYPES = {"float32": torch.float32, "float16": torch.float16,
           "bfloat16": torch.bfloat16, "float64": torch.float64,
           "int64": torch.int64}


SIZES = ("layers", "dim", "heads", "hidden", "seq", "batch", "channels",
         "size", "depth", "vocab")


def add_model_arguments(parser):
    parser.add_argument("model", help="built-in model (" + ", ".join(MODELS) +
                        ") or MODULE:FACTORY")
    parser.add_argument("--input-shape", action="append", default=[],
                        metavar="D0,D1,...",
                        help="shape of one example input (repeat per input)")
    parser.add_argument("--dtype", default="float32", choices=sorted(_DTYPES),
                        help="dtype of the example inputs")
    for size in SIZES:
        parser.add_argument(f"--{size}", type=remat.cli.positive_int,
                            help=f"built-in models: {size}")
    parser.add_argument("--dropout", type=float,
                        help="built-in models: dropout probability (text_block)")


def build_model(args, parser):
    """(module or function, example inputs) from the command line."""
    if args.model in MODELS:
        if args.input_shape:
            parser.error(f"--input-shape: built-in model '{args.model}' "
                         "makes its own inputs (its sizes are options)")
        sizes = {k: getattr(args, k) for k in SIZES + ("dropout",)
                 if getattr(args, k) is not None}
        try:
            return MODELS[args.model](**sizes)
        except TypeError as error:
            parser.error(f"model '{args.model}' does not take these sizes: {error}")
        except (ValueError, RuntimeError) as error:
            raise remat.cli.UserError(f"model '{args.model}' with these sizes: "
                                      f"{error}") from error
    if ":" not in args.model:
        parser.error(f"'{args.model}' is neither a built-in model ("
                     f"{', '.join(MODELS)}) nor MODULE:FACTORY")
    made = remat.cli.call_factory(parser, args.model)
    if isinstance(made, tuple) and len(made) == 2:
        module, inputs = made
        if not isinstance(inputs, (tuple, list)) or not all(
                isinstance(x, torch.Tensor) for x in inputs):
            raise remat.cli.UserError(
                f"{args.model}() returns a pair whose second element is a "
                f"{type(inputs).__name__}, not a tuple of example input "
                "tensors: return the model, or (model, (input, ...))")
        if args.input_shape:
            parser.error(f"--input-shape: {args.model}() returns its own "
                         "example inputs")
        return module, tuple(inputs)
    if not args.input_shape:
        parser.error(f"{args.model} returns no example inputs: give "
                     "--input-shape D0,D1,... once per input")
    dtype = _DTYPES[args.dtype]
    inputs = []
    for text in args.input_shape:
        try:
            shape = [int(d) for d in text.split(",") if d.strip()]
        except ValueError:
            parser.error(f"--input-shape {text}: expected integers "
                         "separated by commas, e.g. 8,32")
        inputs.append(torch.randint(0, 2, shape) if dtype == torch.int64
                      else torch.randn(shape, dtype=dtype))
    return made, tuple(inputs)


def find_remat_opt(explicit, parser):
    """--remat-opt, else $REMAT_BUILD_DIR/bin (as the Python extension is
    found), this checkout's build/bin, then PATH."""
    if explicit:
        return explicit
    here = os.path.dirname(os.path.abspath(__file__))
    builds = [os.environ.get("REMAT_BUILD_DIR"),
              os.path.join(here, "..", "..", "build")]
    for build in filter(None, builds):
        candidate = os.path.join(build, "bin", "remat-opt")
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    found = shutil.which("remat-opt")
    if not found:
        parser.error("remat-opt not found: build it (scripts/setup.sh) or "
                     "pass --remat-opt PATH")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Export the AOTAutograd joint graph of a model as remat "
                    ".mlir (remat.graph = \"joint\").")
    add_model_arguments(parser)
    parser.add_argument("-o", "--output", default="-",
                        help="output .mlir file, or - for stdout")
    parser.add_argument("--function-name", default="joint")
    args = parser.parse_args(argv)
    module, inputs = build_model(args, parser)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exported = call_model(module, inputs, lambda m, i: export_joint(
            m, i, function_name=args.function_name))
    for warning in caught:
        if "remat_torch" in str(warning.message):
            print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    remat.cli.write_output(args.output, exported.mlir)
    return 0


if __name__ == "__main__":
    sys.exit(run(PROG, main))
