"""Built-in models for `python -m remat_jax.export` and the tests.

Each builder returns a `Model`: a function `fn(params, *inputs)` in Flax's
`apply` convention (argument 0 is the parameter pytree), example arguments,
and its parameters. The Llama decoder layer follows MaxText
(MaxText/layers/llama2.py, attentions.py, linears.py): the same structure
and the same `checkpoint_name`s, at small sizes.
"""

from dataclasses import dataclass
from typing import Callable, Tuple

import numpy as np

import flax.linen as nn
import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name


@dataclass
class Model:
    fn: Callable
    args: Tuple
    description: str


class RMSNorm(nn.Module):
    """MaxText's RMSNorm: normalise in f32, scale in the model's dtype."""
    epsilon: float = 1e-6

    @nn.compact
    def __call__(self, x):
        scale = self.param("scale", nn.initializers.ones, (x.shape[-1],),
                           x.dtype)
        x32 = x.astype(jnp.float32)
        mean2 = jnp.mean(jnp.square(x32), axis=-1, keepdims=True)
        y = (x32 * jax.lax.rsqrt(mean2 + self.epsilon)).astype(x.dtype)
        return y * scale


class Attention(nn.Module):
    """Causal multi-head attention with MaxText's projection names."""
    heads: int
    head_dim: int

    @nn.compact
    def __call__(self, x):
        def projection(name):
            return nn.DenseGeneral((self.heads, self.head_dim), use_bias=False,
                                   dtype=x.dtype, param_dtype=x.dtype,
                                   name=name)(x)
        query = checkpoint_name(projection("query"), "query_proj")
        key = checkpoint_name(projection("key"), "key_proj")
        value = checkpoint_name(projection("value"), "value_proj")
        seq = x.shape[1]
        scores = jnp.einsum("bshd,bthd->bhst", query, key) / np.sqrt(
            self.head_dim).astype(x.dtype)
        causal = np.tril(np.ones((seq, seq), dtype=bool))
        scores = jnp.where(causal, scores, jnp.asarray(-1e9, x.dtype))
        probs = jax.nn.softmax(scores, axis=-1)
        context = jnp.einsum("bhst,bthd->bshd", probs, value)
        out = nn.DenseGeneral(x.shape[-1], axis=(-2, -1), use_bias=False,
                              dtype=x.dtype, param_dtype=x.dtype,
                              name="out")(context)
        return checkpoint_name(out, "out_proj")


class MlpBlock(nn.Module):
    """SwiGLU: wo(silu(wi_0(x)) * wi_1(x))."""
    hidden: int

    @nn.compact
    def __call__(self, x):
        def dense(features, name):
            return nn.DenseGeneral(features, use_bias=False, dtype=x.dtype,
                                   param_dtype=x.dtype, name=name)
        gate = checkpoint_name(dense(self.hidden, "wi_0")(x), "mlpwi_0")
        up = checkpoint_name(dense(self.hidden, "wi_1")(x), "mlpwi_1")
        out = dense(x.shape[-1], "wo")(nn.silu(gate) * up)
        return checkpoint_name(out, "mlpwo")


class DecoderLayer(nn.Module):
    """MaxText's LlamaDecoderLayer: pre-norm attention and SwiGLU MLP, each
    with a residual connection."""
    heads: int
    head_dim: int
    hidden: int

    @nn.compact
    def __call__(self, inputs):
        inputs = checkpoint_name(inputs, "decoder_layer_input")
        lnx = RMSNorm(name="pre_self_attention_layer_norm")(inputs)
        attention = Attention(self.heads, self.head_dim, name="self_attention")(lnx)
        intermediate = inputs + attention
        hidden = RMSNorm(name="post_self_attention_layer_norm")(intermediate)
        mlp = MlpBlock(self.hidden, name="mlp")(hidden)
        return mlp + intermediate


class ScannedDecoder(nn.Module):
    """`layers` decoder layers under `nn.scan`, as MaxText stacks them with
    `scan_layers=True` (parameters stacked along axis 0)."""
    layers: int
    heads: int
    head_dim: int
    hidden: int

    @nn.compact
    def __call__(self, x):
        class Step(nn.Module):
            heads: int
            head_dim: int
            hidden: int

            @nn.compact
            def __call__(self, carry, _):
                layer = DecoderLayer(self.heads, self.head_dim, self.hidden,
                                     name="layer")
                return layer(carry), None

        scanned = nn.scan(Step, variable_axes={"params": 0},
                          split_rngs={"params": True}, length=self.layers)
        y, _ = scanned(self.heads, self.head_dim, self.hidden,
                       name="decoder")(x, None)
        return y


def _flax_model(module, x, description):
    params = module.init(jax.random.PRNGKey(0), x)["params"]

    def fn(params, x):
        return module.apply({"params": params}, x)
    return Model(fn, (params, x), description)


def _input(batch, seq, dim, dtype):
    return jax.random.normal(jax.random.PRNGKey(1), (batch, seq, dim),
                             jnp.dtype(dtype))


def llama(batch=2, seq=8, dim=32, heads=4, hidden=64, dtype="float32"):
    """One MaxText-style Llama decoder layer; output: the layer output."""
    layer = DecoderLayer(heads, dim // heads, hidden)
    return _flax_model(layer, _input(batch, seq, dim, dtype),
                       "MaxText-style Llama decoder layer")


def llama_scan(batch=2, seq=8, dim=32, heads=4, hidden=64, layers=2,
               dtype="float32"):
    """`layers` Llama decoder layers under nn.scan (MaxText's
    scan_layers)."""
    decoder = ScannedDecoder(layers, heads, dim // heads, hidden)
    return _flax_model(decoder, _input(batch, seq, dim, dtype),
                       "MaxText-style Llama decoder, layers under nn.scan")


def mlp(batch=8, dim=32, hidden=64, layers=2, dtype="float32"):
    """A tanh MLP in plain JAX with a squared-error loss; each hidden
    pre-activation is named `hidden_<i>`."""
    keys = jax.random.split(jax.random.PRNGKey(0), layers + 2)
    sizes = [dim] + [hidden] * layers + [dim]
    params = {f"w{i}": jax.random.normal(keys[i], (sizes[i], sizes[i + 1]),
                                         jnp.dtype(dtype)) / np.sqrt(sizes[i])
              for i in range(layers + 1)}
    x = jax.random.normal(keys[-1], (batch, dim), jnp.dtype(dtype))

    def fn(params, x):
        h = x
        for i in range(layers):
            h = jnp.tanh(checkpoint_name(h @ params[f"w{i}"], f"hidden_{i}"))
        y = h @ params[f"w{layers}"]
        return jnp.sum(jnp.square(y - x))
    return Model(fn, (params, x), "tanh MLP with a squared-error loss")


MODELS = {"mlp": mlp, "llama": llama, "llama_scan": llama_scan}
