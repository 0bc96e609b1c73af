"""Models whose NN ops do not match the typed remat ops exactly: each such
use stays remat.opaque and the export warning gives the reason
(torch-nn-export.test)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Declined(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)      # transposed
        self.conv1d = nn.Conv1d(4, 4, 3, padding=1)           # 1-D
        self.norm = nn.LayerNorm(8, elementwise_affine=False)  # no weight
        self.embed = nn.Embedding(10, 8, padding_idx=0)       # padding row

    def forward(self, x, ids):
        y = self.up(x)                                        # 2x4x8x8
        y = F.max_pool2d(y, 3, stride=2, ceil_mode=True)      # 8 -> 4 (floor: 3)
        y = self.conv1d(y.flatten(2))                         # 2x4x16
        y = self.norm(y[:, :, :8]) + self.embed(ids)
        return y.sum()


def build():
    return Declined(), (torch.randn(2, 4, 4, 4), torch.randint(0, 10, (2, 4)))
