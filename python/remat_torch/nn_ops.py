"""ATen neural-network ops -> typed remat NN ops.

Convolution, layer and batch normalization, max and average pooling,
embedding and dropout, with their backward ops. Each handler checks first
that this use of the op means exactly what the remat op computes (the
dialect's verifier and docs/Lowering.md define those semantics) and only
then emits; a use that does not match (a transposed or 3-D convolution,
eval-mode batch norm, a pooling with ceil_mode that changes the output
shape, ...) raises `Declined` with the reason, and the node stays
`remat.opaque`; the export warning lists the reasons.

What PyTorch returns and what remat returns:
- `native_layer_norm` returns mean and rstd shaped `[lead..., 1, ...]`
  (keepdim); `remat.layernorm` returns them shaped `[lead...]`. The exporter
  reshapes (a free view) in both directions.
- `native_batch_norm` (training) returns the batch mean and invstd `[C]`,
  as `remat.batchnorm` does. Its in-place update of the running statistics
  is not part of the joint graph PyTorch 1.13 traces (no result carries
  it), so the typed op does not read them. PyTorch 2.x's
  `_native_batch_norm_legit_functional` returns the updated running
  statistics as results; they are computed with typed ops
  (`(1 - m) * running + m * batch`, the variance unbiased, two-pass).
- `max_pool2d_with_indices` indices are the flat `h * W + w` position in
  the input plane, the encoding `remat.max_pool2d` uses.
- `native_dropout` draws from PyTorch's global Philox generator, whose
  state is not in the graph. `remat.dropout` takes its RNG state as
  operands: the exporter adds a function argument `rng_seed` (shared) and
  one `<node>.offset` per dropout, `remat.role = "rng"`, after the
  tangents. Whoever runs the graph chooses them; masks differ from
  PyTorch's for any seed (remat's generator is not Philox).
"""

import operator

import torch
import torch.fx

from remat.mlir_text import f64_attr as exact_f64
from remat_torch.emitter import FLOAT_DTYPES
from remat_torch.fxmeta import meta_of
from remat_torch.ops import _dims, _numel, packet


class Declined(Exception):
    """This use of the op does not match the typed op exactly."""


class _Call:
    """One FX node being lowered: its arguments (with ATen's defaults),
    its result metadata and a way to emit named ops."""

    def __init__(self, emitter, node, results):
        self.emitter = emitter
        self.node = node
        self.results = results

    def arg(self, index, key, default=None):
        if len(self.node.args) > index:
            return self.node.args[index]
        return self.node.kwargs.get(key, default)

    def tensor(self, index, key):
        a = self.arg(index, key)
        if not isinstance(a, torch.fx.Node):
            raise Declined(f"{key} is not a tensor")
        value = self.emitter.values.get(a.name)
        if value is None or isinstance(value, list):
            raise Declined(f"{key} was not exported as one tensor")
        return value

    def optional_tensor(self, index, key):
        return None if self.arg(index, key) is None else self.tensor(index, key)

    def result(self, index):
        return self.results[index] if index < len(self.results) else None

    def emit(self, op, operands, types, inherent=None, suffix=None):
        name = self.node.name if suffix is None else f"{self.node.name}.{suffix}"
        return self.emitter.emit(op, operands, types, inherent,
                                 {"remat.name": f'"{name}"'})

    def reshape(self, value, shape, suffix):
        """A reshape view of `value` to `shape` (no op when equal)."""
        if tuple(value.shape) == tuple(shape):
            return value
        return self.emit("remat.reshape", [value], [(tuple(shape), value.dtype)],
                         suffix=suffix)[0]


def _float(*values):
    dtypes = {v.dtype for v in values if v is not None}
    if len(dtypes) != 1 or not dtypes <= set(FLOAT_DTYPES):
        raise Declined("operands are not of one f64/f32/f16/bf16 type: " +
                       ", ".join(str(d) for d in sorted(dtypes, key=str)))


def _pair(value, what):
    """An int or a 1- or 2-element list as [height, width]."""
    if isinstance(value, int):
        return [value, value]
    if isinstance(value, (list, tuple)) and len(value) in (1, 2) and \
            all(isinstance(v, int) for v in value):
        return [int(value[0]), int(value[-1])]
    raise Declined(f"{what} {value!r} is not one or two integers")


def _expect_shape(result, shape, what):
    if result is not None and tuple(result[0]) != tuple(shape):
        raise Declined(f"{what}: PyTorch's shape {list(result[0])} is not "
                       f"remat's {list(shape)}")


