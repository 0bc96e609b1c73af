//===- RematMathOps.cpp - elementwise, contraction, reduction, shape ops --===//
//
// Part of remat. Verifiers and PlannerOpInterface implementations of the ops
// in RematMathOps.td. Ops whose cost is a fixed number of FLOPs per element
// get estimateFlops/classifyCompute generated from the .td (see the cost table
// at the top of RematMathOps.td); the rest are here.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

#include <algorithm>

using namespace mlir;
using namespace remat;

namespace {
double numElements(Type type) { return remat::detail::elementCount(type); }

/// Prints `[1, 2, 3]` for diagnostics.
std::string formatList(ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(values, os);
  os << "]";
  return text;
}

/// True when `value` is produced by a constant (ours or any ConstantLike op,
/// e.g. arith.constant) whose every element is a finite, non-zero float, so
/// dividing by it recovers the other factor of a product. Anything else
/// (masks, exp/sigmoid outputs that can underflow to 0, unknown producers)
/// is not known non-zero.
bool isKnownFiniteNonZeroConstant(Value value) {
  Attribute attr;
  if (auto constant = value.getDefiningOp<ConstantOp>())
    attr = constant.getValue();
  else if (!matchPattern(value, m_Constant(&attr)))
    return false;
  auto dense = dyn_cast_or_null<DenseFPElementsAttr>(attr);
  if (!dense)
    return false;
  if (dense.isSplat())
    return dense.getSplatValue<APFloat>().isFiniteNonZero();
  return llvm::all_of(dense.getValues<APFloat>(),
                      [](const APFloat &v) { return v.isFiniteNonZero(); });
}

LogicalResult verifyGeluApproximation(Operation *op, StringRef approximate) {
  if (approximate != "none" && approximate != "tanh")
    return op->emitOpError() << "has unknown approximate = \"" << approximate
                             << "\"; expected \"none\" (erf form) or \"tanh\"";
  return success();
}

/// Shape of `input` reduced over `dims`, for sum/mean/max; fails with a
/// diagnostic naming the offending entry of `dims`.
FailureOr<RankedTensorType> reducedType(Operation *op, RankedTensorType input,
                                        ArrayRef<int64_t> dims, bool keepdim) {
  int64_t rank = input.getRank();
  if (dims.empty())
    return op->emitOpError()
           << "needs a non-empty 'dims'; to reduce every dimension list them "
              "all, e.g. dims = array<i64: 0, 1>";
  llvm::SmallBitVector reduced(rank);
  for (int64_t dim : dims) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError() << "reduction dimension " << dim
                               << " is out of range for an input of rank "
                               << rank << "; expected 0 <= dim < " << rank;
    if (reduced.test(dim))
      return op->emitOpError()
             << "reduction dimension " << dim
             << " appears more than once in 'dims' " << formatList(dims);
    reduced.set(dim);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced.test(i))
      shape.push_back(input.getDimSize(i));
    else if (keepdim)
      shape.push_back(1);
  }
  return RankedTensorType::get(shape, input.getElementType());
}

template <typename ReductionOp> LogicalResult verifyReduction(ReductionOp op) {
  FailureOr<RankedTensorType> expected =
      reducedType(op, op.getInput().getType(), op.getDims(), op.getKeepdim());
  if (failed(expected))
    return failure();
  if (*expected != op.getType())
    return op.emitOpError() << "expected result type " << *expected << " (dims "
                            << formatList(op.getDims())
                            << (op.getKeepdim() ? " with" : " without")
                            << " keepdim), got " << op.getType();
  return success();
}

/// Element widths for the widening check of remat.cast; i1 counts as 1 bit.
/// Returns how many bits of integer precision a float type represents
/// exactly (mantissa + implicit bit), 0 for non-floats.
unsigned exactIntegerBits(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getFPMantissaWidth();
  return 0;
}

