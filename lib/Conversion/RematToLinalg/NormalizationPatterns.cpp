//===- NormalizationPatterns.cpp - softmax, norms, cross-entropy ----------===//
//
// Part of remat. Each op becomes a few generics: f32 reductions for the
// statistics (max-subtracted log-sum-exp for softmax and cross-entropy,
// two-pass mean and biased variance for the norms) and one map that applies
// them. The backward ops use the statistics the forward op returned.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace remat::lowering {
namespace {

Value f(OpBuilder &b, Location loc, Value x) {
  return LoweringBuilder::toF32(b, loc, x);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value sub(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::SubFOp::create(b, loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value div(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::DivFOp::create(b, loc, x, y);
}
Value exp(OpBuilder &b, Location loc, Value x) {
  return math::ExpOp::create(b, loc, x);
}
Value constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(value)));
}

//===----------------------------------------------------------------------===//
// Softmax family
//===----------------------------------------------------------------------===//

/// max and sum(exp(x - max)) along `dim`, both f32 without that dimension.
std::pair<Value, Value> softmaxStatistics(LoweringBuilder &lb, Value input,
                                          int64_t dim) {
  ArrayRef<int64_t> shape = shapeOf(input);
  unsigned rank = shape.size();
  Value max =
      lb.reduce(shape, {dim}, ReduceKind::Max, {input}, {lb.identity(rank)},
                [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
                  return f(b, loc, args[0]);
                });
  Value sum =
      lb.reduce(shape, {dim}, ReduceKind::Sum, {input, max},
                {lb.identity(rank), lb.drop(rank, {dim})},
                [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
                  return exp(b, loc, sub(b, loc, f(b, loc, args[0]), args[1]));
                });
  return {max, sum};
}

template <typename OpTy>
class SoftmaxPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    int64_t dim = op.getDim();
    unsigned rank = type.getRank();
    auto [max, sum] = softmaxStatistics(lb, adaptor.getInput(), dim);
    constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxOp>;
    Value result = lb.map(
        type.getShape(), type.getElementType(), {adaptor.getInput(), max, sum},
        {lb.identity(rank), lb.drop(rank, {dim}), lb.drop(rank, {dim})},
        [](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value shifted = sub(b, loc, f(b, loc, args[0]), args[1]);
          if (isLog)
            return sub(b, loc, shifted, math::LogOp::create(b, loc, args[2]));
          return div(b, loc, exp(b, loc, shifted), args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy>
class SoftmaxBackwardPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t dim = op.getDim();
    unsigned rank = type.getRank();
    constexpr bool isLog = std::is_same_v<OpTy, LogSoftmaxBackwardOp>;
    Value grad = adaptor.getGrad(), output = adaptor.getOutput();
    // softmax: sum(gy * y); log_softmax: sum(gy).
    Value sum =
        lb.reduce(shape, {dim}, ReduceKind::Sum, {grad, output},
                  {lb.identity(rank), lb.identity(rank)},
                  [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
                    Value g = f(b, loc, args[0]);
                    if (isLog)
                      return g;
                    return mul(b, loc, g, f(b, loc, args[1]));
                  });
    Value result =
        lb.map(shape, type.getElementType(), {grad, output, sum},
               {lb.identity(rank), lb.identity(rank), lb.drop(rank, {dim})},
               [](OpBuilder &b, Location loc, ValueRange args) -> Value {
                 Value g = f(b, loc, args[0]), y = f(b, loc, args[1]);
                 if (isLog)
                   return sub(b, loc, g, mul(b, loc, exp(b, loc, y), args[2]));
                 return mul(b, loc, y, sub(b, loc, g, args[2]));
               });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Norms
//===----------------------------------------------------------------------===//

/// Where a norm takes its statistics and where its weight lives, as
/// dimensions of the input: rmsnorm and layernorm reduce over (and weight)
/// the trailing dimensions, batchnorm reduces over all but dimension 1 and
/// weights dimension 1.
struct NormLayout {
  SmallVector<int64_t> reduced;    // statistics reduce over these
  SmallVector<int64_t> statistics; // complement of `reduced`
  SmallVector<int64_t> weighted;   // dimensions the weight spans
  SmallVector<int64_t> unweighted; // complement: weight gradients sum here
  double count = 1.0;              // elements per statistic

  static NormLayout trailing(ArrayRef<int64_t> shape, unsigned weightRank) {
    NormLayout layout;
    unsigned rank = shape.size();
    for (unsigned d = rank - weightRank; d < rank; ++d)
      layout.reduced.push_back(d);
    layout.weighted = layout.reduced;
    layout.finish(shape);
    return layout;
  }
  static NormLayout channels(ArrayRef<int64_t> shape) {
    NormLayout layout;
    layout.reduced = complement(shape.size(), {1});
    layout.weighted = {1};
    layout.finish(shape);
    return layout;
  }
  void finish(ArrayRef<int64_t> shape) {
    statistics = complement(shape.size(), reduced);
    unweighted = complement(shape.size(), weighted);
    for (int64_t d : reduced)
      count *= static_cast<double>(shape[d]);
  }
};

/// mean (f32 over the statistics dimensions) and rstd = 1/sqrt(var + eps)
/// with the biased variance, two-pass. Without `centered` (rmsnorm) the
/// mean is not subtracted and only rstd = 1/sqrt(mean(x^2) + eps) is built.
std::pair<Value, Value> normStatistics(LoweringBuilder &lb, Value input,
                                       const NormLayout &layout, double eps,
                                       bool centered) {
  ArrayRef<int64_t> shape = shapeOf(input);
  unsigned rank = shape.size();
  AffineMap statMap = lb.select(rank, layout.statistics);
  SmallVector<int64_t> statShape = dropDims(shape, layout.reduced);
  unsigned statRank = statShape.size();
  Value mean;
  if (centered) {
    Value sum = lb.reduce(shape, layout.reduced, ReduceKind::Sum, {input},
                          {lb.identity(rank)},
                          [](OpBuilder &b, Location loc, ValueRange args,
                             ValueRange) { return f(b, loc, args[0]); });
    mean = lb.map(statShape, lb.b.getF32Type(), {sum}, {lb.identity(statRank)},
                  [&](OpBuilder &b, Location loc, ValueRange args) {
                    return div(b, loc, args[0], constant(b, loc, layout.count));
                  });
  }
  SmallVector<Value> inputs{input};
  SmallVector<AffineMap> maps{lb.identity(rank)};
  if (centered) {
    inputs.push_back(mean);
    maps.push_back(statMap);
  }
  Value squares =
      lb.reduce(shape, layout.reduced, ReduceKind::Sum, inputs, maps,
                [&](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
                  Value x = f(b, loc, args[0]);
                  if (centered)
                    x = sub(b, loc, x, args[1]);
                  return mul(b, loc, x, x);
                });
  Value rstd =
      lb.map(statShape, lb.b.getF32Type(), {squares}, {lb.identity(statRank)},
             [&](OpBuilder &b, Location loc, ValueRange args) {
               Value variance =
                   div(b, loc, args[0], constant(b, loc, layout.count));
               Value shifted = add(b, loc, variance, constant(b, loc, eps));
               return div(b, loc, constant(b, loc, 1.0),
                          math::SqrtOp::create(b, loc, shifted));
             });
  return {mean, rstd};
}

class RmsNormPattern : public OpConversionPattern<RmsNormOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    unsigned rank = shape.size();
    NormLayout layout =
        NormLayout::trailing(shape, shapeOf(adaptor.getWeight()).size());
    auto [mean, rstd] = normStatistics(
        lb, input, layout, op.getEps().convertToDouble(), /*centered=*/false);
    (void)mean;
    Value result =
        lb.map(shape, elementTypeOf(input), {input, rstd, adaptor.getWeight()},
               {lb.identity(rank), lb.select(rank, layout.statistics),
                lb.select(rank, layout.weighted)},
               [](OpBuilder &b, Location loc, ValueRange args) {
                 return mul(b, loc, mul(b, loc, f(b, loc, args[0]), args[1]),
                            f(b, loc, args[2]));
               });
    SmallVector<Value> results{result};
    if (op.getRstd())
      results.push_back(rstd);
    rewriter.replaceOp(op, results);
    return success();
  }
};

class RmsNormBackwardPattern : public OpConversionPattern<RmsNormBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(RmsNormBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value grad = adaptor.getGrad(), input = adaptor.getInput(),
          weight = adaptor.getWeight(), rstd = adaptor.getRstd();
    ArrayRef<int64_t> shape = shapeOf(input);
    unsigned rank = shape.size();
    NormLayout layout = NormLayout::trailing(shape, shapeOf(weight).size());
    AffineMap id = lb.identity(rank);
    AffineMap statMap = lb.select(rank, layout.statistics);
    AffineMap weightMap = lb.select(rank, layout.weighted);
    // y = x * r * w with r = (mean(x^2) + eps)^-1/2, dr/dx = -r^3 x / N:
    //   gx = r * (gy w) - x * r^3 / N * sum(gy w x),  gw = sum(gy x r).
    Value dot = lb.reduce(
        shape, layout.reduced, ReduceKind::Sum, {grad, input, weight},
        {id, id, weightMap},
        [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return mul(b, loc,
                     mul(b, loc, f(b, loc, args[0]), f(b, loc, args[2])),
                     f(b, loc, args[1]));
        });
    double count = layout.count;
    Value gradInput =
        lb.map(shape, elementTypeOf(input), {grad, input, weight, rstd, dot},
               {id, id, weightMap, statMap, statMap},
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 Value gw = mul(b, loc, f(b, loc, args[0]), f(b, loc, args[2]));
                 Value r = args[3];
                 Value r3 = mul(b, loc, mul(b, loc, r, r), r);
                 Value correction =
                     mul(b, loc, mul(b, loc, f(b, loc, args[1]), r3),
                         div(b, loc, args[4], constant(b, loc, count)));
                 return sub(b, loc, mul(b, loc, r, gw), correction);
               });
    Value gradWeight = lb.reduce(
        shape, layout.unweighted, ReduceKind::Sum, {grad, input, rstd},
        {id, id, statMap},
        [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return mul(b, loc,
                     mul(b, loc, f(b, loc, args[0]), f(b, loc, args[1])),
                     args[2]);
        },
        elementTypeOf(weight));
    rewriter.replaceOp(op, {gradInput, gradWeight});
    return success();
  }
};

