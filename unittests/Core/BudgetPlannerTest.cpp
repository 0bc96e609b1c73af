//===- BudgetPlannerTest.cpp - The `budget` strategy's search --*- C++ -*-===//
//
// Part of remat. What the schedule refinement of `budget` must reach beyond
// its keep-set candidates (budgets only multiple recomputation meets, on
// Checkmate's linear graph and on a random joint graph where `optimal`
// proves them feasible), and what every refined plan must keep: the budget
// (by the simulator), the bans and tags, monotonicity in the budget,
// determinism, and decisions that say what the schedule does.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

namespace remat {
namespace {

/// The peak of every op once, in id order (Checkmate's "topological peak",
/// the base of the quality tables' budget fractions).
int64_t noRecomputePeak(const Graph &graph) {
  absl::StatusOr<Classification> phases = classify(graph);
  EXPECT_TRUE(phases.ok()) << phases.status();
  Schedule schedule;
  for (size_t op = 0; op < graph.numOps(); ++op)
    schedule.steps.push_back(static_cast<OpId>(op));
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, *phases, schedule, CostModel(*getTargetPreset("h100")));
  EXPECT_TRUE(simulation.ok()) << simulation.status();
  return simulation.ok() ? simulation->peakBytes : 0;
}

/// The size the budget search's large-graph paths are chosen by.
size_t opsPlusOperands(const Graph &graph) {
  size_t size = graph.numOps();
  for (const GraphOp &op : graph.ops())
    size += op.operands.size();
  return size;
}

PlanOptions budgetOptions(int64_t bytes) {
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, bytes, 0};
  return options;
}

/// Re-simulates the plan's schedule independently and checks what a plan
/// must satisfy whatever the search did: peak within the budget, every
/// backward op once, no op re-evaluated that automatic planning may not
/// recompute (matmuls may be when recompute-banned=allow lifted that ban),
/// and decisions that match the schedule (a recomputed value's producer
/// runs again in backward; a saved value is read in backward from
/// a forward-section evaluation).
void expectValidPlan(const Graph &graph, const Plan &plan) {
  ASSERT_TRUE(plan.budgetBytes.has_value());
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, plan.classification, plan.schedule,
               CostModel(*getTargetPreset("h100")));
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  EXPECT_EQ(simulation->peakBytes, plan.simulation.peakBytes);
  EXPECT_LE(simulation->peakBytes, *plan.budgetBytes);

  const size_t boundary =
      plan.schedule.backwardStart.value_or(plan.schedule.steps.size());
  std::vector<int> runs(graph.numOps(), 0), backwardRuns(graph.numOps(), 0);
  std::vector<uint8_t> readInBackwardFromForward(graph.numValues(), 0);
  std::vector<uint8_t> backwardCopy(graph.numValues(), 0);
  size_t nextDerivation = 0;
  for (size_t step = 0; step < plan.schedule.steps.size(); ++step) {
    OpId op = plan.schedule.steps[step];
    const GraphOp &graphOp = graph.op(op);
    bool backward = step >= boundary;
    for (; nextDerivation < plan.schedule.derivations.size() &&
           plan.schedule.derivations[nextDerivation].beforeStep == step;
         ++nextDerivation) {
      const DerivationStep &derivation =
          plan.schedule.derivations[nextDerivation];
      for (ValueId read : derivation.reads)
        if (backward && !backwardCopy[read])
          readInBackwardFromForward[read] = 1;
      backwardCopy[derivation.value] = backward;
    }
    for (ValueId operand : graphOp.operands)
      if (backward && !backwardCopy[operand])
        readInBackwardFromForward[operand] = 1;
    for (ValueId result : graphOp.results)
      backwardCopy[result] = backward;
    if (plan.classification.opPhase[op] == Phase::Backward) {
      ++runs[op];
      continue;
    }
    if (backward)
      ++backwardRuns[op];
    if (runs[op]++ == 0 || graphOp.tags.mustRecompute)
      continue;
    // A second evaluation: automatic planning may not replay these.
    EXPECT_FALSE(graphOp.tags.neverRecompute) << "op " << op;
    EXPECT_FALSE(graphOp.tags.noAutoRecompute) << "op " << op;
    // recompute-banned=allow lifts the automatic ban (tags still hold).
    if (!plan.bansLifted) {
      EXPECT_NE(graphOp.computeClass, ComputeClass::Matmul) << "op " << op;
    }
  }
  for (size_t op = 0; op < graph.numOps(); ++op)
    if (plan.classification.opPhase[op] == Phase::Backward) {
      EXPECT_EQ(runs[op], 1) << "backward op " << op;
    }
  for (ValueId value : plan.classification.neededByBackward) {
    if (graph.value(value).producer == kNoId)
      continue;
    switch (test::decisionOf(plan, value)) {
    case Decision::Recompute:
      EXPECT_GT(backwardRuns[graph.value(value).producer], 0)
          << "value " << value << ": " << test::reasonOf(plan, value);
      break;
    case Decision::Save:
      EXPECT_TRUE(readInBackwardFromForward[value])
          << "value " << value << ": " << test::reasonOf(plan, value);
      break;
    case Decision::Derive:
      break;
    default:
      ADD_FAILURE() << "value " << value << " is read by backward but "
                    << toString(test::decisionOf(plan, value));
    }
    EXPECT_FALSE(test::reasonOf(plan, value).empty());
  }
}

