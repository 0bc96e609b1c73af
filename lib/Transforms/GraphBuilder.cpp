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
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSet.h"
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
  if (auto complex = dyn_cast<ComplexType>(element)) {
    if (complex.getElementType().isF32())
      return DType::C64;
    if (complex.getElementType().isF64())
      return DType::C128;
  }
  return std::nullopt;
}

/// Statically shaped ranked tensors and scalars are what the planner can size.
/// `what` names the value in errors; it is only rendered when one is emitted.
FailureOr<TensorType> tensorTypeOf(Type type, Location loc, const Twine &what) {
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
  } else if (isa<BaseMemRefType>(type)) {
    return emitError(loc) << "remat-plan: " << what << " has type " << type
                          << "; remat-plan plans programs on tensors: run it "
                             "before bufferization";
  } else if (isa<ShapedType>(type)) {
    return emitError(loc) << "remat-plan: " << what << " has type " << type
                          << "; remat-plan plans statically shaped ranked "
                             "tensors and scalars only";
  }
  std::optional<DType> dtype = dtypeOf(element);
  if (!dtype)
    return emitError(loc) << "remat-plan: " << what << " has element type "
                          << element
                          << ", which remat-plan cannot size; supported: "
                             "f64, f32, f16, bf16, i64/index, i32, i8, i1, "
                             "complex<f32>, complex<f64>";
  result.dtype = *dtype;
  return result;
}

/// The remat attributes buildGraph reads from an op, uniqued once per
/// function so that reading them is one pass over each op's attribute
/// dictionary with pointer compares, instead of a string lookup per name.
struct RematAttrNames {
  explicit RematAttrNames(MLIRContext *context)
      : name(get(context, RematDialect::NameAttrHelper::getNameStr())),
        phase(get(context, RematDialect::PhaseAttrHelper::getNameStr())),
        fixedTime(
            get(context, RematDialect::FixedTimeUsAttrHelper::getNameStr())),
        workspace(
            get(context, RematDialect::WorkspaceBytesAttrHelper::getNameStr())),
        neverRecompute(
            get(context, RematDialect::NeverRecomputeAttrHelper::getNameStr())),
        noAutoRecompute(get(
            context, RematDialect::NoAutoRecomputeAttrHelper::getNameStr())),
        mustRecompute(
            get(context, RematDialect::MustRecomputeAttrHelper::getNameStr())),
        preferRecompute(get(
            context, RematDialect::PreferRecomputeAttrHelper::getNameStr())),
        preferSave(
            get(context, RematDialect::PreferSaveAttrHelper::getNameStr())),
        tagNote(get(context, RematDialect::TagNoteAttrHelper::getNameStr())) {}
  StringAttr name, phase, fixedTime, workspace, neverRecompute, noAutoRecompute,
      mustRecompute, preferRecompute, preferSave, tagNote;

private:
  static StringAttr get(MLIRContext *context, StringRef text) {
    return StringAttr::get(context, text);
  }
};

/// Reads the tags and their note, `remat.name`, `remat.phase`,
/// `remat.fixed_time_us` and `remat.workspace_bytes` of `op` into `node`. These
/// are dialect (discardable) attributes, so they live in the op's attribute
/// dictionary, never among its inherent attributes.
void readRematAttrs(Operation *op, const RematAttrNames &names, GraphOp &node) {
  for (NamedAttribute attr : op->getRawDictionaryAttrs()) {
    StringAttr key = attr.getName();
    Attribute value = attr.getValue();
    if (key == names.name) {
      if (auto name = dyn_cast<StringAttr>(value))
        node.name = name.getValue().str();
    } else if (key == names.phase) {
      // Imported graphs carry the phase and a profiled time themselves.
      if (auto phase = dyn_cast<StringAttr>(value))
        node.phase =
            phase.getValue() == "backward" ? Phase::Backward : Phase::Forward;
    } else if (key == names.fixedTime) {
      if (auto time = dyn_cast<FloatAttr>(value))
        node.fixedTimeUs = time.getValueAsDouble();
    } else if (key == names.workspace) {
      // The verifier keeps it a non-negative integer of at most 63 bits.
      if (auto bytes = dyn_cast<IntegerAttr>(value))
        node.workspaceBytes =
            static_cast<int64_t>(bytes.getValue().getZExtValue());
    } else if (key == names.neverRecompute) {
      node.tags.neverRecompute = true;
    } else if (key == names.noAutoRecompute) {
      node.tags.noAutoRecompute = true;
    } else if (key == names.mustRecompute) {
      node.tags.mustRecompute = true;
    } else if (key == names.preferRecompute) {
      node.tags.preferRecompute = true;
    } else if (key == names.preferSave) {
      node.tags.preferSave = true;
    } else if (key == names.tagNote) {
      if (auto note = dyn_cast<StringAttr>(value))
        node.tags.note = note.getValue().str();
    }
  }
}

