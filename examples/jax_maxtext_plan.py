"""Plan a MaxText-style Llama decoder layer (JAX, Flax) with remat, read why
mlpwo is never recomputed, and take gradients with the plan as a jax.checkpoint
policy:

    PYTHONPATH=python .venv/bin/python examples/jax_maxtext_plan.py
"""

import jax, remat_jax
from remat_jax.models import MODELS

model = MODELS["llama"]()                       # MaxText-style decoder layer, Flax
plan = remat_jax.plan(model.fn, *model.args,
                      policy="save_only_these_names:decoder_layer_input")
print(plan.report.value("mlpwo")["reason"])     # why mlpwo is never recomputed
loss = lambda p, x: jax.checkpoint(model.fn, policy=remat_jax.policy(plan))(p, x).sum()
grads = jax.grad(loss)(*model.args)           # JAX saves exactly what remat saves
print(f"gradients of {len(jax.tree_util.tree_leaves(grads))} parameters")