//===----------------------------------------------------------------------===//
// Checkmate's linear graph: n = 8 forward ops of one byte and one
// microsecond, 17 ops in all, with Checkmate's published optima by budget
// (also checked against the MILP in OptimalTest). Replaying each value at
// most once, before its first backward use, the keep-set candidates reach
// no peak below 6 bytes; 3 to 5 bytes need values recomputed several times.
//===----------------------------------------------------------------------===//

TEST(BudgetSearch, LinearGraphMeetsBudgetsThatNeedMultipleRecomputation) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  // Published optimum (total time) per budget; 17 = every op once.
  const std::vector<std::pair<int64_t, double>> optima = {
      {3, 45}, {4, 26}, {5, 22}, {6, 21}, {7, 20}, {8, 19}, {9, 18}, {10, 17}};
  for (const auto &[budget, optimum] : optima) {
    SCOPED_TRACE(testing::Message() << "budget " << budget);
    absl::StatusOr<Plan> plan =
        planRematerialization(graph, budgetOptions(budget));
    ASSERT_TRUE(plan.ok()) << plan.status();
    expectValidPlan(graph, *plan);
    // The search finds the optimum at every budget (below it would be a
    // simulator or solver bug).
    EXPECT_DOUBLE_EQ(plan->simulation.totalTimeUs, optimum);
  }
}

//===----------------------------------------------------------------------===//
// Random joint graphs of the quality benchmark (random-joint-N: 24 forward
// ops, random tags, random and RNG ops, derivable adds). At 0.9 of the
// no-recompute peak the keep-set candidates of random-joint-2 and -3 are
// all over budget (their lowest peaks are 1.000 and 0.985 of it);
// `optimal` meets 0.9 on both (docs/benchmarks.md).
//===----------------------------------------------------------------------===//

Graph randomJointGraph(uint64_t seed) {
  test::RandomGraphOptions options;
  options.numForwardOps = 24;
  return test::buildRandomJointGraph(seed, options);
}

int64_t ninetyPercent(const Graph &graph) {
  return static_cast<int64_t>(
      std::ceil(0.9 * static_cast<double>(noRecomputePeak(graph))));
}

// recompute-banned=allow (#17 item 5): below the lowest peak the automatic
// bans allow, budget may replay matmuls, says so, and still never replays
// the attention the layer tags no_auto_recompute; above it nothing changes.
TEST(BudgetSearch, RecomputeBannedAllowGoesBelowTheBans) {
  Graph graph = test::buildLlamaLayer();
  PlanOptions lowestOptions = test::optionsFor(Strategy::Budget);
  lowestOptions.budget = *parseMemoryBudget("0.0");
  const int64_t floor = test::planOrDie(graph, lowestOptions).simulation.peakBytes;
  const int64_t budget = floor * 9 / 10;
  absl::StatusOr<Plan> refused =
      planRematerialization(graph, budgetOptions(budget));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("recompute-banned=allow"),
            std::string::npos)
      << refused.status();

  PlanOptions allow = budgetOptions(budget);
  allow.recomputeBannedUnderPressure = true;
  absl::StatusOr<Plan> plan = planRematerialization(graph, allow);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->bansLifted);
  EXPECT_LE(plan->simulation.peakBytes, budget);
  std::vector<int> runs(graph.numOps(), 0);
  bool matmulReplayed = false;
  for (OpId op : plan->schedule.steps) {
    const GraphOp &graphOp = graph.op(op);
    if (runs[op]++ == 0)
      continue;
    EXPECT_FALSE(graphOp.tags.noAutoRecompute || graphOp.tags.neverRecompute)
        << graphOp.name << " is tagged and was replayed";
    matmulReplayed |= graphOp.computeClass == ComputeClass::Matmul;
  }
  EXPECT_TRUE(matmulReplayed);
  bool explained = false;
  for (const ValueDecision &decision : plan->decisions)
    explained |= decision.decision == Decision::Recompute &&
                 plan->reason(decision).find("recompute-banned=allow") !=
                     std::string::npos;
  EXPECT_TRUE(explained);

  // A budget the bans allow: the option changes nothing.
  PlanOptions roomy = budgetOptions(floor);
  Plan without = test::planOrDie(graph, roomy);
  roomy.recomputeBannedUnderPressure = true;
  Plan with = test::planOrDie(graph, roomy);
  EXPECT_FALSE(with.bansLifted);
  EXPECT_EQ(with.schedule.steps, without.schedule.steps);
}

