"""StableHLO -> remat: one StableHLO op at a time, through the MLIR Python
bindings jaxlib ships (ops, operands, results, types and attributes are
read from the `ir.Module`; no text is parsed).

A StableHLO op becomes a typed remat op where remat has an exact equivalent
(docs/Importers.md, "JAX and StableHLO", has the table), a few view ops
where the equivalent needs a different layout (a `dot_general` whose
dimensions are not in matmul order), nothing where it is an identity
(`optimization_barrier`, a reshape to the same shape, the `checkpoint_name`
marker), and `remat.opaque` with a FLOP estimate and a compute class
otherwise. `func.call` is inlined. An op with regions (`while`, `if`,
`case`: JAX's PRNG, `lax.cond`, a `while_loop` on values nothing
differentiates) is one `remat.opaque` op, a pure function of its operands
and of the outer values its regions read.
"""

import math
import os
import re
from collections import Counter

import numpy as np

from jax.extend.mlir import ir
from jax.extend.mlir.dialects import stablehlo as hlo

from remat.mlir_text import tensor_type

from remat_jax.graph import ANY_TYPES, FLOAT_TYPES, PRINTED_TYPES, Function, Origin
from remat_jax import trace
from remat_jax.trace import MARKER, ExportError

UNARY = {
    "stablehlo.negate": "remat.neg",
    "stablehlo.exponential": "remat.exp",
    "stablehlo.log": "remat.log",
    "stablehlo.tanh": "remat.tanh",
    "stablehlo.logistic": "remat.sigmoid",
    "stablehlo.rsqrt": "remat.rsqrt",
    "stablehlo.sqrt": "remat.sqrt",
    "chlo.square": "remat.square",
}
BINARY = {
    "stablehlo.add": "remat.add",
    "stablehlo.subtract": "remat.sub",
    "stablehlo.multiply": "remat.mul",
    "stablehlo.divide": "remat.div",
    "stablehlo.power": "remat.pow",
}
# StableHLO ops with a typed mapping for some operand types and uses.
MAPPED = set(UNARY) | set(BINARY) | {
    "stablehlo.maximum", "stablehlo.dot_general", "stablehlo.reduce",
    "stablehlo.broadcast_in_dim", "stablehlo.reshape", "stablehlo.transpose",
    "stablehlo.slice", "stablehlo.concatenate", "stablehlo.constant",
    "stablehlo.convert", "stablehlo.select", "stablehlo.compare"}
COMPARISONS = {"EQ": "eq", "NE": "ne", "LT": "lt", "LE": "le", "GT": "gt",
               "GE": "ge"}
# remat.opaque compute classes of StableHLO ops without a typed mapping (or
# whose use here does not fit one); anything else is class "other".
TRANSCENDENTAL = {"cosine", "sine", "tan", "atan2", "exponential",
                  "exponential_minus_one", "log", "log_plus_one", "logistic",
                  "tanh", "sqrt", "rsqrt", "cbrt", "power"}
POINTWISE = {"abs", "add", "subtract", "multiply", "divide", "negate",
             "maximum", "minimum", "clamp", "sign", "floor", "ceil",
             "round_nearest_afz", "round_nearest_even", "remainder", "and",
             "or", "xor", "not", "shift_left", "shift_right_arithmetic",
             "shift_right_logical", "is_finite", "popcnt",
             "count_leading_zeros", "select", "compare", "convert",
             "bitcast_convert", "iota", "constant", "pad", "reverse",
             "concatenate", "dynamic_slice", "dynamic_update_slice", "real",
             "imag", "complex", "reduce_precision"} | TRANSCENDENTAL
VIEWS = {"reshape", "transpose", "broadcast_in_dim", "broadcast", "slice"}
REDUCTIONS = {"reduce", "reduce_window", "select_and_scatter"}
COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all",
               "collective_permute", "collective_broadcast"}
