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

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_H
