//===- RematNNOps.cpp - neural-network ops --------------------------------===//
//
// Part of remat. Verifiers and PlannerOpInterface implementations of the ops
// in RematNNOps.td.
//
// FLOP counts follow the conventions of the field so the roofline matches
// published numbers: attention and convolution count only their
// multiply-adds (2 FLOPs each), the others count one FLOP per arithmetic
// step per element. Each op's ODS description states its formula.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <string>

using namespace mlir;
using namespace remat;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

double product(ArrayRef<int64_t> shape) {
  double result = 1.0;
  for (int64_t dim : shape)
    result *= static_cast<double>(dim);
  return result;
}

double numElements(Type type) { return remat::detail::elementCount(type); }

/// `[2, 16, 64]`; `[]` for rank 0.
std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [index, dim] : llvm::enumerate(shape)) {
    if (index)
      text += ", ";
    text += std::to_string(dim);
  }
  return text + "]";
}

/// `<name> must be <expected> (<reason>), got <actual>`.
LogicalResult expectType(Operation *op, StringRef name, Type actual,
                         Type expected, StringRef reason) {
  if (actual == expected)
    return success();
  return op->emitOpError() << name << " must be " << expected << " (" << reason
                           << "), got " << actual;
}

/// `<name> must have shape <expected> (<reason>), got <actual>`.
LogicalResult expectShape(Operation *op, StringRef name, ShapedType actual,
                          ArrayRef<int64_t> expected, StringRef reason) {
  if (actual.getShape() == expected)
    return success();
  return op->emitOpError() << name << " must have shape "
                           << formatShape(expected) << " (" << reason
                           << "), got " << formatShape(actual.getShape());
}

/// A statistics operand or result: `expected` shape, and the element type
/// statsElementType gives for `input`.
LogicalResult expectStats(Operation *op, StringRef name, ShapedType actual,
                          ArrayRef<int64_t> expected, StringRef reason,
                          ShapedType input) {
  if (failed(expectShape(op, name, actual, expected, reason)))
    return failure();
  Type element = statsElementType(input.getElementType());
  if (actual.getElementType() == element)
    return success();
  return op->emitOpError() << name << " must have element type " << element
                           << " (statistics of " << input.getElementType()
                           << " values), got " << actual.getElementType();
}

LogicalResult expectRank(Operation *op, StringRef name, ShapedType actual,
                         int64_t rank, StringRef layout) {
  if (actual.getRank() == rank)
    return success();
  return op->emitOpError() << name << " must have rank " << rank << " ("
                           << layout << "), got rank " << actual.getRank();
}

RankedTensorType withShape(ShapedType like, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, like.getElementType());
}

//===----------------------------------------------------------------------===//
// Shared verifiers
//===----------------------------------------------------------------------===//

LogicalResult verifyDim(Operation *op, int64_t dim, ShapedType type) {
  if (dim >= 0 && dim < type.getRank())
    return success();
  return op->emitOpError() << "dim " << dim << " is out of range for a rank-"
                           << type.getRank() << " tensor; expected 0 <= dim < "
                           << type.getRank();
}

/// Non-negative and not NaN (`!(x >= 0)` catches NaN).
LogicalResult verifyEpsilon(Operation *op, double eps) {
  if (eps >= 0 && std::isfinite(eps))
    return success();
  return op->emitOpError() << "eps must be a finite number >= 0, got " << eps;
}

/// `weight` spans the trailing dimensions of `input`; on success `leading`
/// holds the other (leading) dimensions, the shape of the statistics.
LogicalResult verifyNormalizedShape(Operation *op, ShapedType input,
                                    ShapedType weight,
                                    SmallVectorImpl<int64_t> &leading) {
  int64_t normalizedRank = weight.getRank();
  if (normalizedRank < 1 || normalizedRank > input.getRank())
    return op->emitOpError()
           << "weight must have rank between 1 and the input rank "
           << input.getRank() << " (it spans the normalized trailing "
           << "dimensions), got rank " << normalizedRank;
  ArrayRef<int64_t> trailing = input.getShape().take_back(normalizedRank);
  if (trailing != weight.getShape())
    return op->emitOpError()
           << "weight shape " << formatShape(weight.getShape())
           << " must equal the trailing dimensions of input shape "
           << formatShape(input.getShape()) << ", i.e. "
           << formatShape(trailing);
  if (weight.getElementType() != input.getElementType())
    return op->emitOpError()
           << "weight must have the input's element type "
           << input.getElementType() << ", got " << weight.getElementType();
  leading.assign(input.getShape().begin(),
                 input.getShape().end() - normalizedRank);
  return success();
}

