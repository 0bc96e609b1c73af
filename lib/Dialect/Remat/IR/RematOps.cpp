//===- RematOps.cpp - remat operations ------------------------------------===//
//
// Part of remat. Verifiers and PlannerOpInterface implementations.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

#include <cmath>

using namespace mlir;
using namespace remat;


//===----------------------------------------------------------------------===//
// OpaqueOp
//===----------------------------------------------------------------------===//

LogicalResult OpaqueOp::verify() {
  if (getOpName().empty())
    return emitOpError() << "needs a non-empty op name, e.g. "
                            "remat.opaque \"my_kernel\"(...)";
  if (!remat::parseComputeClass(getComputeClass().str()))
    return emitOpError() << "has unknown compute class '"
                         << getComputeClass() << "'; expected one of "
                         << remat::allComputeClassNames().data();
  // `!(x >= 0)` catches NaN, which would make a replay look free and put
  // "nan" into the JSON report.
  if (double flops = getFlops().convertToDouble();
      !(flops >= 0) || std::isinf(flops))
    return emitOpError() << "'flops' must be a finite number >= 0";
  if ((getBytesRead() && static_cast<int64_t>(*getBytesRead()) < 0) ||
      (getBytesWritten() && static_cast<int64_t>(*getBytesWritten()) < 0))
    return emitOpError() << "'bytes_read' and 'bytes_written' must be >= 0";
  return success();
}

double OpaqueOp::estimateFlops() { return getFlops().convertToDouble(); }
int64_t OpaqueOp::estimateBytesRead() {
  return getBytesRead() ? static_cast<int64_t>(*getBytesRead())
                        : detail::operandBytes(getOperation());
}
int64_t OpaqueOp::estimateBytesWritten() {
  return getBytesWritten() ? static_cast<int64_t>(*getBytesWritten())
                           : detail::resultBytes(getOperation());
}
remat::ComputeClass OpaqueOp::classifyCompute() {
  return remat::parseComputeClass(getComputeClass().str())
      .value_or(remat::ComputeClass::Other);
}
bool OpaqueOp::drawsRandomNumbers() {
  return getRandom() ||
         classifyCompute() == remat::ComputeClass::Random;
}
bool OpaqueOp::isViewOnly() {
  return getView() || classifyCompute() == remat::ComputeClass::View;
}

#define GET_OP_CLASSES
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
