//===- ExternalModels.cpp - PlannerOpInterface for upstream ops -----------===//
//
// Part of remat. The planner's facts for upstream ops, so linalg-on-tensors
// programs from other compilers can be planned:
//   * arith and math elementwise ops: pointwise, a few FLOPs per element,
//     with the inverse rules of their remat counterparts (addf/subf/negf,
//     mulf/divf by a non-zero constant, log, widening extf);
//   * tensor.reshape / expand_shape / collapse_shape / cast / extract_slice:
//     views (no FLOPs, no traffic), reshapes invertible;
//   * tensor.empty and arith.constant: free;
//   * every linalg structured op (generic and every named one): FLOPs =
//     iterations x body ops (2*M*N*K for a matmul), classified as
//     matmul/conv (contractions, convolutions), reduction (any reduction
//     iterator) or pointwise; linalg.transpose is invertible.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/ExternalModels.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using remat::ComputeClass;
using remat::InverseKind;
using remat::InverseRule;

namespace {

/// A dense float constant with no zero, NaN or infinity: dividing by it is
/// safe, so multiplying by it can be undone.
bool isFiniteNonZeroConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return false;
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  if (dense)
    return llvm::all_of(dense.getValues<APFloat>(),
                        [](const APFloat &v) { return v.isFiniteNonZero(); });
  auto scalar = dyn_cast_or_null<FloatAttr>(attr);
  return scalar && scalar.getValue().isFiniteNonZero();
}

bool isFloatLike(Type type) {
  return isa<FloatType>(getElementTypeOrSelf(type));
}

//===----------------------------------------------------------------------===//
// Elementwise arith / math
//===----------------------------------------------------------------------===//

/// Inverse rules of an elementwise op; none by default.
template <typename OpTy>
void elementwiseInverseRules(OpTy, SmallVectorImpl<InverseRule> &) {}

/// Integer add/sub wrap modulo 2^n, so their inverses are exact; float ones
/// round.
template <typename OpTy>
void addRules(OpTy op, SmallVectorImpl<InverseRule> &rules, bool exact) {
  // c = a + a has no "other" operand to subtract.
  if (op.getLhs() == op.getRhs())
    return;
  rules.push_back({0, InverseKind::SubtractOther, {1}, exact});
  rules.push_back({1, InverseKind::SubtractOther, {0}, exact});
}
template <typename OpTy>
void subRules(OpTy op, SmallVectorImpl<InverseRule> &rules, bool exact) {
  if (op.getLhs() == op.getRhs())
    return;
  rules.push_back({0, InverseKind::AddOther, {1}, exact});
  rules.push_back({1, InverseKind::SubtractFromOther, {0}, exact});
}

template <>
void elementwiseInverseRules(arith::AddFOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  addRules(op, rules, /*exact=*/false);
}
template <>
void elementwiseInverseRules(arith::AddIOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  addRules(op, rules, /*exact=*/true);
}
template <>
void elementwiseInverseRules(arith::SubFOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  subRules(op, rules, /*exact=*/false);
}
template <>
void elementwiseInverseRules(arith::SubIOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  subRules(op, rules, /*exact=*/true);
}
template <>
void elementwiseInverseRules(arith::MulFOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  if (op.getLhs() == op.getRhs())
    return;
  if (isFiniteNonZeroConstant(op.getRhs()))
    rules.push_back({0, InverseKind::DivideByOther, {1}, false});
  if (isFiniteNonZeroConstant(op.getLhs()))
    rules.push_back({1, InverseKind::DivideByOther, {0}, false});
}
template <>
void elementwiseInverseRules(arith::DivFOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  if (op.getLhs() != op.getRhs() && isFiniteNonZeroConstant(op.getRhs()))
    rules.push_back({0, InverseKind::MultiplyByOther, {1}, false});
}
template <>
void elementwiseInverseRules(arith::NegFOp,
                             SmallVectorImpl<InverseRule> &rules) {
  rules.push_back({0, InverseKind::Negate, {}, true});
}
// math.exp: none, as for remat.exp (RematMathOps.cpp).
template <>
void elementwiseInverseRules(math::LogOp, SmallVectorImpl<InverseRule> &rules) {
  rules.push_back({0, InverseKind::Exp, {}, false});
}
template <>
void elementwiseInverseRules(arith::ExtFOp op,
                             SmallVectorImpl<InverseRule> &rules) {
  // Every narrower float is exactly representable in the wider one.
  if (isFloatLike(op.getIn().getType()))
    rules.push_back({0, InverseKind::Cast, {}, true});
}

/// Elementwise op costing `FlopsPerElement` FLOPs per result element (a
/// transcendental counts as a few, as for the remat ops).
template <typename OpTy, int FlopsPerElement>
struct ElementwiseModel : public remat::PlannerOpInterface::ExternalModel<
                              ElementwiseModel<OpTy, FlopsPerElement>, OpTy> {
  double estimateFlops(Operation *op) const {
    return FlopsPerElement * remat::detail::defaultFlops(op);
  }
  ComputeClass classifyCompute(Operation *) const {
    return ComputeClass::Pointwise;
  }
  void getInverseRules(Operation *op,
                       SmallVectorImpl<InverseRule> &rules) const {
    elementwiseInverseRules(cast<OpTy>(op), rules);
  }
};

template <int FlopsPerElement, typename... OpTys>
void attachElementwise(MLIRContext *context) {
  (OpTys::template attachInterface<ElementwiseModel<OpTys, FlopsPerElement>>(
       *context),
   ...);
}