/// Batch norm's per-channel operands: `[C]` in the input's element type.
LogicalResult verifyBatchNormChannels(
    Operation *op, ShapedType input,
    ArrayRef<std::pair<StringRef, Type>> perChannelTensors) {
  if (input.getRank() < 2)
    return op->emitOpError()
           << "input must have rank >= 2 ([N, C, ...], channels in "
           << "dimension 1), got rank " << input.getRank();
  RankedTensorType channelType = withShape(input, {input.getDimSize(1)});
  for (auto [name, type] : perChannelTensors)
    if (failed(expectType(op, name, type, channelType,
                          "[C] in the input's element type")))
      return failure();
  return success();
}

struct AttentionShape {
  int64_t batch = 0, queryHeads = 0, queryLength = 0, keyLength = 0,
          headDim = 0, valueDim = 0;
};

/// q `[B, Hq, Sq, D]`, k `[B, Hkv, Skv, D]`, v `[B, Hkv, Skv, Dv]`; the output
/// `[B, Hq, Sq, Dv]` and logsumexp `[B, Hq, Sq]`.
LogicalResult verifyAttention(Operation *op, ShapedType query, ShapedType key,
                              ShapedType value, ShapedType output,
                              ShapedType logsumexp, double scale) {
  const char *layout = "[batch, heads, seq, head_dim]";
  if (failed(expectRank(op, "query", query, 4, layout)) ||
      failed(expectRank(op, "key", key, 4, layout)) ||
      failed(expectRank(op, "value", value, 4, layout)))
    return failure();
  if (key.getElementType() != query.getElementType() ||
      value.getElementType() != query.getElementType())
    return op->emitOpError()
           << "key and value must have the query's element type "
           << query.getElementType() << ", got " << key.getElementType()
           << " and " << value.getElementType();
  if (key.getDimSize(0) != query.getDimSize(0) ||
      value.getDimSize(0) != query.getDimSize(0))
    return op->emitOpError()
           << "key and value batch sizes must equal the query's "
           << query.getDimSize(0) << ", got " << key.getDimSize(0) << " and "
           << value.getDimSize(0);
  if (key.getDimSize(1) != value.getDimSize(1))
    return op->emitOpError()
           << "key and value must have the same number of heads, got "
           << key.getDimSize(1) << " and " << value.getDimSize(1);
  if (key.getDimSize(1) == 0 || query.getDimSize(1) % key.getDimSize(1) != 0)
    return op->emitOpError()
           << "key/value heads (" << key.getDimSize(1)
           << ") must divide query heads (" << query.getDimSize(1)
           << ") for grouped-query attention";
  if (key.getDimSize(2) != value.getDimSize(2))
    return op->emitOpError()
           << "key and value must have the same sequence length, got "
           << key.getDimSize(2) << " and " << value.getDimSize(2);
  if (key.getDimSize(3) != query.getDimSize(3))
    return op->emitOpError()
           << "query and key must have the same head_dim, got "
           << query.getDimSize(3) << " and " << key.getDimSize(3);
  if (!(scale > 0) || !std::isfinite(scale))
    return op->emitOpError()
           << "scale must be a finite number > 0, got " << scale;
  int64_t batch = query.getDimSize(0), heads = query.getDimSize(1),
          length = query.getDimSize(2), valueDim = value.getDimSize(3);
  if (failed(expectType(op, "output", output,
                        withShape(query, {batch, heads, length, valueDim}),
                        "[batch, query heads, query seq, value head_dim] in "
                        "the query's element type")))
    return failure();
  return expectStats(op, "logsumexp", logsumexp, {batch, heads, length},
                     "[batch, query heads, query seq]", query);
}

AttentionShape attentionShape(ShapedType query, ShapedType key,
                              ShapedType value) {
  AttentionShape shape;
  shape.batch = query.getDimSize(0);
  shape.queryHeads = query.getDimSize(1);
  shape.queryLength = query.getDimSize(2);
  shape.keyLength = key.getDimSize(2);
  shape.headDim = query.getDimSize(3);
  shape.valueDim = value.getDimSize(3);
  return shape;
}

