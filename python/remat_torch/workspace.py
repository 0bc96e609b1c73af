"""Kernel workspace and time of the nodes of an FX graph, profiled by
running them.

A kernel may allocate scratch that is neither an input nor a result and
free it before it returns: PyTorch's CPU `convolution_backward` of a
depthwise convolution allocates an input-sized and an output-gradient-sized
temporary (1.88 MiB on MobileNetV2 at batch 4, 10% of that model's peak in
docs/benchmarks.md). remat's simulator counts such bytes at the op's step
when the op carries `remat.workspace_bytes`; `profile_workspace` measures
them so that `remat_torch.partition(workspace="profile")` can state them.

Each distinct call (target, argument shapes, dtypes, strides and constant
arguments) runs twice on fresh inputs of the node's metadata (random floats,
zero integers and booleans, so indices stay in range), on the device the
metadata names (PyTorch 2.x's FakeTensor `val`) or, for PyTorch 1.13's
`tensor_meta`, which records no device, on the graph's device the caller
names; its workspace is the allocator's high-water mark during the
second call (a first call may fill caches later calls reuse) above what was
live before it, less the bytes of what it returned.
On the CPU the high-water mark comes from the profiler's allocation events,
on CUDA from the caching allocator's statistics. The figure depends on the
kernel library, thread count and device, which is why it is measured here
and not modelled. Nodes whose inputs have no metadata (on 1.13: results of
several tensors, and every node when no device is named) or that fail to
run on synthetic inputs get no workspace: an underestimate, never a failure.

`profile_op_times` times the same calls: each runs once to warm up and then
`repeats` times (default 5) on fresh synthetic inputs, and its time is the
median of the timed runs in microseconds, from entering the kernel's Python
call to its return (on CUDA, between two device synchronisations, so launch
and kernel time both count). That is what an eagerly executed graph pays per
node, dispatch included; it is not a fused kernel's time. Views get no time
(no kernel), and nodes that cannot run get none (the cost model's roofline
then stands in for them). Times vary from run to run, so plans made with
them are reproducible only from the same times (pass them back as a dict).
"""

import bisect
import contextlib
import gc
import operator
import statistics
import time
from typing import NamedTuple, Optional

import torch
import torch.fx
from torch.profiler import ProfilerActivity, profile, record_function

from remat_torch.fxmeta import size_hint
from remat_torch.ops import packet

_TAG = "remat_workspace:"

# Views and splits: no kernel, so no scratch to measure.
_SKIPPED_PACKETS = {"view", "_unsafe_view", "_reshape_alias", "reshape",
                    "expand", "permute", "t", "transpose", "squeeze",
                    "unsqueeze", "slice", "select", "alias", "detach",
                    "as_strided", "split", "split_with_sizes", "unbind",
                    "getitem"}


class _Meta(NamedTuple):
    shape: tuple
    stride: tuple
    dtype: torch.dtype
    device: torch.device


def _tensor_meta(node, device):
    """The shape, strides, dtype and device of `node`'s tensor result, or
    None: from its FakeTensor (`val`, PyTorch 2.x) or from 1.13's
    `tensor_meta`, whose device is `device` (None: unknown)."""
    val = node.meta.get("val", None)
    if isinstance(val, torch.Tensor):
        # Symbolic sizes (dynamic shapes) at the sizes traced.
        shape = tuple(size_hint(d) for d in val.shape)
        stride = tuple(size_hint(d) for d in val.stride())
        if None in shape or None in stride:
            return None
        return _Meta(shape, stride, val.dtype, val.device)
    meta = node.meta.get("tensor_meta", None)
    if device is None or not hasattr(meta, "stride") or \
            not hasattr(meta, "dtype"):  # no device, or several results
        return None
    return _Meta(tuple(meta.shape), tuple(meta.stride), meta.dtype, device)


def _synthetic(meta):
    """A real tensor with `meta`'s shape, strides, dtype and device (over a
    storage just large enough, so expanded strides are kept)."""
    shape, stride = meta.shape, meta.stride
    extent = 0 if 0 in shape else 1 + sum((n - 1) * abs(st)
                                          for n, st in zip(shape, stride))
    base = torch.empty(extent, dtype=meta.dtype, device=meta.device)
    if base.dtype.is_floating_point or base.dtype.is_complex:
        base.normal_()
    else:
        base.zero_()
    return base.as_strided(shape, stride)


