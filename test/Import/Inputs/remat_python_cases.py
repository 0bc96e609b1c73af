"""Cases of the `remat` package's own API (python/remat): each prints PASS
or FAIL with what it saw. Every case is a bug found by using the API."""

import argparse
import io
import json
import os
import sys
import tempfile
import warnings

import remat
from remat import cli, mlir_text

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
with open(os.path.join(ROOT, "examples", "tiny", "cos_chain.mlir")) as f:
    COS_CHAIN = f.read()
TWO_FUNCTIONS = COS_CHAIN + COS_CHAIN.replace("@cos_chain", "@cos_chain_2")
failures = []


def check(name, ok, seen=""):
    print(f"{'PASS' if ok else 'FAIL'}: {name}{'' if ok else ': ' + str(seen)}")
    if not ok:
        failures.append(name)


# A float budget keeps its value: 2e-05 was written "0.0" (a different
# budget) before 2026-12-07.
check("option_string float", remat.option_string(memory_budget=2e-05) ==
      "memory-budget=2e-05", remat.option_string(memory_budget=2e-05))

# plan_all: one Report per function, each with its own data and text; plan
# is the first (its text held every function's before).
reports = remat.plan_all(TWO_FUNCTIONS)
check("plan_all", [r.function for r in reports] == ["cos_chain", "cos_chain_2"],
      [r.function for r in reports])
first = remat.plan(TWO_FUNCTIONS)
with tempfile.TemporaryDirectory() as folder:
    path = os.path.join(folder, "first.json")
    first.write(path)
    check("write of one of several reloads",
          remat.Report.load(path).function == "cos_chain",
          open(path).read()[:80])
    # A Report without remat-report's text (load_all) is written as JSON;
    # before, write() emptied the file, then raised TypeError.
    both = os.path.join(folder, "both.json")
    with open(both, "w") as f:
        json.dump([r.data for r in reports], f)
    loaded = remat.Report.load_all(both)
    target = os.path.join(folder, "precious.json")
    with open(target, "w") as f:
        f.write("precious contents")
    loaded[1].write(target)
    check("write of load_all", remat.Report.load(target).function == "cos_chain_2",
          open(target).read()[:80])
    scalar = os.path.join(folder, "scalar.json")
    with open(scalar, "w") as f:
        f.write("5")
    try:
        remat.Report.load(scalar)
        check("load of a JSON number", False, "no error")
    except ValueError as error:
        check("load of a JSON number", "expected remat-report JSON" in str(error),
              error)

# An infeasible byte budget: the error says both the activation figure and
# the total budget that would do, and the total, passed back, plans.
try:
    remat.plan(COS_CHAIN, strategy="budget", memory_budget=10)
    check("infeasible total budget", False, "planned")
except remat.PlanError as error:
    check("smallest peaks", error.smallest_peak_bytes is not None and
          error.smallest_total_peak_bytes is not None and
          error.smallest_total_peak_bytes > error.smallest_peak_bytes,
          (error.smallest_peak_bytes, error.smallest_total_peak_bytes))
    again = remat.plan(COS_CHAIN, strategy="budget",
                       memory_budget=error.smallest_total_peak_bytes)
    check("smallest total peak plans", again.strategy == "budget")

# Warnings name the caller's line, whichever entry point it called (a fixed
# stacklevel named the caller's caller for plan_text and check_options).
for entry in ("plan", "plan_text", "check_options"):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if entry == "plan":
            line = sys._getframe().f_lineno + 1
            remat.plan(COS_CHAIN, exchange_rate=0, strategy="save-all")
        elif entry == "plan_text":
            line = sys._getframe().f_lineno + 1
            remat.plan_text(COS_CHAIN, strategy="save-all", exchange_rate=1)
        else:
            line = sys._getframe().f_lineno + 1
            remat.check_options(strategy="save-all", exchange_rate=2)
    where = [(os.path.basename(w.filename), w.lineno) for w in caught]
    check(f"warning location of {entry}",
          where and where[0] == (os.path.basename(__file__), line), where)

# check_options refuses what every plan would refuse.
try:
    remat.check_options(strategy="min-cut", decision_groups=[["x"]])
    check("check_options decision_groups", False, "accepted")
except ValueError as error:
    check("check_options decision_groups",
          "decision_groups applies to strategy=budget with "
          "schedule_plans=False" in str(error), error)
try:
    remat.plan(COS_CHAIN, strategy="budget", memory_budget=0.5,
               decision_groups=[["x"]])
    check("plan decision_groups", False, "planned")
except remat.PlanError as error:
    check("plan decision_groups spelled as a keyword",
          "decision_groups applies" in str(error), error)

# Time limits and progress are keywords.
limited = remat.plan(COS_CHAIN, strategy="optimal", memory_budget=0.5,
                     optimal_time_limit=5, progress="auto")
check("optimal_time_limit", limited.strategy == "optimal")
try:
    remat.option_string(progress="sometimes")
    check("progress value", False, "accepted")
except TypeError:
    check("progress value", True)

# Wrong kinds of argument are TypeErrors naming the argument (pybind's
# "incompatible function arguments" dump, and "'int' object is not
# iterable", before 2026-12-07).
for name, call in (("mlir_text None", lambda: remat.plan(None)),
                   ("decision_groups int",
                    lambda: remat.option_string(decision_groups=5))):
    try:
        call()
        check(name, False, "accepted")
    except TypeError as error:
        check(name, str(error).split(":")[0] in ("mlir_text", "decision_groups"),
              error)

# A name with a newline is an escaped MLIR string (it ended the literal).
check("quoted newline", mlir_text.quoted('a\nb"c\\') == '"a\\0Ab\\"c\\\\"',
      mlir_text.quoted('a\nb"c\\'))
named = COS_CHAIN.replace('remat.opaque "cos"(%x)',
                          "remat.opaque \"cos\"(%x) {remat.name = "
                          + mlir_text.quoted("first\ncos") + "}", 1)
named = named.replace("} {compute_class", ", compute_class", 1).replace(
    "} {remat.name", " {remat.name", 1)
check("quoted name parses",
      "first\ncos" in [v["name"] for v in remat.plan(named).values],
      [v["name"] for v in remat.plan(named).values][:3])


# MODULE:FACTORY specs: a usage error (2) for a malformed spec, a one-line
# error (1) for a module that raises while importing; both were tracebacks.
class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise SystemExit((2, message))


for spec, expected in ((":make", 2), ("remat_python_cases_missing:make", 2)):
    try:
        cli.call_factory(Parser(), spec)
        check(f"factory spec {spec}", False, "no error")
    except SystemExit as exit_:
        check(f"factory spec {spec}", exit_.code[0] == expected, exit_.code)
with tempfile.TemporaryDirectory() as folder:
    with open(os.path.join(folder, "raising_module.py"), "w") as f:
        f.write("raise RuntimeError('broken at import')\n")
    sys.path.insert(0, folder)
    try:
        cli.call_factory(Parser(), "raising_module:make")
        check("factory module raising", False, "no error")
    except cli.UserError as error:
        check("factory module raising", "broken at import" in str(error), error)

print("remat python cases:", "FAIL " + ", ".join(failures) if failures else "PASS")
