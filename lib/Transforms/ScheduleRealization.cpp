//===- ScheduleRealization.cpp - A plan's schedule as the program ---------===//
//
// Part of remat. The test for "the decisions express this schedule" replays,
// on the core graph, what remat-partition emits from decisions alone and
// compares it with the plan's schedule event by event; a schedule that
// differs is recorded as `remat.schedule` (docs/Dialect.md) and realised
// event by event. Min-cut, save-all and recompute-all build their schedules
// from their decisions, so only `budget` and `optimal` plans are compared.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/ScheduleRealization.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Transforms/Derivation.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/xxhash.h"

#include <string>

using namespace mlir;

namespace remat {

namespace {

constexpr llvm::StringLiteral kSteps = "steps";
constexpr llvm::StringLiteral kBackwardStart = "backward_start";
constexpr llvm::StringLiteral kFingerprint = "fingerprint";

/// A hash of what a recorded schedule's op and value indices refer to: the
/// number of values, and every op in order with its kind, its operands'
/// value ids and its number of results. A pass that adds, removes, reorders
/// or rewires ops between remat-plan and remat-partition changes it, also
/// when the schedule would still fit the function. Words are hashed as
/// little-endian bytes with xxh3, so the value is the same on every machine.
int64_t structureFingerprint(const Graph &graph) {
  std::string bytes;
  auto append = [&bytes](uint64_t word) {
    for (int shift = 0; shift < 64; shift += 8)
      bytes.push_back(static_cast<char>((word >> shift) & 0xff));
  };
  append(graph.numValues());
  append(graph.numOps());
  for (const GraphOp &op : graph.ops()) {
    bytes += op.kind;
    bytes.push_back('\0');
    append(op.operands.size());
    for (ValueId operand : op.operands)
      append(static_cast<uint64_t>(static_cast<int64_t>(operand)));
    append(op.results.size());
  }
  return static_cast<int64_t>(llvm::xxh3_64bits(llvm::StringRef(bytes)));
}

/// A derivation event is encoded as -(value id + 1), an op evaluation as the
/// op id.
int64_t encodeDerivation(ValueId value) {
  return -static_cast<int64_t>(value) - 1;
}

/// The plan's schedule as encoded events, and the encoded backward start
/// (derivations placed just before the first backward step count as
/// backward, as the simulator and factsFromSchedule count them).
std::pair<std::vector<int64_t>, size_t> encodePlanSchedule(const Plan &plan) {
  const Schedule &schedule = plan.schedule;
  const size_t backwardStep = backwardBoundary(schedule, plan.classification);
  std::vector<int64_t> events;
  events.reserve(schedule.steps.size() + schedule.derivations.size());
  size_t backwardStart = 0;
  size_t nextDerivation = 0;
  for (size_t step = 0; step <= schedule.steps.size(); ++step) {
    if (step == backwardStep)
      backwardStart = events.size();
    for (; nextDerivation < schedule.derivations.size() &&
           schedule.derivations[nextDerivation].beforeStep == step;
         ++nextDerivation)
      events.push_back(
          encodeDerivation(schedule.derivations[nextDerivation].value));
    if (step < schedule.steps.size())
      events.push_back(schedule.steps[step]);
  }
  return {std::move(events), backwardStart};
}

/// Replays remat-partition's decision-driven emission (RematPartition.cpp:
/// forward clone + dead-op removal, BackwardBuilder::materialize) on the core
/// graph. Fails where remat-partition would fail.
class DecisionProgram {
public:
  DecisionProgram(const Graph &graph, const Plan &plan)
      : graph(graph), phases(plan.classification),
        decisionOf(graph.numValues(), nullptr),
        available(graph.numValues(), 0), onPath(graph.numValues(), 0) {
    for (const ValueDecision &decision : plan.decisions)
      decisionOf[decision.value] = &decision;
  }

