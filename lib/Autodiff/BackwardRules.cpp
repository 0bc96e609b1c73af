//===- BackwardRules.cpp - Per-op derivative rules ------------------------===//
//
// Part of remat. One reverse-mode rule per differentiable remat op. Rules
// read forward values (operands and results) directly and never save
// anything: the joint graph is AOTAutograd-style, and remat-plan decides
// afterwards which of those values are saved, recomputed or derived.
//
// Where the dialect has a backward op (softmax_backward, rmsnorm_backward,
// sdpa_backward, conv2d_backward_*, dropout_backward, the activation
// backward ops, ...) the rule emits it, so the planner sees the same op a
// framework importer would produce; everything else is composed from
// elementwise ops, matmuls with transpose flags, sums, broadcasts, reshapes
// and concatenation with zeros.
//
//===----------------------------------------------------------------------===//

#include "BackwardRules.h"

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;

namespace remat::autodiff {

Value ZeroConstants::get(OpBuilder &builder, Location loc, Type type) {
  Value &zeros = cache[type];
  if (!zeros)
    zeros = ConstantOp::create(builder, loc, type,
                               cast<ElementsAttr>(builder.getZeroAttr(type)));
  return zeros;
}

namespace {

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

RankedTensorType withShape(RankedTensorType like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, like.getElementType());
}

/// Emits the backward ops of one forward op. Each `visit` overload fills
/// `grads` (one entry per operand, null where no gradient is produced).
class BackwardEmitter {
public:
  BackwardEmitter(OpBuilder &builder, Operation *op,
                  ArrayRef<Value> resultGrads, ArrayRef<bool> needsGrad,
                  ZeroConstants &zeroConstants, SmallVectorImpl<Value> &grads)
      : b(builder), loc(op->getLoc()), op(op), resultGrads(resultGrads),
        needsGrad(needsGrad), zeroConstants(zeroConstants), grads(grads) {
    grads.assign(op->getNumOperands(), Value());
  }

  LogicalResult run();

private:
  bool needs(unsigned operand) const { return needsGrad[operand]; }

  /// Cotangent of result `index`, or zeros when it has none (e.g. the second
  /// result of an opaque op that never reaches an output).
  /// Rules build one op per statement (never two op-building calls as
  /// arguments of one call), so the emitted order does not depend on the
  /// compiler's argument evaluation order; resultGrad of a result that has a
  /// cotangent builds nothing.
  Value resultGrad(unsigned index) {
    if (Value grad = resultGrads[index])
      return grad;
    return zeroConstants.get(b, loc, op->getResult(index).getType());
  }

  /// Statistics results (norm mean/rstd, attention logsumexp) only feed the
  /// backward ops; a gradient flowing into one has no rule.
  LogicalResult rejectStatisticGrads(unsigned firstStatistic,
                                     ArrayRef<StringRef> names) {
    for (unsigned i = firstStatistic; i < op->getNumResults(); ++i)
      if (resultGrads[i])
        return op->emitOpError()
               << "result #" << i << " ('" << names[i - firstStatistic]
               << "') reaches an output, but remat-autodiff cannot "
                  "differentiate through a saved statistic; only result #0 "
                  "may carry a gradient (compute the statistic with "
                  "elementwise and reduction ops if it is part of the loss)";
    if (!resultGrads[0])
      return op->emitOpError() << "has no gradient on result #0";
    return success();
  }

  // ----- small builders --------------------------------------------------

  Value add(Value lhs, Value rhs) { return AddOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return MulOp::create(b, loc, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return DivOp::create(b, loc, lhs, rhs); }
  Value neg(Value value) { return NegOp::create(b, loc, value); }
  Value mulScalar(Value value, double scalar) {
    return MulScalarOp::create(b, loc, value.getType(), value,
                               b.getF64FloatAttr(scalar));
  }
  Value reshape(Value value, Type type) {
    if (value.getType() == type)
      return value;
    return ReshapeOp::create(b, loc, type, value);
  }
  Value sum(Value value, ArrayRef<int64_t> dims, bool keepdim = false) {
    if (dims.empty())
      return value;
    RankedTensorType type = tensorType(value);
    SmallVector<int64_t> shape;
    for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
      if (!llvm::is_contained(dims, d))
        shape.push_back(type.getDimSize(d));
      else if (keepdim)
        shape.push_back(1);
    }
    return SumOp::create(b, loc, withShape(type, shape), value, dims, keepdim);
  }

