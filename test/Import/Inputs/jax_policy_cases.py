"""remat_jax.policy against JAX's own residuals, on every built-in model.

For each model and each set of planner options: remat_jax.plan, then
remat_jax.policy; JAX's saved residuals under `jax.checkpoint(fn,
policy=...)` (from `jax.ad_checkpoint.print_saved_residuals`) must be
exactly the values remat's plan saves, and the gradients must equal those
of the unwrapped function. Under a name policy, JAX's own policy of that
name must save the same residuals too. Residuals from an argument or a constant are
left out: JAX keeps a checkpointed function's arguments anyway, and remat
counts them as inputs, not saved values.

How residuals are compared: outside a scan, by name and shape (JAX prints
`named 'query_proj'`); inside a scan (a name with one instance per
iteration), JAX saves one stacked array per name, printed without its name,
so the stack's shape is compared: [instances, *shape].

Prints one line per case and "policy cases: PASS"; exits 1 otherwise.
"""

import contextlib
import io
import re
import sys

import numpy as np

import jax
import jax.numpy as jnp
from jax.ad_checkpoint import checkpoint_name, print_saved_residuals

import remat
import remat_jax
from remat_jax.models import MODELS
from remat_jax.policy import plan_export

MAXTEXT_FULL = "save_only_these_names:decoder_layer_input"
MAXTEXT_MINIMAL = ("save_only_these_names:query_proj,key_proj,value_proj,"
                   "out_proj,mlpwi_0,mlpwi_1,mlpwo")
CASES = {
    "mlp": [{}, {"policy": "save_only_these_names:hidden_0"},
            {"strategy": "recompute-all"}],
    "llama": [{}, {"policy": MAXTEXT_FULL}, {"policy": MAXTEXT_MINIMAL},
              {"policy": "save_any_names_but_these:mlpwi_0,mlpwi_1"},
              {"strategy": "recompute-all"}],
    "llama_scan": [{}, {"policy": MAXTEXT_FULL}],
}
# The unrolled path for the scanned model (remat_jax plans the scan's body
# by default; test/Import/jax-scan.test covers that).
SCAN = {"llama_scan": "unroll"}
_RESIDUAL = re.compile(r"^(\w+)\[([\d,]*)\] (.*)$")


def jax_residuals(fn, policy, args):
    """(name or None, shape) of every residual JAX saves that is neither an
    argument nor a constant."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        print_saved_residuals(jax.checkpoint(fn, policy=policy), *args)
    found = []
    for line in printed.getvalue().splitlines():
        match = _RESIDUAL.match(line.strip())
        if not match:
            raise AssertionError(f"unexpected print_saved_residuals line: {line}")
        _, dims, what = match.groups()
        if what.startswith(("from the argument", "from a constant")):
            continue
        shape = tuple(int(d) for d in dims.split(",") if d)
        name = re.match(r"named '([^']+)'", what)
        found.append((name.group(1) if name else None, shape))
    return sorted(found, key=repr)


def remat_residuals(plan):
    """What JAX should save for the plan's saved checkpoint names."""
    expected = []
    for name in plan.saved_names():
        instances = plan.export.instances(name)
        shape = tuple(plan.export.named_shapes[instances[0]])
        if len(instances) == 1:
            expected.append((name, shape))
        else:
            expected.append((None, (len(instances),) + shape))
    return sorted(expected, key=repr)


def gradients_match(fn, policy, args):
    outputs = jax.eval_shape(fn, *args)
    cotangent = jax.random.normal(jax.random.PRNGKey(7), outputs.shape,
                                  outputs.dtype)
    plain = jax.vjp(fn, *args)[1](cotangent)
    wrapped = jax.vjp(jax.checkpoint(fn, policy=policy), *args)[1](cotangent)
    return all(np.array_equal(a, b) for a, b in zip(
        jax.tree_util.tree_leaves(plain), jax.tree_util.tree_leaves(wrapped)))


