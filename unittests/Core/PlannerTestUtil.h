//===- PlannerTestUtil.h - Helpers for the planner tests --------*- C++ -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_CORE_PLANNERTESTUTIL_H
#define REMAT_UNITTESTS_CORE_PLANNERTESTUTIL_H

#include "remat/Core/Planner.h"

#include "gtest/gtest.h"

#include <string>

namespace remat::test {

inline PlanOptions optionsFor(Strategy strategy) {
  PlanOptions options;
  options.strategy = strategy;
  return options;
}

/// min-cut weighing saved bytes alone (exchange rate 0), as PyTorch's
/// partitioner does: the smallest saved set whatever it costs to replay.
inline PlanOptions bytesOnlyMinCut() {
  PlanOptions options = optionsFor(Strategy::MinCut);
  options.exchangeRateBytesPerUs = 0;
  return options;
}

inline Plan planOrDie(const Graph &graph, const PlanOptions &options) {
  absl::StatusOr<Plan> plan = planRematerialization(graph, options);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *std::move(plan) : Plan{};
}

/// The first value named `name`.
inline ValueId valueNamed(const Graph &graph, const std::string &name) {
  for (size_t id = 0; id < graph.numValues(); ++id)
    if (graph.value(static_cast<ValueId>(id)).name == name)
      return static_cast<ValueId>(id);
  ADD_FAILURE() << "no value named " << name;
  return kNoId;
}

inline OpId opNamed(const Graph &graph, const std::string &name) {
  for (size_t id = 0; id < graph.numOps(); ++id)
    if (graph.op(static_cast<OpId>(id)).name == name &&
        graph.op(static_cast<OpId>(id)).kind.rfind("bwd.", 0) != 0)
      return static_cast<OpId>(id);
  ADD_FAILURE() << "no forward op named " << name;
  return kNoId;
}

inline Decision decisionOf(const Plan &plan, ValueId value) {
  const ValueDecision *decision = plan.find(value);
  EXPECT_NE(decision, nullptr) << "no decision for value " << value;
  return decision ? decision->decision : Decision::NotNeeded;
}

inline std::string reasonOf(const Plan &plan, ValueId value) {
  const ValueDecision *decision = plan.find(value);
  return decision ? std::string(plan.reason(*decision))
                  : std::string("<no decision>");
}

/// Values held from forward into backward: saved values and primal inputs
/// backward reads (PyTorch counts both as "saved for backward").
inline int countSaved(const Graph &graph, const Plan &plan) {
  int count = 0;
  for (const ValueDecision &decision : plan.decisions)
    if (decision.decision == Decision::Save ||
        (decision.decision == Decision::Input &&
         graph.value(decision.value).inputRole == InputRole::Input))
      ++count;
  return count;
}

/// How many times `op` is evaluated in the whole schedule.
inline int evaluations(const Plan &plan, OpId op) {
  int count = 0;
  for (OpId step : plan.schedule.steps)
    count += step == op;
  return count;
}

/// Evaluations of ops of `computeClass` in the forward or backward section.
inline int countClassEvaluations(const Graph &graph, const Plan &plan,
                                 ComputeClass computeClass, bool backward) {
  size_t boundary = plan.schedule.steps.size();
  for (size_t i = 0; i < plan.schedule.steps.size(); ++i)
    if (plan.classification.opPhase[plan.schedule.steps[i]] ==
        Phase::Backward) {
      boundary = i;
      break;
    }
  int count = 0;
  for (size_t i = 0; i < plan.schedule.steps.size(); ++i)
    if ((i >= boundary) == backward &&
        graph.op(plan.schedule.steps[i]).computeClass == computeClass)
      ++count;
  return count;
}

} // namespace remat::test

#endif // REMAT_UNITTESTS_CORE_PLANNERTESTUTIL_H
