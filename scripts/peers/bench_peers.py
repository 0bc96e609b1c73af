#!/usr/bin/env python3
"""Peers in the same run: remat `budget` beside our CP-SAT Moccasin model.

    .venv/bin/python scripts/peers/bench_peers.py \\
        --quality build/bin/remat-bench-quality --out build/bench/peers \\
        [--time-limit 10] [--workers 1] [--data-dir ../shared/data/checkmate]

Run by scripts/bench.sh (its "peers" step). For the six Checkmate graphs at
0.9, 0.8 and 0.7 of the topological peak, and for random layered graphs of
500, 1,000 and 10,000 nodes made by scripts/gen_random_layered.py (seed 1),
it measures:

- remat `budget`, through remat-bench-quality --skip-optimal (the harness of
  the plan-quality tables; a generated graph is handed to it under the file
  name of random-n100 in a directory of its own, --data-dir);
- our CP-SAT model of Moccasin (scripts/peers/moccasin_cpsat.py), one
  process per solve, --time-limit seconds (bench.sh passes the time limit of
  remat's `optimal`) and --workers CP-SAT workers, on the Checkmate graphs
  and on the generated graphs up to --peer-max-nodes nodes (1,000). Its TDI
  and peak are the independent checker's (schedule_check.py);

and writes peers.json (every result, schedules included) and peers.md (the
table docs/benchmarks.md shows, with the published Moccasin and FastSA
figures beside). Without ortools the CP-SAT column says so and the remat
rows are still measured.
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import schedule_check  # noqa: E402
import gen_random_layered  # noqa: E402

FRACTIONS = (0.9, 0.8, 0.7)
SHARED = [  # quality-tool name, file
    ("VGG16", "VGG16_b256_224x224_train.json"),
    ("VGG19", "VGG19_b256_224x224_train.json"),
    ("MobileNet", "MobileNet_b512_224x224_train.json"),
    ("ResNet50", "ResNet50_b256_224x224_train.json"),
    ("random-n100", "random_layered_n100.json"),
    ("random-n250", "random_layered_n250.json"),
]
# TDI at 0.9 / 0.8 / 0.7 as published (issue #17; Moccasin, ICML 2023, and
# FastSA, NeurIPS 2023); None where the paper has no figure.
PUBLISHED = {
    "random-n100": {"Moccasin": ("0.8%", "2.3%", None),
                    "FastSA": ("0.0%", "0.3%", "2.2%")},
    "random-n250": {"Moccasin": ("0.9%", "4.9%", None),
                    "FastSA": ("0.0%", "0.0%", "2.6%")},
    "ResNet50": {"Moccasin": ("0.2%", "0.3%", None),
                 "FastSA": ("0.2%", "0.4%", "0.8%")},
}


def remat_budget(quality, data_dir, graph_name, fractions, scratch):
    """remat `budget` TDI, seconds and status per fraction (CSV rows)."""
    csv_path = os.path.join(scratch, "quality-%s.csv" % graph_name)
    command = [quality, "--graphs=" + graph_name, "--data-dir=" + data_dir,
               "--fractions=" + ",".join("%g" % f for f in fractions),
               "--skip-optimal", "--csv=" + csv_path]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(command), run.stderr))
    rows = {}
    with open(csv_path) as handle:
        for row in csv.DictReader(handle):
            if row["strategy"] != "budget":
                continue
            for fraction in fractions:
                if abs(float(row["fraction"]) - fraction) < 1e-9 and \
                        fraction not in rows:
                    rows[fraction] = {"status": row["status"],
                                      "tdi": float(row["tdi"]),
                                      "seconds": float(row["seconds"]),
                                      "budget_bytes": int(row["budget_bytes"]),
                                      "peak": int(row["peak_bytes"])}
    return rows


def cpsat(python, graph_path, name, fraction, time_limit, workers, out_json):
    command = [python, os.path.join(HERE, "moccasin_cpsat.py"), graph_path,
               "--fraction", "%g" % fraction, "--time-limit", "%g" % time_limit,
               "--workers", str(workers), "--name", name, "--json", out_json]
    began = time.monotonic()
    try:
        run = subprocess.run(command, capture_output=True, text=True,
                             timeout=3 * time_limit + 120)
    except subprocess.TimeoutExpired:
        return {"status": "killed after %.0f s (model too large)"
                % (time.monotonic() - began)}
    if not os.path.exists(out_json):
        return {"status": "error: " + (run.stderr.strip().splitlines() or
                                       ["no output"])[-1][:200]}
    with open(out_json) as handle:
        return json.load(handle)


def pct(value):
    return "%.2f%%" % (100 * value)


def secs(value):
    return "%.1f ms" % (1000 * value) if value < 1 else "%.2f s" % value


def remat_cell(row):
    if row is None:
        return "not run"
    if row["status"] == "ok":
        return "%s (%s)" % (pct(row["tdi"]), secs(row["seconds"]))
    return "%s (%s)" % (row["status"], secs(row["seconds"]))


def peer_cell(result):
    if result is None:
        return "not run", "-"
    status = result.get("status", "?")
    if "tdi" in result:
        return "%s (%s)" % (pct(result["tdi"]), secs(result["seconds"])), \
            status
    return "-", status


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quality", required=True,
                        help="the remat-bench-quality binary")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--data-dir", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "shared",
        "data", "checkmate"))
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--sizes", default="500,1000,10000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--peer-max-nodes", type=int, default=1000)
    parser.add_argument("--python", default=sys.executable,
                        help="interpreter with ortools for the CP-SAT runs")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    scratch = os.path.join(args.out, "scratch")
    os.makedirs(scratch, exist_ok=True)

    have_ortools = subprocess.call(
        [args.python, "-c", "import ortools.sat.python.cp_model"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
    began = time.monotonic()

    # (label, quality name, data dir, file path, run the peer?)
    graphs = [(name, name, args.data_dir, os.path.join(args.data_dir, file),
               True) for name, file in SHARED]
    for size in [int(s) for s in args.sizes.split(",") if s]:
        document = gen_random_layered.generate(size, args.seed)
        directory = os.path.join(args.out, "graphs", "n%d" % size)
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, document["graph"]["name"] + ".json")
        with open(path, "w") as handle:
            json.dump(document, handle, separators=(",", ":"))
        # remat-bench-quality reads random-n100 from this file name.
        alias = os.path.join(directory, "random_layered_n100.json")
        if os.path.lexists(alias):
            os.remove(alias)
        os.symlink(os.path.basename(path), alias)
        graphs.append(("generated n%d (seed %d)" % (size, args.seed),
                       "random-n100", directory, path,
                       size <= args.peer_max_nodes))

    results = []
    for label, quality_name, data_dir, path, run_peer in graphs:
        graph = schedule_check.load_graph(path, label)
        remat = remat_budget(args.quality, data_dir, quality_name, FRACTIONS,
                             scratch)
        for fraction in FRACTIONS:
            entry = {"graph": label, "file": os.path.basename(path),
                     "nodes": len(graph), "links": graph.num_edges(),
                     "fraction": fraction,
                     "budget_bytes": schedule_check.budget_bytes(graph,
                                                                 fraction),
                     "remat_budget": remat.get(fraction)}
            if not have_ortools:
                entry["cpsat"] = {"status": "not run: %s cannot import "
                                  "ortools" % args.python}
            elif not run_peer:
                entry["cpsat"] = {"status": "not run (over %d nodes)"
                                  % args.peer_max_nodes}
            else:
                out_json = os.path.join(scratch, "cpsat-%s-%g.json" % (
                    label.replace(" ", "_").replace("(", "").replace(")", ""),
                    fraction))
                if os.path.exists(out_json):
                    os.remove(out_json)
                entry["cpsat"] = cpsat(args.python, path, label, fraction,
                                       args.time_limit, args.workers, out_json)
            results.append(entry)
            print("peers: %s at %g: remat %s; CP-SAT %s" % (
                label, fraction, remat_cell(entry["remat_budget"]),
                " ".join(peer_cell(entry["cpsat"]))), flush=True)

    elapsed = time.monotonic() - began
    with open(os.path.join(args.out, "peers.json"), "w") as handle:
        json.dump({"time_limit_s": args.time_limit, "workers": args.workers,
                   "seconds": elapsed, "results": results}, handle)

    lines = [
        "CP-SAT: our Moccasin model (scripts/peers/moccasin_cpsat.py, C = 2, "
        "%d worker(s), %g s wall-clock limit per solve, both phases); its "
        "TDI and peak are the independent checker's. remat: `budget` "
        "(remat-bench-quality --skip-optimal). Published: TDI at that "
        "fraction in the Moccasin (ICML 2023) and FastSA "
        "(NeurIPS 2023) papers; - where they give none. The peer step took "
        "%.0f s." % (args.workers, args.time_limit, elapsed),
        "",
        "| graph | nodes | fraction | budget B (bytes) | remat budget: TDI "
        "(time) | CP-SAT: TDI (time) | CP-SAT status | published Moccasin "
        "| published FastSA |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |"]
    for entry in results:
        published = PUBLISHED.get(entry["graph"], {})
        index = FRACTIONS.index(entry["fraction"])
        cell, status = peer_cell(entry["cpsat"])
        lines.append("| %s | %d | %.2f | {:,} | %s | %s | %s | %s | %s |"
                     .format(entry["budget_bytes"]) % (
                         entry["graph"], entry["nodes"], entry["fraction"],
                         remat_cell(entry["remat_budget"]), cell, status,
                         (published.get("Moccasin") or (None,) * 3)[index]
                         or "-",
                         (published.get("FastSA") or (None,) * 3)[index]
                         or "-"))
    with open(os.path.join(args.out, "peers.md"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
