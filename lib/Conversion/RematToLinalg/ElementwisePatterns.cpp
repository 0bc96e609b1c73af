//===- ElementwisePatterns.cpp - pointwise remat ops to linalg ------------===//
//
// Part of remat. Constants, elementwise unary/binary/scalar ops, select,
// compare, cast, the activation backward ops and dropout (with its
// counter-based generator): each becomes one all-parallel linalg.generic
// whose body computes in f32 and rounds once to the result type.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <cstdint>

using namespace mlir;

namespace remat::lowering {
namespace {

using Scalar = Value;

//===----------------------------------------------------------------------===//
// Scalar formulas (f32 in, f32 out)
//===----------------------------------------------------------------------===//

/// Builds f32 arithmetic at one location with short names, so the formulas
/// below read like the op descriptions.
struct F32Math {
  OpBuilder &b;
  Location loc;

  Scalar c(double v) {
    return arith::ConstantOp::create(b, loc,
                                     b.getF32FloatAttr(static_cast<float>(v)));
  }
  Scalar add(Scalar x, Scalar y) { return arith::AddFOp::create(b, loc, x, y); }
  Scalar sub(Scalar x, Scalar y) { return arith::SubFOp::create(b, loc, x, y); }
  Scalar mul(Scalar x, Scalar y) { return arith::MulFOp::create(b, loc, x, y); }
  Scalar div(Scalar x, Scalar y) { return arith::DivFOp::create(b, loc, x, y); }
  Scalar neg(Scalar x) { return arith::NegFOp::create(b, loc, x); }
  Scalar exp(Scalar x) { return math::ExpOp::create(b, loc, x); }
  Scalar log(Scalar x) { return math::LogOp::create(b, loc, x); }
  Scalar sqrt(Scalar x) { return math::SqrtOp::create(b, loc, x); }
  Scalar tanh(Scalar x) { return math::TanhOp::create(b, loc, x); }
  Scalar erf(Scalar x) { return math::ErfOp::create(b, loc, x); }
  Scalar pow(Scalar x, Scalar y) { return math::PowFOp::create(b, loc, x, y); }
  // 1 / sqrt(x) rather than math.rsqrt: the GPU lowers rsqrt to an
  // approximation, and CPU and GPU should agree to rounding.
  Scalar rsqrt(Scalar x) { return div(c(1.0), sqrt(x)); }
  Scalar sigmoid(Scalar x) { return div(c(1.0), add(c(1.0), exp(neg(x)))); }
  Scalar cmp(arith::CmpFPredicate predicate, Scalar x, Scalar y) {
    return arith::CmpFOp::create(b, loc, predicate, x, y);
  }
  Scalar select(Scalar cond, Scalar x, Scalar y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Scalar positive(Scalar x) {
    return cmp(arith::CmpFPredicate::OGT, x, c(0.0));
  }

  // gelu: x * Phi(x).
  Scalar gelu(Scalar x, bool tanhApproximation) {
    if (tanhApproximation) {
      Scalar inner = mul(c(std::sqrt(2.0 / M_PI)),
                         add(x, mul(c(0.044715), mul(x, mul(x, x)))));
      return mul(mul(c(0.5), x), add(c(1.0), tanh(inner)));
    }
    return mul(mul(c(0.5), x), add(c(1.0), erf(mul(x, c(M_SQRT1_2)))));
  }

  // d gelu / dx.
  Scalar geluDerivative(Scalar x, bool tanhApproximation) {
    if (tanhApproximation) {
      double k = std::sqrt(2.0 / M_PI);
      Scalar x2 = mul(x, x);
      Scalar t = tanh(mul(c(k), add(x, mul(c(0.044715), mul(x2, x)))));
      Scalar dInner = mul(c(k), add(c(1.0), mul(c(3.0 * 0.044715), x2)));
      Scalar left = mul(c(0.5), add(c(1.0), t));
      Scalar right = mul(mul(mul(c(0.5), x), sub(c(1.0), mul(t, t))), dInner);
      return add(left, right);
    }
    Scalar cdf = mul(c(0.5), add(c(1.0), erf(mul(x, c(M_SQRT1_2)))));
    Scalar pdf =
        mul(c(1.0 / std::sqrt(2.0 * M_PI)), exp(mul(c(-0.5), mul(x, x))));
    return add(cdf, mul(x, pdf));
  }
};

/// Rewrites an op with float tensor operands and one float result into a map
/// whose body gets the operands as f32 scalars.
template <typename OpTy>
class PointwisePattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    ArrayRef<int64_t> shape = resultType.getShape();
    SmallVector<Value> inputs(adaptor.getOperands());
    SmallVector<AffineMap> maps(inputs.size(), lb.identity(shape.size()));
    Value result =
        lb.map(shape, resultType.getElementType(), inputs, maps,
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 SmallVector<Value> values;
                 for (Value arg : args)
                   values.push_back(LoweringBuilder::toF32(b, loc, arg));
                 F32Math m{b, loc};
                 return compute(op, m, values);
               });
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  static Value compute(OpTy op, F32Math &m, ArrayRef<Value> x);
};

#define REMAT_POINTWISE(OpTy, ...)                                             \
  template <>                                                                  \
  Value PointwisePattern<OpTy>::compute([[maybe_unused]] OpTy op, F32Math &m,  \
                                        ArrayRef<Value> x) {                   \
    __VA_ARGS__                                                                \
  }

REMAT_POINTWISE(AddOp, return m.add(x[0], x[1]);)
REMAT_POINTWISE(SubOp, return m.sub(x[0], x[1]);)
REMAT_POINTWISE(MulOp, return m.mul(x[0], x[1]);)
REMAT_POINTWISE(DivOp, return m.div(x[0], x[1]);)
REMAT_POINTWISE(PowOp, return m.pow(x[0], x[1]);)
REMAT_POINTWISE(NegOp, return m.neg(x[0]);)
REMAT_POINTWISE(ExpOp, return m.exp(x[0]);)
REMAT_POINTWISE(LogOp, return m.log(x[0]);)
REMAT_POINTWISE(SqrtOp, return m.sqrt(x[0]);)
REMAT_POINTWISE(RsqrtOp, return m.rsqrt(x[0]);)
REMAT_POINTWISE(TanhOp, return m.tanh(x[0]);)
REMAT_POINTWISE(SigmoidOp, return m.sigmoid(x[0]);)
REMAT_POINTWISE(ReluOp,
                return arith::MaximumFOp::create(m.b, m.loc, x[0], m.c(0.0));)
REMAT_POINTWISE(LeakyReluOp, {
  Scalar nonNegative = m.cmp(arith::CmpFPredicate::OGE, x[0], m.c(0.0));
  return m.select(nonNegative, x[0],
                  m.mul(m.c(op.getAlpha().convertToDouble()), x[0]));
})
REMAT_POINTWISE(GeluOp, return m.gelu(x[0], op.getApproximate() == "tanh");)
REMAT_POINTWISE(SiluOp, return m.mul(x[0], m.sigmoid(x[0]));)
REMAT_POINTWISE(SquareOp, return m.mul(x[0], x[0]);)
REMAT_POINTWISE(PowScalarOp,
                return m.pow(x[0], m.c(op.getExponent().convertToDouble()));)
REMAT_POINTWISE(AddScalarOp,
                return m.add(x[0], m.c(op.getScalar().convertToDouble()));)
REMAT_POINTWISE(MulScalarOp,
                return m.mul(x[0], m.c(op.getScalar().convertToDouble()));)
REMAT_POINTWISE(ReluBackwardOp,
                return m.select(m.positive(x[1]), x[0], m.c(0.0));)
REMAT_POINTWISE(LeakyReluBackwardOp,
                return m.select(m.positive(x[1]), x[0],
                                m.mul(m.c(op.getAlpha().convertToDouble()),
                                      x[0]));)
REMAT_POINTWISE(GeluBackwardOp,
                return m.mul(x[0], m.geluDerivative(x[1], op.getApproximate() ==
                                                              "tanh"));)
REMAT_POINTWISE(SiluBackwardOp, {
  Scalar s = m.sigmoid(x[1]);
  return m.mul(x[0],
               m.mul(s, m.add(m.c(1.0), m.mul(x[1], m.sub(m.c(1.0), s)))));
})
REMAT_POINTWISE(SigmoidBackwardOp,
                return m.mul(x[0], m.mul(x[1], m.sub(m.c(1.0), x[1])));)
REMAT_POINTWISE(TanhBackwardOp,
                return m.mul(x[0], m.sub(m.c(1.0), m.mul(x[1], x[1])));)

#undef REMAT_POINTWISE

//===----------------------------------------------------------------------===//
// Constants, select, compare, cast
//===----------------------------------------------------------------------===//

class ConstantPattern : public OpConversionPattern<ConstantOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto value = dyn_cast<TypedAttr>(op.getValue());
    if (!value)
      return rewriter.notifyMatchFailure(op, "value is not a typed attribute");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value);
    return success();
  }
};

