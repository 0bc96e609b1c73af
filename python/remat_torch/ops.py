"""ATen -> remat op mapping.

`lower_node` emits the remat op(s) for one FX node. A typed op is used only
when its semantics match exactly (the remat verifier checks shapes and
types); otherwise the node becomes `remat.opaque "aten.<op>"` with a FLOP
estimate and a compute class, so the planner still sees its cost. The table
in docs/Importers.md mirrors TYPED and CLASSES below.
"""

import math
from types import SimpleNamespace

import torch
import torch.fx

from remat.mlir_text import f64_attr as exact_f64
from remat_torch.emitter import FLOAT_DTYPES, tensor_type
from remat_torch.fxmeta import flat_nodes, is_symbolic, meta_from_getitems, meta_of

# ATen op (overload packet name) -> remat unary op, for ops taking one tensor.
UNARY = {
    "relu": "remat.relu", "exp": "remat.exp", "log": "remat.log",
    "neg": "remat.neg", "tanh": "remat.tanh", "sigmoid": "remat.sigmoid",
    "sqrt": "remat.sqrt", "rsqrt": "remat.rsqrt", "silu": "remat.silu",
}
BINARY = {"add": "remat.add", "sub": "remat.sub", "mul": "remat.mul",
          "div": "remat.div"}
# ATen activation backward (grad, output-or-input) -> remat op; the second
# operand is the forward output for sigmoid/tanh and the input for silu/gelu,
# as in both signatures.
ACTIVATION_BACKWARD = {"sigmoid_backward": "remat.sigmoid_backward",
                       "tanh_backward": "remat.tanh_backward",
                       "silu_backward": "remat.silu_backward",
                       "gelu_backward": "remat.gelu_backward"}
VIEW_RESHAPE = {"view", "_unsafe_view", "_reshape_alias", "reshape",
                "unsqueeze", "squeeze", "flatten", "alias"}

# Compute class and FLOPs-per-output-element of ATen ops that stay opaque
# (or that the typed path declined); unknown ops are `other`, 1 FLOP/element.
CLASSES = {
    "convolution": "conv", "convolution_backward": "conv",
    "mm": "matmul", "bmm": "matmul", "addmm": "matmul", "baddbmm": "matmul",
    "native_layer_norm": "normalization",
    "native_layer_norm_backward": "normalization",
    "native_batch_norm": "normalization",
    "native_batch_norm_backward": "normalization",
    "_native_batch_norm_legit_functional": "normalization",
    "_softmax": "normalization", "_softmax_backward_data": "normalization",
    "_log_softmax": "normalization", "_log_softmax_backward_data": "normalization",
    "sum": "reduction", "mean": "reduction", "amax": "reduction",
    "var": "reduction", "var_mean": "reduction", "max": "reduction",
    "nll_loss_forward": "reduction", "nll_loss_backward": "pointwise",
    "max_pool2d_with_indices": "reduction",
    "max_pool2d_with_indices_backward": "pointwise",
    "avg_pool2d": "reduction", "avg_pool2d_backward": "pointwise",
    "_adaptive_avg_pool2d": "reduction",
    "_adaptive_avg_pool2d_backward": "pointwise",
    "embedding": "pointwise", "embedding_dense_backward": "pointwise",
    "native_dropout": "random", "native_dropout_backward": "pointwise",
    "bernoulli": "random", "rand": "random", "rand_like": "random",
    "randn": "random", "randn_like": "random",
    "expand": "view", "permute": "view", "t": "view", "transpose": "view",
    "slice": "view", "select": "view", "view": "view", "_unsafe_view": "view",
    "unsqueeze": "view", "squeeze": "view", "alias": "view",
    "clone": "pointwise", "_to_copy": "pointwise", "cat": "pointwise",
    "threshold_backward": "pointwise", "gelu_backward": "pointwise",
    "tanh_backward": "pointwise", "sigmoid_backward": "pointwise",
    "silu_backward": "pointwise", "where": "pointwise", "pow": "pointwise",
    "gelu": "pointwise", "sqrt": "pointwise", "rsqrt": "pointwise",
    "relu": "pointwise", "exp": "pointwise", "log": "pointwise",
    "neg": "pointwise", "tanh": "pointwise", "sigmoid": "pointwise",
    "silu": "pointwise", "add": "pointwise", "sub": "pointwise",
    "mul": "pointwise", "div": "pointwise", "le": "pointwise",
    "lt": "pointwise", "gt": "pointwise", "ge": "pointwise", "eq": "pointwise",
    "ne": "pointwise", "zeros_like": "pointwise", "ones_like": "pointwise",
    "full": "pointwise", "zeros": "pointwise", "scalar_tensor": "pointwise",
    "new_zeros": "pointwise", "fill": "pointwise", "copy": "pointwise",
    "detach": "view", "empty_like": "pointwise", "cos": "pointwise",
    "sin": "pointwise", "abs": "pointwise", "sign": "pointwise",
    "reciprocal": "pointwise", "minimum": "pointwise", "maximum": "pointwise",
    "clamp": "pointwise", "masked_fill": "pointwise", "index_select": "pointwise",
    "gather": "pointwise", "scatter_add": "pointwise", "split": "pointwise",
    "split_with_sizes": "pointwise",
    # Complex numbers (rotary embeddings built with torch.polar): reading a
    # real tensor as complex pairs and back, and the conjugate, are views.
    "view_as_complex": "view", "view_as_real": "view", "_conj": "view",
    "conj": "view", "real": "view", "imag": "view", "polar": "pointwise",
    "complex": "pointwise",
}

