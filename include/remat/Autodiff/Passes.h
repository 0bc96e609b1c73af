//===- Passes.h - remat autodiff passes -------------------------*- C++ -*-===//
//
// Part of remat. Declarations generated from Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_AUTODIFF_PASSES_H
#define REMAT_AUTODIFF_PASSES_H

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include <memory>

namespace remat {

#define GEN_PASS_DECL
#include "remat/Autodiff/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "remat/Autodiff/Passes.h.inc"

} // namespace remat

#endif // REMAT_AUTODIFF_PASSES_H
