//===- Derivation.h - Emit the ops of an algebraic derivation ---*- C++ -*-===//
//
// Part of remat. remat-partition rebuilds a derived value in backward from
// the inverse rule the planner chose, e.g. `a = c - b` for `c = a + b`.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_DERIVATION_H
#define REMAT_TRANSFORMS_DERIVATION_H

#include "remat/Core/Graph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace remat {

/// Emits, at `builder`'s insertion point, the ops that recover operand
/// `recoveredOperand` of `via` through `kind`:
///   `result` is (the backward copy of) `via`'s result 0, and
///   `others[i]` is (the backward copy of) `via`'s operand i for every
///   operand other than the recovered one (others[recoveredOperand] unused).
/// The result has `via->getOperand(recoveredOperand)`'s type. remat ops are
/// emitted when `via` is a remat op, arith/math/tensor/linalg ops otherwise.
/// Returns the number of ops emitted through `numOps`. Fails with an error on
/// `via` when the rule cannot be expressed for this op.
mlir::FailureOr<mlir::Value>
emitDerivation(mlir::OpBuilder &builder, mlir::Operation *via,
               unsigned recoveredOperand, InverseKind kind, mlir::Value result,
               llvm::ArrayRef<mlir::Value> others, unsigned &numOps);

} // namespace remat

#endif // REMAT_TRANSFORMS_DERIVATION_H
