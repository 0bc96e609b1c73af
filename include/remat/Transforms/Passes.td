//===- Passes.td - remat passes ----------------------------*- tablegen -*-===//
//
// Part of remat. Every pass of lib/Transforms; `ninja remat-doc` turns this
// file into docs/Passes.md-style pages under build/docs/.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematPlanPass : Pass<"remat-plan", "::mlir::ModuleOp"> {
  let summary = "Decide, for every forward value of a joint training graph, "
                "whether backward saves, recomputes or derives it";
  let description = [{
    Builds the planning core's graph from every function marked
    `remat.graph = "joint"` (through `PlannerOpInterface`, so it works on
    remat ops, on `remat.opaque`, and on upstream arith/math/tensor/linalg
    ops that have an external model), runs the chosen strategy and records
    the plan on the IR:

    * on every forward op, `remat.decision` (one of `save`, `recompute`,
      `derive`, `not-needed` per result) and `remat.reason` (one sentence
      per result), plus `remat.derivation` when a result is derived;
    * on every function argument backward reads, `remat.decision =
      ["input"]` and its reason;
    * on the function, `remat.plan`: strategy, target, budget, the
      simulated peak memory, saved bytes, recompute FLOPs and time.

    Example:

    ```mlir
    %q = remat.matmul %x, %wq {remat.name = "query_proj",
                               remat.decision = ["save"],
                               remat.reason = ["saved: ..."]} : ...
    ```

    With `progress`, a long `budget` or `optimal` run shows its progress
    on stderr (by default only on a terminal); embedders get the same
    through `PlanOptions::progress`.

    Errors (each reported once, on the function, and the pass fails): an
    infeasible budget (naming the smallest feasible one), a malformed policy,
    strategy, target or budget, a module without a joint function, an op the
    planner knows nothing about, and contradictory tags.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"min-cut\"",
           "Planning strategy: save-all, recompute-all, min-cut, budget or "
           "optimal">,
    Option<"memoryBudget", "memory-budget", "std::string", /*default=*/"\"\"",
           "Memory budget for `budget` and `optimal`: `total:<bytes>` "
           "bounds the total peak (activations plus the inputs, parameters "
           "and tangents held; bare bytes do too, with a warning), "
           "`activations:<bytes>` the activation peak alone (bytes with an "
           "optional KiB/MiB/GiB suffix: `total:8GiB`), a fraction in "
           "[0, 1] between the recompute-all and save-all activation peaks "
           "(`0.5`), or a fraction of the save-all (no-recompute) peak, as "
           "the Checkmate literature states budgets (`0.8peak`)">,
    Option<"target", "target", "std::string", /*default=*/"\"h100\"",
           "Cost-model preset: h100, h200, a100, mi300x or cpu">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "JSON file overriding fields of a preset, e.g. "
           "{\"base\": \"h100\", \"memory_bandwidth\": 3.0e12}">,
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "Name policy layered over the strategy, e.g. "
           "`save_only_these_names:query_proj,key_proj`, `dots_saveable`">,
    Option<"allowInexactDerivation", "allow-inexact-derivation", "bool",
           /*default=*/"false",
           "Allow floating-point derivations (e.g. a = c - b) whose result "
           "may differ from the original in the last bits">,
    Option<"recomputeBanned", "recompute-banned", "std::string",
           /*default=*/"\"never\"",
           "never (default) or allow: when no `budget` plan inside the "
           "automatic bans meets the budget, let it recompute matmul, conv "
           "and attention values (never_recompute and no_auto_recompute "
           "tags still hold)">,
    Option<"schedulePlans", "schedule-plans", "bool", /*default=*/"true",
           "budget: allow plans that only a recorded schedule expresses "
           "(searched orders of forward evaluations, an op evaluated "
           "several times, recomputation inside forward); false keeps to "
           "plans that per-value save/recompute/derive decisions express, "
           "for frontends that realise decisions, not schedules">,
    Option<"decisionGroups", "decision-groups", "std::string",
           /*default=*/"\"\"",
           "budget with schedule-plans=false: groups of forward value "
           "names, each saved or recomputed as a whole (names separated by "
           "',', groups by ';': q,q.1;k,k.1), for frontends that decide "
           "per group (a JAX name policy decides per checkpoint name)">,
    Option<"exchangeRate", "exchange-rate", "std::string",
           /*default=*/"\"\"",
           "min-cut weighs saved bytes against recompute time: what one "
           "microsecond of predicted recompute time is worth in bytes, e.g. "
           "`300000`, `256KiB` or `1MB/us`; `0` weighs bytes alone (the "
           "smallest saved set, whatever it costs to recompute); empty "
           "(default): the target's rate">,
    Option<"lowerBoundTimeLimit", "lower-bound-time-limit", "double",
           /*default=*/"::remat::kDefaultLowerBoundTimeLimitSeconds",
           "budget: seconds the certified lower bound's LP relaxation may "
           "take (it stops earlier at a machine-independent iteration "
           "limit); 0 reports the evaluate-once bound alone, which is "
           "instant">,
    Option<"budgetSearchEffort", "budget-search-effort", "double",
           /*default=*/"1",
           "budget (and optimal's starting plan): multiplies the work limits "
           "of the schedule search; on large graphs more effort reaches "
           "lower peaks in more time (deterministic: a count of steps, not "
           "a clock)">,
    Option<"optimalTimeLimit", "optimal-time-limit", "double",
           /*default=*/"::remat::kDefaultOptimalTimeLimitSeconds",
           "optimal: wall-clock seconds for the MILP; when they run out the "
           "plan is the best schedule found (at worst budget's), with the "
           "solver's bound as its lower bound and optimality gap">,
    Option<"emitRemarks", "emit-remarks", "bool", /*default=*/"false",
           "Emit every decision as a remark on its op">,
    Option<"progress", "progress", "std::string", /*default=*/"\"auto\"",
           "Progress on stderr: auto (when stderr is a terminal and "
           "`budget` or `optimal` runs longer than a second: one line, "
           "updated in place, with the strategy, the elapsed time and the "
           "best plan so far), true (always, also into pipes and logs, and "
           "a final line per function for every strategy) or false">,
  ];
  let statistics = [
    Statistic<"numSaved", "saved-values", "Forward values saved for backward">,
    Statistic<"numRecomputed", "recomputed-values",
              "Forward values recomputed in backward">,
    Statistic<"numDerived", "derived-values",
              "Forward values derived algebraically in backward">,
  ];
  let dependentDialects = ["::remat::RematDialect"];
}

