//===- PlanAttributes.cpp - The plan as IR attributes ---------------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/PlanAttributes.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;

namespace remat {

// The spellings are the core's (remat::toString), so reports, attributes and
// the C++ API never disagree.
StringRef decisionSpelling(Decision decision) {
  std::string_view spelling = toString(decision);
  return StringRef(spelling.data(), spelling.size());
}

std::optional<Decision> parseDecision(StringRef spelling) {
  for (Decision decision : {Decision::Save, Decision::Recompute,
                            Decision::Derive, Decision::NotNeeded,
                            Decision::Input})
    if (decisionSpelling(decision) == spelling)
      return decision;
  return std::nullopt;
}

std::optional<InverseKind> parseInverseKind(StringRef spelling) {
  for (int kind = 0; kind <= static_cast<int>(InverseKind::Cast); ++kind) {
    auto candidate = static_cast<InverseKind>(kind);
    if (toString(candidate) ==
        std::string_view(spelling.data(), spelling.size()))
      return candidate;
  }
  return std::nullopt;
}

namespace {
StringAttr str(Builder &builder, std::string_view text) {
  return builder.getStringAttr(StringRef(text.data(), text.size()));
}

Attribute derivationAttr(Builder &builder, const ImportedGraph &imported,
                         const Derivation &derivation) {
  const Graph &graph = imported.graph;
  const GraphOp &via = graph.op(derivation.viaOp);
  SmallVector<Attribute> from;
  for (ValueId id : derivation.from)
    from.push_back(str(builder, graph.value(id).name));
  SmallVector<NamedAttribute> fields = {
      builder.getNamedAttr("via",
                           str(builder, graph.value(via.results[0]).name)),
      builder.getNamedAttr("operand", builder.getI64IntegerAttr(
                                          derivation.rule.recoveredOperand)),
      builder.getNamedAttr("kind",
                           str(builder, toString(derivation.rule.kind))),
      builder.getNamedAttr("from", builder.getArrayAttr(from)),
      builder.getNamedAttr("exact", builder.getBoolAttr(derivation.exact)),
  };
  return builder.getDictionaryAttr(fields);
}

/// `attrs` without the entries named in `drop` and with `add` (whose names
/// must all be in `drop`) merged in, built as one dictionary (setting and
/// removing the entries one at a time would rebuild and unique a dictionary
/// per entry). Returns `attrs` itself when nothing changes.
DictionaryAttr replaceEntries(MLIRContext *context, DictionaryAttr attrs,
                              ArrayRef<StringAttr> drop,
                              ArrayRef<NamedAttribute> add) {
  auto dropped = [&](NamedAttribute entry) {
    return llvm::is_contained(drop, entry.getName());
  };
  if (add.empty() && llvm::none_of(attrs, dropped))
    return attrs;
  SmallVector<NamedAttribute, 8> entries;
  entries.reserve(attrs.size() + add.size());
  llvm::copy_if(attrs, std::back_inserter(entries),
                [&](NamedAttribute entry) { return !dropped(entry); });
  entries.append(add.begin(), add.end());
  llvm::sort(entries);
  return DictionaryAttr::getWithSorted(context, entries);
}
} // namespace

LogicalResult recordPlan(FunctionOpInterface func,
                         const ImportedGraph &imported, const Plan &plan,
                         const PlanRequest &request,
                         std::vector<DictionaryAttr> *unplannedAttrs) {
  MLIRContext *context = func.getContext();
  Builder builder(context);
  const Graph &graph = imported.graph;
  StringAttr decisionName =
      builder.getStringAttr(RematDialect::DecisionAttrHelper::getNameStr());
  StringAttr reasonName =
      builder.getStringAttr(RematDialect::ReasonAttrHelper::getNameStr());
  StringAttr derivationName =
      builder.getStringAttr(RematDialect::DerivationAttrHelper::getNameStr());

  // Arguments backward reads; the argument attributes are set all at once
  // (setting them one argument at a time copies the whole array each time).
  SmallVector<Attribute> argAttrs;
  argAttrs.reserve(func.getNumArguments());
  for (unsigned index = 0, e = func.getNumArguments(); index < e; ++index) {
    DictionaryAttr attrs = func.getArgAttrDict(index);
    if (!attrs)
      attrs = builder.getDictionaryAttr({});
    const ValueDecision *decision =
        plan.find(imported.idOf(func.getArgument(index)));
    SmallVector<NamedAttribute, 2> entries;
    if (decision) {
      entries.emplace_back(
          decisionName,
          builder.getStrArrayAttr({decisionSpelling(decision->decision)}));
      entries.emplace_back(reasonName,
                           builder.getStrArrayAttr({plan.reason(*decision)}));
    }
    argAttrs.push_back(
        replaceEntries(context, attrs, {decisionName, reasonName}, entries));
  }
  func.setAllArgAttrs(argAttrs);

  // Most values share a handful of decision spellings and reason texts, and
  // most ops have one result: the attributes for those are built once and
  // reused instead of being uniqued again for every op.
  SmallVector<StringAttr> decisionAttrs;
  auto decisionAttr = [&](Decision decision) {
    size_t index = static_cast<size_t>(decision);
    if (decisionAttrs.size() <= index)
      decisionAttrs.resize(index + 1);
    if (!decisionAttrs[index])
      decisionAttrs[index] = builder.getStringAttr(decisionSpelling(decision));
    return decisionAttrs[index];
  };
  llvm::StringMap<StringAttr> reasonAttrs;
  auto reasonAttr = [&](std::string_view reason) {
    StringAttr &attr = reasonAttrs[StringRef(reason.data(), reason.size())];
    if (!attr)
      attr = str(builder, reason);
    return attr;
  };
  llvm::DenseMap<Attribute, ArrayAttr> singletons;
  auto arrayAttr = [&](ArrayRef<Attribute> elements) {
    if (elements.size() != 1)
      return builder.getArrayAttr(elements);
    ArrayAttr &attr = singletons[elements.front()];
    if (!attr)
      attr = builder.getArrayAttr(elements);
    return attr;
  };

  // Forward ops: one entry per result.
  for (OpId opId = 0; opId < static_cast<OpId>(graph.numOps()); ++opId) {
    // The plan entries are dialect attributes: they live in the op's
    // attribute dictionary, which is rebuilt once per op.
    Operation *op = imported.opOf[opId];
    DictionaryAttr attrs = op->getRawDictionaryAttrs();
    if (unplannedAttrs) {
      unplannedAttrs->resize(graph.numOps());
      auto isPlanEntry = [&](NamedAttribute entry) {
        StringAttr key = entry.getName();
        return key == decisionName || key == reasonName ||
               key == derivationName;
      };
      (*unplannedAttrs)[opId] =
          llvm::none_of(attrs, isPlanEntry) ? attrs : DictionaryAttr();
    }
    const GraphOp &node = graph.op(opId);
    if (plan.classification.opPhase[opId] != Phase::Forward ||
        node.results.empty()) {
      op->setDiscardableAttrs(replaceEntries(
          context, attrs, {decisionName, reasonName, derivationName}, {}));
      continue;
    }
    SmallVector<Attribute> decisions, reasons, derivations;
    bool anyDerived = false;
    for (ValueId result : node.results) {
      const ValueDecision *decision = plan.find(result);
      if (!decision)
        return op->emitError()
               << "remat-plan: internal error: the planner returned no "
                  "decision for forward value '"
               << graph.value(result).name << "'";
      decisions.push_back(decisionAttr(decision->decision));
      reasons.push_back(reasonAttr(plan.reason(*decision)));
      if (decision->decision == Decision::Derive && decision->derivation) {
        derivations.push_back(
            derivationAttr(builder, imported, *decision->derivation));
        anyDerived = true;
      } else {
        derivations.push_back(builder.getUnitAttr());
      }
    }
    SmallVector<NamedAttribute, 3> entries = {
        {decisionName, arrayAttr(decisions)}, {reasonName, arrayAttr(reasons)}};
    if (anyDerived)
      entries.emplace_back(derivationName, builder.getArrayAttr(derivations));
    op->setDiscardableAttrs(replaceEntries(
        context, attrs, {decisionName, reasonName, derivationName}, entries));
  }

  const SimulationResult &sim = plan.simulation;
  SmallVector<NamedAttribute> summary = {
      builder.getNamedAttr("strategy", str(builder, toString(plan.strategy))),
      builder.getNamedAttr("target", builder.getStringAttr(plan.targetName)),
      builder.getNamedAttr("peak_memory_bytes",
                           builder.getI64IntegerAttr(sim.peakBytes)),
      builder.getNamedAttr("saved_bytes",
                           builder.getI64IntegerAttr(sim.savedBytes)),
      builder.getNamedAttr("saved_input_bytes",
                           builder.getI64IntegerAttr(sim.savedInputBytes)),
      builder.getNamedAttr("input_bytes",
                           builder.getI64IntegerAttr(sim.inputBytes)),
      builder.getNamedAttr("parameter_bytes",
                           builder.getI64IntegerAttr(sim.parameterBytes)),
      builder.getNamedAttr("tangent_bytes",
                           builder.getI64IntegerAttr(sim.tangentBytes)),
      builder.getNamedAttr("recompute_flops",
                           builder.getF64FloatAttr(sim.recomputeFlops)),
      builder.getNamedAttr("predicted_recompute_time_us",
                           builder.getF64FloatAttr(sim.recomputeTimeUs)),
      builder.getNamedAttr("predicted_total_time_us",
                           builder.getF64FloatAttr(sim.totalTimeUs)),
      builder.getNamedAttr("allow_inexact_derivation",
                           builder.getBoolAttr(request.allowInexactDerivation)),
      builder.getNamedAttr("uses_inexact_derivation",
                           builder.getBoolAttr(plan.usesInexactDerivation)),
  };
  if (plan.budgetBytes)
    summary.push_back(builder.getNamedAttr(
        "budget_bytes", builder.getI64IntegerAttr(*plan.budgetBytes)));
  if (plan.budgetTotalBytes)
    summary.push_back(builder.getNamedAttr(
        "budget_total_bytes",
        builder.getI64IntegerAttr(*plan.budgetTotalBytes)));
  if (plan.lowerBound) {
    summary.push_back(builder.getNamedAttr(
        "lower_bound_time_us", builder.getF64FloatAttr(plan.lowerBound->timeUs)));
    summary.push_back(builder.getNamedAttr(
        "lower_bound_kind",
        builder.getStringAttr(toString(plan.lowerBound->kind))));
    if (std::optional<double> gap = plan.optimalityGap())
      summary.push_back(builder.getNamedAttr("optimality_gap",
                                             builder.getF64FloatAttr(*gap)));
    // A bound the time limit stopped depends on the machine's speed.
    if (plan.lowerBound->lpStopped)
      summary.push_back(builder.getNamedAttr("lower_bound_stopped",
                                             builder.getBoolAttr(true)));
  }
  if (!request.policy.empty())
    summary.push_back(
        builder.getNamedAttr("policy", builder.getStringAttr(request.policy)));
  if (plan.preferencesDropped)
    summary.push_back(builder.getNamedAttr("preferences_dropped",
                                           builder.getBoolAttr(true)));
  if (plan.bansLifted)
    summary.push_back(
        builder.getNamedAttr("bans_lifted", builder.getBoolAttr(true)));
  // `optimal` starts from budget's plan, so the effort shapes it too.
  if (plan.strategy == Strategy::Budget || plan.strategy == Strategy::Optimal) {
    summary.push_back(builder.getNamedAttr(
        "budget_search_effort",
        builder.getF64FloatAttr(request.budgetSearchEffort)));
    summary.push_back(builder.getNamedAttr(
        "schedule_plans", builder.getBoolAttr(request.schedulePlans)));
  }
  if (plan.strategy == Strategy::MinCut)
    summary.push_back(builder.getNamedAttr(
        "exchange_rate_bytes_per_us",
        builder.getF64FloatAttr(plan.exchangeRateBytesPerUs)));
  func->setAttr(RematDialect::PlanAttrHelper::getNameStr(),
                builder.getDictionaryAttr(summary));
  return success();
}

std::vector<ValueId> RecordedPlan::savedValues() const {
  std::vector<ValueId> saved;
  for (ValueId id = 0; id < static_cast<ValueId>(decisions.size()); ++id)
    if (decisions[id] && decisions[id]->decision == Decision::Save)
      saved.push_back(id);
  return saved;
}

namespace {
FailureOr<RecordedDecision> readEntry(Operation *anchor, StringRef passName,
                                      StringRef valueName, Attribute decision,
                                      Attribute reason, Attribute derivation) {
  RecordedDecision recorded;
  auto decisionText = dyn_cast_or_null<StringAttr>(decision);
  std::optional<Decision> parsed =
      decisionText ? parseDecision(decisionText.getValue()) : std::nullopt;
  if (!parsed)
    return anchor->emitError() << passName << ": value '" << valueName
                               << "' has a malformed 'remat.decision'";
  recorded.decision = *parsed;
  if (auto reasonText = dyn_cast_or_null<StringAttr>(reason))
    recorded.reason = reasonText.getValue();
  if (auto dict = dyn_cast_or_null<DictionaryAttr>(derivation)) {
    RecordedDerivation derived;
    auto via = dict.getAs<StringAttr>("via");
    auto operand = dict.getAs<IntegerAttr>("operand");
    auto kind = dict.getAs<StringAttr>("kind");
    auto from = dict.getAs<ArrayAttr>("from");
    auto exact = dict.getAs<BoolAttr>("exact");
    std::optional<InverseKind> parsedKind =
        kind ? parseInverseKind(kind.getValue()) : std::nullopt;
    if (!via || !operand || !parsedKind || !from || !exact)
      return anchor->emitError()
             << passName << ": value '" << valueName
             << "' has a malformed 'remat.derivation' (unknown kind or a "
                "missing field); re-run remat-plan";
    derived.via = via.getValue().str();
    derived.operand = static_cast<unsigned>(operand.getInt());
    derived.kind = *parsedKind;
    derived.exact = exact.getValue();
    for (Attribute name : from)
      if (auto text = dyn_cast<StringAttr>(name))
        derived.from.push_back(text.getValue().str());
    recorded.derivation = std::move(derived);
  }
  if (recorded.decision == Decision::Derive && !recorded.derivation)
    return anchor->emitError() << passName << ": value '" << valueName
                               << "' is derived but has no "
                                  "'remat.derivation' entry; re-run "
                                  "remat-plan";
  return recorded;
}

Attribute at(ArrayAttr array, size_t index) {
  return array && index < array.size() ? array[index] : Attribute();
}
} // namespace

FailureOr<RecordedPlan> readPlan(FunctionOpInterface func,
                                 const ImportedGraph &imported,
                                 StringRef passName) {
  RecordedPlan recorded;
  recorded.summary = func->getAttrOfType<DictionaryAttr>(
      RematDialect::PlanAttrHelper::getNameStr());
  if (!recorded.summary)
    return func->emitError()
           << passName << ": function '" << func.getName()
           << "' is a joint graph without a plan; run -remat-plan first";
  MLIRContext *context = func.getContext();
  // Uniqued once, so that each op's dictionary is read in one pass with
  // pointer compares instead of a string search per entry.
  auto decisionName =
      StringAttr::get(context, RematDialect::DecisionAttrHelper::getNameStr());
  auto reasonName =
      StringAttr::get(context, RematDialect::ReasonAttrHelper::getNameStr());
  auto derivationName = StringAttr::get(
      context, RematDialect::DerivationAttrHelper::getNameStr());
  const Graph &graph = imported.graph;
  recorded.decisions.resize(graph.numValues());

  for (unsigned index = 0, e = func.getNumArguments(); index < e; ++index) {
    auto decisions = func.getArgAttrOfType<ArrayAttr>(index, decisionName);
    if (!decisions)
      continue;
    ValueId id = imported.idOf(func.getArgument(index));
    FailureOr<RecordedDecision> entry = readEntry(
        func, passName, graph.value(id).name, at(decisions, 0),
        at(func.getArgAttrOfType<ArrayAttr>(index, reasonName), 0), {});
    if (failed(entry))
      return failure();
    recorded.decisions[id] = std::move(*entry);
  }
  for (OpId opId = 0; opId < static_cast<OpId>(graph.numOps()); ++opId) {
    Operation *op = imported.opOf[opId];
    // Dialect attributes: they live in the op's attribute dictionary.
    ArrayAttr decisions, reasons, derivations;
    for (NamedAttribute entry : op->getRawDictionaryAttrs()) {
      StringAttr key = entry.getName();
      if (key == decisionName)
        decisions = dyn_cast<ArrayAttr>(entry.getValue());
      else if (key == reasonName)
        reasons = dyn_cast<ArrayAttr>(entry.getValue());
      else if (key == derivationName)
        derivations = dyn_cast<ArrayAttr>(entry.getValue());
    }
    if (!decisions)
      continue;
    for (auto [index, id] : llvm::enumerate(graph.op(opId).results)) {
      FailureOr<RecordedDecision> entry =
          readEntry(op, passName, graph.value(id).name, at(decisions, index),
                    at(reasons, index), at(derivations, index));
      if (failed(entry))
        return failure();
      recorded.decisions[id] = std::move(*entry);
    }
  }
  return recorded;
}

} // namespace remat
