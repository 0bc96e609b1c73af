"""remat: what every Python frontend shares.

- `plan(mlir_text, **options) -> Report`: remat's planner in this process
  (the `_remat` extension built from lib/Bindings/Python), with the options
  of `remat-plan` as keywords (`strategy`, `memory_budget`, `target`,
  `target_file`, `policy`, `allow_inexact_derivation`, `recompute_banned`,
  `optimal_time_limit`, `progress`, ...: `remat.planner.OPTIONS`);
  `plan_all` returns the Report of every joint function.
- `Report`: the JSON report, read.
- `PlanError`: the planner's refusal, with its message (and, for an
  infeasible budget, the smallest reachable activation peak and total).
- `check_options(**options)`: the planner's verdict on options, without a
  graph (ValueError, or a `PlanWarning` for an option it ignores).
- `fingerprint(*modules)`: a digest of the planner's code (the extension
  and the Python sources), for caches of plans.

Frontends (`remat_torch`, `remat_jax`) build the `.mlir` text of a
joint graph and read the report; they import this package, never the
reverse. See docs/Python.md.
"""

from remat.planner import (PlanError, PlanWarning, check_options, fingerprint,
                           option_string, plan, plan_all, plan_text)
from remat.report import Report

__all__ = ["PlanError", "PlanWarning", "Report", "check_options",
           "fingerprint", "option_string", "plan", "plan_all", "plan_text"]