def _stats_dtype(x):
    """The dtype of a norm's statistics for input `x` (RematOps.h's
    statsElementType, PyTorch's rule): f64 for f64, f32 otherwise."""
    return torch.float64 if x.dtype == torch.float64 else torch.float32


def _stats_ok(result, numel, what, x):
    if result is None:
        return
    if result[1] != _stats_dtype(x):
        raise Declined(f"{what} is {result[1]}, remat's statistics of "
                       f"{x.dtype} are {_stats_dtype(x)}")
    if _numel(result[0]) != numel:
        raise Declined(f"{what} has shape {list(result[0])}")


# --- convolution -----------------------------------------------------------

def _conv_attrs(call, first):
    """strides/padding/dilation/groups of convolution (first = 3) and
    convolution_backward (first = 4)."""
    stride = _pair(call.arg(first, "stride"), "stride")
    padding = _pair(call.arg(first + 1, "padding"), "padding")
    dilation = _pair(call.arg(first + 2, "dilation"), "dilation")
    if call.arg(first + 3, "transposed"):
        raise Declined("transposed convolution")
    groups = call.arg(first + 5, "groups", 1)
    if min(padding) < 0 or min(stride) < 1 or min(dilation) < 1:
        raise Declined(f"stride {stride}, padding {padding}, dilation {dilation}")
    return {"dilation": _dims(dilation), "groups": f"{int(groups)} : i64",
            "padding": _dims(padding), "strides": _dims(stride)}, \
        stride, padding, dilation, int(groups)