class WherePattern : public OpConversionPattern<WhereOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(WhereOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    Value result = lb.map(
        type.getShape(), type.getElementType(),
        {adaptor.getCondition(), adaptor.getTrueValue(),
         adaptor.getFalseValue()},
        {lb.identity(rank), lb.identity(rank), lb.identity(rank)},
        [](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::SelectOp::create(b, loc, args[0], args[1], args[2]);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

class ComparePattern : public OpConversionPattern<CompareOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    StringRef predicate = op.getPredicate();
    Type operandElement = elementTypeOf(adaptor.getLhs());
    bool isFloat = isa<FloatType>(operandElement);
    // i1 is unsigned (0 or 1); wider integers are signed.
    bool isBool = operandElement.isInteger(1);
    Value result =
        lb.map(type.getShape(), type.getElementType(),
               {adaptor.getLhs(), adaptor.getRhs()},
               {lb.identity(rank), lb.identity(rank)},
               [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                 if (isFloat) {
                   // Ordered comparisons: NaN compares false except under `ne`.
                   auto p = llvm::StringSwitch<arith::CmpFPredicate>(predicate)
                                .Case("eq", arith::CmpFPredicate::OEQ)
                                .Case("ne", arith::CmpFPredicate::UNE)
                                .Case("lt", arith::CmpFPredicate::OLT)
                                .Case("le", arith::CmpFPredicate::OLE)
                                .Case("gt", arith::CmpFPredicate::OGT)
                                .Default(arith::CmpFPredicate::OGE);
                   return arith::CmpFOp::create(b, loc, p, args[0], args[1]);
                 }
                 auto p = llvm::StringSwitch<arith::CmpIPredicate>(predicate)
                              .Case("eq", arith::CmpIPredicate::eq)
                              .Case("ne", arith::CmpIPredicate::ne)
                              .Case("lt", isBool ? arith::CmpIPredicate::ult
                                                 : arith::CmpIPredicate::slt)
                              .Case("le", isBool ? arith::CmpIPredicate::ule
                                                 : arith::CmpIPredicate::sle)
                              .Case("gt", isBool ? arith::CmpIPredicate::ugt
                                                 : arith::CmpIPredicate::sgt)
                              .Default(isBool ? arith::CmpIPredicate::uge
                                              : arith::CmpIPredicate::sge);
                 return arith::CmpIOp::create(b, loc, p, args[0], args[1]);
               });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Converts one scalar between the remat element types: floats extend or
/// round to nearest, integers are signed (i1 is 0 or 1), float to integer
/// truncates toward zero, and anything to i1 is `x != 0` (PyTorch's bool
/// conversion).
Value castScalar(OpBuilder &b, Location loc, Value x, Type to) {
  Type from = x.getType();
  if (from == to)
    return x;
  bool fromFloat = isa<FloatType>(from);
  bool toFloat = isa<FloatType>(to);
  if (to.isInteger(1)) {
    if (fromFloat) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    }
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // f16 <-> bf16: through f32 (exact widening, one rounding).
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (!fromFloat && toFloat) {
    if (from.isInteger(1))
      return arith::UIToFPOp::create(b, loc, to, x);
    return arith::SIToFPOp::create(b, loc, to, x);
  }
  if (fromFloat && !toFloat)
    return arith::FPToSIOp::create(b, loc, to, x);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()) {
    if (from.isInteger(1))
      return arith::ExtUIOp::create(b, loc, to, x);
    return arith::ExtSIOp::create(b, loc, to, x);
  }
  return arith::TruncIOp::create(b, loc, to, x);
}

class CastPattern : public OpConversionPattern<CastOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    Type to = type.getElementType();
    Value result = lb.map(type.getShape(), to, {adaptor.getInput()},
                          {lb.identity(type.getRank())},
                          [&](OpBuilder &b, Location loc, ValueRange args) {
                            return castScalar(b, loc, args[0], to);
                          });
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

// The generator (docs/Lowering.md): with `mix` the SplitMix64 output
// function (add the golden gamma, then two xor-shift-multiply rounds and a
// final xor-shift),
//   key     = mix(seed)
//   bits    = mix(key XOR (offset + linear index))          (64 bits)
//   keep    = (bits >> 40) >= ceil(p * 2^24)                 (24-bit uniform)
// so the keep probability is 1 - p to within 2^-24, every element draws
// from its own counter, and a recomputation with the same seed and offset
// gives the same mask on the CPU and on a GPU (integer arithmetic only).
constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMixMultiplier1 = 0xBF58476D1CE4E5B9ull;
constexpr uint64_t kMixMultiplier2 = 0x94D049BB133111EBull;

Value i64Constant(OpBuilder &b, Location loc, uint64_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(value)));
}

