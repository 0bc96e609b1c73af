#!/usr/bin/python3
"""Draws the memory/overhead Pareto curve of each graph from the CSV that
`remat-bench-quality --csv=PATH` writes, one PNG per graph.

    /usr/bin/python3 scripts/plot_pareto.py quality.csv docs/img

x: simulated activation peak as a fraction of the no-recompute peak;
y: recompute overhead (TDI, %). `budget` is drawn as a curve over its budgets
(a budget plan's point is where its simulated peak landed, which can be below
the budget), `optimal` as points where it finished, `recompute-all` and
sqrt(n) checkpointing as single points, and the non-dominated `budget` points
as the Pareto front. Needs Debian's python3-matplotlib (scripts/bench.sh
installs it); run with /usr/bin/python3, not a pyenv interpreter.
"""

import csv
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_points(path):
    """graph -> strategy -> list of (peak fraction, TDI %, budget fraction)."""
    points = defaultdict(lambda: defaultdict(list))
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            if row["status"] != "ok":
                continue
            points[row["graph"]][row["strategy"]].append(
                (float(row["peak_fraction"]), 100.0 * float(row["tdi"]),
                 float(row["fraction"])))
    return points


def pareto_front(points):
    """The points no other point beats in both memory and overhead."""
    front = []
    for peak, tdi in sorted(set((p, t) for p, t, _ in points)):
        if not front or tdi < front[-1][1]:
            front.append((peak, tdi))
    return front


def plot_graph(name, strategies, out_dir):
    figure, axes = plt.subplots(figsize=(6.4, 4.2), dpi=110)
    budget = sorted(strategies.get("budget", []), key=lambda p: p[2])
    if budget:
        axes.plot([p[0] for p in budget], [p[1] for p in budget], "o",
                  color="tab:blue", alpha=0.45, label="budget (each budget)")
        front = pareto_front(budget)
        axes.step([p[0] for p in front], [p[1] for p in front], "-",
                  where="post", color="tab:blue", label="budget Pareto front")
    optimal = strategies.get("optimal", [])
    if optimal:
        axes.plot([p[0] for p in optimal], [p[1] for p in optimal], "*",
                  color="tab:red", markersize=11, label="optimal (MILP)")
    for strategy, marker, color, label in (
            ("recompute-all", "s", "tab:gray", "recompute-all"),
            ("sqrt-n", "D", "tab:green", "sqrt(n) checkpointing")):
        for peak, tdi, _ in strategies.get(strategy, []):
            axes.plot([peak], [tdi], marker, color=color, markersize=8,
                      label=label)
    axes.set_xlabel("activation peak / no-recompute peak")
    axes.set_ylabel("recompute overhead TDI (%)")
    axes.set_title(name)
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path = os.path.join(out_dir, "pareto-%s.png" % name)
    figure.savefig(path)
    plt.close(figure)
    return path


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: plot_pareto.py QUALITY_CSV OUT_DIR\n")
        return 2
    points = read_points(argv[1])
    if not points:
        sys.stderr.write("plot_pareto.py: no successful points in %s\n"
                         % argv[1])
        return 1
    os.makedirs(argv[2], exist_ok=True)
    for name in sorted(points):
        print(plot_graph(name, points[name], argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