def check_case(name, model, options):
    plan = remat_jax.plan(model.fn, *model.args, scan=SCAN.get(name), **options)
    policy = remat_jax.policy(plan)
    saved = plan.saved_names()
    got, want = jax_residuals(model.fn, policy, model.args), remat_residuals(plan)
    label = f"{name} {options or 'default'}"
    if got != want:
        return f"{label}: JAX saves {got}, remat's plan saves {want}"
    if "policy" in options:
        # remat's plan under a name policy is that policy, as JAX applies it.
        head, _, names = options["policy"].partition(":")
        own = getattr(jax.checkpoint_policies, head)(*names.split(","))
        if jax_residuals(model.fn, own, model.args) != got:
            return f"{label}: JAX's own {head} saves other residuals"
    if not gradients_match(model.fn, policy, model.args):
        return f"{label}: gradients differ from the unwrapped function's"
    print(f"{label}: saves {', '.join(saved) or 'nothing'}; JAX's residuals "
          "match; gradients equal")
    return None


def check_checkpoint_under_grad():
    """remat_jax.checkpoint inside jax.grad (arguments are tracers there)."""
    model = MODELS["llama"]()

    def loss(fn):
        return lambda params, x: jnp.sum(fn(params, x) ** 2)
    wrapped = remat_jax.checkpoint(model.fn, policy=MAXTEXT_FULL)
    got = jax.grad(loss(wrapped))(*model.args)
    want = jax.grad(loss(model.fn))(*model.args)
    same = all(np.array_equal(a, b) for a, b in zip(
        jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)))
    saved = wrapped.plan(*model.args).saved_names()
    if not same:
        return "remat_jax.checkpoint under jax.grad: gradients differ"
    print(f"remat_jax.checkpoint under jax.grad: saves {', '.join(saved)}; "
          "gradients equal")
    return None


def check_bare_report():
    """A remat.Report of an exported graph (remat.plan on the text): saved
    names are checkpoint names, `%N` names are unnamed values."""
    model = MODELS["llama"]()
    text = remat_jax.export_joint_graph(model.fn, *model.args, warn=False)
    report = remat.plan(text, policy=MAXTEXT_FULL)
    print(f"bare report: {remat_jax.policy(report)}")
    try:
        remat_jax.policy(remat.plan(text))
        return "a bare report saving unnamed values was accepted"
    except remat_jax.PolicyError as error:
        print(f"bare report, min-cut: {str(error)[:95]}")
    return None


def check_refusals():
    """Plans a JAX policy cannot express are refused, saying why."""
    model = MODELS["llama"]()
    free = remat_jax.plan(model.fn, *model.args, recompute_unnamed=False)
    try:
        remat_jax.policy(free)
        return "a plan saving unnamed values was accepted"
    except remat_jax.PolicyError as error:
        print(f"unnamed: {error}")

    def twice(params, x):
        h = jnp.sin(checkpoint_name(x @ params["w"], "h"))
        return jnp.sum(jnp.sin(checkpoint_name(h @ params["w"], "h")))
    params = {"w": jnp.ones((8, 8)) / 8}
    one = remat_jax.plan(twice, params, jnp.ones((4, 8)),
                         policy="save_only_these_names:h.1")
    try:
        remat_jax.policy(one)
        return "a plan saving one instance of a name was accepted"
    except remat_jax.PolicyError as error:
        print(f"instances: {error}")
    return None