Value mix64(OpBuilder &b, Location loc, Value z) {
  auto xorShift = [&](Value v, int64_t shift) -> Value {
    Value amount = i64Constant(b, loc, shift);
    return arith::XOrIOp::create(b, loc, v,
                                 arith::ShRUIOp::create(b, loc, v, amount));
  };
  z = arith::AddIOp::create(b, loc, z, i64Constant(b, loc, kGoldenGamma));
  z = arith::MulIOp::create(b, loc, xorShift(z, 30),
                            i64Constant(b, loc, kMixMultiplier1));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27),
                            i64Constant(b, loc, kMixMultiplier2));
  return xorShift(z, 31);
}

int64_t keepThreshold(double p) {
  return static_cast<int64_t>(std::ceil(p * static_cast<double>(1 << 24)));
}

/// Row-major linear index of the current element of a generic over `shape`.
Value linearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(shape)) {
    Value scaled = arith::MulIOp::create(
        b, loc, linear, arith::ConstantIndexOp::create(b, loc, size));
    linear = arith::AddIOp::create(b, loc, scaled,
                                   linalg::IndexOp::create(b, loc, d));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
}

class DropoutPattern : public OpConversionPattern<DropoutOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    LoweringBuilder lb(rewriter, loc);
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    ArrayRef<int64_t> shape = type.getShape();
    unsigned rank = shape.size();
    double p = op.getP().convertToDouble();

    Value seed = tensor::ExtractOp::create(rewriter, loc, adaptor.getSeed(),
                                           ValueRange{});
    Value offset = tensor::ExtractOp::create(rewriter, loc, adaptor.getOffset(),
                                             ValueRange{});
    Value key = mix64(rewriter, loc, seed);
    Type elementType = type.getElementType();
    Type maskElement = maskType.getElementType();
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    SmallVector<Value> results = lb.generic(
        {adaptor.getInput()}, {lb.identity(rank)},
        {lb.empty(shape, elementType), lb.empty(shape, maskElement)},
        {lb.identity(rank), lb.identity(rank)}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value counter =
              arith::AddIOp::create(b, l, offset, linearIndex(b, l, shape));
          Value bits = mix64(b, l, arith::XOrIOp::create(b, l, key, counter));
          Value uniform24 =
              arith::ShRUIOp::create(b, l, bits, i64Constant(b, l, 40));
          Value keep =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::uge, uniform24,
                                    i64Constant(b, l, keepThreshold(p)));
          F32Math m{b, l};
          Value x = LoweringBuilder::toF32(b, l, args[0]);
          Value kept = m.mul(x, m.c(1.0 / (1.0 - p)));
          Value y = LoweringBuilder::fromF32(
              b, l, m.select(keep, kept, m.c(0.0)), elementType);
          Value mask = keep;
          if (!maskElement.isInteger(1))
            mask = arith::ExtUIOp::create(b, l, maskElement, keep);
          return SmallVector<Value>{y, mask};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

