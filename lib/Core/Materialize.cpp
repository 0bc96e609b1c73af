//===- Materialize.cpp - From keep decisions to a schedule ----------------===//
//
// Part of remat. Walks the backward ops in order and, before each, makes its
// forward operands available: a kept value is read from forward (saved), a
// derived value is re-created from its sources, anything else is recomputed
// by replaying its producer after its own operands. Each replayed value is
// reused until its last read, as PyTorch's partitioner does. The forward
// section then evaluates exactly the ops whose results are saved, returned,
// or feed those.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace remat::detail {

namespace {

struct Materialized {
  Schedule schedule;
  WalkFacts facts;
};

class BackwardWalker {
public:
  BackwardWalker(const PlanContext &context, const StrategyResult &result)
      : context_(context), flat_(context.flat),
        constraints_(context.constraints), result_(result) {
    const size_t numValues = flat_.numValues();
    available_.assign(numValues, 0);
    // Most plans derive nothing: then no per-value index is read at all.
    if (!result.derivations.empty()) {
      derivedIndex_.assign(numValues, -1);
      for (size_t i = 0; i < result.derivations.size(); ++i)
        derivedIndex_[result.derivations[i].value] = static_cast<int32_t>(i);
    }
    facts_.readFromForward.assign(numValues, 0);
    facts_.recomputed.assign(numValues, 0);
    facts_.inputRead.assign(numValues, 0);
    facts_.owner.assign(numValues, kNoId);
  }

  Materialized run() {
    for (size_t opIndex = 0; opIndex < flat_.numOps(); ++opIndex) {
      if (context_.phases.opPhase[opIndex] != Phase::Backward)
        continue;
      for (ValueId operand : flat_.operands(static_cast<OpId>(opIndex))) {
        if (isInput(operand)) {
          facts_.inputRead[operand] |= kReadByBackwardOp;
          continue;
        }
        if (constraints_.isForward[operand])
          ensure(operand);
      }
      steps_.push_back(static_cast<OpId>(opIndex));
    }
    return buildSchedule();
  }

private:
  bool isInput(ValueId value) const { return flat_.isInput(value); }
  /// The index of the value's derivation in the result, or -1.
  int32_t derivedIndex(ValueId value) const {
    return derivedIndex_.empty() ? -1 : derivedIndex_[value];
  }
  /// A value a tag or an unreproducible random op forbids to recompute is
  /// read from forward whatever the keep set says (one that does not keep
  /// it must never make the walk replay it).
  bool isKept(ValueId value) const {
    return result_.keep[value] || constraints_.isOutput[value] ||
           constraints_.hardSave[value] != HardSave::None;
  }

  /// Only recomputations and derivations push their reads (run() handles
  /// the backward ops' own operands).
  void push(ValueId value) {
    if (isInput(value)) {
      facts_.inputRead[value] |= kReadByRecomputation;
      return;
    }
    if (!available_[value])
      stack_.push_back({value, false});
  }

  /// Makes `root` available before the next backward step, iteratively (a
  /// recursive walk would overflow the stack on 100k-op chains).
  void ensure(ValueId root) {
    push(root);
    while (!stack_.empty()) {
      auto [value, expanded] = stack_.back();
      if (!expanded) {
        if (available_[value]) {
          stack_.pop_back();
          continue;
        }
        if (derivedIndex(value) < 0 && isKept(value)) {
          available_[value] = 1;
          facts_.readFromForward[value] = 1;
          if (facts_.owner[value] == kNoId && !owners_.empty())
            facts_.owner[value] = owners_.back();
          stack_.pop_back();
          continue;
        }
        stack_.back().second = true;
        if (constraints_.needed[value])
          owners_.push_back(value);
        // Reads are pushed last to first so that they are re-created first
        // to last: the order remat-partition emits them in, so that the
        // partitioned program runs this schedule.
        if (int32_t index = derivedIndex(value); index >= 0) {
          const std::vector<ValueId> &from =
              result_.derivations[index].derivation.from;
          for (auto it = from.rbegin(); it != from.rend(); ++it)
            push(*it);
        } else {
          absl::Span<const ValueId> operands =
              flat_.operands(flat_.producer[value]);
          for (auto it = operands.rbegin(); it != operands.rend(); ++it)
            push(*it);
        }
        continue;
      }
      stack_.pop_back();
      ValueId owner = owners_.empty() ? value : owners_.back();
      if (!available_[value]) {
        if (int32_t index = derivedIndex(value); index >= 0) {
          const Derivation &derivation = result_.derivations[index].derivation;
          DerivationStep step;
          step.beforeStep = steps_.size();
          step.value = value;
          step.reads = derivation.from;
          step.timeUs = derivationTimeUs(context_, derivation, value);
          step.flops = derivationElements(context_, value);
          derivations_.push_back(std::move(step));
          available_[value] = 1;
        } else {
          OpId producer = flat_.producer[value];
          steps_.push_back(producer);
          facts_.replays.emplace_back(owner, producer);
          for (ValueId result : flat_.results(producer)) {
            available_[result] = 1;
            facts_.recomputed[result] = 1;
            if (facts_.owner[result] == kNoId)
              facts_.owner[result] = owner;
          }
        }
      }
      if (!owners_.empty() && owners_.back() == value)
        owners_.pop_back();
    }
  }

