"""Export a JAX function's joint training graph as remat `.mlir`.

    PYTHONPATH=python .venv/bin/python -m remat_jax.export llama -o llama.mlir
    PYTHONPATH=python .venv/bin/python -m remat_jax.export llama_scan \\
        --layers 4 --dim 64 -o decoder.mlir
    PYTHONPATH=python .venv/bin/python -m remat_jax.export mypkg.models:build

MODEL is a built-in name (remat_jax/models.py) or MODULE:FACTORY, a function
returning `(fn, example_args)`: `fn(*example_args)` is exported, argument 0
being the parameter pytree (`--param-argnums` to change that).

A function with a top-level lax.scan (nn.scan: llama_scan) is exported in
scan-body mode by default (`--scan body`): one iteration of the scan's
body, which is what remat_jax.plan plans; a note on stderr says so.
`--scan unroll` exports the whole function with every scan unrolled.

`--plan` also plans the graph in this process (remat_jax.plan, with
`--strategy`, `--policy`, `--memory-budget`, `--target`) and prints the
plan's summary on stdout (in scan-body mode: planned once for the body,
per-layer and total saved bytes); the graph (the planned one: unnamed
forward ops tagged must_recompute) is then written only with `-o FILE`.

A user's mistake (an unknown model, a function that JAX cannot trace on its
example arguments or that remat cannot export, an unwritable file) is one
line, `python -m remat_jax.export: error: ...`, and exit status 1;
REMAT_TRACEBACK=1 shows the traceback.
"""

import argparse
import sys
import warnings

import remat.cli
from remat.cli import UserError
from remat_jax.joint import export
from remat_jax.models import MODELS, Model
from remat_jax.policy import PolicyError, plan_export, policy
from remat_jax.trace import ExportError

PROG = "python -m remat_jax.export"
SIZES = ("batch", "seq", "dim", "heads", "hidden", "layers")


def _build(parser, args):
    if args.model in MODELS:
        sizes = {k: getattr(args, k) for k in SIZES
                 if getattr(args, k) is not None}
        if args.dtype:
            sizes["dtype"] = args.dtype
        try:
            return MODELS[args.model](**sizes)
        except TypeError as error:
            parser.error(f"model '{args.model}' does not take these options: "
                         f"{error}")
    if ":" not in args.model:
        parser.error(f"'{args.model}' is neither a built-in model ("
                     f"{', '.join(MODELS)}) nor MODULE:FACTORY")
    made = remat.cli.call_factory(parser, args.model)
    if isinstance(made, Model):
        return made
    if isinstance(made, tuple) and len(made) == 2:
        return Model(made[0], tuple(made[1]), args.model)
    raise UserError(f"{args.model}() returned {type(made).__name__}; "
                    "expected (fn, example_args)")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Export the joint (forward + backward) graph of a JAX "
                    "function as remat .mlir (remat.graph = \"joint\").")
    parser.add_argument("model", help="built-in model (" + ", ".join(MODELS) +
                        ") or MODULE:FACTORY returning (fn, example_args)")
    parser.add_argument("-o", "--output", default="-",
                        help="output .mlir file, or - for stdout")
    parser.add_argument("--function-name", default="joint")
    parser.add_argument("--param-argnums", default="0", metavar="I,J",
                        help="arguments that are parameter pytrees "
                        "(default 0; empty for none)")
    parser.add_argument("--recompute-unnamed", action="store_true",
                        help="tag forward ops without a checkpoint_name "
                        "remat.must_recompute, as a JAX name policy treats them")
    parser.add_argument("--scan", choices=("body", "unroll"),
                        help="body: export (and plan) one iteration of the "
                        "function's top-level lax.scan, the default when it "
                        "has one; unroll: the whole function, every scan "
                        "unrolled")
    parser.add_argument("--plan", action="store_true",
                        help="plan in this process and print the plan's "
                        "summary on stdout (the graph goes to -o FILE only)")
    parser.add_argument("--strategy", help="with --plan: remat-plan's strategy")
    parser.add_argument("--policy", help="with --plan: a checkpoint policy "
                        "(save_only_these_names:NAME,...)")
    parser.add_argument("--memory-budget", help="with --plan: bytes, a "
                        "fraction or 512MiB; per iteration in scan-body mode")
    parser.add_argument("--target", help="with --plan: remat-plan's target")
    for size in SIZES:
        parser.add_argument(f"--{size}", type=remat.cli.positive_int,
                            help=f"built-in models: {size}")
    parser.add_argument("--dtype", choices=("float32", "bfloat16", "float16"),
                        help="built-in models: activation and parameter dtype")
    args = parser.parse_args(argv)
    try:
        param_argnums = tuple(int(i) for i in args.param_argnums.split(",")
                              if i.strip())
    except ValueError:
        parser.error(f"--param-argnums {args.param_argnums}: expected "
                     "integers separated by commas")
    planner = {key: getattr(args, key) for key in
               ("strategy", "policy", "memory_budget", "target")
               if getattr(args, key) is not None}
    if planner and not args.plan:
        parser.error("--" + next(iter(planner)).replace("_", "-") +
                     " is a planner option: add --plan")
    model = _build(parser, args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exported = export(model.fn, *model.args,
                              param_argnums=param_argnums,
                              function_name=args.function_name,
                              recompute_unnamed=args.recompute_unnamed or
                              args.plan, scan=args.scan)
        except (TypeError, ValueError) as error:
            if args.model in MODELS:
                raise  # a bug in a built-in model or in remat_jax
            first = (str(error).strip().splitlines() or [type(error).__name__])[0]
            raise UserError(f"tracing {args.model} failed: {first}") from error
    for warning in caught:
        if str(warning.message).startswith("remat_jax"):
            print(f"{PROG}: warning: {warning.message}", file=sys.stderr)
    if exported.scan is not None and not args.plan:
        scan = exported.scan
        print(f"{PROG}: note: exported one iteration of the body of the "
              f"lax.scan at {scan.where} ({scan.length} iterations); the ops "
              "outside the scan are not in the graph (--scan unroll exports "
              "the whole function)", file=sys.stderr)
    if args.plan:
        try:
            planned = plan_export(exported, **planner)
        except (TypeError, ValueError) as error:
            raise UserError(str(error)) from None
        if args.output != "-":
            remat.cli.write_output(args.output, exported.mlir)
        sys.stdout.write(planned.summary())
        try:
            policy_text = describe_policy(planned)
        except PolicyError as error:
            policy_text = f"none expresses this plan: {error}"
        print(f"JAX policy: {policy_text}")
    else:
        remat.cli.write_output(args.output, exported.mlir)
    return 0


def describe_policy(planned):
    """The JAX checkpoint policy of a plan, as text."""
    policy(planned)  # raises PolicyError when no name policy expresses it
    names = planned.saved_names()
    if not names:
        return "nothing_saveable"
    return "save_only_these_names(" + ", ".join(names) + ")"


def run(argv=None):
    """main(), with a user's mistake reported as one line and status 1."""
    return remat.cli.run(PROG, main, argv, (ExportError, PolicyError))


if __name__ == "__main__":
    sys.exit(run())
