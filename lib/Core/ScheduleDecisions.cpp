//===- ScheduleDecisions.cpp - Decisions read off a given schedule --------===//
//
// Part of remat. `optimal` (a MILP schedule) and `budget` (a refined
// schedule) produce the schedule itself rather than a keep set; the plan's
// decisions are then read off that schedule: a forward value backward reads
// from its forward evaluation is saved, one whose producer is re-evaluated
// in backward is recomputed, and the backward re-evaluations become the
// recompute chains. Materialize.cpp reports the same facts for keep sets.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <utility>

namespace remat::detail {

WalkFacts factsFromSchedule(const PlanContext &context,
                            const Schedule &schedule,
                            ChainAttribution attribution) {
  const FlatGraph &flat = context.flat;
  const Constraints &constraints = context.constraints;
  const size_t numValues = flat.numValues();
  WalkFacts facts;
  facts.readFromForward.assign(numValues, 0);
  facts.recomputed.assign(numValues, 0);
  facts.inputRead.assign(numValues, 0);
  facts.owner.assign(numValues, kNoId);
  // The backward section starts where the simulator starts it.
  const size_t boundary = backwardBoundary(schedule, context.phases);
  // Whether the latest copy of a value was made in the backward section.
  std::vector<uint8_t> backwardCopy(numValues, 0);
  // LastEvaluation: per value, the last backward re-evaluation of its
  // producer.
  std::vector<OpId> replayedBy;
  if (attribution == ChainAttribution::LastEvaluation)
    replayedBy.assign(numValues, kNoId);
  // NextNeededValue: the ops re-evaluated, and the kept values they read,
  // since the last backward op or the last needed value re-evaluated.
  std::vector<OpId> pendingOps;
  std::vector<ValueId> pendingSources;
  // `byRecomputation`: the reader is a forward op re-evaluated in backward
  // or a derivation, not a backward op.
  auto read = [&](ValueId value, bool byRecomputation) {
    if (flat.isInput(value)) {
      facts.inputRead[value] |=
          byRecomputation ? kReadByRecomputation : kReadByBackwardOp;
      return;
    }
    if (constraints.isForward[value] && !backwardCopy[value]) {
      facts.readFromForward[value] = 1;
      if (attribution == ChainAttribution::NextNeededValue)
        pendingSources.push_back(value);
    }
  };
  size_t nextDerivation = 0;
  for (size_t step = 0; step < schedule.steps.size(); ++step) {
    const bool backward = step >= boundary;
    for (; nextDerivation < schedule.derivations.size() &&
           schedule.derivations[nextDerivation].beforeStep == step;
         ++nextDerivation) {
      const DerivationStep &derivation = schedule.derivations[nextDerivation];
      if (backward)
        for (ValueId value : derivation.reads)
          read(value, /*byRecomputation=*/true);
      backwardCopy[derivation.value] = backward;
    }
    const OpId op = schedule.steps[step];
    if (backward)
      for (ValueId operand : flat.operands(op))
        read(operand, context.phases.opPhase[op] == Phase::Forward);
    if (context.phases.opPhase[op] != Phase::Forward) {
      pendingOps.clear();
      pendingSources.clear();
      continue;
    }
    for (ValueId result : flat.results(op))
      backwardCopy[result] = backward;
    if (!backward)
      continue;
    ValueId owner = kNoId;
    for (ValueId result : flat.results(op)) {
      facts.recomputed[result] = 1;
      if (attribution == ChainAttribution::LastEvaluation)
        replayedBy[result] = op;
      else if (owner == kNoId && constraints.needed[result])
        owner = result;
    }
    if (attribution == ChainAttribution::LastEvaluation)
      continue;
    pendingOps.push_back(op);
    if (owner == kNoId)
      continue;
    for (OpId replayed : pendingOps) {
      facts.replays.emplace_back(owner, replayed);
      for (ValueId result : flat.results(replayed))
        if (facts.owner[result] == kNoId)
          facts.owner[result] = owner;
    }
    for (ValueId source : pendingSources)
      if (facts.owner[source] == kNoId)
        facts.owner[source] = owner;
    pendingOps.clear();
    pendingSources.clear();
  }
  if (attribution == ChainAttribution::LastEvaluation)
    for (size_t id = 0; id < numValues; ++id)
      if (replayedBy[id] != kNoId)
        facts.replays.emplace_back(static_cast<ValueId>(id), replayedBy[id]);
  // A value held from forward for its first backward reads and re-evaluated
  // for later ones counts as recomputed (the schedule does recompute it).
  for (ValueId value : context.phases.neededByBackward)
    if (facts.recomputed[value])
      facts.readFromForward[value] = 0;
  return facts;
}

Plan planFromSchedule(const PlanContext &context, const StrategyResult &result,
                      Schedule schedule, const SimulationResult &simulation,
                      ChainAttribution attribution) {
  WalkFacts facts = factsFromSchedule(context, schedule, attribution);
  StrategyResult explained;
  explained.keep = facts.readFromForward;
  explained.derivations = result.derivations;
  explained.budgetBytes = result.budgetBytes;
  Plan plan = emptyPlan(context, result);
  explainDecisions(context, explained, facts, schedule, plan);
  plan.schedule = std::move(schedule);
  plan.simulation = simulation;
  for (const DerivationChoice &choice : result.derivations)
    plan.usesInexactDerivation |= !choice.derivation.exact;
  return plan;
}

} // namespace remat::detail