/// The numbers of an infeasible-budget error: the smallest peak budget
/// reaches, and the lower bound when it is not proven minimal (-1 if it is).
std::pair<int64_t, int64_t> smallestPeakAndBound(const absl::Status &status) {
  const std::string message(status.message());
  size_t reaches = message.find("strategy reaches is ");
  EXPECT_NE(reaches, std::string::npos) << message;
  size_t open = message.find('(', reaches);
  int64_t smallest = std::stoll(std::string(message.substr(open + 1)));
  if (message.find("proven minimal: an op") != std::string::npos)
    return {smallest, -1};
  size_t below = message.find("peaks below ");
  EXPECT_NE(below, std::string::npos) << message;
  size_t boundOpen = message.find('(', below);
  return {smallest, std::stoll(std::string(message.substr(boundOpen + 1)))};
}

// #17 item 4: an infeasible budget's error says whether the smallest peak
// is proven minimal. The bound must hold for every plan that honours the
// automatic bans (save-all, min-cut at any rate, budget at any budget): it
// is checked against their simulated peaks on random joint graphs.
TEST(BudgetSearch, InfeasibleErrorBoundsEveryPlan) {
  int proven = 0, bounded = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    test::RandomGraphOptions options;
    options.numForwardOps = 4 + static_cast<int>(seed % 13);
    Graph graph = test::buildRandomJointGraph(seed, options);
    absl::StatusOr<Plan> refused =
        planRematerialization(graph, budgetOptions(1));
    ASSERT_FALSE(refused.ok());
    ASSERT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted)
        << refused.status();
    auto [smallest, bound] = smallestPeakAndBound(refused.status());
    if (bound < 0) {
      ++proven;
      bound = smallest;
    } else {
      ++bounded;
      EXPECT_LT(bound, smallest);
    }
    std::vector<PlanOptions> plans = {test::optionsFor(Strategy::SaveAll),
                                      test::bytesOnlyMinCut(),
                                      test::optionsFor(Strategy::MinCut),
                                      budgetOptions(smallest)};
    for (const PlanOptions &planOptions : plans) {
      Plan plan = test::planOrDie(graph, planOptions);
      EXPECT_GE(plan.simulation.peakBytes, bound)
          << toString(planOptions.strategy);
    }
  }
  // On these graphs the bound is loose (60-85% of the smallest peak found):
  // nothing is proven, and every error gives the bound.
  EXPECT_EQ(proven + bounded, 40);
  EXPECT_GT(bounded, 0);
}

// Where one op dominates, the bound proves the smallest peak minimal: the
// never_recompute value y and the gradient the backward op writes are live
// together whatever the schedule.
TEST(BudgetSearch, InfeasibleErrorSaysWhenTheSmallestPeakIsProven) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {256});
  ValueId y = builder.op("relu", "relu", ComputeClass::Pointwise, {x},
                         builder.type({256}), "y");
  builder.producer(y).tags.neverRecompute = true;
  ValueId out = builder.op("loss", "sum", ComputeClass::Reduction, {y},
                           builder.type({}), "loss");
  builder.graph().markOutput(out, OutputRole::Output);
  ValueId dout = builder.input("dloss", builder.type({}), InputRole::Tangent);
  ValueId dx = builder.op("relu_bwd", "bwd", ComputeClass::Pointwise,
                          {dout, y}, builder.type({256}));
  builder.graph().markOutput(dx, OutputRole::Gradient);
  Graph graph = builder.take();
  absl::StatusOr<Plan> refused =
      planRematerialization(graph, budgetOptions(1024));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "reaches is 2 KiB (2052 bytes, proven minimal: an op or the "
                "values that must be kept need that much at once; save-all "
                "needs 2 KiB)"),
            std::string::npos)
      << refused.status();
}

