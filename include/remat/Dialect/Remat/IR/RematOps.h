//===- RematOps.h - remat operations ----------------------------*- C++ -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS_H
#define REMAT_DIALECT_REMAT_IR_REMATOPS_H

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.h.inc"

namespace remat {

/// The element type of the statistics a norm or attention op keeps for its
/// backward (mean, rstd, logsumexp) given its input's: f64 for f64, f32
/// for every other float (PyTorch's rule).
mlir::Type statsElementType(mlir::Type inputElement);

} // namespace remat

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_H
