//===- GraphBuilder.cpp - Build the core graph from a joint function ------===//
//
// Part of remat. Everything the planner knows about an op comes from
// PlannerOpInterface here; nothing else in lib/Transforms inspects op kinds
// for costs.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/GraphBuilder.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematInterfaces.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace remat {

bool isJointFunction(FunctionOpInterface func) {
  auto graph = func->getAttrOfType<StringAttr>(
      RematDialect::GraphAttrHelper::getNameStr());
  return graph && graph.getValue() == "joint";
}

namespace {

std::optional<DType> dtypeOf(Type element) {
  if (element.isF64())
    return DType::F64;
  if (element.isF32())
    return DType::F32;
  if (element.isF16())
    return DType::F16;
  if (element.isBF16())
    return DType::BF16;
  if (element.isIndex() || element.isInteger(64))
    return DType::I64;
  if (element.isInteger(32))
    return DType::I32;
  if (element.isInteger(8))
    return DType::I8;
  if (element.isInteger(1))
    return DType::I1;
  return std::nullopt;
}

/// Statically shaped ranked tensors and scalars are what the planner can size.
FailureOr<TensorType> tensorTypeOf(Type type, Location loc, StringRef what) {
  TensorType result;
  Type element = type;
  if (auto ranked = dyn_cast<RankedTensorType>(type)) {
    if (!ranked.hasStaticShape())
      return emitError(loc) << "remat-plan: " << what << " has type " << type
                            << " with a dynamic shape; remat-plan needs "
                               "static shapes to size memory, so specialise "
                               "the shapes before planning";
    result.shape.assign(ranked.getShape().begin(), ranked.getShape().end());
    element = ranked.getElementType();
  } else if (isa<ShapedType>(type)) {
    return emitError(loc) << "remat-plan: " << what << " has type " << type
                          << "; remat-plan plans ranked tensors on tensors "
                             "(run it before bufferization)";
  }
  std::optional<DType> dtype = dtypeOf(element);
  if (!dtype)
    return emitError(loc) << "remat-plan: " << what << " has element type "
                          << element
                          << ", which remat-plan cannot size; supported: "
                             "f64, f32, f16, bf16, i64/index, i32, i8, i1";
  result.dtype = *dtype;
  return result;
}

Tags tagsOf(Operation *op) {
  Tags tags;
  tags.neverRecompute =
      op->hasAttr(RematDialect::NeverRecomputeAttrHelper::getNameStr());
  tags.noAutoRecompute =
      op->hasAttr(RematDialect::NoAutoRecomputeAttrHelper::getNameStr());
  tags.mustRecompute =
      op->hasAttr(RematDialect::MustRecomputeAttrHelper::getNameStr());
  tags.preferRecompute =
      op->hasAttr(RematDialect::PreferRecomputeAttrHelper::getNameStr());
  tags.preferSave =
      op->hasAttr(RematDialect::PreferSaveAttrHelper::getNameStr());
  return tags;
}

std::optional<std::string> locationName(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().str();
  return std::nullopt;
}

/// Hands out unique names: the first holder of a name keeps it, later ones
/// get `.1`, `.2`, ... so reports and remat-diff can match values by name.
class NameTable {
public:
  explicit NameTable(llvm::StringMap<ValueId> &taken) : taken(taken) {}
  /// Reserves a unique name; `bind` records the id once the core assigned it.
  std::string claim(const std::string &base) {
    std::string name = base;
    for (unsigned suffix = 1; taken.count(name); ++suffix)
      name = base + "." + std::to_string(suffix);
    taken[name] = kNoId;
    return name;
  }
  void bind(const std::string &name, ValueId id) { taken[name] = id; }

private:
  llvm::StringMap<ValueId> &taken;
};

std::string ssaName(Value value, AsmState &state) {
  std::string text;
  llvm::raw_string_ostream os(text);
  value.printAsOperand(os, state);
  return text;
}

} // namespace