TEST(BudgetSearch, RandomJointGraphsMeetNinetyPercent) {
  for (uint64_t seed : {2, 3}) {
    SCOPED_TRACE(testing::Message() << "random-joint-" << seed);
    Graph graph = randomJointGraph(seed);
    absl::StatusOr<Plan> plan =
        planRematerialization(graph, budgetOptions(ninetyPercent(graph)));
    ASSERT_TRUE(plan.ok()) << plan.status();
    expectValidPlan(graph, *plan);
  }
}

TEST(BudgetSearch, RandomJointGraphWithinOnePercentOfOptimal) {
  Graph graph = randomJointGraph(3);
  int64_t budget = ninetyPercent(graph);
  Plan plan = test::planOrDie(graph, budgetOptions(budget));
  expectValidPlan(graph, plan);
  PlanOptions options = test::optionsFor(Strategy::Optimal);
  options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, budget, 0};
  options.optimalTimeLimitSeconds = 300; // answers, not speed
  absl::StatusOr<Plan> optimal = planRematerialization(graph, options);
  if (!optimal.ok() &&
      optimal.status().code() == absl::StatusCode::kDeadlineExceeded)
    GTEST_SKIP() << "optimal did not finish: " << optimal.status();
  ASSERT_TRUE(optimal.ok()) << optimal.status();
  // CBC proves optimality to its tolerance (1e-7 relative, as in
  // OptimalTest): fused replays cost ~1e-5 us, below it.
  EXPECT_GE(plan.simulation.totalTimeUs,
            optimal->simulation.totalTimeUs * (1 - 1e-7));
  EXPECT_LE(plan.simulation.totalTimeUs,
            optimal->simulation.totalTimeUs * 1.01);
}

/// Plans at `steps` + 1 budgets from `low` to `high` with `optionsAt`:
/// every plan valid, peak non-decreasing and recompute time non-increasing
/// in the budget, and the same plan when planned twice (every 8th budget).
void expectMonotonicAndDeterministic(
    const Graph &graph, int64_t low, int64_t high, int steps,
    const std::function<PlanOptions(int64_t)> &optionsAt) {
  int64_t previousPeak = 0;
  double previousTime = 1e300;
  for (int i = 0; i <= steps; ++i) {
    const int64_t budget = low + (high - low) * i / steps;
    Plan plan = test::planOrDie(graph, optionsAt(budget));
    expectValidPlan(graph, plan);
    EXPECT_GE(plan.simulation.peakBytes, previousPeak) << budget;
    EXPECT_LE(plan.simulation.recomputeTimeUs, previousTime) << budget;
    previousPeak = plan.simulation.peakBytes;
    previousTime = plan.simulation.recomputeTimeUs;
    if (i % 8 == 0) {
      EXPECT_EQ(toText(plan, graph),
                toText(test::planOrDie(graph, optionsAt(budget)), graph));
    }
  }
}

