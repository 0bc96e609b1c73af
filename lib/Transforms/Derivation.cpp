//===- Derivation.cpp - Emit the ops of an algebraic derivation -----------===//
//
// Part of remat. The inverse of each InverseKind, in remat ops for remat
// programs and in upstream ops for linalg-on-tensors programs, so the
// partitioned program stays in the dialects it came in.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Derivation.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace remat {

namespace {

StringRef kindName(InverseKind kind) {
  std::string_view name = toString(kind);
  return StringRef(name.data(), name.size());
}

/// The other operand of a binary op.
Value otherOf(ArrayRef<Value> others, unsigned recovered) {
  return others[recovered == 0 ? 1 : 0];
}

SmallVector<int64_t> inversePermutation(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [index, dim] : llvm::enumerate(permutation))
    inverse[dim] = static_cast<int64_t>(index);
  return inverse;
}

FailureOr<Value> emitRemat(OpBuilder &b, Location loc, Operation *via,
                           unsigned recovered, InverseKind kind, Value c,
                           ArrayRef<Value> others, Type type) {
  switch (kind) {
  case InverseKind::SubtractOther:
    return SubOp::create(b, loc, type, c, otherOf(others, recovered))
        .getResult();
  case InverseKind::AddOther:
    return AddOp::create(b, loc, type, c, otherOf(others, recovered))
        .getResult();
  case InverseKind::SubtractFromOther:
    return SubOp::create(b, loc, type, otherOf(others, recovered), c)
        .getResult();
  case InverseKind::DivideByOther:
    return DivOp::create(b, loc, type, c, otherOf(others, recovered))
        .getResult();
  case InverseKind::MultiplyByOther:
    return MulOp::create(b, loc, type, c, otherOf(others, recovered))
        .getResult();
  case InverseKind::DivideOtherBy:
    return DivOp::create(b, loc, type, otherOf(others, recovered), c)
        .getResult();
  case InverseKind::Negate:
    return NegOp::create(b, loc, type, c).getResult();
  case InverseKind::Log:
    return LogOp::create(b, loc, type, c).getResult();
  case InverseKind::Exp:
    return ExpOp::create(b, loc, type, c).getResult();
  case InverseKind::Reshape:
    return ReshapeOp::create(b, loc, type, c).getResult();
  case InverseKind::Cast:
    return CastOp::create(b, loc, type, c).getResult();
  case InverseKind::Transpose: {
    auto permutation = via->getAttrOfType<DenseI64ArrayAttr>("permutation");
    if (!permutation)
      break;
    return TransposeOp::create(b, loc, type, c,
                               b.getDenseI64ArrayAttr(inversePermutation(
                                   permutation.asArrayRef())))
        .getResult();
  }
  case InverseKind::LeakyReluInverse: {
    // x = y >= 0 ? y : y / alpha is leaky_relu(y) with slope 1 / alpha.
    auto alpha = via->getAttrOfType<FloatAttr>("alpha");
    if (!alpha || alpha.getValueAsDouble() <= 0)
      break;
    return LeakyReluOp::create(
               b, loc, type, c,
               b.getF64FloatAttr(1.0 / alpha.getValueAsDouble()))
        .getResult();
  }
  }
  return via->emitError() << "remat-partition: cannot emit the '"
                          << kindName(kind) << "' derivation through this op";
}

