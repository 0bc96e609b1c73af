//===- StructurePatterns.cpp - contractions, reductions, views to linalg --===//
//
// Part of remat. matmul and linear (f32 accumulation, k in increasing
// order), sum/mean/max, and the shape ops: reshape through
// collapse/expand_shape, transpose and broadcast as copying generics,
// slice as tensor.extract_slice, concat as insert_slice into an empty
// tensor.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace remat::lowering {
namespace {

/// The product of a contraction's two operand elements, in f32.
Value multiplyArgs(OpBuilder &b, Location loc, ValueRange args, ValueRange) {
  return arith::MulFOp::create(b, loc, LoweringBuilder::toF32(b, loc, args[0]),
                               LoweringBuilder::toF32(b, loc, args[1]));
}

class MatmulPattern : public OpConversionPattern<MatmulOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> resultShape = resultType.getShape();
    unsigned batchRank = resultShape.size() - 2;
    ArrayRef<int64_t> lhsShape = shapeOf(adaptor.getLhs());
    int64_t k =
        op.getTransposeA() ? lhsShape[lhsShape.size() - 2] : lhsShape.back();
    // Iteration space: batch..., m, n, k.
    SmallVector<int64_t> loopShape(resultShape);
    loopShape.push_back(k);
    unsigned rank = loopShape.size();
    unsigned m = batchRank, n = batchRank + 1, kd = batchRank + 2;
    auto operandMap = [&](Value operand, unsigned rowDim, unsigned colDim,
                          bool transposed) {
      SmallVector<AffineExpr> results;
      if (shapeOf(operand).size() > 2)
        for (unsigned d = 0; d < batchRank; ++d)
          results.push_back(lb.dim(d));
      results.push_back(lb.dim(transposed ? colDim : rowDim));
      results.push_back(lb.dim(transposed ? rowDim : colDim));
      return lb.map(rank, results);
    };
    rewriter.replaceOp(
        op, lb.reduce(loopShape, {kd}, ReduceKind::Sum,
                      {adaptor.getLhs(), adaptor.getRhs()},
                      {operandMap(adaptor.getLhs(), m, kd, op.getTransposeA()),
                       operandMap(adaptor.getRhs(), kd, n, op.getTransposeB())},
                      multiplyArgs, resultType.getElementType()));
    return success();
  }
};

class LinearPattern : public OpConversionPattern<LinearOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> resultShape = resultType.getShape();
    unsigned rows = resultShape.size() - 1;
    int64_t in = shapeOf(adaptor.getInput()).back();
    // Iteration space: rows..., out, in.
    SmallVector<int64_t> loopShape(resultShape);
    loopShape.push_back(in);
    unsigned rank = loopShape.size();
    SmallVector<int64_t> inputDims;
    for (unsigned d = 0; d < rows; ++d)
      inputDims.push_back(d);
    inputDims.push_back(rows + 1);
    Value bias = adaptor.getBias();
    auto addBias = [&](OpBuilder &b, Location loc, Value acc,
                       ValueRange outputIndices) -> Value {
      Value element =
          tensor::ExtractOp::create(b, loc, bias, outputIndices[rows]);
      return arith::AddFOp::create(b, loc, acc,
                                   LoweringBuilder::toF32(b, loc, element));
    };
    Value result = lb.reduce(
        loopShape, {rows + 1}, ReduceKind::Sum,
        {adaptor.getInput(), adaptor.getWeight()},
        {lb.select(rank, inputDims), lb.select(rank, {rows, rows + 1})},
        multiplyArgs, resultType.getElementType(),
        bias ? EpilogueFn(addBias) : EpilogueFn());
    rewriter.replaceOp(op, result);
    return success();
  }
};

