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
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

namespace remat {

/// Emits, at `builder`'s insertion point, the ops that recover operand
/// `recoveredOperand` of `via` through `kind`, from the copies `mapping`
/// holds of `via`'s result 0 and of its other operands, and maps that
/// operand to the recovered value. The result has
/// `via->getOperand(recoveredOperand)`'s type. remat ops are emitted when
/// `via` is a remat op, arith/math/tensor/linalg ops otherwise. Adds the
/// number of ops emitted to `numOps`. Fails with an error on `via` when the
/// rule cannot be expressed for this op.
mlir::LogicalResult emitDerivation(mlir::OpBuilder &builder,
                                   mlir::IRMapping &mapping,
                                   mlir::Operation *via,
                                   unsigned recoveredOperand, InverseKind kind,
                                   unsigned &numOps);

} // namespace remat

#endif // REMAT_TRANSFORMS_DERIVATION_H
