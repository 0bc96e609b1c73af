"""User models for `python -m remat_torch.compat --models MODULE:FACTORY`
(test/Import/torch2-compat.test)."""

import torch
import torch.nn.functional as F


def gelu_net():
    """A small convolutional classifier: (module, loss of a module)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.GELU(), torch.nn.Flatten(),
        torch.nn.Linear(8 * 14 * 14, 10))
    x, y = torch.randn(4, 3, 16, 16), torch.randint(0, 10, (4,))
    return model, lambda m: F.cross_entropy(m(x), y)


def not_a_pair():
    return 42
