//===- AttentionPatterns.cpp - sdpa and its backward to linalg ------------===//
//
// Part of remat. Scaled-dot-product attention decomposed into contractions
// and a numerically stable softmax: scores = q k^T (f32), masked and
// scaled, row max, log-sum-exp, probabilities exp(s - lse), then P v. The
// backward recomputes P from the saved logsumexp (as flash attention does)
// and forms dV = P^T dO, dS = P (dO v^T - rowsum(dO o)), dQ = scale dS k,
// dK = scale dS^T q, summing over the query heads of a group for grouped-
// query attention. The kernels materialize the Sq x Skv matrices: this is a
// reference lowering, not a flash kernel (docs/Lowering.md).
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;

namespace remat::lowering {
namespace {

Value f(OpBuilder &b, Location loc, Value x) {
  return LoweringBuilder::toF32(b, loc, x);
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(value)));
}

/// Shapes of one attention op: q [B, Hq, Sq, D], k [B, Hkv, Skv, D],
/// v [B, Hkv, Skv, Dv]; `group` query heads share one key/value head.
struct AttentionShape {
  int64_t batch, queryHeads, kvHeads, queryLength, kvLength, headDim, valueDim,
      group;

  AttentionShape(Value query, Value key, Value value) {
    ArrayRef<int64_t> q = shapeOf(query), k = shapeOf(key), v = shapeOf(value);
    batch = q[0];
    queryHeads = q[1];
    queryLength = q[2];
    headDim = q[3];
    kvHeads = k[1];
    kvLength = k[2];
    valueDim = v[3];
    group = queryHeads / kvHeads;
  }
};

/// The key/value head of query head `h`: h floordiv group.
AffineExpr kvHead(AffineExpr h, int64_t group) {
  return group == 1 ? h : h.floorDiv(group);
}

/// Scaled, masked scores followed by a caller-provided step: returns
/// `scale * (q k^T)` with causal masking (-inf where key j > query i);
/// `indices` are the iteration space's, query at 2 and key at 3.
Value maskedScore(OpBuilder &b, Location loc, Value rawScore, double scale,
                  bool causal, ValueRange indices) {
  Value scaled = mul(b, loc, rawScore, constant(b, loc, scale));
  if (!causal)
    return scaled;
  Value i = indices[2];
  Value j = indices[3];
  Value masked = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, j, i);
  return arith::SelectOp::create(
      b, loc, masked,
      constant(b, loc, -std::numeric_limits<double>::infinity()), scaled);
}

/// Raw scores q k^T, f32 [B, Hq, Sq, Skv].
Value rawScores(LoweringBuilder &lb, const AttentionShape &s, Value query,
                Value key) {
  // Loops: b, h, i, j, d.
  AffineExpr b = lb.dim(0), h = lb.dim(1), i = lb.dim(2), j = lb.dim(3),
             d = lb.dim(4);
  return lb.reduce(
      {s.batch, s.queryHeads, s.queryLength, s.kvLength, s.headDim}, {4},
      ReduceKind::Sum, {query, key},
      {lb.map(5, {b, h, i, d}), lb.map(5, {b, kvHead(h, s.group), j, d})},
      [](OpBuilder &builder, Location loc, ValueRange args, ValueRange) {
        return mul(builder, loc, f(builder, loc, args[0]),
                   f(builder, loc, args[1]));
      });
}

/// Probabilities exp(masked score - lse), f32 [B, Hq, Sq, Skv].
Value probabilities(LoweringBuilder &lb, const AttentionShape &s, Value scores,
                    Value logSumExp, double scale, bool causal) {
  SmallVector<int64_t> shape{s.batch, s.queryHeads, s.queryLength, s.kvLength};
  return lb.map(
      shape, lb.b.getF32Type(), {scores, logSumExp},
      {lb.identity(4), lb.select(4, {0, 1, 2})},
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        SmallVector<Value> indices;
        for (unsigned d = 0; d < 4; ++d)
          indices.push_back(linalg::IndexOp::create(b, loc, d));
        Value score = maskedScore(b, loc, args[0], scale, causal, indices);
        return math::ExpOp::create(b, loc, sub(b, loc, score, args[1]));
      });
}

