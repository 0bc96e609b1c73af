//===- StressTest.cpp - Planner limits: size, depth, fan-out, extremes ----===//
//
// Part of remat. Graphs at the edges of what the planner accepts: a
// million-op chain, deep chains under every strategy (the walks must be
// iterative: a recursive walk overflows the stack here), one value with 10^5
// users, zero-size and > 2^40-byte tensors, budgets of 0 and INT64_MAX. Each
// must plan correctly or fail with a clear error; under
// -DREMAT_SANITIZE=address,undefined (scripts/test-sanitizers.sh) these are
// also the overflow checks. Sizes and timings: docs/Reliability.md.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "remat/Core/Planner.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace remat {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

/// A forward chain x -> f1 -> ... -> f_depth of pointwise ops on `shape`,
/// and AOTAutograd's backward: one op per forward op reading the incoming
/// gradient and that op's result.
struct Chain {
  Graph graph;
  std::vector<ValueId> forward; // x, then each f_i
};

Chain buildChain(int depth, std::vector<int64_t> shape,
                 DType dtype = DType::F32) {
  test::GraphBuilder builder(dtype);
  Chain chain;
  chain.forward.reserve(depth + 1);
  chain.forward.push_back(builder.input("x", shape));
  for (int i = 0; i < depth; ++i)
    chain.forward.push_back(
        builder.op("f" + std::to_string(i), "tanh", ComputeClass::Pointwise,
                   {chain.forward.back()}, builder.type(shape)));
  builder.graph().markOutput(chain.forward.back(), OutputRole::Output);
  ValueId grad = builder.input("dy", shape, InputRole::Tangent);
  for (int i = depth; i >= 1; --i)
    grad =
        builder.op("b" + std::to_string(i), "tanh_bwd", ComputeClass::Pointwise,
                   {grad, chain.forward[i]}, builder.type(shape));
  builder.graph().markOutput(grad, OutputRole::Gradient);
  chain.graph = builder.take();
  return chain;
}

/// Every value backward reads has a decision that provides it.
void expectComplete(const Plan &plan) {
  for (ValueId needed : plan.classification.neededByBackward) {
    const ValueDecision *decision = plan.find(needed);
    ASSERT_NE(decision, nullptr) << "no decision for value " << needed;
    EXPECT_NE(decision->decision, Decision::NotNeeded) << "value " << needed;
  }
}

PlanOptions budgetOptions(MemoryBudget budget) {
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = budget;
  return options;
}

MemoryBudget bytesBudget(int64_t bytes) {
  MemoryBudget budget;
  budget.kind = MemoryBudget::Kind::Bytes;
  budget.bytes = bytes;
  return budget;
}

// One min-cut over a million-op joint graph (500k forward, 500k backward):
// Dinic's BFS/DFS and the recompute chain (as long as the graph) are
// iterative. ~8 s in a Release build on the 2-core dev machine.
TEST(Stress, MinCutOnMillionOpChain) {
  constexpr int kDepth = 500000;
  Chain chain = buildChain(kDepth, {16});
  ASSERT_EQ(chain.graph.numOps(), 2u * kDepth);
  Plan plan = test::planOrDie(chain.graph, test::optionsFor(Strategy::MinCut));
  expectComplete(plan);
  // Recomputing the whole chain from x (64 bytes) beats saving any link; the
  // output f_n is live anyway.
  EXPECT_EQ(plan.simulation.savedBytes, 64);
  EXPECT_EQ(test::decisionOf(plan, chain.forward[kDepth / 2]),
            Decision::Recompute);
}

// 10,000-deep chain under every heuristic strategy and both extreme budgets.
TEST(Stress, TenThousandDeepChainEveryStrategy) {
  constexpr int kDepth = 10000;
  Chain chain = buildChain(kDepth, {16});
  Plan saveAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::SaveAll));
  expectComplete(saveAll);
  // f_1..f_{n-1}: backward reads no input, and f_n is a function result
  // (live anyway).
  EXPECT_EQ(saveAll.simulation.savedBytes, int64_t(kDepth - 1) * 64);
  EXPECT_EQ(saveAll.simulation.numRecomputedEvaluations, 0);

  Plan recomputeAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::RecomputeAll));
  expectComplete(recomputeAll);
  EXPECT_EQ(recomputeAll.simulation.savedBytes, 64);

  Plan minCut =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::MinCut));
  expectComplete(minCut);
  EXPECT_EQ(minCut.simulation.savedBytes, 64);

  Plan unlimited =
      test::planOrDie(chain.graph, budgetOptions(bytesBudget(kInt64Max)));
  expectComplete(unlimited);
  EXPECT_EQ(unlimited.simulation.recomputeTimeUs, 0);
  EXPECT_EQ(unlimited.budgetBytes, kInt64Max);

  MemoryBudget half;
  half.kind = MemoryBudget::Kind::Fraction;
  half.fraction = 0.5;
  Plan halfway = test::planOrDie(chain.graph, budgetOptions(half));
  expectComplete(halfway);
  EXPECT_LE(halfway.simulation.peakBytes, *halfway.budgetBytes);

  absl::StatusOr<Plan> none =
      planRematerialization(chain.graph, budgetOptions(bytesBudget(0)));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), absl::StatusCode::kResourceExhausted);
}

