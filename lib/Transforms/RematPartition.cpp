//===- RematPartition.cpp - The remat-partition pass ----------------------===//
//
// Part of remat. Splits each planned joint function into a forward function
// (outputs + saved values) and a backward function (saved values + the joint
// function's arguments -> gradients). The plan is read from the IR; the
// forward/backward classification comes from the core (remat::classify), so
// partition and planner agree on what "backward" means.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "remat/Dialect/Remat/IR/RematInterfaces.h"
#include "remat/Transforms/Derivation.h"
#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/PlanAttributes.h"
#include "remat/Transforms/ScheduleRealization.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace remat {
#define GEN_PASS_DEF_REMATPARTITIONPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

/// Attributes remat-plan leaves on ops; they describe the joint function and
/// are dropped from the copies. They are dialect attributes, so they live in
/// the op's attribute dictionary. When remat-plan ran in the same pipeline it
/// kept each op's dictionary from before it added them (`unplanned`), which
/// the copy gets back as is; otherwise the dictionary is rebuilt once, and
/// only when it holds one of them (most ops, the backward ones, hold none).
class PlanAttributeDropper {
public:
  PlanAttributeDropper(MLIRContext *context, ArrayRef<DictionaryAttr> unplanned)
      : names{StringAttr::get(context,
                              RematDialect::DecisionAttrHelper::getNameStr()),
              StringAttr::get(context,
                              RematDialect::ReasonAttrHelper::getNameStr()),
              StringAttr::get(
                  context, RematDialect::DerivationAttrHelper::getNameStr())},
        unplanned(unplanned) {}

  /// `op` is a copy of the joint function's op `source`.
  void operator()(Operation *op, OpId source) const {
    if (source >= 0 && static_cast<size_t>(source) < unplanned.size() &&
        unplanned[source]) {
      // Filtering the plan entries out would unique this same dictionary.
      op->setDiscardableAttrs(unplanned[source]);
      return;
    }
    DictionaryAttr attrs = op->getRawDictionaryAttrs();
    auto isPlanEntry = [&](NamedAttribute entry) {
      return llvm::is_contained(names, entry.getName());
    };
    if (llvm::none_of(attrs, isPlanEntry))
      return;
    // Filtering a sorted dictionary keeps it sorted and free of duplicates.
    SmallVector<NamedAttribute, 8> kept;
    kept.reserve(attrs.size());
    for (NamedAttribute entry : attrs)
      if (!isPlanEntry(entry))
        kept.push_back(entry);
    op->setDiscardableAttrs(
        DictionaryAttr::getWithSorted(op->getContext(), kept));
  }

private:
  StringAttr names[3];
  ArrayRef<DictionaryAttr> unplanned;
};

/// Values an op reads: its operands and whatever its regions capture, each
/// once, in first-use order.
SmallVector<Value> readsOf(Operation *op) {
  if (op->getNumRegions() == 0) {
    SmallVector<Value> reads;
    reads.reserve(op->getNumOperands());
    for (Value operand : op->getOperands())
      if (!llvm::is_contained(reads, operand))
        reads.push_back(operand);
    return reads;
  }
  llvm::SetVector<Value> reads(op->getOperands().begin(),
                               op->getOperands().end());
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, reads);
  return SmallVector<Value>(reads.begin(), reads.end());
}

/// Only the role, name (arguments) and gradient index (results) of an
/// argument or result carry over.
NamedAttrList roleAttrs(DictionaryAttr attrs, int64_t gradOfShift) {
  NamedAttrList kept;
  if (!attrs)
    return kept;
  if (Attribute role = attrs.get(RematDialect::RoleAttrHelper::getNameStr()))
    kept.append(RematDialect::RoleAttrHelper::getNameStr(), role);
  if (Attribute name = attrs.get(RematDialect::NameAttrHelper::getNameStr()))
    kept.append(RematDialect::NameAttrHelper::getNameStr(), name);
  if (auto gradOf = attrs.getAs<IntegerAttr>(
          RematDialect::GradOfAttrHelper::getNameStr()))
    kept.append(
        RematDialect::GradOfAttrHelper::getNameStr(),
        IntegerAttr::get(gradOf.getType(), gradOf.getInt() + gradOfShift));
  return kept;
}

