//===- RematPlan.cpp - The remat-plan pass --------------------------------===//
//
// Part of remat. Collects each joint function into the core graph, calls
// remat::planRematerialization, and records the plan on the IR.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "remat/Core/Planner.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/PlanAttributes.h"
#include "remat/Transforms/ScheduleRealization.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/Support/MemoryBuffer.h"

namespace remat {
#define GEN_PASS_DEF_REMATPLANPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

std::string message(const absl::Status &status) {
  return std::string(status.message());
}

struct RematPlanPass final : remat::impl::RematPlanPassBase<RematPlanPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Turns the pass options into PlanOptions, or reports the first bad one.
  FailureOr<PlanOptions> parseOptions(Location loc);
  /// Reports why no function can be planned.
  void reportNoJointFunction(ModuleOp module);
  void emitDecisionRemarks(FunctionOpInterface func,
                           const ImportedGraph &imported, const Plan &plan);
};

FailureOr<PlanOptions> RematPlanPass::parseOptions(Location loc) {
  PlanOptions options;
  absl::StatusOr<Strategy> parsedStrategy = parseStrategy(strategy.getValue());
  if (!parsedStrategy.ok())
    return emitError(loc) << "remat-plan: bad option strategy="
                          << strategy.getValue() << ": "
                          << message(parsedStrategy.status());
  options.strategy = *parsedStrategy;

  if (!memoryBudget.empty()) {
    absl::StatusOr<MemoryBudget> budget =
        parseMemoryBudget(memoryBudget.getValue());
    if (!budget.ok())
      return emitError(loc)
             << "remat-plan: bad option memory-budget="
             << memoryBudget.getValue() << ": " << message(budget.status());
    options.budget = *budget;
    if (options.strategy != Strategy::Budget &&
        options.strategy != Strategy::Optimal)
      emitWarning(loc) << "remat-plan: memory-budget="
                       << memoryBudget.getValue()
                       << " has no effect with strategy=" << strategy.getValue()
                       << "; use strategy=budget or strategy=optimal";
  } else if (options.strategy == Strategy::Budget ||
             options.strategy == Strategy::Optimal) {
    return emitError(loc) << "remat-plan: strategy=" << strategy.getValue()
                          << " needs a memory budget, e.g. "
                             "memory-budget=512MiB or memory-budget=0.5";
  }

  absl::StatusOr<TargetSpec> preset = getTargetPreset(target.getValue());
  if (!preset.ok())
    return emitError(loc) << "remat-plan: bad option target="
                          << target.getValue() << ": "
                          << message(preset.status());
  options.target = *preset;
  if (!targetFile.empty()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(targetFile.getValue());
    if (!file)
      return emitError(loc)
             << "remat-plan: cannot read target-file=" << targetFile.getValue()
             << ": " << file.getError().message();
    absl::StatusOr<TargetSpec> spec =
        parseTargetJson((*file)->getBuffer().str());
    if (!spec.ok())
      return emitError(loc)
             << "remat-plan: bad target-file " << targetFile.getValue() << ": "
             << message(spec.status());
    options.target = *spec;
  }

  if (!policy.empty()) {
    absl::StatusOr<NamePolicy> parsedPolicy =
        parseNamePolicy(policy.getValue());
    if (!parsedPolicy.ok())
      return emitError(loc)
             << "remat-plan: bad option policy=" << policy.getValue() << ": "
             << message(parsedPolicy.status());
    options.policy = *parsedPolicy;
  }
  options.allowInexactDerivation = allowInexactDerivation;
  return options;
}

void RematPlanPass::reportNoJointFunction(ModuleOp module) {
  // Point at the most likely culprit: a forward-form function, or one whose
  // arguments carry roles but which lacks the graph marker.
  for (auto func : module.getOps<FunctionOpInterface>()) {
    auto graph = func->getAttrOfType<StringAttr>(
        RematDialect::GraphAttrHelper::getNameStr());
    if (graph) {
      func->emitError() << "remat-plan: '" << func.getName()
                        << "' is a remat.graph = \"" << graph.getValue()
                        << "\" function; remat-plan needs the joint "
                           "(forward + backward) form: differentiate it "
                           "first and mark the result remat.graph = "
                           "\"joint\"";
      return;
    }
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (func.getArgAttr(i, RematDialect::RoleAttrHelper::getNameStr())) {
        func->emitError() << "remat-plan: '" << func.getName()
                          << "' marks argument roles but has no "
                             "remat.graph attribute; add attributes "
                             "{remat.graph = \"joint\"} to plan it";
        return;
      }
  }
  module.emitError() << "remat-plan: no function is marked as a joint "
                        "training graph; mark one with attributes "
                        "{remat.graph = \"joint\"}, remat.role on every "
                        "argument and result, and at least one tangent "
                        "argument (see docs/Dialect.md)";
}

void RematPlanPass::emitDecisionRemarks(FunctionOpInterface func,
                                        const ImportedGraph &imported,
                                        const Plan &plan) {
  for (const ValueDecision &decision : plan.decisions) {
    const GraphValue &value = imported.graph.value(decision.value);
    Operation *anchor = value.producer == kNoId ? func.getOperation()
                                                : imported.opOf[value.producer];
    anchor->emitRemark() << "remat-plan: '" << value.name << "' is "
                         << decisionSpelling(decision.decision) << ": "
                         << plan.reason(decision);
  }
}

void RematPlanPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PlanOptions> options = parseOptions(module.getLoc());
  if (failed(options))
    return signalPassFailure();

  SmallVector<FunctionOpInterface> joint;
  for (auto func : module.getOps<FunctionOpInterface>())
    if (isJointFunction(func) && !func.isExternal())
      joint.push_back(func);
  if (joint.empty()) {
    reportNoJointFunction(module);
    return signalPassFailure();
  }

  PlanRequest request;
  request.policy = policy.getValue();
  request.allowInexactDerivation = allowInexactDerivation;
  for (FunctionOpInterface func : joint) {
    FailureOr<ImportedGraph *> imported =
        getOrBuildGraph(func, getAnalysisManager());
    if (failed(imported))
      return signalPassFailure();
    absl::StatusOr<Plan> plan =
        planRematerialization((*imported)->graph, *options);
    if (!plan.ok()) {
      func->emitError() << "remat-plan: cannot plan '" << func.getName()
                        << "' with strategy=" << strategy.getValue() << ": "
                        << message(plan.status());
      return signalPassFailure();
    }
    // The planner classified this very graph, and recordPlan sees each op's
    // attributes before it adds the plan: remat-partition reuses both.
    JointGraphAnalysis *cached =
        getCachedGraphAnalysis(func, getAnalysisManager());
    if (failed(recordPlan(func, **imported, *plan, request,
                          cached ? &cached->unplannedAttrs : nullptr)))
      return signalPassFailure();
    // A schedule its decisions cannot express (optimal, budget's refined
    // schedules) goes on the function for remat-partition to emit as is.
    recordSchedule(func, **imported, *plan);
    if (cached)
      cached->classification = plan->classification;
    for (const ValueDecision &decision : plan->decisions) {
      if (decision.decision == Decision::Save)
        ++numSaved;
      else if (decision.decision == Decision::Recompute)
        ++numRecomputed;
      else if (decision.decision == Decision::Derive)
        ++numDerived;
    }
    if (emitRemarks)
      emitDecisionRemarks(func, **imported, *plan);
  }
  // The plan only adds decision attributes, which the graph does not read:
  // remat-report and remat-partition reuse it.
  markAnalysesPreserved<JointGraphAnalysis>();
}

} // namespace
