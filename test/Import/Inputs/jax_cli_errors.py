"""`python -m remat_jax.export` on bad input, several cases in one process
(importing JAX once): prints each exit status and the error line (the last
line of stderr: argparse's usage comes before it for a mistake in the
arguments, status 2)."""

import contextlib
import io
import sys

from remat_jax.export import run

CASES = [
    ["jax_functions:not_a_pair"],
    ["jax_functions:mismatched"],
    ["no_such_module:build"],
    ["no_such_model"],
    ["jax_functions:raises"],
    ["jax_functions:needs_size"],
    ["mlp", "--batch", "0"],
]

for argv in CASES:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            status = run(argv + ["-o", "/dev/null"])
        except SystemExit as exit:  # argparse's parser.error
            status = exit.code
    last = stderr.getvalue().strip().splitlines()[-1]
    print(f"{' '.join(argv)}: exit {status}: {last}")
sys.exit(0)