def check_budget_at_policy_peak():
    """`budget` at the peak of MaxText's save_out_proj policy on the JAX
    compare's 4-layer Llama stack: that policy (save each layer's input and
    attention output) peaks below every keep set of budget's fixed
    families, so budget must search per-name decisions to meet it, as a
    plan a name policy expresses (each checkpoint name decided for all its
    instances, no name tied afterwards) and no slower by remat's
    prediction."""
    from remat_jax.compare import DEFAULT_SIZES, llama_stack
    built = llama_stack(**DEFAULT_SIZES)
    names = "save_only_these_names:decoder_layer_input,out_proj"
    policy_plan = remat_jax.plan(built.fn, *built.args, policy=names,
                                 target="cpu")
    peak = policy_plan.report.peak_memory_bytes
    try:
        plan = remat_jax.plan(built.fn, *built.args, strategy="budget",
                              memory_budget=f"activations:{peak}",
                              recompute_banned="allow", target="cpu")
    except remat.PlanError as error:
        return f"budget at save_out_proj's peak: {error}"
    remat_jax.policy(plan)  # raises PolicyError if no name policy says it
    if plan.tied:
        return f"budget at save_out_proj's peak tied names {plan.tied}"
    if plan.report.peak_memory_bytes > peak:
        return "budget at save_out_proj's peak: the plan is over the budget"
    slower = (plan.report.predicted_recompute_time_us >
              policy_plan.report.predicted_recompute_time_us * (1 + 1e-9))
    print("budget at save_out_proj's peak: saves "
          f"{', '.join(plan.saved_names())}; "
          f"{'slower' if slower else 'no slower'} than the policy")
    return None


def check_tied_name_note():
    """A checkpoint name `plan` ties (a budget plan saved some of its
    instances only) is exported with every instance must_recompute and a
    note saying why, which the plan's reasons quote. Exported directly with
    the name tied, as `plan` does in its loop."""
    model = MODELS["llama"]()
    exported = remat_jax.export(model.fn, *model.args, recompute_unnamed=True,
                                warn=False, recompute_names=["mlpwi_0"])
    planned = plan_export(exported)
    note = ("tagged must_recompute (set by remat_jax: a plan saved only some "
            "instances of checkpoint name mlpwi_0, which a name policy "
            "cannot express)")
    rows = [v for v in planned.report.values
            if exported.checkpoint_names.get(v["name"]) == "mlpwi_0"]
    replayed = [v for v in rows if v["decision"] == "recompute"]
    if not replayed or any(v["decision"] == "save" for v in rows) or \
            any(note not in v["reason"] for v in replayed):
        return ("tied name: " + "; ".join(f"{v['name']} {v['decision']}: "
                                          f"{v['reason']}" for v in rows))
    print(f"tied name: {len(replayed)} mlpwi_0 value(s) recomputed, none "
          "saved, each reason saying the name was tied")
    return None


def check_repeated_name_kept():
    """One checkpoint name in every layer of a Python loop (as MaxText names
    its layers' values): min-cut saves `h` where backward reads it, but
    replays the last layer's (read only to replay an unnamed value), which
    no name policy expresses; before 2026-12-07 that plan was refused at
    the first call. Without a budget, plan() plans again with every
    instance of such a name kept, as the name policy saves them, and JAX
    saves exactly what the plan saves."""
    def layers(ws, x):
        for w in ws:
            x = checkpoint_name(jnp.sin(x @ w), "h")
        return jnp.sum(x ** 2)
    args = ([jnp.eye(16) * 0.5 for _ in range(3)], jnp.ones((8, 16)))
    plan = remat_jax.plan(layers, *args)
    policy = remat_jax.policy(plan)
    names = plan.export.checkpoint_names
    want = sorted(((names[n], tuple(plan.export.named_shapes[n]))
                   for n in plan.report.names("save") if n in names), key=repr)
    got = jax_residuals(layers, policy, args)
    if plan.kept != ["h"] or got != want:
        return (f"repeated name: kept {plan.kept}; JAX saves {got}, remat's "
                f"plan saves {want}")
    if not gradients_match(layers, policy, args):
        return "repeated name: gradients differ from the unwrapped function's"
    print(f"repeated name: min-cut keeps {', '.join(plan.kept)} in every "
          f"instance, saves {', '.join(plan.saved_names())}; JAX's residuals "
          "match; gradients equal")
    return None