def RematPartitionPass : Pass<"remat-partition", "::mlir::ModuleOp"> {
  let summary = "Split each planned joint function into a forward and a "
                "backward function";
  let description = [{
    For every function `@f` that `remat-plan` planned, creates

    * `@f_forward`: takes the joint function's non-tangent arguments (in
      order) and returns its outputs followed by the saved values;
    * `@f_backward`: takes the saved values, followed by every argument of
      the joint function (in order; tangents included), and returns the
      gradients in the joint function's order. Values the plan recomputes are
      cloned just before their first use; derived values are rebuilt from
      the inverse rule the plan chose.

    Both functions carry `remat.stage = "forward"` / `"backward"` and
    `remat.saved_values`, the names of the saved values in the order they
    are passed. Besides the values the plan saves, that list holds the
    function outputs a derivation reads (the planner counts outputs as
    available in backward). A saved value that is a view (reshape,
    transpose, broadcast, slice) is passed as the storage it views and the
    view is re-created in backward before its first read (a function result
    of a view type is a copy once bufferized, and the planner counts a saved
    view as its base's storage); a view of an argument passes nothing, and
    `pass-view-storage=false` passes the view itself. Each recomputed value
    is cloned once, before its first use, and reused by later uses; a gradient keeps its
    `remat.grad_of`, shifted by the number of saved values so that it still
    indexes the backward function's arguments. The joint function is erased unless `keep-joint` is set
    (it still carries the plan, for `remat-report`).
  }];
  let options = [
    Option<"keepJoint", "keep-joint", "bool", /*default=*/"false",
           "Keep the planned joint function next to the forward/backward "
           "pair">,
    Option<"passViewStorage", "pass-view-storage", "bool",
           /*default=*/"true",
           "Pass a saved view (reshape, transpose, broadcast, slice) as the "
           "storage it views and re-create the view in backward; false "
           "passes the view itself">,
  ];
  let statistics = [
    Statistic<"numRecomputedOps", "recomputed-ops",
              "Ops cloned into backward to recompute a value">,
    Statistic<"numDerivationOps", "derivation-ops",
              "Ops emitted into backward to derive a value">,
    Statistic<"numViewOps", "saved-view-ops",
              "View ops cloned into backward to re-create a saved view from "
              "the storage it views">,
  ];
  let dependentDialects = [
    "::remat::RematDialect", "::mlir::func::FuncDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
  ];
}

def RematReportPass : Pass<"remat-report", "::mlir::ModuleOp"> {
  let summary = "Write the plan of every planned joint function as JSON or "
                "a text table";
  let description = [{
    Reads the decisions `remat-plan` recorded and writes, per function, a
    report with `function`, `strategy`, `target`, `budget_bytes`,
    `peak_memory_bytes`, `saved_bytes`, `recompute_flops`,
    `predicted_recompute_time_us` and one entry per forward value and per
    function argument other than a tangent (`name`, `op`, `shape`, `dtype`,
    `bytes`, `decision`, `reason`, `derived_from`, `read_by`,
    `compute_class`, `tags`). Every such argument is listed whatever the
    plan, with decision `input` and `read_by` saying whether a backward op
    (`backward`), only a recomputation (`recomputation`) or nothing
    (`none`) reads it, so that reports of one graph under different
    strategies list the same values. Values are in IR order, numbers are printed
    with a fixed format and nothing depends on time, so the same plan gives
    the same bytes. With one planned function the JSON is one object; with
    several it is an array of objects, in module order. The planned joint
    functions of modules nested in the one it runs on are reported too (an
    unplanned one there is left out; one of the module itself is an
    error), in IR order, with names qualified by their modules
    (`m0::@layer`): run on the top-level module after
    `builtin.module(remat-plan)`, one report covers every nested plan. On a
    nested module itself `output` must be `-` (each nested instance would
    overwrite the file). The IR is not changed. Run it before
    `remat-partition` (or with `keep-joint`).
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"json\"",
           "Report format: json or text">,
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "File to write, or - for stdout">,
  ];
}

#endif // REMAT_TRANSFORMS_PASSES_TD
