//===- RematPlan.cpp - The remat-plan pass --------------------------------===//
//
// Part of remat. Collects each joint function into the core graph, calls
// remat::planRematerialization, and records the plan on the IR. While a
// long strategy runs it can show its progress on stderr (option progress).
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "OptionText.h"
#include "TextFormat.h"

#include "remat/Core/Planner.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/PlanAttributes.h"
#include "remat/Transforms/ScheduleRealization.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <optional>

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

/// The `progress` option.
enum class ProgressMode { Auto, Always, Never };

std::string microseconds(double us) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%.4g us", us);
  return text;
}

/// One function's planning progress on stderr. On a terminal it is one
/// line rewritten in place (carriage return) and ended when planning ends;
/// elsewhere (progress=true into a pipe or a CI log) every update is a line
/// of its own, at most one a second. In `auto` mode nothing shows before
/// planning has taken a second, so that quick plans stay silent.
class ProgressLine {
public:
  ProgressLine(llvm::raw_ostream &os, bool always, StringRef function)
      : os(os), terminal(os.is_displayed()), always(always),
        function(function.str()) {}

  void update(const PlanProgress &progress) {
    if (!always && progress.elapsedSeconds < kQuietSeconds)
      return;
    // A terminal line is redrawn ten times a second, a log gets a line a
    // second.
    if (shown && progress.elapsedSeconds - shownAt < (terminal ? 0.1 : 1.0))
      return;
    show(describe(progress), /*last=*/false);
    shownAt = progress.elapsedSeconds;
  }

  /// Ends the line: with the final plan when progress was shown or asked
  /// for, or just a line break so that an error starts on a line of its own.
  void finish(Strategy strategy, double seconds, const Plan *plan) {
    if (!shown && !always)
      return;
    if (!plan) {
      if (terminal && shown)
        os << "\n";
      os.flush();
      return;
    }
    std::string text;
    llvm::raw_string_ostream line(text);
    line << "remat-plan: @" << function << " " << toString(strategy)
         << llvm::format(" done in %.1f s", seconds) << ": peak "
         << humanBytes(plan->simulation.peakBytes) << ", recompute "
         << microseconds(plan->simulation.recomputeTimeUs);
    if (plan->budgetBytes)
      line << ", activation budget " << humanBytes(*plan->budgetBytes);
    show(text, /*last=*/true);
  }

private:
  static constexpr double kQuietSeconds = 1.0;

  std::string describe(const PlanProgress &progress) const {
    std::string text;
    llvm::raw_string_ostream line(text);
    bool solving = progress.stage == "solving the MILP";
    line << "remat-plan: @" << function << " " << toString(progress.strategy)
         << llvm::format(" %.1f s", progress.elapsedSeconds);
    if (!progress.stage.empty())
      line << ", " << progress.stage;
    line << " (" << progress.explored << (solving ? " node" : " plan")
         << (progress.explored == 1 ? "" : "s") << "): ";
    if (!progress.bestRecomputeTimeUs)
      line << (solving ? "no schedule yet" : "no plan yet");
    else if (progress.bestWithinBudget)
      line << "best recompute " << microseconds(*progress.bestRecomputeTimeUs);
    else
      line << "lowest peak";
    if (progress.bestPeakBytes)
      line << (progress.bestWithinBudget ? " at peak " : " ")
           << humanBytes(*progress.bestPeakBytes);
    if (progress.budgetBytes)
      line << ", activation budget " << humanBytes(*progress.budgetBytes);
    if (progress.recomputeTimeBoundUs)
      line << ", bound " << microseconds(*progress.recomputeTimeBoundUs);
    return text;
  }

  void show(StringRef text, bool last) {
    if (!terminal) {
      os << text << "\n";
    } else {
      // Spaces over what is left of a longer previous line.
      os << "\r" << text;
      if (text.size() < width)
        os.indent(width - text.size());
      width = text.size();
      if (last)
        os << "\n";
    }
    os.flush();
    shown = true;
  }

  llvm::raw_ostream &os;
  const bool terminal;
  const bool always;
  const std::string function;
  bool shown = false;
  double shownAt = 0;
  size_t width = 0;
};