# Ops with regions that become one remat.opaque op each (see _region_op).
REGION_OPS = ("stablehlo.while", "stablehlo.if", "stablehlo.case")
# How a splat of -inf prints for f32, bf16 and f16.
NEGATIVE_INFINITY = ("0xFF800000", "0xFF80", "0xFC00")
_TRACER = os.path.abspath(trace.__file__)
_SOURCE = re.compile(r'("(?:[^"\\]|\\.)*"):(\d+):(\d+)')


def _ints(attr):
    return [int(x) for x in ir.DenseI64ArrayAttr(attr)]


def _dense_text(attr, result):
    """The text of a dense constant that remat's parser reads. Splats and
    most types print as MLIR prints them (hex above 100 elements), but the
    hex layout of i1 differs between MLIR versions: jaxlib's MLIR writes a
    byte per element, the MLIR remat is built with packs bits ("elements hex
    data size is invalid" on a causal mask of more than 100 elements), so a
    non-splat i1 constant lists its values, which every version reads."""
    if attr.is_splat or result[1] != "i1" or 0 in result[0]:
        return str(attr)
    words = np.where(np.asarray(attr, dtype=bool).reshape(result[0]),
                     "true", "false")

    def nested(block):
        if block.ndim == 1:
            return "[" + ", ".join(block.tolist()) + "]"
        return "[" + ", ".join(nested(part) for part in block) + "]"

    return f"dense<{nested(words)}> : {_type_text(*result)}"


def _prod(values):
    return math.prod(values) if values else 1


def _origin(op):
    text = str(op.location)
    stack = re.match(r'loc\("([^"]*)"', text)
    primitive = stack.group(1).split("/", 1)[-1] if stack else ""
    source = _SOURCE.search(text)
    where = f"{source.group(1)}:{source.group(2)}:{source.group(3)}" \
        if source else ""
    if where.startswith(f'"{_TRACER}'):
        where = ""  # a constant of the jaxpr, placed where trace.py runs it
    return Origin(op.operation.name, primitive, where)


def _tensor(value, what):
    try:
        ranked = ir.RankedTensorType(value.type)
    except ValueError:
        raise ExportError(f"{what}: a value of type {value.type} is not a "
                          "ranked tensor") from None
    etype = str(ranked.element_type)
    if etype not in PRINTED_TYPES:
        raise ExportError(f"{what}: element type {etype} has no remat "
                          "equivalent (supported: " +
                          ", ".join(PRINTED_TYPES) + ")")
    if not ranked.has_static_shape:
        raise ExportError(f"{what}: {value.type} has a dynamic shape; remat "
                          "needs static shapes")
    return tuple(ranked.shape), etype


