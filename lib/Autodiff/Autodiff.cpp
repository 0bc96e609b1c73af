//===- Autodiff.cpp - Reverse-mode autodiff of forward functions ----------===//
//
// Part of remat. Builds the joint function of a `remat.graph = "forward"`
// function: the forward body cloned as is, then its reverse sweep. Only
// values that depend on a differentiated argument ("active" values) carry
// cotangents, so constants, masks and index computations get no backward
// ops, and integer values never do.
//
//===----------------------------------------------------------------------===//

#include "remat/Autodiff/Autodiff.h"

#include "BackwardRules.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace remat {

namespace {

StringRef roleAttrName() { return RematDialect::RoleAttrHelper::getNameStr(); }
StringRef graphAttrName() {
  return RematDialect::GraphAttrHelper::getNameStr();
}

bool isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

/// An argument gets a gradient when it is a floating-point input or
/// parameter; RNG state and integer inputs (token ids, masks) do not.
bool isDifferentiableArgument(func::FuncOp func, unsigned index) {
  auto role = func.getArgAttrOfType<StringAttr>(index, roleAttrName());
  return role && (role.getValue() == "input" || role.getValue() == "param") &&
         isFloatTensor(func.getArgument(index).getType());
}

/// Clones `op` into the joint body. A single-result `remat.rmsnorm` that
/// will be differentiated is rebuilt in its two-result form, since
/// `remat.rmsnorm_backward` reads the `rstd` statistic.
Operation *cloneForwardOp(OpBuilder &builder, Operation &op, IRMapping &map,
                          bool active) {
  auto norm = dyn_cast<RmsNormOp>(op);
  if (!norm || norm.getRstd() || !active)
    return builder.clone(op, map);
  auto inputType = cast<RankedTensorType>(norm.getInput().getType());
  int64_t normalizedRank =
      cast<RankedTensorType>(norm.getWeight().getType()).getRank();
  auto rstdType =
      RankedTensorType::get(inputType.getShape().drop_back(normalizedRank),
                            statsElementType(inputType.getElementType()));
  auto upgraded = RmsNormOp::create(
      builder, norm.getLoc(), norm.getResult().getType(), rstdType,
      map.lookupOrDefault(norm.getInput()),
      map.lookupOrDefault(norm.getWeight()), norm.getEpsAttr());
  upgraded->setDiscardableAttrs(norm->getDiscardableAttrDictionary());
  map.map(norm.getResult(), upgraded.getResult());
  return upgraded;
}

/// Slices of one value that tile it exactly along one dimension, such as the
/// q / k / v split of a fused projection. Their cotangents are concatenated
/// once (what a framework writes) instead of each being zero-padded to the
/// source's shape and the paddings added.
struct SliceTiling {
  Value source;
  int64_t dim = 0;
  /// Sorted by offset along `dim`.
  SmallVector<SliceOp> pieces;
  /// The piece that comes first in program order: the reverse sweep reaches
  /// it last, when every piece's cotangent is complete.
  Operation *first = nullptr;
};

SmallVector<SliceTiling> findSliceTilings(ArrayRef<Operation *> ops,
                                          const llvm::DenseSet<Value> &active) {
  llvm::MapVector<Value, SmallVector<SliceOp>> slicesOf;
  for (Operation *op : ops)
    if (auto slice = dyn_cast<SliceOp>(op))
      if (active.contains(slice.getInput()) &&
          (!slice.getStrides() ||
           llvm::all_of(*slice.getStrides(),
                        [](int64_t stride) { return stride == 1; })))
        slicesOf[slice.getInput()].push_back(slice);

  SmallVector<SliceTiling> tilings;
  for (auto &[source, slices] : slicesOf) {
    if (slices.size() < 2)
      continue;
    auto type = cast<RankedTensorType>(source.getType());
    // Every slice must cut the same single dimension and keep the others.
    std::optional<int64_t> cutDim;
    bool cutsOneDim = true;
    for (SliceOp slice : slices) {
      for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
        bool whole = slice.getOffsets()[d] == 0 &&
                     slice.getSizes()[d] == type.getDimSize(d);
        if (whole)
          continue;
        if (cutDim && *cutDim != d)
          cutsOneDim = false;
        cutDim = d;
      }
    }
    if (!cutDim || !cutsOneDim)
      continue;
    int64_t dim = *cutDim;
    SmallVector<SliceOp> sorted(slices);
    llvm::sort(sorted, [&](SliceOp a, SliceOp b) {
      return a.getOffsets()[dim] < b.getOffsets()[dim];
    });
    int64_t next = 0;
    for (SliceOp slice : sorted) {
      if (slice.getOffsets()[dim] != next) {
        next = -1;
        break;
      }
      next += slice.getSizes()[dim];
    }
    if (next != type.getDimSize(dim))
      continue;
    tilings.push_back({source, dim, sorted, slices.front()});
  }
  return tilings;
}

} // namespace

bool isForwardFunction(func::FuncOp func) {
  auto graph = func->getAttrOfType<StringAttr>(graphAttrName());
  return graph && graph.getValue() == "forward";
}

