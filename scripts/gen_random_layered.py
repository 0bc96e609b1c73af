#!/usr/bin/env python3
"""Random layered DAGs like ../shared/data/checkmate/random_layered_n*.json.

    scripts/gen_random_layered.py --nodes 500 1000 10000 --seed 1 --out-dir DIR
    scripts/gen_random_layered.py --nodes 500 --seed 7 -o graph.json

Writes networkx node-link JSON in the format of the shared random layered
graphs (nodes {"name", "out_cost", "param_cost", "duration"}, links
{"0": src, "1": dst}, and the same "graph" metadata: pos, source_node,
target_node, the cost tags, order), which remat's Checkmate importer
(remat-translate --import-checkmate-json, remat-bench-quality) reads.
Deterministic: the same --seed and parameters give the same bytes (Python's
`random.Random`, no other package). The file name records the parameters the
way the Moccasin repository names its copies:
random_layered_n<N>_w<W>_nlv<sigma>_ed<ed>_scd<scd>_seed<S>.json.

Where the parameters come from
------------------------------
Appendix A of "Neural Topological Ordering for Computation Graphs" (Gagrani
et al., NeurIPS 2022) defines the layered graphs in three steps. The
appendix text itself was not reachable from here; the steps below follow a
public third-party transcription of its Algorithms 1-3 (read, not copied)
and were checked against, and corrected by, the statistics of the two
shared graphs (random_layered_n100 / n250, whose names give the parameters
w0.27 / w0.43, nlv 0.75, ed 0.2, scd 0.14):

1. Layers (Algorithm 1). W ~ U(0.25, 0.5) unless --width is given (the
   shared names have 0.27, 0.31, 0.36, 0.43), L = ceil(sqrt(N (1/W - 1))).
   A source node forms layer 0; then layers of U{ceil(N/L (1 - sigma)),
   floor(N/L (1 + sigma))} nodes (sigma = 0.75) until N - 2 nodes are placed
   (the last layer is cut short); then a sink node forms the last layer.
   Doubt: both shared graphs have about 15-18% more layers than this L
   gives on average (21 and 24 layers, against about 18 and 20 expected),
   so the paper's L may differ; at N = 100..250 each is within two standard
   deviations of the sampling noise, so the formula is kept.
2. Edges between adjacent layers (Algorithm 2): E = round(n1 n2 ed +
   (1 - ed) max(n1, n2)) with ed = 0.2 (the shared graphs match round(),
   not int(), on every layer pair checked). The E edges are spread as
   evenly as possible over the nodes of the larger layer (counts differ by
   at most one; which nodes get one more is random); node i of the larger
   layer connects to a contiguous window of that many nodes of the other
   layer centred at round(i (n_small - 1) / (n_large - 1)), shifted to stay
   inside the layer (this reproduces the windows of the shared graphs).
   Every node thus has an input from the layer above and a reader in the
   layer below.
3. Skip connections (Algorithm 3): ceil(E_adj scd / (1 - scd)) more links
   (scd = 0.14, E_adj = the adjacent links), each from a uniformly chosen
   internal layer ls to a uniformly chosen internal layer lt >= ls + 2, from
   the node at relative position xs ~ U(0, 1) to the node at xt = min(xs +
   0.2 y, 0.999), y ~ U(0, 1). Duplicates collapse (the shared graphs have
   33 and 129 where the formula asks for 34 and 133). Neither the source
   nor the sink takes part (none of the shared graphs' skip links does).

Costs are not in that transcription; they are fitted to the shared graphs
(346 nodes): `duration` ~ U{0, ..., 999} (observed mean 501, sd 283, range
4..997; 0 for the source and the sink, as in the shared files), `out_cost`
~ 10 x round(Gamma(shape 1.5, scale 1360) / 10), at least 10 (observed mean
2037, sd 1666, median 1430, max 8180; almost all multiples of 10),
`param_cost` = 0 (all zero in the shared files).

Node ids: the source is 0, the sink 1, the others 2, 3, ... in (layer,
position) order, as in the shared files (so the ids are not a topological
order; remat's importer sorts them).
"""

import argparse
import json
import math
import os
import random
import sys

SIGMA = 0.75
EDGE_DENSITY = 0.2
SKIP_DENSITY = 0.14


def layer_widths(rng, n, width, sigma):
    """Algorithm 1: the number of nodes per layer, source and sink included."""
    layers = math.ceil(math.sqrt(n * (1.0 / width - 1.0)))
    low = max(1, math.ceil(n / layers * (1 - sigma)))
    high = max(low, math.floor(n / layers * (1 + sigma)))
    widths, placed, inner = [1], 0, n - 2
    while placed < inner:
        count = min(rng.randint(low, high), inner - placed)
        widths.append(count)
        placed += count
    widths.append(1)
    return widths


