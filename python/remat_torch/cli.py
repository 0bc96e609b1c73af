"""How remat_torch's command lines report errors.

A user's mistake (a missing or unwritable file, a model that fails on the
given inputs, a graph or budget remat refuses) is one line on stderr,
`prog: error: ...`, and exit status 1; anything else is a bug in remat and
keeps its traceback. REMAT_TRACEBACK=1 shows the traceback of user errors
too.
"""

import os
import sys

import remat
from remat_torch.emitter import ExportError


class UserError(Exception):
    """A mistake in what the user asked for; the message says what to fix."""


def _one_line(error):
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    text = str(error).strip()
    return text if text else type(error).__name__


def run(prog, main, argv=None):
    """Runs `main(argv)`, turning user errors into one line and status 1."""
    from remat_torch.partitioner import RematPartitionError

    try:
        return main(argv)
    except (UserError, ExportError, RematPartitionError, remat.PlanError,
            OSError) as error:
        if os.environ.get("REMAT_TRACEBACK") == "1":
            raise
        print(f"{prog}: error: {_one_line(error)}", file=sys.stderr)
        return 1


def call_model(model, inputs, what):
    """`what(model, inputs)`, with a failure inside the user's model (wrong
    input shapes, a factory that needs arguments) reported as a UserError
    naming the input shapes."""
    try:
        return what(model, inputs)
    except (RuntimeError, TypeError, ValueError) as error:
        shapes = ", ".join(str(list(getattr(x, "shape", ()))) for x in inputs)
        first = str(error).strip().splitlines()[0] if str(error).strip() else \
            type(error).__name__
        raise UserError(f"running the model on inputs of shapes {shapes} "
                        f"failed: {first}") from error