/// Whether `op`'s result shares its first operand's storage, as the
/// planner's memory model counts it (FlatGraph::isAliasingView): a view
/// (reshape, transpose, broadcast, slice) by the op interface or its compute
/// class, with at least one operand.
bool isAliasingView(Operation *op) {
  auto planner = dyn_cast<PlannerOpInterface>(op);
  return planner && op->getNumOperands() > 0 && op->getNumResults() == 1 &&
         (planner.isViewOnly() ||
          planner.classifyCompute() == ComputeClass::View);
}

/// A saved value that is a view crosses the forward -> backward interface as
/// the storage it views, and backward re-creates the view: a function result
/// of a view type is a copy in every bufferized lowering (a broadcast has no
/// identity-layout memref at all), while the planner counts a saved view as
/// its base's storage. Each saved view's chain of views is followed through
/// first operands to its root: a function argument needs nothing passed
/// (backward receives the arguments), any other root is passed in the view's
/// place. A view op whose other operands are not function arguments ends the
/// chain there. Returns the new interface in value-id order; `viewed`
/// receives the saved views dropped from it.
std::vector<ValueId> passViewBases(const ImportedGraph &imported,
                                   ArrayRef<ValueId> saved,
                                   llvm::DenseSet<Value> &viewed) {
  std::vector<uint8_t> passed(imported.graph.numValues(), 0);
  for (ValueId id : saved) {
    Value root = imported.valueOf[id];
    while (Operation *producer = root.getDefiningOp()) {
      if (!isAliasingView(producer) ||
          !llvm::all_of(producer->getOperands().drop_front(),
                        [](Value v) { return isa<BlockArgument>(v); }))
        break;
      root = producer->getOperand(0);
    }
    if (root == imported.valueOf[id]) {
      passed[id] = 1;
      continue;
    }
    viewed.insert(imported.valueOf[id]);
    if (!isa<BlockArgument>(root))
      passed[imported.idOf(root)] = 1;
  }
  std::vector<ValueId> result;
  for (ValueId id = 0; id < static_cast<ValueId>(passed.size()); ++id)
    if (passed[id])
      result.push_back(id);
  return result;
}

/// Re-creates in backward a saved view that passViewBases left out of the
/// interface: clones its views from the nearest value `mapping` already
/// holds (at worst the passed root). No-op when `value` is mapped.
void cloneSavedView(OpBuilder &builder, IRMapping &mapping,
                    const ImportedGraph &imported,
                    const PlanAttributeDropper &dropPlanAttributes, Value value,
                    unsigned &numViewOps) {
  SmallVector<Operation *> chain;
  for (Value v = value; !mapping.contains(v); v = chain.back()->getOperand(0))
    chain.push_back(v.getDefiningOp());
  for (Operation *op : llvm::reverse(chain)) {
    dropPlanAttributes(builder.clone(*op, mapping), imported.idOf(op));
    ++numViewOps;
  }
}

/// Builds the backward function body: backward ops in joint order, each
/// preceded by whatever recomputation or derivation its operands need.
class BackwardBuilder {
public:
  BackwardBuilder(OpBuilder &builder, IRMapping &mapping,
                  const ImportedGraph &imported, const RecordedPlan &plan,
                  const Classification &phases,
                  const PlanAttributeDropper &dropPlanAttributes,
                  const llvm::DenseSet<Value> &viewed)
      : builder(builder), mapping(mapping), imported(imported), plan(plan),
        phases(phases), dropPlanAttributes(dropPlanAttributes), viewed(viewed) {
  }

  /// Makes `value` available in backward, recomputing or deriving it (and,
  /// recursively, what it needs) at the insertion point. Iterative, so long
  /// recompute chains cannot overflow the stack.
  LogicalResult materialize(Value root);

