//===- ScheduleRealization.h - A plan's schedule as the program -*- C++ -*-===//
//
// Part of remat. `optimal` and `budget`'s refined schedules may evaluate an
// op more than once, or free and re-evaluate a value within forward: per-value
// decisions cannot express that. remat-plan then records the schedule on the
// joint function (`remat.schedule`), and remat-partition emits exactly that
// schedule, so the partitioned program's peak is the plan's simulated peak.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_SCHEDULEREALIZATION_H
#define REMAT_TRANSFORMS_SCHEDULEREALIZATION_H

#include "remat/Core/Planner.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/PlanAttributes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace remat {

/// Whether remat-partition, realising only `plan`'s per-value decisions
/// (forward: the ops the returned and saved values need, in graph order;
/// backward: every backward op in graph order, each preceded by the
/// depth-first recomputation or derivation of what it reads), emits exactly
/// `plan.schedule`. `gradients` are the function's gradient results in
/// return order. O(ops + operands).
bool decisionsExpressSchedule(const Graph &graph, const Plan &plan,
                              llvm::ArrayRef<ValueId> gradients);

/// Records `plan.schedule` on `func` as `remat.schedule`, with a fingerprint
/// of the function's ops, when the decisions do not express it, and removes a
/// `remat.schedule` left by an earlier plan otherwise. Only `budget` and `optimal` can produce such schedules; other
/// strategies' schedules are built from their decisions and are not
/// examined.
void recordSchedule(mlir::FunctionOpInterface func,
                    const ImportedGraph &imported, const Plan &plan);

/// One event of a recorded schedule: an op evaluation, or the derivation of
/// a value through its recorded `remat.derivation`.
struct ScheduleEvent {
  OpId op = kNoId;
  ValueId derived = kNoId;
};

/// The op `recorded` goes through (its `via`), if that op reads `value` as
/// the recorded operand; null otherwise.
mlir::Operation *derivationVia(const ImportedGraph &imported,
                               const RecordedDerivation &recorded,
                               mlir::Value value);

/// A validated `remat.schedule`.
struct RecordedSchedule {
  std::vector<ScheduleEvent> events;
  /// events[0, backwardStart) are forward, the rest backward.
  size_t backwardStart = 0;
  /// The forward -> backward interface, in value-id order: every value whose
  /// forward-part instance the backward part reads (before re-evaluating it,
  /// if it does) or returns as a gradient.
  std::vector<ValueId> saved;
};

/// Reads and validates the `remat.schedule` of `func` against the graph built
/// from it and its recorded plan; std::nullopt when there is none. `outputs`
/// and `gradients` are the function's results with those roles. A malformed
/// or stale schedule (wrong shape, a fingerprint that is not the function's,
/// an index out of range, a non-forward op in the forward part, a backward op
/// missing or repeated, a value read before it is produced, a derivation the
/// plan does not record) is an error on the function that says to re-run
/// remat-plan.
mlir::FailureOr<std::optional<RecordedSchedule>>
readSchedule(mlir::FunctionOpInterface func, const ImportedGraph &imported,
             const RecordedPlan &plan, const Classification &phases,
             llvm::ArrayRef<ValueId> outputs, llvm::ArrayRef<ValueId> gradients,
             llvm::StringRef passName);

/// Emits `events` (of a schedule readSchedule validated) at `builder`'s
/// insertion point. Each op evaluation clones the joint op through `mapping`
/// and calls `onClone(clone, op)`; each clone's results replace the earlier
/// instance in `mapping`, so later reads use the latest instance.
/// `numRecomputedOps` counts evaluations of ops already evaluated earlier in
/// the schedule or forward ops evaluated in backward, `numDerivationOps` the
/// ops derivations emit.
mlir::LogicalResult
emitScheduleEvents(mlir::OpBuilder &builder, mlir::IRMapping &mapping,
                   const ImportedGraph &imported, const RecordedPlan &plan,
                   const Classification &phases,
                   llvm::ArrayRef<ScheduleEvent> events, bool backward,
                   std::vector<uint8_t> &evaluated,
                   llvm::function_ref<void(mlir::Operation *, OpId)> onClone,
                   unsigned &numRecomputedOps, unsigned &numDerivationOps);

} // namespace remat

#endif // REMAT_TRANSFORMS_SCHEDULEREALIZATION_H