# Random ops (overload packet names, in-place `_` variants included): their
# results cannot be recomputed unless their generator state is replayed.
RANDOM = {"bernoulli", "bernoulli_", "native_dropout", "rand", "rand_like",
          "randn", "randn_like", "randint", "randint_like", "randperm",
          "normal", "normal_", "uniform", "uniform_", "exponential_",
          "geometric_", "log_normal_", "cauchy_", "random_", "multinomial",
          "poisson", "inductor_random", "inductor_seeds"}


def compute_class(name):
    """The compute class of an ATen op (overload packet name), None when
    unknown."""
    return "random" if name in RANDOM else CLASSES.get(name)


FLOPS_PER_ELEMENT = {"normalization": 5, "pointwise": 1, "random": 2,
                     "view": 0, "reduction": 0, "other": 1}


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def packet(node):
    """`aten.mm.default` -> `mm`."""
    target = node.target
    overload = getattr(target, "overloadpacket", None)
    if overload is not None:
        return overload.__name__
    return getattr(target, "__name__", str(target))


def estimate_flops(node, name, results, operands):
    out = sum(_numel(r[0]) for r in results if r is not None)
    if name in ("mm", "addmm"):
        a, b = operands[-2], operands[-1]
        return 2.0 * a.shape[0] * a.shape[1] * b.shape[1]
    if name in ("bmm", "baddbmm"):
        a, b = operands[-2], operands[-1]
        return 2.0 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
    if name == "convolution":
        # weight.shape[1] is already in_channels / groups.
        per_output = 2.0 * _numel(operands[1].shape[1:])
        return per_output * _numel(results[0][0])
    if name == "convolution_backward":
        # grad_input and grad_weight each cost about one forward convolution.
        grad_out, weight = operands[0], operands[2]
        return 2 * 2.0 * _numel(weight.shape[1:]) * _numel(grad_out.shape)
    klass = compute_class(name) or "other"
    if klass == "reduction":
        return float(sum(_numel(v.shape) for v in operands[:1]))
    return float(FLOPS_PER_ELEMENT.get(klass, 1) * out)


def node_flops(node):
    """The FLOP estimate the exporter gives an opaque op, from a node's FX
    metadata alone (for any node: the recomputation `compare` reports, the
    nodes of a higher-order op's subgraphs); 0 where the estimate does not
    take its operands."""
    meta = meta_of(node) or meta_from_getitems(node)
    results = [m for m in (meta if isinstance(meta, list) else [meta]) if m]
    operands = []
    for arg in flat_nodes(node.args) + flat_nodes(list(node.kwargs.values())):
        arg_meta = None if is_symbolic(arg) else meta_of(arg)
        if isinstance(arg_meta, tuple):
            operands.append(SimpleNamespace(shape=arg_meta[0]))
    try:
        return estimate_flops(node, packet(node), results, operands)
    except (IndexError, TypeError, AttributeError):
        return 0.0


# Ops whose result does not depend on their operands' values: a splat
# constant of the result type. empty_like's memory is uninitialized in
# PyTorch, so any content (zeros here) is a valid value.
CONSTANTS = {"fill", "empty_like", "zeros_like", "ones_like", "full_like",
             "zeros", "ones", "full", "new_zeros", "new_ones", "new_empty",
             "empty", "scalar_tensor"}


def _constant_value(node, name):
    args = node.args
    if name in ("empty_like", "zeros_like", "zeros", "new_zeros", "new_empty",
                "empty"):
        return 0
    if name in ("ones_like", "ones", "new_ones"):
        return 1
    if name == "fill" and len(args) == 2 and isinstance(args[1], (int, float)):
        return args[1]
    if name == "full_like" and len(args) >= 2 and isinstance(args[1], (int, float)):
        return args[1]
    if name == "full" and len(args) >= 2 and isinstance(args[1], (int, float)):
        return args[1]
    if name == "scalar_tensor" and args and isinstance(args[0], (int, float)):
        return args[0]
    return None