def adjacent_links(rng, widths, edge_density):
    """Algorithm 2: links between consecutive layers, as (layer, index) pairs."""
    links = []
    for upper in range(len(widths) - 1):
        lower = upper + 1
        n1, n2 = widths[upper], widths[lower]
        count = int(round(n1 * n2 * edge_density +
                          (1 - edge_density) * max(n1, n2)))
        count = min(max(count, max(n1, n2)), n1 * n2)
        large, small = (upper, lower) if n1 >= n2 else (lower, upper)
        n_large, n_small = widths[large], widths[small]
        per_node = [count // n_large] * n_large
        for i in rng.sample(range(n_large), count % n_large):
            per_node[i] += 1
        for i in range(n_large):
            c = min(per_node[i], n_small)
            centre = 0 if n_large == 1 else int(
                round(i * (n_small - 1) / (n_large - 1)))
            first = min(max(centre - (c - 1) // 2, 0), n_small - c)
            for j in range(first, first + c):
                pair = ((large, i), (small, j))
                links.append(pair if large == upper else pair[::-1])
    return links


def skip_links(rng, widths, num_adjacent, skip_density):
    """Algorithm 3: links that skip at least one layer (internal layers)."""
    first, last = 1, len(widths) - 2  # internal layers
    if last - first < 2:
        return []
    count = math.ceil(num_adjacent * skip_density / (1 - skip_density))
    links = []
    for _ in range(count):
        ls = rng.randint(first, last - 2)
        lt = rng.randint(ls + 2, last)
        xs = rng.random()
        xt = min(xs + 0.2 * rng.random(), 0.999)
        links.append(((ls, math.floor(xs * widths[ls])),
                      (lt, math.floor(xt * widths[lt]))))
    return links


def out_cost(rng):
    return max(10, 10 * int(round(rng.gammavariate(1.5, 1360.0) / 10)))


def generate(n, seed, width=None, sigma=SIGMA, edge_density=EDGE_DENSITY,
             skip_density=SKIP_DENSITY):
    """Returns the node-link document of one graph with exactly n nodes."""
    if n < 3:
        raise ValueError("a layered graph needs at least 3 nodes")
    rng = random.Random(seed)
    if width is None:
        width = round(rng.uniform(0.25, 0.5), 2)
    widths = layer_widths(rng, n, width, sigma)
    # Ids: source 0, sink 1, then 2, 3, ... in (layer, index) order.
    ident, next_id = {}, 2
    for layer, count in enumerate(widths):
        for index in range(count):
            if layer == 0:
                ident[(layer, index)] = 0
            elif layer == len(widths) - 1:
                ident[(layer, index)] = 1
            else:
                ident[(layer, index)] = next_id
                next_id += 1
    adjacent = adjacent_links(rng, widths, edge_density)
    skips = skip_links(rng, widths, len(adjacent), skip_density)
    seen, links = set(), []
    for a, b in adjacent + skips:
        pair = (ident[a], ident[b])
        if pair not in seen:
            seen.add(pair)
            links.append({"0": pair[0], "1": pair[1]})
    order_ids = sorted(ident.values())
    nodes = []
    for v in order_ids:
        internal = v not in (0, 1)
        nodes.append({"out_cost": out_cost(rng), "param_cost": 0,
                      "duration": rng.randint(0, 999) if internal else 0,
                      "name": v})
    pos = {}
    for (layer, index), v in ident.items():
        pos[str(v)] = [index - widths[layer] // 2, -layer]
    name = "random_layered_n%d_w%.2f_nlv%g_ed%g_scd%g_seed%d" % (
        n, width, sigma, edge_density, skip_density, seed)
    # A topological order (layer by layer) for the "order" field.
    order = [ident[(layer, index)] for layer, count in enumerate(widths)
             for index in range(count)]
    graph = {
        "name": name, "pos": pos, "source_node": 0, "target_node": 1,
        "node_output_cost_tag": "out_cost",
        "node_output_block_tag": "output_blocks",
        "node_param_cost_tag": "param_cost", "node_input_cost_tag":
        "input_cost", "node_duration_tag": "duration", "edge_cost_tag":
        "edge_cost", "edge_output_blocks_tag": "edge_output_blocks",
        "max_cost": 1, "inset_state": [], "order": order,
        "layer_widths": widths,
    }
    return {"directed": True, "multigraph": False, "graph": graph,
            "nodes": nodes, "links": links}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--width", type=float, default=None,
                        help="W of Algorithm 1 (default: U(0.25, 0.5) from "
                        "the seed)")
    parser.add_argument("--sigma", type=float, default=SIGMA)
    parser.add_argument("--edge-density", type=float, default=EDGE_DENSITY)
    parser.add_argument("--skip-density", type=float, default=SKIP_DENSITY)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("-o", "--output", help="file (one --nodes value)")
    where.add_argument("--out-dir", help="directory; file names record the "
                       "parameters")
    args = parser.parse_args(argv)
    if args.output and len(args.nodes) != 1:
        parser.error("-o takes one --nodes value; use --out-dir for several")
    for n in args.nodes:
        document = generate(n, args.seed, args.width, args.sigma,
                            args.edge_density, args.skip_density)
        path = args.output or os.path.join(
            args.out_dir, document["graph"]["name"] + ".json")
        if args.out_dir:
            os.makedirs(args.out_dir, exist_ok=True)
        with open(path, "w") as handle:
            json.dump(document, handle, separators=(",", ":"))
            handle.write("\n")
        print("%s: %d nodes, %d links, %d layers" % (
            path, len(document["nodes"]), len(document["links"]),
            len(document["graph"]["layer_widths"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
