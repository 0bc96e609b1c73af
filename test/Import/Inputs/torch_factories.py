"""MODULE:FACTORY targets for torch-export-errors.test: factories that are
the user's mistakes, found only when called."""

import torch


def raising():
    """A factory whose own code fails."""
    raise RuntimeError("factory exploded")


def pair_with_function():
    """compat's (module, loss_of) convention, not export's (module, inputs)."""
    return torch.nn.Linear(4, 4), lambda output: output.sum()