/// A cast is widening when every value of the source type is exactly
/// representable in the destination, so casting back is the identity.
bool isWideningCast(Type from, Type to) {
  if (from == to)
    return false;
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    // f16 -> f32 and bf16 -> f32; f16 <-> bf16 lose range or precision.
    auto src = cast<FloatType>(from), dst = cast<FloatType>(to);
    return dst.getWidth() > src.getWidth() &&
           dst.getFPMantissaWidth() >= src.getFPMantissaWidth();
  }
  if (isa<IntegerType>(from) && isa<IntegerType>(to))
    return to.getIntOrFloatBitWidth() > from.getIntOrFloatBitWidth();
  if (isa<IntegerType>(from) && isa<FloatType>(to)) {
    // A signed n-bit integer needs n-1 magnitude bits (i1 needs 1: it is 0/1).
    unsigned width = from.getIntOrFloatBitWidth();
    unsigned magnitudeBits = width == 1 ? 1 : width - 1;
    return exactIntegerBits(to) >= magnitudeBits;
  }
  return false;
}
} // namespace

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

double ConstantOp::estimateFlops() { return 0.0; }
remat::ComputeClass ConstantOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}

//===----------------------------------------------------------------------===//
// Elementwise: inverse rules
//===----------------------------------------------------------------------===//

void AddOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  // `a + a` (or `a - a`, `a * a`): recovering `a` would need `a` itself.
  if (getLhs() == getRhs())
    return;
  rules.push_back({0, remat::InverseKind::SubtractOther, {1}, false});
  rules.push_back({1, remat::InverseKind::SubtractOther, {0}, false});
}

void SubOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  if (getLhs() == getRhs())
    return;
  rules.push_back({0, remat::InverseKind::AddOther, {1}, false});
  rules.push_back({1, remat::InverseKind::SubtractFromOther, {0}, false});
}

void MulOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  if (getLhs() == getRhs())
    return;
  if (isKnownFiniteNonZeroConstant(getRhs()))
    rules.push_back({0, remat::InverseKind::DivideByOther, {1}, false});
  if (isKnownFiniteNonZeroConstant(getLhs()))
    rules.push_back({1, remat::InverseKind::DivideByOther, {0}, false});
}

void DivOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  if (getLhs() == getRhs())
    return;
  if (isKnownFiniteNonZeroConstant(getRhs()))
    rules.push_back({0, remat::InverseKind::MultiplyByOther, {1}, false});
}

void NegOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  rules.push_back({0, remat::InverseKind::Negate, {}, true});
}

void ExpOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &) {
  // exp has no inverse rule: it underflows to 0 below about -103 (f32)
  // and overflows above 88.7, where log(exp(a)) is -inf or +inf, not `a` in
  // its last bits; masked logits (-1e4) are routine. log's inverse, exp, is
  // kept: exp(log(c)) is c to rounding for every c log reads without NaN.
}

void LogOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  rules.push_back({0, remat::InverseKind::Exp, {}, false});
}

void LeakyReluOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  // alpha <= 0 folds negative inputs onto 0 or onto positive outputs, so the
  // input is not a function of the output.
  if (getAlpha().convertToDouble() > 0)
    rules.push_back({0, remat::InverseKind::LeakyReluInverse, {}, false});
}

//===----------------------------------------------------------------------===//
// GeluOp, GeluBackwardOp
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::verify() {
  return verifyGeluApproximation(*this, getApproximate());
}
double GeluOp::estimateFlops() {
  return (getApproximate() == "tanh" ? 12.0 : 14.0) * numElements(getType());
}
remat::ComputeClass GeluOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}

LogicalResult GeluBackwardOp::verify() {
  return verifyGeluApproximation(*this, getApproximate());
}
double GeluBackwardOp::estimateFlops() {
  return (getApproximate() == "tanh" ? 22.0 : 24.0) * numElements(getType());
}
remat::ComputeClass GeluBackwardOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}

//===----------------------------------------------------------------------===//
// WhereOp, CastOp
//===----------------------------------------------------------------------===//

LogicalResult WhereOp::verify() {
  if (getCondition().getType().getShape() != getType().getShape())
    return emitOpError() << "condition shape "
                         << formatList(getCondition().getType().getShape())
                         << " must equal the result shape "
                         << formatList(getType().getShape());
  return success();
}

