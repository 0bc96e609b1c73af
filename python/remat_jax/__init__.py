"""remat for JAX: export a function's joint graph, plan it, and run JAX with
the plan's saved values.

- `export_joint_graph(fn, *example_args) -> str`: the joint forward +
  backward graph (what `jax.vjp` computes), lowered to StableHLO by JAX and
  converted to remat `.mlir` text; `export(...)` also returns the names and
  origins of its values (`JaxExport`).
- `plan(fn, *example_args, **options) -> Plan`: exported and planned in
  this process (`remat.plan`'s options).
- `policy(plan_or_report)`: a `jax.checkpoint` policy that saves exactly
  the values the plan saves, by `checkpoint_name`.
- `checkpoint(fn, **options)`: plan and `jax.checkpoint` in one call.

Imports the shared `remat` package, never `remat_torch`. See
docs/Importers.md ("JAX and StableHLO").
"""

from remat_jax.joint import JaxExport, export, export_joint_graph
from remat_jax.policy import Plan, PolicyError, checkpoint, plan, policy
from remat_jax.trace import ExportError

__all__ = ["ExportError", "JaxExport", "Plan", "PolicyError", "checkpoint",
           "export", "export_joint_graph", "plan", "policy"]
