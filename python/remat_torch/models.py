"""Built-in models for export and comparison, each a factory
`name(**sizes) -> (module, example_inputs)`.

Sizes are small by default so that tracing and planning run in seconds on a
CPU; pass larger ones for realistic graphs. Most modules return a sum of
their outputs (only shapes matter for planning); the models added for
`remat_torch.measure` (resnet18, resnet50, mobilenet_v2, vit, gpt2, bert)
end in a cross-entropy loss against random labels, as a real training step
does.
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


class _Classified(nn.Module):
    """A classifier trained with cross-entropy: `inner(x)` gives logits."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x, labels):
        return F.cross_entropy(self.inner(x), labels)


class GPT2Attention(nn.Module):
    """GPT-2's causal self-attention: fused qkv projection, dropout on the
    attention probabilities and after the output projection."""

    def __init__(self, dim, heads, seq, dropout):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.full((seq, seq), float("-inf")).triu(1))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (t.view(b, s, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + self.mask
        probs = self.attn_dropout(torch.softmax(scores, dim=-1))
        y = (probs @ v).transpose(1, 2).reshape(b, s, d)
        return self.resid_dropout(self.c_proj(y))


class GPT2Layer(nn.Module):
    """A GPT-2 block with dropout (pre-LN, GELU (tanh) MLP, residuals)."""

    def __init__(self, dim, heads, seq, dropout):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = GPT2Attention(dim, heads, seq, dropout)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = nn.Linear(dim, 4 * dim)
        self.mlp_proj = nn.Linear(4 * dim, dim)
        self.mlp_dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        h = F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.mlp_dropout(self.mlp_proj(h))


class GPT2(nn.Module):
    """A GPT-2 language model: token and position embeddings, dropout,
    `layers` blocks, final LayerNorm, LM head tied to the token embedding,
    next-token cross-entropy."""

    def __init__(self, layers, dim, heads, seq, vocab, dropout):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(seq, dim)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(GPT2Layer(dim, heads, seq, dropout)
                                    for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)
        self.register_buffer("positions", torch.arange(seq))
        for embedding in (self.wte, self.wpe):  # GPT-2's initialisation
            nn.init.normal_(embedding.weight, std=0.02)

    def forward(self, ids, targets):
        x = self.drop(self.wte(ids) + self.wpe(self.positions))
        for block in self.blocks:
            x = block(x)
        logits = self.ln_f(x) @ self.wte.weight.t()
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               targets.reshape(-1))


class BertLayer(nn.Module):
    """A BERT encoder layer: post-LN (residual add, then LayerNorm),
    bidirectional attention with a padding mask, GELU (erf) feed-forward,
    dropout on the attention probabilities and before each residual add."""

    def __init__(self, dim, heads, hidden, dropout):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.attn_dropout = nn.Dropout(dropout)
        self.attn_out = nn.Linear(dim, dim)
        self.attn_out_dropout = nn.Dropout(dropout)
        self.attn_norm = nn.LayerNorm(dim, eps=1e-12)
        self.intermediate = nn.Linear(dim, hidden)
        self.output = nn.Linear(hidden, dim)
        self.output_dropout = nn.Dropout(dropout)
        self.output_norm = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x, mask):
        b, s, d = x.shape
        q, k, v = (proj(x).view(b, s, self.heads, -1).transpose(1, 2)
                   for proj in (self.query, self.key, self.value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads) + mask
        probs = self.attn_dropout(torch.softmax(scores, dim=-1))
        context = (probs @ v).transpose(1, 2).reshape(b, s, d)
        x = self.attn_norm(x + self.attn_out_dropout(self.attn_out(context)))
        h = self.output(F.gelu(self.intermediate(x)))
        return self.output_norm(x + self.output_dropout(h))


class Bert(nn.Module):
    """A BERT-style encoder trained as a masked language model: word,
    position and token-type embeddings, LayerNorm, dropout, `layers` post-LN
    layers, and an MLM head (dense, GELU, LayerNorm, decoder tied to the
    word embedding) with cross-entropy on every position. The last quarter
    of each sequence is padding, masked out of attention."""

    def __init__(self, layers, dim, heads, hidden, seq, vocab, dropout):
        super().__init__()
        self.word = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(seq, dim)
        self.token_type = nn.Embedding(2, dim)
        self.embed_norm = nn.LayerNorm(dim, eps=1e-12)
        self.embed_dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList(BertLayer(dim, heads, hidden, dropout)
                                    for _ in range(layers))
        self.head_dense = nn.Linear(dim, dim)
        self.head_norm = nn.LayerNorm(dim, eps=1e-12)
        self.head_bias = nn.Parameter(torch.zeros(vocab))
        self.register_buffer("positions", torch.arange(seq))
        self.register_buffer("token_types", torch.zeros(seq, dtype=torch.long))
        padding = torch.zeros(seq)
        padding[seq - seq // 4:] = float("-inf")
        self.register_buffer("mask", padding.view(1, 1, 1, seq))
        for embedding in (self.word, self.position, self.token_type):
            nn.init.normal_(embedding.weight, std=0.02)  # BERT's

    def forward(self, ids, labels):
        x = (self.word(ids) + self.position(self.positions) +
             self.token_type(self.token_types))
        x = self.embed_dropout(self.embed_norm(x))
        for layer in self.layers:
            x = layer(x, self.mask)
        h = self.head_norm(F.gelu(self.head_dense(x)))
        logits = h @ self.word.weight.t() + self.head_bias
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]),
                               labels.reshape(-1))


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


