"""remat: what every Python frontend shares.

- `plan(mlir_text, **options) -> Report`: remat's planner in this process
  (the `_remat` extension built from lib/Bindings/Python), with the options
  of `remat-plan` as keywords (`strategy`, `memory_budget`, `target`,
  `target_file`, `policy`, `allow_inexact_derivation`, `recompute_banned`).
- `Report`: the JSON report, read.
- `PlanError`: the planner's refusal, with its message (and the smallest
  reachable peak for an infeasible budget).

Frontends (`remat_torch`, `remat_jax`) build the `.mlir` text of a
joint graph and read the report; they import this package, never the
reverse. See docs/Python.md.
"""

from remat.planner import PlanError, option_string, plan, plan_text
from remat.report import Report

__all__ = ["PlanError", "Report", "option_string", "plan", "plan_text"]
