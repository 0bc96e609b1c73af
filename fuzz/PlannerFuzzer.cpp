//===- PlannerFuzzer.cpp - Fuzz the planning core on random graphs --------===//
//
// Part of remat. Decodes the fuzzer's bytes into a joint training graph
// (inputs, forward ops of every compute class with tags, random ops, inverse
// rules, zero-size and huge tensors; backward ops that read tangents and
// forward values) and planning options (strategy, budget from 0 to
// INT64_MAX, name policy, inexact derivation), plans it, and checks the plan
// invariants a user relies on:
//
//   - complete: every value backward reads has a decision, and the schedule
//     evaluates every op after its operands exist (backward can run);
//   - budget: under `budget` and `optimal`, the simulated peak is within the
//     budget, and the certified lower bound (evaluate-once, the LP's or the
//     MILP's) is not above the plan's simulated total time;
//   - tags: a `never_recompute` op runs once, a `must_recompute` value is
//     never saved or derived (unless it is a function result, live anyway);
//     under min-cut without a name policy, a `prefer_save` or
//     `no_auto_recompute` op (not `prefer_recompute`) runs once and none of
//     its values is recomputed, and a `prefer_recompute` value backward
//     reads is never saved (unless a hard save wins or it is a function
//     result; a derivation satisfies its "do not save", docs/Planner.md);
//   - derivation: an inexact derivation only when allowed, flagged in the
//     plan, and never of or from a bf16/f16 value;
//   - determinism: planning again prints the same plan, byte for byte;
//   - errors: a failure carries a message and is not an internal error
//     (the planner's own consistency checks failing).
//
// `optimal` runs on a quarter of the inputs that decode to `budget` (CBC
// makes it slow per input), with the checks of `budget`; determinism is
// checked only when its wall-clock limit stopped neither solve.
//
//===----------------------------------------------------------------------===//

#include "FuzzInput.h"

#include "remat/Core/Planner.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using namespace remat;
using remat::fuzz::FuzzInput;