TEST(BudgetSearch, RefinedPlansAreMonotonicAndDeterministic) {
  Graph graph = randomJointGraph(2);
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("0.0");
  Plan lowest = test::planOrDie(graph, options);
  expectValidPlan(graph, lowest);
  int64_t low = lowest.simulation.peakBytes;
  int64_t high = noRecomputePeak(graph);
  ASSERT_LT(low, high);
  expectMonotonicAndDeterministic(graph, low, high, 32, budgetOptions);
  // Below the lowest peak the error names it.
  absl::StatusOr<Plan> infeasible =
      planRematerialization(graph, budgetOptions(low - 1));
  ASSERT_FALSE(infeasible.ok());
  EXPECT_EQ(infeasible.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(infeasible.status().message().find(
                "raise the budget to at least " + std::to_string(low)),
            std::string::npos)
      << infeasible.status();
}

//===----------------------------------------------------------------------===//
// Per-value decisions only (schedule-plans=false, what remat_torch and
// remat_jax realise): the keep sets of the fixed families, then a Pareto
// local search over single flipped decisions.
//===----------------------------------------------------------------------===//

PlanOptions decisionOptions(int64_t bytes) {
  PlanOptions options = budgetOptions(bytes);
  options.schedulePlans = false;
  options.recomputeBannedUnderPressure = true;
  return options;
}

// The JAX compare's finding (MaxText's save_out_proj policy on a Llama
// stack): saving each layer's attention output (the layer input is
// available anyway), recomputing the rest, peaks below every keep set of the fixed families, because out_proj
// is read by the replays (h = x + out_proj), not by backward. At that
// policy's peak and time, per-value budget must find a plan at least as
// fast.
TEST(BudgetSearch, DecisionPlansReachAPolicyBelowTheFamilies) {
  test::LlamaOptions layer;
  layer.attentionNoAutoRecompute = false;
  layer.dtype = DType::F32;
  Graph graph = test::buildLlamaLayer(layer);
  PlanOptions policyOptions = test::optionsFor(Strategy::MinCut);
  absl::StatusOr<NamePolicy> policy =
      parseNamePolicy("save_only_these_names:attention_out");
  ASSERT_TRUE(policy.ok()) << policy.status();
  policyOptions.policy = *policy;
  Plan policyPlan = test::planOrDie(graph, policyOptions);
  const int64_t peak = policyPlan.simulation.peakBytes;
  ASSERT_GT(peak, 0);

  absl::StatusOr<Plan> plan =
      planRematerialization(graph, decisionOptions(peak));
  ASSERT_TRUE(plan.ok()) << plan.status();
  expectValidPlan(graph, *plan);
  EXPECT_LE(plan->simulation.recomputeTimeUs,
            policyPlan.simulation.recomputeTimeUs * (1 + 1e-9));
}

TEST(BudgetSearch, DecisionPlansAreMonotonicAndDeterministic) {
  for (uint64_t seed : {2, 5}) {
    SCOPED_TRACE(seed);
    Graph graph = randomJointGraph(seed);
    PlanOptions lowestOptions = decisionOptions(0);
    lowestOptions.budget = *parseMemoryBudget("0.0");
    Plan lowest = test::planOrDie(graph, lowestOptions);
    expectValidPlan(graph, lowest);
    const int64_t low = lowest.simulation.peakBytes;
    const int64_t high = noRecomputePeak(graph);
    expectMonotonicAndDeterministic(graph, low, high, 16, decisionOptions);
  }
}

// Schedules are a superset of per-value decisions, so the default budget
// (schedule-plans=true) must be no slower than per-value budget at any
// budget the latter meets. The candidates for every budget at once did not
// guarantee it (the decision search runs only without schedules); the
// polish of per-value decisions for the budget asked (both modes) does on
// these graphs.
TEST(BudgetSearch, SchedulePlansAreNoSlowerThanDecisionPlans) {
  int compared = 0;
  // Without the polish seed 8 gets slower schedule plans at six budgets.
  for (uint64_t seed = 5; seed <= 8; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    Graph graph = randomJointGraph(seed);
    PlanOptions lowestOptions = decisionOptions(0);
    lowestOptions.budget = *parseMemoryBudget("0.0");
    absl::StatusOr<Plan> lowest = planRematerialization(graph, lowestOptions);
    ASSERT_TRUE(lowest.ok()) << lowest.status();
    const int64_t low = lowest->simulation.peakBytes;
    const int64_t high = noRecomputePeak(graph);
    for (int i = 0; i <= 12; ++i) {
      const int64_t budget = low + (high - low) * i / 12;
      SCOPED_TRACE(testing::Message() << "budget " << budget);
      absl::StatusOr<Plan> decisions =
          planRematerialization(graph, decisionOptions(budget));
      if (!decisions.ok())
        continue;
      PlanOptions scheduleOptions = decisionOptions(budget);
      scheduleOptions.schedulePlans = true;
      Plan schedule = test::planOrDie(graph, scheduleOptions);
      expectValidPlan(graph, schedule);
      EXPECT_LE(schedule.simulation.recomputeTimeUs,
                decisions->simulation.recomputeTimeUs * (1 + 1e-9) + 1e-9);
      ++compared;
    }
  }
  EXPECT_GT(compared, 25);
}

// decision-groups (what remat_jax passes: a name policy decides per
// checkpoint name): no plan saves one member of a group and computes
// another again, at any budget.
TEST(BudgetSearch, DecisionGroupsAreDecidedWhole) {
  Graph graph = randomJointGraph(5);
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok()) << phases.status();
  // Values a plan may both save and recompute within the automatic bans,
  // not function results (other groups are pinned to what their forced
  // members need).
  // The name a group matches: the value's, else its producer's.
  auto nameOf = [&](ValueId value) -> const std::string & {
    const GraphValue &graphValue = graph.value(value);
    return !graphValue.name.empty() || graphValue.producer == kNoId
               ? graphValue.name
               : graph.op(graphValue.producer).name;
  };
  std::vector<std::string> names;
  for (ValueId value : phases->forwardValues) {
    const GraphValue &graphValue = graph.value(value);
    const GraphOp &producer = graph.op(graphValue.producer);
    const Tags &tags = producer.tags;
    if (producer.isRandom || tags.neverRecompute || tags.noAutoRecompute ||
        tags.mustRecompute || tags.preferRecompute || tags.preferSave ||
        producer.computeClass == ComputeClass::Matmul ||
        graphValue.outputRole != OutputRole::None)
      continue;
    const std::string &name = nameOf(value);
    if (!name.empty() &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  ASSERT_GE(names.size(), 6u);
  std::vector<std::vector<std::string>> groups;
  for (size_t i = 0; i + 1 < names.size(); i += 2)
    groups.push_back({names[i], names[i + 1]});
  auto groupedOptions = [&](int64_t budget) {
    PlanOptions options = decisionOptions(budget);
    options.decisionGroups = groups;
    return options;
  };
  auto decisionOfName = [&](const Plan &plan, const std::string &name) {
    for (const ValueDecision &decision : plan.decisions) {
      if (nameOf(decision.value) == name)
        return decision.decision;
    }
    return Decision::NotNeeded;
  };
  const int64_t high = noRecomputePeak(graph);
  PlanOptions lowestOptions = groupedOptions(0);
  lowestOptions.budget = *parseMemoryBudget("0.0");
  const int64_t low =
      test::planOrDie(graph, lowestOptions).simulation.peakBytes;
  ASSERT_LT(low, high);
  int planned = 0;
  for (int i = 0; i <= 8; ++i) {
    const int64_t budget = low + (high - low) * i / 8;
    absl::StatusOr<Plan> plan =
        planRematerialization(graph, groupedOptions(budget));
    if (!plan.ok()) {
      EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted)
          << plan.status();
      continue;
    }
    ++planned;
    expectValidPlan(graph, *plan);
    for (const std::vector<std::string> &group : groups) {
      bool saved = false, again = false;
      for (const std::string &name : group) {
        Decision decision = decisionOfName(*plan, name);
        saved |= decision == Decision::Save;
        again |= decision == Decision::Recompute ||
                 decision == Decision::Derive;
      }
      EXPECT_FALSE(saved && again)
          << "budget " << budget << ": group " << group[0] << ","
          << group[1] << " is split";
    }
  }
  EXPECT_EQ(planned, 9);

  // A name no forward value has, and groups with another strategy, are
  // errors that say what to change.
  PlanOptions unknown = groupedOptions(high);
  unknown.decisionGroups.push_back({"no_such_value"});
  absl::StatusOr<Plan> refused = planRematerialization(graph, unknown);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("'no_such_value'"),
            std::string::npos)
      << refused.status();
  PlanOptions minCut = test::optionsFor(Strategy::MinCut);
  minCut.decisionGroups = groups;
  refused = planRematerialization(graph, minCut);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("schedule-plans=false"),
            std::string::npos)
      << refused.status();
}

