//===- RematNNOps.cpp - neural-network ops --------------------------------===//
//
// Part of remat. Verifiers and PlannerOpInterface implementations of the ops
// in RematNNOps.td.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace remat;
