"""Checks scripts/peers/schedule_check.py and scripts/gen_random_layered.py.

usage: check_peers.py TOOLS_DIR CHECKMATE_DATA_DIR SCRIPTS_DIR SCRATCH

No ortools needed (Debian's python3 runs it): the schedule checker on a
hand-made graph (valid schedules measured by hand; a read of a value never
evaluated, a node never run and an unknown node rejected), on the six shared
graphs (the data README's topological peaks, costs and budgets), that
moccasin_cpsat imports without ortools, and the random layered generator
(deterministic for a seed, the requested size, acyclic and layered as its
docstring says, imported by remat-translate with remat-opt's save-all peak
and time equal to the checker's). Prints one line per check and "peers:
PASS"; exits non-zero on the first failed check.
"""

import json
import os
import subprocess
import sys

tools, data, scripts, scratch = sys.argv[1:5]
sys.path.insert(0, os.path.join(scripts, "peers"))
sys.path.insert(0, scripts)
import schedule_check as sc  # noqa: E402
import gen_random_layered as gen  # noqa: E402


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


# A forward chain a -> b -> c -> d plus a skip a -> d (model schema).
# Sizes a=4, b=1, c=2, d=8; durations 1, 2, 3, 4.
tiny = sc.load_graph({"nodes": [
    {"id": i, "name": n, "backward": False, "cost_cpu": t, "cost_ram": m}
    for i, (n, t, m) in enumerate([("a", 1, 4), ("b", 2, 1), ("c", 3, 2),
                                   ("d", 4, 8)])],
    "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2},
              {"source": 2, "target": 3}, {"source": 0, "target": 3}]}, "tiny")
# In order: step 0 a (4); step 1 b reads a: a+b = 5; step 2 c: a (read by d
# later) + b + c = 7; step 3 d: a + c + d = 14.
result = sc.check_schedule(tiny, [0, 1, 2, 3])
check(result["memory"] == [4, 5, 7, 14] and result["peak"] == 14 and
      result["tdi"] == 0, "topological schedule: memory 4 5 7 14, TDI 0")
# Recompute a before d: the first a is freed after b reads it (step 1).
result = sc.check_schedule(tiny, [0, 1, 2, 0, 3], budget=14)
check(result["memory"] == [4, 5, 3, 6, 14] and
      abs(result["tdi"] - 0.1) < 1e-12 and result["within_budget"],
      "recomputed a: the first copy is freed after its last read, "
      "memory 4 5 3 6 14, TDI 1/10")
check(not sc.check_schedule(tiny, [0, 1, 2, 3], budget=13)["within_budget"],
      "a peak over the budget is reported")
for bad, what in (([1, 0, 2, 3], "reads a before a is evaluated"),
                  ([0, 2, 1, 3], "c reads b before b is evaluated"),
                  ([0, 1, 2], "d never runs"),
                  ([0, 1, 2, 3, 9], "names a node not in the graph")):
    try:
        sc.check_schedule(tiny, bad)
        check(False, "rejects a schedule that " + what)
    except sc.ScheduleError:
        check(True, "rejects a schedule that " + what)

# The data README's figures, for every shared graph.
README = {
    "VGG16_b256_224x224_train.json": (15825108992, 15500, 14242598093),
    "VGG19_b256_224x224_train.json": (17058234368, 9493135, 15352410932),
    "MobileNet_b512_224x224_train.json": (34701056000, 162080, 31230950400),
    "ResNet50_b256_224x224_train.json": (38059356160, 405670, 34253420544),
    "random_layered_n100.json": (50590, 47769, 45531),
    "random_layered_n250.json": (135910, 125569, 122319),
}
for file, (peak, total, b90) in README.items():
    graph = sc.load_graph(os.path.join(data, file))
    check(sc.topological_peak(graph) == peak and
          graph.total_duration() == total and
          sc.budget_bytes(graph, 0.9) == b90,
          "%s: topological peak %d, total cost %d, B(0.9) %d"
          % (file, peak, total, b90))

try:
    import moccasin_cpsat  # noqa: F401  (ortools is imported lazily)
    check(True, "moccasin_cpsat imports without ortools")
except ImportError as error:
    check(False, "moccasin_cpsat imports without ortools: %s" % error)

# The generator.
first, again = gen.generate(500, 3), gen.generate(500, 3)
other = gen.generate(500, 4)
check(json.dumps(first) == json.dumps(again), "same seed, same graph")
check(json.dumps(first) != json.dumps(other), "another seed, another graph")
for n in (100, 500, 1000):
    document = gen.generate(n, 1)
    graph = sc.load_graph(document, "n%d" % n)
    layer = {int(v): -xy[1] for v, xy in document["graph"]["pos"].items()}
    widths = document["graph"]["layer_widths"]
    links = [(link["0"], link["1"]) for link in document["links"]]
    adjacent = sum(1 for u, v in links if layer[v] == layer[u] + 1)
    skips = len(links) - adjacent
    check(len(graph) == n and sorted(graph.ids) == list(range(n)),
          "n=%d: ids 0..%d" % (n, n - 1))
    check(all(layer[v] > layer[u] for u, v in links),
          "n=%d: every link goes to a later layer (acyclic)" % n)
    check(len(set(links)) == len(links), "n=%d: no duplicate links" % n)
    check(layer[0] == 0 and layer[1] == len(widths) - 1 and
          widths[0] == widths[-1] == 1,
          "n=%d: source 0 alone in the first layer, sink 1 in the last" % n)
    check(all(any(layer[u] == layer[v] - 1 for u in graph.inputs[v])
              for v in graph.ids if v != 0) and
          all(any(layer[w] == layer[v] + 1 for w in graph.readers[v])
              for v in graph.ids if v != 1),
          "n=%d: every node reads the layer above and is read below" % n)
    check(all(layer[u] != 0 and layer[v] != len(widths) - 1
              for u, v in links if layer[v] - layer[u] > 1),
          "n=%d: skip links avoid the source and the sink" % n)
    check(0.08 <= skips / len(links) <= 0.16,
          "n=%d: skip links are %.3f of all (scd 0.14, duplicates "
          "collapse)" % (n, skips / len(links)))
    check(sc.topological_order(graph)[0] == 0 and
          sc.topological_order(graph)[-1] == 1,
          "n=%d: remat's topological order starts at 0 and ends at 1" % n)

# remat imports a generated graph and agrees with the checker.
path = os.path.join(scratch, "layered.json")
with open(path, "w") as handle:
    json.dump(gen.generate(300, 5), handle)
mlir = os.path.join(scratch, "layered.mlir")
subprocess.run([os.path.join(tools, "remat-translate"),
                "--import-checkmate-json", path, "-o", mlir], check=True)
report = subprocess.run([os.path.join(tools, "remat-opt"), mlir,
                         "-remat-plan=strategy=save-all",
                         "-remat-report=output=-", "-o", os.devnull],
                        check=True, capture_output=True, text=True).stdout
report = json.loads(report)
graph = sc.load_graph(path)
check(report["peak_memory_bytes"] == sc.topological_peak(graph) and
      report["predicted_total_time_us"] == graph.total_duration(),
      "remat imports a generated graph: save-all peak %d and time %d equal "
      "the checker's" % (report["peak_memory_bytes"],
                         report["predicted_total_time_us"]))
print("peers: PASS")
