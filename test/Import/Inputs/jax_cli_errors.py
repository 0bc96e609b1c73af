"""`python -m remat_jax.export` on bad input, several cases in one process
(importing JAX once): prints each exit status and the error line."""

import contextlib
import io
import sys

from remat_jax.export import run

CASES = [
    ["jax_functions:not_a_pair"],
    ["jax_functions:mismatched"],
    ["no_such_module:build"],
    ["no_such_model"],
]

for argv in CASES:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        status = run(argv + ["-o", "/dev/null"])
    print(f"{' '.join(argv)}: exit {status}: {stderr.getvalue().strip()}")
sys.exit(0)
