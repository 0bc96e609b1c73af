#!/usr/bin/env bash
# Builds and runs remat's benchmarks, then rewrites the generated sections of
# docs/benchmarks.md and the Pareto plots in docs/img/. Not part of the test
# command (benchmarks are not tests). About 15-25 minutes on a 2-core machine,
# plus about 4 minutes per PyTorch version for the measured training steps
# (remat_torch.measure) and about a minute for JAX's MaxText policies against
# remat's plans (scripts/bench_jax_compare.sh, which also runs alone), and
# about 3.5 minutes for the peers (our CP-SAT model of Moccasin beside remat
# `budget`, scripts/peers/bench_peers.py; it pip-installs ortools into .venv
# when missing, and is skipped, saying why, when it cannot).
#
#   scripts/bench.sh                         # build dir: build/
#   REMAT_BUILD_DIR=build-bench scripts/bench.sh
#   REMAT_OPTIMAL_TIME_LIMIT=30 scripts/bench.sh   # seconds per optimal solve
#                                                  # (and per CP-SAT solve)
#
# Raw outputs are kept in $REMAT_BUILD_DIR/bench/ (benchmark JSON, quality
# CSV and markdown, logs).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${REMAT_BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
optimal_limit=${REMAT_OPTIMAL_TIME_LIMIT:-10}
out=$build/bench
doc=$root/docs/benchmarks.md
python=/usr/bin/python3 # Debian's interpreter: it sees python3-matplotlib

# The plot needs matplotlib from Debian (only here, not in the test setup).
source "$root/scripts/ensure-packages.sh"
ensure_packages bench python3-matplotlib

if [[ ! -f $build/build.ninja ]]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DREMAT_BUILD_BENCHMARKS=ON \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
ninja -C "$build" remat-bench-planner remat-bench-quality remat-opt
# remat_torch.measure plans in-process through the remat._remat extension.
if ninja -C "$build" -t targets all 2>/dev/null | grep -q '^RematPythonModule:'; then
  ninja -C "$build" RematPythonModule
fi
mkdir -p "$out"
start=$(date +%s)

# The machine, as the numbers depend on it (and on what else runs on it).
{
  echo "| | |"
  echo "| --- | --- |"
  echo "| date (UTC) | $(date -u '+%Y-%m-%d %H:%M') |"
  echo "| commit | $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- lib include benchmarks || echo ' (with uncommitted changes)') |"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') |"
  # Vector extensions: the kernels PyTorch and XLA pick (and their scratch
  # memory) depend on them, so measured peaks can differ between machines.
  isa=$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
    grep -E '^(avx2|avx512f|avx512_bf16|amx_tile)$' | paste -sd' ' || true)
  echo "| vector extensions | ${isa:-none of avx2, avx512f, avx512_bf16, amx_tile} |"
  echo "| nproc | $(nproc) |"
  echo "| memory | $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) |"
  echo "| load average at start | $(cut -d' ' -f1-3 /proc/loadavg) |"
  echo "| compiler | $(c++ --version | head -1) |"
  echo "| build | Release (-O3), $(basename "$build") |"
} >"$out/machine.md"

echo "bench: graph sizes"
"$build/bin/remat-bench-planner" --graph-stats >"$out/graphs.md"

echo "bench: planner speed (Google Benchmark)"
"$build/bin/remat-bench-planner" --benchmark_out="$out/planner.json" \
  --benchmark_out_format=json | tee "$out/planner.log"

echo "bench: plan quality (optimal time limit ${optimal_limit} s)"
"$build/bin/remat-bench-quality" --optimal-time-limit="$optimal_limit" \
  --csv="$out/quality.csv" | tee "$out/quality.md"

echo "bench: Pareto plots"
"$python" "$root/scripts/plot_pareto.py" "$out/quality.csv" "$root/docs/img"

# PyTorch's min-cut partitioner and remat-plan on one AOTAutograd joint graph
# (32-layer Llama-style decoder), both timed in this run. Needs Debian's
# python3-torch; skipped (and said so in the doc) without it.
rm -f "$out/pytorch.md" "$out/pytorch.json"
if "$python" -c "import torch, functorch" 2>/dev/null; then
  echo "bench: PyTorch comparison (Llama-style, 32 layers)"
  # Five alternating calls per side, medians: with one call each, a slow
  # moment of the shared machine moved the ratio between 51x and 142x.
  PYTHONPATH="$root/python" "$python" -m remat_torch.compare llama --layers 32 \
    --repeats 5 \
    --remat-opt "$build/bin/remat-opt" --json "$out/pytorch.json" \
    --markdown "$out/pytorch.md" | tee "$out/pytorch.log"
