"""The remat function being built from StableHLO, and its `.mlir` text.

Ops are collected first and printed at the end (MLIR's generic form, which
remat-opt parses for every op and verifies) because some facts are known
only once the whole function is converted: a `checkpoint_name` marker comes
after the op that produced the named value, dead helper ops are dropped, and
`recompute_unnamed` needs to know which ops depend on a tangent.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

from remat.mlir_text import quoted, tensor_type

# Element types remat's typed ops take (Remat_FloatTensor, Remat_AnyTensor in
# RematOps.td).
FLOAT_TYPES = ("f64", "f32", "f16", "bf16")
ANY_TYPES = FLOAT_TYPES + ("i1", "i8", "i64")
# Element types remat-plan can size, as StableHLO spells them, and how remat
# prints them. Unsigned integers keep their width as signless integers; they
# only ever appear in remat.opaque ops, whose semantics remat does not model.
PRINTED_TYPES = {"f64": "f64", "f32": "f32", "f16": "f16", "bf16": "bf16",
                 "i64": "i64", "i32": "i32", "i8": "i8", "i1": "i1",
                 "ui64": "i64", "ui32": "i32", "ui8": "i8",
                 "complex<f32>": "complex<f32>", "complex<f64>": "complex<f64>"}
# remat ops whose result is a view of operand 0.
VIEW_OPS = ("remat.reshape", "remat.transpose", "remat.broadcast", "remat.slice")


@dataclass(eq=False)
class Val:
    """A value of the remat function: an argument or an op result."""
    shape: tuple
    etype: str                       # StableHLO element type: f32, ui32, ...
    producer: Optional["Op"] = None
    argument: Optional[int] = None   # argument index, for an argument
    splat: Optional[str] = None      # element text of a splat constant
    checkpoint: Optional[str] = None     # its checkpoint_name
    named_shape: Optional[tuple] = None  # the JAX value's, if it differs
    ssa: str = ""

    @property
    def type(self):
        return tensor_type(self.shape, PRINTED_TYPES[self.etype])

    @property
    def elements(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(eq=False)
class Op:
    """One remat op. `props` are its inherent attributes (printed `<{...}>`;
    a None value is a unit attribute); `origin` says which StableHLO op it
    was converted from, and where JAX traced that op."""
    kind: str
    operands: List[Val]
    results: List[Val]
    props: Dict[str, Optional[str]]
    origin: "Origin"
    name: Optional[str] = None
    tags: List[str] = field(default_factory=list)
    # Why the exporter set `tags` (remat.tag_note; the plan's reasons quote it).
    tag_note: Optional[str] = None
    # For a remat.opaque op whose StableHLO op is typed in other uses: the
    # element types of this use.
    note: Optional[str] = None


@dataclass
class Origin:
    stablehlo: str       # e.g. stablehlo.dot_general
    primitive: str       # JAX's name stack, e.g. transpose(jvp())/dot_general
    source: str          # "file.py":12:8, or "" when unknown

    def describe(self):
        where = f" at {self.source.replace(chr(34), '')}" if self.source else ""
        return f"{self.stablehlo} ({self.primitive}){where}"


@dataclass
class ArgumentSpec:
    label: str
    role: str


@dataclass
class ResultSpec:
    role: str
    grad_of: Optional[int] = None


class Function:
    """A joint function under construction."""

    def __init__(self, name):
        self.name = name
        self.arguments: List[Val] = []
        self.argument_specs: List[ArgumentSpec] = []
        self.ops: List[Op] = []
        self.returned: List[Val] = []
        self.result_specs: List[ResultSpec] = []
        # Set by assign_names().
        self.argument_names: List[str] = []
        self.argument_views = set()
        self.named_shapes: Dict[str, tuple] = {}

    def add_argument(self, shape, etype, label, role):
        value = Val(tuple(shape), etype, argument=len(self.arguments))
        self.arguments.append(value)
        self.argument_specs.append(ArgumentSpec(label, role))
        return value

    def add_op(self, kind, operands, result_types, origin, props=None):
        results = [Val(tuple(shape), etype) for shape, etype in result_types]
        op = Op(kind, list(operands), results, dict(props or {}), origin)
        for value in results:
            value.producer = op
        self.ops.append(op)
        return results

    # -- finishing --------------------------------------------------------

    def remove_dead_ops(self):
        """Drops ops nothing returned depends on (helpers a simplification
        made redundant, JAX's dead code)."""
        live = set()
        work = list(self.returned)
        while work:
            value = work.pop()
            op = value.producer
            if op is None or id(op) in live:
                continue
            live.add(id(op))
            work.extend(op.operands)
        self.ops = [op for op in self.ops if id(op) in live]

    def backward_ops(self):
        """Ops that depend on a tangent (the planner's own rule)."""
        reached = {id(v) for v, spec in zip(self.arguments, self.argument_specs)
                   if spec.role == "tangent"}
        backward = set()
        for op in self.ops:
            if any(id(v) in reached for v in op.operands):
                backward.add(id(op))
                reached.update(id(v) for v in op.results)
        return backward

    def assign_names(self):
        """Writes each checkpoint name on the op producing the named value,
        unique in the function: a later holder of a name (or of an argument
        label) gets `.1`, `.2`, ..., as remat-plan would give it, so that
        the names in reports are the ones written here; a character other
        than a letter, a digit or one of `_.-/` becomes `_` (`attn out` is
        reported as `attn_out`). Returns {report name: checkpoint name} for
        every named value; `argument_views` gets the report names of named
        views of arguments (how an argument is named, convert.py)."""
        taken, report_names = set(), {}

        def claim(label):
            # remat-plan's options list names between spaces, commas and
            # semicolons: other characters become `_` in the report name.
            base = "".join(c if c.isalnum() or c in "_.-/" else "_"
                           for c in label) or "_"
            name, suffix = base, 0
            while name in taken:
                suffix += 1
                name = f"{base}.{suffix}"
            taken.add(name)
            return name

        self.argument_names = [claim(spec.label) for spec in self.argument_specs]
        for op in self.ops:
            named = [v for v in op.results if v.checkpoint]
            if not named:
                continue
            op.name = claim(named[0].checkpoint)
            if op.kind in VIEW_OPS and op.operands[0].argument is not None:
                self.argument_views.add(op.name)
            for index, value in enumerate(op.results):
                if value.checkpoint:
                    name = op.name if len(op.results) == 1 else f"{op.name}#{index}"
                    report_names[name] = value.checkpoint
                    self.named_shapes[name] = value.named_shape or value.shape
        return report_names

    def tag_unnamed_forward_ops(self, also=(), keep=()):
        """Tags every forward op without a checkpoint name
        `remat.must_recompute`, so that a plan saves only named values (and
        arguments): all that a JAX name policy can save; so are the ops of
        the values whose checkpoint name is in `also` (every instance of
        those names is recomputed). The ops of the values whose checkpoint
        name is in `keep` are tagged `remat.never_recompute` (every
        instance of those names is saved where backward needs it, also to
        replay another value). Ops producing function results are left
        alone (they are live anyway)."""
        backward = self.backward_ops()
        returned = {id(v) for v in self.returned}
        also, keep = set(also), set(keep)
        for op in self.ops:
            if id(op) in backward or any(id(v) in returned
                                         for v in op.results):
                continue
            tag = "remat.must_recompute"
            if op.name is None:
                note = ("set by remat_jax: it has no checkpoint_name, and a "
                        "JAX name policy saves only named values")
            else:
                tied = next((v.checkpoint for v in op.results
                             if v.checkpoint in also), None)
                kept = next((v.checkpoint for v in op.results
                             if v.checkpoint in keep), None)
                if tied is not None:
                    note = (f"set by remat_jax: a plan saved only some "
                            f"instances of checkpoint name {tied}, which a "
                            "name policy cannot express")
                elif kept is not None:
                    tag = "remat.never_recompute"
                    note = (f"set by remat_jax: a plan saved some instances "
                            f"of checkpoint name {kept}, and a name policy "
                            "saves every instance")
                else:
                    continue
            op.tags.append(tag)
            op.tag_note = note
        self._unkeep_unnamed_results(backward, returned)

    def _unkeep_unnamed_results(self, backward, returned):
        """A function result is live anyway, so remat-plan lets backward
        read it for free; `jax.checkpoint` does not: its backward sees only
        the residuals the policy saves, so it computes an unnamed result
        (`exp(x)`, which exp's derivative reads) again. The same holds for
        the other results of an op left untagged because one of its results
        is returned or named (a `lax.cond`'s residuals, beside its output).
        Such a result's readers in backward (and in ops that only run there:
        tagged must_recompute, and in such copies) read a copy of its op
        instead, tagged must_recompute, so the plan replays what JAX
        replays (and a policy never has to save an unnamed value). A named
        result is left as it is: the policy saves it by name."""
        late = [op for op in self.ops
                if id(op) in backward or "remat.must_recompute" in op.tags]
        late_ids = {id(op) for op in late}
        read_late = {id(v) for op in late for v in op.operands}
        # A copy reads its operands late too, so an op is copied when a
        # later copy reads one of its unnamed results (last op first).
        copied = set()
        for op in reversed(self.ops):
            if id(op) not in late_ids and any(
                    v.checkpoint is None and id(v) in read_late
                    for v in op.results):
                copied.add(id(op))
                read_late.update(id(v) for v in op.operands)
        ops, swap = [], {}
        for op in self.ops:
            ops.append(op)
            if id(op) not in copied:
                continue
            results = [Val(v.shape, v.etype, named_shape=v.named_shape)
                       for v in op.results]
            copy = Op(op.kind, [swap.get(id(v), v) for v in op.operands],
                      results, dict(op.props), op.origin,
                      tags=["remat.must_recompute"],
                      tag_note="set by remat_jax: jax.checkpoint's backward "
                      "computes an unnamed function result again")
            for value in results:
                value.producer = copy
            ops.append(copy)
            swap.update((id(v), c) for v, c in zip(op.results, results)
                        if v.checkpoint is None)
        for reader in late:
            reader.operands = [swap.get(id(v), v) for v in reader.operands]
        self.ops = ops

    def text(self):
        """The function as a module in MLIR's generic form."""
        for index, value in enumerate(self.arguments):
            value.ssa = f"%arg{index}"
        counter = 0
        lines = []
        for op in self.ops:
            counter += 1
            if len(op.results) == 1:
                op.results[0].ssa = f"%v{counter}"
                lhs = f"%v{counter} = "
            elif op.results:
                for index, value in enumerate(op.results):
                    value.ssa = f"%v{counter}#{index}"
                lhs = f"%v{counter}:{len(op.results)} = "
            else:
                lhs = ""
            lines.append("    " + lhs + _op_text(op))
        arguments = []
        for value, spec, name in zip(self.arguments, self.argument_specs,
                                     self.argument_names):
            arguments.append(f"{value.ssa}: {value.type} "
                             f"{{remat.role = {quoted(spec.role)}}} loc({quoted(name)})")
        results = []
        for value, spec in zip(self.returned, self.result_specs):
            if spec.role == "grad":
                attrs = (f"remat.grad_of = {spec.grad_of} : i64, "
                         f"remat.role = \"grad\"")
            else:
                attrs = f"remat.role = {quoted(spec.role)}"
            results.append(f"{value.type} {{{attrs}}}")
        header = (f"  func.func @{self.name}({', '.join(arguments)}) -> "
                  f"({', '.join(results)}) attributes "
                  "{remat.graph = \"joint\"} {")
        ret = (f"    func.return {', '.join(v.ssa for v in self.returned)} : "
               f"{', '.join(v.type for v in self.returned)}")
        return "module {\n" + header + "\n" + "\n".join(lines) + "\n" + \
            ret + "\n  }\n}\n"


def _op_text(op):
    props = ""
    if op.props:
        props = " <{" + ", ".join(k if v is None else f"{k} = {v}"
                                  for k, v in op.props.items()) + "}>"
    attrs = [f"remat.name = {quoted(op.name)}"] if op.name else []
    attrs += op.tags
    if op.tags and op.tag_note:
        attrs.append(f"remat.tag_note = {quoted(op.tag_note)}")
    attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
    operand_types = ", ".join(v.type for v in op.operands)
    result_types = ", ".join(v.type for v in op.results)
    if len(op.results) != 1:
        result_types = f"({result_types})"
    loc = f" loc({op.origin.source})" if op.origin.source else ""
    return (f"\"{op.kind}\"({', '.join(v.ssa for v in op.operands)}){props}"
            f"{attr_text} : ({operand_types}) -> {result_types}{loc}")