LogicalResult CompareOp::verify() {
  StringRef predicate = getPredicate();
  if (!llvm::is_contained({"eq", "ne", "lt", "le", "gt", "ge"}, predicate))
    return emitOpError() << "has unknown predicate \"" << predicate
                         << "\"; expected one of eq, ne, lt, le, gt, ge";
  if (getLhs().getType().getShape() != getType().getShape())
    return emitOpError() << "result shape " << formatList(getType().getShape())
                         << " must equal the operand shape "
                         << formatList(getLhs().getType().getShape());
  return success();
}

LogicalResult CastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getShape() != result.getShape())
    return emitOpError() << "changes only the element type; result shape "
                         << formatList(result.getShape())
                         << " must equal the input shape "
                         << formatList(input.getShape());
  if (input.getElementType() == result.getElementType())
    return emitOpError() << "casts " << input.getElementType()
                         << " to itself; remove the cast";
  return success();
}

void CastOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  if (isWideningCast(getInput().getType().getElementType(),
                     getType().getElementType()))
    rules.push_back({0, remat::InverseKind::Cast, {}, true});
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType(),
                   result = getType();
  int64_t lhsRank = lhs.getRank(), rhsRank = rhs.getRank();
  if (lhsRank < 2 || rhsRank < 2)
    return emitOpError() << "operands must have rank >= 2, got ranks "
                         << lhsRank << " and " << rhsRank;
  if (lhsRank != rhsRank && lhsRank != 2 && rhsRank != 2)
    return emitOpError() << "operand ranks must be equal, or one of them 2 (a "
                            "matrix shared by every batch element), got "
                         << lhsRank << " and " << rhsRank;
  int64_t rank = std::max(lhsRank, rhsRank);
  if (result.getRank() != rank)
    return emitOpError() << "result must have rank " << rank
                         << " (the larger operand rank), got "
                         << result.getRank();
  if (lhs.getElementType() != rhs.getElementType() ||
      lhs.getElementType() != result.getElementType())
    return emitOpError() << "operands and result must have the same element "
                            "type, got "
                         << lhs.getElementType() << ", " << rhs.getElementType()
                         << " and " << result.getElementType();
  // A rank-2 operand facing a batched one has no batch dimensions to check.
  for (int64_t i = 0; i < rank - 2; ++i) {
    int64_t size = result.getDimSize(i);
    bool lhsBatched = lhsRank == rank, rhsBatched = rhsRank == rank;
    if ((lhsBatched && lhs.getDimSize(i) != size) ||
        (rhsBatched && rhs.getDimSize(i) != size)) {
      InFlightDiagnostic diag = emitOpError()
                                << "batch dimension " << i << " differs:";
      if (lhsBatched)
        diag << " lhs has " << lhs.getDimSize(i) << ",";
      if (rhsBatched)
        diag << " rhs has " << rhs.getDimSize(i) << ",";
      return diag << " result has " << size;
    }
  }
  int64_t m = lhs.getDimSize(lhsRank - (getTransposeA() ? 1 : 2));
  int64_t kl = lhs.getDimSize(lhsRank - (getTransposeA() ? 2 : 1));
  int64_t kr = rhs.getDimSize(rhsRank - (getTransposeB() ? 1 : 2));
  int64_t n = rhs.getDimSize(rhsRank - (getTransposeB() ? 2 : 1));
  if (kl != kr)
    return emitOpError() << "contraction dimensions differ: lhs has " << kl
                         << ", rhs has " << kr;
  if (result.getDimSize(rank - 2) != m || result.getDimSize(rank - 1) != n)
    return emitOpError() << "result must be " << m << "x" << n
                         << " in its last two dimensions, got "
                         << result.getDimSize(rank - 2) << "x"
                         << result.getDimSize(rank - 1);
  return success();
}