/// 2 FLOPs per multiply-add for every (query, key) pair, counted per
/// feature; a causal mask skips about half of the pairs (flash attention's
/// convention), whatever the block structure of the kernel.
double attentionPairs(const AttentionShape &shape, bool causal) {
  double pairs = static_cast<double>(shape.batch) * shape.queryHeads *
                 shape.queryLength * shape.keyLength;
  return causal ? pairs / 2 : pairs;
}

LogicalResult verifyProbability(Operation *op, double p) {
  if (p >= 0 && p < 1)
    return success();
  return op->emitOpError() << "p must be in [0, 1), got " << p;
}

LogicalResult verifyReduction(Operation *op, StringRef reduction) {
  if (reduction == "mean" || reduction == "sum")
    return success();
  return op->emitOpError() << "reduction must be \"mean\" or \"sum\", got \""
                           << reduction << "\"";
}

LogicalResult verifyPairAttr(Operation *op, StringRef name,
                             ArrayRef<int64_t> values, int64_t minimum) {
  if (values.size() != 2)
    return op->emitOpError()
           << name << " must have 2 elements ([height, width]), got "
           << values.size();
  if (values[0] < minimum || values[1] < minimum)
    return op->emitOpError()
           << name << " must be >= " << minimum << " in both dimensions, got "
           << formatShape(values);
  return success();
}

/// Which tensor of a conv or pooling op plays which role: the forward and
/// backward ops share one shape relation but name its ends differently.
struct WindowNames {
  StringRef input;
  StringRef weight;
  StringRef output;
};

const char *kNchw = "[N, C, H, W]";
const char *kSpatialNames[2] = {"height", "width"};

/// Checks the output spatial size of a window op with an effective window of
/// `window[i]` elements: `(H + 2 * padding - window) / stride + 1`.
LogicalResult verifyOutputSize(Operation *op, const WindowNames &names,
                               ShapedType input, ShapedType output,
                               ArrayRef<int64_t> window,
                               ArrayRef<int64_t> strides,
                               ArrayRef<int64_t> padding,
                               ArrayRef<StringRef> formulas) {
  for (int i = 0; i < 2; ++i) {
    int64_t size = input.getDimSize(2 + i);
    int64_t padded = size + 2 * padding[i];
    if (padded < window[i])
      return op->emitOpError()
             << "the " << kSpatialNames[i] << " window (" << window[i]
             << ") exceeds the padded " << names.input << " "
             << kSpatialNames[i] << " (" << padded << ")";
    int64_t expected = (padded - window[i]) / strides[i] + 1;
    if (output.getDimSize(2 + i) != expected)
      return op->emitOpError()
             << names.output << " " << kSpatialNames[i] << " must be "
             << formulas[i] << " = " << expected << " for " << names.input
             << " " << kSpatialNames[i] << " " << size << ", got "
             << output.getDimSize(2 + i);
  }
  return success();
}

LogicalResult verifyConv2d(Operation *op, const WindowNames &names,
                           ShapedType input, ShapedType weight,
                           ShapedType output, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> dilation, int64_t groups) {
  if (failed(verifyPairAttr(op, "strides", strides, 1)) ||
      failed(verifyPairAttr(op, "padding", padding, 0)) ||
      failed(verifyPairAttr(op, "dilation", dilation, 1)))
    return failure();
  if (groups < 1)
    return op->emitOpError() << "groups must be >= 1, got " << groups;
  if (failed(expectRank(op, names.input, input, 4, kNchw)) ||
      failed(
          expectRank(op, names.weight, weight, 4, "[K, C / groups, R, S]")) ||
      failed(expectRank(op, names.output, output, 4, "[N, K, OH, OW]")))
    return failure();
  if (weight.getElementType() != input.getElementType() ||
      output.getElementType() != input.getElementType())
    return op->emitOpError()
           << names.input << ", " << names.weight << " and " << names.output
           << " must have one element type, got " << input.getElementType()
           << ", " << weight.getElementType() << " and "
           << output.getElementType();
  if (output.getDimSize(0) != input.getDimSize(0))
    return op->emitOpError()
           << names.output << " batch size must be the " << names.input << "'s "
           << input.getDimSize(0) << ", got " << output.getDimSize(0);
  int64_t channels = input.getDimSize(1), filters = output.getDimSize(1);
  if (channels % groups != 0 || filters % groups != 0)
    return op->emitOpError()
           << "groups = " << groups << " must divide the input channels ("
           << channels << ") and the output channels (" << filters << ")";
  if (weight.getDimSize(0) != filters)
    return op->emitOpError() << names.weight << " has " << weight.getDimSize(0)
                             << " filters but " << names.output << " has "
                             << filters << " channels; they must be equal";
  if (weight.getDimSize(1) != channels / groups)
    return op->emitOpError()
           << names.weight
           << " dimension 1 must be C / groups = " << channels / groups
           << ", got " << weight.getDimSize(1);
  SmallVector<int64_t, 2> window = {
      dilation[0] * (weight.getDimSize(2) - 1) + 1,
      dilation[1] * (weight.getDimSize(3) - 1) + 1};
  StringRef formulas[2] = {
      "(H + 2 * padding[0] - dilation[0] * (R - 1) - 1) / strides[0] + 1",
      "(W + 2 * padding[1] - dilation[1] * (S - 1) - 1) / strides[1] + 1"};
  return verifyOutputSize(op, names, input, output, window, strides, padding,
                          formulas);
}

