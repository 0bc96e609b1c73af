"""The MaxText story (../shared/seeds/maxtext-mlpwo-not-recomputed.txt) in
process: the Flax Llama decoder layer of remat_jax.models, planned by
remat_jax.plan under MaxText's `full` remat policy (save nothing but the
layer input), with JAX's name semantics (unnamed values are recomputed).
Prints the decision and the reason for every checkpoint name, and the JAX
policy that realises the plan."""

import remat_jax
from remat_jax.models import llama

model = llama()
plan = remat_jax.plan(model.fn, *model.args,
                      policy="save_only_these_names:decoder_layer_input")
for name in plan.export.checkpoint_names:
    entry = plan.report.value(name)
    print(f"{name}: {entry['decision']}: {entry['reason']}")
print("jax policy saves:", ", ".join(plan.saved_names()))
remat_jax.policy(plan)
