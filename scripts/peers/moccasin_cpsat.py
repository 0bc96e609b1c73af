#!/usr/bin/env python3
"""Moccasin's constraint-programming model of rematerialization, on CP-SAT.

    .venv/bin/python scripts/peers/moccasin_cpsat.py GRAPH.json --fraction 0.8 \\
        [--time-limit 10] [--workers 1] [--copies 2] [--json OUT.json]

Our own implementation, written from the paper's description (Bartan, Li,
Teague, Lott, Dilkina: "Moccasin: Efficient Tensor Rematerialization for
Neural Networks", ICML 2023), not from its code: the public repository
(haoming-codes/moccasin) was read only for its defaults (C = 2, events
numbered by Checkmate stages, two phases, sizes divided by their gcd), and
none of it is copied. It needs `ortools` (CP-SAT).
It reads a Checkmate-format graph (either schema of
../shared/data/checkmate/README.md), solves for the schedule of least total
duration whose memory stays within B = ceil(fraction x topological peak),
and prints (or writes with --json) the schedule, its TDI and peak, the solve
time and the status. The TDI and the peak are *not* the solver's: every
schedule is re-measured by the independent checker
(scripts/peers/schedule_check.py, the README's accounting), and a schedule
the checker rejects or finds over the budget is reported as an error.

The model (the paper's Section 3, as we read it):

- Each node v may be evaluated up to C times (--copies, default 2, the
  public code's default). Copy c of v is an
  optional *retention interval* [s, e]: v is computed at event s and its
  output is kept in memory through event e. Copy 0 is always present;
  copy c >= 1 is present only if copy c - 1 is, and starts after copy c - 1
  ends (a copy still held when the next one is computed makes the next one
  useless, so this loses nothing and breaks symmetry).
- Events are the slots of Checkmate's stages, as the paper discretizes
  time: with the nodes in a topological order pi (remat's: Kahn's
  algorithm, smallest id first), stage t = 0..n-1 ends with the first
  evaluation of pi(t) and may recompute any pi(k), k < t, before it, in
  order of k. Slot (t, k) is event t n + k (the paper numbers the slots
  densely in the public code, t (t + 1) / 2 + k; the order is the same, and the affine form
  lets a copy's start be n x stage + k with one stage variable, which
  CP-SAT presolves in a fraction of the time), so copy 0 of pi(k) is
  pinned to event (k, k) and copies c >= 1 range over the slots (t, k),
  t > k. The first evaluations therefore follow pi; recomputations are free
  to go anywhere after them.
- Precedence with retention: for every link u -> v and every present copy
  j of v, some present copy i of u has s_u,i < s_v,j <= e_u,i (u is in
  memory when v is computed). One Boolean per (i, j) pair selects it.
- Memory: a cumulative constraint over all present intervals [s, e + 1),
  each demanding the node's output size, with capacity B (sizes and B are
  divided by the sizes' greatest common divisor first).
  While a node runs, the intervals covering its event are its own and
  those of every output held for a later reader: the README's accounting,
  or more where the model holds a value longer than its last read (the
  checker measures the schedule, so its peak is never above the model's).
- Objective: the total duration of all present copies (minimized).

Solving follows the paper's two phases: phase 1 minimizes the peak (the
cumulative's capacity) from the no-recompute schedule, given to CP-SAT as a
complete hint, down to B, where CP-SAT stops (B is its lower bound); phase 2
caps the peak at B and minimizes the total duration from the phase 1
solution (as a hint) with the time left. (--phase1 budget instead asks
phase 1 for any schedule within B.) --time-limit is the wall-clock limit of
both phases together (model building not included; it is in the reported
"seconds"); --workers is CP-SAT's num_workers (bench.sh uses 1).

Known deviations from the paper, which may make this peer weaker than the
published Moccasin: the public code's defaults are 16 workers and a
3,600 s limit; ours get what remat's `optimal` gets in bench.sh (10 s, one worker by
default). The paper's interval-length domains and reservoir
reformulations are not used (the cumulative constraint is the plain one).
C = 2 bounds every node to two evaluations: on VGG19 at 0.8 that costs
4.85% TDI where C = 3 (and remat's exact `optimal`) reach 2.76%.
"infeasible (C=2)" means infeasible for this model (at most C evaluations,
first evaluations in the order pi), not for every schedule.
The paper reports its schedule's own memory accounting; here the checker's
is reported (never above the model's).
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedule_check  # noqa: E402  (no third-party imports)


def _scale(values):
    """Integer objective coefficients: ints stay; floats keep 3 decimals."""
    if all(float(x).is_integer() for x in values):
        return [int(x) for x in values], 1
    return [int(round(x * 1000)) for x in values], 1000


def build_model(graph, budget, copies):
    from ortools.sat.python import cp_model

    order = schedule_check.topological_order(graph)
    index = {v: k for k, v in enumerate(order)}
    n = len(order)
    horizon = n * n

    def event(t, k):  # slot k of stage t, in execution order
        return t * n + k

    gcd = 0
    for v in order:
        gcd = math.gcd(gcd, int(graph.size[v]))
    gcd = gcd or 1
    capacity = budget // gcd
    durations, _ = _scale([graph.duration[v] for v in order])

    model = cp_model.CpModel()
    start, end, present, intervals, demands = {}, {}, {}, [], []
    lengths, choose, stages = {}, {}, {}
    for k, v in enumerate(order):
        readers = [index[w] for w in graph.readers[v]]
        # The latest event at which a reader of v can run: its last stage.
        last_read = event(n - 1, max(readers)) if readers else None
        size = int(graph.size[v]) // gcd
        for c in range(copies if k < n - 1 else 1):
            if c == 0:
                s = model.NewConstant(event(k, k))
                p = model.NewConstant(1)
            else:
                if k + 1 > n - 1:
                    break
                stage = model.NewIntVar(k + 1, n - 1, "t_%s_%d" % (v, c))
                stages[v, c] = stage
                s = n * stage + k  # an affine expression: event(stage, k)
                p = model.NewBoolVar("p_%s_%d" % (v, c))
                model.AddImplication(p, present[v, c - 1])
                model.Add(s > end[v, c - 1]).OnlyEnforceIf(p)
            if last_read is None:
                e = s  # nobody reads it: gone after its own event
            else:
                e = model.NewIntVar(0, max(last_read, horizon - 1),
                                    "e_%s_%d" % (v, c))
                model.Add(e >= s)
                model.Add(e <= last_read)
            length = model.NewIntVar(1, horizon, "l_%s_%d" % (v, c))
            model.Add(length == e + 1 - s).OnlyEnforceIf(p)
            interval = model.NewOptionalIntervalVar(s, length, e + 1, p,
                                                    "i_%s_%d" % (v, c))
            start[v, c], end[v, c], present[v, c] = s, e, p
            lengths[v, c] = length
            intervals.append(interval)
            demands.append(size)
    # The capacity is a variable for phase 1 (least peak, down to B); phase
    # 2 caps it at B.
    topo_peak = schedule_check.topological_peak(graph) // gcd
    cap = model.NewIntVar(min(capacity, topo_peak), max(capacity, topo_peak),
                          "capacity")
    model.AddCumulative(intervals, demands, cap)

    copies_of = {v: [c for c in range(copies) if (v, c) in start]
                 for v in order}
    for v in order:
        for u in graph.inputs[v]:
            for j in copies_of[v]:
                choices = []
                for i in copies_of[u]:
                    z = model.NewBoolVar("z_%s_%d_%s_%d" % (u, i, v, j))
                    model.AddImplication(z, present[u, i])
                    model.Add(start[u, i] < start[v, j]).OnlyEnforceIf(z)
                    model.Add(end[u, i] >= start[v, j]).OnlyEnforceIf(z)
                    choices.append(z)
                    choose[u, i, v, j] = z
                # present(v, j) => one of the choices
                model.AddBoolOr(choices + [present[v, j].Not()]
                                if j > 0 else choices)
    objective = []
    for k, v in enumerate(order):
        for c in copies_of[v]:
            if c > 0:
                objective.append(durations[k] * present[v, c])
    # The schedule without recomputation, as a hint: copy 0 held until its
    # last reader's own stage.
    # (A complete assignment: CP-SAT then starts from a feasible solution.)
    for k, v in enumerate(order):
        last = max([index[w] for w in graph.readers[v]], default=k)
        if end[v, 0] is not start[v, 0]:
            model.AddHint(end[v, 0], event(last, last))
        model.AddHint(lengths[v, 0], event(last, last) + 1 - event(k, k))
        for c in copies_of[v]:
            if c:
                model.AddHint(present[v, c], 0)
                model.AddHint(stages[v, c], k + 1)
                if end[v, c] is not start[v, c]:
                    model.AddHint(end[v, c], event(k + 1, k))
                model.AddHint(lengths[v, c], 1)
    for (u, i, v, j), z in choose.items():
        model.AddHint(z, 1 if i == 0 and j == 0 else 0)
    model.AddHint(cap, topo_peak)
    return {"model": model, "start": start, "end": end, "present": present,
            "cap": cap, "lengths": lengths, "choose": choose,
            "stages": stages,
            "order": order, "copies_of": copies_of,
            "objective": sum(objective) if objective else 0,
            "gcd": gcd, "capacity": capacity, "horizon": horizon}


def extract_schedule(solver, built):
    events = []
    for (v, c), s in built["start"].items():
        if solver.BooleanValue(built["present"][v, c]) if c else True:
            events.append((solver.Value(s), v))
    events.sort()
    return [v for _, v in events]


def solve(graph, fraction, time_limit, workers=1, copies=2, log=False,
          phase1="least-peak"):
    """Returns a result dict; the TDI and peak come from the checker."""
    from ortools.sat.python import cp_model

    began = time.monotonic()
    budget = schedule_check.budget_bytes(graph, fraction)
    built = build_model(graph, budget, copies)
    model = built["model"]
    build_seconds = time.monotonic() - began
    result = {
        "graph": graph.name, "nodes": len(graph), "links": graph.num_edges(),
        "fraction": fraction, "budget_bytes": budget,
        "topological_peak": schedule_check.topological_peak(graph),
        "copies": copies, "workers": workers, "time_limit_s": time_limit,
        "phase1": phase1,
        "build_seconds": build_seconds,
    }

    def run(phase_limit):
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(phase_limit, 0.01)
        solver.parameters.num_workers = workers
        solver.parameters.log_search_progress = log
        status = solver.Solve(model)
        return solver, status

    # Phase 1: the least peak, down to the budget (the no-recompute
    # schedule, hinted, meets the topological peak; CP-SAT stops once the
    # peak reaches B, its lower bound).
    if phase1 == "least-peak":
        model.Minimize(built["cap"])
    else:  # "budget": any schedule within B, from the (infeasible) hint
        model.Add(built["cap"] <= built["capacity"])
    solver, status = run(time_limit)
    phase1_seconds = solver.WallTime()
    result["phase1_seconds"] = phase1_seconds
    found = status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and \
        solver.Value(built["cap"]) <= built["capacity"]
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE) and \
            phase1 == "least-peak":
        result["phase1_least_peak_bytes"] = \
            solver.Value(built["cap"]) * built["gcd"]
    if not found:
        result["solve_seconds"] = phase1_seconds
        result["seconds"] = time.monotonic() - began
        if status == cp_model.OPTIMAL or status == cp_model.INFEASIBLE:
            result["status"] = "infeasible (C=%d)" % copies
        else:
            result["status"] = "no solution in %g s" % time_limit
        return result
    best = extract_schedule(solver, built)
    status_name = "feasible"
    # Phase 2: least total duration, from the phase 1 schedule.
    left = time_limit - phase1_seconds
    phase2_seconds = 0.0
    if left > 0.05:
        model.ClearHints()
        model.Add(built["cap"] <= built["capacity"])
        for (v, c), p in built["present"].items():
            if c:  # copy 0 is pinned: nothing to hint
                model.AddHint(p, solver.BooleanValue(p))
                model.AddHint(built["stages"][v, c],
                              solver.Value(built["stages"][v, c]))
            if built["end"][v, c] is not built["start"][v, c]:
                model.AddHint(built["end"][v, c],
                              solver.Value(built["end"][v, c]))
            model.AddHint(built["lengths"][v, c],
                          solver.Value(built["lengths"][v, c]))
        for z in built["choose"].values():
            model.AddHint(z, solver.BooleanValue(z))
        model.AddHint(built["cap"], solver.Value(built["cap"]))
        model.Minimize(built["objective"])
        solver, status = run(left)
        phase2_seconds = solver.WallTime()
        if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            best = extract_schedule(solver, built)
            status_name = "optimal" if status == cp_model.OPTIMAL else \
                "feasible"
            result["solver_objective"] = solver.ObjectiveValue()
            result["solver_bound"] = solver.BestObjectiveBound()
    result["phase2_seconds"] = phase2_seconds
    result["solve_seconds"] = phase1_seconds + phase2_seconds
    result["seconds"] = time.monotonic() - began
    # The independent check: the schedule's TDI and peak are measured here.
    try:
        checked = schedule_check.check_schedule(graph, best, budget)
    except schedule_check.ScheduleError as error:
        result["status"] = "error: checker rejected the schedule: %s" % error
        result["schedule"] = best
        return result
    result.update(status=status_name if checked["within_budget"] else
                  "error: checker peak %d over the budget" % checked["peak"],
                  schedule=best, tdi=checked["tdi"], peak=checked["peak"],
                  steps=checked["steps"],
                  recomputations=checked["recomputations"])
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("graph")
    parser.add_argument("--fraction", type=float, required=True)
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="wall-clock seconds for both phases (10)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--copies", type=int, default=2)
    parser.add_argument("--phase1", choices=("least-peak", "budget"),
                        default="least-peak",
                        help="least-peak (the paper's: minimize the peak "
                        "down to B from the no-recompute schedule) or "
                        "budget (any schedule within B)")
    parser.add_argument("--name", help="graph name in the output")
    parser.add_argument("--json", help="write the result here")
    parser.add_argument("--log", action="store_true",
                        help="CP-SAT's search log on stderr")
    args = parser.parse_args(argv)
    graph = schedule_check.load_graph(args.graph, args.name)
    result = solve(graph, args.fraction, args.time_limit, args.workers,
                   args.copies, args.log, args.phase1)
    summary = {k: v for k, v in result.items() if k != "schedule"}
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle)
    return 1 if result["status"].startswith("error") else 0


if __name__ == "__main__":
    sys.exit(main())
