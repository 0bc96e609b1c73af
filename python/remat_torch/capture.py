"""Capture AOTAutograd's joint forward+backward graph.

The partition function AOTAutograd calls receives the joint graph before it
is split; we keep it (and, when asked, also run a real partitioner on it so
the comparison sees PyTorch's decisions on the very same graph). The import
paths moved between PyTorch 1.13 (functorch.compile) and 2.x
(torch._functorch); both are tried.
"""

import copy
import inspect
import time

import torch


def _aot_api():
    try:
        from functorch.compile import aot_function, aot_module, default_partition
        from functorch.compile import min_cut_rematerialization_partition
    except ImportError:  # PyTorch 2.x without the functorch shim
        from torch._functorch.aot_autograd import aot_function, aot_module
        from torch._functorch.partitioners import (
            default_partition,
            min_cut_rematerialization_partition,
        )
    return aot_function, aot_module, default_partition, min_cut_rematerialization_partition


class _StealArguments(torch.fx.graph.CodeGen):
    """FX code generation for a graph that takes its arguments as one list
    and empties it once it has read them, so that each argument lives only
    until its last use in the graph (FX already drops every value, arguments
    included, after its last use). PyTorch 2.x ships this as
    `torch.fx.graph._BoxedCodeGen`; PyTorch 1.13 has the `CodeGen` hooks
    but not the class, so this is its stand-in there."""

    def gen_fn_def(self, free_vars, maybe_return_annotation):
        # free_vars are the placeholders' parameter spellings ("name",
        # "name: type" or "name = default"), after "self" when present.
        names = [v.split(":")[0].split("=")[0].strip() for v in free_vars]
        names = [n for n in names if n != "self"]
        lines = [f"def forward(self, args_list){maybe_return_annotation}:"]
        if names:
            lines.append(f"    {', '.join(names)}, = args_list")
        lines.append("    args_list.clear()")
        return "\n".join(lines)


def _boxed(gm):
    """A compiler that runs the graph module unchanged, with the boxed
    calling convention: AOTAutograd passes the arguments as one list, which
    the graph clears once it has read it, so that each argument (in
    backward: a saved activation) is freed after its last use, as
    Inductor's code does and as remat's simulator assumes. Through
    `make_boxed_func(gm.forward)` the caller's list and the call's argument
    tuple held every saved activation until the backward graph returned
    (issue #16: 19-24 MiB above remat's prediction on MobileNetV2 and
    Llama; 5-33% of the peak on PyTorch 1.13, which kept that convention
    until `_StealArguments`).

    Graphs are called as modules (`gm(...)`), so that forward hooks see
    each call. A graph whose code generation is not FX's plain one (a
    pytree signature) keeps it, under `make_boxed_func`."""
    if type(gm.graph._codegen) is not torch.fx.graph.CodeGen:
        try:
            from functorch.compile import make_boxed_func
        except ImportError:  # pragma: no cover - 2.x layout
            from torch._functorch.aot_autograd import make_boxed_func
        return make_boxed_func(gm)
    codegen = getattr(torch.fx.graph, "_BoxedCodeGen", _StealArguments)
    gm.graph.set_codegen(codegen())
    gm.recompile()

    def run(args):
        return gm(args)

    run._boxed_call = True
    return run


class JointCapture:
    """What one trace produced: the joint graph and, optionally, the
    forward/backward graphs of a partitioner run on it."""

    def __init__(self):
        self.joint = None
        self.num_fwd_outputs = None
        self.partition_seconds = None
        self.forward = None
        self.backward = None
        # With partitioner="min_cut": runs PyTorch's partitioner again on a
        # fresh copy of the joint graph and returns the seconds it took.
        self.time_partition = None


class TiedParametersError(ValueError):
    """A model with tied parameters given to the joint-graph export on
    PyTorch 2.x (the message says what to do instead)."""


def _refuse_tied_parameters(module):
    """aot_module passes each parameter name as a primal, and on PyTorch
    2.x its functional_call refuses two names for one tensor (tied
    embeddings: GPT-2, T5). Said before the capture, which otherwise fails
    inside the model's call with PyTorch's message."""
    try:
        named = list(module.named_parameters(remove_duplicate=False))
    except TypeError:  # PyTorch 1.13: no remove_duplicate, no refusal
        return
    names = {}
    for name, tensor in named:
        names.setdefault(id(tensor), []).append(name)
    tied = [group for group in names.values() if len(group) > 1]
    if tied and int(torch.__version__.split(".")[0]) >= 2:
        raise TiedParametersError(
            "the model ties parameters (" + "; ".join(
                " = ".join(group) for group in tied) + "): the joint-graph "
            "export traces it with aot_module, which refuses tied parameters "
            "on PyTorch 2.x. torch.compile(model, backend="
            "remat_torch.backend()) plans such models; to export, untie them "
            "(a copy of the weight) or wrap the model in a function of its "
            "inputs and pass that")


def capture_joint(fn_or_module, example_inputs, partitioner=None):
    """Traces `fn_or_module(*example_inputs)` and its backward.

    `partitioner` is None (capture only, split with the default partition)
    or "min_cut" (also run PyTorch's min_cut_rematerialization_partition,
    timed). Returns a JointCapture; `num_params` primals come first when a
    module is traced.
    """
    aot_function, aot_module, default_partition, min_cut = _aot_api()
    capture = JointCapture()

    def copy_of(joint_module):
        # The partitioners may rewrite the graph they get; copies keep the
        # shape metadata deepcopy drops in 1.13.
        copied = copy.deepcopy(joint_module)
        for original, node in zip(joint_module.graph.nodes, copied.graph.nodes):
            node.meta = dict(original.meta)
        return copied

    def partition(joint_module, joint_inputs, **kwargs):
        capture.joint = copy_of(joint_module)
        capture.num_fwd_outputs = kwargs.get("num_fwd_outputs")
        chosen = default_partition
        if partitioner == "min_cut":
            chosen = min_cut
        params = inspect.signature(chosen).parameters
        call_kwargs = {k: v for k, v in kwargs.items() if k in params}
        start = time.perf_counter()
        fw, bw = chosen(joint_module, joint_inputs, **call_kwargs)
        if partitioner is not None:
            capture.partition_seconds = time.perf_counter() - start
            capture.forward, capture.backward = fw, bw

            def time_partition():
                joint = copy_of(capture.joint)
                start = time.perf_counter()
                chosen(joint, joint_inputs, **call_kwargs)
                return time.perf_counter() - start
            capture.time_partition = time_partition
        return fw, bw

    compiler = lambda gm, _inputs: _boxed(gm)
    if isinstance(fn_or_module, torch.nn.Module):
        _refuse_tied_parameters(fn_or_module)
        compiled = aot_module(fn_or_module, fw_compiler=compiler,
                              bw_compiler=compiler, partition_fn=partition)
    else:
        compiled = aot_function(fn_or_module, fw_compiler=compiler,
                                bw_compiler=compiler, partition_fn=partition)
    inputs = [x.detach().requires_grad_(x.is_floating_point())
              if isinstance(x, torch.Tensor) else x for x in example_inputs]
    out = compiled(*inputs)
    # The joint graph is built on the first call (forward), already.
    del out
    if capture.joint is None:
        raise RuntimeError("AOTAutograd did not call the partition function; "
                           "does the function produce any output that "
                           "requires grad?")
    return capture