/// A number option as a user writes it: 5, 0.5, -1 (not -1.000000e+00).
std::string shortNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

struct RematPlanPass final : remat::impl::RematPlanPassBase<RematPlanPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkPassOptionText(*this, options, {{"target", "target-file"}},
                                   errorHandler)))
      return failure();
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override;

private:
  /// Turns the pass options into PlanOptions, or reports the first bad one.
  FailureOr<PlanOptions> parseOptions(Location loc);
  FailureOr<ProgressMode> parseProgress(Location loc);
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
    else if (budget->total &&
             !llvm::StringRef(memoryBudget.getValue()).trim().starts_with(
                 "total:"))
      // Bare bytes bounded the activation peak before issue #16.
      emitWarning(loc)
          << "remat-plan: memory-budget=" << memoryBudget.getValue()
          << " bounds the total peak (activations plus the inputs, "
             "parameters and tangents held through the step); write "
             "total:"
          << memoryBudget.getValue()
          << " to say so, or activations:" << memoryBudget.getValue()
          << " to bound the activation peak alone, as the bare spelling "
             "did before";
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
  if (recomputeBanned != "never" && recomputeBanned != "allow")
    return emitError(loc) << "remat-plan: bad option recompute-banned="
                          << recomputeBanned.getValue()
                          << ": expected never or allow";
  options.recomputeBannedUnderPressure = recomputeBanned == "allow";
  options.schedulePlans = schedulePlans;
  absl::StatusOr<std::vector<std::vector<std::string>>> groups =
      parseDecisionGroups(decisionGroups.getValue());
  if (!groups.ok())
    return emitError(loc) << "remat-plan: bad option decision-groups: "
                          << message(groups.status());
  options.decisionGroups = std::move(*groups);
  if (!exchangeRate.empty()) {
    absl::StatusOr<double> rate = parseExchangeRate(exchangeRate.getValue());
    if (!rate.ok())
      return emitError(loc)
             << "remat-plan: bad option exchange-rate="
             << exchangeRate.getValue() << ": " << message(rate.status());
    options.exchangeRateBytesPerUs = *rate;
    if (options.strategy != Strategy::MinCut)
      emitWarning(loc) << "remat-plan: exchange-rate="
                       << exchangeRate.getValue()
                       << " has no effect with strategy="
                       << strategy.getValue() << "; only min-cut weighs time";
  }
  if (!(lowerBoundTimeLimit >= 0) || std::isinf(lowerBoundTimeLimit))
    return emitError(loc) << "remat-plan: bad option lower-bound-time-limit="
                          << shortNumber(lowerBoundTimeLimit)
                          << ": expected a non-negative number of seconds "
                             "(0: the evaluate-once bound alone)";
  options.lowerBoundTimeLimitSeconds = lowerBoundTimeLimit;
  const std::string effort = shortNumber(budgetSearchEffort);
  if (!(budgetSearchEffort > 0) ||
      !(budgetSearchEffort <= kMaxBudgetSearchEffort))
    return emitError(loc) << "remat-plan: bad option budget-search-effort="
                          << effort << ": expected a number above 0 and at "
                          << "most " << static_cast<int>(kMaxBudgetSearchEffort)
                          << " (a multiple of the default work)";
  options.budgetSearchEffort = budgetSearchEffort;
  if (budgetSearchEffort != 1 && options.strategy != Strategy::Budget &&
      options.strategy != Strategy::Optimal)
    emitWarning(loc) << "remat-plan: budget-search-effort=" << effort
                     << " has no effect with strategy=" << strategy.getValue()
                     << "; only budget (and optimal, which starts from "
                        "budget's plan) search schedules";
  if (!(optimalTimeLimit > 0) || std::isinf(optimalTimeLimit))
    return emitError(loc) << "remat-plan: bad option optimal-time-limit="
                          << shortNumber(optimalTimeLimit)
                          << ": expected a positive number of seconds";
  options.optimalTimeLimitSeconds = optimalTimeLimit;
  // What the core refuses in any combination of the options above (before
  // 2026-12-08 decision-groups with another strategy was found only per
  // function, so an empty module accepted it).
  if (absl::Status status = checkPlanOptions(options); !status.ok())
    return emitError(loc) << "remat-plan: " << message(status);
  // Options of one strategy given with another (before 2026-12-07 these
  // were ignored without a word, unlike memory-budget and exchange-rate).
  // schedule-plans=false is left alone: frontends that realise per-value
  // decisions set it whatever the strategy.
  auto unused = [&](llvm::StringRef option, const std::string &value,
                    llvm::StringRef only) {
    emitWarning(loc) << "remat-plan: " << option << "=" << value
                     << " has no effect with strategy=" << strategy.getValue()
                     << "; only " << only << " reads it";
  };
  if (options.strategy != Strategy::Budget) {
    if (recomputeBanned != "never")
      unused("recompute-banned", recomputeBanned, "budget");
    if (lowerBoundTimeLimit != kDefaultLowerBoundTimeLimitSeconds)
      unused("lower-bound-time-limit", shortNumber(lowerBoundTimeLimit),
             "budget");
  }
  if (options.strategy != Strategy::Optimal &&
      optimalTimeLimit != kDefaultOptimalTimeLimitSeconds)
    unused("optimal-time-limit", shortNumber(optimalTimeLimit), "optimal");
  return options;
}