def _literal(value, dtype):
    if dtype == torch.int64:
        return str(int(value)) if float(value).is_integer() else None
    if not math.isfinite(float(value)):
        return None
    return exact_f64(value).split(" :")[0]


def _tensor_type(shape, dtype):
    return tensor_type(shape, dtype, "constant")


def _name_attr(node):
    return {"remat.name": '"' + node.name + '"'}


def _dims(values):
    return "array<i64" + ("" if not values else ": " + ", ".join(str(int(v)) for v in values)) + ">"


def _broadcast_to(emitter, value, shape, node):
    """Numpy-style broadcast view of `value` to `shape` (no-op if equal)."""
    if tuple(value.shape) == tuple(shape):
        return value
    if len(value.shape) > len(shape):
        return None
    for have, want in zip(reversed(value.shape), reversed(shape)):
        if have != 1 and have != want:
            return None
    return emitter.emit("remat.broadcast", [value], [(tuple(shape), value.dtype)],
                        discardable={"remat.name": f'"{node.name}.broadcast"'})[0]


def lower_typed(emitter, node, name, results, where):
    """Emits a typed op and returns its values, or None to fall back."""
    format_f64 = exact_f64

    if len(results) != 1 or results[0] is None:
        return None
    shape, dtype = results[0]
    is_float = dtype in FLOAT_DTYPES
    args = node.args
    vals = emitter.values

    def val(a):
        return vals.get(a.name) if isinstance(a, torch.fx.Node) else None

    def one(op, operands, inherent=None):
        return emitter.emit(op, operands, [results[0]], inherent, _name_attr(node))

    if name in UNARY and len(args) == 1 and is_float:
        x = val(args[0])
        if x is not None and x.shape == shape and x.dtype == dtype:
            return one(UNARY[name], [x])
    if name == "gelu" and is_float:
        x = val(args[0])
        approximate = node.kwargs.get("approximate", args[1] if len(args) > 1 else "none")
        if x is not None and x.shape == shape and approximate in ("none", "tanh"):
            return one("remat.gelu", [x], {"approximate": f'"{approximate}"'})
    if name in BINARY and is_float and len(args) == 2 and \
            node.kwargs.get("alpha", 1) == 1:
        a, b = args
        if isinstance(a, torch.fx.Node) and isinstance(b, torch.fx.Node):
            x, y = val(a), val(b)
            if x is None or y is None or x.dtype != dtype or y.dtype != dtype:
                return None
            x = _broadcast_to(emitter, x, shape, node)
            y = _broadcast_to(emitter, y, shape, node)
            if x is None or y is None:
                return None
            return one(BINARY[name], [x, y])
        if isinstance(a, torch.fx.Node) and isinstance(b, (int, float)):
            x = val(a)
            if x is None or x.shape != shape or x.dtype != dtype:
                return None
            if name == "add":
                return one("remat.add_scalar", [x], {"scalar": format_f64(b)})
            if name == "sub":
                return one("remat.add_scalar", [x], {"scalar": format_f64(-b)})
            if name == "mul":
                return one("remat.mul_scalar", [x], {"scalar": format_f64(b)})
            if name == "div" and b != 0 and math.isfinite(b):
                if math.frexp(b)[0] in (0.5, -0.5):
                    # x / 2^k == x * 2^-k exactly.
                    return one("remat.mul_scalar", [x],
                               {"scalar": format_f64(1.0 / b)})
                # Otherwise x * (1 / b) rounds differently from x / b:
                # divide by a splat constant.
                # divide by a rank-0 constant broadcast (a view) to the shape.
                literal = _literal(b, dtype)
                divisor = emitter.emit(
                    "remat.constant", [], [((), dtype)],
                    {"value": f"dense<{literal}> : {_tensor_type((), dtype)}"},
                    {"remat.name": f'"{node.name}.divisor"'})[0]
                divisor = _broadcast_to(emitter, divisor, shape, node)
                return one("remat.div", [x, divisor])
    if name == "pow" and is_float and len(args) == 2 and \
            isinstance(args[1], (int, float)):
        x = val(args[0])
        if x is not None and x.shape == shape and x.dtype == dtype:
            if args[1] == 2:
                return one("remat.square", [x])
            return one("remat.pow_scalar", [x], {"exponent": format_f64(args[1])})
    if name in ("mm", "bmm") and is_float:
        x, y = val(args[0]), val(args[1])
        if x is not None and y is not None and x.dtype == y.dtype == dtype:
            return one("remat.matmul", [x, y])
    if name == "addmm" and is_float and not node.kwargs:
        bias, x, y = (val(a) for a in args[:3])
        if None not in (bias, x, y) and len(args) == 3:
            product = emitter.emit("remat.matmul", [x, y], [results[0]],
                                   discardable={"remat.name": f'"{node.name}.mm"'})[0]
            bias = _broadcast_to(emitter, bias, shape, node)
            if bias is not None:
                return one("remat.add", [product, bias])
    if name in VIEW_RESHAPE:
        x = val(args[0])
        if x is not None and _numel(x.shape) == _numel(shape) and x.dtype == dtype:
            return one("remat.reshape", [x])
    if name in ("t", "permute", "transpose"):
        x = val(args[0])
        if x is None:
            return None
        rank = len(x.shape)
        if name == "t":
            perm = list(range(rank))[::-1]
        elif name == "permute":
            perm = [int(d) % rank for d in args[1]]
        else:
            perm = list(range(rank))
            i, j = int(args[1]) % rank, int(args[2]) % rank
            perm[i], perm[j] = perm[j], perm[i]
        return one("remat.transpose", [x], {"permutation": _dims(perm)})
    if name in CONSTANTS and (is_float or dtype == torch.int64):
        value = _constant_value(node, name)
        if value is not None:
            literal = _literal(value, dtype)
            if literal is not None:
                return one("remat.constant", [], {
                    "value": f"dense<{literal}> : "
                             f"{_tensor_type(shape, dtype)}"})
    if name == "expand":
        x = val(args[0])
        if x is not None:
            out = _broadcast_to(emitter, x, shape, node)
            if out is x:  # expand to its own shape: the value itself
                return [x]
            if out is not None:
                # The broadcast view is the node itself: rename it.
                emitter.rename_last(f"{node.name}.broadcast", node.name)
                return [out]
    if name in ("_softmax", "_log_softmax") and is_float:
        x = val(args[0])
        if x is not None and x.shape == shape and x.dtype == dtype:
            dim = int(args[1]) % len(shape)
            op = "remat.softmax" if name == "_softmax" else "remat.log_softmax"
            return one(op, [x], {"dim": f"{dim} : i64"})
    if name in ("_softmax_backward_data", "_log_softmax_backward_data") and is_float:
        g, y = val(args[0]), val(args[1])
        if g is not None and y is not None and g.shape == y.shape == shape and \
                g.dtype == y.dtype == dtype:
            dim = int(args[2]) % len(shape)
            op = ("remat.softmax_backward" if name == "_softmax_backward_data"
                  else "remat.log_softmax_backward")
            return one(op, [g, y], {"dim": f"{dim} : i64"})
    if name == "threshold_backward" and is_float and len(args) == 3 and args[2] == 0:
        g, y = val(args[0]), val(args[1])
        # grad * (y > 0): relu's backward from its output (relu(x) > 0 iff
        # x > 0, so it is also right when `y` is the input).
        if g is not None and y is not None and g.shape == y.shape == shape and \
                g.dtype == y.dtype == dtype:
            return one("remat.relu_backward", [g, y])
    if name in ("sum", "mean") and is_float:
        x = val(args[0])
        if x is None or x.dtype != dtype:
            return None
        if len(args) == 1 and not node.kwargs:
            dims, keepdim = list(range(len(x.shape))), False
        elif len(args) >= 2 and isinstance(args[1], (list, tuple)):
            dims = sorted(int(d) % len(x.shape) for d in args[1])
            keepdim = bool(args[2]) if len(args) > 2 else bool(node.kwargs.get("keepdim", False))
            if "dtype" in node.kwargs:
                return None
        else:
            return None
        inherent = {"dims": _dims(dims)}
        if keepdim:
            inherent["keepdim"] = None
        return one(f"remat.{name}", [x], inherent)
    if name in ACTIVATION_BACKWARD and is_float:
        g, other = val(args[0]), val(args[1])
        if g is not None and other is not None and \
                g.shape == other.shape == shape and g.dtype == other.dtype == dtype:
            inherent = None
            if name == "gelu_backward":
                approximate = node.kwargs.get("approximate",
                                              args[2] if len(args) > 2 else "none")
                if approximate not in ("none", "tanh"):
                    return None
                inherent = {"approximate": f'"{approximate}"'}
            elif len(args) != 2:
                return None
            return one(ACTIVATION_BACKWARD[name], [g, other], inherent)
    return None
