"""Reads Checkmate-format graphs and checks rematerialization schedules.

This module is the independent judge of every schedule a peer solver
(scripts/peers/moccasin_cpsat.py) returns: it never looks at a solver's
variables or objective, only at the sequence of node evaluations, and
recomputes memory and TDI from the graph the way the data README
(../shared/data/checkmate/README.md) defines them:

- a schedule is a list of node ids, one evaluation per step; a node may
  appear more than once (recomputation);
- every node appears at least once, and when a node runs, every node it
  reads has been evaluated at an earlier step (the read is served by the
  latest earlier evaluation of that input);
- memory while the node at step j runs = its own output + the output of
  every earlier evaluation that some node at step >= j still reads (through
  that evaluation); an output nobody reads afterwards is gone after its
  step;
- peak = the maximum of that memory over the steps;
- topological peak = the peak of the schedule that evaluates every node
  once, in the topological order remat's importer uses (Kahn's algorithm,
  smallest id first: the id order for the model graphs, whose ids are
  topological, and the fixed-up order for the random layered graphs, whose
  sink has id 1);
- budget B = ceil(fraction x topological peak);
- TDI = (sum of durations over the schedule - sum over all nodes) / sum
  over all nodes.

No third-party packages: the lit test (test/Tools/peers.test) runs it with
Debian's python3.
"""

import heapq
import json
import math

__all__ = ["Graph", "load_graph", "check_schedule", "ScheduleError",
           "topological_order", "topological_peak", "budget_bytes"]


class Graph:
    """A Checkmate graph: node ids, durations, output sizes, inputs."""

    def __init__(self, name, ids, duration, size, inputs):
        self.name = name
        self.ids = list(ids)            # node ids, in file order
        self.duration = dict(duration)  # id -> compute cost (int or float)
        self.size = dict(size)          # id -> output bytes (int)
        self.inputs = {v: sorted(set(inputs.get(v, ()))) for v in self.ids}
        self.readers = {v: [] for v in self.ids}
        for v in self.ids:
            for u in self.inputs[v]:
                if u not in self.readers:
                    raise ValueError("link %r -> %r names a node that is not "
                                     "in the graph" % (u, v))
                self.readers[u].append(v)

    def __len__(self):
        return len(self.ids)

    def num_edges(self):
        return sum(len(inputs) for inputs in self.inputs.values())

    def total_duration(self):
        return sum(self.duration.values())


def load_graph(path_or_dict, name=None):
    """Loads either format of the data README (model or random graphs)."""
    if isinstance(path_or_dict, dict):
        document = path_or_dict
    else:
        with open(path_or_dict) as handle:
            document = json.load(handle)
        name = name or str(path_or_dict).rsplit("/", 1)[-1]
    nodes, links = document["nodes"], document["links"]
    if not nodes:
        raise ValueError("the graph has no nodes")
    if "cost_ram" in nodes[0]:  # model graphs
        key_id, key_cost, key_size, src, dst = ("id", "cost_cpu", "cost_ram",
                                                "source", "target")
    elif "out_cost" in nodes[0]:  # random layered graphs
        key_id, key_cost, key_size, src, dst = ("name", "duration", "out_cost",
                                                "0", "1")
    else:
        raise ValueError("unknown node schema (neither cost_ram nor out_cost)")
    ids = [node[key_id] for node in nodes]
    if len(set(ids)) != len(ids):
        raise ValueError("a node id appears more than once")
    inputs = {v: [] for v in ids}
    for link in links:
        if link[src] == link[dst]:
            raise ValueError("self-loop on node %r" % link[src])
        if link[dst] not in inputs:
            raise ValueError("link names an unknown node %r" % link[dst])
        inputs[link[dst]].append(link[src])
    return Graph(name or "graph", ids,
                 {node[key_id]: node[key_cost] for node in nodes},
                 {node[key_id]: node[key_size] for node in nodes}, inputs)


def topological_order(graph):
    """Kahn's algorithm, smallest id first (remat's importer's order)."""
    pending = {v: len(graph.inputs[v]) for v in graph.ids}
    ready = [v for v in graph.ids if pending[v] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for w in graph.readers[v]:
            pending[w] -= 1
            if pending[w] == 0:
                heapq.heappush(ready, w)
    if len(order) != len(graph.ids):
        raise ValueError("the graph has a cycle")
    return order


class ScheduleError(ValueError):
    """A schedule that is not valid for its graph."""


def check_schedule(graph, schedule, budget=None):
    """Validates `schedule` and measures it.

    Returns a dict: steps, peak (bytes), memory (per step), total_duration,
    tdi, and within_budget when a budget is given. Raises ScheduleError when
    a node runs before one of its inputs was evaluated, a node of the graph
    never runs, or the schedule names a node that is not in the graph.
    """
    # Which evaluation serves each read, and the last step that reads each
    # evaluation (the evaluation's own step when nobody reads it).
    latest = {}                 # node -> step of its latest evaluation
    last_read = []              # per step: last step reading that result
    for step, v in enumerate(schedule):
        if v not in graph.inputs:
            raise ScheduleError("step %d runs %r, which is not a node of the "
                                "graph" % (step, v))
        for u in graph.inputs[v]:
            if u not in latest:
                raise ScheduleError(
                    "step %d runs %r, which reads %r, but %r has not been "
                    "evaluated before step %d (or was not kept)"
                    % (step, v, u, u, step))
            last_read[latest[u]] = step
        last_read.append(step)
        latest[v] = step
    missing = [v for v in graph.ids if v not in latest]
    if missing:
        raise ScheduleError("%d node(s) never run, e.g. %r"
                            % (len(missing), missing[0]))
    # Memory at step j = sum of sizes of evaluations s <= j whose live range
    # [s, last_read[s]] contains j: a difference array over the steps.
    delta = [0] * (len(schedule) + 1)
    for step, v in enumerate(schedule):
        delta[step] += graph.size[v]
        delta[last_read[step] + 1] -= graph.size[v]
    memory, current = [], 0
    for step in range(len(schedule)):
        current += delta[step]
        memory.append(current)
    total = sum(graph.duration[v] for v in schedule)
    base = graph.total_duration()
    result = {
        "steps": len(schedule),
        "recomputations": len(schedule) - len(graph.ids),
        "peak": max(memory) if memory else 0,
        "memory": memory,
        "total_duration": total,
        "tdi": (total - base) / base if base else 0.0,
    }
    if budget is not None:
        result["within_budget"] = result["peak"] <= budget
    return result


def topological_peak(graph):
    return check_schedule(graph, topological_order(graph))["peak"]


def budget_bytes(graph, fraction):
    """B = ceil(fraction x topological peak), as the data README defines."""
    return math.ceil(fraction * topological_peak(graph))