  unsigned numRecomputedOps = 0;
  unsigned numDerivationOps = 0;
  unsigned numViewOps = 0;

private:
  struct Derive {
    Operation *via = nullptr;
    const RecordedDerivation *recorded = nullptr;
  };
  FailureOr<Derive> derivationOf(Value value);
  /// Values `value`'s re-creation reads.
  FailureOr<SmallVector<Value>> dependencies(Value value);
  LogicalResult create(Value value);

  OpBuilder &builder;
  IRMapping &mapping;
  const ImportedGraph &imported;
  const RecordedPlan &plan;
  const Classification &phases;
  const PlanAttributeDropper &dropPlanAttributes;
  /// Saved views re-created from their bases (passViewBases).
  const llvm::DenseSet<Value> &viewed;
  /// The values being created in the current materialize call; kept here
  /// so its storage is reused across calls (it is empty between them).
  llvm::DenseSet<Value> onPath;
};

FailureOr<BackwardBuilder::Derive> BackwardBuilder::derivationOf(Value value) {
  ValueId id = imported.idOf(value);
  const std::optional<RecordedDecision> &decision = plan.decisions[id];
  if (!decision || decision->decision != Decision::Derive)
    return Derive{};
  const RecordedDerivation &recorded = *decision->derivation;
  Operation *via = derivationVia(imported, recorded, value);
  if (!via)
    return value.getDefiningOp()->emitError()
           << "remat-partition: the derivation of '" << imported.nameOf(value)
           << "' names '" << recorded.via
           << "', which is not produced by an op reading this value as "
              "operand #"
           << recorded.operand << "; re-run remat-plan";
  return Derive{via, &recorded};
}

FailureOr<SmallVector<Value>> BackwardBuilder::dependencies(Value value) {
  if (viewed.contains(value))
    return SmallVector<Value>(); // cloneSavedView starts from what is mapped
  FailureOr<Derive> derive = derivationOf(value);
  if (failed(derive))
    return failure();
  if (derive->via) {
    SmallVector<Value> reads = {derive->via->getResult(0)};
    for (auto [index, operand] : llvm::enumerate(derive->via->getOperands()))
      if (index != derive->recorded->operand)
        reads.push_back(operand);
    return reads;
  }
  return readsOf(value.getDefiningOp());
}

LogicalResult BackwardBuilder::create(Value value) {
  if (viewed.contains(value)) {
    cloneSavedView(builder, mapping, imported, dropPlanAttributes, value,
                   numViewOps);
    return success();
  }
  FailureOr<Derive> derive = derivationOf(value);
  if (failed(derive))
    return failure();
  if (derive->via)
    return emitDerivation(builder, mapping, derive->via,
                          derive->recorded->operand, derive->recorded->kind,
                          numDerivationOps);
  Operation *source = value.getDefiningOp();
  Operation *clone = builder.clone(*source, mapping);
  dropPlanAttributes(clone, imported.idOf(source));
  ++numRecomputedOps;
  return success();
}

LogicalResult BackwardBuilder::materialize(Value root) {
  // Depth-first: a value is created once every value it reads exists. The
  // `onPath` set catches a derivation cycle (a derived from c, c from a).
  struct Frame {
    Value value;
    bool expanded;
  };
  SmallVector<Frame> stack = {{root, false}};
  onPath.clear();
  while (!stack.empty()) {
    Frame &frame = stack.back();
    Value value = frame.value;
    if (mapping.contains(value)) {
      onPath.erase(value);
      stack.pop_back();
      continue;
    }
    Operation *producer = value.getDefiningOp();
    OpId opId = producer ? imported.idOf(producer) : kNoId;
    if (opId == kNoId || phases.opPhase[opId] != Phase::Forward)
      return (producer ? producer : builder.getInsertionBlock()->getParentOp())
                 ->emitError()
             << "remat-partition: '" << imported.nameOf(value)
             << "' is needed in backward but has no copy there";
    if (frame.expanded) {
      if (failed(create(value)))
        return failure();
      onPath.erase(value);
      stack.pop_back();
      continue;
    }
    frame.expanded = true;
    onPath.insert(value);
    FailureOr<SmallVector<Value>> reads = dependencies(value);
    if (failed(reads))
      return failure();
    for (Value read : llvm::reverse(*reads)) {
      if (mapping.contains(read))
        continue;
      if (onPath.contains(read))
        return producer->emitError()
               << "remat-partition: the plan derives '"
               << imported.nameOf(value) << "' from '" << imported.nameOf(read)
               << "', which itself needs it; re-run remat-plan";
      stack.push_back({read, false});
    }
  }
  return success();
}

