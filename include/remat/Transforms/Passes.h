//===- Passes.h - remat passes ----------------------------------*- C++ -*-===//
//
// Part of remat. Declarations generated from Passes.td, plus the
// `remat-pipeline` composition (lib/Transforms/Pipelines.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_H
#define REMAT_TRANSFORMS_PASSES_H

#include "remat/Core/Planner.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <string>

namespace remat {

#define GEN_PASS_DECL
#include "remat/Transforms/Passes.h.inc"

/// Options of `remat-pipeline`: the options of `remat-plan`, plus where to
/// write the report (none when `report` is empty).
struct RematPipelineOptions
    : public mlir::PassPipelineOptions<RematPipelineOptions> {
  Option<std::string> strategy{*this, "strategy",
                               llvm::cl::desc("Planning strategy: save-all, "
                                              "recompute-all, min-cut, budget "
                                              "or optimal"),
                               llvm::cl::init("min-cut")};
  Option<std::string> memoryBudget{
      *this, "memory-budget",
      llvm::cl::desc("Memory budget for budget and optimal: "
                     "total:<bytes> bounds the total peak (bare bytes do "
                     "too, with a warning), activations:<bytes> the "
                     "activation peak (KiB/MiB/GiB suffixes), a fraction "
                     "like 0.5, or 0.8peak"),
      llvm::cl::init("")};
  Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Cost-model preset: h100, h200, a100, mi300x or cpu"),
      llvm::cl::init("h100")};
  Option<std::string> targetFile{
      *this, "target-file",
      llvm::cl::desc("JSON file overriding fields of a target preset"),
      llvm::cl::init("")};
  Option<std::string> policy{
      *this, "policy",
      llvm::cl::desc("Name policy, e.g. save_only_these_names:query_proj"),
      llvm::cl::init("")};
  Option<bool> allowInexactDerivation{
      *this, "allow-inexact-derivation",
      llvm::cl::desc("Allow floating-point derivations"),
      llvm::cl::init(false)};
  Option<std::string> recomputeBanned{
      *this, "recompute-banned",
      llvm::cl::desc("never or allow: let budget recompute matmul, conv and "
                     "attention values when nothing else fits"),
      llvm::cl::init("never")};
  Option<bool> schedulePlans{
      *this, "schedule-plans",
      llvm::cl::desc("budget: allow plans only a recorded schedule "
                     "expresses (false: per-value decisions only)"),
      llvm::cl::init(true)};
  Option<std::string> decisionGroups{
      *this, "decision-groups",
      llvm::cl::desc("budget with schedule-plans=false: groups of value "
                     "names saved or recomputed as a whole (a,a.1;b,b.1)"),
      llvm::cl::init("")};
  Option<std::string> exchangeRate{
      *this, "exchange-rate",
      llvm::cl::desc("min-cut: bytes one microsecond of recompute time is "
                     "worth (0: bytes alone; empty: the target's)"),
      llvm::cl::init("")};
  Option<double> lowerBoundTimeLimit{
      *this, "lower-bound-time-limit",
      llvm::cl::desc("budget: seconds for the lower bound's LP (0: the "
                     "evaluate-once bound alone)"),
      llvm::cl::init(kDefaultLowerBoundTimeLimitSeconds)};
  Option<double> budgetSearchEffort{
      *this, "budget-search-effort",
      llvm::cl::desc("budget: multiplies the schedule search's work limits "
                     "(more: lower peaks on large graphs, more time)"),
      llvm::cl::init(1)};
  Option<double> optimalTimeLimit{
      *this, "optimal-time-limit",
      llvm::cl::desc("optimal: seconds for the MILP (then the best plan "
                     "found, with its bound)"),
      llvm::cl::init(kDefaultOptimalTimeLimitSeconds)};
  Option<bool> emitRemarks{*this, "emit-remarks",
                           llvm::cl::desc("Emit every decision as a remark"),
                           llvm::cl::init(false)};
  Option<std::string> progress{
      *this, "progress",
      llvm::cl::desc("Planning progress on stderr: auto (on a terminal, "
                     "after a second), true or false"),
      llvm::cl::init("auto")};
  Option<std::string> report{
      *this, "report",
      llvm::cl::desc("Also write the plan report to this file (- for "
                     "stdout); no report when empty"),
      llvm::cl::init("")};
  Option<std::string> reportFormat{
      *this, "report-format",
      llvm::cl::desc("Format of the report: json or text"),
      llvm::cl::init("json")};
  Option<bool> keepJoint{*this, "keep-joint",
                         llvm::cl::desc("remat-partition: keep the planned "
                                        "joint function next to the "
                                        "forward/backward pair"),
                         llvm::cl::init(false)};
  Option<bool> passViewStorage{
      *this, "pass-view-storage",
      llvm::cl::desc("remat-partition: pass a saved view as the storage it "
                     "views and re-create it in backward; false passes the "
                     "view itself"),
      llvm::cl::init(true)};
};

/// remat-plan, then remat-report when `options.report` is set (it reads the
/// joint function, so it runs before partitioning), then remat-partition.
void buildRematPipeline(mlir::OpPassManager &pm,
                        const RematPipelineOptions &options);

/// Writes what `remat-report` writes for every planned joint function of
/// `module` to `os` (`format` is json or text), for embedders that want the
/// report in memory (the Python bindings). `analyses` is the module's
/// analysis manager (a pass's, or a ModuleAnalysisManager's); a graph cached
/// there by remat-plan is reused. Errors are emitted on the module.
mlir::LogicalResult writeRematReport(mlir::ModuleOp module,
                                     mlir::AnalysisManager analyses,
                                     llvm::StringRef format,
                                     llvm::raw_ostream &os);

/// Registers `remat-pipeline`.
void registerRematPipelines();

#define GEN_PASS_REGISTRATION
#include "remat/Transforms/Passes.h.inc"

} // namespace remat

#endif // REMAT_TRANSFORMS_PASSES_H
