"""Turn AOTAutograd's joint graph into remat's joint form (`.mlir` text).

Every FX node becomes one op, printed in MLIR's generic form (which
remat-opt parses for every op and verifies), with `remat.name` = the FX node
name so that decisions can be matched back to PyTorch's graph. ATen ops whose
semantics match a typed remat op become that op (ops.py has the table);
anything else becomes `remat.opaque` with a FLOP estimate and a compute
class, and a warning lists the ATen ops that had no entry at all.
"""

import operator
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import torch
import torch.fx

from remat.mlir_text import quoted
from remat_torch import ops as op_table
from remat_torch.capture import capture_joint
from remat_torch.emitter import DTYPES, Emitter, ExportError, Value
from remat_torch.fxmeta import (backward_region, is_symbolic, meta_from_getitems, meta_of,
                                module_attribute)
from remat_torch.higher_order import subgraph_module
from remat_torch.lowering import lower_node
from remat_torch.nn_ops import find_cpu_dropouts, lower_cpu_dropout
from remat_torch.regions import marker_kind, node_tags


@dataclass
class JointExport:
    """The result of an export: the .mlir text and what a comparison needs."""
    mlir: str
    function: str
    joint: torch.fx.GraphModule
    unmapped: List[str] = field(default_factory=list)
    # FX node name -> remat.name of the value it became (identical today;
    # kept so callers do not depend on that).
    value_names: Dict[str, str] = field(default_factory=dict)
    capture: object = None
    num_fwd_outputs: int = 0
    param_count: int = 0
    # Argument value name (loc) -> joint placeholder name (rng arguments
    # the exporter added map to themselves).
    argument_labels: Dict[str, str] = field(default_factory=dict)
    # ATen op -> ["node: reason", ...] for uses a typed mapping declined
    # (exported as remat.opaque).
    declined: Dict[str, List[str]] = field(default_factory=dict)
    # Labels of the rng arguments (dropout seed and offsets).
    rng_arguments: List[str] = field(default_factory=list)


@dataclass
class MlirGraph:
    """What graph_to_mlir made of a joint FX graph."""
    text: str
    unmapped: List[str]
    # Argument value name (loc) -> joint placeholder name.
    argument_labels: Dict[str, str]
    # ATen op -> ["node: reason", ...] for uses a typed mapping declined.
    declined: Dict[str, List[str]]
    # Labels of the rng arguments (dropout seed and offsets).
    rng_arguments: List[str]
    # The emitter's bookkeeping: FX node -> Value(s), ssa -> Origin.
    values: Dict[str, object]
    origins: Dict[str, object]