FailureOr<Value> emitUpstream(OpBuilder &b, Location loc, Operation *via,
                              unsigned recovered, InverseKind kind, Value c,
                              ArrayRef<Value> others, Type type) {
  Type element = getElementTypeOrSelf(type);
  bool isFloat = isa<FloatType>(element);
  Value other = others.size() > 1 ? otherOf(others, recovered) : Value();
  switch (kind) {
  case InverseKind::SubtractOther:
    return isFloat ? arith::SubFOp::create(b, loc, c, other).getResult()
                   : arith::SubIOp::create(b, loc, c, other).getResult();
  case InverseKind::AddOther:
    return isFloat ? arith::AddFOp::create(b, loc, c, other).getResult()
                   : arith::AddIOp::create(b, loc, c, other).getResult();
  case InverseKind::SubtractFromOther:
    return isFloat ? arith::SubFOp::create(b, loc, other, c).getResult()
                   : arith::SubIOp::create(b, loc, other, c).getResult();
  case InverseKind::DivideByOther:
    if (!isFloat)
      break;
    return arith::DivFOp::create(b, loc, c, other).getResult();
  case InverseKind::MultiplyByOther:
    return isFloat ? arith::MulFOp::create(b, loc, c, other).getResult()
                   : arith::MulIOp::create(b, loc, c, other).getResult();
  case InverseKind::DivideOtherBy:
    if (!isFloat)
      break;
    return arith::DivFOp::create(b, loc, other, c).getResult();
  case InverseKind::Negate:
    if (!isFloat)
      break;
    return arith::NegFOp::create(b, loc, c).getResult();
  case InverseKind::Log:
    return math::LogOp::create(b, loc, c).getResult();
  case InverseKind::Exp:
    return math::ExpOp::create(b, loc, c).getResult();
  case InverseKind::Reshape: {
    auto target = dyn_cast<RankedTensorType>(type);
    if (!target || !target.hasStaticShape())
      break;
    // tensor.reshape takes the shape as a 1-D tensor; works for any pair of
    // static shapes with the same element count.
    auto shapeType = RankedTensorType::get({target.getRank()}, b.getI64Type());
    Value shape = arith::ConstantOp::create(
        b, loc, DenseIntElementsAttr::get(shapeType, target.getShape()));
    return tensor::ReshapeOp::create(b, loc, target, c, shape).getResult();
  }
  case InverseKind::Transpose: {
    auto permutation = via->getAttrOfType<DenseI64ArrayAttr>("permutation");
    auto target = dyn_cast<RankedTensorType>(type);
    if (!permutation || !target)
      break;
    Value init = tensor::EmptyOp::create(b, loc, target.getShape(),
                                         target.getElementType());
    auto transpose = linalg::TransposeOp::create(
        b, loc, c, init, inversePermutation(permutation.asArrayRef()));
    return transpose->getResult(0);
  }
  case InverseKind::Cast: {
    Type from = getElementTypeOrSelf(c.getType());
    if (isa<FloatType>(from) && isFloat)
      return arith::TruncFOp::create(b, loc, type, c).getResult();
    if (isa<IntegerType>(from) && isa<IntegerType>(element))
      return arith::TruncIOp::create(b, loc, type, c).getResult();
    if (isa<FloatType>(from) && isa<IntegerType>(element))
      return arith::FPToSIOp::create(b, loc, type, c).getResult();
    break;
  }
  case InverseKind::LeakyReluInverse:
    break;
  }
  return via->emitError() << "remat-partition: cannot emit the '"
                          << kindName(kind) << "' derivation through '"
                          << via->getName()
                          << "'; save or recompute this value instead "
                             "(allow-inexact-derivation=false) or express the "
                             "op with remat ops";
}

} // namespace

LogicalResult emitDerivation(OpBuilder &builder, IRMapping &mapping,
                             Operation *via, unsigned recoveredOperand,
                             InverseKind kind, unsigned &numOps) {
  // others[recoveredOperand] is the value being recovered: not there yet.
  SmallVector<Value> others;
  for (Value operand : via->getOperands())
    others.push_back(mapping.lookupOrNull(operand));
  Value result = mapping.lookup(via->getResult(0));
  Value recovered = via->getOperand(recoveredOperand);
  Location loc = via->getLoc();
  Block *block = builder.getInsertionBlock();
  size_t before = block->getOperations().size();
  FailureOr<Value> derived =
      isa_and_nonnull<RematDialect>(via->getDialect())
          ? emitRemat(builder, loc, via, recoveredOperand, kind, result, others,
                      recovered.getType())
          : emitUpstream(builder, loc, via, recoveredOperand, kind, result,
                         others, recovered.getType());
  numOps += static_cast<unsigned>(block->getOperations().size() - before);
  if (failed(derived))
    return failure();
  mapping.map(recovered, *derived);
  return success();
}

} // namespace remat