def _signature(node, device):
    def describe(arg):
        if isinstance(arg, torch.fx.Node):
            meta = _tensor_meta(arg, device)
            if meta is None:
                raise _NotRunnable
            return ("tensor", meta.shape, meta.stride, str(meta.dtype),
                    str(meta.device))
        if isinstance(arg, (list, tuple)):
            return tuple(describe(a) for a in arg)
        return repr(arg)
    return (str(node.target), describe(node.args),
            tuple(sorted((k, describe(v)) for k, v in node.kwargs.items())))


def storage_of(tensor):
    """(data pointer, bytes) of the storage under `tensor`."""
    if hasattr(tensor, "untyped_storage"):  # PyTorch 2.x
        storage = tensor.untyped_storage()
    else:  # PyTorch 1.13
        storage = tensor.storage()
    return storage.data_ptr(), storage.nbytes()


def _result_bytes(result):
    tensors = result if isinstance(result, (list, tuple)) else [result]
    return sum(dict(storage_of(t) for t in tensors
                    if isinstance(t, torch.Tensor)).values())


def event_times_ns(event):
    """(start, end) of a kineto event in ns: 2.x has start_ns/duration_ns,
    1.13 start_us/duration_us."""
    if hasattr(event, "start_ns"):
        return event.start_ns(), event.start_ns() + event.duration_ns()
    return event.start_us() * 1000, (event.start_us() + event.duration_us()) * 1000


def _real_tensors():
    """A context in which factories make real tensors: partition runs inside
    AOTAutograd's compilation, whose fake-tensor mode may be active."""
    try:
        from torch._subclasses.fake_tensor import unset_fake_temporarily
    except ImportError:  # PyTorch 1.13: no ambient fake mode
        return contextlib.nullcontext()
    return unset_fake_temporarily()


class _Call:
    """One distinct call of a graph node, runnable on synthetic inputs."""

    def __init__(self, node, device):
        self.node = node
        self.inputs = {}
        self.device = None
        for arg in node.all_input_nodes:
            meta = _tensor_meta(arg, device)
            if meta is None:
                raise _NotRunnable
            if self.device not in (None, meta.device):
                raise _NotRunnable
            self.device = meta.device
            self.inputs[arg] = meta
        if self.device is None:
            self.device = device or torch.device("cpu")
        if self.device.type not in ("cpu", "cuda"):
            raise _NotRunnable

    def run(self, around):
        """Runs the node on fresh inputs inside `around()`; returns the
        bytes of its results, or None when the kernel rejects the inputs."""
        try:
            inputs = {arg: _synthetic(meta)
                      for arg, meta in self.inputs.items()}
        except RuntimeError:
            return None
        args = torch.fx.node.map_arg(self.node.args, inputs.__getitem__)
        kwargs = torch.fx.node.map_arg(self.node.kwargs, inputs.__getitem__)
        try:
            with around():
                result = self.node.target(*args, **kwargs)
        except Exception:  # noqa: BLE001 - synthetic inputs a kernel rejects
            return None
        return _result_bytes(result)


class _NotRunnable(Exception):
    pass


def _cpu_workspaces(calls):
    """{index: workspace} of CPU calls, in one profiler session: each call
    runs inside its own record_function range, and its high-water mark is
    taken from the allocation events inside the range."""
    results = {}
    with profile(activities=[ProfilerActivity.CPU],
                 profile_memory=True) as prof:
        for index, call in enumerate(calls):
            # A first call may allocate what later ones reuse (a kernel
            # library's primitive cache, prepacked weights): measure the
            # second, as a training step's calls are.
            if call.run(contextlib.nullcontext) is None:
                continue
            results[index] = call.run(
                lambda: record_function(f"{_TAG}{index}"))
    ranges, memory = {}, []
    for event in prof.profiler.kineto_results.events():
        start, end = event_times_ns(event)
        if event.name() == "[memory]":
            memory.append((start, event.nbytes()))
        elif event.name().startswith(_TAG):
            ranges[int(event.name()[len(_TAG):])] = (start, end)
    memory.sort(key=lambda m: m[0])  # stable: ties keep the recorded order
    times = [time_ns for time_ns, _ in memory]
    workspaces = {}
    for index, (start, end) in ranges.items():
        if results.get(index) is None:
            continue
        live = high = 0
        # Only the events inside the range: one scan per call, not per graph.
        for _, nbytes in memory[bisect.bisect_left(times, start):
                                bisect.bisect_right(times, end)]:
            live += nbytes
            high = max(high, live)
        workspaces[index] = max(0, high - results[index])
    return workspaces