/// The forward -> backward interface: the values the plan saves, plus the
/// function outputs a derivation reads (the planner counts outputs as
/// available in backward, since they live to the end of the step), in
/// value-id order.
FailureOr<std::vector<ValueId>>
valuesPassedToBackward(const ImportedGraph &imported, const RecordedPlan &plan,
                       Operation *terminator,
                       llvm::function_ref<StringRef(unsigned)> role) {
  std::vector<uint8_t> passed(imported.graph.numValues(), 0);
  for (ValueId id : plan.savedValues())
    passed[id] = 1;
  llvm::DenseSet<Value> outputs;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands()))
    if (role(index) == "output")
      outputs.insert(value);
  for (const std::optional<RecordedDecision> &decision : plan.decisions) {
    if (!decision || !decision->derivation)
      continue;
    for (const std::string &name : decision->derivation->from) {
      auto it = imported.valueByName.find(name);
      if (it == imported.valueByName.end())
        return terminator->emitError()
               << "remat-partition: a derivation reads '" << name
               << "', which is not a value of this function; re-run "
                  "remat-plan";
      Value value = imported.valueOf[it->second];
      if (outputs.contains(value) && !isa<BlockArgument>(value))
        passed[it->second] = 1;
    }
  }
  std::vector<ValueId> result;
  for (ValueId id = 0; id < static_cast<ValueId>(passed.size()); ++id)
    if (passed[id])
      result.push_back(id);
  return result;
}

struct RematPartitionPass final
    : remat::impl::RematPartitionPassBase<RematPartitionPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult partition(func::FuncOp joint, SymbolTable &symbols);
};