double MatmulOp::estimateFlops() {
  auto lhs = getLhs().getType();
  int64_t k = lhs.getDimSize(lhs.getRank() - (getTransposeA() ? 2 : 1));
  return 2.0 * numElements(getType()) * static_cast<double>(k);
}
remat::ComputeClass MatmulOp::classifyCompute() {
  return remat::ComputeClass::Matmul;
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  RankedTensorType input = getInput().getType(), weight = getWeight().getType(),
                   result = getType();
  if (weight.getRank() != 2)
    return emitOpError() << "weight must have rank 2 ([out, in]), got rank "
                         << weight.getRank();
  if (input.getRank() < 1)
    return emitOpError() << "input must have rank >= 1 ([..., in]), got rank 0";
  Type element = input.getElementType();
  if (weight.getElementType() != element || result.getElementType() != element)
    return emitOpError() << "input, weight and result must have the same "
                            "element type, got "
                         << element << ", " << weight.getElementType()
                         << " and " << result.getElementType();
  int64_t in = weight.getDimSize(1), out = weight.getDimSize(0);
  if (input.getShape().back() != in)
    return emitOpError() << "input's last dimension must equal the weight's "
                            "in-features "
                         << in << " (weight is [out, in] = [" << out << ", "
                         << in << "]), got " << input.getShape().back();
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != out ||
        biasType.getElementType() != element)
      return emitOpError() << "bias must be "
                           << RankedTensorType::get({out}, element)
                           << " ([out]), got " << biasType;
  }
  SmallVector<int64_t> shape(input.getShape());
  shape.back() = out;
  auto expected = RankedTensorType::get(shape, element);
  if (result != expected)
    return emitOpError() << "expected result type " << expected
                         << " ([..., out]), got " << result;
  return success();
}

double LinearOp::estimateFlops() {
  RankedTensorType weight = getWeight().getType();
  double outputs = numElements(getType());
  double flops = 2.0 * outputs * static_cast<double>(weight.getDimSize(1));
  if (getBias())
    flops += outputs;
  return flops;
}
remat::ComputeClass LinearOp::classifyCompute() {
  return remat::ComputeClass::Matmul;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult SumOp::verify() { return verifyReduction(*this); }
double SumOp::estimateFlops() { return numElements(getInput().getType()); }
remat::ComputeClass SumOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult MeanOp::verify() { return verifyReduction(*this); }
double MeanOp::estimateFlops() {
  return numElements(getInput().getType()) + numElements(getType());
}
remat::ComputeClass MeanOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

LogicalResult MaxOp::verify() { return verifyReduction(*this); }
double MaxOp::estimateFlops() { return numElements(getInput().getType()); }
remat::ComputeClass MaxOp::classifyCompute() {
  return remat::ComputeClass::Reduction;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "must keep the element type "
                         << input.getElementType() << ", got "
                         << result.getElementType()
                         << "; use remat.cast to convert";
  if (input.getNumElements() != result.getNumElements())
    return emitOpError() << "must keep the element count: input " << input
                         << " has " << input.getNumElements() << ", result "
                         << result << " has " << result.getNumElements();
  return success();
}

void ReshapeOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  rules.push_back({0, remat::InverseKind::Reshape, {}, true});
}

LogicalResult TransposeOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  ArrayRef<int64_t> permutation = getPermutation();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOpError() << "permutation " << formatList(permutation) << " has "
                         << permutation.size()
                         << " entries, expected one per input dimension ("
                         << rank << ")";
  llvm::SmallBitVector seen(rank);
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || seen.test(dim))
      return emitOpError() << "permutation " << formatList(permutation)
                           << " must hold each of 0.." << rank - 1
                           << " exactly once";
    seen.set(dim);
  }
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(input.getDimSize(dim));
  auto expected = RankedTensorType::get(shape, input.getElementType());
  if (result != expected)
    return emitOpError() << "expected result type " << expected
                         << " for permutation " << formatList(permutation)
                         << ", got " << result;
  return success();
}