class Converter:
    """Converts the `main` function of a lowered module into a Function."""

    def __init__(self, module, function_name):
        self.functions = {}
        for op in module.body.operations:
            if op.operation.name == "func.func":
                name = ir.StringAttr(op.attributes["sym_name"]).value
                self.functions[name] = op
        if "main" not in self.functions:
            raise ExportError("the lowered module has no main function")
        self.function = Function(function_name)
        self.env = {}
        self.origin = None
        self.markers = []  # the named views of `_name`, in program order

    # -- walking ----------------------------------------------------------

    def run(self, arguments, results):
        """`arguments`: (label, role) per argument of main; `results`:
        ResultSpec per result. Returns the Function."""
        main = self.functions["main"]
        block = main.regions[0].blocks[0]
        if len(block.arguments) != len(arguments):
            raise ExportError(f"the lowered main function has "
                              f"{len(block.arguments)} arguments, expected "
                              f"{len(arguments)}")
        env = {}
        for arg, (label, role) in zip(block.arguments, arguments):
            shape, etype = _tensor(arg, f"argument {label}")
            env[arg] = self.function.add_argument(shape, etype, label, role)
        returned = self._block(block, env)
        if len(returned) != len(results):
            raise ExportError(f"the lowered main function returns "
                              f"{len(returned)} values, expected {len(results)}")
        self.function.returned = returned
        self.function.result_specs = list(results)
        self._fold_names()
        return self.function

    def _block(self, block, env, caller=None):
        """Converts the ops of one function body; returns the values of its
        `func.return`. Ops of an inlined callee without a source location
        of their own get the call's (`caller`)."""
        for op in block.operations:
            name = op.operation.name
            if name == "func.return":
                return [env[v] for v in op.operands]
            self.origin = _origin(op)
            if caller is not None and not self.origin.source:
                self.origin.source = caller.source
                self.origin.primitive = f"{caller.primitive}/{self.origin.primitive}"
            where = self.origin.describe()
            operands = [env[v] for v in op.operands]
            if name in REGION_OPS:
                types = [_tensor(r, where) for r in op.results]
                values = self._region_op(op, name, operands, types, env)
            elif name == "func.call":
                callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                body = self.functions[callee].regions[0].blocks[0]
                values = self._block(body, dict(zip(body.arguments, operands)),
                                     self.origin)
            else:
                types = [_tensor(r, where) for r in op.results]
                values = self._convert(op, name, operands, types)
            for result, value in zip(op.results, values):
                env[result] = value
        raise ExportError("a function body has no func.return")

    def _region_op(self, op, name, operands, types, env):
        """A `while`, `if` or `case` as one remat.opaque op: a pure function
        of its operands and of the values from outside that its regions
        read (StableHLO regions may capture them), which are its further
        operands. remat may replay it whole or save its results. Its FLOPs
        are its regions' (the larger branch of an `if`/`case`; one trip
        through a `while`, whose trip count the op does not state), and its
        compute class is that of its costliest nested op."""
        captured = [env[v] for v in _captured_values(op)]
        flops, klass = _region_cost(op, name)
        return self.emit_opaque(name, operands + captured, types, klass, flops)

    # -- emitting ---------------------------------------------------------

    def emit(self, kind, operands, types, props=None):
        return self.function.add_op(kind, operands, types, self.origin, props)

    def emit_opaque(self, name, operands, types, klass, flops):
        props = {"op_name": f'"{name}"',
                 "flops": f"{float(flops):.6e} : f64",
                 "compute_class": f'"{klass}"'}
        values = self.emit("remat.opaque", operands, types, props)
        if name in MAPPED:
            # Typed in other uses: say which element types kept this one
            # opaque.
            etypes = {v.etype for v in operands} | {t[1] for t in types}
            values[0].producer.note = "/".join(sorted(etypes))
        return values

    def reshape(self, value, shape):
        """`value` viewed with `shape` (the value itself if it has it)."""
        shape = tuple(shape)
        if value.shape == shape:
            return value
        source = value.producer
        if source is not None and source.kind == "remat.reshape" and \
                not value.checkpoint:
            return self.reshape(source.operands[0], shape)
        if value.etype not in ANY_TYPES:
            return self.emit_opaque("stablehlo.reshape", [value],
                                    [(shape, value.etype)], "view", 0)[0]
        return self.emit("remat.reshape", [value], [(shape, value.etype)])[0]

    def transpose(self, value, permutation):
        permutation = list(permutation)
        if permutation == sorted(permutation):
            return value
        shape = tuple(value.shape[p] for p in permutation)
        if value.etype not in ANY_TYPES:
            return self.emit_opaque("stablehlo.transpose", [value],
                                    [(shape, value.etype)], "view", 0)[0]
        return self.emit("remat.transpose", [value], [(shape, value.etype)],
                         {"permutation": _array(permutation)})[0]

    def _name(self, value, label):
        """Gives the checkpoint name `label` to a view of `value` (a reshape
        to its own shape) and returns the view, which the marker's users
        read: in JAX the marker's result is a value of its own, and readers
        of `value` itself (an op's derivative that reads the op's result, as
        tanh's or exp's does) see an unnamed value, which a name policy does
        not save. `_fold_names` moves the name onto the op that computes the
        value where nothing else reads it."""
        if value.etype in ANY_TYPES:
            view = self.emit("remat.reshape", [value], [(value.shape, value.etype)])[0]
        else:
            view = self.emit_opaque("stablehlo.reshape", [value],
                                    [(value.shape, value.etype)], "view", 0)[0]
        view.checkpoint = label
        self.markers.append(view)
        return view

    def _fold_names(self):
        """Puts each checkpoint name of `_name` on the op that computes the
        value, past reshapes and transposes (views that hold exactly the
        value's elements), where the marker's view is the value's only
        reader and every value between is read only by the next: the
        reshape this converter adds after a dot_general's matmul, or JAX's
        own transpose after an einsum, so `query_proj` names the matmul and
        saving it saves the same bytes as saving JAX's value. The view
        stays (the name on it) where anything else reads the value, where
        the value is an argument or already has a name (remat-plan's name
        policies match op results only, and one value has one name)."""
        function = self.function
        readers = Counter(id(v) for op in function.ops for v in op.operands)
        readers.update(id(v) for v in function.returned)
        swap, folded = {}, set()
        for view in self.markers:
            base = view.producer.operands[0]
            base = swap.get(id(base), base)
            if readers[id(base)] != 1:
                continue
            named = base
            while named.producer is not None and not named.checkpoint and \
                    named.producer.kind in ("remat.reshape", "remat.transpose"):
                inner = named.producer.operands[0]
                if inner.producer is None or readers[id(inner)] != 1:
                    break
                named = inner
            if named.argument is not None or named.checkpoint:
                continue
            named.checkpoint = view.checkpoint
            if named.shape != view.shape:
                named.named_shape = view.shape
            swap[id(view)] = base
            readers[id(base)] = readers[id(view)]
            folded.add(id(view.producer))
        if not folded:
            return
        function.ops = [op for op in function.ops if id(op) not in folded]
        for op in function.ops:
            op.operands = [swap.get(id(v), v) for v in op.operands]
        function.returned = [swap.get(id(v), v) for v in function.returned]

    # -- one StableHLO op --------------------------------------------------

    def _convert(self, op, name, operands, types):
        if name == "stablehlo.custom_call":
            target = ir.StringAttr(op.attributes["call_target_name"]).value
            if target == MARKER:
                label = ir.StringAttr(op.attributes["backend_config"]).value
                return [self._name(operands[0], label)]
        if name == "stablehlo.optimization_barrier":
            return operands
        etypes = {v.etype for v in operands} | {t[1] for t in types}
        floats = etypes <= set(FLOAT_TYPES)
        anys = etypes <= set(ANY_TYPES)
        typed = None
        if name in UNARY and floats:
            typed = self.emit(UNARY[name], operands, types)
        elif name in BINARY and floats:
            typed = self.emit(BINARY[name], operands, types)
        elif name == "stablehlo.maximum" and floats and \
                any(v.splat in NEGATIVE_INFINITY for v in operands):
            # max(x, -inf) is x, NaN included.
            typed = [v for v in operands if v.splat not in NEGATIVE_INFINITY][:1] \
                or operands[:1]
        elif name == "stablehlo.dot_general" and floats and len(etypes) == 1:
            typed = self._dot_general(op, operands, types)
        elif name == "stablehlo.reduce" and floats:
            typed = self._reduce(op, operands, types)
        elif name == "stablehlo.broadcast_in_dim" and anys:
            typed = self._broadcast(op, operands[0], types[0])
        elif name == "stablehlo.reshape" and anys:
            typed = [self.reshape(operands[0], types[0][0])]
        elif name == "stablehlo.transpose" and anys:
            typed = [self.transpose(operands[0], _ints(op.attributes["permutation"]))]
        elif name == "stablehlo.slice" and anys:
            typed = self._slice(op, operands[0], types[0])
        elif name == "stablehlo.concatenate" and anys:
            typed = self._concatenate(op, operands, types[0])
        elif name == "stablehlo.constant":
            typed = self._constant(op, types[0], anys)
        elif name == "stablehlo.convert" and anys:
            typed = self._convert_type(operands[0], types[0])
        elif name == "stablehlo.select" and anys:
            if operands[0].shape == types[0][0]:
                typed = self.emit("remat.where", operands, types)
        elif name == "stablehlo.compare" and anys:
            typed = self._compare(op, operands, types)
        if typed is not None:
            return typed
        return self.emit_opaque(name, operands, types, *_opaque_cost(
            op, name, operands, types))

    def _dot_general(self, op, operands, types):
        """A dot_general as remat.matmul: each operand transposed (a view)
        to matmul order, its free and contracting dimensions merged by a
        reshape (a view), and the product reshaped to the dot_general's
        result shape. Without batch dimensions the lhs keeps its free
        dimensions (remat.matmul shares a rank-2 rhs across them), so
        x[B, S, K] @ w[K, N] is one matmul and nothing else."""
        numbers = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        lhs, rhs = operands
        lb = list(numbers.lhs_batching_dimensions)
        rb = list(numbers.rhs_batching_dimensions)
        lc = list(numbers.lhs_contracting_dimensions)
        rc = list(numbers.rhs_contracting_dimensions)
        lf = [d for d in range(len(lhs.shape)) if d not in lb + lc]
        rf = [d for d in range(len(rhs.shape)) if d not in rb + rc]
        # lhs as [batch, M, K] (or [batch, K, M] with transpose_a), rhs as
        # [batch, K, N] (or [batch, N, K] with transpose_b, preferred when
        # a transpose is needed anyway: attention's q @ k^T).
        lhs_order, transpose_a = _matrix_order(lb, lf, lc, prefer_flag=False)
        rhs_order, transpose_b = _matrix_order(rb, rc, rf, prefer_flag=True)
        result_shape = types[0][0]
        batch = [lhs.shape[d] for d in lb]
        free = [lhs.shape[d] for d in lf]
        m = _prod(free)
        k = _prod([lhs.shape[d] for d in lc])
        n = _prod([rhs.shape[d] for d in rf])
        lhs = self.transpose(lhs, lhs_order)
        rhs = self.transpose(rhs, rhs_order)
        if not lb and not transpose_a:
            rows = free or [1]
            lhs = self.reshape(lhs, rows + [k])
            product_shape = tuple(rows + [n])
        else:
            lhs = self.reshape(lhs, batch + ([k, m] if transpose_a else [m, k]))
            product_shape = tuple(batch + [m, n])
        rhs = self.reshape(rhs, batch + ([n, k] if transpose_b else [k, n]))
        props = {}
        if transpose_a:
            props["transpose_a"] = None
        if transpose_b:
            props["transpose_b"] = None
        product = self.emit("remat.matmul", [lhs, rhs],
                            [(product_shape, types[0][1])], props)[0]
        return [self.reshape(product, result_shape)]

    def _reduce(self, op, operands, types):
        """A one-operand reduce whose body adds (from 0) or takes the
        maximum (from -inf): remat.sum or remat.max."""
        if len(operands) != 2:
            return None
        body = list(op.regions[0].blocks[0].operations)
        if len(body) != 2:
            return None
        combine = body[0].operation.name
        kind, init = {"stablehlo.add": ("remat.sum", ("0.000000e+00",)),
                      "stablehlo.maximum": ("remat.max", NEGATIVE_INFINITY)
                      }.get(combine, (None, None))
        if kind is None or operands[1].splat not in init:
            return None
        dims = _ints(op.attributes["dimensions"])
        if not dims:
            return None
        return self.emit(kind, [operands[0]], types, {"dims": _array(dims)})

    def _broadcast(self, op, value, result):
        shape, etype = result
        dims = _ints(op.attributes["broadcast_dimensions"])
        if value.splat is not None:
            return self._splat(value.splat, shape, etype)
        if _prod(shape) == value.elements and dims == sorted(dims):
            return [self.reshape(value, shape)]  # only adds size-1 dimensions
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        value = self.transpose(value, order)
        dims = sorted(dims)
        props = {}
        if dims != list(range(len(shape) - len(dims), len(shape))):
            props["dims"] = _array(dims)  # not numpy's trailing alignment
        return self.emit("remat.broadcast", [value], [result], props)

    def _slice(self, op, value, result):
        start = _ints(op.attributes["start_indices"])
        limit = _ints(op.attributes["limit_indices"])
        strides = _ints(op.attributes["strides"])
        shape = result[0]
        if tuple(shape) == value.shape:
            return [value]
        source = value.producer
        if source is not None and source.kind == "remat.concat" and \
                all(s == 1 for s in strides):
            # A slice that takes back one operand of a concatenation (how an
            # unrolled scan reads its stacked per-iteration values).
            dim = int(source.props["dim"].split(" : ")[0])
            offset = 0
            for part in source.operands:
                if start[dim] == offset and limit[dim] == offset + part.shape[dim] \
                        and part.shape == tuple(shape):
                    return [part]
                offset += part.shape[dim]
        if 0 in shape:
            return None
        props = {"offsets": _array(start), "sizes": _array(shape)}
        if any(s != 1 for s in strides):
            props["strides"] = _array(strides)
        return self.emit("remat.slice", [value], [result], props)

    def _concatenate(self, op, operands, result):
        dim = ir.IntegerAttr(op.attributes["dimension"]).value
        parts = [v for v in operands if v.elements > 0]
        if len(parts) == 1:
            return parts
        if not parts:
            return None
        return self.emit("remat.concat", parts, [result],
                         {"dim": f"{dim} : i64"})

    def _constant(self, op, result, anys):
        if result[1].startswith("complex"):
            # JAX's MLIR bindings cannot read complex elements.
            return self.emit_opaque("stablehlo.constant", [], [result],
                                    "pointwise", 0)
        attr = ir.DenseElementsAttr(op.attributes["value"])
        splat = str(attr.get_splat_value()).rsplit(" : ", 1)[0] \
            if attr.is_splat else None
        if anys:
            value = self.emit("remat.constant", [], [result],
                              {"value": _dense_text(attr, result)})[0]
        else:
            value = self.emit_opaque("stablehlo.constant", [], [result],
                                     "pointwise", 0)[0]
        value.splat = splat
        return [value]

    def _splat(self, element, shape, etype):
        if etype not in ANY_TYPES:
            return None
        text = f"dense<{element}> : {_type_text(shape, etype)}"
        value = self.emit("remat.constant", [], [(tuple(shape), etype)],
                          {"value": text})[0]
        value.splat = element
        return [value]

    def _convert_type(self, value, result):
        if value.etype == result[1]:
            return [value]
        if result[1] == "i1":
            return None  # StableHLO: nonzero -> true; remat leaves it open
        return self.emit("remat.cast", [value], [result])

    def _compare(self, op, operands, types):
        direction = hlo.ComparisonDirectionAttr(
            op.attributes["comparison_direction"]).value
        if "compare_type" in op.attributes:
            kind = hlo.ComparisonTypeAttr(op.attributes["compare_type"]).value
            if kind not in ("FLOAT", "SIGNED"):
                return None  # total order, or unsigned (i1)
        if operands[0].etype == "i1":
            return None
        return self.emit("remat.compare", operands, types,
                         {"predicate": f'"{COMPARISONS[direction]}"'})