else
  echo "bench: $python cannot import torch: PyTorch comparison skipped"
fi

# Real training steps (forward and backward, eager kernels) under PyTorch's
# partitioner and remat's: saved bytes, measured peak, step time, remat's
# predictions and their errors (remat_torch.measure, docs/benchmarks.md), on
# Debian's PyTorch 1.13 and the project venv's PyTorch 2.x; an interpreter that
# cannot import torch is skipped (and said so in the doc). Plots go to docs/img.
venv_python=$root/.venv/bin/python
for major in 1 2; do
  interpreter=$python
  [[ $major = 2 ]] && interpreter=$venv_python
  rm -f "$out/measure-torch$major".{md,json,log}
  if [[ -x $interpreter ]] && "$interpreter" -c "import torch, sys
sys.exit(int(torch.__version__.split('.')[0]) != $major)" 2>/dev/null; then
    echo "bench: measured training steps on PyTorch $major.x ($interpreter)"
    # 2.x: PyTorch's activation_memory_budget under each of its knapsack
    # solvers (issue #17 item 6).
    solvers=()
    [[ $major = 2 ]] && solvers=(--torch-solvers dp,greedy,ilp)
    PYTHONPATH="$root/python" REMAT_BUILD_DIR="$build" "$interpreter" \
      -m remat_torch.measure "${solvers[@]}" --json "$out/measure-torch$major.json" \
      --markdown "$out/measure-torch$major.md" --plots "$root/docs/img" \
      2>&1 | tee "$out/measure-torch$major.log"
  else
    echo "bench: $interpreter cannot import PyTorch $major.x: its measured" \
      "training steps are skipped"
  fi
done

# The whole partition call, PyTorch's against remat_torch.partition, on the
# 32-layer Llama joint graph, in one process, on both PyTorch versions.
for major in 1 2; do
  interpreter=$python
  [[ $major = 2 ]] && interpreter=$venv_python
  rm -f "$out/partition-speed-torch$major".{md,json}
  if [[ -x $interpreter ]] && "$interpreter" -c "import torch, sys
sys.exit(int(torch.__version__.split('.')[0]) != $major)" 2>/dev/null; then
    echo "bench: partition call speed on PyTorch $major.x"
    PYTHONPATH="$root/python" REMAT_BUILD_DIR="$build" "$interpreter" \
      -m remat_torch.speed llama --layers 32 \
      --json "$out/partition-speed-torch$major.json" \
      --markdown "$out/partition-speed-torch$major.md"
  fi
done

# MaxText's remat policies against remat's plans, JAX training steps on the
# CPU (remat_jax.compare); writes its own section of the doc and its plot.
REMAT_BUILD_DIR="$build" "$root/scripts/bench_jax_compare.sh"

# Peers in the same run (issue #17 item 6): our own CP-SAT implementation of
# Moccasin's model (scripts/peers/moccasin_cpsat.py; ortools from PyPI into
# the venv) beside remat `budget`, on the six Checkmate graphs and on random
# layered graphs of 500, 1,000 and 10,000 nodes (scripts/gen_random_layered.py,
# seed 1; CP-SAT on those up to 1,000 nodes), with the wall-clock limit
# `optimal` gets and one CP-SAT worker. Every CP-SAT schedule is re-measured
# by an independent checker (scripts/peers/schedule_check.py).
rm -rf "$out/peers" "$out/peers.log"
if [[ -x $venv_python ]]; then
  if ! "$venv_python" -c "import ortools.sat.python.cp_model" 2>/dev/null; then
    echo "bench: installing ortools into $root/.venv for the CP-SAT peer"
    if ! "$venv_python" -m pip install -q ortools >"$out/pip-ortools.log" 2>&1
    then
      echo "bench: pip could not install ortools ($(grep -m1 -i error \
        "$out/pip-ortools.log" || tail -1 "$out/pip-ortools.log")); the" \
        "CP-SAT column says not run"
    fi
  fi
  echo "bench: peers (CP-SAT Moccasin model, ${optimal_limit} s per solve, 1 worker)"
  if ! "$venv_python" "$root/scripts/peers/bench_peers.py" \
      --quality "$build/bin/remat-bench-quality" --out "$out/peers" \
      --time-limit "$optimal_limit" --workers 1 2>&1 | tee "$out/peers.log"
  then
    echo "bench: the peers step failed (see $out/peers.log)"
  fi
else
  echo "bench: no $venv_python (scripts/setup.sh makes it): peers skipped"
fi

echo "bench: load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" |
  tee -a "$out/planner.log"
echo "| load average at end | $(cut -d' ' -f1-3 /proc/loadavg) |" >>"$out/machine.md"
echo "| bench.sh wall time | $(( $(date +%s) - start )) s |" >>"$out/machine.md"