  /// Broadcasts the result of a reduction over `dims` of a value typed
  /// `full` back to `full`'s shape (the gradient of sum, mean and max).
  Value unreduce(Value reduced, RankedTensorType full, ArrayRef<int64_t> dims,
                 bool keepdim) {
    RankedTensorType target = withShape(tensorType(reduced), full.getShape());
    if (reduced.getType() == target)
      return reduced;
    DenseI64ArrayAttr mapping;
    if (!keepdim && tensorType(reduced).getRank() > 0) {
      SmallVector<int64_t> kept;
      for (int64_t d = 0, e = full.getRank(); d < e; ++d)
        if (!llvm::is_contained(dims, d))
          kept.push_back(d);
      mapping = b.getDenseI64ArrayAttr(kept);
    }
    return BroadcastOp::create(b, loc, target, reduced, mapping);
  }

  /// `remat.matmul` with the result type its verifier expects: the batch
  /// dimensions of the higher-rank operand, then M x N.
  Value matmul(Value lhs, Value rhs, bool transposeLhs, bool transposeRhs) {
    RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs);
    RankedTensorType batched =
        lhsType.getRank() >= rhsType.getRank() ? lhsType : rhsType;
    SmallVector<int64_t> shape(batched.getShape().drop_back(2));
    ArrayRef<int64_t> l = lhsType.getShape(), r = rhsType.getShape();
    shape.push_back(transposeLhs ? l[l.size() - 1] : l[l.size() - 2]);
    shape.push_back(transposeRhs ? r[r.size() - 2] : r[r.size() - 1]);
    return MatmulOp::create(b, loc, withShape(lhsType, shape), lhs, rhs,
                            transposeLhs, transposeRhs);
  }

  /// Sums the leading batch dimensions a matmul gradient gained when a
  /// rank-2 operand met a batched one (PyTorch's matrix broadcasting).
  Value sumBatchTo(Value grad, Type operandType) {
    int64_t extra = tensorType(grad).getRank() -
                    cast<RankedTensorType>(operandType).getRank();
    SmallVector<int64_t> dims(extra);
    std::iota(dims.begin(), dims.end(), 0);
    return sum(grad, dims);
  }

