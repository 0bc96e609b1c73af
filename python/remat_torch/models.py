"""Built-in models for export and comparison, each a factory
`name(**sizes) -> (module, example_inputs)`.

Sizes are small by default so that tracing and planning run in seconds on a
CPU; pass larger ones for realistic graphs (shapes only matter, no training
happens).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self, dims=(32, 64, 64, 16)):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x.sum()


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class LlamaBlock(nn.Module):
    """Pre-norm decoder layer: RMSNorm, causal multi-head attention without
    biases, RMSNorm, SwiGLU MLP, residuals (Llama's structure, no rotary)."""

    def __init__(self, dim, heads, hidden, seq):
        super().__init__()
        self.heads = heads
        self.attention_norm = RMSNorm(dim)
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = RMSNorm(dim)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        mask = torch.full((seq, seq), float("-inf")).triu(1)
        self.register_buffer("mask", mask)

    def forward(self, x):
        b, s, d = x.shape
        h = self.attention_norm(x)
        q = self.wq(h).view(b, s, self.heads, -1).transpose(1, 2)
        k = self.wk(h).view(b, s, self.heads, -1).transpose(1, 2)
        v = self.wv(h).view(b, s, self.heads, -1).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + self.mask
        attn = torch.softmax(scores, dim=-1) @ v
        x = x + self.wo(attn.transpose(1, 2).reshape(b, s, d))
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class Llama(nn.Module):
    def __init__(self, layers, dim, heads, hidden, seq):
        super().__init__()
        self.layers = nn.ModuleList(LlamaBlock(dim, heads, hidden, seq)
                                    for _ in range(layers))
        self.norm = RMSNorm(dim)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.norm(x).sum()


class GPT2Block(nn.Module):
    """GPT-2 block: LayerNorm, causal attention with a fused qkv projection,
    LayerNorm, GELU (tanh) MLP, residuals."""

    def __init__(self, dim, heads, seq):
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(dim)
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = nn.Linear(dim, 4 * dim)
        self.mlp_proj = nn.Linear(4 * dim, dim)
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + self.mask
        y = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, s, d)
        x = x + self.c_proj(y)
        x = x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))
        return x.sum()


class ConvBlock(nn.Module):
    """conv -> batch norm -> relu -> conv -> batch norm + residual -> relu
    (a ResNet basic block)."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x).sum()


class PoolBlock(nn.Module):
    """A ResNet stem and basic block with pooling: conv (stride 2, bias) ->
    batch norm -> relu -> max pool (3, stride 2, padding 1) -> conv ->
    batch norm + residual -> relu -> average pool (2) -> adaptive average
    pool to 2x2."""

    def __init__(self, channels):
        super().__init__()
        self.stem = nn.Conv2d(3, channels, 3, stride=2, padding=1)
        self.bn0 = nn.BatchNorm2d(channels)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.avg = nn.AvgPool2d(2)
        self.head = nn.AdaptiveAvgPool2d(2)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn0(self.stem(x))))
        y = torch.relu(self.bn1(self.conv(y)) + y)
        return self.head(self.avg(y)).sum()


class TextBlock(nn.Module):
    """Token embedding -> LayerNorm -> dropout -> linear -> GELU -> LayerNorm,
    summed (the ops of a transformer's input and MLP path)."""

    def __init__(self, vocab, dim, hidden, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(dim, hidden)
        self.out_norm = nn.LayerNorm(hidden)

    def forward(self, ids):
        h = self.drop(self.norm(self.embed(ids)))
        return self.out_norm(F.gelu(self.fc(h))).sum()


class _Summed(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return self.inner(x).sum()


def mlp(batch=8, dims=(32, 64, 64, 16)):
    return MLP(dims), (torch.randn(batch, dims[0]),)


def llama(layers=2, dim=64, heads=4, hidden=128, seq=16, batch=2):
    return Llama(layers, dim, heads, hidden, seq), (torch.randn(batch, seq, dim),)


def gpt2_block(dim=64, heads=4, seq=16, batch=2):
    return GPT2Block(dim, heads, seq), (torch.randn(batch, seq, dim),)


def conv_block(channels=8, size=8, batch=2):
    return ConvBlock(channels), (torch.randn(batch, channels, size, size),)


def resnet(depth=18, size=32, batch=2, classes=10):
    import torchvision

    factory = getattr(torchvision.models, f"resnet{depth}")
    return _Summed(factory(num_classes=classes)), (torch.randn(batch, 3, size, size),)


def pool_block(channels=8, size=32, batch=2):
    return PoolBlock(channels), (torch.randn(batch, 3, size, size),)


def text_block(dim=32, hidden=64, seq=8, batch=2, vocab=50, dropout=0.1):
    return (TextBlock(vocab, dim, hidden, dropout),
            (torch.randint(0, vocab, (batch, seq)),))


MODELS = {"mlp": mlp, "llama": llama, "gpt2_block": gpt2_block,
          "conv_block": conv_block, "pool_block": pool_block,
          "text_block": text_block, "resnet": resnet}
