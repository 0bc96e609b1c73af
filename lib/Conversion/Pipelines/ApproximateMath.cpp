//===- ApproximateMath.cpp - remat-approximate-math -----------------------===//
//
// Part of remat. Upstream's math expansions and polynomial approximations
// as a pass, for kernels that cannot call a device math library.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATAPPROXIMATEMATHPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

/// floor(x) in f32 arithmetic: truncate through i32 and step down when that
/// rounded up; |x| >= 2^23 (integral already), infinities and NaN pass
/// through. The exp/log approximations round with math.floor, which the
/// ROCDL lowering would otherwise turn into an __ocml_floor_f32 call.
struct FloorToArith : OpRewritePattern<math::FloorOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FloorOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32 is rewritten");
    Location loc = op.getLoc();
    Value x = op.getOperand();
    Type i32 = rewriter.getI32Type();
    Value truncated =
        arith::SIToFPOp::create(rewriter, loc, op.getType(),
                                arith::FPToSIOp::create(rewriter, loc, i32, x));
    Value one = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getF32FloatAttr(1.0f));
    Value roundedUp = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OGT, truncated, x);
    Value floor = arith::SelectOp::create(
        rewriter, loc, roundedUp,
        arith::SubFOp::create(rewriter, loc, truncated, one), truncated);
    Value limit = arith::ConstantOp::create(
        rewriter, loc, rewriter.getF32FloatAttr(8388608.0f)); // 2^23
    Value magnitude = math::AbsFOp::create(rewriter, loc, x);
    Value small = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::OLT, magnitude, limit);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, small, floor, x);
    return success();
  }
};

/// powf(x, y) as exp(y * log|x|) with the sign and the cases libm gives:
/// a negative base with an integral exponent (odd: negative), NaN for a
/// negative base with a fractional one, and 1 for a zero exponent (any
/// base, NaN too). Upstream's expansion computes exp(y * log x), NaN for
/// every negative base (before 2026-12-07 remat.pow on ROCDL returned NaN
/// for (-2)^2). exp and log are then approximated by the other patterns.
struct PowFToExpLog : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "only f32 is rewritten");
    Location loc = op.getLoc();
    auto constant = [&](float value) -> Value {
      Attribute scalar = rewriter.getF32FloatAttr(value);
      if (auto shaped = dyn_cast<ShapedType>(type))
        return arith::ConstantOp::create(
            rewriter, loc, type, DenseElementsAttr::get(shaped, scalar));
      return arith::ConstantOp::create(rewriter, loc, type,
                                       cast<TypedAttr>(scalar));
    };
    auto compare = [&](arith::CmpFPredicate predicate, Value a, Value b) {
      return arith::CmpFOp::create(rewriter, loc, predicate, a, b);
    };
    Value x = op.getLhs(), y = op.getRhs();
    Value magnitude = math::ExpOp::create(
        rewriter, loc,
        arith::MulFOp::create(
            rewriter, loc, y,
            math::LogOp::create(rewriter, loc,
                                math::AbsFOp::create(rewriter, loc, x))));
    Value integral = compare(arith::CmpFPredicate::OEQ,
                             math::FloorOp::create(rewriter, loc, y), y);
    Value half = arith::MulFOp::create(rewriter, loc, y, constant(0.5f));
    Value odd = arith::AndIOp::create(
        rewriter, loc, integral,
        compare(arith::CmpFPredicate::ONE,
                math::FloorOp::create(rewriter, loc, half), half));
    Value negativeBase = compare(arith::CmpFPredicate::OLT, x, constant(0.0f));
    Value signed_ = arith::SelectOp::create(
        rewriter, loc, odd, arith::NegFOp::create(rewriter, loc, magnitude),
        magnitude);
    Value forNegative = arith::SelectOp::create(
        rewriter, loc, integral, signed_,
        constant(std::numeric_limits<float>::quiet_NaN()));
    Value result = arith::SelectOp::create(rewriter, loc, negativeBase,
                                           forNegative, magnitude);
    Value zeroExponent = compare(arith::CmpFPredicate::OEQ, y, constant(0.0f));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, zeroExponent,
                                                 constant(1.0f), result);
    return success();
  }
};

struct RematApproximateMathPass final
    : impl::RematApproximateMathPassBase<RematApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PowFToExpLog>(&getContext(), /*benefit=*/2);
    math::populateExpansionPatterns(patterns, {"powf"}); // other types
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<FloorToArith>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace remat
