"""Plan a remat joint function in this process.

`plan(mlir_text, strategy=..., memory_budget=..., ...)` runs the same passes
as `remat-opt -remat-plan="..." -remat-report=format=json`, through the
`_remat` extension, and returns a `Report`. Keyword options have the names
of remat-plan's options with `_` for `-`, and the same value syntax.
"""

import functools
import hashlib
import json
import numbers
import os
import re
import sys
import warnings

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
    "lower_bound_time_limit": "lower-bound-time-limit",
    "optimal_time_limit": "optimal-time-limit",
    "progress": "progress",
}

_extension = None


class PlanError(Exception):
    """The planner refused the graph or the options. `message` is what
    remat-opt would print (one line per diagnostic). When the budget was
    infeasible and the planner said how low it can go,
    `smallest_peak_bytes` is that smallest *activation* peak (pass it back
    as `memory_budget=f"activations:{n}"`), and, for a byte budget (which
    bounds the total peak), `smallest_total_peak_bytes` is the total budget
    that would do (pass it back as an int)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        match = re.search(r"smallest [^()]*?\((\d+) bytes", message)
        self.smallest_peak_bytes = int(match.group(1)) if match else None
        match = re.search(r"raise it to at least total:(\d+)", message)
        self.smallest_total_peak_bytes = int(match.group(1)) if match else None

    @property
    def infeasible_budget(self):
        return self.smallest_peak_bytes is not None


def _budget_text(value):
    if isinstance(value, bool):
        raise TypeError("memory_budget: expected bytes (int), a fraction "
                        "(float in [0, 1]) or a string such as '512MiB', "
                        f"'0.5' or '0.8peak'; got {value!r}")
    # numpy's integers and floats (np.int64, np.float32) are numbers too.
    if isinstance(value, numbers.Integral):
        value = int(value)
    elif isinstance(value, numbers.Real):
        value = float(value)
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"memory_budget: {value} bytes is not positive")
        return f"total:{value}"  # bytes bound the total peak, as in remat-plan
    if isinstance(value, float):
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"memory_budget: the fraction {value} is not in "
                             "[0, 1] (pass an int for bytes)")
        # repr: 2e-05 stays 2e-05 (before 2026-12-07 it became "0.0").
        return repr(float(value))
    if isinstance(value, str):
        return value
    raise TypeError(f"memory_budget: expected int, float or str, got "
                    f"{type(value).__name__}")


def _flag_text(key, value):
    """`true` or `false` for a flag given as a bool, 0 / 1 or the strings
    remat-plan takes; anything else is refused (before 2026-12-07 any value
    was read by its truth, so the string "false" switched the flag on)."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return "true" if value else "false"
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return "true" if value.lower() in ("true", "1") else "false"
    raise TypeError(f"{key}: expected True or False, got {value!r}")


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
            value = _flag_text(key, value)
        elif key == "progress":
            value = "auto" if value == "auto" else _flag_text(key, value)
        elif key in ("lower_bound_time_limit", "optimal_time_limit"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{key}: expected seconds (a number), got "
                                f"{type(value).__name__}")
            value = repr(float(value))
        elif key == "decision_groups" and not isinstance(value, str):
            if not isinstance(value, (list, tuple)):
                raise TypeError("decision_groups: expected a list of groups "
                                "of names (or 'a,b;c'), got "
                                f"{type(value).__name__}")
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


@functools.lru_cache(maxsize=None)
def fingerprint(*modules):
    """A digest of the planner this process runs: the `_remat` extension's
    bytes and the Python sources of this package and of the package of each
    of `modules` (a frontend passes one of its own). What a cache of plans
    must key on, so that no plan outlives the code that made it."""
    digest = hashlib.sha256()
    with open(_module().__file__, "rb") as extension:
        digest.update(extension.read())
    directories = [os.path.dirname(os.path.abspath(__file__))] + [
        os.path.dirname(os.path.abspath(m.__file__)) for m in modules]
    for directory in directories:
        for name in sorted(os.listdir(directory)):
            if name.endswith(".py"):
                with open(os.path.join(directory, name), "rb") as source:
                    digest.update(name.encode() + b"\0" + source.read())
    return digest.hexdigest()


class PlanWarning(UserWarning):
    """A warning of the planner's (an option that has no effect with the
    strategy, a budget spelling whose meaning changed, tags on backward
    ops), as remat-opt prints it, with options spelled as this module's
    keywords. A warning about the options that `check_options` issued is
    not issued again in the process (a torch.compile backend checks its
    options when it is made and again for every graph it plans)."""


_INPUT_LOCATION = re.compile(r"^<remat input>:\d+:\d+: ")
# What remat-plan says of a module without a joint function, once it has
# read the options: check_options plans an empty module to read them.
_NO_JOINT_FUNCTION = "remat-plan: no function is marked as a joint training graph"