def check_static_arguments_and_warnings():
    """remat_jax.checkpoint takes jax.checkpoint's static_argnums and
    static_argnames (a layer count, Flax's train=True) and checks its
    options when it wraps, not at the first call; an argument JAX cannot
    trace is named. plan() warns when the function names no value (every
    strategy then saves nothing) and when scan-body mode, chosen by
    default, leaves named values outside the scan unplanned."""
    import warnings

    def layers(w, x, count, *, act=jnp.tanh):
        for _ in range(count):
            x = checkpoint_name(act(x @ w), "h")
        return x
    w, x = jnp.eye(8) * 0.5, jnp.ones((4, 8))
    loss = lambda fn: lambda w: jnp.sum(fn(w, x, 3, act=jnp.sin) ** 2)
    wrapped = remat_jax.checkpoint(layers, static_argnums=2,
                                   static_argnames="act")
    if not np.array_equal(jax.grad(loss(wrapped))(w), jax.grad(loss(layers))(w)):
        return "static arguments: gradients differ"
    saved = wrapped.plan(w, x, 3, act=jnp.sin).saved_names()
    print(f"static arguments: count=3 and act=jnp.sin static, saves "
          f"{', '.join(saved)}; gradients equal")
    for bad in ({"strategy": "mincut"}, {"static_argnums": 0},
                {"static_argnums": ("2",)}):
        try:
            remat_jax.checkpoint(layers, **bad)(w, x, 3)
            return f"checkpoint({bad}) was accepted"
        except (TypeError, ValueError) as error:
            print(f"checkpoint error: {bad}: {type(error).__name__}: {error}")
    try:
        remat_jax.checkpoint(layers)(w, x, 3, act=jnp.sin)
        return "a callable argument was traced"
    except TypeError as error:
        print(f"checkpoint error: callable: {error}")

    def unnamed(w, x):
        return jnp.sum(jnp.tanh(x @ w) ** 2)

    def loop_after(ws, x):
        for index in range(2):
            x = checkpoint_name(jnp.tanh(x @ ws), f"layer{index}")
        x = jax.lax.fori_loop(0, 2, lambda i, t: jnp.tanh(t), x)
        return jnp.sum(x ** 2)
    for label, fn in (("unnamed", unnamed), ("loop after", loop_after)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            remat_jax.plan(fn, w, x, strategy="save-all")
        said = [str(c.message) for c in caught
                if issubclass(c.category, remat.PlanWarning)]
        print(f"warning: {label}: " + (" | ".join(said) or "none"))
    return None


def check_result_read_by_backward():
    """A function whose unnamed result backward reads (exp's derivative is
    exp itself), in f32 and f64 (jax_enable_x64). remat-plan keeps a
    function result for backward for free, but jax.checkpoint's backward
    sees only residuals, so it computes the result again; remat_jax plans
    what JAX does (policy() refused such plans before, naming the result).
    In f64 every op is typed, as in f32 (f64 was opaque while remat's typed
    ops took only f32/f16/bf16)."""
    def fn(params, x):
        h = checkpoint_name(jnp.tanh(x @ params["w1"]), "hidden")
        h = h / jnp.sqrt(jnp.mean(h * h, axis=-1, keepdims=True) + 1e-6)
        return jnp.exp(h @ params["w2"])

    for dtype in (jnp.float32, jnp.float64):
        with jax.enable_x64(dtype == jnp.float64):
            key = jax.random.PRNGKey(0)
            params = {"w1": jax.random.normal(key, (8, 16), dtype),
                      "w2": jax.random.normal(key, (16, 4), dtype)}
            args = (params, jax.random.normal(key, (4, 8), dtype))
            for options in ({}, {"policy": "save_only_these_names:hidden"}):
                label = f"result read by backward, {dtype.__name__} " \
                        f"{options or 'default'}"
                plan = remat_jax.plan(fn, *args, **options)
                opaque = plan.export.mlir.count("remat.opaque")
                if opaque:
                    return f"{label}: {opaque} opaque ops"
                try:
                    policy = remat_jax.policy(plan)
                except remat_jax.PolicyError as error:
                    return f"{label}: {error}"
                if jax_residuals(fn, policy, args) != remat_residuals(plan):
                    return f"{label}: JAX's residuals differ from the plan's"
                if not gradients_match(fn, policy, args):
                    return f"{label}: gradients differ from the unwrapped " \
                           "function's"
                # The copy of exp that backward reads says why it is
                # recomputed.
                copies = [v["reason"] for v in plan.report.values
                          if v["op"] == "remat.exp" and v["decision"] ==
                          "recompute"]
                if not copies or any(
                        "tagged must_recompute (set by remat_jax: "
                        "jax.checkpoint's backward computes an unnamed "
                        "function result again)" not in r for r in copies):
                    return f"{label}: the replayed exp's reason: {copies}"
                print(f"{label}: typed ops only; saves "
                      f"{', '.join(plan.saved_names()) or 'nothing'}; JAX's "
                      "residuals match; gradients equal")
    return None


def _jax_recomputes(fn, policy, args):
    """The primitives jax.checkpoint's backward evaluates (its recomputation
    and the derivatives), from the jaxpr of the vjp."""
    wrapped = jax.checkpoint(fn, policy=policy)
    outputs = jax.eval_shape(fn, *args)
    closed = jax.make_jaxpr(lambda *a: jax.vjp(wrapped, *a)[1](
        jnp.ones(outputs.shape, outputs.dtype)))(*args)
    return {e.primitive.name for eqn in closed.eqns if "jaxpr" in eqn.params
            for e in eqn.params["jaxpr"].eqns}


def check_name_on_a_value_its_derivative_reads():
    """checkpoint_name makes a value of its own: tanh's derivative reads
    tanh's unnamed result, which a name policy does not save, so JAX
    recomputes the matmul and the tanh although `act` is saved. remat's
    plan replays them too (it put the name on the tanh and predicted no
    recomputation before)."""
    def fn(params, x):
        act = checkpoint_name(jnp.tanh(x @ params["w"]), "act")
        return act @ params["w"].T
    params = {"w": jnp.ones((8, 8)) / 8}
    args = (params, jnp.ones((4, 8)))
    plan = remat_jax.plan(fn, *args, policy="save_only_these_names:act")
    policy = remat_jax.policy(plan)
    replayed = sorted(v["op"] for v in plan.report.values
                      if v["decision"] == "recompute" or
                      "replayed only to recompute" in v["reason"])
    jax_ops = _jax_recomputes(fn, policy, args)
    if not {"tanh", "dot_general"} <= jax_ops:
        return f"named tanh: JAX's backward runs only {sorted(jax_ops)}"
    if not {"remat.tanh", "remat.matmul"} <= set(replayed):
        return f"named tanh: remat replays only {replayed}, JAX {sorted(jax_ops)}"
    if jax_residuals(fn, policy, args) != remat_residuals(plan):
        return "named tanh: JAX's residuals differ from the plan's"
    print(f"named tanh: saves {', '.join(plan.saved_names())}; replays "
          f"{', '.join(replayed)} as JAX does; JAX's residuals match")
    return None


def check_named_result_viewing_an_unnamed_value():
    """A named result over an unnamed tanh of a named matmul: the tanh is
    must_recompute (a name policy cannot save it) although the result views
    its storage. Every strategy saves `down` and replays the tanh, as JAX
    does; before 2026-12-08 min-cut and budget kept the tanh for free, and
    checkpoint() raised PolicyError at the first call."""
    def layer(w, h):
        out = checkpoint_name(h @ w, "down")
        return h + out, checkpoint_name(jnp.tanh(out), "act")
    w = jnp.linspace(-0.2, 0.2, 256).reshape(16, 16)
    args = (w, jnp.ones((4, 16)))
    loss = lambda fn: lambda w, h: jnp.sum(fn(w, h)[1] ** 2)
    expected = jax.grad(loss(layer))(*args)
    said = []
    for options in ({}, {"strategy": "budget", "memory_budget": 0.5}):
        plan = remat_jax.plan(layer, *args, **options)
        policy = remat_jax.policy(plan)
        if jax_residuals(layer, policy, args) != remat_residuals(plan):
            return f"named result {options}: JAX's residuals differ"
        got = jax.grad(loss(remat_jax.checkpoint(layer, **options)))(*args)
        if not jnp.array_equal(got, expected):
            return f"named result {options}: gradients differ"
        said.append(", ".join(plan.saved_names()))
    print(f"named result over a tanh: saves {' / '.join(said)}; JAX's "
          "residuals match; gradients equal")
    return None


def check_closure_over_jit_arguments():
    """remat_jax.checkpoint inside the user's jax.jit on a function that
    closes over the step's arguments (a loss scale, a raw and a typed PRNG
    key): before 2026-12-08 an ExportError about the argument count."""
    w = (jnp.linspace(-1, 1, 256).reshape(16, 16),
         jnp.linspace(1, -1, 256).reshape(16, 16))
    x = jnp.linspace(0, 1, 64).reshape(4, 16)

    def loss(p, x, scale, key):
        h = checkpoint_name(jnp.tanh(x @ p[0]), "h")
        keep = jax.random.bernoulli(key, 0.5, h.shape)
        return jnp.sum(jnp.where(keep, h, 0) @ p[1]) * scale

    @jax.jit
    def step(p, x, scale, key):
        f = lambda p, x: loss(p, x, scale, key)
        return jax.grad(remat_jax.checkpoint(f))(p, x), jax.grad(f)(p, x)
    for key in (jax.random.PRNGKey(1), jax.random.key(1)):
        got, expected = step(w, x, 3.0, key)
        if not all(jnp.array_equal(a, b) for a, b in zip(got, expected)):
            return f"closure over jit arguments ({key.dtype}): gradients differ"
    print("closure over jit arguments: gradients equal")
    return None


def check_inner_checkpoint_refused():
    """A jax.checkpoint inside the function decides what JAX saves there;
    before 2026-12-08 its recomputation was planned as forward values and
    the report named saves JAX does not make. Refused, also in a scan
    body, with its source line."""
    def inner(w, x):
        return jnp.tanh(checkpoint_name(x @ w, "pre"))

    def whole(w, x):
        return jnp.sum(jax.checkpoint(inner)(w, x) ** 2)

    def scanned(ws, x):
        x, _ = jax.lax.scan(lambda c, w: (jax.checkpoint(inner)(w, c), None),
                            x, ws)
        return jnp.sum(x ** 2)
    w, x = jnp.eye(4) / 2, jnp.ones((2, 4))
    for label, fn, args in (("whole", whole, (w, x)),
                            ("scan body", scanned, (jnp.stack([w, w]), x))):
        try:
            remat_jax.plan(fn, *args)
            return f"inner checkpoint ({label}): planned"
        except remat_jax.ExportError as error:
            print(f"inner checkpoint ({label}): {error}")
    return None


def check_policy_strings_and_keywords():
    """checkpoint() accepts the policy strings plan() accepts (a JAX name
    with a space; before 2026-12-08 it refused them when it wrapped), both
    say so for an empty name, and an all-keyword call makes the argument
    at param_argnums the parameter, not the first keyword in sorted order."""
    w, x = jnp.eye(4) / 2, jnp.ones((2, 4))

    def step(params, batch):
        h = checkpoint_name(jnp.tanh(batch @ params) @ params, "attn out")
        return jnp.sum(jnp.tanh(h) ** 2)
    said = []
    for chosen in ("save_only_these_names:attn out",
                   "save_only_these_names:attn out,"):
        for api in ("plan", "checkpoint"):
            try:
                if api == "plan":
                    got = remat_jax.plan(step, w, x, policy=chosen)
                else:
                    got = remat_jax.checkpoint(step, policy=chosen).plan(w, x)
                said.append(f"{api} saves {got.saved_names()}")
            except ValueError as error:
                said.append(f"{api}: {error}")
    print("policy strings: " + " | ".join(said))
    wrapped = remat_jax.checkpoint(step)
    roles = [(v["name"], v["reason"].split(":")[0]) for v in
             wrapped.plan(params=w, batch=x).report.values
             if v["decision"] == "input"]
    print(f"all-keyword call: {roles}")
    return None


def check_user_errors_and_odd_calls():
    """Calls JAX accepts that remat_jax got wrong: a result also read by a
    forward op whose derivative reads it (the copies backward reads must
    read each other, or the plan saves an unnamed value and policy()
    refuses it), jnp.linalg.solve (custom_linear_solve's named tuple of
    jaxprs), remat_jax.checkpoint with a Python scalar and a keyword
    argument, a checkpoint name with a space under `budget`; and clear
    errors for a policy function and an unknown name."""
    w, x = jnp.ones((8, 8)) / 8, jnp.ones((4, 8))

    def statistic(w, x):
        h = jnp.tanh(checkpoint_name(x @ w, "z"))
        return h, h.max()
    plan = remat_jax.plan(statistic, w, x)
    try:
        remat_jax.policy(plan)
    except remat_jax.PolicyError as error:
        return f"result and statistic: {error}"
    solved = remat_jax.plan(lambda w, a: jnp.linalg.solve(a, w).sum(),
                            jnp.ones((4, 2)), jnp.eye(4) * 2.0)

    def scaled(w, x, t, *, scale=1.0):
        return jnp.tanh(checkpoint_name(x @ w / t, "attn out") @ w * scale)
    loss = lambda fn: lambda w, x: jnp.sum(fn(w, x, 0.5, scale=2.0) ** 2)
    got = jax.grad(loss(remat_jax.checkpoint(scaled)))(w, x)
    if not np.array_equal(got, jax.grad(loss(scaled))(w, x)):
        return "checkpoint with a scalar and a keyword: gradients differ"
    spaced = remat_jax.plan(scaled, w, x, 0.5, strategy="budget",
                            memory_budget=0.9)
    print(f"odd calls: result and statistic saves "
          f"{', '.join(plan.saved_names()) or 'nothing'}; solve plans "
          f"{len(solved.report.values)} values; checkpoint(scalar, "
          f"scale=2.0) gradients equal; 'attn out' reported as "
          f"{', '.join(spaced.export.instances('attn out'))}, budget "
          f"policy {remat_jax.policy(spaced)}")
    for policy in (jax.checkpoint_policies.nothing_saveable,
                   "save_only_these_names:nope"):
        try:
            remat_jax.plan(scaled, w, x, 0.5, policy=policy)
            return f"policy {policy!r} was accepted"
        except (TypeError, ValueError) as error:
            print(f"policy error: {type(error).__name__}: {error}")
    return None


def check_complex():
    """Rotary embeddings in complex arithmetic (lax.complex, a complex
    product, .real/.imag) are planned in opaque ops (the export refused
    complex element types before), and JAX saves what the plan saves."""
    def fn(params, x):
        q = x @ params["w"]
        pairs = q.reshape(*q.shape[:-1], -1, 2)
        z = jax.lax.complex(pairs[..., 0], pairs[..., 1])
        angles = jnp.outer(jnp.arange(q.shape[0]), jnp.arange(1, 5) * 0.1)
        r = z * jnp.exp(1j * angles)
        out = jnp.stack([r.real, r.imag], -1).reshape(q.shape)
        return jnp.tanh(checkpoint_name(out, "rotated"))

    key = jax.random.PRNGKey(0)
    args = ({"w": jax.random.normal(key, (8, 8))},
            jax.random.normal(key, (6, 8)))
    for options in ({}, {"policy": "save_only_these_names:rotated"}):
        label = f"complex {options or 'default'}"
        plan = remat_jax.plan(fn, *args, **options)
        if "complex<f32>" not in plan.export.mlir:
            return f"{label}: no complex<f32> value in the export"
        policy = remat_jax.policy(plan)
        if jax_residuals(fn, policy, args) != remat_residuals(plan):
            return f"{label}: JAX's residuals differ from the plan's"
        if not gradients_match(fn, policy, args):
            return f"{label}: gradients differ from the unwrapped function's"
        print(f"{label}: saves {', '.join(plan.saved_names()) or 'nothing'}; "
              "JAX's residuals match; gradients equal")
    return None


def check_random_and_cond():
    """Dropout from jax.random (its threefry lowers to a stablehlo.while)
    and a lax.cond on a traced predicate: each is one opaque op (both were
    refused as control flow before), JAX saves what the plan saves, and the
    gradients equal those under JAX's own save_only_these_names policy of
    the plan's names. (Any jax.checkpoint of this function, JAX's own
    policies included, moves the gradients by ~1e-6 from the unwrapped
    function's: JAX's numerics, checked here within 1e-5.) The cond's
    residuals come from the same op as its output; the plan replays that
    op, as JAX does."""
    def fn(params, x, key):
        h = checkpoint_name(jnp.tanh(x @ params["w1"]), "hidden")
        h = jnp.where(jax.random.bernoulli(key, 0.9, h.shape), h / 0.9, 0.0)
        h = checkpoint_name(h @ params["w2"], "proj")
        y = jax.lax.cond(jnp.mean(x) > 0, jnp.sin, jnp.cos, h)
        return jnp.tanh(y @ params["w3"])

    key = jax.random.PRNGKey(0)
    args = ({"w1": jax.random.normal(key, (8, 16)),
             "w2": jax.random.normal(key, (16, 16)),
             "w3": jax.random.normal(key, (16, 4))},
            jax.random.normal(key, (4, 8)), jax.random.PRNGKey(3))
    cotangent = jax.random.normal(key, (4, 4))

    def gradients(policy):
        """The parameter and input gradients under `policy` (None: the
        unwrapped function), flattened into one array."""
        wrapped = fn if policy is None else jax.checkpoint(fn, policy=policy)
        grads = jax.vjp(wrapped, *args)[1](cotangent)[:2]
        return np.concatenate([np.ravel(g)
                               for g in jax.tree_util.tree_leaves(grads)])

    unwrapped = gradients(None)
    for options in ({}, {"policy": "save_only_these_names:hidden"},
                    {"strategy": "recompute-all"}):
        label = f"random and cond {options or 'default'}"
        plan = remat_jax.plan(fn, *args, **options)
        for op in ("stablehlo.while", "stablehlo.case"):
            if f'op_name = "{op}"' not in plan.export.mlir:
                return f"{label}: no opaque {op} in the export"
        policy = remat_jax.policy(plan)
        if jax_residuals(fn, policy, args) != remat_residuals(plan):
            return f"{label}: JAX's residuals differ from the plan's"
        own = jax.checkpoint_policies.save_only_these_names(
            *plan.saved_names())
        planned = gradients(policy)
        if not np.array_equal(planned, gradients(own)):
            return f"{label}: gradients differ from JAX's own name policy's"
        if not np.allclose(planned, unwrapped, rtol=1e-5, atol=1e-5):
            return f"{label}: gradients differ from the unwrapped function's"
        print(f"{label}: saves {', '.join(plan.saved_names()) or 'nothing'}; "
              "JAX's residuals match; gradients equal to JAX's policy's")
    return None


def main():
    problems = []
    for name, cases in CASES.items():
        model = MODELS[name]()
        for options in cases:
            problems.append(check_case(name, model, dict(options)))
    problems.append(check_checkpoint_under_grad())
    problems.append(check_bare_report())
    problems.append(check_refusals())
    problems.append(check_budget_at_policy_peak())
    problems.append(check_tied_name_note())
    problems.append(check_repeated_name_kept())
    problems.append(check_static_arguments_and_warnings())
    problems.append(check_result_read_by_backward())
    problems.append(check_name_on_a_value_its_derivative_reads())
    problems.append(check_named_result_viewing_an_unnamed_value())
    problems.append(check_closure_over_jit_arguments())
    problems.append(check_inner_checkpoint_refused())
    problems.append(check_policy_strings_and_keywords())
    problems.append(check_user_errors_and_odd_calls())
    problems.append(check_complex())
    problems.append(check_random_and_cond())
    problems = [p for p in problems if p]
    for problem in problems:
        print("FAIL:", problem)
    print("policy cases:", "FAIL" if problems else "PASS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