/// 2 FLOPs per multiply-add: each output element sums C / groups * R * S
/// products (`weight` dimensions 1-3).
double convFlops(ShapedType output, ShapedType weight) {
  return 2.0 * product(output.getShape()) *
         product(weight.getShape().drop_front());
}

LogicalResult verifyPool2d(Operation *op, const WindowNames &names,
                           ShapedType input, ShapedType output,
                           ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> padding) {
  if (failed(verifyPairAttr(op, "kernel", kernel, 1)) ||
      failed(verifyPairAttr(op, "strides", strides, 1)) ||
      failed(verifyPairAttr(op, "padding", padding, 0)))
    return failure();
  if (2 * padding[0] > kernel[0] || 2 * padding[1] > kernel[1])
    return op->emitOpError()
           << "padding " << formatShape(padding)
           << " must be at most half the kernel " << formatShape(kernel);
  if (failed(expectRank(op, names.input, input, 4, kNchw)) ||
      failed(expectRank(op, names.output, output, 4, "[N, C, OH, OW]")))
    return failure();
  if (output.getElementType() != input.getElementType())
    return op->emitOpError()
           << names.output << " must have the element type of " << names.input
           << ", " << input.getElementType() << ", got "
           << output.getElementType();
  if (output.getDimSize(0) != input.getDimSize(0) ||
      output.getDimSize(1) != input.getDimSize(1))
    return op->emitOpError()
           << names.output << " must have the N and C dimensions of "
           << names.input << " (" << formatShape(input.getShape().take_front(2))
           << "), got " << formatShape(output.getShape().take_front(2));
  StringRef formulas[2] = {"(H + 2 * padding[0] - kernel[0]) / strides[0] + 1",
                           "(W + 2 * padding[1] - kernel[1]) / strides[1] + 1"};
  return verifyOutputSize(op, names, input, output, kernel, strides, padding,
                          formulas);
}

} // namespace

Type remat::statsElementType(Type inputElement) {
  MLIRContext *context = inputElement.getContext();
  return inputElement.isF64() ? Type(Float64Type::get(context))
                              : Type(Float32Type::get(context));
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  return verifyDim(*this, getDim(), getType());
}
double SoftmaxOp::estimateFlops() { return 5 * numElements(getType()); }
remat::ComputeClass SoftmaxOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult LogSoftmaxOp::verify() {
  return verifyDim(*this, getDim(), getType());
}
double LogSoftmaxOp::estimateFlops() { return 5 * numElements(getType()); }
remat::ComputeClass LogSoftmaxOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult SoftmaxBackwardOp::verify() {
  return verifyDim(*this, getDim(), getType());
}
double SoftmaxBackwardOp::estimateFlops() { return 4 * numElements(getType()); }
remat::ComputeClass SoftmaxBackwardOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult LogSoftmaxBackwardOp::verify() {
  return verifyDim(*this, getDim(), getType());
}
double LogSoftmaxBackwardOp::estimateFlops() {
  return 4 * numElements(getType());
}
remat::ComputeClass LogSoftmaxBackwardOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