def graph_to_mlir(joint: torch.fx.GraphModule, *, function_name="joint",
                  primal_names: Optional[List[str]] = None,
                  param_count=0, num_fwd_outputs=None,
                  replayable_random=True,
                  workspace_bytes: Optional[Dict[str, int]] = None,
                  op_times_us: Optional[Dict[str, float]] = None) -> MlirGraph:
    """Converts a joint FX graph (placeholders primals_*/tangents_*, one
    output list: forward outputs then one gradient per primal) to MLIR.

    `replayable_random=False` is for graphs that will run as FX code
    (remat_torch.partition): random ops stay opaque random ops without RNG
    state, which the planner saves, since PyTorch cannot replay them with
    the same numbers there.

    `workspace_bytes` (FX node name -> bytes, remat_torch.workspace) become
    `remat.workspace_bytes` on the ops each node lowers to.

    `op_times_us` (FX node name -> microseconds, remat_torch.workspace's
    profile_op_times) become `remat.fixed_time_us` on the op that computes
    each node's value, and 0 on the other non-view ops it lowers to."""
    graph = joint.graph
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    primals = [n for n in placeholders if not n.name.startswith("tangents")]
    primal_position = {node: i for i, node in enumerate(primals)}
    if not any(n.name.startswith("tangents") for n in placeholders):
        raise ExportError("the joint graph has no tangents_* placeholder: "
                          "trace a function whose output requires grad")
    # A graph traced with dynamic shapes also takes its sizes (SymInts) and
    # computes on them: those are not tensors and not exported; tensor
    # shapes are planned at the sizes traced (their hints).
    tensor_placeholders = [n for n in placeholders if not is_symbolic(n)]
    # Constant tensors the graph reads as module attributes: arguments like
    # the parameters (held by the module, free to read in either half).
    constants = [n for n in graph.nodes if n.op == "get_attr"]
    emitter = Emitter(function_name)
    emitter.replayable_random = replayable_random
    try:
        tags = node_tags(graph, op_table.packet)
    except ValueError as error:
        raise ExportError(str(error)) from None
    dropouts = find_cpu_dropouts(graph) if replayable_random else {}
    backward = backward_region(graph)
    arguments = []

    def add_argument(node, shape, dtype, role, label):
        emitter.argument_labels[label] = node.name
        value = Value(f"%arg{len(arguments)}", shape, dtype)
        emitter.values[node.name] = value
        arguments.append(f"{value.ssa}: {value.type} {{remat.role = \"{role}\"}}"
                         f" loc({quoted(label)})")

    for node in tensor_placeholders:
        meta = meta_of(node)
        if meta is None or isinstance(meta, list):
            raise ExportError(f"placeholder '{node.name}' has no tensor shape "
                              "metadata; export tensors only")
        shape, dtype = meta
        if node.name.startswith("tangents"):
            role, label = "tangent", node.name
        else:
            primal_index = primal_position[node]
            role = "param" if primal_index < param_count else "input"
            label = (primal_names[primal_index]
                     if primal_names and primal_index < len(primal_names)
                     else node.name)
        add_argument(node, shape, dtype, role, label)
    for node in constants:
        subgraph = subgraph_module(joint, node)
        if subgraph is not None:
            emitter.subgraphs[node.name] = subgraph
            continue
        meta = meta_of(node)
        if meta is None:
            constant = module_attribute(joint, node.target)
            if isinstance(constant, torch.Tensor):
                meta = (tuple(constant.shape), constant.dtype)
        if meta is None or isinstance(meta, list) or meta[1] not in DTYPES:
            raise ExportError(f"node '{node.name}' reads module attribute "
                              f"'{node.target}', which is not a tensor remat "
                              "can describe")
        add_argument(node, meta[0], meta[1], "param", str(node.target))
    # Arguments the lowering adds (dropout's seeds and offsets) follow.
    emitter.first_extra_argument = len(arguments)
    argument_of = {node: i for i, node in enumerate(tensor_placeholders)}

    output_node = None
    for node in graph.nodes:
        if node.op in ("placeholder", "get_attr"):
            continue
        if node.op == "output":
            output_node = node
            continue
        if node.op != "call_function":
            raise ExportError(f"node '{node.name}' is a {node.op}; the joint "
                              "graph should hold call_function nodes only")
        if is_symbolic(node) or (
                meta_of(node) is None and node.all_input_nodes and
                all(is_symbolic(i) for i in node.all_input_nodes)):
            # A size computation, or a check on sizes (_assert_scalar).
            continue
        if marker_kind(node) is not None or \
                (op_table.packet(node) in ("detach", "alias") and
                 len(node.args) == 1 and not node.kwargs) or \
                (op_table.packet(node) == "clone" and len(node.args) == 1 and
                 set(node.kwargs) <= {"memory_format"}):
            # A checkpoint-region marker, detach, alias and clone are
            # identities on values (tensors are values in remat; a clone's
            # layout change is the lowering's business): the node's value is
            # its input's (a region's tags went on the region's ops).
            emitter.values[node.name] = emitter.values[node.args[0].name]
            continue
        dropout = dropouts.get(node.name)
        if dropout == "skip":  # the mask chain of a CPU dropout
            continue
        if node.target is operator.getitem:
            source, index = node.args
            produced = emitter.values.get(source.name)
            if not isinstance(produced, list) or produced[index] is None:
                raise ExportError(f"node '{node.name}' takes result {index} of "
                                  f"'{source.name}', which has no tensor there")
            emitter.values[node.name] = produced[index]
            continue
        meta = meta_of(node)
        where = f"node '{node.name}' ({node.target})"
        if meta is None:
            meta = meta_from_getitems(node)
        if meta is None:
            raise ExportError(f"{where} has unknown output shapes (no "
                              "tensor_meta/val metadata, or a size that "
                              "depends on data); remat needs static shapes "
                              "or size hints, which a size that depends on "
                              "the data (nonzero's, a boolean mask index's) "
                              "does not have; when exporting, trace with "
                              "concrete example inputs")
        results = meta if isinstance(meta, list) else [meta]
        if any(r is not None and r[1] not in DTYPES for r in results):
            raise ExportError(f"{where}: result dtype has no remat equivalent")
        emitter.tags, emitter.tag_note = tags.get(node.name, ([], None))
        emitter.workspace = (workspace_bytes or {}).get(node.name, 0)
        emitter.op_time_us = (op_times_us or {}).get(node.name)
        emitter.current_node = node.name
        emitter.in_backward = node in backward
        if dropout is not None:
            value = lower_cpu_dropout(emitter, node, dropout, results)
            if value is None:
                raise ExportError(f"{where}: the dropout product does not "
                                  "match its forward dropout")
            emitter.values[node.name] = value
        else:
            lower_node(emitter, node, results, where)
        value = emitter.values.get(node.name)
        emitter.finish_node_time(value[0] if isinstance(value, list) and value
                                 else value)
        emitter.tags, emitter.tag_note = [], None
        emitter.workspace = 0
        emitter.current_node = None
        emitter.in_backward = False

    if output_node is None:
        raise ExportError("the joint graph has no output node")
    outputs = list(output_node.args[0])
    if num_fwd_outputs is None:
        num_fwd_outputs = len(outputs) - len(primals)
    returned, result_attrs = [], []
    for position, out in enumerate(outputs):
        if out is None:
            continue
        if not isinstance(out, torch.fx.Node):
            raise ExportError(f"joint output #{position} is {out!r}, not a tensor")
        value = emitter.values[out.name]
        if position < num_fwd_outputs:
            attrs = '{remat.role = "output"}'
        else:
            # The argument of the primal it is the gradient of (sizes are
            # primals too, but no arguments).
            grad_of = argument_of[primals[position - num_fwd_outputs]]
            attrs = f'{{remat.grad_of = {grad_of} : i64, remat.role = "grad"}}'
        returned.append(value)
        result_attrs.append(f"{value.type} {attrs}")

    for label, value in emitter.rng_arguments.items():
        emitter.argument_labels[label] = label
        arguments.append(f"{value.ssa}: {value.type} {{remat.role = \"rng\"}}"
                         f" loc({quoted(label)})")
    header = (f"  func.func @{function_name}({', '.join(arguments)}) -> "
              f"({', '.join(result_attrs)}) attributes {{remat.graph = \"joint\"}} {{")
    body = "\n".join(emitter.lines)
    ret = (f"    func.return {', '.join(v.ssa for v in returned)} : "
           f"{', '.join(v.type for v in returned)}")
    text = "module {\n" + header + "\n" + body + "\n" + ret + "\n  }\n}\n"
    return MlirGraph(text, sorted(emitter.unmapped),
                     dict(emitter.argument_labels),
                     {k: list(v) for k, v in emitter.declined.items()},
                     list(emitter.rng_arguments), emitter.values,
                     emitter.origins)