FailureOr<ProgressMode> RematPlanPass::parseProgress(Location loc) {
  if (progress == "auto")
    return ProgressMode::Auto;
  if (progress == "true")
    return ProgressMode::Always;
  if (progress == "false")
    return ProgressMode::Never;
  return emitError(loc) << "remat-plan: bad option progress="
                        << progress.getValue()
                        << "; expected auto, true or false";
}

/// How a joint function in a nested module gets planned.
constexpr llvm::StringLiteral kReachNestedModule =
    "run remat-plan on that module "
    "(--pass-pipeline='builtin.module(builtin.module(remat-plan))') or move "
    "the function to the top level";

/// The first joint function with a body one module below `module`, which
/// the pass (planning the module it runs on) does not plan.
FunctionOpInterface firstNestedJointFunction(ModuleOp module) {
  for (auto nested : module.getOps<ModuleOp>())
    for (auto func : nested.getOps<FunctionOpInterface>())
      if (isJointFunction(func) && !func.isExternal())
        return func;
  return {};
}

void RematPlanPass::reportNoJointFunction(ModuleOp module) {
  // Point at the most likely culprit: a forward-form function, or one whose
  // arguments carry roles but which lacks the graph marker.
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (auto stage = func->getAttrOfType<StringAttr>(
            RematDialect::StageAttrHelper::getNameStr())) {
      func->emitError() << "remat-plan: '" << func.getName() << "' is the "
                        << stage.getValue()
                        << " half of a partitioned joint function (what "
                           "remat-partition writes); plan the joint "
                           "function before partitioning it";
      return;
    }
    auto graph = func->getAttrOfType<StringAttr>(
        RematDialect::GraphAttrHelper::getNameStr());
    if (isJointFunction(func) && func.isExternal()) {
      func->emitError() << "remat-plan: '" << func.getName()
                        << "' is marked remat.graph = \"joint\" but is a "
                           "declaration without a body; remat-plan plans a "
                           "joint function's ops: give it its body";
      return;
    }
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
  // Joint functions one module down are not this pass's (it plans the
  // module it runs on): say where they are and how to reach them.
  if (FunctionOpInterface nested = firstNestedJointFunction(module)) {
    nested->emitError()
        << "remat-plan: '" << nested.getName()
        << "' is a joint function in a nested module; remat-plan plans the "
           "functions of the module it runs on: "
        << kReachNestedModule;
    return;
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

/// Tags steer how a forward value reaches backward (saved, recomputed or
/// derived); every strategy runs each backward op once, after those
/// decisions, so a tag on a backward op changes nothing. Says so once per
/// function, at the first such op, rather than ignoring the tag silently.
void warnTagsOnBackwardOps(const ImportedGraph &imported, const Plan &plan) {
  const Graph &graph = imported.graph;
  std::optional<OpId> first;
  size_t tagged = 0;
  for (size_t op = 0; op < graph.numOps(); ++op) {
    OpId id = static_cast<OpId>(op);
    if (plan.classification.opPhase[op] != Phase::Backward ||
        tagNames(graph.op(id).tags).empty())
      continue;
    if (!first)
      first = id;
    ++tagged;
  }
  if (!first)
    return;
  Operation *op = imported.opOf[*first];
  InFlightDiagnostic warning = op->emitWarning();
  warning << "remat-plan: backward op " << op->getName();
  if (!graph.op(*first).name.empty())
    warning << " '" << graph.op(*first).name << "'";
  warning << " is tagged "
          << llvm::join(tagNames(graph.op(*first).tags), " and ")
          << ", which has no effect: tags decide how a forward value reaches "
             "backward, and each backward op runs once; tag the forward op "
             "whose result backward reads";
  if (tagged > 1)
    warning << " (" << tagged - 1 << " more backward op"
            << (tagged > 2 ? "s carry" : " carries") << " tags)";
}

void RematPlanPass::runOnOperation() {
  ModuleOp module = getOperation();
  FailureOr<PlanOptions> options = parseOptions(module.getLoc());
  if (failed(options))
    return signalPassFailure();
  FailureOr<ProgressMode> progressMode = parseProgress(module.getLoc());
  if (failed(progressMode))
    return signalPassFailure();
  // Silent in pipes and CI logs unless asked for.
  bool showProgress =
      *progressMode == ProgressMode::Always ||
      (*progressMode == ProgressMode::Auto && llvm::errs().is_displayed());

  SmallVector<FunctionOpInterface> joint;
  for (auto func : module.getOps<FunctionOpInterface>())
    if (isJointFunction(func) && !func.isExternal())
      joint.push_back(func);
  if (joint.empty()) {
    reportNoJointFunction(module);
    return signalPassFailure();
  }
  // Joint functions in nested modules are not planned here (the pass plans
  // the module it runs on): say so rather than skip them silently.
  if (FunctionOpInterface nested = firstNestedJointFunction(module))
    nested->emitWarning() << "remat-plan: '" << nested.getName()
                          << "' is a joint function in a nested module and "
                             "is not planned: "
                          << kReachNestedModule;

  PlanRequest request;
  request.policy = policy.getValue();
  request.allowInexactDerivation = allowInexactDerivation;
  request.budgetSearchEffort = budgetSearchEffort;
  request.schedulePlans = schedulePlans;
  for (FunctionOpInterface func : joint) {
    FailureOr<ImportedGraph *> imported =
        getOrBuildGraph(func, getAnalysisManager());
    if (failed(imported))
      return signalPassFailure();
    PlanOptions functionOptions = *options;
    std::optional<ProgressLine> line;
    if (showProgress) {
      line.emplace(llvm::errs(), *progressMode == ProgressMode::Always,
                   func.getName());
      functionOptions.progress = [&](const PlanProgress &progress) {
        line->update(progress);
      };
      // progress=true shows the first report at once (tests rely on it);
      // ProgressLine limits how often it draws.
      functionOptions.progressIntervalSeconds =
          *progressMode == ProgressMode::Always ? 0 : 0.1;
    }
    auto start = std::chrono::steady_clock::now();
    absl::StatusOr<Plan> plan =
        planRematerialization((*imported)->graph, functionOptions);
    if (line)
      line->finish(options->strategy,
                   std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count(),
                   plan.ok() ? &*plan : nullptr);
    if (!plan.ok()) {
      // At the op the error is about, where the core names one (before
      // 2026-12-08 every error was at the function).
      Operation *at = func;
      if (std::optional<OpId> op = errorOp(plan.status());
          op && static_cast<size_t>(*op) < (*imported)->opOf.size() &&
          (*imported)->opOf[*op])
        at = (*imported)->opOf[*op];
      at->emitError() << "remat-plan: cannot plan '" << func.getName()
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
    warnTagsOnBackwardOps(**imported, *plan);
    if (emitRemarks)
      emitDecisionRemarks(func, **imported, *plan);
  }
  // The plan only adds decision attributes, which the graph does not read:
  // remat-report and remat-partition reuse it.
  markAnalysesPreserved<JointGraphAnalysis>();
}

} // namespace