LogicalResult RematPartitionPass::partition(func::FuncOp joint,
                                            SymbolTable &symbols) {
  // The plan is read from the IR, so the ops' cost facts are not needed;
  // after remat-plan in the same pipeline the graph it built is reused.
  FailureOr<ImportedGraph *> importedOr =
      getOrBuildGraph(joint, getAnalysisManager(), GraphDetail::Structure);
  if (failed(importedOr))
    return failure();
  const ImportedGraph &imported = **importedOr;
  FailureOr<RecordedPlan> planOr = readPlan(joint, imported, "remat-partition");
  if (failed(planOr))
    return failure();
  const RecordedPlan &plan = *planOr;
  // remat-plan's classification of the same graph, when it left one.
  JointGraphAnalysis *cached =
      getCachedGraphAnalysis(joint, getAnalysisManager());
  std::optional<Classification> computed;
  if (!cached || !cached->classification) {
    absl::StatusOr<Classification> phasesOr = classify(imported.graph);
    if (!phasesOr.ok())
      return joint.emitError()
             << "remat-partition: cannot split '" << joint.getName()
             << "': " << std::string(phasesOr.status().message());
    computed = std::move(*phasesOr);
  }
  const Classification &phases = computed ? *computed : *cached->classification;

  std::string forwardName = (joint.getName() + "_forward").str();
  std::string backwardName = (joint.getName() + "_backward").str();
  for (const std::string &name : {forwardName, backwardName})
    if (symbols.lookup(name))
      return joint.emitError() << "remat-partition: cannot create @" << name
                               << " for '" << joint.getName()
                               << "': a symbol with that name exists; "
                                  "rename it";

  Builder attrBuilder(joint.getContext());
  PlanAttributeDropper dropPlanAttributes(
      joint.getContext(), cached
                              ? ArrayRef<DictionaryAttr>(cached->unplannedAttrs)
                              : ArrayRef<DictionaryAttr>());
  Block &jointBlock = joint.getBody().front();
  Operation *terminator = jointBlock.getTerminator();
  auto resultRole = [&](unsigned index) {
    auto role = joint.getResultAttrOfType<StringAttr>(
        index, RematDialect::RoleAttrHelper::getNameStr());
    return role ? role.getValue() : StringRef();
  };
  auto isTangent = [&](unsigned index) {
    auto role = joint.getArgAttrOfType<StringAttr>(
        index, RematDialect::RoleAttrHelper::getNameStr());
    return role && role.getValue() == "tangent";
  };

  // A recorded schedule (remat.schedule) is emitted event by event; without
  // one the program is built from the per-value decisions.
  std::vector<ValueId> outputIds, gradientIds;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    if (resultRole(index) == "output")
      outputIds.push_back(imported.idOf(value));
    else if (resultRole(index) == "grad")
      gradientIds.push_back(imported.idOf(value));
  }
  FailureOr<std::optional<RecordedSchedule>> scheduleOr =
      readSchedule(joint, imported, plan, phases, outputIds, gradientIds,
                   "remat-partition");
  if (failed(scheduleOr))
    return failure();
  const std::optional<RecordedSchedule> &schedule = *scheduleOr;
  std::vector<uint8_t> evaluated(schedule ? imported.graph.numOps() : 0, 0);
  // Emits one part (forward or backward) of the recorded schedule and adds
  // its counts to the pass statistics.
  auto emitSchedulePart = [&](OpBuilder &body, IRMapping &mapping,
                              ArrayRef<ScheduleEvent> events, bool backward) {
    unsigned recomputed = 0, derivationOps = 0;
    if (failed(emitScheduleEvents(body, mapping, imported, plan, phases,
                                  events, backward, evaluated,
                                  dropPlanAttributes,
                                  recomputed, derivationOps)))
      return failure();
    numRecomputedOps += recomputed;
    numDerivationOps += derivationOps;
    return success();
  };

  FailureOr<std::vector<ValueId>> savedOr =
      schedule ? FailureOr<std::vector<ValueId>>(schedule->saved)
               : valuesPassedToBackward(imported, plan, terminator, resultRole);
  if (failed(savedOr))
    return failure();
  std::vector<ValueId> saved = std::move(*savedOr);
  llvm::DenseSet<Value> viewed;
  if (passViewStorage)
    saved = passViewBases(imported, saved, viewed);
  SmallVector<Attribute> savedNames;
  for (ValueId id : saved)
    savedNames.push_back(
        attrBuilder.getStringAttr(imported.graph.value(id).name));
  ArrayAttr savedAttr = attrBuilder.getArrayAttr(savedNames);

  OpBuilder builder(joint.getContext());
  builder.setInsertionPointAfter(joint);
  Location loc = joint.getLoc();

  //===--- Forward: non-tangent arguments -> outputs, saved values
  //---------===//
  SmallVector<Type> forwardInputs, forwardResults;
  SmallVector<DictionaryAttr> forwardArgAttrs, forwardResultAttrs;
  for (unsigned i = 0, e = joint.getNumArguments(); i < e; ++i) {
    if (isTangent(i))
      continue;
    forwardInputs.push_back(joint.getArgument(i).getType());
    forwardArgAttrs.push_back(
        attrBuilder.getDictionaryAttr(roleAttrs(joint.getArgAttrDict(i), 0)));
  }
  SmallVector<Value> forwardReturned;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    if (resultRole(index) != "output")
      continue;
    forwardReturned.push_back(value);
    forwardResults.push_back(value.getType());
    forwardResultAttrs.push_back(attrBuilder.getDictionaryAttr(
        roleAttrs(joint.getResultAttrDict(index), 0)));
  }
  for (ValueId id : saved) {
    forwardReturned.push_back(imported.valueOf[id]);
    forwardResults.push_back(imported.valueOf[id].getType());
    forwardResultAttrs.push_back(attrBuilder.getDictionaryAttr({}));
  }
  auto forward = func::FuncOp::create(
      builder, loc, forwardName,
      builder.getFunctionType(forwardInputs, forwardResults));
  forward.setVisibility(joint.getVisibility());
  forward.setAllArgAttrs(forwardArgAttrs);
  forward.setAllResultAttrs(forwardResultAttrs);
  forward->setAttr(RematDialect::StageAttrHelper::getNameStr(),
                   attrBuilder.getStringAttr("forward"));
  forward->setAttr(RematDialect::SavedValuesAttrHelper::getNameStr(),
                   savedAttr);
  {
    Block *block = forward.addEntryBlock();
    IRMapping mapping;
    unsigned next = 0;
    for (unsigned i = 0, e = joint.getNumArguments(); i < e; ++i)
      if (!isTangent(i))
        mapping.map(joint.getArgument(i), block->getArgument(next++));
    OpBuilder body = OpBuilder::atBlockEnd(block);
    if (schedule) {
      if (failed(emitSchedulePart(
              body, mapping,
              ArrayRef(schedule->events).take_front(schedule->backwardStart),
              /*backward=*/false)))
        return failure();
    } else {
      for (auto [opId, op] : llvm::enumerate(imported.opOf)) {
        if (phases.opPhase[opId] != Phase::Forward)
          continue;
        dropPlanAttributes(body.clone(*op, mapping), static_cast<OpId>(opId));
      }
    }
    SmallVector<Value> returned;
    for (Value value : forwardReturned) {
      Value copy = mapping.lookupOrNull(value);
      if (!copy)
        return joint.emitError()
               << "remat-partition: '" << imported.nameOf(value)
               << "' is returned by forward but computed in backward (it "
                  "reads a tangent); only gradients may depend on tangents";
      returned.push_back(copy);
    }
    func::ReturnOp::create(body, loc, returned);
    // Forward ops whose results neither forward returns nor saves are
    // recomputed in backward (or not needed): drop them. A recorded schedule
    // is emitted as it is, since its peak is the one the plan reports.
    if (!schedule)
      for (Operation &op :
           llvm::make_early_inc_range(llvm::reverse(block->getOperations())))
        if (isOpTriviallyDead(&op))
          op.erase();
  }

  //===--- Backward: saved values, joint arguments -> gradients
  //------------===//
  SmallVector<Type> backwardInputs, backwardResults;
  SmallVector<DictionaryAttr> backwardArgAttrs, backwardResultAttrs;
  for (ValueId id : saved) {
    backwardInputs.push_back(imported.valueOf[id].getType());
    backwardArgAttrs.push_back(attrBuilder.getDictionaryAttr({}));
  }
  int64_t shift = static_cast<int64_t>(saved.size());
  for (unsigned i = 0, e = joint.getNumArguments(); i < e; ++i) {
    backwardInputs.push_back(joint.getArgument(i).getType());
    backwardArgAttrs.push_back(
        attrBuilder.getDictionaryAttr(roleAttrs(joint.getArgAttrDict(i), 0)));
  }
  SmallVector<Value> gradients;
  for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
    if (resultRole(index) != "grad")
      continue;
    gradients.push_back(value);
    backwardResults.push_back(value.getType());
    backwardResultAttrs.push_back(attrBuilder.getDictionaryAttr(
        roleAttrs(joint.getResultAttrDict(index), shift)));
  }
  builder.setInsertionPointAfter(forward);
  auto backward = func::FuncOp::create(
      builder, loc, backwardName,
      builder.getFunctionType(backwardInputs, backwardResults));
  backward.setVisibility(joint.getVisibility());
  backward.setAllArgAttrs(backwardArgAttrs);
  backward.setAllResultAttrs(backwardResultAttrs);
  backward->setAttr(RematDialect::StageAttrHelper::getNameStr(),
                    attrBuilder.getStringAttr("backward"));
  backward->setAttr(RematDialect::SavedValuesAttrHelper::getNameStr(),
                    savedAttr);
  {
    Block *block = backward.addEntryBlock();
    IRMapping mapping;
    for (auto [index, id] : llvm::enumerate(saved))
      mapping.map(imported.valueOf[id], block->getArgument(index));
    for (unsigned i = 0, e = joint.getNumArguments(); i < e; ++i)
      mapping.map(joint.getArgument(i), block->getArgument(shift + i));
    OpBuilder body = OpBuilder::atBlockEnd(block);
    if (schedule) {
      // Event by event, so that a saved view is re-created just before its
      // first read, where a view fused into its reader costs nothing.
      unsigned viewOps = 0;
      auto recreateViews = [&](ValueRange reads) {
        for (Value read : reads)
          if (viewed.contains(read))
            cloneSavedView(body, mapping, imported, dropPlanAttributes, read,
                           viewOps);
      };
      for (const ScheduleEvent &event :
           ArrayRef(schedule->events).drop_front(schedule->backwardStart)) {
        if (!viewed.empty()) {
          if (event.op != kNoId) {
            recreateViews(readsOf(imported.opOf[event.op]));
          } else {
            Value value = imported.valueOf[event.derived];
            Operation *via = derivationVia(
                imported, *plan.decisions[event.derived]->derivation, value);
            recreateViews(via->getResult(0));
            recreateViews(via->getOperands());
          }
        }
        if (failed(emitSchedulePart(body, mapping, ArrayRef(event),
                                    /*backward=*/true)))
          return failure();
      }
      recreateViews(gradients);
      numViewOps += viewOps;
      SmallVector<Value> returned;
      for (Value gradient : gradients)
        returned.push_back(mapping.lookup(gradient));
      func::ReturnOp::create(body, loc, returned);
      symbols.insert(forward);
      symbols.insert(backward);
      return success();
    }
    BackwardBuilder materializer(body, mapping, imported, plan, phases,
                                 dropPlanAttributes, viewed);
    for (auto [opId, op] : llvm::enumerate(imported.opOf)) {
      if (phases.opPhase[opId] != Phase::Backward)
        continue;
      for (Value read : readsOf(op))
        if (failed(materializer.materialize(read)))
          return failure();
      dropPlanAttributes(body.clone(*op, mapping), static_cast<OpId>(opId));
    }
    SmallVector<Value> returned;
    for (Value gradient : gradients) {
      if (failed(materializer.materialize(gradient)))
        return failure();
      returned.push_back(mapping.lookup(gradient));
    }
    func::ReturnOp::create(body, loc, returned);
    numRecomputedOps += materializer.numRecomputedOps;
    numDerivationOps += materializer.numDerivationOps;
    numViewOps += materializer.numViewOps;
  }

  symbols.insert(forward);
  symbols.insert(backward);
  return success();
}