LogicalResult RmsNormOp::verify() {
  SmallVector<int64_t> leading;
  if (failed(verifyEpsilon(*this, getEps().convertToDouble())) ||
      failed(verifyNormalizedShape(*this, getInput().getType(),
                                   getWeight().getType(), leading)) ||
      failed(expectType(*this, "result", getResult().getType(),
                        getInput().getType(), "the input's type")))
    return failure();
  if (TypedValue<RankedTensorType> rstd = getRstd())
    return expectStats(*this, "rstd", rstd.getType(), leading,
                       "the input's leading, non-normalized dimensions",
                       getInput().getType());
  return success();
}
double RmsNormOp::estimateFlops() {
  return 4 * numElements(getInput().getType());
}
remat::ComputeClass RmsNormOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult RmsNormBackwardOp::verify() {
  SmallVector<int64_t> leading;
  Type inputType = getInput().getType();
  if (failed(verifyNormalizedShape(*this, getInput().getType(),
                                   getWeight().getType(), leading)) ||
      failed(expectType(*this, "grad", getGrad().getType(), inputType,
                        "the input's type")) ||
      failed(expectStats(*this, "rstd", getRstd().getType(), leading,
                         "the input's leading, non-normalized dimensions",
                         getInput().getType())) ||
      failed(expectType(*this, "grad_input", getGradInput().getType(),
                        inputType, "the input's type")))
    return failure();
  return expectType(*this, "grad_weight", getGradWeight().getType(),
                    getWeight().getType(), "the weight's type");
}
double RmsNormBackwardOp::estimateFlops() {
  return 9 * numElements(getInput().getType());
}
remat::ComputeClass RmsNormBackwardOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult LayerNormOp::verify() {
  SmallVector<int64_t> leading;
  const char *statsShape = "the input's leading, non-normalized dimensions";
  if (failed(verifyEpsilon(*this, getEps().convertToDouble())) ||
      failed(verifyNormalizedShape(*this, getInput().getType(),
                                   getWeight().getType(), leading)) ||
      failed(expectType(*this, "bias", getBias().getType(),
                        getWeight().getType(), "the weight's type")) ||
      failed(expectType(*this, "result", getResult().getType(),
                        getInput().getType(), "the input's type")) ||
      failed(expectStats(*this, "mean", getMean().getType(), leading,
                         statsShape, getInput().getType())))
    return failure();
  return expectStats(*this, "rstd", getRstd().getType(), leading, statsShape,
                     getInput().getType());
}
double LayerNormOp::estimateFlops() {
  return 7 * numElements(getInput().getType());
}
remat::ComputeClass LayerNormOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult LayerNormBackwardOp::verify() {
  SmallVector<int64_t> leading;
  const char *statsShape = "the input's leading, non-normalized dimensions";
  Type inputType = getInput().getType(), weightType = getWeight().getType();
  if (failed(verifyNormalizedShape(*this, getInput().getType(),
                                   getWeight().getType(), leading)) ||
      failed(expectType(*this, "grad", getGrad().getType(), inputType,
                        "the input's type")) ||
      failed(expectStats(*this, "mean", getMean().getType(), leading,
                         statsShape, getInput().getType())) ||
      failed(expectStats(*this, "rstd", getRstd().getType(), leading,
                         statsShape, getInput().getType())) ||
      failed(expectType(*this, "grad_input", getGradInput().getType(),
                        inputType, "the input's type")) ||
      failed(expectType(*this, "grad_weight", getGradWeight().getType(),
                        weightType, "the weight's type")))
    return failure();
  return expectType(*this, "grad_bias", getGradBias().getType(), weightType,
                    "the weight's type");
}
double LayerNormBackwardOp::estimateFlops() {
  return 13 * numElements(getInput().getType());
}
remat::ComputeClass LayerNormBackwardOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyEpsilon(*this, getEps().convertToDouble())) ||
      failed(verifyBatchNormChannels(*this, getInput().getType(),
                                     {{"weight", getWeight().getType()},
                                      {"bias", getBias().getType()}})) ||
      failed(expectType(*this, "result", getResult().getType(),
                        getInput().getType(), "the input's type")))
    return failure();
  int64_t channels = getInput().getType().getDimSize(1);
  if (failed(expectStats(*this, "saved_mean", getSavedMean().getType(),
                         {channels}, "[C]", getInput().getType())))
    return failure();
  return expectStats(*this, "saved_invstd", getSavedInvstd().getType(),
                     {channels}, "[C]", getInput().getType());
}
double BatchNormOp::estimateFlops() {
  return 7 * numElements(getInput().getType());
}
remat::ComputeClass BatchNormOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