def _cuda_workspace(call):
    device = call.device
    if call.run(contextlib.nullcontext) is None:  # warm-up, as on the CPU
        return None
    torch.cuda.synchronize(device)
    before = torch.cuda.memory_allocated(device)
    torch.cuda.reset_peak_memory_stats(device)
    result_bytes = call.run(contextlib.nullcontext)
    torch.cuda.synchronize(device)
    if result_bytes is None:
        return None
    high = torch.cuda.max_memory_allocated(device) - before
    return max(0, high - result_bytes)


def _distinct_calls(graph, device, skipped=frozenset(_SKIPPED_PACKETS)):
    """(calls, {call index: [node names]}) for the runnable call_function
    nodes of `graph` whose packet is not in `skipped`, one call per distinct
    signature."""
    calls, index_of, nodes_of = [], {}, {}
    for node in graph.nodes:
        if node.op != "call_function" or node.target is operator.getitem or \
                packet(node) in skipped:
            continue
        try:
            key = _signature(node, device)
            if key not in index_of:
                call = _Call(node, device)
                index_of[key] = len(calls)
                calls.append(call)
        except (AttributeError, _NotRunnable):
            continue
        nodes_of.setdefault(index_of[key], []).append(node.name)
    return calls, nodes_of


class _Stopwatch:
    """`around` for _Call.run: times the kernel call alone (synthetic inputs
    are made before it), synchronising CUDA on both sides."""

    def __init__(self, device):
        self.device = device
        self.seconds = None

    @contextlib.contextmanager
    def __call__(self):
        self._synchronize()
        start = time.perf_counter()
        yield
        self._synchronize()
        self.seconds = time.perf_counter() - start

    def _synchronize(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)


def profile_op_times(graph: torch.fx.Graph,
                     device: Optional[torch.device] = None, repeats: int = 5):
    """{node name: microseconds} for the call_function nodes of `graph`
    that run (see the module docstring); `device` as for
    profile_workspace."""
    if repeats < 1:
        raise ValueError(f"repeats: expected at least 1, got {repeats}")
    # The exporter folds a clone into its input (remat_torch.joint): there
    # is no op to state its time on.
    calls, nodes_of = _distinct_calls(graph, device,
                                      _SKIPPED_PACKETS | {"clone"})
    times = {}
    with _real_tensors(), torch.no_grad():
        for index, call in enumerate(calls):
            if call.run(contextlib.nullcontext) is None:  # warm-up
                continue  # the kernel rejects synthetic inputs
            watch, samples = _Stopwatch(call.device), []
            for _ in range(repeats):
                if call.run(watch) is None:
                    break
                samples.append(watch.seconds * 1e6)
            if len(samples) == repeats:
                times[index] = statistics.median(samples)
    return {name: times[index]
            for index, names in nodes_of.items() if index in times
            for name in names}


def profile_workspace(graph: torch.fx.Graph,
                      device: Optional[torch.device] = None):
    """{node name: workspace bytes > 0} for the call_function nodes of
    `graph` (see the module docstring). `device`: where the graph's tensors
    live, for metadata that does not say (PyTorch 1.13's `tensor_meta`)."""
    calls, nodes_of = _distinct_calls(graph, device)
    workspaces = {}
    gc.collect()
    with _real_tensors(), torch.no_grad():
        cpu = [i for i, c in enumerate(calls) if c.device.type == "cpu"]
        for position, workspace in _cpu_workspaces(
                [calls[i] for i in cpu]).items():
            workspaces[cpu[position]] = workspace
        for index, call in enumerate(calls):
            if call.device.type == "cuda":
                workspaces[index] = _cuda_workspace(call)
    return {name: workspaces[index]
            for index, names in nodes_of.items() if workspaces.get(index)
            for name in names}