def _matrix_order(batch, first, second, prefer_flag):
    """(permutation, flag) for one matmul operand: the permutation to
    [batch, first, second] order (flag False) or to [batch, second, first]
    (flag True: matmul's transpose flag reads it). An order that needs no
    permutation wins; otherwise `prefer_flag` decides."""
    rank = len(batch) + len(first) + len(second)
    plain, flagged = batch + first + second, batch + second + first
    if plain == list(range(rank)):
        return plain, False
    if first and second and (flagged == list(range(rank)) or prefer_flag):
        return flagged, True
    return plain, False


def _array(values):
    return "array<i64: " + ", ".join(str(int(v)) for v in values) + ">" \
        if len(values) else "array<i64>"


def _type_text(shape, etype):
    return tensor_type(shape, PRINTED_TYPES[etype])


def _opaque_cost(op, name, operands, types):
    """(compute class, FLOPs) of a StableHLO op that stays opaque;
    `operands` are the converted values (anything with a `shape`)."""
    dialect, short = name.split(".", 1)
    out = sum(_prod(shape) for shape, _ in types)
    if short == "dot_general":
        numbers = hlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
        k = _prod([operands[0].shape[d]
                   for d in numbers.lhs_contracting_dimensions])
        return "matmul", 2 * out * k
    if short == "dot":
        return "matmul", 2 * out * operands[0].shape[-1]
    if short == "convolution":
        kernel = operands[1].shape
        numbers = hlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
        per_output = _prod(kernel) // kernel[
            numbers.kernel_output_feature_dimension]
        return "conv", 2 * out * per_output
    if short in REDUCTIONS:
        return "reduction", sum(_prod(v.shape) for v in operands)
    if short in COLLECTIVES:
        return "collective", out
    if short in VIEWS:
        return "view", 0
    if short in ("constant", "iota", "concatenate", "pad", "reverse",
                 "dynamic_slice", "dynamic_update_slice"):
        return "pointwise", 0
    if short in POINTWISE:
        return "pointwise", (4 if short in TRANSCENDENTAL else 1) * out
    if dialect == "chlo":
        return "pointwise", 4 * out
    return "other", out