/// The name of a `loc("...")`; it lives as long as the context.
std::optional<StringRef> locationName(Location loc) {
  if (auto named = dyn_cast<NameLoc>(loc))
    return named.getName().getValue();
  return std::nullopt;
}

/// Hands out unique names: the first holder of a name keeps it, later ones
/// get `.1`, `.2`, ... so reports and remat-diff can match values by name.
/// A suffixed name never takes one the function gives a value itself
/// (`remat.name` or a location's name, `given`): with ops named `h`, `h`
/// and `h.1`, the second `h` becomes `h.2`, so that `h.1` names what the
/// user named so (in a policy too).
class NameTable {
public:
  NameTable(llvm::StringMap<ValueId> &taken,
            llvm::function_ref<void(llvm::StringSet<> &)> collectGiven)
      : taken(taken), collectGiven(collectGiven) {}
  /// Reserves a unique name (the entry's key); the caller stores the id in
  /// the entry once the core assigned it.
  llvm::StringMapEntry<ValueId> &claim(StringRef base) {
    auto [entry, added] = taken.try_emplace(base, kNoId);
    if (added)
      return *entry;
    // Collisions are rare: the given names are gathered at the first.
    if (!given) {
      given.emplace();
      collectGiven(*given);
    }
    for (unsigned suffix = 1; !added; ++suffix) {
      std::string candidate = (base + "." + Twine(suffix)).str();
      if (given->contains(candidate))
        continue;
      std::tie(entry, added) = taken.try_emplace(candidate, kNoId);
    }
    return *entry;
  }

private:
  llvm::StringMap<ValueId> &taken;
  llvm::function_ref<void(llvm::StringSet<> &)> collectGiven;
  std::optional<llvm::StringSet<>> given;
};

/// The printer's SSA names (`%arg0`, `%3`, `%cst`), numbered once per
/// function and only if some value needs one: numbering walks every op.
class SsaNames {
public:
  explicit SsaNames(Operation *scope) : scope(scope) {}
  std::string operator()(Value value) {
    // The pass manager verified the IR, so the printer need not verify it
    // again to decide between the custom and the generic form.
    if (!state)
      state.emplace(scope, OpPrintingFlags().assumeVerified());
    std::string text;
    llvm::raw_string_ostream os(text);
    value.printAsOperand(os, *state);
    return text;
  }

private:
  Operation *scope;
  std::optional<AsmState> state;
};

} // namespace