/// layernorm and batchnorm: y = (x - mean) * rstd * w + b.
template <typename OpTy>
class AffineNormPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    unsigned rank = shape.size();
    NormLayout layout =
        std::is_same_v<OpTy, BatchNormOp>
            ? NormLayout::channels(shape)
            : NormLayout::trailing(shape, shapeOf(adaptor.getWeight()).size());
    auto [mean, rstd] = normStatistics(
        lb, input, layout, op.getEps().convertToDouble(), /*centered=*/true);
    AffineMap statMap = lb.select(rank, layout.statistics);
    AffineMap weightMap = lb.select(rank, layout.weighted);
    Value result =
        lb.map(shape, elementTypeOf(input),
               {input, mean, rstd, adaptor.getWeight(), adaptor.getBias()},
               {lb.identity(rank), statMap, statMap, weightMap, weightMap},
               [](OpBuilder &b, Location loc, ValueRange args) {
                 Value normalized = mul(
                     b, loc, sub(b, loc, f(b, loc, args[0]), args[1]), args[2]);
                 return add(b, loc, mul(b, loc, normalized, f(b, loc, args[3])),
                            f(b, loc, args[4]));
               });
    rewriter.replaceOp(op, {result, mean, rstd});
    return success();
  }
};

template <typename OpTy>
class AffineNormBackwardPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value grad = adaptor.getGrad(), input = adaptor.getInput(),
          weight = adaptor.getWeight();
    Value mean = adaptor.getOperands()[3], rstd = adaptor.getOperands()[4];
    ArrayRef<int64_t> shape = shapeOf(input);
    unsigned rank = shape.size();
    NormLayout layout =
        std::is_same_v<OpTy, BatchNormBackwardOp>
            ? NormLayout::channels(shape)
            : NormLayout::trailing(shape, shapeOf(weight).size());
    AffineMap id = lb.identity(rank);
    AffineMap statMap = lb.select(rank, layout.statistics);
    AffineMap weightMap = lb.select(rank, layout.weighted);
    auto xhat = [](OpBuilder &b, Location loc, Value x, Value m, Value r) {
      return mul(b, loc, sub(b, loc, f(b, loc, x), m), r);
    };
    // With xhat = (x - mean) * rstd and g = gy * w:
    //   gx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
    //   gw = sum(gy * xhat), gb = sum(gy) over the unweighted dimensions.
    Value sumG = lb.reduce(
        shape, layout.reduced, ReduceKind::Sum, {grad, weight}, {id, weightMap},
        [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return mul(b, loc, f(b, loc, args[0]), f(b, loc, args[1]));
        });
    Value sumGXhat = lb.reduce(
        shape, layout.reduced, ReduceKind::Sum,
        {grad, weight, input, mean, rstd},
        {id, weightMap, id, statMap, statMap},
        [&](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          Value g = mul(b, loc, f(b, loc, args[0]), f(b, loc, args[1]));
          return mul(b, loc, g, xhat(b, loc, args[2], args[3], args[4]));
        });
    double count = layout.count;
    Value gradInput =
        lb.map(shape, elementTypeOf(input),
               {grad, weight, input, mean, rstd, sumG, sumGXhat},
               {id, weightMap, id, statMap, statMap, statMap, statMap},
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 Value g = mul(b, loc, f(b, loc, args[0]), f(b, loc, args[1]));
                 Value xh = xhat(b, loc, args[2], args[3], args[4]);
                 Value n = constant(b, loc, count);
                 Value centered = sub(b, loc, g, div(b, loc, args[5], n));
                 Value projected = mul(b, loc, xh, div(b, loc, args[6], n));
                 return mul(b, loc, args[4], sub(b, loc, centered, projected));
               });
    Type weightElement = elementTypeOf(weight);
    Value gradWeight = lb.reduce(
        shape, layout.unweighted, ReduceKind::Sum, {grad, input, mean, rstd},
        {id, id, statMap, statMap},
        [&](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return mul(b, loc, f(b, loc, args[0]),
                     xhat(b, loc, args[1], args[2], args[3]));
        },
        weightElement);
    Value gradBias = lb.reduce(
        shape, layout.unweighted, ReduceKind::Sum, {grad}, {id},
        [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return f(b, loc, args[0]);
        },
        weightElement);
    rewriter.replaceOp(op, {gradInput, gradWeight, gradBias});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