  /// Zero-pads `value` along `dim` with `before` and `after` elements.
  Value padWithZeros(Value value, int64_t dim, int64_t before, int64_t after) {
    if (before == 0 && after == 0)
      return value;
    RankedTensorType type = tensorType(value);
    SmallVector<Value> pieces;
    auto zerosOfLength = [&](int64_t length) {
      SmallVector<int64_t> shape(type.getShape());
      shape[dim] = length;
      return zeroConstants.get(b, loc, withShape(type, shape));
    };
    if (before > 0)
      pieces.push_back(zerosOfLength(before));
    pieces.push_back(value);
    if (after > 0)
      pieces.push_back(zerosOfLength(after));
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] += before + after;
    return ConcatOp::create(b, loc, withShape(type, shape), pieces,
                            static_cast<uint64_t>(dim));
  }

  // ----- rules ------------------------------------------------------------

  LogicalResult visit(AddOp) {
    grads[0] = grads[1] = resultGrad(0);
    return success();
  }
  LogicalResult visit(SubOp) {
    grads[0] = resultGrad(0);
    if (needs(1))
      grads[1] = neg(resultGrad(0));
    return success();
  }
  LogicalResult visit(MulOp mulOp) {
    if (needs(0))
      grads[0] = mul(resultGrad(0), mulOp.getRhs());
    if (needs(1))
      grads[1] = mul(resultGrad(0), mulOp.getLhs());
    return success();
  }
  LogicalResult visit(DivOp divOp) {
    // c = a / b: da = g / b, db = -g * a / b^2 = -(g * c) / b.
    if (needs(0))
      grads[0] = div(resultGrad(0), divOp.getRhs());
    if (needs(1))
      grads[1] =
          neg(div(mul(resultGrad(0), divOp.getResult()), divOp.getRhs()));
    return success();
  }
  LogicalResult visit(PowOp powOp) {
    // c = a ^ e: da = g * e * a^(e - 1), de = g * c * log(a).
    Value base = powOp.getLhs(), exponent = powOp.getRhs();
    if (needs(0)) {
      Value exponentMinusOne = AddScalarOp::create(
          b, loc, exponent.getType(), exponent, b.getF64FloatAttr(-1.0));
      Value power = PowOp::create(b, loc, base, exponentMinusOne);
      Value slope = mul(exponent, power);
      grads[0] = mul(resultGrad(0), slope);
    }
    if (needs(1)) {
      Value scaled = mul(resultGrad(0), powOp.getResult());
      Value logBase = LogOp::create(b, loc, base);
      grads[1] = mul(scaled, logBase);
    }
    return success();
  }
  LogicalResult visit(NegOp) {
    grads[0] = neg(resultGrad(0));
    return success();
  }
  LogicalResult visit(ExpOp expOp) {
    grads[0] = mul(resultGrad(0), expOp.getResult());
    return success();
  }
  LogicalResult visit(LogOp logOp) {
    grads[0] = div(resultGrad(0), logOp.getInput());
    return success();
  }
  LogicalResult visit(SqrtOp sqrtOp) {
    // d sqrt(x) = 1 / (2 sqrt(x)): reads the output, not the input.
    grads[0] = div(mulScalar(resultGrad(0), 0.5), sqrtOp.getResult());
    return success();
  }
  LogicalResult visit(RsqrtOp rsqrtOp) {
    // y = x^(-1/2): dy/dx = -y^3 / 2.
    Value cube = PowScalarOp::create(
        b, loc, rsqrtOp.getType(), rsqrtOp.getResult(), b.getF64FloatAttr(3.0));
    Value slope = mulScalar(cube, -0.5);
    grads[0] = mul(resultGrad(0), slope);
    return success();
  }
  LogicalResult visit(TanhOp tanhOp) {
    grads[0] =
        TanhBackwardOp::create(b, loc, resultGrad(0), tanhOp.getResult());
    return success();
  }
  LogicalResult visit(SigmoidOp sigmoidOp) {
    grads[0] =
        SigmoidBackwardOp::create(b, loc, resultGrad(0), sigmoidOp.getResult());
    return success();
  }
  LogicalResult visit(ReluOp reluOp) {
    grads[0] =
        ReluBackwardOp::create(b, loc, resultGrad(0), reluOp.getResult());
    return success();
  }
  LogicalResult visit(LeakyReluOp leakyOp) {
    grads[0] = LeakyReluBackwardOp::create(
        b, loc, resultGrad(0), leakyOp.getInput(), leakyOp.getAlphaAttr());
    return success();
  }
  LogicalResult visit(GeluOp geluOp) {
    grads[0] = GeluBackwardOp::create(b, loc, resultGrad(0), geluOp.getInput(),
                                      geluOp.getApproximateAttr());
    return success();
  }
  LogicalResult visit(SiluOp siluOp) {
    grads[0] = SiluBackwardOp::create(b, loc, resultGrad(0), siluOp.getInput());
    return success();
  }
  LogicalResult visit(SquareOp squareOp) {
    Value slope = mulScalar(squareOp.getInput(), 2.0);
    grads[0] = mul(resultGrad(0), slope);
    return success();
  }
  LogicalResult visit(PowScalarOp powOp) {
    double exponent = powOp.getExponent().convertToDouble();
    Value input = powOp.getInput();
    if (exponent == 0.0) {
      grads[0] = zeroConstants.get(b, loc, input.getType());
      return success();
    }
    if (exponent == 1.0) {
      grads[0] = resultGrad(0);
      return success();
    }
    // d x^e = e * x^(e - 1); x^1 is written as x itself.
    Value power =
        exponent == 2.0
            ? input
            : Value(PowScalarOp::create(b, loc, input.getType(), input,
                                        b.getF64FloatAttr(exponent - 1.0)));
    Value slope = mulScalar(power, exponent);
    grads[0] = mul(resultGrad(0), slope);
    return success();
  }
  LogicalResult visit(AddScalarOp) {
    grads[0] = resultGrad(0);
    return success();
  }
  LogicalResult visit(MulScalarOp mulOp) {
    grads[0] = MulScalarOp::create(b, loc, mulOp.getType(), resultGrad(0),
                                   mulOp.getScalarAttr());
    return success();
  }
  LogicalResult visit(WhereOp whereOp) {
    // The condition is i1: only the two branches get gradients.
    Value zeros = zeroConstants.get(b, loc, whereOp.getType());
    if (needs(1))
      grads[1] =
          WhereOp::create(b, loc, whereOp.getCondition(), resultGrad(0), zeros);
    if (needs(2))
      grads[2] =
          WhereOp::create(b, loc, whereOp.getCondition(), zeros, resultGrad(0));
    return success();
  }
  LogicalResult visit(CastOp castOp) {
    // Only float -> float casts carry gradients (integers are never
    // differentiated); the gradient is cast back to the input's type.
    grads[0] =
        CastOp::create(b, loc, castOp.getInput().getType(), resultGrad(0));
    return success();
  }

  LogicalResult visit(MatmulOp matmulOp) {
    // C = op(A) @ op(B), op = optional transpose of the last two dims.
    Value lhs = matmulOp.getLhs(), rhs = matmulOp.getRhs(), g = resultGrad(0);
    bool ta = matmulOp.getTransposeA(), tb = matmulOp.getTransposeB();
    if (needs(0)) {
      Value gradLhs = !ta ? matmul(g, rhs, false, !tb) // G op(B)^T
                          : matmul(rhs, g, tb, true);  // (G op(B)^T)^T
      grads[0] = sumBatchTo(gradLhs, lhs.getType());
    }
    if (needs(1)) {
      Value gradRhs = !tb ? matmul(lhs, g, !ta, false) // op(A)^T G
                          : matmul(g, lhs, true, ta);  // (op(A)^T G)^T
      grads[1] = sumBatchTo(gradRhs, rhs.getType());
    }
    return success();
  }
  LogicalResult visit(LinearOp linearOp) {
    // y = x W^T + b with x [..., in]: flatten the leading dims to rows, so
    // dW = dy^T x and db = sum_rows(dy) are single matmuls / reductions.
    Value input = linearOp.getInput(), weight = linearOp.getWeight();
    RankedTensorType inputType = tensorType(input);
    RankedTensorType gradType = tensorType(linearOp.getResult());
    int64_t in = inputType.getShape().back(), out = gradType.getShape().back();
    int64_t rows = inputType.getNumElements() / in;
    Value g2 = reshape(resultGrad(0), withShape(gradType, {rows, out}));
    if (needs(0)) {
      Value gradInput = matmul(g2, weight, false, false);
      grads[0] = reshape(gradInput, inputType);
    }
    if (needs(1)) {
      Value x2 = reshape(input, withShape(inputType, {rows, in}));
      grads[1] = matmul(g2, x2, true, false);
    }
    if (linearOp.getBias() && needs(2))
      grads[2] = sum(g2, {0});
    return success();
  }

  LogicalResult visit(SumOp sumOp) {
    grads[0] = unreduce(resultGrad(0), tensorType(sumOp.getInput()),
                        sumOp.getDims(), sumOp.getKeepdim());
    return success();
  }
  LogicalResult visit(MeanOp meanOp) {
    RankedTensorType inputType = tensorType(meanOp.getInput());
    int64_t count = 1;
    for (int64_t d : meanOp.getDims())
      count *= inputType.getDimSize(d);
    Value spread = unreduce(resultGrad(0), inputType, meanOp.getDims(),
                            meanOp.getKeepdim());
    grads[0] = mulScalar(spread, 1.0 / static_cast<double>(count));
    return success();
  }
  LogicalResult visit(MaxOp maxOp) {
    // The gradient goes to the positions equal to the maximum, split evenly
    // between ties (as PyTorch's amax).
    Value input = maxOp.getInput();
    RankedTensorType inputType = tensorType(input);
    ArrayRef<int64_t> dims = maxOp.getDims();
    bool keepdim = maxOp.getKeepdim();
    Value maxBroadcast = unreduce(maxOp.getResult(), inputType, dims, keepdim);
    Value isMax = CompareOp::create(
        b, loc, RankedTensorType::get(inputType.getShape(), b.getI1Type()),
        input, maxBroadcast, "eq");
    Value isMaxFloat = CastOp::create(b, loc, inputType, isMax);
    Value ties = sum(isMaxFloat, dims, keepdim);
    Value share = div(resultGrad(0), ties);
    grads[0] = mul(unreduce(share, inputType, dims, keepdim), isMaxFloat);
    return success();
  }

  LogicalResult visit(ReshapeOp reshapeOp) {
    grads[0] = reshape(resultGrad(0), reshapeOp.getInput().getType());
    return success();
  }
  LogicalResult visit(TransposeOp transposeOp) {
    ArrayRef<int64_t> perm = transposeOp.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [index, source] : llvm::enumerate(perm))
      inverse[source] = index;
    grads[0] = TransposeOp::create(b, loc, transposeOp.getInput().getType(),
                                   resultGrad(0), inverse);
    return success();
  }
  LogicalResult visit(BroadcastOp broadcastOp) {
    // Sum over the result dims the input did not have or had as size 1,
    // then reshape back to the input's shape (restoring the size-1 dims).
    RankedTensorType inputType = tensorType(broadcastOp.getInput());
    RankedTensorType resultType = tensorType(broadcastOp.getResult());
    SmallVector<int64_t> mapping;
    if (std::optional<ArrayRef<int64_t>> dims = broadcastOp.getDims()) {
      mapping.assign(dims->begin(), dims->end());
    } else {
      int64_t shift = resultType.getRank() - inputType.getRank();
      for (int64_t d = 0, e = inputType.getRank(); d < e; ++d)
        mapping.push_back(d + shift);
    }
    SmallVector<int64_t> summed;
    for (int64_t d = 0, e = resultType.getRank(); d < e; ++d) {
      const int64_t *it = llvm::find(mapping, d);
      if (it == mapping.end() ||
          (inputType.getDimSize(it - mapping.begin()) == 1 &&
           resultType.getDimSize(d) != 1))
        summed.push_back(d);
    }
    grads[0] = reshape(sum(resultGrad(0), summed), inputType);
    return success();
  }
  LogicalResult visit(SliceOp sliceOp) {
    // Scatter the gradient back into zeros, one dimension at a time: a
    // strided dim first interleaves `stride - 1` zeros after every element
    // (reshape + concat), then every dim is padded with zeros before and
    // after (concat). The dialect has no pad / insert_slice op.
    RankedTensorType inputType = tensorType(sliceOp.getInput());
    ArrayRef<int64_t> offsets = sliceOp.getOffsets();
    SmallVector<int64_t> strides(inputType.getRank(), 1);
    if (std::optional<ArrayRef<int64_t>> given = sliceOp.getStrides())
      strides.assign(given->begin(), given->end());
    Value grad = resultGrad(0);
    for (int64_t d = 0, e = inputType.getRank(); d < e; ++d) {
      RankedTensorType type = tensorType(grad);
      int64_t count = type.getDimSize(d), stride = strides[d];
      if (stride > 1 && count > 0) {
        SmallVector<int64_t> split(type.getShape());
        split.insert(split.begin() + d + 1, 1);
        Value column = reshape(grad, withShape(type, split));
        Value spread = padWithZeros(column, d + 1, 0, stride - 1);
        SmallVector<int64_t> merged(type.getShape());
        merged[d] = count * stride;
        grad = reshape(spread, withShape(type, merged));
        // Keep only what fits in the input after the offset.
        int64_t room = inputType.getDimSize(d) - offsets[d];
        if (merged[d] > room) {
          SmallVector<int64_t> sizes(merged);
          sizes[d] = room;
          SmallVector<int64_t> zeroOffsets(merged.size(), 0);
          grad = SliceOp::create(b, loc, withShape(type, sizes), grad,
                                 zeroOffsets, sizes, DenseI64ArrayAttr());
        }
      }
      int64_t extent = tensorType(grad).getDimSize(d);
      grad = padWithZeros(grad, d, offsets[d],
                          inputType.getDimSize(d) - offsets[d] - extent);
    }
    grads[0] = grad;
    return success();
  }
  LogicalResult visit(ConcatOp concatOp) {
    int64_t dim = concatOp.getDim();
    RankedTensorType resultType = tensorType(concatOp.getResult());
    int64_t offset = 0;
    for (auto [index, input] : llvm::enumerate(concatOp.getInputs())) {
      RankedTensorType inputType = tensorType(input);
      if (needs(index)) {
        SmallVector<int64_t> offsets(resultType.getRank(), 0);
        offsets[dim] = offset;
        grads[index] =
            SliceOp::create(b, loc, inputType, resultGrad(0), offsets,
                            inputType.getShape(), DenseI64ArrayAttr());
      }
      offset += inputType.getDimSize(dim);
    }
    return success();
  }

  LogicalResult visit(SoftmaxOp softmaxOp) {
    grads[0] = SoftmaxBackwardOp::create(
        b, loc, resultGrad(0), softmaxOp.getResult(), softmaxOp.getDimAttr());
    return success();
  }
  LogicalResult visit(LogSoftmaxOp logSoftmaxOp) {
    grads[0] = LogSoftmaxBackwardOp::create(b, loc, resultGrad(0),
                                            logSoftmaxOp.getResult(),
                                            logSoftmaxOp.getDimAttr());
    return success();
  }
  LogicalResult visit(RmsNormOp normOp) {
    if (failed(rejectStatisticGrads(1, {"rstd"})))
      return failure();
    if (!normOp.getRstd())
      return op->emitOpError() << "has no 'rstd' result; remat-autodiff "
                                  "emits the two-result form before "
                                  "differentiating it";
    auto backward = RmsNormBackwardOp::create(
        b, loc, normOp.getInput().getType(), normOp.getWeight().getType(),
        resultGrad(0), normOp.getInput(), normOp.getWeight(), normOp.getRstd());
    grads[0] = backward.getGradInput();
    grads[1] = backward.getGradWeight();
    return success();
  }
  LogicalResult visit(LayerNormOp normOp) {
    if (failed(rejectStatisticGrads(1, {"mean", "rstd"})))
      return failure();
    auto backward = LayerNormBackwardOp::create(
        b, loc, normOp.getInput().getType(), normOp.getWeight().getType(),
        normOp.getBias().getType(), resultGrad(0), normOp.getInput(),
        normOp.getWeight(), normOp.getMean(), normOp.getRstd());
    grads[0] = backward.getGradInput();
    grads[1] = backward.getGradWeight();
    grads[2] = backward.getGradBias();
    return success();
  }
  LogicalResult visit(BatchNormOp normOp) {
    if (failed(rejectStatisticGrads(1, {"saved_mean", "saved_invstd"})))
      return failure();
    auto backward = BatchNormBackwardOp::create(
        b, loc, normOp.getInput().getType(), normOp.getWeight().getType(),
        normOp.getBias().getType(), resultGrad(0), normOp.getInput(),
        normOp.getWeight(), normOp.getSavedMean(), normOp.getSavedInvstd());
    grads[0] = backward.getGradInput();
    grads[1] = backward.getGradWeight();
    grads[2] = backward.getGradBias();
    return success();
  }
  LogicalResult visit(SdpaOp sdpaOp) {
    if (failed(rejectStatisticGrads(1, {"logsumexp"})))
      return failure();
    auto backward = SdpaBackwardOp::create(
        b, loc, sdpaOp.getQuery().getType(), sdpaOp.getKey().getType(),
        sdpaOp.getValue().getType(), resultGrad(0), sdpaOp.getQuery(),
        sdpaOp.getKey(), sdpaOp.getValue(), sdpaOp.getResult(),
        sdpaOp.getLogsumexp(), sdpaOp.getScaleAttr(), sdpaOp.getCausalAttr());
    grads[0] = backward.getGradQuery();
    grads[1] = backward.getGradKey();
    grads[2] = backward.getGradValue();
    return success();
  }
  LogicalResult visit(DropoutOp dropoutOp) {
    // The backward reads the keep-mask the forward returned; a plan that
    // drops the mask regenerates it by recomputing the dropout from its
    // (seed, offset) operands, which are never differentiated.
    grads[0] = DropoutBackwardOp::create(b, loc, dropoutOp.getInput().getType(),
                                         resultGrad(0), dropoutOp.getMask(),
                                         dropoutOp.getPAttr());
    return success();
  }
  LogicalResult visit(EmbeddingOp embeddingOp) {
    grads[0] =
        EmbeddingBackwardOp::create(b, loc, embeddingOp.getTable().getType(),
                                    resultGrad(0), embeddingOp.getIndices());
    return success();
  }
  LogicalResult visit(CrossEntropyOp lossOp) {
    grads[0] = CrossEntropyBackwardOp::create(
        b, loc, lossOp.getLogits().getType(), resultGrad(0), lossOp.getLogits(),
        lossOp.getTargets(), lossOp.getReductionAttr());
    return success();
  }
  LogicalResult visit(Conv2dOp convOp) {
    if (needs(0))
      grads[0] = Conv2dBackwardInputOp::create(
          b, loc, convOp.getInput().getType(), resultGrad(0),
          convOp.getWeight(), convOp.getStridesAttr(), convOp.getPaddingAttr(),
          convOp.getDilationAttr(), convOp.getGroupsAttr());
    if (needs(1))
      grads[1] = Conv2dBackwardWeightOp::create(
          b, loc, convOp.getWeight().getType(), resultGrad(0),
          convOp.getInput(), convOp.getStridesAttr(), convOp.getPaddingAttr(),
          convOp.getDilationAttr(), convOp.getGroupsAttr());
    if (convOp.getBias() && needs(2))
      grads[2] = sum(resultGrad(0), {0, 2, 3});
    return success();
  }
  LogicalResult visit(MaxPool2dOp poolOp) {
    grads[0] = MaxPool2dBackwardOp::create(
        b, loc, poolOp.getInput().getType(), resultGrad(0), poolOp.getIndices(),
        poolOp.getKernelAttr(), poolOp.getStridesAttr(),
        poolOp.getPaddingAttr());
    return success();
  }
  LogicalResult visit(AvgPool2dOp poolOp) {
    grads[0] = AvgPool2dBackwardOp::create(
        b, loc, poolOp.getInput().getType(), resultGrad(0),
        poolOp.getKernelAttr(), poolOp.getStridesAttr(),
        poolOp.getPaddingAttr(), poolOp.getCountIncludePadAttr());
    return success();
  }

  LogicalResult visit(OpaqueOp opaqueOp);

  OpBuilder &b;
  Location loc;
  Operation *op;
  ArrayRef<Value> resultGrads;
  ArrayRef<bool> needsGrad;
  ZeroConstants &zeroConstants;
  SmallVectorImpl<Value> &grads;
};

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// `remat.opaque` carries no semantics, so its backward must be declared:
/// `backward = "kernel_bwd"` names an opaque backward kernel that takes the
/// cotangents of the float results, then the forward operands, then the
/// forward results, and returns one gradient per float operand.
/// `backward_flops` (default: twice the forward's FLOPs, the usual
/// backward/forward ratio) is its cost fact; its compute class is the
/// forward's.
LogicalResult BackwardEmitter::visit(OpaqueOp opaqueOp) {
  auto backwardName = opaqueOp->getAttrOfType<StringAttr>("backward");
  if (!backwardName || backwardName.getValue().empty())
    return opaqueOp.emitOpError()
           << "'" << opaqueOp.getOpName()
           << "' has no derivative rule: a gradient flows through it, but "
              "remat.opaque ops carry no semantics; declare its backward "
              "kernel with {backward = \"<name>\"} (optionally "
              "backward_flops = <f64>), or express the computation with "
              "typed remat ops";
  SmallVector<Value> inputs;
  for (auto [index, result] : llvm::enumerate(opaqueOp.getResults()))
    if (isFloatTensor(result.getType()))
      inputs.push_back(resultGrad(index));
  llvm::append_range(inputs, opaqueOp.getInputs());
  llvm::append_range(inputs, opaqueOp.getResults());
  SmallVector<Type> gradTypes;
  SmallVector<unsigned> gradOperands;
  for (auto [index, operand] : llvm::enumerate(opaqueOp.getInputs()))
    if (isFloatTensor(operand.getType())) {
      gradTypes.push_back(operand.getType());
      gradOperands.push_back(index);
    }
  double flops = 2.0 * opaqueOp.getFlops().convertToDouble();
  if (auto declared = opaqueOp->getAttrOfType<FloatAttr>("backward_flops"))
    flops = declared.getValueAsDouble();
  auto backward = OpaqueOp::create(
      b, loc, gradTypes, backwardName, inputs, b.getF64FloatAttr(flops),
      IntegerAttr(), IntegerAttr(), opaqueOp.getComputeClassAttr(),
      /*random=*/UnitAttr(), /*view=*/UnitAttr());
  for (auto [result, operand] : llvm::zip(backward.getResults(), gradOperands))
    grads[operand] = result;
  return success();
}