  std::optional<std::pair<std::vector<int64_t>, size_t>>
  run(llvm::ArrayRef<ValueId> gradients) {
    const size_t numValues = graph.numValues();
    const size_t numOps = graph.numOps();
    // valuesPassedToBackward: saved values, and outputs a derivation reads.
    std::vector<uint8_t> passed(numValues, 0);
    for (const ValueDecision *decision : decisionOf) {
      if (!decision)
        continue;
      if (decision->decision == Decision::Save)
        passed[decision->value] = 1;
      if (decision->derivation)
        for (ValueId source : decision->derivation->from)
          if (graph.value(source).outputRole == OutputRole::Output &&
              graph.value(source).producer != kNoId)
            passed[source] = 1;
    }
    // Forward: the forward ops the returned values need, in graph order.
    std::vector<uint8_t> live(numOps, 0);
    std::vector<OpId> work;
    auto need = [&](ValueId value) {
      OpId producer = graph.value(value).producer;
      if (producer != kNoId && phases.opPhase[producer] == Phase::Forward &&
          !live[producer]) {
        live[producer] = 1;
        work.push_back(producer);
      }
    };
    for (size_t id = 0; id < numValues; ++id)
      if (passed[id] ||
          graph.value(static_cast<ValueId>(id)).outputRole ==
              OutputRole::Output)
        need(static_cast<ValueId>(id));
    while (!work.empty()) {
      OpId op = work.back();
      work.pop_back();
      for (ValueId operand : graph.op(op).operands)
        need(operand);
    }
    for (size_t op = 0; op < numOps; ++op)
      if (live[op])
        events.push_back(static_cast<int64_t>(op));
    const size_t backwardStart = events.size();
    // Backward: arguments and passed values are there from the start.
    for (size_t id = 0; id < numValues; ++id)
      available[id] = passed[id] ||
                      graph.value(static_cast<ValueId>(id)).producer == kNoId;
    for (size_t op = 0; op < numOps; ++op) {
      if (phases.opPhase[op] != Phase::Backward)
        continue;
      const GraphOp &graphOp = graph.op(static_cast<OpId>(op));
      for (ValueId read : graphOp.operands)
        if (!materialize(read))
          return std::nullopt;
      events.push_back(static_cast<int64_t>(op));
      for (ValueId result : graphOp.results)
        available[result] = 1;
    }
    for (ValueId gradient : gradients)
      if (!materialize(gradient))
        return std::nullopt;
    return std::make_pair(std::move(events), backwardStart);
  }

private:
  const Derivation *derivationOf(ValueId value) const {
    const ValueDecision *decision = decisionOf[value];
    if (!decision || decision->decision != Decision::Derive)
      return nullptr;
    return decision->derivation.get();
  }

  /// The values re-creating `value` reads, in the order remat-partition
  /// visits them (BackwardBuilder::dependencies).
  void dependencies(ValueId value, std::vector<ValueId> &reads) const {
    reads.clear();
    if (const Derivation *derivation = derivationOf(value)) {
      // The via op's result 0, then its other operands (Core/Derivation.cpp).
      reads.assign(derivation->from.begin(), derivation->from.end());
      return;
    }
    const GraphOp &producer = graph.op(graph.value(value).producer);
    reads.assign(producer.operands.begin(), producer.operands.end());
  }

  bool materialize(ValueId root) {
    // Member buffers: materialize runs once per backward operand.
    std::vector<std::pair<ValueId, bool>> &stack = stack_;
    std::vector<ValueId> &reads = reads_;
    stack.assign(1, {root, false});
    while (!stack.empty()) {
      auto [value, expanded] = stack.back();
      if (available[value]) {
        onPath[value] = 0;
        stack.pop_back();
        continue;
      }
      OpId producer = graph.value(value).producer;
      if (producer == kNoId || phases.opPhase[producer] != Phase::Forward)
        return false;
      if (expanded) {
        if (derivationOf(value)) {
          events.push_back(encodeDerivation(value));
          available[value] = 1;
        } else {
          events.push_back(static_cast<int64_t>(producer));
          for (ValueId result : graph.op(producer).results)
            available[result] = 1;
        }
        onPath[value] = 0;
        stack.pop_back();
        continue;
      }
      stack.back().second = true;
      onPath[value] = 1;
      dependencies(value, reads);
      for (auto it = reads.rbegin(); it != reads.rend(); ++it) {
        if (available[*it])
          continue;
        if (onPath[*it])
          return false;
        stack.push_back({*it, false});
      }
    }
    return true;
  }