/// Per-row log-sum-exp of [N, C] logits, f32 [N].
Value rowLogSumExp(LoweringBuilder &lb, Value logits) {
  auto [max, sum] = softmaxStatistics(lb, logits, 1);
  int64_t rows = shapeOf(logits)[0];
  return lb.map(
      {rows}, lb.b.getF32Type(), {max, sum}, {lb.identity(1), lb.identity(1)},
      [](OpBuilder &b, Location loc, ValueRange args) {
        return add(b, loc, args[0], math::LogOp::create(b, loc, args[1]));
      });
}

class CrossEntropyPattern : public OpConversionPattern<CrossEntropyOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    Value logits = adaptor.getLogits();
    ArrayRef<int64_t> shape = shapeOf(logits);
    int64_t rows = shape[0], classes = shape[1];
    Value lse = rowLogSumExp(lb, logits);
    Value total = lb.reduce(
        {rows}, {0}, ReduceKind::Sum, {lse, adaptor.getTargets()},
        {lb.identity(1), lb.identity(1)},
        [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
          Value row = indices[0];
          Value target = clampedIndex(b, loc, args[1], classes);
          Value picked = tensor::ExtractOp::create(b, loc, logits,
                                                   ValueRange{row, target});
          return sub(b, loc, args[0], f(b, loc, picked));
        });
    bool mean = op.getReduction() == "mean";
    auto type = cast<RankedTensorType>(op.getType());
    Value result = lb.map({}, type.getElementType(), {total}, {lb.identity(0)},
                          [&](OpBuilder &b, Location loc, ValueRange args) {
                            if (!mean)
                              return args[0];
                            return div(b, loc, args[0], constant(b, loc, rows));
                          });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class CrossEntropyBackwardPattern
    : public OpConversionPattern<CrossEntropyBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CrossEntropyBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location location = op.getLoc();
    LoweringBuilder lb(rewriter, location);
    Value logits = adaptor.getLogits();
    ArrayRef<int64_t> shape = shapeOf(logits);
    Value lse = rowLogSumExp(lb, logits);
    Value gradLoss = LoweringBuilder::toF32(
        rewriter, location,
        tensor::ExtractOp::create(rewriter, location, adaptor.getGrad(),
                                  ValueRange{}));
    if (op.getReduction() == "mean")
      gradLoss = div(rewriter, location, gradLoss,
                     constant(rewriter, location, shape[0]));
    Value result = lb.map(
        shape, elementTypeOf(logits), {logits, lse, adaptor.getTargets()},
        {lb.identity(2), lb.select(2, {0}), lb.select(2, {0})},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value probability =
              exp(b, loc, sub(b, loc, f(b, loc, args[0]), args[1]));
          Value column = arith::IndexCastOp::create(
              b, loc, b.getI64Type(), linalg::IndexOp::create(b, loc, 1));
          Value isTarget =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, column,
                                    clampedId(b, loc, args[2], shape[1]));
          Value oneHot = arith::SelectOp::create(
              b, loc, isTarget, constant(b, loc, 1.0), constant(b, loc, 0.0));
          return mul(b, loc, gradLoss, sub(b, loc, probability, oneHot));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNormalizationPatterns(RewritePatternSet &patterns) {
  patterns.add<SoftmaxPattern<SoftmaxOp>, SoftmaxPattern<LogSoftmaxOp>,
               SoftmaxBackwardPattern<SoftmaxBackwardOp>,
               SoftmaxBackwardPattern<LogSoftmaxBackwardOp>, RmsNormPattern,
               RmsNormBackwardPattern, AffineNormPattern<LayerNormOp>,
               AffineNormPattern<BatchNormOp>,
               AffineNormBackwardPattern<LayerNormBackwardOp>,
               AffineNormBackwardPattern<BatchNormBackwardOp>,
               CrossEntropyPattern, CrossEntropyBackwardPattern>(
      patterns.getContext());
}

} // namespace remat::lowering