void TransposeOp::getInverseRules(SmallVectorImpl<remat::InverseRule> &rules) {
  rules.push_back({0, remat::InverseKind::Transpose, {}, true});
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "must keep the element type "
                         << input.getElementType() << ", got "
                         << result.getElementType();
  int64_t inRank = input.getRank(), outRank = result.getRank();
  if (inRank > outRank)
    return emitOpError() << "cannot broadcast rank " << inRank
                         << " to the smaller rank " << outRank;
  SmallVector<int64_t> mapping;
  if (std::optional<ArrayRef<int64_t>> dims = getDims()) {
    if (static_cast<int64_t>(dims->size()) != inRank)
      return emitOpError() << "'dims' " << formatList(*dims) << " has "
                           << dims->size()
                           << " entries, expected one per input dimension ("
                           << inRank << ")";
    for (size_t i = 0; i < dims->size(); ++i) {
      int64_t dim = (*dims)[i];
      if (dim < 0 || dim >= outRank || (i > 0 && dim <= (*dims)[i - 1]))
        return emitOpError() << "'dims' " << formatList(*dims)
                             << " must be strictly increasing result "
                                "dimensions in [0, "
                             << outRank << ")";
    }
    mapping.assign(dims->begin(), dims->end());
  } else {
    // numpy: trailing alignment.
    for (int64_t i = 0; i < inRank; ++i)
      mapping.push_back(outRank - inRank + i);
  }
  for (int64_t i = 0; i < inRank; ++i) {
    int64_t from = input.getDimSize(i), to = result.getDimSize(mapping[i]);
    if (from != 1 && from != to)
      return emitOpError() << "input dimension " << i << " (size " << from
                           << ") maps to result dimension " << mapping[i]
                           << " (size " << to
                           << "); it must be 1 or equal to it";
  }
  return success();
}

LogicalResult SliceOp::verify() {
  RankedTensorType input = getInput().getType(), result = getType();
  int64_t rank = input.getRank();
  ArrayRef<int64_t> offsets = getOffsets(), sizes = getSizes();
  SmallVector<int64_t> strides(rank, 1);
  if (std::optional<ArrayRef<int64_t>> given = getStrides())
    strides.assign(given->begin(), given->end());
  auto checkLength = [&](StringRef name, size_t length) -> LogicalResult {
    if (static_cast<int64_t>(length) == rank)
      return success();
    return emitOpError() << "'" << name << "' has " << length
                         << " entries, expected one per input dimension ("
                         << rank << ")";
  };
  if (failed(checkLength("offsets", offsets.size())) ||
      failed(checkLength("sizes", sizes.size())) ||
      failed(checkLength("strides", strides.size())))
    return failure();
  if (input.getElementType() != result.getElementType())
    return emitOpError() << "must keep the element type "
                         << input.getElementType() << ", got "
                         << result.getElementType();
  for (int64_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || sizes[d] < 0 || strides[d] < 1)
      return emitOpError() << "dimension " << d << ": offset " << offsets[d]
                           << ", size " << sizes[d] << ", stride " << strides[d]
                           << " must satisfy offset >= 0, size >= 0, "
                              "stride >= 1";
    int64_t dimSize = input.getDimSize(d);
    // Start and last element taken must lie inside the input.
    int64_t last = offsets[d] + (sizes[d] - 1) * strides[d];
    if (sizes[d] > 0 && (offsets[d] >= dimSize || last >= dimSize))
      return emitOpError() << "dimension " << d << ": elements " << offsets[d]
                           << ".." << last << " (offset " << offsets[d]
                           << ", size " << sizes[d] << ", stride " << strides[d]
                           << ") exceed the input size " << dimSize;
  }
  if (result.getShape() != sizes)
    return emitOpError() << "result shape " << formatList(result.getShape())
                         << " must equal 'sizes' " << formatList(sizes);
  return success();
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "needs at least one input";
  RankedTensorType result = getType();
  int64_t rank = result.getRank(), dim = getDim();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is out of range for rank "
                         << rank << "; expected 0 <= dim < " << rank;
  int64_t total = 0;
  for (auto [index, value] : llvm::enumerate(getInputs())) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != rank ||
        type.getElementType() != result.getElementType())
      return emitOpError() << "input #" << index << " has type " << type
                           << "; every input needs the result's rank (" << rank
                           << ") and element type (" << result.getElementType()
                           << ")";
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim && type.getDimSize(d) != result.getDimSize(d))
        return emitOpError() << "input #" << index << " has size "
                             << type.getDimSize(d) << " in dimension " << d
                             << ", but the result has " << result.getDimSize(d)
                             << "; only dimension " << dim << " may differ";
    total += type.getDimSize(dim);
  }
  if (total != result.getDimSize(dim))
    return emitOpError() << "result dimension " << dim << " must be " << total
                         << " (the sum of the inputs'), got "
                         << result.getDimSize(dim);
  return success();
}

double ConcatOp::estimateFlops() { return 0.0; }
remat::ComputeClass ConcatOp::classifyCompute() {
  return remat::ComputeClass::Pointwise;
}
