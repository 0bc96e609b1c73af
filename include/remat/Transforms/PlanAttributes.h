//===- PlanAttributes.h - The plan as IR attributes -------------*- C++ -*-===//
//
// Part of remat. remat-plan writes a remat::Plan onto the IR as dialect
// attributes (remat.decision, remat.reason, remat.derivation, remat.plan);
// remat-partition and remat-report read it back from there, so a plan can be
// inspected, edited or checked into a test between the passes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PLANATTRIBUTES_H
#define REMAT_TRANSFORMS_PLANATTRIBUTES_H

#include "remat/Core/Planner.h"
#include "remat/Transforms/GraphBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>
#include <string>
#include <vector>

namespace remat {

/// The spelling used in the IR, the reports and remat-diff.
llvm::StringRef decisionSpelling(Decision decision);
std::optional<Decision> parseDecision(llvm::StringRef spelling);
std::optional<InverseKind> parseInverseKind(llvm::StringRef spelling);

/// What the planner was asked, recorded in `remat.plan` next to its results.
struct PlanRequest {
  std::string policy; // as written by the user, empty for none
  bool allowInexactDerivation = false;
  /// PlanOptions::budgetSearchEffort, recorded with `budget` and `optimal`
  /// plans so that a report says how to reproduce them.
  double budgetSearchEffort = 1;
  /// PlanOptions::schedulePlans, recorded likewise: `false` keeps `budget`
  /// to plans of per-value decisions, which changes both the plan and the
  /// resolved budget of a fraction.
  bool schedulePlans = true;
};

/// Writes `plan` onto the function `imported` was built from: per-result
/// decision / reason / derivation arrays on every forward op, decision and
/// reason on every argument backward reads, and the `remat.plan` summary on
/// the function. Fails (with an error on the function) if the plan lacks a
/// decision for a forward value.
/// When `unplannedAttrs` is given it receives, per OpId, the op's attribute
/// dictionary as it was without plan entries (null where the op already
/// carried some, e.g. from an earlier plan): what remat-partition restores on
/// its copies without rebuilding a dictionary.
mlir::LogicalResult
recordPlan(mlir::FunctionOpInterface func, const ImportedGraph &imported,
           const Plan &plan, const PlanRequest &request,
           std::vector<mlir::DictionaryAttr> *unplannedAttrs = nullptr);

struct RecordedDerivation {
  std::string via; // name of result 0 of the op whose inverse rule is used
  unsigned operand = 0;
  InverseKind kind = InverseKind::SubtractOther;
  std::vector<std::string> from;
  bool exact = false;
};

struct RecordedDecision {
  Decision decision = Decision::NotNeeded;
  /// The `remat.reason` text; it lives as long as the MLIRContext.
  llvm::StringRef reason;
  std::optional<RecordedDerivation> derivation;
};

/// A plan as read back from the IR.
struct RecordedPlan {
  mlir::DictionaryAttr summary;
  /// Indexed by ValueId of the graph built from the same function; empty for
  /// values without a decision (backward values, unread arguments).
  std::vector<std::optional<RecordedDecision>> decisions;
  /// Saved values in value-id order: the forward/backward interface.
  std::vector<ValueId> savedValues() const;
};

/// Reads the plan remat-plan recorded on `func`. Fails with an error on the
/// IR if the function was not planned or an attribute is malformed.
mlir::FailureOr<RecordedPlan> readPlan(mlir::FunctionOpInterface func,
                                       const ImportedGraph &imported,
                                       llvm::StringRef passName);

} // namespace remat

#endif // REMAT_TRANSFORMS_PLANATTRIBUTES_H
