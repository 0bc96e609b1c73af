//===- RematDialect.h - remat dialect ---------------------------*- C++ -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "remat/Dialect/Remat/IR/RematOpsDialect.h.inc"

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_H
