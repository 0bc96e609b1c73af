//===- RematInterfaces.h - PlannerOpInterface -------------------*- C++ -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H
#define REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H

#include "remat/Core/Graph.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace remat::detail {
/// Bytes of a statically shaped tensor type; 0 for other types. i1 counts one
/// byte per element, as stored.
int64_t typeBytes(mlir::Type type);
/// Sum of operand / result bytes.
int64_t operandBytes(mlir::Operation *op);
int64_t resultBytes(mlir::Operation *op);
/// Elements of a statically shaped tensor type, as a double (no int64
/// overflow: a product of dims past 2^63 wrapped to negative FLOPs before
/// 2026-12-07); 0 for other types.
double elementCount(mlir::Type type);
/// One FLOP per result element: the default for pointwise work.
double defaultFlops(mlir::Operation *op);
} // namespace remat::detail

#include "remat/Dialect/Remat/IR/RematInterfaces.h.inc"

#endif // REMAT_DIALECT_REMAT_IR_REMATINTERFACES_H
