//===- SpatialPatterns.cpp - conv, pooling, embedding to linalg -----------===//
//
// Part of remat. NCHW convolution (groups, strides, dilation, symmetric
// padding through tensor.pad) and its two gradients, max/avg pooling and
// their gradients, and the embedding gather and its scatter-add gradient.
//
// Gradients that scatter in PyTorch (conv input gradient, pooling
// gradients, embedding gradient) are written here as gathers: each output
// element sums the contributions that reach it, so there are no atomics,
// every thread writes one element, and the summation order is fixed (the
// same on the CPU and on a GPU). Windowed loops that no operand indexes
// directly get their range from an unread "window" operand, as linalg's
// pooling ops do.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

using namespace mlir;

namespace remat::lowering {
namespace {

Value f(OpBuilder &b, Location loc, Value x) {
  return LoweringBuilder::toF32(b, loc, x);
}

/// Index arithmetic in a generic body or a reduction's body.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  /// The iteration space's indices in a reduction's body (`lb.reduce`
  /// passes them); empty in a generic's body, where linalg.index reads them.
  ValueRange indices = {};
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value loop(unsigned d) {
    return indices.empty() ? linalg::IndexOp::create(b, loc, d).getResult()
                           : indices[d];
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivSIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemSIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value toI64(Value x) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), x);
  }

  /// Element (n, ch, h - padding[0], w - padding[1]) of the NCHW tensor
  /// `input`, read at coordinates (h, w) of its padded version, and
  /// `padValue` where those fall in the padding: a padded input without a
  /// padded copy (the index is clamped, so the read stays in bounds).
  Value paddedRead(Value input, Value n, Value ch, Value h, Value w,
                   ArrayRef<int64_t> padding, double padValue) {
    if (padding[0] == 0 && padding[1] == 0)
      return tensor::ExtractOp::create(b, loc, input, ValueRange{n, ch, h, w});
    ArrayRef<int64_t> shape = shapeOf(input);
    auto inside = [&](Value i, int64_t size) {
      return both(cmp(arith::CmpIPredicate::sge, i, c(0)),
                  cmp(arith::CmpIPredicate::slt, i, c(size)));
    };
    Value ih = sub(h, c(padding[0])), iw = sub(w, c(padding[1]));
    Value valid = both(inside(ih, shape[2]), inside(iw, shape[3]));
    Value x = tensor::ExtractOp::create(
        b, loc, input,
        ValueRange{n, ch, select(valid, ih, c(0)), select(valid, iw, c(0))});
    Value pad = arith::ConstantOp::create(
        b, loc, FloatAttr::get(elementTypeOf(input), padValue));
    return select(valid, x, pad);
  }

  /// Input channel `c` of the group of output channel `k`.
  Value groupChannel(Value k, Value ch, int64_t groups, int64_t kg,
                     int64_t cg) {
    return groups == 1 ? ch : add(mul(div(k, c(kg)), c(cg)), ch);
  }

  /// The output position `o` of a strided window whose tap `tap` reads
  /// input position `in` (`o * stride + tap * dilation - pad = in`), and
  /// whether it exists (divisible, inside [0, outSize)). `o` is clamped to
  /// 0 when it does not, so it can still index a tensor.
  std::pair<Value, Value> windowOrigin(Value in, Value tap, int64_t stride,
                                       int64_t pad, int64_t dilation,
                                       int64_t outSize) {
    Value numerator = sub(add(in, c(pad)), mul(tap, c(dilation)));
    Value nonNegative = cmp(arith::CmpIPredicate::sge, numerator, c(0));
    Value divisible =
        cmp(arith::CmpIPredicate::eq, rem(numerator, c(stride)), c(0));
    Value origin = div(numerator, c(stride));
    Value inRange = cmp(arith::CmpIPredicate::slt, origin, c(outSize));
    Value valid = both(both(nonNegative, divisible), inRange);
    return {select(valid, origin, c(0)), valid};
  }
};

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Sizes of one conv2d: input [N, C, H, W], weight [K, C/groups, R, S],
/// output [N, K, OH, OW].
struct ConvShape {
  int64_t n, c, h, w, k, cg, r, s, oh, ow, groups, kg;
  ConvShape(ArrayRef<int64_t> input, ArrayRef<int64_t> weight,
            ArrayRef<int64_t> output, int64_t groupCount) {
    n = input[0], c = input[1], h = input[2], w = input[3];
    k = weight[0], cg = weight[1], r = weight[2], s = weight[3];
    oh = output[2], ow = output[3];
    groups = groupCount;
    kg = k / groups;
  }
};