FailureOr<std::unique_ptr<ImportedGraph>> buildGraph(FunctionOpInterface func,
                                                     GraphDetail level) {
  bool withFacts = level == GraphDetail::Full;
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
  SsaNames ssaName(func);
  RematAttrNames rematAttrs(func->getContext());
  imported->valueByName = llvm::StringMap<ValueId>(
      block.getNumArguments() + block.getOperations().size());
  // Every name the function gives a value itself, as the loops below read
  // them (remat.name, else the location's name).
  auto collectGiven = [&](llvm::StringSet<> &given) {
    for (BlockArgument arg : block.getArguments()) {
      if (auto named = func.getArgAttrOfType<StringAttr>(
              arg.getArgNumber(), RematDialect::NameAttrHelper::getNameStr()))
        given.insert(named.getValue());
      else if (std::optional<StringRef> name = locationName(arg.getLoc()))
        given.insert(*name);
    }
    for (Operation &op : block) {
      if (auto named = op.getAttrOfType<StringAttr>(rematAttrs.name))
        given.insert(named.getValue());
      else if (std::optional<StringRef> name = locationName(op.getLoc()))
        given.insert(*name);
    }
  };
  NameTable names(imported->valueByName, collectGiven);
  Graph &graph = imported->graph;
  size_t expectedValues =
      block.getNumArguments() + block.getOperations().size();
  imported->valueOf.reserve(expectedValues);
  imported->valueIds.reserve(expectedValues);
  imported->opOf.reserve(block.getOperations().size());
  imported->opIds.reserve(block.getOperations().size());
  // Most ops have one result; the graph grows past the hint if not.
  graph.reserve(block.getOperations().size(), expectedValues);

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
    FailureOr<TensorType> type =
        tensorTypeOf(arg.getType(), arg.getLoc(), "argument #" + Twine(index));
    if (failed(type))
      return failure();
    // remat.name, else the location's name, else the SSA name.
    std::optional<StringRef> given;
    if (auto named = func.getArgAttrOfType<StringAttr>(
            index, RematDialect::NameAttrHelper::getNameStr()))
      given = named.getValue();
    else
      given = locationName(arg.getLoc());
    llvm::StringMapEntry<ValueId> &name =
        given ? names.claim(*given) : names.claim(ssaName(arg));
    ValueId added = graph.addInput(name.getKey().str(), *type, inputRole);
    name.second = added;
    recordValue(arg, added);
  }

  Operation *terminator = block.getTerminator();
  std::vector<TensorType> resultTypes;
  std::vector<std::string> resultNames;
  SmallVector<llvm::StringMapEntry<ValueId> *> resultEntries;
  llvm::SetVector<Value> reads;
  for (Operation &op : block) {
    if (&op == terminator)
      break;
    GraphOp node;
    node.kind = op.getName().getStringRef().str();
    readRematAttrs(&op, rematAttrs, node);

    // An op reads what its regions capture from the function body as it
    // reads its operands (a linalg.generic whose body multiplies by a
    // scalar computed outside): a capture missed here was planned as never
    // read, so its producer was not saved for a backward op capturing it
    // and remat-partition replayed it, never_recompute or not.
    const bool readsCaptures = op.getNumRegions() > 0;
    if (auto planner = dyn_cast<PlannerOpInterface>(&op)) {
      if (withFacts) {
        node.flops = planner.estimateFlops();
        node.bytesRead = planner.estimateBytesRead();
        node.bytesWritten = planner.estimateBytesWritten();
        node.computeClass = planner.classifyCompute();
        node.isRandom = planner.drawsRandomNumbers();
        node.isView = planner.isViewOnly();
        llvm::SmallVector<InverseRule> rules;
        planner.getInverseRules(rules);
        node.inverseRules.assign(std::make_move_iterator(rules.begin()),
                                 std::make_move_iterator(rules.end()));
      }
    } else if (op.getNumRegions() > 0) {
      // A region op the planner has no facts for: one node sized by its
      // operands and results.
      if (withFacts) {
        node.computeClass = ComputeClass::Other;
        node.flops = detail::defaultFlops(&op);
        node.bytesRead = detail::operandBytes(&op);
        node.bytesWritten = detail::resultBytes(&op);
      }
    } else {
      return op.emitError()
             << "remat-plan cannot plan '" << op.getName()
             << "': it does not implement PlannerOpInterface; wrap it in "
                "remat.opaque \"<name>\"(...) {flops = ..., compute_class = "
                "\"...\"} or attach a "
                "remat::PlannerOpInterface::ExternalModel to it "
                "(remat/Dialect/Remat/IR/RematInterfaces.h; docs/Dialect.md, "
                "\"External models\")";
    }

    auto addRead = [&](Value read) -> LogicalResult {
      ValueId id = imported->idOf(read);
      if (id == kNoId)
        return op.emitError() << "remat-plan: operand defined outside the "
                                 "function body is not supported";
      node.operands.push_back(id);
      return success();
    };
    // Reads in first-use order, each once: the operands, then (for a region
    // op) whatever its body captures. Most ops have a
    // handful of operands, deduplicated by a scan instead of a set.
    constexpr unsigned kMaxScannedOperands = 16;
    if (readsCaptures || op.getNumOperands() > kMaxScannedOperands) {
      reads.clear();
      reads.insert(op.getOperands().begin(), op.getOperands().end());
      if (readsCaptures)
        for (Region &region : op.getRegions())
          getUsedValuesDefinedAbove(region, reads);
      node.operands.reserve(reads.size());
      for (Value read : reads)
        if (failed(addRead(read)))
          return failure();
    } else {
      node.operands.reserve(op.getNumOperands());
      OperandRange operands = op.getOperands();
      for (auto [index, read] : llvm::enumerate(operands))
        if (!llvm::is_contained(operands.take_front(index), read) &&
            failed(addRead(read)))
          return failure();
    }

    resultTypes.clear();
    resultNames.clear();
    resultEntries.clear();
    // `node` is moved into the graph only after the loop, so `base` stays
    // valid through it.
    std::optional<StringRef> base = node.name.empty()
                                        ? locationName(op.getLoc())
                                        : std::optional<StringRef>(node.name);
    for (OpResult result : op.getResults()) {
      FailureOr<TensorType> type =
          tensorTypeOf(result.getType(), op.getLoc(),
                       "result #" + Twine(result.getResultNumber()) + " of '" +
                           op.getName().getStringRef() + "'");
      if (failed(type))
        return failure();
      resultTypes.push_back(std::move(*type));
      llvm::StringMapEntry<ValueId> &name =
          !base ? names.claim(ssaName(result))
          : op.getNumResults() == 1
              ? names.claim(*base)
              : names.claim(
                    (*base + "#" + Twine(result.getResultNumber())).str());
      resultNames.push_back(name.getKey().str());
      resultEntries.push_back(&name);
    }

    // The graph takes the types and names over; the vectors keep their
    // storage for the next op.
    absl::StatusOr<OpId> added = graph.addOp(
        std::move(node), std::move(resultTypes), std::move(resultNames));
    if (!added.ok())
      return op.emitError() << "remat-plan: the planning core rejected this "
                               "op: "
                            << std::string(added.status().message());
    imported->opOf.push_back(&op);
    imported->opIds[&op] = *added;
    const GraphOp &addedOp = graph.op(*added);
    for (auto [result, id, name] :
         llvm::zip(op.getResults(), addedOp.results, resultEntries)) {
      recordValue(result, id);
      name->second = id;
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

JointGraphAnalysis *getCachedGraphAnalysis(FunctionOpInterface func,
                                           AnalysisManager analyses) {
  std::optional<std::reference_wrapper<JointGraphAnalysis>> cached =
      analyses.nest(func).getCachedAnalysis<JointGraphAnalysis>();
  if (!cached || !cached->get().imported)
    return nullptr;
  return &cached->get();
}

FailureOr<ImportedGraph *> getOrBuildGraph(FunctionOpInterface func,
                                           AnalysisManager analyses,
                                           GraphDetail detail) {
  if (JointGraphAnalysis *cached = getCachedGraphAnalysis(func, analyses))
    if (cached->detail == GraphDetail::Full || detail == GraphDetail::Structure)
      return cached->imported.get();
  FailureOr<std::unique_ptr<ImportedGraph>> built = buildGraph(func, detail);
  if (failed(built))
    return failure();
  JointGraphAnalysis &analysis =
      analyses.nest(func).getAnalysis<JointGraphAnalysis>();
  analysis.imported = std::move(*built);
  analysis.detail = detail;
  analysis.classification.reset();
  analysis.unplannedAttrs.clear();
  return analysis.imported.get();
}

} // namespace remat