TEST(BudgetSearch, ParseDecisionGroups) {
  absl::StatusOr<std::vector<std::vector<std::string>>> groups =
      parseDecisionGroups(" q, q.1 ;k ");
  ASSERT_TRUE(groups.ok()) << groups.status();
  EXPECT_EQ(*groups, (std::vector<std::vector<std::string>>{{"q", "q.1"},
                                                            {"k"}}));
  EXPECT_TRUE(parseDecisionGroups("")->empty());
  EXPECT_FALSE(parseDecisionGroups("a,,b").ok());
  EXPECT_FALSE(parseDecisionGroups("a;").ok());
  absl::StatusOr<std::vector<std::vector<std::string>>> twice =
      parseDecisionGroups("a,b;a");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("lists 'a' twice"),
            std::string::npos)
      << twice.status();
}

//===----------------------------------------------------------------------===//
// Properties of every budget plan on random graphs, with and without a
// backward phase: the simulator, run again on the plan's schedule, finds
// its peak within the budget, and the lower bound never exceeds the plan's
// time. The forward-only graphs are random layered DAGs like Checkmate's
// random_layered_n* (unread values are outputs), on which every
// recomputation happens inside forward.
//===----------------------------------------------------------------------===//

/// A random DAG of `numOps` ops with no backward phase: each op reads one
/// to three of the last `window` values (or the input) and produces a
/// tensor of random size; values no op reads are outputs.
Graph buildRandomForwardGraph(uint64_t seed, int numOps, int window) {
  std::mt19937_64 random(seed);
  test::GraphBuilder builder(DType::F32);
  std::vector<ValueId> values = {builder.input("x", {64})};
  std::vector<uint8_t> read(1, 0);
  for (int i = 0; i < numOps; ++i) {
    const int available = static_cast<int>(values.size());
    const int lowest = std::max(0, available - window);
    const int numOperands =
        std::min<int>(available, 1 + static_cast<int>(random() % 3));
    std::vector<ValueId> operands;
    while (static_cast<int>(operands.size()) < numOperands) {
      int index = lowest + static_cast<int>(random() % (available - lowest));
      if (std::find(operands.begin(), operands.end(), values[index]) !=
          operands.end())
        continue;
      operands.push_back(values[index]);
      read[index] = 1;
    }
    int64_t elements = 16 * (1 + static_cast<int64_t>(random() % 16));
    values.push_back(builder.op("f" + std::to_string(i), "add",
                                ComputeClass::Pointwise, operands,
                                builder.type({elements})));
    read.push_back(0);
  }
  for (size_t index = 1; index < values.size(); ++index)
    if (!read[index])
      builder.graph().markOutput(values[index], OutputRole::Output);
  return builder.take();
}