  const Graph &graph;
  const Classification &phases;
  std::vector<const ValueDecision *> decisionOf;
  std::vector<uint8_t> available;
  std::vector<uint8_t> onPath;
  std::vector<int64_t> events;
  std::vector<std::pair<ValueId, bool>> stack_;
  std::vector<ValueId> reads_;
};

StringRef scheduleAttrName() {
  return RematDialect::ScheduleAttrHelper::getNameStr();
}

} // namespace

bool decisionsExpressSchedule(const Graph &graph, const Plan &plan,
                              llvm::ArrayRef<ValueId> gradients) {
  std::optional<std::pair<std::vector<int64_t>, size_t>> program =
      DecisionProgram(graph, plan).run(gradients);
  return program && *program == encodePlanSchedule(plan);
}

void recordSchedule(FunctionOpInterface func, const ImportedGraph &imported,
                    const Plan &plan) {
  bool mayDiffer = plan.strategy == Strategy::Budget ||
                   plan.strategy == Strategy::Optimal;
  if (mayDiffer) {
    std::vector<ValueId> gradients;
    Operation *terminator = func.getFunctionBody().front().getTerminator();
    for (auto [index, value] : llvm::enumerate(terminator->getOperands())) {
      auto role = func.getResultAttrOfType<StringAttr>(
          index, RematDialect::RoleAttrHelper::getNameStr());
      if (role && role.getValue() == "grad")
        gradients.push_back(imported.idOf(value));
    }
    mayDiffer = !decisionsExpressSchedule(imported.graph, plan, gradients);
  }
  if (!mayDiffer) {
    func->removeAttr(scheduleAttrName());
    return;
  }
  auto [events, backwardStart] = encodePlanSchedule(plan);
  Builder builder(func.getContext());
  NamedAttribute entries[] = {
      builder.getNamedAttr(kBackwardStart, builder.getI64IntegerAttr(
                                               static_cast<int64_t>(
                                                   backwardStart))),
      builder.getNamedAttr(kSteps, builder.getDenseI64ArrayAttr(events)),
      builder.getNamedAttr(kFingerprint,
                           builder.getI64IntegerAttr(
                               structureFingerprint(imported.graph)))};
  func->setAttr(scheduleAttrName(), builder.getDictionaryAttr(entries));
}

FailureOr<std::optional<RecordedSchedule>>
readSchedule(FunctionOpInterface func, const ImportedGraph &imported,
             const RecordedPlan &plan, const Classification &phases,
             llvm::ArrayRef<ValueId> outputs, llvm::ArrayRef<ValueId> gradients,
             StringRef passName) {
  Attribute raw = func->getAttr(scheduleAttrName());
  if (!raw)
    return std::optional<RecordedSchedule>();
  auto fail = [&]() -> InFlightDiagnostic {
    InFlightDiagnostic diag = func->emitError();
    diag << passName << ": the recorded schedule (remat.schedule) of '"
         << func.getName() << "' ";
    return diag;
  };
  constexpr llvm::StringLiteral kRerun =
      "; re-run remat-plan on the joint function to record a fresh one";
  auto dict = dyn_cast<DictionaryAttr>(raw);
  DenseI64ArrayAttr steps =
      dict ? dict.getAs<DenseI64ArrayAttr>(kSteps) : nullptr;
  IntegerAttr start = dict ? dict.getAs<IntegerAttr>(kBackwardStart) : nullptr;
  if (!steps || !start)
    return fail() << "is not {backward_start = <i64>, steps = array<i64: "
                     "...>}"
                  << kRerun;
  const Graph &graph = imported.graph;
  // Recorded by remat-plan; a hand-written schedule may leave it out.
  if (IntegerAttr fingerprint = dict.getAs<IntegerAttr>(kFingerprint);
      fingerprint && fingerprint.getInt() != structureFingerprint(graph))
    return fail() << "belongs to another version of the function: its ops "
                     "or their operands changed after remat-plan "
                     "(fingerprint "
                  << fingerprint.getInt() << ", now "
                  << structureFingerprint(graph) << ")" << kRerun;
  const int64_t numOps = static_cast<int64_t>(graph.numOps());
  const int64_t numValues = static_cast<int64_t>(graph.numValues());
  RecordedSchedule schedule;
  if (start.getInt() < 0 || start.getInt() > steps.size())
    return fail() << "has backward_start = " << start.getInt()
                  << ", outside [0, " << steps.size() << "]" << kRerun;
  schedule.backwardStart = static_cast<size_t>(start.getInt());
  schedule.events.reserve(steps.size());
  for (auto [index, entry] : llvm::enumerate(steps.asArrayRef())) {
    ScheduleEvent event;
    if (entry >= 0) {
      if (entry >= numOps)
        return fail() << "names op " << entry << " at step " << index
                      << ", but the function has " << numOps << " ops"
                      << kRerun;
      event.op = static_cast<OpId>(entry);
    } else {
      int64_t value = -(entry + 1);
      if (value >= numValues)
        return fail() << "derives value " << value << " at step " << index
                      << ", but the function has " << numValues << " values"
                      << kRerun;
      event.derived = static_cast<ValueId>(value);
      const std::optional<RecordedDecision> &decision =
          plan.decisions[event.derived];
      if (!decision || decision->decision != Decision::Derive ||
          !decision->derivation ||
          !derivationVia(imported, *decision->derivation,
                         imported.valueOf[event.derived]))
        return fail() << "derives '" << graph.value(event.derived).name
                      << "' at step " << index
                      << ", but the plan records no valid derivation for it"
                      << kRerun;
    }
    schedule.events.push_back(event);
  }
  // Where each value's current instance lives: 0 nowhere yet, 1 forward
  // part, 2 backward part.
  std::vector<uint8_t> instance(graph.numValues(), 0);
  std::vector<uint8_t> saved(graph.numValues(), 0);
  std::vector<uint8_t> backwardSeen(graph.numOps(), 0);
  llvm::SmallVector<ValueId> reads;
  // Checked where the forward part ends: it must produce every output.
  auto outputsProduced = [&]() -> LogicalResult {
    for (ValueId output : outputs)
      if (graph.value(output).producer != kNoId && instance[output] != 1)
        return fail() << "does not evaluate output '"
                      << graph.value(output).name << "' in its forward part"
                      << kRerun;
    return success();
  };
  if (schedule.backwardStart == 0 && failed(outputsProduced()))
    return failure();
  for (auto [index, event] : llvm::enumerate(schedule.events)) {
    const bool backward = index >= schedule.backwardStart;
    reads.clear();
    if (event.op != kNoId) {
      const GraphOp &op = graph.op(event.op);
      if (phases.opPhase[event.op] == Phase::Backward) {
        if (!backward)
          return fail() << "evaluates backward op #" << event.op << " ('"
                        << imported.opOf[event.op]->getName()
                        << "') in its forward part, at step " << index
                        << kRerun;
        if (backwardSeen[event.op]++)
          return fail() << "evaluates backward op #" << event.op << " ('"
                        << imported.opOf[event.op]->getName()
                        << "') twice, again at step " << index << kRerun;
      }
      reads.append(op.operands.begin(), op.operands.end());
    } else {
      const RecordedDerivation &recorded =
          *plan.decisions[event.derived]->derivation;
      Operation *via =
          derivationVia(imported, recorded, imported.valueOf[event.derived]);
      reads.push_back(imported.idOf(via->getResult(0)));
      for (auto [operandIndex, operand] : llvm::enumerate(via->getOperands()))
        if (operandIndex != recorded.operand)
          reads.push_back(imported.idOf(operand));
    }
    for (ValueId read : reads) {
      const GraphValue &value = graph.value(read);
      if (value.producer == kNoId) {
        if (!backward && value.inputRole == InputRole::Tangent)
          return fail() << "reads tangent '" << value.name
                        << "' in its forward part, at step " << index
                        << kRerun;
        continue;
      }
      if (!instance[read])
        return fail() << "reads '" << value.name << "' at step " << index
                      << " before any step produces it" << kRerun;
      if (backward && instance[read] == 1)
        saved[read] = 1;
    }
    const uint8_t where = backward ? 2 : 1;
    if (event.op != kNoId)
      for (ValueId result : graph.op(event.op).results)
        instance[result] = where;
    else
      instance[event.derived] = where;
    if (index + 1 == schedule.backwardStart && failed(outputsProduced()))
      return failure();
  }
  for (size_t op = 0; op < graph.numOps(); ++op)
    if (phases.opPhase[op] == Phase::Backward && !backwardSeen[op])
      return fail() << "does not evaluate backward op #" << op << " ('"
                    << imported.opOf[op]->getName() << "')" << kRerun;
  for (ValueId gradient : gradients) {
    const GraphValue &value = graph.value(gradient);
    if (value.producer == kNoId)
      continue;
    if (!instance[gradient])
      return fail() << "never produces gradient '" << value.name << "'"
                    << kRerun;
    if (instance[gradient] == 1)
      saved[gradient] = 1;
  }
  for (size_t id = 0; id < saved.size(); ++id)
    if (saved[id])
      schedule.saved.push_back(static_cast<ValueId>(id));
  return std::optional<RecordedSchedule>(std::move(schedule));
}

Operation *derivationVia(const ImportedGraph &imported,
                         const RecordedDerivation &recorded, Value value) {
  auto it = imported.valueByName.find(recorded.via);
  if (it == imported.valueByName.end())
    return nullptr;
  Operation *via = imported.valueOf[it->second].getDefiningOp();
  if (!via || via->getNumResults() == 0 ||
      recorded.operand >= via->getNumOperands() ||
      via->getOperand(recorded.operand) != value)
    return nullptr;
  return via;
}

LogicalResult
emitScheduleEvents(OpBuilder &builder, IRMapping &mapping,
                   const ImportedGraph &imported, const RecordedPlan &plan,
                   const Classification &phases,
                   llvm::ArrayRef<ScheduleEvent> events, bool backward,
                   std::vector<uint8_t> &evaluated,
                   llvm::function_ref<void(Operation *, OpId)> onClone,
                   unsigned &numRecomputedOps, unsigned &numDerivationOps) {
  for (const ScheduleEvent &event : events) {
    if (event.op != kNoId) {
      Operation *source = imported.opOf[event.op];
      onClone(builder.clone(*source, mapping), event.op);
      if (evaluated[event.op] ||
          (backward && phases.opPhase[event.op] == Phase::Forward))
        ++numRecomputedOps;
      evaluated[event.op] = 1;
      continue;
    }
    // readSchedule checked that the derivation exists and names its op.
    Value value = imported.valueOf[event.derived];
    const RecordedDerivation &recorded =
        *plan.decisions[event.derived]->derivation;
    Operation *via = derivationVia(imported, recorded, value);
    if (failed(emitDerivation(builder, mapping, via, recorded.operand,
                              recorded.kind, numDerivationOps)))
      return failure();
  }
  return success();
}

} // namespace remat