# remat-plan's option spellings in its messages ("recompute-banned=allow",
# "decision-groups applies to ...") -> the keywords a Python caller passes
# ("recompute_banned=allow").
_OPTION_SPELLING = re.compile(r"\b(%s)\b(=true\b|=false\b)?" % "|".join(
    re.escape(cli) for cli in OPTIONS.values() if "-" in cli))
_PYTHON_KEYWORD = {cli: key for key, cli in OPTIONS.items()}


def _python_spelling(message):
    """`message` with remat-plan's option names spelled as this module's
    keyword arguments, so that advice such as "recompute-banned=allow"
    or "schedule-plans=false" reads as what a Python caller writes
    (`schedule_plans=False`)."""
    return _OPTION_SPELLING.sub(
        lambda match: _PYTHON_KEYWORD[match.group(1)] +
        (match.group(2) or "").replace("=t", "=T").replace("=f", "=F"),
        message)


def _diagnostics(text, severity):
    """The messages of `text`'s diagnostics of `severity` ("error",
    "warning"), without the location in the planner's input text, with
    options spelled as Python keywords."""
    prefix = severity + ": "
    found = []
    for line in text.splitlines():
        line = _INPUT_LOCATION.sub("", line)
        if line.startswith(prefix):
            found.append(_python_spelling(line[len(prefix):]))
    return found


# The warnings check_options issued: warnings about the options themselves,
# which checking or planning with the same options again repeats word for
# word; each is issued once per process (a backend checks its options when
# it is made, then checks and plans them again for each graph).
_option_warnings = set()


_OWN_PACKAGES = ("remat", "remat_torch", "remat_jax")


def _caller_stacklevel():
    """The `stacklevel` of warnings.warn called in _warn that names the
    first frame outside remat's packages: the caller's own line, whichever
    entry point (plan, plan_text, check_options, a frontend) it called."""
    frame, level = sys._getframe(2), 2
    while frame is not None and \
            frame.f_globals.get("__name__", "").split(".")[0] in _OWN_PACKAGES:
        frame, level = frame.f_back, level + 1
    return level


def _warn(diagnostics, skip=()):
    for message in _diagnostics(diagnostics, "warning"):
        if message not in skip:
            warnings.warn(message, PlanWarning,
                          stacklevel=_caller_stacklevel())


def check_options(**options):
    """Raises TypeError/ValueError for options remat-plan would refuse (an
    unknown target or policy, a malformed budget, `budget` without one, ...)
    and issues a PlanWarning for each it would warn of, before any graph:
    the planner reads them on an empty module."""
    ok, _, diagnostics, _ = _module().plan("module {}", option_string(**options),
                                           "json")
    found = _diagnostics(diagnostics, "error")
    errors = [e for e in found if not e.startswith(_NO_JOINT_FUNCTION)]
    if errors:
        raise ValueError("; ".join(errors))
    if ok or not found:
        raise RuntimeError("remat-plan did not say whether it read the "
                           f"options: {diagnostics.strip() or 'no diagnostic'}")
    _warn(diagnostics, skip=_option_warnings)
    _option_warnings.update(_diagnostics(diagnostics, "warning"))


def plan_text(mlir_text, report_format="json", **options):
    """The report as text (`json` or `text`), exactly as remat-report writes
    it, and the seconds spent parsing, planning and reporting. The planner's
    warnings are issued as PlanWarning. No progress line unless
    `progress=True` (remat-plan's `auto` writes one to file descriptor 2,
    past sys.stderr, when that is a terminal)."""
    if not isinstance(mlir_text, str):
        raise TypeError("mlir_text: expected the module's .mlir text (str), "
                        f"got {type(mlir_text).__name__}")
    if report_format not in ("json", "text"):
        raise ValueError(f"report_format '{report_format}': expected json "
                         "or text")
    options.setdefault("progress", False)
    ok, report, diagnostics, timing = _module().plan(
        mlir_text, option_string(**options), report_format)
    if not ok:
        raise PlanError(_python_spelling(diagnostics.strip()) or
                        "remat-plan failed without a diagnostic")
    _warn(diagnostics, skip=_option_warnings)
    return report, dict(timing)


def plan_all(mlir_text, **options):
    """Plans every joint function of `mlir_text`; returns their Reports in
    module order. Raises PlanError on a graph, a budget or an option value
    the planner refuses (`check_options` raises ValueError for the option
    values before any graph), TypeError/ValueError on an unknown keyword or
    a value of the wrong kind."""
    report, timing = plan_text(mlir_text, "json", **options)
    data = json.loads(report)
    if not isinstance(data, list):
        return [Report(data, text=report, timing=timing)]
    # Each Report's text is its own function's (before 2026-12-07 the first
    # function's Report carried every function's text).
    return [Report(d, timing=timing) for d in data]


def plan(mlir_text, **options):
    """The Report of the first joint function of `mlir_text` (frontends
    export one; `plan_all` returns every function's). Errors as plan_all."""
    return plan_all(mlir_text, **options)[0]
