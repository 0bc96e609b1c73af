"""Plan a remat joint function in this process.

`plan(mlir_text, strategy=..., memory_budget=..., ...)` runs the same passes
as `remat-opt -remat-plan="..." -remat-report=format=json`, through the
`_remat` extension, and returns a `Report`. Keyword options have the names
of remat-plan's options with `_` for `-`, and the same value syntax.
"""

import json
import re

from remat import _native
from remat.report import Report

STRATEGIES = ("save-all", "recompute-all", "min-cut", "budget", "optimal")
# Python keyword -> remat-plan option.
OPTIONS = {
    "strategy": "strategy",
    "memory_budget": "memory-budget",
    "target": "target",
    "target_file": "target-file",
    "policy": "policy",
    "allow_inexact_derivation": "allow-inexact-derivation",
    "recompute_banned": "recompute-banned",
    "exchange_rate": "exchange-rate",
    "budget_search_effort": "budget-search-effort",
    "schedule_plans": "schedule-plans",
    "decision_groups": "decision-groups",
}

_extension = None


class PlanError(Exception):
    """The planner refused the graph or the options. `message` is what
    remat-opt would print (one line per diagnostic); `smallest_peak_bytes`
    is set when the budget was infeasible and the planner said how low it
    can go."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        match = re.search(r"smallest [^()]*?\((\d+) bytes", message)
        self.smallest_peak_bytes = int(match.group(1)) if match else None

    @property
    def infeasible_budget(self):
        return self.smallest_peak_bytes is not None


def _budget_text(value):
    if isinstance(value, bool):
        raise TypeError("memory_budget: expected bytes (int), a fraction "
                        "(float in [0, 1]) or a string such as '512MiB', "
                        f"'0.5' or '0.8peak'; got {value!r}")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"memory_budget: {value} bytes is not positive")
        return f"total:{value}"  # bytes bound the total peak, as in remat-plan
    if isinstance(value, float):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"memory_budget: the fraction {value} is not in "
                             "[0, 1] (pass an int for bytes)")
        return repr(value) if "." in repr(value) else f"{value:.1f}"
    if isinstance(value, str):
        return value
    raise TypeError(f"memory_budget: expected int, float or str, got "
                    f"{type(value).__name__}")


def _groups_text(groups):
    """`a,a.1;b,b.1` from [["a", "a.1"], ["b", "b.1"]] (decision_groups)."""
    texts = []
    for group in groups:
        names = [group] if isinstance(group, str) else list(group)
        for name in names:
            if not name or any(c in name for c in ",;"):
                raise ValueError(f"decision_groups: name '{name}' is empty "
                                 "or contains ',' or ';'")
        texts.append(",".join(names))
    return ";".join(texts)


def option_string(**options):
    """`strategy=budget memory-budget=0.5 ...` for remat-plan, from keyword
    options (None values are left out). Raises TypeError on an unknown
    keyword and ValueError on a value remat-plan would reject."""
    parts = []
    for key, value in options.items():
        if key not in OPTIONS:
            raise TypeError(f"unknown planner option '{key}'; expected one of "
                            f"{', '.join(OPTIONS)}")
        if value is None:
            continue
        if key == "strategy" and value not in STRATEGIES:
            raise ValueError(f"strategy '{value}': expected one of "
                             f"{', '.join(STRATEGIES)}")
        if key == "memory_budget":
            value = _budget_text(value)
        elif key in ("allow_inexact_derivation", "schedule_plans"):
            value = "true" if value else "false"
        elif key == "decision_groups" and not isinstance(value, str):
            value = _groups_text(value)
        elif key == "budget_search_effort":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError("budget_search_effort: expected a number, "
                                f"got {type(value).__name__}")
            if not 0 < value <= 1000:
                raise ValueError(f"budget_search_effort: {value} is not above "
                                 "0 and at most 1000 (a multiple of the "
                                 "default search work)")
            value = repr(float(value))
        else:
            value = str(value)
        if any(c in value for c in " {}'\""):
            raise ValueError(f"{key}: '{value}' may not contain spaces, "
                             "braces or quotes")
        parts.append(f"{OPTIONS[key]}={value}")
    return " ".join(parts)


def _module():
    global _extension
    if _extension is None:
        _extension = _native.load()
    return _extension


def plan_text(mlir_text, report_format="json", **options):
    """The report as text (`json` or `text`), exactly as remat-report writes
    it, and the seconds spent parsing, planning and reporting."""
    ok, report, diagnostics, timing = _module().plan(
        mlir_text, option_string(**options), report_format)
    if not ok:
        raise PlanError(diagnostics.strip() or "remat-plan failed without a "
                        "diagnostic")
    return report, dict(timing)


def plan(mlir_text, **options):
    """Plans every joint function of `mlir_text`; returns the Report of the
    first (frontends export one). Raises PlanError on a graph or budget the
    planner refuses, TypeError/ValueError on bad options."""
    report, timing = plan_text(mlir_text, "json", **options)
    data = json.loads(report)
    if isinstance(data, list):
        data = data[0]
    return Report(data, text=report, timing=timing)
