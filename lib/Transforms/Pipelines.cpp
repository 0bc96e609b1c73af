//===- Pipelines.cpp - remat pass pipelines -------------------------------===//
//
// Part of remat. The one place where remat's passes are composed.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "OptionText.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace remat {

void buildRematPipeline(OpPassManager &pm,
                        const RematPipelineOptions &options) {
  RematPlanPassOptions plan;
  plan.strategy = options.strategy;
  plan.memoryBudget = options.memoryBudget;
  plan.target = options.target;
  plan.targetFile = options.targetFile;
  plan.policy = options.policy;
  plan.allowInexactDerivation = options.allowInexactDerivation;
  plan.recomputeBanned = options.recomputeBanned;
  plan.exchangeRate = options.exchangeRate;
  plan.lowerBoundTimeLimit = options.lowerBoundTimeLimit;
  plan.budgetSearchEffort = options.budgetSearchEffort;
  plan.optimalTimeLimit = options.optimalTimeLimit;
  plan.schedulePlans = options.schedulePlans;
  plan.decisionGroups = options.decisionGroups;
  plan.emitRemarks = options.emitRemarks;
  plan.progress = options.progress;
  pm.addPass(createRematPlanPass(plan));
  // The report reads the plan off the joint function, which partitioning
  // replaces, so it runs in between.
  if (!options.report.empty()) {
    RematReportPassOptions report;
    report.format = options.reportFormat;
    report.output = options.report;
    pm.addPass(createRematReportPass(report));
  }
  RematPartitionPassOptions partition;
  partition.keepJoint = options.keepJoint;
  partition.passViewStorage = options.passViewStorage;
  pm.addPass(createRematPartitionPass(partition));
}

void registerRematPipelines() {
  // PassPipelineRegistration<RematPipelineOptions>, with the option text
  // checked first (an option given twice, target= with target-file=).
  registerPassPipeline(
      "remat-pipeline",
      "Plan every joint function (remat-plan), optionally write the report "
      "(report=FILE), and split it into forward and backward functions "
      "(remat-partition)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        std::string known;
        llvm::raw_string_ostream knownStream(known);
        RematPipelineOptions().print(knownStream);
        if (failed(checkOptionText("remat-pipeline", text, known,
                                   {{"target", "target-file"}}, errorHandler)))
          return failure();
        RematPipelineOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        // Checked here so that the error names this pipeline's option, not
        // remat-report's format=.
        if (options.reportFormat != "json" && options.reportFormat != "text")
          return errorHandler("remat-pipeline: bad option report-format=" +
                              options.reportFormat + ": expected json or text");
        buildRematPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> handler) {
        handler(RematPipelineOptions());
      });
}

} // namespace remat
