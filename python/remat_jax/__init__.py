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
- Scanned layers (`lax.scan`, Flax's `nn.scan`): `plan` and `checkpoint`
  plan one iteration of the scan's body, once (`Plan.scan`: per-layer and
  total saved bytes), and `checkpoint` wraps the body in `jax.checkpoint`
  inside the scan; `scan="unroll"` plans the unrolled function instead.
- `maxtext`: MaxText's remat policies as JAX policies; `python -m
  remat_jax.compare` (`remat_jax.compare.compare`) measures them against
  remat's plans on the CPU (not imported here: it needs Flax).

Imports the shared `remat` package, never `remat_torch`. See
docs/Importers.md ("JAX and StableHLO").
"""

from remat_jax import maxtext
from remat_jax.joint import JaxExport, export, export_joint_graph
from remat_jax.policy import (Plan, PolicyError, ScanPlan, checkpoint, plan,
                              policy)
from remat_jax.trace import ExportError, ScanBody

__all__ = ["ExportError", "JaxExport", "Plan", "PolicyError", "ScanBody",
           "ScanPlan", "checkpoint", "export", "export_joint_graph", "maxtext",
           "plan", "policy"]