def _conv_output_shape(x, w, stride, padding, dilation):
    n, _, h, wd = x.shape
    k, _, r, s = w.shape
    oh = (h + 2 * padding[0] - dilation[0] * (r - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (s - 1) - 1) // stride[1] + 1
    return (n, k, oh, ow)


def _check_conv(x, w, groups):
    if len(x.shape) != 4 or len(w.shape) != 4:
        raise Declined(f"{len(x.shape) - 2}-D convolution (only 2-D, NCHW)")
    if groups < 1 or x.shape[1] != w.shape[1] * groups or w.shape[0] % groups:
        raise Declined(f"groups = {groups} with input {list(x.shape)} and "
                       f"weight {list(w.shape)}")


def _convolution(call):
    x, w = call.tensor(0, "input"), call.tensor(1, "weight")
    b = call.optional_tensor(2, "bias")
    attrs, stride, padding, dilation, groups = _conv_attrs(call, 3)
    _check_conv(x, w, groups)
    _float(x, w, b)
    out = _conv_output_shape(x, w, stride, padding, dilation)
    _expect_shape(call.result(0), out, "output")
    operands = [x, w] + ([b] if b is not None else [])
    return call.emit("remat.conv2d", operands, [(out, x.dtype)], attrs)


def _convolution_backward(call):
    g, x, w = (call.tensor(i, k) for i, k in
               enumerate(("grad_output", "input", "weight")))
    attrs, stride, padding, dilation, groups = _conv_attrs(call, 4)
    _check_conv(x, w, groups)
    _float(g, x, w)
    if tuple(g.shape) != _conv_output_shape(x, w, stride, padding, dilation):
        raise Declined(f"grad_output shape {list(g.shape)} does not follow "
                       "the forward formula")
    mask = call.arg(10, "output_mask", [True, True, True])
    values = [None, None, None]
    if mask[0] and call.result(0) is not None:
        values[0] = call.emit("remat.conv2d_backward_input", [g, w],
                              [(x.shape, x.dtype)], attrs, suffix="input")[0]
    if mask[1] and call.result(1) is not None:
        values[1] = call.emit("remat.conv2d_backward_weight", [g, x],
                              [(w.shape, w.dtype)], attrs, suffix="weight")[0]
    if mask[2] and call.result(2) is not None:
        values[2] = call.emit("remat.sum", [g], [((g.shape[1],), g.dtype)],
                              {"dims": _dims([0, 2, 3])}, suffix="bias")[0]
    return values


# --- layer norm --------------------------------------------------------------

def _native_layer_norm(call):
    x = call.tensor(0, "input")
    normalized = [int(d) for d in call.arg(1, "normalized_shape")]
    if call.arg(2, "weight") is None or call.arg(3, "bias") is None:
        raise Declined("without weight or bias (elementwise_affine=False "
                       "or bias=False)")
    w, b = call.tensor(2, "weight"), call.tensor(3, "bias")
    _float(x, w, b)
    k = len(normalized)
    if k == 0 or k > len(x.shape) or list(x.shape[-k:]) != normalized or \
            list(w.shape) != normalized or list(b.shape) != normalized:
        raise Declined(f"normalized_shape {normalized} with input "
                       f"{list(x.shape)}")
    lead = tuple(x.shape[:-k])
    _stats_ok(call.result(1), _numel(lead), "mean", x)
    _stats_ok(call.result(2), _numel(lead), "rstd", x)
    eps = call.arg(4, "eps")
    y, mean, rstd = call.emit(
        "remat.layernorm", [x, w, b],
        [(x.shape, x.dtype), (lead, _stats_dtype(x)), (lead, _stats_dtype(x))],
        {"eps": exact_f64(eps)})
    values = [y, None, None]
    for index, (stat, label) in enumerate(((mean, "mean"), (rstd, "rstd")), 1):
        if call.result(index) is not None:
            values[index] = call.reshape(stat, call.result(index)[0], label)
    return values


def _native_layer_norm_backward(call):
    g, x = call.tensor(0, "grad_out"), call.tensor(1, "input")
    normalized = [int(d) for d in call.arg(2, "normalized_shape")]
    mean, rstd = call.tensor(3, "mean"), call.tensor(4, "rstd")
    if call.arg(5, "weight") is None:
        raise Declined("without weight (elementwise_affine=False)")
    w = call.tensor(5, "weight")
    _float(g, x, w)
    k = len(normalized)
    if k == 0 or k > len(x.shape) or list(x.shape[-k:]) != normalized or \
            list(w.shape) != normalized or g.shape != x.shape:
        raise Declined(f"normalized_shape {normalized} with input "
                       f"{list(x.shape)}")
    lead = tuple(x.shape[:-k])
    for stat, label in ((mean, "mean"), (rstd, "rstd")):
        _stats_ok((stat.shape, stat.dtype), _numel(lead), label, x)
    mean = call.reshape(mean, lead, "mean")
    rstd = call.reshape(rstd, lead, "rstd")
    return call.emit("remat.layernorm_backward", [g, x, w, mean, rstd],
                     [(x.shape, x.dtype), (w.shape, w.dtype), (w.shape, w.dtype)])


# --- batch norm --------------------------------------------------------------

def _batch_norm_common(call):
    x = call.tensor(0, "input")
    if call.arg(5, "training") is not True:
        raise Declined("eval mode (normalizes with the running statistics)")
    if call.arg(1, "weight") is None or call.arg(2, "bias") is None:
        raise Declined("without weight and bias (affine=False)")
    w, b = call.tensor(1, "weight"), call.tensor(2, "bias")
    _float(x, w, b)
    if len(x.shape) < 2 or list(w.shape) != [x.shape[1]] or \
            list(b.shape) != [x.shape[1]]:
        raise Declined(f"input {list(x.shape)} with weight {list(w.shape)}")
    channels = x.shape[1]
    _stats_ok(call.result(1), channels, "save_mean", x)
    _stats_ok(call.result(2), channels, "save_invstd", x)
    return x, w, b, channels


def _native_batch_norm(call):
    x, w, b, channels = _batch_norm_common(call)
    return call.emit("remat.batchnorm", [x, w, b],
                     [(x.shape, x.dtype), ((channels,), _stats_dtype(x)),
                      ((channels,), _stats_dtype(x))],
                     {"eps": exact_f64(call.arg(7, "eps"))})


def _native_batch_norm_legit_functional(call):
    """PyTorch 2.x: also returns the updated running mean and variance."""
    x, w, b, channels = _batch_norm_common(call)
    live = [call.result(3) is not None, call.result(4) is not None]
    momentum = float(call.arg(6, "momentum"))
    running = [None, None]
    if any(live):
        # The running statistics blend the batch's, which have the stats
        # dtype: only an input of that dtype (f32, f64) gives one type.
        if x.dtype != _stats_dtype(x):
            raise Declined(f"running statistics of a {x.dtype} input")
        running = [call.tensor(3, "running_mean"), call.tensor(4, "running_var")]
        for r in running:
            if r.dtype != x.dtype or list(r.shape) != [channels]:
                raise Declined(f"running statistics are not {x.dtype} [C]")
    stat = ((channels,), _stats_dtype(x))
    values = list(call.emit("remat.batchnorm", [x, w, b],
                            [(x.shape, x.dtype), stat, stat],
                            {"eps": exact_f64(call.arg(7, "eps"))}))
    if not any(live):
        return values + [None, None]
    mean = values[1]

    def blend(old, new, label):
        kept = call.emit("remat.mul_scalar", [old], [stat],
                         {"scalar": exact_f64(1.0 - momentum)},
                         suffix=f"{label}.old")[0]
        added = call.emit("remat.mul_scalar", [new], [stat],
                          {"scalar": exact_f64(momentum)},
                          suffix=f"{label}.new")[0]
        return call.emit("remat.add", [kept, added], [stat], suffix=label)[0]

    values.append(blend(running[0], mean, "running_mean") if live[0] else None)
    if live[1]:
        # Unbiased batch variance, two-pass as PyTorch: mean((x - mean)^2)
        # over every dimension but 1, times n / (n - 1).
        shape = tuple(1 if i != 1 else channels for i in range(len(x.shape)))
        centred_mean = call.emit("remat.broadcast",
                                 [call.reshape(mean, shape, "var.mean")],
                                 [(x.shape, x.dtype)], suffix="var.broadcast")[0]
        diff = call.emit("remat.sub", [x, centred_mean], [(x.shape, x.dtype)],
                         suffix="var.diff")[0]
        square = call.emit("remat.square", [diff], [(x.shape, x.dtype)],
                           suffix="var.square")[0]
        dims = [i for i in range(len(x.shape)) if i != 1]
        var = call.emit("remat.mean", [square], [stat], {"dims": _dims(dims)},
                        suffix="var")[0]
        n = _numel(x.shape) // channels
        unbiased = call.emit("remat.mul_scalar", [var], [stat],
                             {"scalar": exact_f64(n / max(n - 1, 1))},
                             suffix="var.unbiased")[0]
        values.append(blend(running[1], unbiased, "running_var"))
    else:
        values.append(None)
    return values


def _native_batch_norm_backward(call):
    g, x = call.tensor(0, "grad_out"), call.tensor(1, "input")
    if call.arg(7, "train") is not True:
        raise Declined("eval mode (gradient through the running statistics)")
    for index, key in ((2, "weight"), (5, "save_mean"), (6, "save_invstd")):
        if call.arg(index, key) is None:
            raise Declined(f"without {key}")
    w = call.tensor(2, "weight")
    mean, invstd = call.tensor(5, "save_mean"), call.tensor(6, "save_invstd")
    _float(g, x, w)
    channels = x.shape[1] if len(x.shape) >= 2 else -1
    if g.shape != x.shape or list(w.shape) != [channels]:
        raise Declined(f"input {list(x.shape)} with weight {list(w.shape)}")
    for stat, label in ((mean, "save_mean"), (invstd, "save_invstd")):
        if stat.dtype != _stats_dtype(x) or list(stat.shape) != [channels]:
            raise Declined(f"{label} is not {_stats_dtype(x)} [C]")
    return call.emit("remat.batchnorm_backward", [g, x, w, mean, invstd],
                     [(x.shape, x.dtype), (w.shape, w.dtype), (w.shape, w.dtype)])


# --- pooling -----------------------------------------------------------------

def _pool_geometry(x, kernel, stride, padding, dilation=1, ceil_mode=False):
    """Attributes and output shape of a 2-D pooling; declines what the remat
    ops do not express."""
    if len(x.shape) != 4:
        raise Declined(f"{len(x.shape)}-D input (only batched NCHW)")
    kernel = _pair(kernel, "kernel_size")
    stride = _pair(stride, "stride") if stride not in (None, [], ()) else kernel
    padding = _pair(padding, "padding")
    if _pair(dilation, "dilation") != [1, 1]:
        raise Declined(f"dilation {dilation}")
    if min(kernel) < 1 or min(stride) < 1 or min(padding) < 0 or \
            any(2 * p > k for p, k in zip(padding, kernel)):
        raise Declined(f"kernel {kernel}, stride {stride}, padding {padding}")
    n, c, h, w = x.shape
    out = (n, c, (h + 2 * padding[0] - kernel[0]) // stride[0] + 1,
           (w + 2 * padding[1] - kernel[1]) // stride[1] + 1)
    attrs = {"kernel": _dims(kernel), "padding": _dims(padding),
             "strides": _dims(stride)}
    return attrs, out, bool(ceil_mode)


def _check_pool_shape(shape, out, ceil_mode):
    if tuple(shape) != tuple(out):
        raise Declined(("ceil_mode" if ceil_mode else "output") +
                       f" shape {list(shape)} (floor formula gives {list(out)})")


def _max_pool2d_with_indices(call):
    x = call.tensor(0, "self")
    _float(x)
    attrs, out, ceil = _pool_geometry(x, call.arg(1, "kernel_size"),
                                      call.arg(2, "stride", []),
                                      call.arg(3, "padding", 0),
                                      call.arg(4, "dilation", 1),
                                      call.arg(5, "ceil_mode", False))
    if call.result(0) is not None:
        _check_pool_shape(call.result(0)[0], out, ceil)
    if call.result(1) is not None and call.result(1)[1] != torch.int64:
        raise Declined(f"indices are {call.result(1)[1]}")
    return call.emit("remat.max_pool2d", [x],
                     [(out, x.dtype), (out, torch.int64)], attrs)


def _max_pool2d_with_indices_backward(call):
    g, x = call.tensor(0, "grad_output"), call.tensor(1, "self")
    indices = call.tensor(7, "indices")
    _float(g, x)
    attrs, out, ceil = _pool_geometry(x, call.arg(2, "kernel_size"),
                                      call.arg(3, "stride", []),
                                      call.arg(4, "padding", 0),
                                      call.arg(5, "dilation", 1),
                                      call.arg(6, "ceil_mode", False))
    _check_pool_shape(g.shape, out, ceil)
    if indices.dtype != torch.int64 or indices.shape != g.shape:
        raise Declined("indices are not i64 shaped like grad_output")
    return call.emit("remat.max_pool2d_backward", [g, indices],
                     [(x.shape, x.dtype)], attrs)


def _avg_attrs(call, first, x):
    if call.arg(first + 5, "divisor_override") is not None:
        raise Declined("divisor_override")
    attrs, out, ceil = _pool_geometry(x, call.arg(first, "kernel_size"),
                                      call.arg(first + 1, "stride", []),
                                      call.arg(first + 2, "padding", 0),
                                      ceil_mode=call.arg(first + 3, "ceil_mode",
                                                         False))
    if not call.arg(first + 4, "count_include_pad", True):
        attrs["count_include_pad"] = "false"
    return attrs, out, ceil


def _avg_pool2d(call):
    x = call.tensor(0, "self")
    _float(x)
    attrs, out, ceil = _avg_attrs(call, 1, x)
    if call.result(0) is not None:
        _check_pool_shape(call.result(0)[0], out, ceil)
    return call.emit("remat.avg_pool2d", [x], [(out, x.dtype)], attrs)


def _avg_pool2d_backward(call):
    g, x = call.tensor(0, "grad_output"), call.tensor(1, "self")
    _float(g, x)
    attrs, out, ceil = _avg_attrs(call, 2, x)
    _check_pool_shape(g.shape, out, ceil)
    return call.emit("remat.avg_pool2d_backward", [g], [(x.shape, x.dtype)],
                     attrs)


def _adaptive_kernel(x, output_size):
    """Adaptive average pooling is a plain average pooling when every output
    size divides its input size (PyTorch's windows [floor(i H / OH),
    ceil((i + 1) H / OH)) are then uniform)."""
    if len(x.shape) != 4:
        raise Declined(f"{len(x.shape)}-D input (only batched NCHW)")
    oh, ow = _pair(list(output_size), "output_size")
    h, w = x.shape[2], x.shape[3]
    if oh < 1 or ow < 1 or h % oh or w % ow:
        raise Declined(f"output size {[oh, ow]} does not divide the input "
                       f"size {[h, w]} (non-uniform windows)")
    kernel = [h // oh, w // ow]
    attrs = {"kernel": _dims(kernel), "padding": _dims([0, 0]),
             "strides": _dims(kernel)}
    return attrs, (x.shape[0], x.shape[1], oh, ow)


def _adaptive_avg_pool2d(call):
    x = call.tensor(0, "self")
    _float(x)
    attrs, out = _adaptive_kernel(x, call.arg(1, "output_size"))
    _expect_shape(call.result(0), out, "output")
    return call.emit("remat.avg_pool2d", [x], [(out, x.dtype)], attrs)


def _adaptive_avg_pool2d_backward(call):
    g, x = call.tensor(0, "grad_output"), call.tensor(1, "self")
    _float(g, x)
    attrs, out = _adaptive_kernel(x, g.shape[2:] if len(g.shape) == 4 else [0])
    if tuple(g.shape) != out:
        raise Declined(f"grad_output {list(g.shape)} for input {list(x.shape)}")
    return call.emit("remat.avg_pool2d_backward", [g], [(x.shape, x.dtype)],
                     attrs)


# --- embedding ---------------------------------------------------------------

def _embedding(call):
    table, indices = call.tensor(0, "weight"), call.tensor(1, "indices")
    _float(table)
    if len(table.shape) != 2 or indices.dtype != torch.int64:
        raise Declined(f"table {list(table.shape)} with {indices.dtype} indices "
                       "(needs a 2-D table and int64 indices)")
    out = tuple(indices.shape) + (table.shape[1],)
    _expect_shape(call.result(0), out, "output")
    return call.emit("remat.embedding", [table, indices], [(out, table.dtype)])


def _embedding_dense_backward(call):
    g, indices = call.tensor(0, "grad_output"), call.tensor(1, "indices")
    rows = int(call.arg(2, "num_weights"))
    padding_idx = call.arg(3, "padding_idx", -1)
    if padding_idx is not None and padding_idx >= 0:
        raise Declined(f"padding_idx = {padding_idx} (that row gets no "
                       "gradient; remat.embedding_backward has no such row)")
    if call.arg(4, "scale_grad_by_freq", False):
        raise Declined("scale_grad_by_freq")
    _float(g)
    if indices.dtype != torch.int64 or \
            tuple(g.shape[:-1]) != tuple(indices.shape):
        raise Declined(f"grad {list(g.shape)} with indices {list(indices.shape)}")
    return call.emit("remat.embedding_backward", [g, indices],
                     [((rows, g.shape[-1]), g.dtype)])


# --- dropout -----------------------------------------------------------------

def _dropout_p(value):
    p = float(value)
    if not 0.0 <= p < 1.0:
        raise Declined(f"p = {p} (remat.dropout needs 0 <= p < 1)")
    return p


def _native_dropout(call):
    if not call.emitter.replayable_random:
        raise Declined("PyTorch's random numbers cannot be replayed here "
                       "(kept opaque and never recomputed)")
    x = call.tensor(0, "input")
    _float(x)
    p = _dropout_p(call.arg(1, "p"))
    if call.arg(2, "train", None) is False:
        raise Declined("train=False")
    if call.result(1) is not None and call.result(1)[1] != torch.bool:
        raise Declined(f"mask is {call.result(1)[1]}")
    seed = call.emitter.rng_argument("rng_seed")
    offset = call.emitter.rng_argument(f"{call.node.name}.offset")
    return call.emit("remat.dropout", [x, seed, offset],
                     [(x.shape, x.dtype), (x.shape, torch.bool)],
                     {"p": exact_f64(p)})


def _native_dropout_backward(call):
    g, mask = call.tensor(0, "grad_output"), call.tensor(1, "mask")
    scale = float(call.arg(2, "scale"))
    _float(g)
    if mask.dtype != torch.bool or mask.shape != g.shape:
        raise Declined("mask is not a bool tensor shaped like the gradient")
    # p of the forward dropout that produced the mask (scale = 1 / (1 - p)).
    source = call.arg(1, "mask")
    p = None
    if source.target is operator.getitem:
        producer = source.args[0]
        if getattr(producer.target, "overloadpacket", None) is not None and \
                producer.target.overloadpacket.__name__ == "native_dropout":
            p = _dropout_p(producer.args[1])
    if p is None:
        if scale <= 0:
            raise Declined(f"scale = {scale}")
        p = _dropout_p(1.0 - 1.0 / scale)
    if abs(scale * (1.0 - p) - 1.0) > 1e-12:
        raise Declined(f"scale {scale} is not 1 / (1 - p) for p = {p}")
    return call.emit("remat.dropout_backward", [g, mask], [(g.shape, g.dtype)],
                     {"p": exact_f64(p)})


# --- split, slice, cat ---------------------------------------------------------

def _slice_value(call, x, dim, start, size, suffix, step=1):
    offsets = [0] * len(x.shape)
    sizes = list(x.shape)
    offsets[dim], sizes[dim] = start, size
    if tuple(sizes) == tuple(x.shape):
        return x
    attrs = {"offsets": _dims(offsets), "sizes": _dims(sizes)}
    if step != 1:
        attrs["strides"] = _dims([step if d == dim else 1
                                  for d in range(len(x.shape))])
    return call.emit("remat.slice", [x], [(tuple(sizes), x.dtype)], attrs,
                     suffix=suffix)[0]


def _split(call):
    """split(x, size, dim) and split_with_sizes(x, sizes, dim): one slice
    view per used result."""
    x = call.tensor(0, "self")
    if not x.shape:
        raise Declined("a rank-0 input")
    dim = int(call.arg(2, "dim", 0)) % len(x.shape)
    length = x.shape[dim]
    chunk = call.arg(1, "split_size")
    if isinstance(chunk, int):
        if chunk <= 0:
            raise Declined(f"split size {chunk}")
        sizes = [min(chunk, length - start) for start in range(0, length, chunk)]
    elif isinstance(chunk, (list, tuple)) and all(isinstance(c, int) for c in chunk):
        sizes = list(chunk)
    else:
        raise Declined(f"split sizes {chunk!r}")
    if sum(sizes) != length or len(sizes) < len(call.results):
        raise Declined(f"sizes {sizes} along dimension {dim} of {list(x.shape)}")
    values, start = [], 0
    for index, size in enumerate(sizes):
        result = call.result(index)
        if result is None:
            values.append(None)
        else:
            shape = list(x.shape)
            shape[dim] = size
            _expect_shape(result, shape, f"result {index}")
            values.append(_slice_value(call, x, dim, start, size, str(index)))
        start += size
    return values


def _slice(call):
    """slice(x, dim, start, end, step): a strided slice view (start and end
    clamped as PyTorch does)."""
    x = call.tensor(0, "self")
    if not x.shape:
        raise Declined("a rank-0 input")
    dim = int(call.arg(1, "dim", 0)) % len(x.shape)
    length = x.shape[dim]
    start, end = call.arg(2, "start", None), call.arg(3, "end", None)
    step = call.arg(4, "step", 1)
    if not all(isinstance(v, int) or v is None for v in (start, end)) or \
            not isinstance(step, int) or step < 1:
        raise Declined(f"start {start}, end {end}, step {step}")
    start = 0 if start is None else (start + length if start < 0 else start)
    end = length if end is None else (end + length if end < 0 else end)
    start, end = min(max(start, 0), length), min(max(end, 0), length)
    size = max(0, (end - start + step - 1) // step)
    shape = list(x.shape)
    shape[dim] = size
    _expect_shape(call.result(0), shape, "result")
    if size == 0:
        raise Declined("an empty slice")
    value = _slice_value(call, x, dim, start, size, None, step)
    if value is x:  # the whole tensor: the value itself
        return [x]
    return [value]


def _cat(call):
    tensors = call.arg(0, "tensors")
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise Declined("no tensor list")
    values = []
    for t in tensors:
        value = call.emitter.values.get(t.name) if isinstance(t, torch.fx.Node) else None
        if value is None or isinstance(value, list):
            raise Declined("an operand was not exported as one tensor")
        values.append(value)
    rank = len(values[0].shape)
    if rank == 0 or any(len(v.shape) != rank or v.dtype != values[0].dtype
                        for v in values):
        raise Declined("operands of different ranks or types")
    dim = int(call.arg(1, "dim", 0)) % rank
    shape = list(values[0].shape)
    shape[dim] = sum(v.shape[dim] for v in values)
    _expect_shape(call.result(0), shape, "result")
    if len(values) == 1:
        return [values[0]]
    return call.emit("remat.concat", values, [(tuple(shape), values[0].dtype)],
                     {"dim": f"{dim} : i64"})


HANDLERS = {
    "split": _split,
    "split_with_sizes": _split,
    "slice": _slice,
    "cat": _cat,
    "convolution": _convolution,
    "convolution_backward": _convolution_backward,
    "native_layer_norm": _native_layer_norm,
    "native_layer_norm_backward": _native_layer_norm_backward,
    "native_batch_norm": _native_batch_norm,
    "_native_batch_norm_legit_functional": _native_batch_norm_legit_functional,
    "native_batch_norm_backward": _native_batch_norm_backward,
    "max_pool2d_with_indices": _max_pool2d_with_indices,
    "max_pool2d_with_indices_backward": _max_pool2d_with_indices_backward,
    "avg_pool2d": _avg_pool2d,
    "avg_pool2d_backward": _avg_pool2d_backward,
    "_adaptive_avg_pool2d": _adaptive_avg_pool2d,
    "_adaptive_avg_pool2d_backward": _adaptive_avg_pool2d_backward,
    "embedding": _embedding,
    "embedding_dense_backward": _embedding_dense_backward,
    "native_dropout": _native_dropout,
    "native_dropout_backward": _native_dropout_backward,
}


def lower_nn(emitter, node, name, results):
    """The values of `node` (one per result, None where remat computes
    none) from typed ops, or None when `name` has no handler or this use
    was declined (the reason is recorded in `emitter.declined`)."""
    handler = HANDLERS.get(name)
    if handler is None:
        return None
    call = _Call(emitter, node, results)
    mark = len(emitter.lines)
    try:
        return list(handler(call))
    except Declined as why:
        # Handlers check before they emit, but never leave a partial
        # expansion behind.
        emitter.truncate(mark)
        emitter.declined.setdefault(name, []).append(f"{node.name}: {why}")
        return None


# --- dropout as PyTorch 1.13 traces it on the CPU -----------------------------

def _chain_source(node):
    """The tensor an `empty_like(empty_like(...(s)))` chain starts from."""
    steps = []
    while isinstance(node, torch.fx.Node) and node.op == "call_function" and \
            packet(node) == "empty_like":
        steps.append(node)
        node = node.args[0]
    return (node, steps) if steps and isinstance(node, torch.fx.Node) else (None, [])


def find_cpu_dropouts(graph):
    """PyTorch 1.13 traces `F.dropout(x, p, training=True)` on the CPU not as
    `native_dropout` but as

        t = empty_like(x) (sometimes twice); b = bernoulli_(t, 1 - p)
        m = div(b, 1 - p); y = mul(x, m)      # forward
        gx = mul(gy, m)                        # backward, one per use

    Returns {node name: role} for every match whose scaled mask `m` is only
    read by such products: "skip" for the chain, ("forward", p, m) for the
    product with x (it becomes remat.dropout), ("backward", p, m) for the
    gradient products (remat.dropout_backward reading the dropout's mask).
    """
    roles = {}
    for node in graph.nodes:
        if node.op != "call_function" or packet(node) != "bernoulli_" or \
                str(node.target) != "aten.bernoulli_.float":
            continue
        source, chain = _chain_source(node.args[0])
        keep = node.args[1] if len(node.args) > 1 else node.kwargs.get("p", 0.5)
        if source is None or node.kwargs.get("generator") is not None or \
                not isinstance(keep, (int, float)) or not 0 < keep <= 1:
            continue
        if any(len(step.users) != 1 for step in chain) or len(node.users) != 1:
            continue
        scaled = next(iter(node.users))
        if scaled.op != "call_function" or str(scaled.target) != "aten.div.Scalar" or \
                scaled.args[0] is not node or scaled.args[1] != keep:
            continue
        products = list(scaled.users)
        if not products or any(str(u.target) != "aten.mul.Tensor" or
                               len(u.args) != 2 or u.kwargs for u in products):
            continue
        forward = [u for u in products if source in u.args]
        if len(forward) != 1 or not _same_float_shape(source, forward[0]):
            continue
        p = _drop_probability(float(keep))
        for step in chain + [node, scaled]:
            roles[step.name] = "skip"
        roles[forward[0].name] = ("forward", p, scaled)
        for u in products:
            if u is not forward[0]:
                roles[u.name] = ("backward", p, scaled)
    return roles


def _drop_probability(keep):
    """1 - keep, written as the shortest decimal whose 1 - p is exactly
    `keep` (F.dropout(p=0.1) traces keep = 0.9; 1 - 0.9 is
    0.09999999999999998, and 0.1 gives the same keep probability and scale)."""
    for digits in range(1, 18):
        candidate = float(f"{1.0 - keep:.{digits}g}")
        if 1.0 - candidate == keep:
            return candidate
    return 1.0 - keep


def _same_float_shape(a, b):
    ma, mb = meta_of(a), meta_of(b)
    return isinstance(ma, tuple) and isinstance(mb, tuple) and ma == mb and \
        ma[1] in FLOAT_DTYPES


def lower_cpu_dropout(emitter, node, role, results):
    """Emits the remat op for one product of a matched CPU dropout; returns
    its value, or None to export the node as it is."""
    kind, p, scaled = role
    other = node.args[1] if node.args[0] is scaled else node.args[0]
    x = emitter.values.get(other.name) if isinstance(other, torch.fx.Node) else None
    if x is None or isinstance(x, list) or x.dtype not in FLOAT_DTYPES or \
            results[0] is None or tuple(results[0][0]) != tuple(x.shape):
        return None
    name = {"remat.name": f'"{node.name}"'}
    if kind == "forward":
        seed = emitter.rng_argument("rng_seed")
        offset = emitter.rng_argument(f"{node.name}.offset")
        y, mask = emitter.emit("remat.dropout", [x, seed, offset],
                               [(x.shape, x.dtype), (x.shape, torch.bool)],
                               {"p": exact_f64(p)}, name)
        emitter.values[scaled.name + ".mask"] = mask
        return y
    mask = emitter.values.get(scaled.name + ".mask")
    if mask is None:
        return None
    return emitter.emit("remat.dropout_backward", [x, mask], [(x.shape, x.dtype)],
                        {"p": exact_f64(p)}, name)[0]