# Tables from the raw outputs, then the generated sections of the doc.
"$python" - "$out" "$doc" "$optimal_limit" <<'PY'
import csv
import json
import re
import sys

out, doc_path, optimal_limit = sys.argv[1], sys.argv[2], sys.argv[3]

with open(out + "/planner.json") as handle:
    runs = json.load(handle)["benchmarks"]
medians = {}
for run in runs:
    if run.get("aggregate_name") != "median":
        continue
    graph, strategy = run["run_name"].split("/")[:2]
    medians[(graph, strategy)] = run
order = []
for key in medians:
    if key[0] not in order:
        order.append(key[0])


def ms(run, field):
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[run["time_unit"]]
    return run[field] * scale


def fmt_ms(value):
    return "%.1f" % value if value >= 10 else "%.2f" % value


speed = ["| graph | ops | strategy | wall ms (median) | CPU ms (median) "
         "| nodes/s (wall) | us/node (CPU) | cold us/node (CPU) "
         "| peak RSS MiB |",
         "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for graph in order:
    for strategy in ("save-all", "recompute-all", "min-cut", "budget"):
        run = medians.get((graph, strategy))
        if run is None:
            continue
        ops = run["ops"]
        speed.append("| %s | %d | %s | %s | %s | %.0fk | %.2f | %.2f | %.0f |"
                     % (graph, ops, strategy, fmt_ms(ms(run, "real_time")),
                        fmt_ms(ms(run, "cpu_time")), run["nodes/s"] / 1e3,
                        1e3 * ms(run, "cpu_time") / ops,
                        1e6 * run["cold_s/node"], run["peak_rss"] / 2**20))

quality_rows = list(csv.DictReader(open(out + "/quality.csv")))


def target_row(what, goal, run, limit_ms, memory=None):
    if run is None:
        return "| %s | %s | not measured | |" % (what, goal)
    wall, cpu = ms(run, "real_time"), ms(run, "cpu_time")
    verdict = []
    for label, value in (("wall", wall), ("CPU", cpu)):
        verdict.append("%s %s ms: %s" % (
            label, fmt_ms(value),
            "met" if value <= limit_ms else "missed by %.0f%%"
            % (100 * (value / limit_ms - 1))))
    if memory is not None:
        rss = run["peak_rss"] / 2**30
        verdict.append("peak RSS %.2f GiB: %s" % (
            rss, "met" if rss <= memory else "missed"))
    return "| %s | %s | %s |" % (what, goal, "; ".join(verdict))


targets = ["| target | goal | measured (median) |", "| --- | --- | --- |"]
targets.append(target_row("min-cut, Llama 32 layers", "<= 10 ms",
                          medians.get(("llama7b-32L", "min-cut")), 10))
targets.append(target_row("min-cut, Llama 80 layers (70B dims)", "<= 30 ms",
                          medians.get(("llama70b-80L", "min-cut")), 30))
targets.append(target_row("min-cut, 1M-op DAG", "<= 3 s within 4 GiB",
                          medians.get(("dag-1M", "min-cut")), 3000, 4.0))
per_node, cold = [], []
for graph in ("dag-10k", "dag-100k", "dag-1M"):
    run = medians.get((graph, "min-cut"))
    if run:
        per_node.append(1e3 * ms(run, "cpu_time") / run["ops"])
        cold.append(1e6 * run["cold_s/node"])
if len(per_node) == 3:
    targets.append(
        "| min-cut cost per node, 10k to 1M | roughly flat | "
        "us/node (CPU, steady state): %s, 1M/10k %.2fx; first plan in a "
        "trimmed heap: %s, 1M/10k %.2fx |" % (
            " / ".join("%.2f" % v for v in per_node),
            per_node[2] / per_node[0],
            " / ".join("%.2f" % v for v in cold), cold[2] / cold[0]))
resnet = [r for r in quality_rows if r["graph"] == "ResNet50"
          and r["strategy"] == "budget" and abs(float(r["fraction"]) - 0.8)
          < 1e-9]
if resnet and resnet[0]["status"] == "ok":
    tdi, seconds = 100 * float(resnet[0]["tdi"]), float(resnet[0]["seconds"])
    targets.append("| budget, ResNet50 at 0.8 | <= 0.3%% overhead in <= 1 s "
                   "| %.2f%% (%s) in %.3f s (%s) |" % (
                       tdi, "met" if tdi <= 0.3 else "missed by %.2f points"
                       % (tdi - 0.3), seconds,
                       "met" if seconds <= 1 else "missed"))
gaps, unfinished, budget_misses = [], 0, []
by_key = {}
for row in quality_rows:
    by_key[(row["graph"], row["fraction"], row["strategy"])] = row
for (graph, fraction, strategy), row in by_key.items():
    if strategy != "optimal":
        continue
    if row["status"] != "ok":
        unfinished += row["status"] == "timeout"
        continue
    budget = by_key.get((graph, fraction, "budget"))
    if budget and budget["status"] == "infeasible":
        budget_misses.append("%s at %s" % (graph, fraction))
    if budget and budget["status"] == "ok":
        gap = (1 + float(budget["tdi"])) / (1 + float(row["tdi"])) - 1
        gaps.append((gap, graph, fraction))
if gaps:
    worst = max(gaps, key=lambda g: g[0])  # first of equals, as quality.cpp
    within = sum(1 for gap, _, _ in gaps if gap <= 0.01)
    targets.append("| budget vs optimal where optimal finishes | within 1%% "
                   "(relative) | %d of %d within 1%%; worst %.2f%% (%s at "
                   "%s); optimal did not finish in %s s at %d budgets |" % (
                       within, len(gaps), 100 * worst[0], worst[1], worst[2],
                       optimal_limit, unfinished))
targets.append("| budget feasible wherever optimal is | - | optimal meets "
               "%d budgets where budget reports infeasible%s |" % (
                   len(budget_misses),
                   (": " + ", ".join(sorted(budget_misses)))
                   if budget_misses else ""))

try:
    with open(out + "/pytorch.json") as handle:
        versus = json.load(handle)
    torch_s = versus["pytorch"]["planning time (s)"]
    remat_s = versus["remat"]["planning time (s)"]
    row = "saved activation bytes"
    saved = (versus["remat"][row], versus["pytorch"][row])
    ratio = torch_s / remat_s if remat_s else float("inf")
    targets.append("| PyTorch 1.13 min-cut partitioner, Llama-style 32 layers "
                   "(same run) | >= 100x faster, no more saved activation bytes | "
                   "%.0fx (%.3f s vs %.4f s): %s; saved activation bytes %d "
                   "vs %d: %s |" % (
                       ratio, torch_s, remat_s,
                       "met" if ratio >= 100 else "missed", saved[0], saved[1],
                       "met" if saved[0] <= saved[1] else "missed"))
except FileNotFoundError:
    targets.append("| PyTorch 1.13 min-cut partitioner | >= 100x faster | "
                   "not measured (no torch) |")
quality = open(out + "/quality.md").read().strip()
quality = re.sub(r"^### ", "#### ", quality, flags=re.M)
sections = {
    "machine": open(out + "/machine.md").read().strip(),
    "graphs": open(out + "/graphs.md").read().strip(),
    "speed": "\n".join(speed),
    "targets": "\n".join(targets),
    "quality": quality,
}
try:
    sections["pytorch"] = open(out + "/pytorch.md").read().strip()
except FileNotFoundError:
    sections["pytorch"] = ("Not measured in this run: /usr/bin/python3 "
                           "cannot import torch (install python3-torch).")
measured = []
for major, where in (("1", "Debian's /usr/bin/python3"),
                     ("2", "the project's .venv")):
    try:
        table = open("%s/measure-torch%s.md" % (out, major)).read().strip()
        measured.append("### PyTorch %s.x (%s)\n\n%s" % (major, where, table))
    except FileNotFoundError:
        measured.append("### PyTorch %s.x\n\nNot measured in this run: %s "
                        "cannot import PyTorch %s.x." % (major, where, major))
sections["measure"] = "\n\n".join(measured)
speeds = []
for major in ("1", "2"):
    try:
        speeds.append(open("%s/partition-speed-torch%s.md" % (out, major))
                      .read().strip())
    except FileNotFoundError:
        speeds.append("PyTorch %s.x: not measured in this run." % major)
sections["partition-speed"] = "\n\n".join(speeds)
try:
    sections["peers"] = open(out + "/peers/peers.md").read().strip()
except FileNotFoundError:
    sections["peers"] = ("Not measured in this run: the peers step did not "
                         "finish (see <build>/bench/peers.log).")
doc = open(doc_path).read()
for name, body in sections.items():
    pattern = re.compile(r"(<!-- BEGIN GENERATED %s -->\n).*?(<!-- END "
                         r"GENERATED %s -->)" % (name, name), re.S)
    if not pattern.search(doc):
        sys.exit("bench.sh: %s has no generated section '%s'" % (doc_path,
                                                                 name))
    doc = pattern.sub(lambda m: m.group(1) + body + "\n" + m.group(2), doc)
open(doc_path, "w").write(doc)
print("bench: rewrote", doc_path)
PY
