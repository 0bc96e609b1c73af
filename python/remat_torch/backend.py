"""A `torch.compile` backend that partitions with remat (PyTorch 2.x).

    model = torch.compile(model, backend=remat_torch.backend())
    model = torch.compile(model, backend=remat_torch.backend(
        strategy="budget", memory_budget="0.8peak", report="plan.json"))

Dynamo captures the graph, AOTAutograd traces its joint forward+backward,
`remat_torch.partition` splits it with remat's plan, and Inductor compiles
both halves (`compiler="inductor"`, the default: Inductor's joint-graph
passes run first, as with PyTorch's own partitioner) or they run as traced
ATen code (`compiler="eager"`). Options are `remat_torch.partition`'s.
"""

import functools
import hashlib
import json
import os

import torch

import remat
from remat_torch import partitioner as partition_module

COMPILERS = ("inductor", "eager")


def _eager_compiler(gm, _example_inputs):
    from remat_torch.capture import _boxed

    return _boxed(gm)


def _options_key(options):
    """What Inductor's caches key remat's partitioner on: remat's code (the
    planner and every module of remat and remat_torch) and the options."""
    digest = hashlib.sha256(remat.fingerprint(partition_module).encode())
    digest.update(repr(sorted(options.items(), key=str)).encode())
    return digest.hexdigest()


def _side_effects(options):
    """Whether a partition does more than return the split graphs: a
    callback called (the report writer is one). AOTAutograd's on-disk cache
    would return the graphs of an earlier process without calling the
    partitioner."""
    return options.get("on_plan") is not None


def _report_writer(path, then):
    """An `on_plan` that writes the report of every graph the backend plans
    (graph breaks and recompilations make several) to `path`, as remat-report
    writes a module: one JSON object for one graph, an array of them in
    planning order for several; then calls `then`, the user's on_plan."""
    reports = []

    def on_plan(info):
        if info.report is None and not reports and os.path.exists(path):
            # Only graphs that fell back so far: no earlier run's report
            # may stand in for this backend's.
            os.remove(path)
        if info.report is not None:
            reports.append(info.report)
            with open(path, "w") as f:
                if len(reports) == 1:
                    f.write(reports[0].text)
                else:
                    f.write(json.dumps([r.data for r in reports], indent=2) + "\n")
        if then is not None:
            then(info)

    return on_plan


def _inductor_partitioner(options):
    """remat's partition as Inductor's custom partitioner (an object with a
    `uuid`, so Inductor's caches tell plans with other options apart)."""
    from torch._inductor.custom_graph_pass import CustomPartitionerFn

    class RematPartitioner(CustomPartitionerFn):
        def __call__(self, gm, joint_inputs, **kwargs):
            kwargs.pop("compiler", None)
            return partition_module.partition(gm, joint_inputs, **kwargs,
                                              **options)

        def uuid(self):
            return _options_key(options)

        def __reduce__(self):
            # Inductor pickles its config into cache keys; the options (an
            # on_plan callback, say) need not pickle: the key stands in.
            return (str, (self.uuid(),))

    return RematPartitioner()


def backend(compiler="inductor", *graph_call, **options):
    """A `torch.compile` backend; `options` are those of
    `remat_torch.partition` (strategy, memory_budget, target, policy,
    allow_inexact_derivation, report, strict, on_infeasible, on_plan).
    It makes the backend: `torch.compile(model,
    backend=remat_torch.backend())`; passed without the call, torch.compile
    would call it with the graph (`graph_call`), which is refused, saying
    so.

    `report=PATH` gets the report of every graph the backend plans: one JSON
    object, or an array when graph breaks or recompilations make several
    (`remat.Report.load_all` reads them all).

    With Inductor, AOTAutograd's on-disk cache keys the partition on
    remat's code and the options; with `report` or `on_plan` it is off for
    the compile, since a cached graph is returned without partitioning."""
    if graph_call or isinstance(compiler, torch.fx.GraphModule):
        raise TypeError("remat_torch.backend makes a torch.compile backend: "
                        "pass backend=remat_torch.backend() (with the call "
                        "and any options), not backend=remat_torch.backend")
    if int(torch.__version__.split(".")[0]) < 2:
        raise RuntimeError("remat_torch.backend needs PyTorch 2.x (this is "
                           f"{torch.__version__}); on 1.13 pass "
                           "remat_torch.partition as partition_fn to "
                           "functorch.compile.aot_function/aot_module")
    if compiler not in COMPILERS:
        raise ValueError(f"compiler '{compiler}': expected one of "
                         f"{', '.join(COMPILERS)}")
    # Fail on a bad option now, not at the first call of the model.
    partition_module.check_options(**options)
    report = options.pop("report", None)
    if report is not None:
        options["on_plan"] = _report_writer(report, options.get("on_plan"))
    if compiler == "eager":
        from torch._dynamo.backends.common import aot_autograd

        return aot_autograd(
            fw_compiler=_eager_compiler, bw_compiler=_eager_compiler,
            partition_fn=functools.partial(partition_module.partition,
                                           **options))

    def compile_with_inductor(gm, example_inputs):
        from torch._functorch import config as functorch_config
        from torch._inductor import config
        from torch._inductor.compile_fx import compile_fx

        cache = not _side_effects(options)
        with config.patch(custom_partitioner_fn=_inductor_partitioner(options)), \
                functorch_config.patch(enable_autograd_cache=cache and
                                       functorch_config.enable_autograd_cache):
            return compile_fx(gm, example_inputs)

    return compile_with_inductor
