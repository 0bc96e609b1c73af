//===- RematInterfaces.cpp - PlannerOpInterface ---------------------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"

#include <limits>

using namespace mlir;

namespace {
int64_t saturatingAdd(int64_t a, int64_t b) {
  if (a > std::numeric_limits<int64_t>::max() - b)
    return std::numeric_limits<int64_t>::max();
  return a + b;
}
} // namespace

int64_t remat::detail::typeBytes(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !tensorType.hasStaticShape())
    return 0;
  Type element = tensorType.getElementType();
  int64_t elementBytes =
      element.isIntOrFloat()
          ? std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8)
          : 0;
  int64_t bytes = elementBytes;
  for (int64_t dim : tensorType.getShape()) {
    if (dim != 0 && bytes > std::numeric_limits<int64_t>::max() / dim)
      return std::numeric_limits<int64_t>::max();
    bytes *= dim;
  }
  return bytes;
}

int64_t remat::detail::operandBytes(Operation *op) {
  int64_t total = 0;
  for (Type type : op->getOperandTypes())
    total = saturatingAdd(total, typeBytes(type));
  return total;
}

int64_t remat::detail::resultBytes(Operation *op) {
  int64_t total = 0;
  for (Type type : op->getResultTypes())
    total = saturatingAdd(total, typeBytes(type));
  return total;
}

double remat::detail::elementCount(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !tensorType.hasStaticShape())
    return 0.0;
  double count = 1.0;
  for (int64_t dim : tensorType.getShape())
    count *= static_cast<double>(dim);
  return count;
}

double remat::detail::defaultFlops(Operation *op) {
  double total = 0;
  for (Type type : op->getResultTypes())
    total += elementCount(type);
  return total;
}

#include "remat/Dialect/Remat/IR/RematInterfaces.cpp.inc"