def _named_tensors(module):
    """Parameters then buffers, shared ones repeated, in the order
    aot_module passes them as primals."""
    def collect(method):
        try:
            return list(method(remove_duplicate=False))
        except TypeError:  # PyTorch 1.13 has no remove_duplicate
            out = []
            for prefix, sub in module.named_modules(remove_duplicate=False):
                own = (sub._parameters if method == module.named_parameters
                       else sub._buffers)
                for name, tensor in own.items():
                    if tensor is not None:
                        out.append((prefix + "." + name if prefix else name, tensor))
            return out
    return collect(module.named_parameters) + collect(module.named_buffers)


def export_joint(fn_or_module, example_inputs, *, function_name="joint",
                 partitioner=None, warn=True) -> JointExport:
    """Traces and exports; also returns the joint FX graph (and PyTorch's
    partition of it when `partitioner="min_cut"`)."""
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    capture = capture_joint(fn_or_module, list(example_inputs), partitioner)
    primal_names, param_count = None, 0
    if isinstance(fn_or_module, torch.nn.Module):
        named = _named_tensors(fn_or_module)
        param_count = len(named)
        primal_names = [name for name, _ in named] + \
            [f"input{i}" for i in range(len(example_inputs))]
    else:
        primal_names = [f"input{i}" for i in range(len(example_inputs))]
    graph = graph_to_mlir(capture.joint, function_name=function_name,
                          primal_names=primal_names, param_count=param_count,
                          num_fwd_outputs=capture.num_fwd_outputs)
    unmapped, declined = graph.unmapped, graph.declined
    if unmapped and warn:
        warnings.warn("remat_torch: ATen ops without a mapping, exported as "
                      "remat.opaque with estimated costs: " + ", ".join(unmapped))
    if declined and warn:
        warnings.warn("remat_torch: ATen ops exported as remat.opaque because "
                      "this use does not match the typed op exactly (the graph "
                      "plans but does not lower): " +
                      "; ".join(f"{op} ({', '.join(reasons)})"
                                for op, reasons in sorted(declined.items())))
    names = {n.name: n.name for n in capture.joint.graph.nodes
             if n.op == "call_function"}
    num_primals = sum(1 for n in capture.joint.graph.nodes
                      if n.op == "placeholder" and not n.name.startswith("tangents"))
    outputs = next(n for n in capture.joint.graph.nodes if n.op == "output").args[0]
    num_fwd_outputs = (capture.num_fwd_outputs if capture.num_fwd_outputs is not None
                       else len(outputs) - num_primals)
    return JointExport(graph.text, function_name, capture.joint, unmapped,
                       names, capture, num_fwd_outputs, param_count,
                       graph.argument_labels, declined, graph.rng_arguments)


def export_joint_graph(fn_or_module, example_inputs, function_name="joint") -> str:
    """The joint (forward + backward) graph of `fn_or_module` on
    `example_inputs`, as remat `.mlir` text."""
    return export_joint(fn_or_module, example_inputs,
                        function_name=function_name).mlir