// One value read by 10^5 forward ops and by 10^5 backward ops.
TEST(Stress, HundredThousandUsersOfOneValue) {
  constexpr int kUsers = 100000;
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {8});
  ValueId shared = builder.op("shared", "tanh", ComputeClass::Pointwise, {x},
                              builder.type({8}), "shared");
  std::vector<ValueId> users;
  users.reserve(kUsers);
  for (int i = 0; i < kUsers; ++i)
    users.push_back(builder.op("u" + std::to_string(i), "relu",
                               ComputeClass::Pointwise, {shared},
                               builder.type({8})));
  ValueId grad = builder.input("dy", {8}, InputRole::Tangent);
  for (int i = kUsers - 1; i >= 0; --i)
    grad = builder.op("ub" + std::to_string(i), "relu_bwd",
                      ComputeClass::Pointwise, {grad, users[i], shared},
                      builder.type({8}));
  builder.graph().markOutput(grad, OutputRole::Gradient);
  Graph graph = builder.take();
  EXPECT_EQ(graph.users(shared).size(), 2u * kUsers);

  Plan minCut = test::planOrDie(graph, test::optionsFor(Strategy::MinCut));
  expectComplete(minCut);
  // Each relu output is recomputed from `shared` (or x): at most x and
  // `shared` are held.
  EXPECT_LE(minCut.simulation.savedBytes, 64);
  EXPECT_EQ(test::decisionOf(minCut, users[kUsers / 2]), Decision::Recompute);

  Plan saveAll = test::planOrDie(graph, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(saveAll.simulation.savedBytes, int64_t(kUsers + 1) * 32);
}

// Zero-element tensors take no memory: every strategy plans them, and a
// budget of 0 bytes is feasible.
TEST(Stress, ZeroSizeTensors) {
  Chain chain = buildChain(16, {0, 128});
  for (Strategy strategy :
       {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
    Plan plan = test::planOrDie(chain.graph, test::optionsFor(strategy));
    expectComplete(plan);
    EXPECT_EQ(plan.simulation.peakBytes, 0) << toString(strategy);
    EXPECT_EQ(plan.simulation.savedBytes, 0) << toString(strategy);
  }
  Plan zero = test::planOrDie(chain.graph, budgetOptions(bytesBudget(0)));
  expectComplete(zero);
  EXPECT_EQ(zero.simulation.peakBytes, 0);
}

// 2^43-byte activations: byte counts are exact, sums do not overflow.
TEST(Stress, HugeTensors) {
  constexpr int kDepth = 8;
  const int64_t kBytes = int64_t(1) << 43; // f32 [2^20, 2^21]
  Chain chain = buildChain(kDepth, {int64_t(1) << 20, int64_t(1) << 21});
  Plan saveAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::SaveAll));
  expectComplete(saveAll);
  EXPECT_EQ(saveAll.simulation.savedBytes, (kDepth - 1) * kBytes);
  EXPECT_GT(saveAll.simulation.peakBytes, (kDepth - 1) * kBytes);

  Plan minCut =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::MinCut));
  EXPECT_EQ(minCut.simulation.savedBytes, kBytes);

  Plan budgeted = test::planOrDie(
      chain.graph,
      budgetOptions(bytesBudget(saveAll.simulation.peakBytes - kBytes)));
  expectComplete(budgeted);
  EXPECT_LE(budgeted.simulation.peakBytes,
            saveAll.simulation.peakBytes - kBytes);
  EXPECT_GT(budgeted.simulation.numRecomputedEvaluations, 0);
}

