"""MaxText's rematerialization policies, as JAX checkpoint policies.

Taken from MaxText's `Decoder.get_remat_policy` and `Decoder.minimal_policy`
(AI-Hypercomputer/maxtext, src/MaxText/layers/decoders.py, formerly
MaxText/layers/decoders.py; earlier versions spelled `minimal` as
`checkpoint_dots_with_no_batch_dims`, current ones as the names below).
Every policy but `full` is `jax.checkpoint_policies.save_only_these_names`
of the names listed; `full` is `policy=None` (nothing saveable).

MaxText applies the policy to each decoder layer separately
(`nn.remat(layer, policy=...)` in `Decoder.set_remat_policy`), so a layer's
input is always kept: it is the argument of that layer's checkpoint.
remat_jax wraps a whole function in one `jax.checkpoint`; there, the same
thing is the name MaxText gives each layer's input,
`checkpoint_name(inputs, "decoder_layer_input")` (decoders.py, llama2.py).
`stack_names(policy)` is a policy's names with that one added: what the
policy saves when one `jax.checkpoint` wraps the whole decoder stack.

Some names only exist in MaxText configurations the built-in models do
not have (`absent_names` says which a model lacks):

- `qkv_proj`: the fused query/key/value projection (`fused_qkv`,
  attentions.py); the models project separately (`query_proj`, ...);
- `mlpwi`: the fused `wi_0`/`wi_1` projection (`fused_mlp`, linears.py);
  the models name them `mlpwi_0`, `mlpwi_1`;
- `context`: the residuals of MaxText's attention kernels: TPU splash
  attention (`residual_checkpoint_name="context"`) and cuDNN flash
  attention (output and log-sum-exp) in attention_op.py. The dot-product
  path (`apply_attention_dot`), which the models' einsum attention is,
  names nothing `context`, so on them `minimal_with_context` is `minimal`
  and the models do not get the name.
"""

import jax

DECODER_LAYER_INPUT = "decoder_layer_input"

# Policy -> the checkpoint names MaxText's save_only_these_names lists, in
# MaxText's order; policies listed from the fewest names saved to the most
# (each saves a subset of the names of every policy below it, except that
# save_out_proj and save_qkv_proj are disjoint).
POLICIES = {
    "full": (),
    "save_out_proj": ("out_proj",),
    "save_qkv_proj": ("query_proj", "value_proj", "key_proj", "qkv_proj"),
    "save_dot_except_mlp": ("query_proj", "value_proj", "key_proj",
                            "qkv_proj", "out_proj"),
    "save_dot_except_mlpwi": ("query_proj", "value_proj", "key_proj",
                              "qkv_proj", "out_proj", "mlpwo"),
    "minimal": ("query_proj", "value_proj", "key_proj", "qkv_proj",
                "out_proj", "mlpwi_0", "mlpwi_1", "mlpwi", "mlpwo"),
    "minimal_with_context": ("query_proj", "value_proj", "key_proj",
                             "qkv_proj", "out_proj", "mlpwi_0", "mlpwi_1",
                             "mlpwi", "mlpwo", "context"),
}


def _names(policy):
    if policy not in POLICIES:
        raise ValueError(f"unknown MaxText remat policy '{policy}'; expected "
                         "one of " + ", ".join(POLICIES))
    return POLICIES[policy]


def jax_policy(policy):
    """MaxText's policy object for one decoder layer, as get_remat_policy
    returns it (`None` for `full`: jax.checkpoint's default, nothing
    saveable)."""
    names = _names(policy)
    if not names:
        return None
    return jax.checkpoint_policies.save_only_these_names(*names)


def stack_names(policy):
    """The names `policy` saves when one jax.checkpoint wraps the whole
    decoder stack: MaxText's names and `decoder_layer_input` (see the module
    docstring)."""
    return (DECODER_LAYER_INPUT,) + _names(policy)


def stack_policy(policy):
    """`save_only_these_names(*stack_names(policy))`."""
    return jax.checkpoint_policies.save_only_these_names(*stack_names(policy))


def absent_names(policy, available):
    """The names of `policy` that no value in `available` (checkpoint names
    of a model) has: JAX's policy ignores them, remat's refuses unknown
    names, so its spelling leaves them out."""
    return [name for name in stack_names(policy) if name not in available]


def remat_spelling(policy, available):
    """The policy as remat-plan's `policy` option on a model whose values
    have the checkpoint names `available`: `save_only_these_names:` of the
    stack names the model has."""
    present = [name for name in stack_names(policy) if name in available]
    return "save_only_these_names:" + ",".join(present)