/// No work and no traffic: constants are materialized once and tensor.empty
/// only names a shape.
template <typename OpTy>
struct FreeModel
    : public remat::PlannerOpInterface::ExternalModel<FreeModel<OpTy>, OpTy> {
  double estimateFlops(Operation *) const { return 0; }
  int64_t estimateBytesRead(Operation *) const { return 0; }
  int64_t estimateBytesWritten(Operation *) const { return 0; }
  ComputeClass classifyCompute(Operation *) const {
    return ComputeClass::Pointwise;
  }
};

//===----------------------------------------------------------------------===//
// tensor views
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct ViewModel
    : public remat::PlannerOpInterface::ExternalModel<ViewModel<OpTy>, OpTy> {
  double estimateFlops(Operation *) const { return 0; }
  int64_t estimateBytesRead(Operation *) const { return 0; }
  int64_t estimateBytesWritten(Operation *) const { return 0; }
  ComputeClass classifyCompute(Operation *) const { return ComputeClass::View; }
  bool isViewOnly(Operation *) const { return true; }
  void getInverseRules(Operation *op,
                       SmallVectorImpl<InverseRule> &rules) const {
    // A reshape keeps every element, so it can be undone exactly.
    if (isa<tensor::ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            op))
      rules.push_back({0, InverseKind::Reshape, {}, true});
  }
};

//===----------------------------------------------------------------------===//
// linalg structured ops
//===----------------------------------------------------------------------===//

template <typename OpTy>
struct LinalgModel
    : public remat::PlannerOpInterface::ExternalModel<LinalgModel<OpTy>, OpTy> {
  double estimateFlops(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    double iterations = 1;
    for (int64_t range : linalgOp.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(range))
        return remat::detail::defaultFlops(op);
      iterations *= static_cast<double>(range);
    }
    // Work per iteration: the scalar ops of the body (mul + add for a
    // matmul, giving 2*M*N*K). Copies, fills and transposes have none.
    double bodyOps = 0;
    if (Block *body = linalgOp.getBlock())
      bodyOps = static_cast<double>(body->getOperations().size()) - 1;
    return iterations * bodyOps;
  }
  ComputeClass classifyCompute(Operation *op) const {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    if (linalg::isaContractionOpInterface(linalgOp))
      return ComputeClass::Matmul;
    if (linalg::isaConvolutionOpInterface(linalgOp))
      return ComputeClass::Conv;
    if (linalgOp.getNumReductionLoops() > 0)
      return ComputeClass::Reduction;
    return ComputeClass::Pointwise;
  }
  void getInverseRules(Operation *op,
                       SmallVectorImpl<InverseRule> &rules) const {
    // A transpose moves every element once; its inverse permutation
    // restores the input exactly.
    if (isa<linalg::TransposeOp>(op))
      rules.push_back({0, InverseKind::Transpose, {}, true});
  }
};

template <typename... OpTys> void attachLinalg(MLIRContext *context) {
  (OpTys::template attachInterface<LinalgModel<OpTys>>(*context), ...);
}

} // namespace

void remat::registerPlannerExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    attachElementwise<
        1, arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
        arith::NegFOp, arith::RemFOp, arith::MaximumFOp, arith::MinimumFOp,
        arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::SubIOp,
        arith::MulIOp, arith::DivSIOp, arith::DivUIOp, arith::AndIOp,
        arith::OrIOp, arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp,
        arith::SelectOp, arith::CmpFOp, arith::CmpIOp, arith::ExtFOp,
        arith::TruncFOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp,
        arith::SIToFPOp, arith::UIToFPOp, arith::FPToSIOp, arith::FPToUIOp,
        arith::BitcastOp>(context);
    arith::ConstantOp::attachInterface<FreeModel<arith::ConstantOp>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    attachElementwise<1, math::AbsFOp, math::CopySignOp, math::FloorOp,
                      math::CeilOp, math::RoundOp>(context);
    attachElementwise<2, math::SqrtOp, math::RsqrtOp, math::FmaOp>(context);
    attachElementwise<4, math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
                      math::Log2Op, math::Log1pOp, math::SinOp, math::CosOp,
                      math::ErfOp>(context);
    attachElementwise<6, math::TanhOp>(context);
    attachElementwise<9, math::PowFOp>(context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ReshapeOp::attachInterface<ViewModel<tensor::ReshapeOp>>(*context);
    tensor::ExpandShapeOp::attachInterface<ViewModel<tensor::ExpandShapeOp>>(
        *context);
    tensor::CollapseShapeOp::attachInterface<
        ViewModel<tensor::CollapseShapeOp>>(*context);
    tensor::ExtractSliceOp::attachInterface<ViewModel<tensor::ExtractSliceOp>>(
        *context);
    tensor::CastOp::attachInterface<ViewModel<tensor::CastOp>>(*context);
    tensor::EmptyOp::attachInterface<FreeModel<tensor::EmptyOp>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    // Every structured op, named ones included (an interface cannot be
    // attached to the LinalgOp interface itself). A hand-kept list of 17
    // ops left the others, linalg.conv_2d_nhwc_fhwc and linalg.contract
    // among them, to the region-op default: class "other", about a FLOP
    // per element, so a convolution was recomputed at 1/1000 of its cost.
    attachLinalg<
#define GET_OP_LIST
#include "mlir/Dialect/Linalg/IR/LinalgStructuredOps.cpp.inc"
        >(context);
  });
}