namespace {

[[noreturn]] void fail(const std::string &what, const Graph &graph,
                       const Plan *plan) {
  std::fprintf(stderr, "planner fuzzer: invariant violated: %s\n",
               what.c_str());
  if (plan)
    std::fprintf(stderr, "%s\n", toText(*plan, graph).c_str());
  std::abort();
}

TensorType decodeType(FuzzInput &in) {
  TensorType type;
  type.dtype = static_cast<DType>(in.below(8));
  unsigned rank = in.below(4);
  for (unsigned i = 0; i < rank; ++i) {
    uint8_t choice = in.byte();
    if (choice == 0)
      type.shape.push_back(0); // zero-size tensor
    else if (choice == 1)
      type.shape.push_back(int64_t(1) << 24); // huge: > 2^40 bytes at rank 2
    else if (choice == 2)
      type.shape.push_back(std::numeric_limits<int64_t>::max());
    else
      type.shape.push_back(1 + choice % 64);
  }
  return type;
}

std::optional<MemoryBudget> decodeBudget(FuzzInput &in) {
  MemoryBudget budget;
  switch (in.below(6)) {
  case 0:
    return std::nullopt;
  case 1:
    budget.kind = MemoryBudget::Kind::Bytes;
    budget.bytes = 0;
    return budget;
  case 2:
    budget.kind = MemoryBudget::Kind::Bytes;
    budget.bytes = std::numeric_limits<int64_t>::max();
    return budget;
  case 3:
    budget.kind = MemoryBudget::Kind::Bytes;
    budget.bytes = static_cast<int64_t>(in.word() >> (1 + in.below(63)));
    return budget;
  case 4:
    budget.kind = MemoryBudget::Kind::Fraction;
    budget.fraction = in.below(1001) / 1000.0;
    return budget;
  default:
    budget.kind = MemoryBudget::Kind::FractionOfPeak;
    budget.fraction = in.below(1001) / 1000.0;
    return budget;
  }
}

NamePolicy decodePolicy(FuzzInput &in, unsigned numNamedOps) {
  NamePolicy policy;
  switch (in.below(10)) {
  case 0:
    policy.kind = NamePolicy::Kind::SaveOnlyTheseNames;
    break;
  case 1:
    policy.kind = NamePolicy::Kind::SaveAnyNamesButThese;
    break;
  case 2:
    policy.kind = NamePolicy::Kind::DotsSaveable;
    return policy;
  case 3:
    policy.kind = NamePolicy::Kind::NothingSaveable;
    return policy;
  case 4:
    policy.kind = NamePolicy::Kind::EverythingSaveable;
    return policy;
  default:
    return policy;
  }
  unsigned count = in.below(4);
  for (unsigned i = 0; i < count; ++i)
    policy.names.push_back("n" + std::to_string(in.below(numNamedOps + 2)));
  return policy;
}

/// `optimal`'s wall-clock limit under the fuzzer: the graphs have at most
/// 40 ops, which CBC mostly proves in well under a second (some take it
/// past 20 s); a plan the limit stopped is checked like any other but not
/// for determinism.
constexpr double kOptimalTimeLimitSeconds = 5;

struct FuzzCase {
  Graph graph;
  PlanOptions options;
};

/// Returns false when the bytes decode to a graph the builder rejects, which
/// the decoder never produces on purpose (its operands are always in range).
bool decode(FuzzInput &in, FuzzCase &fuzzCase) {
  Graph &graph = fuzzCase.graph;
  // Values forward ops may read: primal inputs, parameters, RNG state and
  // earlier forward results (never tangents: reading one makes an op
  // backward).
  std::vector<ValueId> forwardPool;
  unsigned numInputs = 1 + in.below(3);
  for (unsigned i = 0; i < numInputs; ++i) {
    InputRole role = in.below(4) == 0 ? InputRole::Parameter : InputRole::Input;
    forwardPool.push_back(
        graph.addInput("in" + std::to_string(i), decodeType(in), role));
  }
  std::optional<ValueId> rngState;
  if (in.flag()) {
    TensorType seed;
    seed.shape = {2};
    seed.dtype = DType::I64;
    rngState = graph.addInput("rng", seed, InputRole::RngState);
  }
  std::vector<ValueId> tangents;
  unsigned numTangents = 1 + in.below(2);
  for (unsigned i = 0; i < numTangents; ++i)
    tangents.push_back(graph.addInput("tangent" + std::to_string(i),
                                      decodeType(in), InputRole::Tangent));

  unsigned numForward = 1 + in.below(24);
  for (unsigned i = 0; i < numForward; ++i) {
    GraphOp op;
    op.computeClass = static_cast<ComputeClass>(in.below(10));
    op.kind = "fuzz." + std::string(toString(op.computeClass));
    if (in.flag())
      op.name = "n" + std::to_string(i);
    unsigned numOperands = 1 + in.below(3);
    for (unsigned j = 0; j < numOperands; ++j)
      op.operands.push_back(forwardPool[in.below(forwardPool.size())]);
    op.isRandom = op.computeClass == ComputeClass::Random || in.below(16) == 0;
    if (op.isRandom && rngState && in.flag())
      op.operands.push_back(*rngState);
    op.isView = op.computeClass == ComputeClass::View;
    uint8_t tagBits = in.below(8) == 0 ? in.byte() : 0;
    op.tags.neverRecompute = tagBits & 1;
    op.tags.noAutoRecompute = tagBits & 2;
    op.tags.mustRecompute = tagBits & 4;
    op.tags.preferRecompute = tagBits & 8;
    op.tags.preferSave = tagBits & 16;
    op.flops = in.below(1 << 16) * 1000.0;
    if (in.below(8) == 0)
      op.fixedTimeUs = in.below(1000) / 10.0;
    if (numOperands >= 2 && in.flag()) {
      InverseRule rule;
      rule.recoveredOperand = in.below(2);
      rule.kind = rule.recoveredOperand == 0 ? InverseKind::SubtractOther
                                             : InverseKind::SubtractFromOther;
      rule.otherOperands = {1 - rule.recoveredOperand};
      rule.exact = in.flag();
      op.inverseRules.push_back(rule);
    } else if (in.below(4) == 0) {
      InverseRule rule;
      rule.kind = in.flag() ? InverseKind::Reshape : InverseKind::Negate;
      rule.exact = true;
      op.inverseRules.push_back(rule);
    }
    std::vector<TensorType> resultTypes = {decodeType(in)};
    if (in.below(8) == 0)
      resultTypes.push_back(decodeType(in));
    absl::StatusOr<OpId> id = graph.addOp(std::move(op), resultTypes);
    if (!id.ok())
      return false;
    for (ValueId result : graph.op(*id).results) {
      forwardPool.push_back(result);
      if (in.below(6) == 0)
        graph.markOutput(result, OutputRole::Output);
    }
  }

  // Backward ops: each reads a tangent or an earlier backward value (so it
  // is backward) and up to two forward values.
  std::vector<ValueId> backwardPool = tangents;
  unsigned numBackward = 1 + in.below(16);
  for (unsigned i = 0; i < numBackward; ++i) {
    GraphOp op;
    op.kind = "bwd.op";
    op.computeClass = static_cast<ComputeClass>(in.below(10));
    op.operands.push_back(backwardPool[in.below(backwardPool.size())]);
    unsigned numForwardReads = in.below(3);
    for (unsigned j = 0; j < numForwardReads; ++j)
      op.operands.push_back(forwardPool[in.below(forwardPool.size())]);
    op.flops = in.below(1 << 12) * 1000.0;
    absl::StatusOr<OpId> id = graph.addOp(std::move(op), {decodeType(in)});
    if (!id.ok())
      return false;
    backwardPool.push_back(graph.op(*id).results[0]);
  }
  graph.markOutput(backwardPool.back(), OutputRole::Gradient);
  if (backwardPool.size() > 2 && in.flag())
    graph.markOutput(backwardPool[in.below(backwardPool.size())],
                     OutputRole::Gradient);

  PlanOptions &options = fuzzCase.options;
  static constexpr Strategy kStrategies[] = {
      Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut,
      Strategy::Budget};
  options.strategy = kStrategies[in.below(4)];
  options.budget = decodeBudget(in);
  options.policy = decodePolicy(in, numForward);
  options.allowInexactDerivation = in.flag();
  // Read last, so that inputs from before optimal was fuzzed decode as
  // they did (an exhausted input reads zeros: budget stays budget).
  if (options.strategy == Strategy::Budget && in.below(4) == 3) {
    options.strategy = Strategy::Optimal;
    options.optimalTimeLimitSeconds = kOptimalTimeLimitSeconds;
  }
  return true;
}

/// Walks the schedule and fails unless every evaluation and derivation reads
/// only values that exist at that point, every backward op runs and every
/// function result is produced.
void checkRunnable(const Graph &graph, const Plan &plan) {
  std::vector<bool> available(graph.numValues(), false);
  for (size_t id = 0; id < graph.numValues(); ++id)
    available[id] = graph.value(static_cast<ValueId>(id)).inputRole.has_value();
  const Schedule &schedule = plan.schedule;
  size_t nextDerivation = 0;
  std::vector<bool> evaluated(graph.numOps(), false);
  for (size_t step = 0; step <= schedule.steps.size(); ++step) {
    while (nextDerivation < schedule.derivations.size() &&
           schedule.derivations[nextDerivation].beforeStep == step) {
      const DerivationStep &derivation = schedule.derivations[nextDerivation++];
      for (ValueId read : derivation.reads)
        if (read < 0 || static_cast<size_t>(read) >= graph.numValues() ||
            !available[read])
          fail("derivation of %" + std::to_string(derivation.value) +
                   " reads %" + std::to_string(read) + " before it is computed",
               graph, &plan);
      available[derivation.value] = true;
    }
    if (step == schedule.steps.size())
      break;
    OpId op = schedule.steps[step];
    if (op < 0 || static_cast<size_t>(op) >= graph.numOps())
      fail("schedule step " + std::to_string(step) + " names no op", graph,
           &plan);
    for (ValueId operand : graph.op(op).operands)
      if (!available[operand])
        fail("step " + std::to_string(step) + " (op " + std::to_string(op) +
                 ") reads %" + std::to_string(operand) +
                 " before it is computed",
             graph, &plan);
    for (ValueId result : graph.op(op).results)
      available[result] = true;
    evaluated[op] = true;
  }
  if (nextDerivation != schedule.derivations.size())
    fail("a derivation is placed after the last step", graph, &plan);
  for (size_t op = 0; op < graph.numOps(); ++op)
    if (plan.classification.opPhase[op] == Phase::Backward && !evaluated[op])
      fail("backward op " + std::to_string(op) + " never runs", graph, &plan);
  for (size_t id = 0; id < graph.numValues(); ++id)
    if (graph.value(static_cast<ValueId>(id)).outputRole != OutputRole::None &&
        !available[id])
      fail("function result %" + std::to_string(id) + " is never computed",
           graph, &plan);
}

/// Fails if a value of `op` that is not a function result is saved, or
/// derived unless `derivable`. A function result is live to the end anyway:
/// holding it is free, so the planner keeps it rather than replay it
/// (docs/Planner.md).
void failIfKept(const Graph &graph, const Plan &plan, const GraphOp &op,
                const std::string &tag, const std::string &context,
                bool derivable) {
  for (ValueId result : op.results) {
    if (graph.value(result).outputRole != OutputRole::None)
      continue;
    const ValueDecision *decision = plan.find(result);
    if (decision && (decision->decision == Decision::Save ||
                     (decision->decision == Decision::Derive && !derivable)))
      fail(tag + " value %" + std::to_string(result) + " is " +
               std::string(toString(decision->decision)) + context,
           graph, &plan);
  }
}

bool isSixteenBitFloat(DType type) {
  return type == DType::F16 || type == DType::BF16;
}

/// prefer_save and prefer_recompute under min-cut, which always honours them
/// (only `budget` may drop them, when no plan honouring them fits). The
/// checks cover only what lib/Core/Policy.cpp makes exact, with no name
/// policy (a policy's save or recompute wins over a preference):
///
///   - prefer_save bans automatic recomputation like no_auto_recompute, so
///     an op tagged prefer_save or no_auto_recompute (and neither
///     must_recompute nor prefer_recompute, which lift the ban) runs once,
///     and none of its values is recomputed;
///   - prefer_recompute forces recomputation like must_recompute unless a
///     hard save wins (never_recompute, or a random op that no RNG state
///     input reaches): such a value backward reads, not a function result,
///     is never saved. Unlike must_recompute, which asks for the replay
///     itself, it may be derived: a derivation does not save it either.
void checkPreferences(const Graph &graph, const PlanOptions &options,
                      const Plan &plan) {
  if (options.strategy != Strategy::MinCut ||
      options.policy.kind != NamePolicy::Kind::None)
    return;
  const Classification &phases = plan.classification;
  std::vector<int> evaluations(graph.numOps(), 0);
  for (OpId step : plan.schedule.steps)
    ++evaluations[step];
  // Forward values that RNG state reaches, as Policy.cpp computes them (op
  // ids are topological: the builder only accepts existing operands).
  std::vector<bool> rngReached(graph.numValues(), false);
  for (size_t id = 0; id < graph.numValues(); ++id)
    rngReached[id] =
        graph.value(static_cast<ValueId>(id)).inputRole == InputRole::RngState;
  for (size_t id = 0; id < graph.numOps(); ++id) {
    const GraphOp &op = graph.op(static_cast<OpId>(id));
    if (phases.opPhase[id] != Phase::Forward)
      continue;
    bool readsRng = false;
    for (ValueId operand : op.operands)
      readsRng = readsRng || rngReached[operand];
    for (ValueId result : op.results)
      rngReached[result] = readsRng;
    // must_recompute wins over every ban; prefer_recompute lifts
    // no_auto_recompute (the verifier rejects it beside prefer_save).
    if (op.tags.mustRecompute)
      continue;
    if ((op.tags.preferSave || op.tags.noAutoRecompute) &&
        !op.tags.preferRecompute) {
      if (evaluations[id] > 1)
        fail(std::string(op.tags.preferSave ? "prefer_save"
                                            : "no_auto_recompute") +
                 " op " + std::to_string(id) + " evaluated " +
                 std::to_string(evaluations[id]) + " times under min-cut",
             graph, &plan);
      for (ValueId result : op.results) {
        const ValueDecision *decision = plan.find(result);
        if (decision && decision->decision == Decision::Recompute)
          fail("value %" + std::to_string(result) +
                   " of a prefer_save/no_auto_recompute op is recomputed "
                   "under min-cut",
               graph, &plan);
      }
    }
    bool random = op.isRandom || op.computeClass == ComputeClass::Random;
    if (!op.tags.preferRecompute || op.tags.neverRecompute ||
        (random && !readsRng))
      continue;
    failIfKept(graph, plan, op, "prefer_recompute", " under min-cut",
               /*derivable=*/true);
  }
}

/// Derivations: an inexact one only when allowed, and never of or from a
/// 16-bit float (lib/Core/Derivation.cpp: cancellation leaves a bf16/f16
/// value mostly wrong).
void checkDerivations(const Graph &graph, const PlanOptions &options,
                      const Plan &plan) {
  for (const ValueDecision &decision : plan.decisions) {
    if (decision.decision != Decision::Derive)
      continue;
    if (!decision.derivation)
      fail("derived value %" + std::to_string(decision.value) +
               " has no derivation",
           graph, &plan);
    const Derivation &derivation = *decision.derivation;
    if (derivation.exact)
      continue;
    if (!options.allowInexactDerivation)
      fail("%" + std::to_string(decision.value) +
               " is derived inexactly, but inexact derivation is off",
           graph, &plan);
    if (!plan.usesInexactDerivation)
      fail("%" + std::to_string(decision.value) +
               " is derived inexactly, but the plan says it uses none",
           graph, &plan);
    if (isSixteenBitFloat(graph.value(decision.value).type.dtype))
      fail("16-bit float %" + std::to_string(decision.value) +
               " is derived inexactly",
           graph, &plan);
    for (ValueId source : derivation.from)
      if (isSixteenBitFloat(graph.value(source).type.dtype))
        fail("%" + std::to_string(decision.value) +
                 " is derived inexactly from the 16-bit float %" +
                 std::to_string(source),
             graph, &plan);
  }
}

void checkPlan(const Graph &graph, const PlanOptions &options,
               const Plan &plan) {
  const Classification &phases = plan.classification;
  // Complete: every value backward reads has a decision that provides it.
  for (ValueId needed : phases.neededByBackward) {
    const ValueDecision *decision = plan.find(needed);
    if (!decision)
      fail("no decision for %" + std::to_string(needed) +
               ", which backward reads",
           graph, &plan);
    if (decision->decision == Decision::NotNeeded)
      fail("%" + std::to_string(needed) +
               " is read by backward but decided not-needed",
           graph, &plan);
    if (plan.reason(*decision).empty())
      fail("decision for %" + std::to_string(needed) + " has no reason", graph,
           &plan);
  }
  checkRunnable(graph, plan);

  // Budget respected whenever the planner claims success.
  if (options.strategy == Strategy::Budget ||
      options.strategy == Strategy::Optimal) {
    if (!plan.budgetBytes)
      fail("budget plan without a resolved budget", graph, &plan);
    if (plan.simulation.peakBytes > *plan.budgetBytes)
      fail("peak " + std::to_string(plan.simulation.peakBytes) +
               " exceeds the budget " + std::to_string(*plan.budgetBytes),
           graph, &plan);
    // The plan is a schedule of the bound's class, so no certificate may
    // exceed its time (the certificate keeps a 1e-9 relative margin).
    if (!plan.lowerBound)
      fail("budget plan without a lower bound", graph, &plan);
    const double time = plan.simulation.totalTimeUs;
    if (plan.lowerBound->timeUs > time + 1e-7 * std::abs(time))
      fail("lower bound " + std::to_string(plan.lowerBound->timeUs) + " (" +
               std::string(toString(plan.lowerBound->kind)) +
               ") exceeds the plan's time " + std::to_string(time),
           graph, &plan);
  }

  // Tags: a never_recompute op is evaluated once; a must_recompute value
  // backward reads is recomputed.
  std::vector<int> evaluations(graph.numOps(), 0);
  for (OpId step : plan.schedule.steps)
    ++evaluations[step];
  for (size_t id = 0; id < graph.numOps(); ++id) {
    const GraphOp &op = graph.op(static_cast<OpId>(id));
    if (phases.opPhase[id] != Phase::Forward)
      continue;
    if (op.tags.neverRecompute && evaluations[id] > 1)
      fail("never_recompute op " + std::to_string(id) + " evaluated " +
               std::to_string(evaluations[id]) + " times",
           graph, &plan);
    if (!op.tags.mustRecompute)
      continue;
    failIfKept(graph, plan, op, "must_recompute", "", /*derivable=*/false);
  }

  checkPreferences(graph, options, plan);
  checkDerivations(graph, options, plan);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzInput in(data, size);
  FuzzCase fuzzCase;
  if (!decode(in, fuzzCase))
    return 0;
  const Graph &graph = fuzzCase.graph;
  absl::StatusOr<Plan> plan = planRematerialization(graph, fuzzCase.options);
  if (!plan.ok()) {
    if (plan.status().message().empty())
      fail("planning failed without a message", graph, nullptr);
    // An internal error is the planner catching itself in a bug (a plan
    // the simulator disagrees with): never an answer to a user's input.
    if (plan.status().code() == absl::StatusCode::kInternal)
      fail("internal error: " + std::string(plan.status().message()), graph,
           nullptr);
    return 0;
  }
  checkPlan(graph, fuzzCase.options, *plan);
  // optimal's plan depends on the clock when the limit stopped CBC.
  auto stopped = [](const Plan &plan) {
    return plan.lowerBound && plan.lowerBound->lpStopped;
  };
  if (fuzzCase.options.strategy == Strategy::Optimal && stopped(*plan))
    return 0;
  absl::StatusOr<Plan> again = planRematerialization(graph, fuzzCase.options);
  if (!again.ok())
    fail("second planning failed: " + again.status().ToString(), graph, &*plan);
  if (fuzzCase.options.strategy == Strategy::Optimal && stopped(*again))
    return 0;
  if (toText(*plan, graph) != toText(*again, graph)) {
    std::fprintf(stderr, "second plan:\n%s\n", toText(*again, graph).c_str());
    fail("planning twice gives different plans", graph, &*plan);
  }
  return 0;
}