// Sizes past INT64_MAX saturate (TensorType::bytes) instead of wrapping: the
// planner still answers, and UBSan sees no signed overflow in the sums.
TEST(Stress, SaturatedTensorSizes) {
  Chain chain = buildChain(4, {kInt64Max, 4});
  EXPECT_EQ(chain.graph.value(chain.forward[1]).type.bytes(), kInt64Max);
  for (Strategy strategy :
       {Strategy::SaveAll, Strategy::RecomputeAll, Strategy::MinCut}) {
    Plan plan = test::planOrDie(chain.graph, test::optionsFor(strategy));
    expectComplete(plan);
    EXPECT_EQ(plan.simulation.peakBytes, kInt64Max) << toString(strategy);
  }
  Plan unlimited =
      test::planOrDie(chain.graph, budgetOptions(bytesBudget(kInt64Max)));
  expectComplete(unlimited);
}

// Activations of 2^59 bytes in a chain of 16: save-all's peak (18 of them)
// passes INT64_MAX and saturates, so the budget search's 64-bit evaluations
// fall back to 128-bit sums (UBSan checks that nothing overflows on the
// way), and a budget of 12 activations, which fits int64, is met by
// recomputing.
TEST(Stress, BudgetSearchPastInt64) {
  constexpr int kDepth = 16;
  const int64_t kBytes = int64_t(1) << 59; // f32 [2^57]
  Chain chain = buildChain(kDepth, {int64_t(1) << 57});
  ASSERT_EQ(chain.graph.value(chain.forward[1]).type.bytes(), kBytes);
  Plan saveAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::SaveAll));
  EXPECT_EQ(saveAll.simulation.peakBytes, kInt64Max); // saturated
  Plan budgeted =
      test::planOrDie(chain.graph, budgetOptions(bytesBudget(12 * kBytes)));
  expectComplete(budgeted);
  EXPECT_LE(budgeted.simulation.peakBytes, 12 * kBytes);
  EXPECT_GT(budgeted.simulation.numRecomputedEvaluations, 0);
}

// `optimal` states memory in units of the gcd of all sizes, summed in
// doubles: the same chain of 2^59-byte activations is exact in units of
// 2^59 bytes, but a 4-byte workspace makes the unit 4 bytes and the sums
// pass 2^53 units. That gets a clear error, not a MILP on rounded rows
// (the planner fuzzer found 64-bit overflows on such sizes).
TEST(Stress, OptimalRefusesMemoryItCannotStateExactly) {
  const int64_t kBytes = int64_t(1) << 59;
  Chain chain = buildChain(16, {int64_t(1) << 57});
  PlanOptions options = budgetOptions(bytesBudget(12 * kBytes));
  options.strategy = Strategy::Optimal;
  Plan exact = test::planOrDie(chain.graph, options);
  expectComplete(exact);
  EXPECT_LE(exact.simulation.peakBytes, 12 * kBytes);

  chain.graph.mutableOp(chain.graph.value(chain.forward[1]).producer)
      .workspaceBytes = 4;
  absl::StatusOr<Plan> inexact = planRematerialization(chain.graph, options);
  ASSERT_FALSE(inexact.ok());
  EXPECT_EQ(inexact.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(inexact.status().message().find(
                "cannot state this graph's memory: its values and workspace "
                "add up to more than 2^53 units of 4 bytes"),
            std::string::npos)
      << inexact.status().message();
}

// Budgets at both ends of int64 and of the fraction range.
TEST(Stress, ExtremeBudgets) {
  Chain chain = buildChain(64, {1024});
  Plan saveAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::SaveAll));
  Plan recomputeAll =
      test::planOrDie(chain.graph, test::optionsFor(Strategy::RecomputeAll));

  Plan unlimited =
      test::planOrDie(chain.graph, budgetOptions(bytesBudget(kInt64Max)));
  EXPECT_EQ(unlimited.simulation.recomputeTimeUs, 0);
  EXPECT_EQ(unlimited.simulation.peakBytes, saveAll.simulation.peakBytes);

  MemoryBudget fraction;
  fraction.kind = MemoryBudget::Kind::Fraction;
  fraction.fraction = 0;
  Plan lowest = test::planOrDie(chain.graph, budgetOptions(fraction));
  EXPECT_LE(lowest.simulation.peakBytes, recomputeAll.simulation.peakBytes);
  fraction.fraction = 1;
  Plan highest = test::planOrDie(chain.graph, budgetOptions(fraction));
  EXPECT_EQ(highest.simulation.recomputeTimeUs, 0);

  absl::StatusOr<Plan> zero =
      planRematerialization(chain.graph, budgetOptions(bytesBudget(0)));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(zero.status().message().find(
                "raise the budget to at least " +
                std::to_string(lowest.simulation.peakBytes) + " bytes"),
            std::string::npos)
      << zero.status();

  absl::StatusOr<MemoryBudget> parsed =
      parseMemoryBudget("9223372036854775807");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->bytes, kInt64Max);
}

} // namespace
} // namespace remat
