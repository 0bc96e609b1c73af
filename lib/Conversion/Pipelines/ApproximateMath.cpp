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
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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

struct RematApproximateMathPass final
    : impl::RematApproximateMathPassBase<RematApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    math::populateExpansionPatterns(patterns, {"powf"});
    populateMathPolynomialApproximationPatterns(patterns);
    patterns.add<FloorToArith>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace remat