LogicalResult BackwardEmitter::run() {
  return llvm::TypeSwitch<Operation *, LogicalResult>(op)
      .Case<AddOp, SubOp, MulOp, DivOp, PowOp, NegOp, ExpOp, LogOp, SqrtOp,
            RsqrtOp, TanhOp, SigmoidOp, ReluOp, LeakyReluOp, GeluOp, SiluOp,
            SquareOp, PowScalarOp, AddScalarOp, MulScalarOp, WhereOp, CastOp,
            MatmulOp, LinearOp, SumOp, MeanOp, MaxOp, ReshapeOp, TransposeOp,
            BroadcastOp, SliceOp, ConcatOp, SoftmaxOp, LogSoftmaxOp, RmsNormOp,
            LayerNormOp, BatchNormOp, SdpaOp, DropoutOp, EmbeddingOp,
            CrossEntropyOp, Conv2dOp, MaxPool2dOp, AvgPool2dOp, OpaqueOp>(
          [&](auto typed) { return visit(typed); })
      .Default([&](Operation *other) {
        bool isRemat = other->getDialect() &&
                       other->getDialect()->getNamespace() == "remat";
        InFlightDiagnostic diag = other->emitOpError();
        if (isRemat)
          diag << "has no derivative rule in remat-autodiff: it is a "
                  "backward op (second-order differentiation is not "
                  "supported) and a gradient flows through it";
        else
          diag << "has no derivative rule in remat-autodiff, but a gradient "
                  "flows through it; express it with remat ops, or wrap it "
                  "in remat.opaque with a declared backward";
        return diag;
      });
}

} // namespace

LogicalResult emitBackward(OpBuilder &builder, Operation *op,
                           ArrayRef<Value> resultGrads,
                           ArrayRef<bool> operandNeedsGrad,
                           ZeroConstants &zeros,
                           SmallVectorImpl<Value> &operandGrads) {
  BackwardEmitter emitter(builder, op, resultGrads, operandNeedsGrad, zeros,
                          operandGrads);
  if (failed(emitter.run()))
    return failure();
  // Rules may compute a gradient the caller did not ask for (e.g. both
  // gradients of an add); drop those so inactive operands stay untouched.
  for (auto [grad, needed] : llvm::zip(operandGrads, operandNeedsGrad))
    if (!needed)
      grad = Value();
  return success();
}

} // namespace remat::autodiff