  Materialized buildSchedule() {
    const size_t numOps = flat_.numOps();
    std::vector<uint8_t> opNeeded(numOps, 0);
    for (size_t id = 0; id < flat_.numValues(); ++id) {
      if (!constraints_.isForward[id])
        continue;
      if (facts_.readFromForward[id] || constraints_.isOutput[id])
        opNeeded[flat_.producer[id]] = 1;
    }
    for (size_t i = numOps; i-- > 0;) {
      if (!opNeeded[i] || context_.phases.opPhase[i] != Phase::Forward)
        continue;
      for (ValueId operand : flat_.operands(static_cast<OpId>(i)))
        if (OpId producer = flat_.producer[operand]; producer != kNoId)
          opNeeded[producer] = 1;
    }
    Materialized out;
    size_t numForwardSteps = 0;
    for (size_t i = 0; i < numOps; ++i)
      numForwardSteps +=
          opNeeded[i] && context_.phases.opPhase[i] == Phase::Forward;
    out.schedule.steps.reserve(numForwardSteps + steps_.size());
    for (size_t i = 0; i < numOps; ++i)
      if (opNeeded[i] && context_.phases.opPhase[i] == Phase::Forward)
        out.schedule.steps.push_back(static_cast<OpId>(i));
    size_t offset = out.schedule.steps.size();
    out.schedule.backwardStart = offset;
    out.schedule.steps.insert(out.schedule.steps.end(), steps_.begin(),
                              steps_.end());
    for (DerivationStep &step : derivations_)
      step.beforeStep += offset;
    out.schedule.derivations = std::move(derivations_);
    out.facts = std::move(facts_);
    return out;
  }

  const PlanContext &context_;
  const FlatGraph &flat_;
  const Constraints &constraints_;
  const StrategyResult &result_;
  std::vector<uint8_t> available_;
  std::vector<int32_t> derivedIndex_;
  std::vector<std::pair<ValueId, bool>> stack_;
  std::vector<ValueId> owners_;
  std::vector<OpId> steps_;
  std::vector<DerivationStep> derivations_;
  WalkFacts facts_;
};

} // namespace

double derivationElements(const PlanContext &context, ValueId value) {
  return static_cast<double>(context.flat.elements[value]);
}

double derivationTimeUs(const PlanContext &context,
                        const Derivation &derivation, ValueId value) {
  // Pointwise work whose readers all fuse runs inside their kernel, as a
  // fused replay does (SimulationTables::replayTimeUs): its arithmetic
  // alone.
  const std::vector<uint8_t> &fused = context.tables.fusesIntoReaders;
  if (!fused.empty() && fused[value]) {
    double peak = context.costModel.peakFlops(ComputeClass::Pointwise,
                                              context.flat.dtype[value]);
    return peak > 0 ? derivationElements(context, value) / peak * 1e6 : 0;
  }
  // Byte counts saturate at INT64_MAX (TensorType::bytes); so does the sum
  // (found by remat-planner-fuzzer: two saturated values overflowed).
  int64_t bytes = context.tables.valueBytes[value];
  for (ValueId source : derivation.from)
    bytes = context.tables.valueBytes[source] >
                    std::numeric_limits<int64_t>::max() - bytes
                ? std::numeric_limits<int64_t>::max()
                : bytes + context.tables.valueBytes[source];
  return context.costModel.predictPointwiseTimeUs(
      derivationElements(context, value), bytes, context.flat.dtype[value]);
}

absl::StatusOr<SimulationResult> simulateKeep(const PlanContext &context,
                                              const StrategyResult &result) {
  Materialized materialized = BackwardWalker(context, result).run();
  return simulateFlat(context.graph, context.flat, context.phases,
                      materialized.schedule, context.tables);
}

Plan emptyPlan(const PlanContext &context, const StrategyResult &result) {
  Plan plan;
  plan.strategy = context.options.strategy;
  plan.targetName = context.options.target.name;
  plan.budgetBytes = result.budgetBytes;
  plan.preferencesDropped = context.constraints.preferencesDropped;
  plan.bansLifted = !context.constraints.banLifted.empty();
  if (plan.strategy == Strategy::MinCut)
    plan.exchangeRateBytesPerUs = exchangeRate(context.options);
  plan.classification = context.phases;
  return plan;
}

absl::StatusOr<Plan> materializePlan(const PlanContext &context,
                                     const StrategyResult &result) {
  Materialized materialized = BackwardWalker(context, result).run();
  absl::StatusOr<SimulationResult> simulation =
      simulateFlat(context.graph, context.flat, context.phases,
                   materialized.schedule, context.tables);
  if (!simulation.ok())
    return absl::InternalError(absl::StrCat(
        "the planner built a schedule the simulator rejects (a planner bug; "
        "please report it with the graph): ",
        simulation.status().message()));
  Plan plan = emptyPlan(context, result);
  explainDecisions(context, result, materialized.facts, materialized.schedule,
                   plan);
  plan.schedule = std::move(materialized.schedule);
  plan.simulation = *simulation;
  for (const DerivationChoice &choice : result.derivations)
    plan.usesInexactDerivation |= !choice.derivation.exact;
  return plan;
}

} // namespace remat::detail