// Checkmate's random layered n250 at 0.7 of its topological peak (135,910
// bytes), the tightest budget FastSA publishes for it (2.6%): the order
// search, the descents and the polish reach 4.51% total-duration
// increase; the schedule annealing, which moves evaluations and adds and
// drops recomputations in one search, takes it to 3.71% (docs/Planner.md;
// 4.06% when each of its moves was evaluated in full, so that it could try
// a tenth as many). The plan is valid, the same on a second run, and faster
// than before the annealing.
TEST(BudgetSearch, AnnealingLowersRandomLayeredN250AtSeventyPercent) {
  absl::StatusOr<Graph> graph =
      test::readCheckmateGraph("random_layered_n250.json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  const int64_t budget = static_cast<int64_t>(std::ceil(0.7 * 135910));
  absl::StatusOr<Plan> plan =
      planRematerialization(*graph, budgetOptions(budget));
  ASSERT_TRUE(plan.ok()) << plan.status();
  expectValidPlan(*graph, *plan);
  const double baseTimeUs = 125569; // the README's total cost
  EXPECT_LT(plan->simulation.recomputeTimeUs / baseTimeUs, 0.04);
  absl::StatusOr<Plan> again =
      planRematerialization(*graph, budgetOptions(budget));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->schedule.steps, plan->schedule.steps);
}

TEST(BudgetSearch, EveryPlanMeetsItsBudgetAndBoundOnRandomGraphs) {
  std::vector<std::pair<std::string, Graph>> graphs;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    graphs.emplace_back("forward-" + std::to_string(seed),
                        buildRandomForwardGraph(seed, 40 + 20 * seed, 12));
    test::RandomGraphOptions options;
    options.numForwardOps = 16 + 8 * static_cast<int>(seed);
    graphs.emplace_back("joint-" + std::to_string(seed),
                        test::buildRandomJointGraph(100 + seed, options));
  }
  int feasible = 0, belowSaveAll = 0;
  for (const auto &[name, graph] : graphs) {
    const int64_t peak = noRecomputePeak(graph);
    for (double fraction : {0.95, 0.85, 0.75, 0.65, 0.55}) {
      SCOPED_TRACE(testing::Message() << name << " at " << fraction);
      const int64_t budget = static_cast<int64_t>(
          std::ceil(fraction * static_cast<double>(peak)));
      absl::StatusOr<Plan> plan =
          planRematerialization(graph, budgetOptions(budget));
      if (!plan.ok()) {
        EXPECT_EQ(plan.status().code(), absl::StatusCode::kResourceExhausted)
            << plan.status();
        continue;
      }
      ++feasible;
      belowSaveAll += plan->simulation.recomputeTimeUs > 0;
      expectValidPlan(graph, *plan);
      ASSERT_TRUE(plan->lowerBound.has_value());
      EXPECT_LE(plan->lowerBound->timeUs,
                plan->simulation.totalTimeUs * (1 + 1e-9));
    }
  }
  // The property is not vacuous: points are met by recomputing (19 of the
  // 60, all with recomputation, when this was written; the joint graphs'
  // tags and bans make most of their points infeasible).
  EXPECT_GE(feasible, 12);
  EXPECT_GE(belowSaveAll, 12);
}