/// The input element that tap (r, s) of output element (n, k, oh, ow) reads
/// for input channel `ch` of k's group: zero where it falls in the padding.
Value convolutionTap(IndexMath &im, Value input, const ConvShape &cs,
                     ArrayRef<int64_t> strides, ArrayRef<int64_t> dilation,
                     ArrayRef<int64_t> padding, Value n, Value k, Value ch,
                     Value oh, Value ow, Value r, Value s) {
  Value h = im.add(im.mul(oh, im.c(strides[0])), im.mul(r, im.c(dilation[0])));
  Value w = im.add(im.mul(ow, im.c(strides[1])), im.mul(s, im.c(dilation[1])));
  return im.paddedRead(input, n,
                       im.groupChannel(k, ch, cs.groups, cs.kg, cs.cg), h, w,
                       padding, 0.0);
}

class Conv2dPattern : public OpConversionPattern<Conv2dOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LoweringBuilder lb(rewriter, loc);
    auto type = cast<RankedTensorType>(op.getType());
    ConvShape cs(shapeOf(adaptor.getInput()), shapeOf(adaptor.getWeight()),
                 type.getShape(), op.getGroups());
    Value input = adaptor.getInput();
    SmallVector<int64_t> strides(op.getStrides()), padding(op.getPadding()),
        dilation(op.getDilation());
    // Loops: n, k, oh, ow, c, r, s.
    AffineExpr k = lb.dim(1), c = lb.dim(4), r = lb.dim(5), s = lb.dim(6);
    Value bias = adaptor.getBias();
    auto addBias = [&](OpBuilder &b, Location l, Value acc,
                       ValueRange outputIndices) -> Value {
      Value element = tensor::ExtractOp::create(b, l, bias, outputIndices[1]);
      return arith::AddFOp::create(b, l, acc, f(b, l, element));
    };
    Value result = lb.reduce(
        {cs.n, cs.k, cs.oh, cs.ow, cs.cg, cs.r, cs.s}, {4, 5, 6},
        ReduceKind::Sum, {adaptor.getWeight()}, {lb.map(7, {k, c, r, s})},
        [&](OpBuilder &b, Location l, ValueRange args,
            ValueRange indices) -> Value {
          IndexMath im{b, l, indices};
          Value x = convolutionTap(
              im, input, cs, strides, dilation, padding, indices[0], indices[1],
              indices[4], indices[2], indices[3], indices[5], indices[6]);
          return arith::MulFOp::create(b, l, f(b, l, x), f(b, l, args[0]));
        },
        type.getElementType(), bias ? EpilogueFn(addBias) : EpilogueFn());
    rewriter.replaceOp(op, result);
    return success();
  }
};

class Conv2dBackwardInputPattern
    : public OpConversionPattern<Conv2dBackwardInputOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dBackwardInputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    Value grad = adaptor.getGrad(), weight = adaptor.getWeight();
    ConvShape cs(type.getShape(), shapeOf(weight), shapeOf(grad),
                 op.getGroups());
    SmallVector<int64_t> strides(op.getStrides()), padding(op.getPadding()),
        dilation(op.getDilation());
    // Loops: n, ci, h, w, kl (output channel within the group), r, s.
    AffineExpr ci = lb.dim(1), kl = lb.dim(4), r = lb.dim(5), s = lb.dim(6);
    AffineExpr outChannel =
        cs.groups == 1 ? kl : ci.floorDiv(cs.cg) * cs.kg + kl;
    AffineExpr inChannel = cs.groups == 1 ? ci : ci % cs.cg;
    Value gradInput = lb.reduce(
        {cs.n, cs.c, cs.h, cs.w, cs.kg, cs.r, cs.s}, {4, 5, 6}, ReduceKind::Sum,
        {weight}, {lb.map(7, {outChannel, inChannel, r, s})},
        [&](OpBuilder &b, Location l, ValueRange args,
            ValueRange indices) -> Value {
          IndexMath im{b, l, indices};
          auto [oh, validH] =
              im.windowOrigin(im.loop(2), im.loop(5), strides[0], padding[0],
                              dilation[0], cs.oh);
          auto [ow, validW] =
              im.windowOrigin(im.loop(3), im.loop(6), strides[1], padding[1],
                              dilation[1], cs.ow);
          Value k = im.loop(4);
          if (cs.groups != 1)
            k = im.add(im.mul(im.div(im.loop(1), im.c(cs.cg)), im.c(cs.kg)), k);
          Value g = tensor::ExtractOp::create(
              b, l, grad, ValueRange{im.loop(0), k, oh, ow});
          Value product =
              arith::MulFOp::create(b, l, f(b, l, g), f(b, l, args[0]));
          Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
          return im.select(im.both(validH, validW), product, zero);
        },
        type.getElementType());
    rewriter.replaceOp(op, gradInput);
    return success();
  }
};