template <typename OpTy>
class ReductionPattern : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto resultType = cast<RankedTensorType>(op.getType());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    SmallVector<int64_t> dims(op.getDims());
    llvm::sort(dims);
    constexpr bool isMax = std::is_same_v<OpTy, MaxOp>;
    double count = 1.0;
    for (int64_t d : dims)
      count *= static_cast<double>(shape[d]);
    auto divide = [&](OpBuilder &b, Location loc, Value acc,
                      ValueRange) -> Value {
      return arith::DivFOp::create(b, loc, acc, lb.f32(b, count));
    };
    Value result = lb.reduce(
        shape, dims, isMax ? ReduceKind::Max : ReduceKind::Sum, {input},
        {lb.identity(shape.size())},
        [](OpBuilder &b, Location loc, ValueRange args, ValueRange) {
          return LoweringBuilder::toF32(b, loc, args[0]);
        },
        resultType.getElementType(),
        std::is_same_v<OpTy, MeanOp> ? EpilogueFn(divide) : EpilogueFn());
    rewriter.replaceOp(op, lb.reshape(result, resultType.getShape()));
    return success();
  }
};

class ReshapePattern : public OpConversionPattern<ReshapeOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    rewriter.replaceOp(
        op, lb.reshape(adaptor.getInput(),
                       cast<RankedTensorType>(op.getType()).getShape()));
    return success();
  }
};

/// A copying generic over the result's dimensions that reads the input
/// through `inputMap`.
Value copyThrough(LoweringBuilder &lb, Value input, RankedTensorType type,
                  AffineMap inputMap) {
  return lb.map(type.getShape(), type.getElementType(), {input}, {inputMap},
                [](OpBuilder &, Location, ValueRange args) { return args[0]; });
}

class TransposePattern : public OpConversionPattern<TransposeOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> permutation = op.getPermutation();
    // Result dimension i is input dimension permutation[i], so input
    // dimension j is read at the result dimension i with permutation[i] = j.
    SmallVector<AffineExpr> results(permutation.size());
    for (auto [i, j] : llvm::enumerate(permutation))
      results[j] = lb.dim(i);
    rewriter.replaceOp(op, copyThrough(lb, adaptor.getInput(), type,
                                       lb.map(type.getRank(), results)));
    return success();
  }
};

class BroadcastPattern : public OpConversionPattern<BroadcastOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> inputShape = shapeOf(adaptor.getInput());
    int64_t rank = type.getRank();
    int64_t inputRank = inputShape.size();
    SmallVector<AffineExpr> results;
    for (int64_t i = 0; i < inputRank; ++i) {
      int64_t target =
          op.getDims() ? (*op.getDims())[i] : i + (rank - inputRank);
      if (inputShape[i] == 1 && type.getDimSize(target) != 1)
        results.push_back(getAffineConstantExpr(0, rewriter.getContext()));
      else
        results.push_back(lb.dim(target));
    }
    rewriter.replaceOp(
        op, copyThrough(lb, adaptor.getInput(), type, lb.map(rank, results)));
    return success();
  }
};

class SlicePattern : public OpConversionPattern<SliceOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<int64_t> strides(type.getRank(), 1);
    if (op.getStrides())
      strides.assign(op.getStrides()->begin(), op.getStrides()->end());
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        op, type, adaptor.getInput(), ValueRange{}, ValueRange{}, ValueRange{},
        op.getOffsets(), op.getSizes(), strides);
    return success();
  }
};

class ConcatPattern : public OpConversionPattern<ConcatOp> {
public:
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    LoweringBuilder lb(rewriter, op.getLoc());
    auto type = cast<RankedTensorType>(op.getType());
    int64_t concatDim = op.getDim();
    Value result = lb.empty(type.getShape(), type.getElementType());
    int64_t position = 0;
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> shape = shapeOf(input);
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[concatDim] = position;
      SmallVector<int64_t> strides(type.getRank(), 1);
      result = tensor::InsertSliceOp::create(
          rewriter, op.getLoc(), input, result, ValueRange{}, ValueRange{},
          ValueRange{}, offsets, shape, strides);
      position += shape[concatDim];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateStructurePatterns(RewritePatternSet &patterns) {
  patterns
      .add<MatmulPattern, LinearPattern, ReductionPattern<SumOp>,
           ReductionPattern<MeanOp>, ReductionPattern<MaxOp>, ReshapePattern,
           TransposePattern, BroadcastPattern, SlicePattern, ConcatPattern>(
          patterns.getContext());
}

} // namespace remat::lowering
