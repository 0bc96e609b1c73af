"""remat_torch's command lines: remat.cli's conventions (one line per user
mistake, tracebacks for bugs), plus what counts as a user mistake here."""

import remat.cli
from remat.cli import UserError
from remat_torch.capture import TiedParametersError
from remat_torch.emitter import ExportError
from remat_torch.partitioner import RematPartitionError

__all__ = ["UserError", "call_model", "run"]


def run(prog, main, argv=None):
    """remat.cli.run, with the exporter's and the partitioner's refusals
    counted as user errors."""
    return remat.cli.run(prog, main, argv, (ExportError, RematPartitionError))


def call_model(model, inputs, what):
    """`what(model, inputs)`, with a failure inside the user's model (wrong
    input shapes, a factory that needs arguments) reported as a UserError
    naming the input shapes."""
    try:
        return what(model, inputs)
    except TiedParametersError as error:  # the model is fine: its export is not
        raise UserError(str(error)) from error
    except (RuntimeError, TypeError, ValueError) as error:
        shapes = ", ".join(str(list(getattr(x, "shape", ()))) for x in inputs)
        first = str(error).strip().splitlines()[0] if str(error).strip() else \
            type(error).__name__
        raise UserError(f"running the model on inputs of shapes {shapes} "
                        f"failed: {first}") from error