class Conv2dBackwardWeightPattern
    : public OpConversionPattern<Conv2dBackwardWeightOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(Conv2dBackwardWeightOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LoweringBuilder lb(rewriter, loc);
    auto type = cast<RankedTensorType>(op.getType());
    Value grad = adaptor.getGrad();
    ConvShape cs(shapeOf(adaptor.getInput()), type.getShape(), shapeOf(grad),
                 op.getGroups());
    Value input = adaptor.getInput();
    SmallVector<int64_t> strides(op.getStrides()), padding(op.getPadding()),
        dilation(op.getDilation());
    // Loops: k, c, r, s, n, oh, ow.
    AffineExpr k = lb.dim(0), n = lb.dim(4), oh = lb.dim(5), ow = lb.dim(6);
    Value gradWeight = lb.reduce(
        {cs.k, cs.cg, cs.r, cs.s, cs.n, cs.oh, cs.ow}, {4, 5, 6},
        ReduceKind::Sum, {grad}, {lb.map(7, {n, k, oh, ow})},
        [&](OpBuilder &b, Location l, ValueRange args,
            ValueRange indices) -> Value {
          IndexMath im{b, l, indices};
          Value x = convolutionTap(
              im, input, cs, strides, dilation, padding, indices[4], indices[0],
              indices[1], indices[5], indices[6], indices[2], indices[3]);
          return arith::MulFOp::create(b, l, f(b, l, args[0]), f(b, l, x));
        },
        type.getElementType());
    rewriter.replaceOp(op, gradWeight);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class MaxPool2dPattern : public OpConversionPattern<MaxPool2dOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LoweringBuilder lb(rewriter, loc);
    auto type = cast<RankedTensorType>(op.getResult().getType());
    Value input = adaptor.getInput();
    int64_t width = shapeOf(input)[3];
    SmallVector<int64_t> kernel(op.getKernel()), strides(op.getStrides()),
        padding(op.getPadding());
    SmallVector<int64_t> out(type.getShape());
    double negInf = -std::numeric_limits<double>::infinity();
    // One thread per output element (n, c, oh, ow): the window's maximum
    // (in f32) and its flat input index carried through loops over the taps
    // (kr, ks), as lb.reduce carries a sum; padding reads -inf.
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    SmallVector<Value> results = lb.generic(
        {}, {},
        {lb.empty(out, type.getElementType()),
         lb.empty(out, rewriter.getI64Type())},
        {lb.identity(4), lb.identity(4)}, iterators,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> indices;
          for (unsigned d = 0; d < 4; ++d)
            indices.push_back(linalg::IndexOp::create(b, l, d));
          IndexMath im{b, l, indices};
          Value initial[] = {lb.f32(b, negInf), lb.i64(b, 0)};
          auto rows = scf::ForOp::create(
              b, l, im.c(0), im.c(kernel[0]), im.c(1), initial,
              [&](OpBuilder &rb, Location rl, Value kr, ValueRange outer) {
                auto taps = scf::ForOp::create(
                    rb, rl, im.c(0), im.c(kernel[1]), im.c(1), outer,
                    [&](OpBuilder &tb, Location tl, Value ks,
                        ValueRange carried) {
                      IndexMath tm{tb, tl, indices};
                      Value h =
                          tm.add(tm.mul(indices[2], tm.c(strides[0])), kr);
                      Value w =
                          tm.add(tm.mul(indices[3], tm.c(strides[1])), ks);
                      Value x = f(tb, tl,
                                  tm.paddedRead(input, indices[0], indices[1],
                                                h, w, padding, negInf));
                      Value current = carried[0], currentIndex = carried[1];
                      // PyTorch's rule: a larger value or a NaN takes the
                      // place.
                      Value larger = arith::CmpFOp::create(
                          tb, tl, arith::CmpFPredicate::OGT, x, current);
                      Value isNan = arith::CmpFOp::create(
                          tb, tl, arith::CmpFPredicate::UNO, x, x);
                      Value take = arith::OrIOp::create(tb, tl, larger, isNan);
                      Value flat = tm.toI64(tm.add(
                          tm.mul(tm.sub(h, tm.c(padding[0])), tm.c(width)),
                          tm.sub(w, tm.c(padding[1]))));
                      scf::YieldOp::create(
                          tb, tl,
                          ValueRange{tm.select(take, x, current),
                                     tm.select(take, flat, currentIndex)});
                    });
                scf::YieldOp::create(rb, rl, taps.getResults());
              });
          return SmallVector<Value>{
              LoweringBuilder::fromF32(b, l, rows.getResult(0),
                                       type.getElementType()),
              rows.getResult(1)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Gathering form of a pooling gradient: input element (n, c, h, w) sums,
/// over the window taps (kr, ks), the gradient of the output whose window
/// reads it through that tap, weighted by `contribution(im, oh, ow, g)`.
using Contribution =
    llvm::function_ref<Value(IndexMath &, Value oh, Value ow, Value gradient)>;

Value poolGradient(LoweringBuilder &lb, RankedTensorType type, Value grad,
                   ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                   ArrayRef<int64_t> padding, Contribution contribution) {
  ArrayRef<int64_t> in = type.getShape();
  ArrayRef<int64_t> out = shapeOf(grad);
  return lb.reduce(
      {in[0], in[1], in[2], in[3], kernel[0], kernel[1]}, {4, 5},
      ReduceKind::Sum, {}, {},
      [&](OpBuilder &b, Location l, ValueRange, ValueRange indices) -> Value {
        IndexMath im{b, l, indices};
        auto [oh, validH] = im.windowOrigin(im.loop(2), im.loop(4), strides[0],
                                            padding[0], 1, out[2]);
        auto [ow, validW] = im.windowOrigin(im.loop(3), im.loop(5), strides[1],
                                            padding[1], 1, out[3]);
        Value g =
            f(b, l,
              tensor::ExtractOp::create(
                  b, l, grad, ValueRange{im.loop(0), im.loop(1), oh, ow}));
        Value value = contribution(im, oh, ow, g);
        Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
        return im.select(im.both(validH, validW), value, zero);
      },
      type.getElementType());
}

class MaxPool2dBackwardPattern
    : public OpConversionPattern<MaxPool2dBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaxPool2dBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    Value indices = adaptor.getIndices();
    int64_t width = type.getShape()[3];
    Value gradInput = poolGradient(
        lb, type, adaptor.getGrad(), op.getKernel(), op.getStrides(),
        op.getPadding(),
        [&](IndexMath &im, Value oh, Value ow, Value g) -> Value {
          Value argmax = tensor::ExtractOp::create(
              im.b, im.loc, indices,
              ValueRange{im.loop(0), im.loop(1), oh, ow});
          Value here =
              im.toI64(im.add(im.mul(im.loop(2), im.c(width)), im.loop(3)));
          Value isMax = im.cmp(arith::CmpIPredicate::eq, argmax, here);
          Value zero =
              arith::ConstantOp::create(im.b, im.loc, im.b.getF32FloatAttr(0));
          return im.select(isMax, g, zero);
        });
    rewriter.replaceOp(op, gradInput);
    return success();
  }
};

/// The divisor of average-pooling output (oh, ow): the window size, or with
/// count_include_pad = false the number of its taps inside the input.
Value averageDivisor(IndexMath &im, Value oh, Value ow,
                     ArrayRef<int64_t> inputShape, ArrayRef<int64_t> kernel,
                     ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                     bool countIncludePad) {
  auto f32 = [&](Value index) -> Value {
    return arith::SIToFPOp::create(im.b, im.loc, im.b.getF32Type(),
                                   im.toI64(index));
  };
  if (countIncludePad)
    return f32(im.c(kernel[0] * kernel[1]));
  auto extent = [&](Value o, int64_t d) {
    Value start = im.sub(im.mul(o, im.c(strides[d])), im.c(padding[d]));
    Value end = im.min(im.add(start, im.c(kernel[d])), im.c(inputShape[d + 2]));
    return im.sub(end, im.max(start, im.c(0)));
  };
  return f32(im.mul(extent(oh, 0), extent(ow, 1)));
}

class AvgPool2dPattern : public OpConversionPattern<AvgPool2dOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LoweringBuilder lb(rewriter, loc);
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> inputShape(shapeOf(adaptor.getInput()));
    SmallVector<int64_t> kernel(op.getKernel()), strides(op.getStrides()),
        padding(op.getPadding());
    bool countIncludePad = op.getCountIncludePad();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> out = type.getShape();
    auto divide = [&](OpBuilder &b, Location l, Value sum,
                      ValueRange outputIndices) -> Value {
      IndexMath im{b, l, outputIndices};
      Value divisor = averageDivisor(im, im.loop(2), im.loop(3), inputShape,
                                     kernel, strides, padding, countIncludePad);
      return arith::DivFOp::create(b, l, sum, divisor);
    };
    Value result = lb.reduce(
        {out[0], out[1], out[2], out[3], kernel[0], kernel[1]}, {4, 5},
        ReduceKind::Sum, {}, {},
        [&](OpBuilder &b, Location l, ValueRange, ValueRange indices) -> Value {
          IndexMath im{b, l, indices};
          Value h = im.add(im.mul(im.loop(2), im.c(strides[0])), im.loop(4));
          Value w = im.add(im.mul(im.loop(3), im.c(strides[1])), im.loop(5));
          return f(
              b, l,
              im.paddedRead(input, im.loop(0), im.loop(1), h, w, padding, 0.0));
        },
        type.getElementType(), divide);
    rewriter.replaceOp(op, result);
    return success();
  }
};