class DropoutBackwardPattern : public OpConversionPattern<DropoutBackwardOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(DropoutBackwardOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    unsigned rank = type.getRank();
    double p = op.getP().convertToDouble();
    Value result = lb.map(
        type.getShape(), type.getElementType(),
        {adaptor.getGrad(), adaptor.getMask()},
        {lb.identity(rank), lb.identity(rank)},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          F32Math m{b, loc};
          Value keep = args[1];
          if (!keep.getType().isInteger(1)) {
            Value zero = arith::ConstantOp::create(
                b, loc, b.getIntegerAttr(keep.getType(), 0));
            keep = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, keep,
                                         zero);
          }
          Value g = LoweringBuilder::toF32(b, loc, args[0]);
          return m.select(keep, m.mul(g, m.c(1.0 / (1.0 - p))), m.c(0.0));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateElementwisePatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<
      PointwisePattern<AddOp>, PointwisePattern<SubOp>, PointwisePattern<MulOp>,
      PointwisePattern<DivOp>, PointwisePattern<PowOp>, PointwisePattern<NegOp>,
      PointwisePattern<ExpOp>, PointwisePattern<LogOp>,
      PointwisePattern<SqrtOp>, PointwisePattern<RsqrtOp>,
      PointwisePattern<TanhOp>, PointwisePattern<SigmoidOp>,
      PointwisePattern<ReluOp>, PointwisePattern<LeakyReluOp>,
      PointwisePattern<GeluOp>, PointwisePattern<SiluOp>,
      PointwisePattern<SquareOp>, PointwisePattern<PowScalarOp>,
      PointwisePattern<AddScalarOp>, PointwisePattern<MulScalarOp>,
      PointwisePattern<ReluBackwardOp>, PointwisePattern<LeakyReluBackwardOp>,
      PointwisePattern<GeluBackwardOp>, PointwisePattern<SiluBackwardOp>,
      PointwisePattern<SigmoidBackwardOp>, PointwisePattern<TanhBackwardOp>,
      ConstantPattern, WherePattern, ComparePattern, CastPattern,
      DropoutPattern, DropoutBackwardPattern>(context);
}

} // namespace remat::lowering
