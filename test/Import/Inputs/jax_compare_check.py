"""Reads `python -m remat_jax.compare --json` output and checks what must
hold whatever the timings: every configuration is there, every wrapped step
computes the unwrapped step's loss and gradients, JAX's residuals under each
remat plan's policy are exactly the values the plan saves, a budget plan's
predicted peak is within its budget (or the row says infeasible, with a
smallest peak above the budget), MaxText's own per-layer nn.remat keeps the
same bytes as the whole-stack form, XLA's total adds up, and the goals are
read off the rows. No timing is checked. Prints one line per check and
"compare checks: PASS"; exits 1 otherwise."""

import json
import sys

from remat_jax import maxtext

record = json.load(open(sys.argv[1]))
rows = {row["configuration"]: row for row in record["configurations"]}
problems = []


def check(condition, message):
    if not condition:
        problems.append(message)
    return condition


policies = [rows.get(name) for name in maxtext.POLICIES]
if not check(all(policies), "a MaxText policy has no row"):
    print("FAIL: a MaxText policy has no row\ncompare checks: FAIL")
    sys.exit(1)
print("policy rows:", ", ".join(r["configuration"] for r in policies))
check("no checkpoint" in rows and "remat min-cut" in rows,
      "no reference or min-cut row")
budget_rows = [r for r in record["configurations"] if r.get("budget_for")]
covered = sorted(n for r in budget_rows for n in r["budget_for"])
check(covered == sorted(maxtext.POLICIES),
      f"budget rows cover {covered}, not every policy once")
print("budget rows:", "; ".join(r["configuration"] for r in budget_rows))

for row in policies:
    check(row["jax_policy_names"][0] == "decoder_layer_input",
          f"{row['configuration']}: the stack form does not keep the layer input")
    check(set(row["jax_saved_names"]) <= set(row["jax_policy_names"]),
          f"{row['configuration']}: JAX saves a name the policy does not list")
print("full saves:", ", ".join(rows["full"]["jax_saved_names"]))
print("minimal_with_context lacks:",
      ", ".join(rows["minimal_with_context"]["absent_names"]))
check(rows["minimal_with_context"]["jax_saved_names"] ==
      rows["minimal"]["jax_saved_names"] and
      rows["minimal_with_context"]["program"] == rows["minimal"]["program"],
      "minimal_with_context differs from minimal on a model without context")

ran = [r for r in record["configurations"] if r["status"] == "ok"]
wrapped = [r for r in ran if r["kind"] != "none"]
bad = [r["configuration"] for r in wrapped
       if not (r["grads"] == "equal" or r["grads"].startswith("≈"))]
if check(not bad, f"gradients differ: {bad}"):
    print(f"gradients equal the unwrapped step's: {len(wrapped)} of "
          f"{len(wrapped)}")

planned = [r for r in ran if "residuals_match_plan" in r]
check(len(planned) == len([r for r in ran if r["kind"] != "none"]),
      "a policy or remat row has no residual check")
bad = [r["configuration"] for r in planned if not r["residuals_match_plan"]]
if check(not bad, f"JAX's residuals are not the plan's saved set: {bad}"):
    print(f"JAX's residuals are the plan's saved set: {len(planned)} of "
          f"{len(planned)}")
for row in [r for r in ran if r["kind"] == "remat"]:
    check(row["jax_saved_names"] == row["remat_saved_names"],
          f"{row['configuration']}: JAX saves {row['jax_saved_names']}, "
          f"remat's plan {row['remat_saved_names']}")

for row in budget_rows:
    if row["status"] == "ok":
        check(row["within_budget"] and
              row["remat_predicted_peak_bytes"] <= row["budget_bytes"],
              f"{row['configuration']}: predicted peak above the budget")
    else:
        check(row["status"] == "infeasible" and
              row["smallest_peak_bytes"] > row["budget_bytes"],
              f"{row['configuration']}: {row['status']} without a smallest "
              "peak above the budget")
print("budget plans within budget or infeasible: PASS" if not problems else
      "budget plans: FAIL")

forms = [r for r in policies if "maxtext_form_matches" in r]
check(len(forms) == len(policies) if record["model"] == "llama_stack" else True,
      "no MaxText-form check")
bad = [r["configuration"] for r in forms if not r["maxtext_form_matches"]]
if check(not bad, f"MaxText's per-layer form keeps other bytes: {bad}"):
    print(f"MaxText's per-layer nn.remat keeps the same bytes: {len(forms)} "
          f"of {len(policies)}")

for row in ran:
    xla = row["xla"]
    check(xla["total"] == xla["argument"] + xla["output"] + xla["temp"] -
          xla["alias"], f"{row['configuration']}: XLA total does not add up")
    check(len(row["step_ms_all"]) == record["steps"],
          f"{row['configuration']}: {len(row['step_ms_all'])} timed steps")

goals = record["goals"]
check([g["policy"] for g in goals["at_each_policy_peak"]] ==
      list(maxtext.POLICIES), "a policy has no goal line")
check(goals["default"]["verdict"] in ("met", "missed",
                                      "no policy fits in remat's memory"),
      f"default goal: {goals['default']['verdict']}")

for problem in problems:
    print("FAIL:", problem)
print("compare checks:", "FAIL" if problems else "PASS")
sys.exit(1 if problems else 0)
