//===- RematMathOps.cpp - elementwise, contraction, reduction, shape ops --===//
//
// Part of remat. Verifiers and PlannerOpInterface implementations of the ops
// in RematMathOps.td.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace remat;

namespace {
double numElements(Type type) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  return tensorType && tensorType.hasStaticShape()
             ? static_cast<double>(tensorType.getNumElements())
             : 0.0;
}
} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

double AddOp::estimateFlops() { return numElements(getType()); }
remat::ComputeClass AddOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}
void AddOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  rules.push_back({0, remat::InverseKind::SubtractOther, {1}, false});
  rules.push_back({1, remat::InverseKind::SubtractOther, {0}, false});
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto lhs = getLhs().getType();
  auto rhs = getRhs().getType();
  auto result = getResult().getType();
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitOpError() << "operands must have rank >= 2, got ranks "
                         << lhs.getRank() << " and " << rhs.getRank();
  if (lhs.getRank() != rhs.getRank() || lhs.getRank() != result.getRank())
    return emitOpError() << "operands and result must have the same rank, got "
                         << lhs.getRank() << ", " << rhs.getRank() << " and "
                         << result.getRank();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != result.getElementType())
    return emitOpError() << "operands and result must have the same element "
                            "type, got "
                         << lhs.getElementType() << ", "
                         << rhs.getElementType() << " and "
                         << result.getElementType();
  int64_t rank = lhs.getRank();
  for (int64_t i = 0; i < rank - 2; ++i)
    if (lhs.getDimSize(i) != rhs.getDimSize(i) ||
        lhs.getDimSize(i) != result.getDimSize(i))
      return emitOpError() << "batch dimension " << i
                           << " differs: " << lhs.getDimSize(i) << ", "
                           << rhs.getDimSize(i) << " and "
                           << result.getDimSize(i);
  int64_t m = lhs.getDimSize(rank - (getTransposeA() ? 1 : 2));
  int64_t kl = lhs.getDimSize(rank - (getTransposeA() ? 2 : 1));
  int64_t kr = rhs.getDimSize(rank - (getTransposeB() ? 1 : 2));
  int64_t n = rhs.getDimSize(rank - (getTransposeB() ? 2 : 1));
  if (kl != kr)
    return emitOpError() << "contraction dimensions differ: lhs has " << kl
                         << ", rhs has " << kr;
  if (result.getDimSize(rank - 2) != m || result.getDimSize(rank - 1) != n)
    return emitOpError() << "result must be " << m << "x" << n
                         << " in its last two dimensions, got "
                         << result.getDimSize(rank - 2) << "x"
                         << result.getDimSize(rank - 1);
  return success();
}

double MatmulOp::estimateFlops() {
  auto lhs = getLhs().getType();
  int64_t k = lhs.getDimSize(lhs.getRank() - (getTransposeA() ? 2 : 1));
  return 2.0 * numElements(getType()) * static_cast<double>(k);
}
remat::ComputeClass MatmulOp::classifyCompute() {
  return remat::ComputeClass::Matmul;
}