void RematPartitionPass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> planned;
  for (auto func : module.getOps<func::FuncOp>())
    if (isJointFunction(func) && !func.isExternal())
      planned.push_back(func);
  if (planned.empty()) {
    module.emitError() << "remat-partition: no function is marked "
                          "remat.graph = \"joint\"; nothing to split (run "
                          "-remat-plan on a joint function first)";
    return signalPassFailure();
  }
  for (func::FuncOp joint : planned) {
    // Erasing a function something still refers to leaves an invalid
    // module, which the verifier then blamed on the input (before
    // 2026-12-08).
    if (!keepJoint)
      if (std::optional<SymbolTable::UseRange> uses =
              SymbolTable::getSymbolUses(joint, module))
        if (!uses->empty()) {
          InFlightDiagnostic diag =
              uses->begin()->getUser()->emitError()
              << "remat-partition: this op refers to @" << joint.getSymName()
              << ", a joint function that remat-partition replaces by a "
                 "forward and a backward function; give keep-joint=true "
                 "to keep it beside them, or plan a copy that nothing "
                 "calls";
          diag.attachNote(joint.getLoc()) << "the joint function";
          return signalPassFailure();
        }
    if (failed(partition(joint, symbols)))
      return signalPassFailure();
    if (!keepJoint)
      symbols.erase(joint);
  }
}

} // namespace