// A forward graph over 20,000 ops plus operands, too large for exactly
// scored descents: their estimated descents take several splits per step and
// prune drops independent re-evaluations together (BudgetPlanner.cpp,
// kLargeGraphSplitsPerStep). Every plan they give must still be valid,
// within its budget (by the simulator, not the search's accounting), and the
// same on a second run.
TEST(BudgetSearch, LargeGraphPlansAreValidAndDeterministic) {
  // A chain with random skip connections (each op reads its predecessor
  // and, half the time, a value up to 256 ops back), one function result.
  std::mt19937_64 random(7);
  test::GraphBuilder builder(DType::F32);
  std::vector<ValueId> values = {builder.input("x", {64})};
  for (int i = 0; i < 9000; ++i) {
    std::vector<ValueId> operands = {values.back()};
    if (values.size() > 2 && random() % 2 == 0) {
      const size_t back =
          2 + random() % std::min<size_t>(255, values.size() - 2);
      operands.push_back(values[values.size() - back]);
    }
    const int64_t elements = 16 * (1 + static_cast<int64_t>(random() % 16));
    values.push_back(builder.op("f" + std::to_string(i), "add",
                                ComputeClass::Pointwise, operands,
                                builder.type({elements})));
  }
  builder.graph().markOutput(values.back(), OutputRole::Output);
  Graph graph = builder.take();
  ASSERT_GT(opsPlusOperands(graph), 20000u); // the large-graph paths
  const int64_t peak = noRecomputePeak(graph);
  PlanOptions options =
      budgetOptions(static_cast<int64_t>(0.8 * static_cast<double>(peak)));
  options.budgetSearchEffort = 0.25; // a quarter of the work: faster
  absl::StatusOr<Plan> plan = planRematerialization(graph, options);
  ASSERT_TRUE(plan.ok()) << plan.status();
  expectValidPlan(graph, *plan);
  EXPECT_GT(plan->simulation.numRecomputedEvaluations, 0);
  absl::StatusOr<Plan> again = planRematerialization(graph, options);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->schedule.steps, plan->schedule.steps);
}

// The same paths on a layered graph like the random layered graphs of the
// literature (150 layers of 30 ops, each reading 4 of the previous layer's
// values), whose values have several readers each, so splits share values
// (fewer are taken together) and prune's drops overlap. No backward phase:
// the order search and the annealing run too. At two budgets (0.8 is below
// the lowest peak this effort finds), each plan is
// re-simulated and planned again.
TEST(BudgetSearch, LayeredLargeGraphPlansAreValidAndDeterministic) {
  std::mt19937_64 random(11);
  test::GraphBuilder builder(DType::F32);
  std::vector<ValueId> layer = {builder.input("x", {64})};
  for (int depth = 0; depth < 150; ++depth) {
    std::vector<ValueId> next;
    for (int i = 0; i < 30; ++i) {
      std::vector<ValueId> operands = layer;
      std::shuffle(operands.begin(), operands.end(), random);
      operands.resize(std::min<size_t>(4, operands.size()));
      const int64_t elements = 16 * (1 + static_cast<int64_t>(random() % 16));
      next.push_back(builder.op(
          "n" + std::to_string(depth) + "_" + std::to_string(i), "add",
          ComputeClass::Pointwise, operands, builder.type({elements})));
    }
    layer = std::move(next);
  }
  builder.graph().markOutput(builder.op("sink", "add", ComputeClass::Pointwise,
                                        layer, builder.type({16})),
                             OutputRole::Output);
  Graph graph = builder.take();
  ASSERT_GT(opsPlusOperands(graph), 20000u); // the large-graph paths
  const int64_t peak = noRecomputePeak(graph);
  for (double fraction : {0.95, 0.9}) {
    PlanOptions options = budgetOptions(
        static_cast<int64_t>(fraction * static_cast<double>(peak)));
    options.budgetSearchEffort = 0.25;
    absl::StatusOr<Plan> plan = planRematerialization(graph, options);
    ASSERT_TRUE(plan.ok()) << "at " << fraction << ": " << plan.status();
    expectValidPlan(graph, *plan);
    EXPECT_GT(plan->simulation.numRecomputedEvaluations, 0) << fraction;
    absl::StatusOr<Plan> again = planRematerialization(graph, options);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(again->schedule.steps, plan->schedule.steps) << fraction;
  }
}

} // namespace
} // namespace remat