class SdpaPattern : public OpConversionPattern<SdpaOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SdpaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value query = adaptor.getQuery(), key = adaptor.getKey(),
          value = adaptor.getValue();
    AttentionShape s(query, key, value);
    double scale = op.getScale().convertToDouble();
    bool causal = op.getCausal();
    SmallVector<int64_t> scoreShape{s.batch, s.queryHeads, s.queryLength,
                                    s.kvLength};
    Value scores = rawScores(lb, s, query, key);
    AffineMap id4 = lb.identity(4), rowMap = lb.select(4, {0, 1, 2});
    // Numerically stable log-sum-exp: m = max_j s, lse = m + log sum exp(s -
    // m).
    Value max = lb.reduce(
        scoreShape, {3}, ReduceKind::Max, {scores}, {id4},
        [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
          return maskedScore(b, loc, args[0], scale, causal, indices);
        });
    Value sum = lb.reduce(
        scoreShape, {3}, ReduceKind::Sum, {scores, max}, {id4, rowMap},
        [&](OpBuilder &b, Location loc, ValueRange args,
            ValueRange indices) -> Value {
          Value score = maskedScore(b, loc, args[0], scale, causal, indices);
          return math::ExpOp::create(b, loc, sub(b, loc, score, args[1]));
        });
    SmallVector<int64_t> rowShape{s.batch, s.queryHeads, s.queryLength};
    Value logSumExp =
        lb.map(rowShape, rewriter.getF32Type(), {max, sum},
               {lb.identity(3), lb.identity(3)},
               [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                 return arith::AddFOp::create(
                     b, loc, args[0], math::LogOp::create(b, loc, args[1]));
               });
    Value probs = probabilities(lb, s, scores, logSumExp, scale, causal);
    // Output: loops b, h, i, e, j.
    AffineExpr b = lb.dim(0), h = lb.dim(1), i = lb.dim(2), e = lb.dim(3),
               j = lb.dim(4);
    Value output = lb.reduce(
        {s.batch, s.queryHeads, s.queryLength, s.valueDim, s.kvLength}, {4},
        ReduceKind::Sum, {probs, value},
        {lb.map(5, {b, h, i, j}), lb.map(5, {b, kvHead(h, s.group), j, e})},
        [](OpBuilder &builder, Location loc, ValueRange args, ValueRange) {
          return mul(builder, loc, args[0], f(builder, loc, args[1]));
        },
        elementTypeOf(query));
    rewriter.replaceOp(op, {output, logSumExp});
    return success();
  }
};

class SdpaBackwardPattern : public OpConversionPattern<SdpaBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SdpaBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value grad = adaptor.getGrad(), query = adaptor.getQuery(),
          key = adaptor.getKey(), value = adaptor.getValue(),
          output = adaptor.getOutput(), logSumExp = adaptor.getLogsumexp();
    AttentionShape s(query, key, value);
    double scale = op.getScale().convertToDouble();
    bool causal = op.getCausal();
    SmallVector<int64_t> scoreShape{s.batch, s.queryHeads, s.queryLength,
                                    s.kvLength};
    Value probs = probabilities(lb, s, rawScores(lb, s, query, key), logSumExp,
                                scale, causal);
    auto product = [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
      return mul(b, loc, f(b, loc, args[0]), f(b, loc, args[1]));
    };

    // dP[b,h,i,j] = sum_e dO[b,h,i,e] v[b,kv(h),j,e]; loops b, h, i, j, e.
    AffineExpr d0 = lb.dim(0), d1 = lb.dim(1), d2 = lb.dim(2), d3 = lb.dim(3),
               d4 = lb.dim(4), d5 = lb.dim(5);
    Value gradProbs = lb.reduce(
        {s.batch, s.queryHeads, s.queryLength, s.kvLength, s.valueDim}, {4},
        ReduceKind::Sum, {grad, value},
        {lb.map(5, {d0, d1, d2, d4}),
         lb.map(5, {d0, kvHead(d1, s.group), d3, d4})},
        product);
    // D[b,h,i] = sum_e dO o.
    Value rowDot = lb.reduce({s.batch, s.queryHeads, s.queryLength, s.valueDim},
                             {3}, ReduceKind::Sum, {grad, output},
                             {lb.identity(4), lb.identity(4)}, product);
    // dS = scale * P * (dP - D).
    Value gradScores = lb.map(
        scoreShape, rewriter.getF32Type(), {probs, gradProbs, rowDot},
        {lb.identity(4), lb.identity(4), lb.select(4, {0, 1, 2})},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          return mul(b, loc, constant(b, loc, scale),
                     mul(b, loc, args[0], sub(b, loc, args[1], args[2])));
        });
    // dQ[b,h,i,d] = sum_j dS[b,h,i,j] k[b,kv(h),j,d]; loops b, h, i, d, j.
    Value gradQuery =
        lb.reduce({s.batch, s.queryHeads, s.queryLength, s.headDim, s.kvLength},
                  {4}, ReduceKind::Sum, {gradScores, key},
                  {lb.map(5, {d0, d1, d2, d4}),
                   lb.map(5, {d0, kvHead(d1, s.group), d4, d3})},
                  product, elementTypeOf(query));
    // dK[b,g,j,d] = sum_{h in group g, i} dS[b,h,i,j] q[b,h,i,d] and
    // dV[b,g,j,e] = sum_{h, i} P[b,h,i,j] dO[b,h,i,e]; loops b, g, j, d,
    // r, i with the query head h = g * group + r.
    AffineExpr head = d1 * s.group + d4;
    Value gradKey = lb.reduce(
        {s.batch, s.kvHeads, s.kvLength, s.headDim, s.group, s.queryLength},
        {4, 5}, ReduceKind::Sum, {gradScores, query},
        {lb.map(6, {d0, head, d5, d2}), lb.map(6, {d0, head, d5, d3})}, product,
        elementTypeOf(key));
    Value gradValue = lb.reduce(
        {s.batch, s.kvHeads, s.kvLength, s.valueDim, s.group, s.queryLength},
        {4, 5}, ReduceKind::Sum, {probs, grad},
        {lb.map(6, {d0, head, d5, d2}), lb.map(6, {d0, head, d5, d3})}, product,
        elementTypeOf(value));
    rewriter.replaceOp(op, {gradQuery, gradKey, gradValue});
    return success();
  }
};

} // namespace

void populateAttentionPatterns(RewritePatternSet &patterns) {
  patterns.add<SdpaPattern, SdpaBackwardPattern>(patterns.getContext());
}

} // namespace remat::lowering