class _Shaped:
    """The shape of an MLIR value nested in a region, as _opaque_cost reads
    converted values."""

    def __init__(self, value):
        try:
            self.shape = tuple(ir.RankedTensorType(value.type).shape)
        except ValueError:
            self.shape = ()  # a token or a scalar of another kind


def _region_ops(region):
    """Every op in `region`, those in nested regions included."""
    for block in region.blocks:
        for op in block.operations:
            yield op
            for inner in op.regions:
                yield from _region_ops(inner)


def _nested_ops(op):
    for region in op.regions:
        yield from _region_ops(region)


def _captured_values(op):
    """The values from outside `op` that its regions read, in first-use
    order, each once."""
    inside, captured = set(), []
    for region in op.regions:
        for block in region.blocks:
            inside.update(block.arguments)
    nested_ops = list(_nested_ops(op))
    for nested in nested_ops:
        for region in nested.regions:
            for block in region.blocks:
                inside.update(block.arguments)
        inside.update(nested.results)
    for nested in nested_ops:
        for value in nested.operands:
            if value not in inside and value not in captured:
                captured.append(value)
    return captured


def _region_cost(op, name):
    """(FLOPs, compute class) of an op with regions: the sum over each
    region's ops (nested regions included), the largest region for `if` and
    `case` (one branch runs), every region once for `while`; the class of
    the costliest op, "other" when nothing in it computes."""
    best_class, best_flops = "other", 0.0
    totals = []
    for region in op.regions:
        total = 0.0
        for inner in _region_ops(region):
            inner_name = inner.operation.name
            if inner_name in REGION_OPS or inner_name in (
                    "stablehlo.return", "func.return"):
                continue
            types = [(_Shaped(r).shape, None) for r in inner.results]
            klass, flops = _opaque_cost(inner, inner_name,
                                        [_Shaped(v) for v in inner.operands],
                                        types)
            total += flops
            if flops > best_flops:
                best_class, best_flops = klass, flops
        totals.append(total)
    flops = sum(totals) if name == "stablehlo.while" else max(totals, default=0)
    return flops, best_class