LogicalResult BatchNormBackwardOp::verify() {
  Type inputType = getInput().getType();
  if (failed(
          verifyBatchNormChannels(*this, getInput().getType(),
                                  {{"weight", getWeight().getType()},
                                   {"grad_weight", getGradWeight().getType()},
                                   {"grad_bias", getGradBias().getType()}})) ||
      failed(expectType(*this, "grad", getGrad().getType(), inputType,
                        "the input's type")) ||
      failed(expectType(*this, "grad_input", getGradInput().getType(),
                        inputType, "the input's type")))
    return failure();
  int64_t channels = getInput().getType().getDimSize(1);
  if (failed(expectStats(*this, "saved_mean", getSavedMean().getType(),
                         {channels}, "[C]", getInput().getType())))
    return failure();
  return expectStats(*this, "saved_invstd", getSavedInvstd().getType(),
                     {channels}, "[C]", getInput().getType());
}
double BatchNormBackwardOp::estimateFlops() {
  return 13 * numElements(getInput().getType());
}
remat::ComputeClass BatchNormBackwardOp::classifyCompute() {
  return remat::ComputeClass::Normalization;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult SdpaOp::verify() {
  return verifyAttention(*this, getQuery().getType(), getKey().getType(),
                         getValue().getType(), getResult().getType(),
                         getLogsumexp().getType(),
                         getScale().convertToDouble());
}
double SdpaOp::estimateFlops() {
  AttentionShape shape = attentionShape(
      getQuery().getType(), getKey().getType(), getValue().getType());
  // Q K^T over head_dim, then P V over the value head_dim.
  return 2.0 * attentionPairs(shape, getCausal()) *
         static_cast<double>(shape.headDim + shape.valueDim);
}
remat::ComputeClass SdpaOp::classifyCompute() {
  return remat::ComputeClass::Attention;
}

LogicalResult SdpaBackwardOp::verify() {
  if (failed(verifyAttention(*this, getQuery().getType(), getKey().getType(),
                             getValue().getType(), getOutput().getType(),
                             getLogsumexp().getType(),
                             getScale().convertToDouble())) ||
      failed(expectType(*this, "grad", getGrad().getType(),
                        getOutput().getType(), "the output's type")) ||
      failed(expectType(*this, "grad_query", getGradQuery().getType(),
                        getQuery().getType(), "the query's type")) ||
      failed(expectType(*this, "grad_key", getGradKey().getType(),
                        getKey().getType(), "the key's type")))
    return failure();
  return expectType(*this, "grad_value", getGradValue().getType(),
                    getValue().getType(), "the value's type");
}
double SdpaBackwardOp::estimateFlops() {
  AttentionShape shape = attentionShape(
      getQuery().getType(), getKey().getType(), getValue().getType());
  // Scores recomputed (Q K^T), dQ = dS K and dK = dS^T Q contract over
  // head_dim; dV = P^T dO and dP = dO V^T over the value head_dim.
  return 2.0 * attentionPairs(shape, getCausal()) *
         static_cast<double>(3 * shape.headDim + 2 * shape.valueDim);
}
remat::ComputeClass SdpaBackwardOp::classifyCompute() {
  return remat::ComputeClass::Attention;
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::verify() {
  if (failed(verifyProbability(*this, getP().convertToDouble())) ||
      failed(expectType(*this, "result", getResult().getType(),
                        getInput().getType(), "the input's type")))
    return failure();
  return expectShape(*this, "mask", getMask().getType(),
                     getInput().getType().getShape(), "the input's shape");
}
double DropoutOp::estimateFlops() {
  return 3 * numElements(getInput().getType());
}
remat::ComputeClass DropoutOp::classifyCompute() {
  return remat::ComputeClass::Random;
}
bool DropoutOp::drawsRandomNumbers() { return true; }

LogicalResult DropoutBackwardOp::verify() {
  if (failed(verifyProbability(*this, getP().convertToDouble())) ||
      failed(expectShape(*this, "mask", getMask().getType(),
                         getGrad().getType().getShape(), "the grad's shape")))
    return failure();
  return expectType(*this, "result", getResult().getType(), getGrad().getType(),
                    "the grad's type");
}
double DropoutBackwardOp::estimateFlops() {
  return 2 * numElements(getGrad().getType());
}
remat::ComputeClass DropoutBackwardOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// Lookups into a table of no rows: every index is out of range, which the
/// lowering's clamp cannot mend (it clamped to row -1, and the compiled
/// code crashed). Harmless when there is nothing to look up.
static LogicalResult verifyRowsForIndices(Operation *op, StringRef table,
                                   ShapedType tableType, ShapedType indices) {
  if (tableType.getDimSize(0) == 0 && indices.getNumElements() > 0)
    return op->emitOpError()
           << table << " has no rows (num_embeddings 0), so each of the "
           << indices.getNumElements() << " indices is out of range";
  return success();
}

LogicalResult EmbeddingOp::verify() {
  if (failed(expectRank(*this, "table", getTable().getType(), 2,
                        "[num_embeddings, embedding_dim]")) ||
      failed(verifyRowsForIndices(*this, "table", getTable().getType(),
                                  getIndices().getType())))
    return failure();
  SmallVector<int64_t> shape(getIndices().getType().getShape());
  shape.push_back(getTable().getType().getDimSize(1));
  return expectType(*this, "result", getResult().getType(),
                    withShape(getTable().getType(), shape),
                    "the indices' shape plus [embedding_dim], in the table's "
                    "element type");
}
double EmbeddingOp::estimateFlops() { return 0; }
remat::ComputeClass EmbeddingOp::classifyCompute() {
  return remat::ComputeClass::Other;
}
int64_t EmbeddingOp::estimateBytesRead() {
  // A gather touches only the rows it returns, not the whole table.
  return detail::typeBytes(getIndices().getType()) +
         detail::typeBytes(getResult().getType());
}

LogicalResult EmbeddingBackwardOp::verify() {
  if (failed(expectRank(*this, "result", getResult().getType(), 2,
                        "[num_embeddings, embedding_dim]")) ||
      failed(verifyRowsForIndices(*this, "result", getResult().getType(),
                                  getIndices().getType())))
    return failure();
  int64_t embeddingDim = getResult().getType().getDimSize(1);
  SmallVector<int64_t> shape(getIndices().getType().getShape());
  shape.push_back(embeddingDim);
  if (failed(expectShape(*this, "grad", getGrad().getType(), shape,
                         "the indices' shape plus [embedding_dim]")))
    return failure();
  if (getResult().getType().getElementType() !=
      getGrad().getType().getElementType())
    return emitOpError() << "result must have the grad's element type "
                         << getGrad().getType().getElementType() << ", got "
                         << getResult().getType().getElementType();
  return success();
}
double EmbeddingBackwardOp::estimateFlops() {
  return numElements(getGrad().getType());
}
remat::ComputeClass EmbeddingBackwardOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

namespace {
LogicalResult verifyCrossEntropyOperands(Operation *op, ShapedType logits,
                                         ShapedType targets, ShapedType loss,
                                         StringRef lossName,
                                         StringRef reduction) {
  if (failed(verifyReduction(op, reduction)) ||
      failed(expectRank(op, "logits", logits, 2, "[N, C]")) ||
      failed(expectShape(op, "targets", targets, {logits.getDimSize(0)},
                         "[N], one class index per row of the logits")))
    return failure();
  if (logits.getDimSize(1) == 0 && logits.getDimSize(0) > 0)
    return op->emitOpError()
           << "logits have no classes (C = 0), so each of the "
           << logits.getDimSize(0) << " targets is out of range";
  if (loss.getElementType() != logits.getElementType())
    return op->emitOpError()
           << lossName << " must have the logits' element type "
           << logits.getElementType() << ", got " << loss.getElementType();
  return success();
}
} // namespace

LogicalResult CrossEntropyOp::verify() {
  return verifyCrossEntropyOperands(
      *this, getLogits().getType(), getTargets().getType(),
      getResult().getType(), "result", getReduction());
}
double CrossEntropyOp::estimateFlops() {
  return 5 * numElements(getLogits().getType()) +
         numElements(getTargets().getType());
}
remat::ComputeClass CrossEntropyOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult CrossEntropyBackwardOp::verify() {
  if (failed(verifyCrossEntropyOperands(
          *this, getLogits().getType(), getTargets().getType(),
          getGrad().getType(), "grad", getReduction())))
    return failure();
  return expectType(*this, "result", getResult().getType(),
                    getLogits().getType(), "the logits' type");
}
double CrossEntropyBackwardOp::estimateFlops() {
  return 6 * numElements(getLogits().getType()) +
         numElements(getTargets().getType());
}
remat::ComputeClass CrossEntropyBackwardOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::verify() {
  if (failed(verifyConv2d(*this, {"input", "weight", "result"},
                          getInput().getType(), getWeight().getType(),
                          getResult().getType(), getStrides(), getPadding(),
                          getDilation(), getGroups())))
    return failure();
  if (TypedValue<RankedTensorType> bias = getBias())
    return expectType(
        *this, "bias", bias.getType(),
        withShape(getWeight().getType(), {getWeight().getType().getDimSize(0)}),
        "[K] in the weight's element type");
  return success();
}
double Conv2dOp::estimateFlops() {
  double flops = convFlops(getResult().getType(), getWeight().getType());
  if (getBias())
    flops += numElements(getResult().getType());
  return flops;
}
remat::ComputeClass Conv2dOp::classifyCompute() {
  return remat::ComputeClass::Conv;
}

LogicalResult Conv2dBackwardInputOp::verify() {
  return verifyConv2d(*this, {"result", "weight", "grad"},
                      getResult().getType(), getWeight().getType(),
                      getGrad().getType(), getStrides(), getPadding(),
                      getDilation(), getGroups());
}
double Conv2dBackwardInputOp::estimateFlops() {
  return convFlops(getGrad().getType(), getWeight().getType());
}
remat::ComputeClass Conv2dBackwardInputOp::classifyCompute() {
  return remat::ComputeClass::Conv;
}

LogicalResult Conv2dBackwardWeightOp::verify() {
  return verifyConv2d(*this, {"input", "result", "grad"}, getInput().getType(),
                      getResult().getType(), getGrad().getType(), getStrides(),
                      getPadding(), getDilation(), getGroups());
}
double Conv2dBackwardWeightOp::estimateFlops() {
  return convFlops(getGrad().getType(), getResult().getType());
}
remat::ComputeClass Conv2dBackwardWeightOp::classifyCompute() {
  return remat::ComputeClass::Conv;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2dOp::verify() {
  if (failed(verifyPool2d(*this, {"input", "", "result"}, getInput().getType(),
                          getResult().getType(), getKernel(), getStrides(),
                          getPadding())))
    return failure();
  return expectShape(*this, "indices", getIndices().getType(),
                     getResult().getType().getShape(), "the result's shape");
}
double MaxPool2dOp::estimateFlops() {
  return numElements(getResult().getType()) * product(getKernel());
}
remat::ComputeClass MaxPool2dOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult MaxPool2dBackwardOp::verify() {
  if (failed(verifyPool2d(*this, {"result", "", "grad"}, getResult().getType(),
                          getGrad().getType(), getKernel(), getStrides(),
                          getPadding())))
    return failure();
  return expectShape(*this, "indices", getIndices().getType(),
                     getGrad().getType().getShape(), "the grad's shape");
}
double MaxPool2dBackwardOp::estimateFlops() {
  return numElements(getGrad().getType());
}
remat::ComputeClass MaxPool2dBackwardOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult AvgPool2dOp::verify() {
  return verifyPool2d(*this, {"input", "", "result"}, getInput().getType(),
                      getResult().getType(), getKernel(), getStrides(),
                      getPadding());
}
double AvgPool2dOp::estimateFlops() {
  return numElements(getResult().getType()) * (product(getKernel()) + 1);
}
remat::ComputeClass AvgPool2dOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult AvgPool2dBackwardOp::verify() {
  return verifyPool2d(*this, {"result", "", "grad"}, getResult().getType(),
                      getGrad().getType(), getKernel(), getStrides(),
                      getPadding());
}
double AvgPool2dBackwardOp::estimateFlops() {
  return numElements(getGrad().getType()) * product(getKernel());
}
remat::ComputeClass AvgPool2dBackwardOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}