std::string jointFunctionName(StringRef forwardName) {
  return (forwardName + "_joint").str();
}

FailureOr<JointFunctionInfo> buildJointFunction(func::FuncOp forward,
                                                StringRef jointName) {
  if (!isForwardFunction(forward))
    return forward.emitError()
           << "remat-autodiff differentiates functions marked remat.graph = "
              "\"forward\"; @"
           << forward.getSymName() << " is not one";
  if (forward.isExternal() || !forward.getBody().hasOneBlock())
    return forward.emitError()
           << "@" << forward.getSymName()
           << " must have a body of exactly one block to be differentiated "
              "(remat graphs are straight-line code)";
  if (Operation *table = SymbolTable::getNearestSymbolTable(forward))
    if (SymbolTable::lookupSymbolIn(table, jointName))
      return forward.emitError()
             << "cannot add the joint function of @" << forward.getSymName()
             << ": the symbol @" << jointName
             << " already exists; rename it or run remat-autodiff with "
                "replace=true";

  MLIRContext *context = forward.getContext();
  FunctionType forwardType = forward.getFunctionType();
  JointFunctionInfo info;

  SmallVector<unsigned> differentiable;
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i) {
    if (isDifferentiableArgument(forward, i)) {
      differentiable.push_back(i);
      continue;
    }
    // A floating-point scalar input or parameter would get no gradient
    // result and no word (before 2026-12-07).
    auto role = forward.getArgAttrOfType<StringAttr>(i, roleAttrName());
    Type type = forward.getArgument(i).getType();
    if (role && (role.getValue() == "input" || role.getValue() == "param") &&
        isa<FloatType>(type)) {
      std::string typeText;
      llvm::raw_string_ostream(typeText) << type;
      return forward.emitError()
             << "@" << forward.getSymName() << ": argument #" << i << " ("
             << typeText << ", remat.role = \"" << role.getValue()
             << "\") is a scalar; remat-autodiff differentiates tensors: "
                "pass it as a rank-0 tensor (tensor<"
             << typeText << ">)";
    }
  }
  if (differentiable.empty())
    return forward.emitError()
           << "@" << forward.getSymName()
           << " has nothing to differentiate: no floating-point argument "
              "with remat.role = \"input\" or \"param\"";

  SmallVector<Type> argTypes(forwardType.getInputs());
  for (auto [index, type] : llvm::enumerate(forwardType.getResults())) {
    if (isFloatTensor(type)) {
      info.tangentArgOfResult.push_back(argTypes.size());
      argTypes.push_back(type);
    } else {
      info.tangentArgOfResult.push_back(-1);
    }
  }
  if (argTypes.size() == forwardType.getNumInputs())
    return forward.emitError()
           << "@" << forward.getSymName()
           << " has no floating-point result to differentiate";
  SmallVector<Type> resultTypes(forwardType.getResults());
  for (unsigned arg : differentiable)
    resultTypes.push_back(forwardType.getInput(arg));

  // The joint function: forward arguments and roles, then tangents; forward
  // results and roles, then gradients. Other function attributes are kept.
  OpBuilder builder(context);
  builder.setInsertionPointAfter(forward);
  auto joint =
      func::FuncOp::create(builder, forward.getLoc(), jointName,
                           FunctionType::get(context, argTypes, resultTypes));
  for (NamedAttribute attr : forward->getAttrs()) {
    StringRef name = attr.getName().getValue();
    if (name == SymbolTable::getSymbolAttrName() ||
        name == forward.getFunctionTypeAttrName() ||
        name == forward.getArgAttrsAttrName() ||
        name == forward.getResAttrsAttrName())
      continue;
    joint->setAttr(attr.getName(), attr.getValue());
  }
  joint->setAttr(graphAttrName(), builder.getStringAttr("joint"));
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i)
    joint.setArgAttrs(i, forward.getArgAttrDict(i));
  for (int tangent : info.tangentArgOfResult)
    if (tangent >= 0)
      joint.setArgAttr(tangent, roleAttrName(),
                       builder.getStringAttr("tangent"));
  for (unsigned i = 0, e = forward.getNumResults(); i < e; ++i)
    joint.setResultAttrs(i, forward.getResultAttrDict(i));
  for (auto [offset, arg] : llvm::enumerate(differentiable)) {
    unsigned result = forward.getNumResults() + offset;
    joint.setResultAttr(result, roleAttrName(), builder.getStringAttr("grad"));
    joint.setResultAttr(result, RematDialect::GradOfAttrHelper::getNameStr(),
                        builder.getI64IntegerAttr(arg));
    info.gradOfArg.push_back(arg);
  }

  // Forward: clone every op, tracking which values are active.
  Block *entry = joint.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  IRMapping map;
  llvm::DenseSet<Value> active;
  for (unsigned i = 0, e = forward.getNumArguments(); i < e; ++i) {
    map.map(forward.getArgument(i), entry->getArgument(i));
    if (llvm::is_contained(differentiable, i))
      active.insert(entry->getArgument(i));
  }
  SmallVector<Operation *> cloned;
  Block &body = forward.getBody().front();
  for (Operation &op : body.without_terminator()) {
    bool isActive = llvm::any_of(op.getOperands(), [&](Value operand) {
      return active.contains(map.lookupOrDefault(operand));
    });
    // What an op's regions capture is read too, but no rule differentiates
    // through a region: before 2026-12-07 a value read only inside an
    // scf.if or scf.execute_region left the op inactive and its argument
    // with a zero gradient, silently.
    if (op.getNumRegions() > 0) {
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op.getRegions(), captured);
      for (Value value : captured)
        if (active.contains(map.lookupOrDefault(value))) {
          joint.erase();
          return op.emitOpError()
                 << "reads a value that depends on a differentiated argument "
                    "inside its region; remat-autodiff differentiates "
                    "straight-line code (one block, no regions): compute the "
                    "value outside the region, or write the function without "
                    "control flow";
        }
    }
    Operation *copy = cloneForwardOp(builder, op, map, isActive);
    cloned.push_back(copy);
    // Float scalars carry gradients too (a tensor.extract of a parameter):
    // marked active, an op that reads one needs a derivative rule, where
    // before the gradient through it was dropped.
    if (isActive)
      for (Value result : copy->getResults())
        if (isFloatTensor(result.getType()) || isa<FloatType>(result.getType()))
          active.insert(result);
  }
  size_t numForwardOps = entry->getOperations().size();

  // Backward: seed with the tangents, sweep the forward ops in reverse.
  llvm::DenseMap<Value, Value> cotangents;
  autodiff::ZeroConstants zeros;
  auto accumulate = [&](Value value, Value grad, Location loc) {
    if (grad.getType() != value.getType()) {
      emitError(loc) << "internal error in remat-autodiff: gradient of type "
                     << grad.getType() << " for a value of type "
                     << value.getType();
      return failure();
    }
    Value &slot = cotangents[value];
    slot = slot ? Value(AddOp::create(builder, loc, slot, grad)) : grad;
    return success();
  };
  auto fail = [&]() -> FailureOr<JointFunctionInfo> {
    joint.erase();
    return failure();
  };

  Operation *forwardReturn = body.getTerminator();
  SmallVector<Value> returned;
  for (auto [index, operand] : llvm::enumerate(forwardReturn->getOperands())) {
    Value value = map.lookupOrDefault(operand);
    returned.push_back(value);
    int tangent = info.tangentArgOfResult[index];
    if (tangent >= 0 && active.contains(value) &&
        failed(accumulate(value, entry->getArgument(tangent),
                          forwardReturn->getLoc())))
      return fail();
  }

  SmallVector<SliceTiling> tilings = findSliceTilings(cloned, active);
  llvm::DenseMap<Operation *, const SliceTiling *> tilingOf;
  for (const SliceTiling &tiling : tilings)
    for (SliceOp piece : tiling.pieces)
      tilingOf[piece] = &tiling;

  for (Operation *op : llvm::reverse(cloned)) {
    if (const SliceTiling *tiling = tilingOf.lookup(op)) {
      if (op != tiling->first)
        continue;
      SmallVector<Value> parts;
      bool anyGrad = false;
      for (SliceOp piece : tiling->pieces) {
        Value grad = cotangents.lookup(piece.getResult());
        anyGrad |= static_cast<bool>(grad);
        parts.push_back(grad ? grad
                             : zeros.get(builder, piece.getLoc(),
                                         piece.getResult().getType()));
      }
      if (!anyGrad)
        continue;
      Value grad =
          ConcatOp::create(builder, op->getLoc(), tiling->source.getType(),
                           parts, static_cast<uint64_t>(tiling->dim));
      if (failed(accumulate(tiling->source, grad, op->getLoc())))
        return fail();
      continue;
    }
    SmallVector<Value> resultGrads;
    bool anyGrad = false;
    for (Value result : op->getResults()) {
      resultGrads.push_back(cotangents.lookup(result));
      anyGrad |= static_cast<bool>(resultGrads.back());
    }
    if (!anyGrad)
      continue;
    SmallVector<bool> needsGrad;
    for (Value operand : op->getOperands())
      needsGrad.push_back(active.contains(operand));
    SmallVector<Value> operandGrads;
    if (failed(autodiff::emitBackward(builder, op, resultGrads, needsGrad,
                                      zeros, operandGrads)))
      return fail();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
      if (grad && failed(accumulate(operand, grad, op->getLoc())))
        return fail();
  }

  SmallVector<Value> results(returned);
  for (unsigned arg : differentiable) {
    Value grad = cotangents.lookup(entry->getArgument(arg));
    // An argument that never reaches an output has a zero gradient.
    results.push_back(grad ? grad
                           : zeros.get(builder,
                                       forward.getArgument(arg).getLoc(),
                                       forward.getArgument(arg).getType()));
  }
  func::ReturnOp::create(builder, forwardReturn->getLoc(), results);
  info.numBackwardOps = entry->getOperations().size() - numForwardOps - 1;

  if (failed(verify(joint))) {
    joint.emitError() << "internal error in remat-autodiff: the joint "
                         "function of @"
                      << forward.getSymName() << " does not verify";
    return fail();
  }
  info.joint = joint;
  return info;
}

} // namespace remat