def _labels(batch, classes):
    return torch.randint(0, classes, (batch,))


def _torchvision_resnet(depth, size, batch, classes):
    import torchvision

    factory = getattr(torchvision.models, f"resnet{depth}")
    return (_Classified(factory(num_classes=classes)),
            (torch.randn(batch, 3, size, size), _labels(batch, classes)))


def resnet18(size=32, batch=2, classes=10):
    """torchvision's ResNet-18 trained with cross-entropy (`resnet` is the
    same network with its logits summed)."""
    return _torchvision_resnet(18, size, batch, classes)


def resnet50(size=32, batch=2, classes=10):
    """torchvision's ResNet-50 trained with cross-entropy."""
    return _torchvision_resnet(50, size, batch, classes)


def mobilenet_v2(size=32, batch=2, classes=10, dropout=0.2):
    """torchvision's MobileNetV2 (dropout before the classifier) trained with
    cross-entropy."""
    import torchvision

    model = torchvision.models.mobilenet_v2(num_classes=classes, dropout=dropout)
    return (_Classified(model),
            (torch.randn(batch, 3, size, size), _labels(batch, classes)))


def vit(size=32, patch=4, layers=2, heads=4, dim=64, hidden=128, batch=2,
        classes=10, dropout=0.1):
    """torchvision's VisionTransformer at small dims (dropout after the
    embedding, in each MLP and after attention; attention dropout too),
    trained with cross-entropy. torchvision initialises the classification
    head to zero, which would leave every other gradient zero in one step;
    it is drawn at random here instead."""
    from torchvision.models.vision_transformer import VisionTransformer

    model = VisionTransformer(image_size=size, patch_size=patch,
                              num_layers=layers, num_heads=heads,
                              hidden_dim=dim, mlp_dim=hidden, dropout=dropout,
                              attention_dropout=dropout, num_classes=classes)
    nn.init.normal_(model.heads.head.weight, std=0.02)
    return (_Classified(model),
            (torch.randn(batch, 3, size, size), _labels(batch, classes)))


def gpt2(layers=2, dim=64, heads=4, seq=16, batch=2, vocab=128, dropout=0.1):
    """A GPT-2 language model with dropout (embeddings, attention
    probabilities, residual branches), next-token cross-entropy."""
    ids = torch.randint(0, vocab, (batch, seq + 1))
    return (GPT2(layers, dim, heads, seq, vocab, dropout),
            (ids[:, :-1].contiguous(), ids[:, 1:].contiguous()))


def bert(layers=2, dim=64, heads=4, hidden=256, seq=16, batch=2, vocab=128,
         dropout=0.1):
    """A BERT-style encoder (post-LN, GELU, dropout) with a masked-LM loss."""
    return (Bert(layers, dim, heads, hidden, seq, vocab, dropout),
            (torch.randint(0, vocab, (batch, seq)),
             torch.randint(0, vocab, (batch, seq))))


MODELS = {"mlp": mlp, "llama": llama, "gpt2_block": gpt2_block,
          "conv_block": conv_block, "pool_block": pool_block,
          "text_block": text_block, "resnet": resnet, "resnet18": resnet18,
          "resnet50": resnet50, "mobilenet_v2": mobilenet_v2, "vit": vit,
          "gpt2": gpt2, "bert": bert}