class AvgPool2dBackwardPattern
    : public OpConversionPattern<AvgPool2dBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AvgPool2dBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> inputShape(type.getShape());
    SmallVector<int64_t> kernel(op.getKernel()), strides(op.getStrides()),
        padding(op.getPadding());
    bool countIncludePad = op.getCountIncludePad();
    Value gradInput =
        poolGradient(lb, type, adaptor.getGrad(), kernel, strides, padding,
                     [&](IndexMath &im, Value oh, Value ow, Value g) -> Value {
                       Value divisor =
                           averageDivisor(im, oh, ow, inputShape, kernel,
                                          strides, padding, countIncludePad);
                       return arith::DivFOp::create(im.b, im.loc, g, divisor);
                     });
    rewriter.replaceOp(op, gradInput);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

class EmbeddingPattern : public OpConversionPattern<EmbeddingOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    Value table = adaptor.getTable();
    int64_t rows = shapeOf(table)[0];
    unsigned rank = type.getRank();
    SmallVector<int64_t> idDims;
    for (unsigned d = 0; d + 1 < rank; ++d)
      idDims.push_back(d);
    Value result =
        lb.map(type.getShape(), type.getElementType(), {adaptor.getIndices()},
               {lb.select(rank, idDims)},
               [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                 Value row = clampedIndex(b, l, args[0], rows);
                 Value column = linalg::IndexOp::create(b, l, rank - 1);
                 return tensor::ExtractOp::create(b, l, table,
                                                  ValueRange{row, column});
               });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class EmbeddingBackwardPattern
    : public OpConversionPattern<EmbeddingBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(EmbeddingBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    Value grad = adaptor.getGrad(), indices = adaptor.getIndices();
    ArrayRef<int64_t> idShape = shapeOf(indices);
    // Loops: v, d, then the index positions p... (reduced).
    SmallVector<int64_t> loopShape(type.getShape());
    loopShape.append(idShape.begin(), idShape.end());
    unsigned rank = loopShape.size();
    SmallVector<int64_t> positions, gradDims;
    for (unsigned d = 2; d < rank; ++d)
      positions.push_back(d);
    gradDims = positions;
    gradDims.push_back(1);
    const int64_t rows = type.getShape()[0];
    Value gradTable = lb.reduce(
        loopShape, positions, ReduceKind::Sum, {grad, indices},
        {lb.select(rank, gradDims), lb.select(rank, positions)},
        [rows](OpBuilder &b, Location l, ValueRange args,
               ValueRange loops) -> Value {
          Value row =
              arith::IndexCastOp::create(b, l, b.getI64Type(), loops[0]);
          // The row the forward op read for this id.
          Value hit =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                    clampedId(b, l, args[1], rows), row);
          Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
          return arith::SelectOp::create(b, l, hit, f(b, l, args[0]), zero);
        },
        type.getElementType());
    rewriter.replaceOp(op, gradTable);
    return success();
  }
};

} // namespace

void populateSpatialPatterns(RewritePatternSet &patterns) {
  patterns
      .add<Conv2dPattern, Conv2dBackwardInputPattern,
           Conv2dBackwardWeightPattern, MaxPool2dPattern,
           MaxPool2dBackwardPattern, AvgPool2dPattern, AvgPool2dBackwardPattern,
           EmbeddingPattern, EmbeddingBackwardPattern>(patterns.getContext());
}

} // namespace remat::lowering