FailureOr<std::unique_ptr<ImportedGraph>> buildGraph(FunctionOpInterface func) {
  auto imported = std::make_unique<ImportedGraph>();
  Region &body = func.getFunctionBody();
  if (body.empty())
    return func->emitError() << "remat-plan: function '" << func.getName()
                             << "' has no body to plan";
  if (!body.hasOneBlock())
    return func->emitError()
           << "remat-plan: function '" << func.getName() << "' has "
           << llvm::range_size(body.getBlocks())
           << " blocks; a joint training graph is a single block (move "
              "control flow into region ops such as scf.if)";

  Block &block = body.front();
  AsmState asmState(func);
  NameTable names(imported->valueByName);
  Graph &graph = imported->graph;

  auto recordValue = [&](Value value, ValueId id) {
    if (imported->valueOf.size() <= static_cast<size_t>(id))
      imported->valueOf.resize(id + 1);
    imported->valueOf[id] = value;
    imported->valueIds[value] = id;
  };

  // Arguments, with their roles.
  for (BlockArgument arg : block.getArguments()) {
    unsigned index = arg.getArgNumber();
    auto role = func.getArgAttrOfType<StringAttr>(
        index, RematDialect::RoleAttrHelper::getNameStr());
    if (!role)
      return func->emitError()
             << "remat-plan: argument #" << index << " of '" << func.getName()
             << "' has no 'remat.role'; mark it {remat.role = \"input\"}, "
                "\"param\", \"tangent\" or \"rng\"";
    InputRole inputRole = llvm::StringSwitch<InputRole>(role.getValue())
                              .Case("param", InputRole::Parameter)
                              .Case("tangent", InputRole::Tangent)
                              .Case("rng", InputRole::RngState)
                              .Default(InputRole::Input);
    FailureOr<TensorType> type = tensorTypeOf(
        arg.getType(), arg.getLoc(), ("argument #" + Twine(index)).str());
    if (failed(type))
      return failure();
    std::string name = names.claim(
        locationName(arg.getLoc()).value_or(ssaName(arg, asmState)));
    ValueId added = graph.addInput(name, *type, inputRole);
    names.bind(name, added);
    recordValue(arg, added);
  }

  Operation *terminator = block.getTerminator();
  for (Operation &op : block) {
    if (&op == terminator)
      break;
    GraphOp node;
    node.kind = op.getName().getStringRef().str();
    if (auto name = op.getAttrOfType<StringAttr>(
            RematDialect::NameAttrHelper::getNameStr()))
      node.name = name.getValue().str();
    node.tags = tagsOf(&op);
    // Imported graphs carry the phase and a profiled time themselves.
    if (auto phase = op.getAttrOfType<StringAttr>(
            RematDialect::PhaseAttrHelper::getNameStr()))
      node.phase =
          phase.getValue() == "backward" ? Phase::Backward : Phase::Forward;
    if (auto time = op.getAttrOfType<FloatAttr>(
            RematDialect::FixedTimeUsAttrHelper::getNameStr()))
      node.fixedTimeUs = time.getValueAsDouble();

    llvm::SetVector<Value> reads(op.getOperands().begin(),
                                 op.getOperands().end());
    if (auto planner = dyn_cast<PlannerOpInterface>(&op)) {
      node.flops = planner.estimateFlops();
      node.bytesRead = planner.estimateBytesRead();
      node.bytesWritten = planner.estimateBytesWritten();
      node.computeClass = planner.classifyCompute();
      node.isRandom = planner.drawsRandomNumbers();
      node.isView = planner.isViewOnly();
      llvm::SmallVector<InverseRule> rules;
      planner.getInverseRules(rules);
      node.inverseRules.assign(rules.begin(), rules.end());
    } else if (op.getNumRegions() > 0) {
      // A region op the planner has no facts for: one node that reads
      // everything its body captures, sized by its operands and results.
      for (Region &region : op.getRegions())
        getUsedValuesDefinedAbove(region, reads);
      node.computeClass = ComputeClass::Other;
      node.flops = detail::defaultFlops(&op);
      node.bytesRead = detail::operandBytes(&op);
      node.bytesWritten = detail::resultBytes(&op);
    } else {
      return op.emitError()
             << "remat-plan cannot plan '" << op.getName()
             << "': it does not implement PlannerOpInterface; wrap it in "
                "remat.opaque \"<name>\"(...) {flops = ..., compute_class = "
                "\"...\"} or attach an external model to it "
                "(lib/Interfaces/ExternalModels.cpp)";
    }

    for (Value read : reads) {
      ValueId id = imported->idOf(read);
      if (id == kNoId)
        return op.emitError() << "remat-plan: operand defined outside the "
                                 "function body is not supported";
      node.operands.push_back(id);
    }

    std::vector<TensorType> resultTypes;
    std::vector<std::string> resultNames;
    std::optional<std::string> base =
        node.name.empty() ? locationName(op.getLoc()) : node.name;
    for (OpResult result : op.getResults()) {
      FailureOr<TensorType> type =
          tensorTypeOf(result.getType(), op.getLoc(),
                       ("result #" + Twine(result.getResultNumber()) + " of '" +
                        op.getName().getStringRef() + "'")
                           .str());
      if (failed(type))
        return failure();
      resultTypes.push_back(*type);
      std::string name;
      if (base)
        name = op.getNumResults() == 1
                   ? *base
                   : *base + "#" + std::to_string(result.getResultNumber());
      else
        name = ssaName(result, asmState);
      resultNames.push_back(names.claim(name));
    }

    absl::StatusOr<OpId> added =
        graph.addOp(std::move(node), resultTypes, resultNames);
    if (!added.ok())
      return op.emitError() << "remat-plan: the planning core rejected this "
                               "op: "
                            << std::string(added.status().message());
    imported->opOf.push_back(&op);
    imported->opIds[&op] = *added;
    const GraphOp &addedOp = graph.op(*added);
    for (auto [result, id, name] :
         llvm::zip(op.getResults(), addedOp.results, resultNames)) {
      recordValue(result, id);
      names.bind(name, id);
    }
  }

  // Results, with their roles.
  if (terminator->getNumOperands() != func.getNumResults())
    return terminator->emitError()
           << "remat-plan: the terminator returns "
           << terminator->getNumOperands() << " values but the function has "
           << func.getNumResults() << " results";
  for (auto [index, returned] : llvm::enumerate(terminator->getOperands())) {
    auto role = func.getResultAttrOfType<StringAttr>(
        index, RematDialect::RoleAttrHelper::getNameStr());
    if (!role)
      return func->emitError()
             << "remat-plan: result #" << index << " of '" << func.getName()
             << "' has no 'remat.role'; mark it {remat.role = \"output\"} or "
                "{remat.role = \"grad\"}";
    graph.markOutput(imported->idOf(returned), role.getValue() == "grad"
                                                   ? OutputRole::Gradient
                                                   : OutputRole::Output);
  }

  if (absl::Status valid = graph.validate(); !valid.ok())
    return func->emitError()
           << "remat-plan: the graph built from '" << func.getName()
           << "' is invalid: " << std::string(valid.message());
  return imported;
}

} // namespace remat
