//===- BackwardRules.h - Per-op derivative rules ----------------*- C++ -*-===//
//
// Part of remat. Internal to lib/Autodiff: the reverse-mode rule of every
// differentiable op, used by the driver in Autodiff.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_AUTODIFF_BACKWARDRULES_H
#define REMAT_LIB_AUTODIFF_BACKWARDRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/DenseMap.h"

namespace remat::autodiff {

/// Splat zeros (`remat.constant`) of each tensor type, built once per joint
/// function at their first use; later uses come after it in the same block,
/// so one constant serves them all.
class ZeroConstants {
public:
  mlir::Value get(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Type type);

private:
  llvm::DenseMap<mlir::Type, mlir::Value> cache;
};

/// Emits, at `builder`'s insertion point, the backward ops of the forward op
/// `op`. `resultGrads[i]` is the cotangent of result `i` (null when that
/// result does not reach an output); at least one is set.
/// `operandNeedsGrad[j]` says whether operand `j` carries a gradient to a
/// differentiated argument. On success, `operandGrads` has one entry per
/// operand: the cotangent contribution (typed like the operand) or null where
/// none was asked for or none exists. On failure a diagnostic names the op.
mlir::LogicalResult
emitBackward(mlir::OpBuilder &builder, mlir::Operation *op,
             llvm::ArrayRef<mlir::Value> resultGrads,
             llvm::ArrayRef<bool> operandNeedsGrad, ZeroConstants &zeros,
             llvm::SmallVectorImpl<mlir::Value> &operandGrads);

} // namespace remat::autodiff

#endif // REMAT_LIB_AUTODIFF_BACKWARDRULES_H
