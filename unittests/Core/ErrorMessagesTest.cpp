//===- ErrorMessagesTest.cpp - Every user-facing core error, verbatim -----===//
//
// Part of remat. The planning core's errors are its user interface: the
// passes print them as they are. Each test here triggers one error and
// compares the whole message and the status code, so a change to a message
// is a deliberate edit of this catalogue (docs/Reliability.md). The IR-level
// errors of the passes and tools are in test/Errors/.
//
//===----------------------------------------------------------------------===//

#include "PlannerTestUtil.h"
#include "TestGraphs.h"

#include "remat/Core/CostModel.h"
#include "remat/Core/Planner.h"

#include "gtest/gtest.h"

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace remat {
namespace {

void expectError(const absl::Status &status, absl::StatusCode code,
                 const std::string &message) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_EQ(std::string(status.message()), message);
}

constexpr absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;

//===----------------------------------------------------------------------===//
// Options: strategy, budget, policy, target
//===----------------------------------------------------------------------===//

TEST(ErrorMessages, UnknownStrategy) {
  expectError(parseStrategy("fastest").status(), kInvalid,
              "unknown strategy 'fastest'; valid strategies: save-all, "
              "recompute-all, min-cut, budget, optimal");
}

constexpr const char *kBudgetHelp =
    "; write bytes, which bound the total peak (\"8GiB\", \"total:8GiB\"), "
    "\"activations:\" and bytes for the activation peak alone "
    "(\"activations:512MiB\"), a fraction of the activation peak between "
    "recompute-all and save-all (\"0.5\"), or of the save-all activation peak "
    "(\"0.8peak\")";

TEST(ErrorMessages, MemoryBudget) {
  expectError(parseMemoryBudget("  ").status(), kInvalid,
              std::string("memory budget '': empty") + kBudgetHelp);
  expectError(parseMemoryBudget("lots").status(), kInvalid,
              std::string("memory budget 'lots': not a non-negative integer "
                          "number of bytes") +
                  kBudgetHelp);
  expectError(parseMemoryBudget("-5").status(), kInvalid,
              std::string("memory budget '-5': not a non-negative integer "
                          "number of bytes") +
                  kBudgetHelp);
  expectError(parseMemoryBudget("1.5").status(), kInvalid,
              std::string("memory budget '1.5': a fraction must lie in [0, 1] "
                          "(for bytes write an integer or add a unit)") +
                  kBudgetHelp);
  expectError(parseMemoryBudget("0.5e").status(), kInvalid,
              std::string("memory budget '0.5e': not a number") + kBudgetHelp);
  expectError(parseMemoryBudget("-2GiB").status(), kInvalid,
              std::string("memory budget '-2GiB': '-2' is not a non-negative "
                          "number") +
                  kBudgetHelp);
  // A unit spelled otherwise ends in "B" too: the error names the units
  // (it called "5KI" not a number before 2026-12-07).
  for (std::string unknown : {"5KIB", "5PiB"})
    expectError(parseMemoryBudget(unknown).status(), kInvalid,
                "memory budget '" + unknown +
                    "': unknown unit; the units are KiB, MiB, GiB, TiB "
                    "(powers of 1024), KB, MB, GB, TB (powers of 1000) and "
                    "B, spelled so" +
                    kBudgetHelp);
  expectError(parseMemoryBudget("9000000TiB").status(), kInvalid,
              std::string("memory budget '9000000TiB': too large") +
                  kBudgetHelp);
  // One past INT64_MAX bytes does not parse as an int64: too large, not
  // "not an integer" (before 2026-12-07).
  expectError(parseMemoryBudget("9223372036854775808").status(), kInvalid,
              std::string("memory budget '9223372036854775808': too large") +
                  kBudgetHelp);
  expectError(parseMemoryBudget("0peak").status(), kInvalid,
              std::string("memory budget '0peak': the fraction before 'peak' "
                          "must be a positive number") +
                  kBudgetHelp);
}

TEST(ErrorMessages, NamePolicy) {
  expectError(parseNamePolicy("save_most").status(), kInvalid,
              "unknown checkpoint policy 'save_most'; valid policies: "
              "save_only_these_names, save_any_names_but_these, "
              "dots_saveable, nothing_saveable, everything_saveable (the "
              "first two take names: save_only_these_names:a,b)");
  expectError(parseNamePolicy("dots_saveable:q").status(), kInvalid,
              "checkpoint policy 'dots_saveable' takes no names; drop ':q'");
  expectError(parseNamePolicy("save_only_these_names").status(), kInvalid,
              "checkpoint policy 'save_only_these_names' needs names: write "
              "'save_only_these_names:name1,name2'");
  expectError(parseNamePolicy("save_only_these_names:q,,k").status(), kInvalid,
              "checkpoint policy 'save_only_these_names:q,,k' has an empty "
              "name; separate names with single commas");
  expectError(parseNamePolicy("save_any_names_but_these:q,q").status(),
              kInvalid,
              "checkpoint policy 'save_any_names_but_these:q,q' lists 'q' "
              "twice");
}

TEST(ErrorMessages, Target) {
  expectError(getTargetPreset("tpu").status(), kInvalid,
              "unknown target 'tpu'; valid targets: h100, h200, a100, mi300x, "
              "cpu (or a JSON file, see docs/Planner.md)");
  expectError(parseTargetJson(R"({"base": "h100", "bandwith": 1})").status(),
              kInvalid,
              "target JSON, line 1, column 18: unknown field \"bandwith\"; "
              "valid fields: name, base, matmul_flops_f64, matmul_flops_f32, "
              "matmul_flops_16, matmul_flops_i8, vector_flops_f64, "
              "vector_flops_f32, vector_flops_16, memory_bandwidth, "
              "launch_overhead_us, exchange_rate, fuses, "
              "allocation_granularity");
  expectError(parseTargetJson(R"({"base": "tpu"})").status(), kInvalid,
              "target JSON, line 1, column 2: unknown base \"tpu\"; valid "
              "bases: h100, h200, a100, mi300x, cpu");
  expectError(
      parseTargetJson(R"({"base": "h100", "launch_overhead_us": -1})").status(),
      kInvalid,
      "target JSON, line 1, column 18: field \"launch_overhead_us\" is -1; it "
      "must be non-negative");
  expectError(parseTargetJson(R"({"base": "h100", "base": "a100"})").status(),
              kInvalid,
              "target JSON, line 1, column 18: field \"base\" is given twice");
}

//===----------------------------------------------------------------------===//
// Graphs and plans
//===----------------------------------------------------------------------===//

/// x -> a = tanh(x) -> backward reads a and the tangent.
Graph smallJointGraph(Tags tags,
                      ComputeClass computeClass = ComputeClass::Pointwise) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId a =
      builder.op("act", "tanh", computeClass, {x}, builder.type({4}), "a");
  builder.producer(a).tags = tags;
  builder.graph().markOutput(a, OutputRole::Output);
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId dx = builder.op("act_bwd", "tanh_bwd", ComputeClass::Pointwise,
                          {dy, a}, builder.type({4}));
  builder.graph().markOutput(dx, OutputRole::Gradient);
  return builder.take();
}

TEST(ErrorMessages, OperandOutOfRange) {
  Graph graph;
  graph.addInput("x", TensorType{{4}, DType::F32}, InputRole::Input);
  GraphOp op;
  op.name = "bad";
  op.kind = "tanh";
  op.operands = {3};
  expectError(graph.addOp(op, {TensorType{{4}, DType::F32}}).status(), kInvalid,
              "op 0 'bad' (tanh): operand 0 refers to value 3, but only "
              "values 0..0 exist; add an operand's producer (or graph input) "
              "before the op that reads it");
}

// The planner checks a graph while copying it into flat arrays instead of
// calling Graph::validate first; on any failure it must return exactly the
// error Graph::validate gives, and accept what validate accepts.
TEST(ErrorMessages, PlannerReportsValidateErrors) {
  auto buildChain = [] {
    test::GraphBuilder builder;
    ValueId x = builder.input("x", {4});
    ValueId a = builder.op("a", "neg", ComputeClass::Pointwise, {x},
                           builder.type({4}));
    ValueId b = builder.op("b", "neg", ComputeClass::Pointwise, {a},
                           builder.type({4}));
    builder.op("c", "add", ComputeClass::Pointwise, {a, b},
               builder.type({4}));
    return builder.take();
  };
  std::vector<std::pair<std::string, Graph>> broken;
  {
    Graph graph = buildChain();
    graph.mutableOp(0).operands = {2}; // reads op 1's result: not topological
    broken.emplace_back("not topological", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).operands = {-1};
    broken.emplace_back("negative operand", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).operands = {9};
    broken.emplace_back("operand out of range", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).results = {1}; // value 1 names op 0 as producer
    broken.emplace_back("result of another op", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(2).results = {3, 3};
    broken.emplace_back("result listed twice", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(2).results.clear(); // value 3 is listed by no op
    broken.emplace_back("unlisted value", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).results = {7};
    broken.emplace_back("result out of range", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(2).inverseRules = {
        InverseRule{0, InverseKind::SubtractOther, {2}, true}};
    broken.emplace_back("rule reads a missing operand", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).inverseRules = {
        InverseRule{1, InverseKind::Negate, {}, true}};
    broken.emplace_back("rule recovers a missing operand", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(2).results.clear();
    graph.mutableOp(2).inverseRules = {
        InverseRule{0, InverseKind::SubtractOther, {1}, true}};
    broken.emplace_back("rule without a result", std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.markOutput(11, OutputRole::Output);
    broken.emplace_back("bad output mark", std::move(graph));
  }
  // Costs the MLIR verifier refuses, set through the API: each made a plan
  // (NaN totals, a replay that looked free) before.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double flops : {nan, inf, -1.0}) {
    Graph graph = buildChain();
    graph.mutableOp(1).flops = flops;
    broken.emplace_back("flops " + std::to_string(flops), std::move(graph));
  }
  for (double time : {nan, inf, -100.0}) {
    Graph graph = buildChain();
    graph.mutableOp(1).fixedTimeUs = time;
    broken.emplace_back("time " + std::to_string(time), std::move(graph));
  }
  {
    Graph graph = buildChain();
    graph.mutableOp(1).bytesRead = -1000000000;
    broken.emplace_back("negative bytes read", std::move(graph));
  }
  {
    test::GraphBuilder builder;
    ValueId x = builder.input("x", {-1, 64});
    builder.op("a", "neg", ComputeClass::Pointwise, {x},
               builder.type({-1, 64}));
    broken.emplace_back("dynamic size", builder.take());
  }
  for (const auto &[what, graph] : broken) {
    absl::Status expected = graph.validate();
    ASSERT_FALSE(expected.ok()) << what;
    for (Strategy strategy : {Strategy::SaveAll, Strategy::MinCut}) {
      PlanOptions options;
      options.strategy = strategy;
      absl::StatusOr<Plan> plan = planRematerialization(graph, options);
      ASSERT_FALSE(plan.ok()) << what;
      EXPECT_EQ(plan.status(), expected) << what;
    }
  }
  Graph valid = buildChain();
  ASSERT_TRUE(valid.validate().ok());
  EXPECT_TRUE(planRematerialization(valid, PlanOptions()).ok());
}

TEST(ErrorMessages, GraphCostsAndShapes) {
  test::GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId a =
      builder.op("a", "neg", ComputeClass::Pointwise, {x}, builder.type({4}));
  builder.producer(a).flops = std::numeric_limits<double>::quiet_NaN();
  expectError(builder.graph().validate(), kInvalid,
              "op 0 'a' (neg) has nan FLOPs; an op's FLOPs are a finite "
              "number, 0 or more");
  builder.producer(a).flops = 0;
  builder.producer(a).fixedTimeUs = -2;
  expectError(builder.graph().validate(), kInvalid,
              "op 0 'a' (neg) has a fixed time of -2 us; a measured time is a "
              "finite number, 0 or more");
  test::GraphBuilder dynamic;
  dynamic.input("tokens", {-1, 64});
  expectError(dynamic.graph().validate(), kInvalid,
              "value 0 'tokens' has size -1 in dimension 0; shapes are static "
              "and each size is 0 or more (a dynamic size must be bounded "
              "first)");
}

// Options set field by field through the C++ API get the checks the
// parsers make (an out-of-range strategy crashed, a huge "Npeak" budget
// overflowed into a negative one, a zero target made every time 0).
TEST(ErrorMessages, OptionsSetThroughTheApi) {
  const Graph graph = smallJointGraph({});
  auto planWith = [&](const std::function<void(PlanOptions &)> &set) {
    PlanOptions options = test::optionsFor(Strategy::Budget);
    options.budget = *parseMemoryBudget("0.5");
    set(options);
    return planRematerialization(graph, options).status();
  };
  expectError(
      planWith([](PlanOptions &o) { o.strategy = static_cast<Strategy>(42); }),
      kInvalid,
      "strategy 42 is not a Strategy; valid strategies: save-all, "
      "recompute-all, min-cut, budget, optimal");
  const char *help = " (parseMemoryBudget gives a valid one)";
  expectError(planWith([](PlanOptions &o) { o.budget->fraction = 1.5; }),
              kInvalid,
              std::string("memory budget: fraction 1.5 does not lie in "
                          "[0, 1]") +
                  help);
  expectError(planWith([](PlanOptions &o) {
                o.budget->fraction = std::numeric_limits<double>::quiet_NaN();
              }),
              kInvalid,
              std::string("memory budget: fraction nan does not lie in "
                          "[0, 1]") +
                  help);
  expectError(planWith([](PlanOptions &o) {
                o.budget =
                    MemoryBudget{MemoryBudget::Kind::Bytes,
                                 std::numeric_limits<int64_t>::min(), 0, true};
              }),
              kInvalid,
              std::string("memory budget: -9223372036854775808 bytes is "
                          "negative") +
                  help);
  expectError(planWith([](PlanOptions &o) {
                o.budget->kind = static_cast<MemoryBudget::Kind>(9);
              }),
              kInvalid,
              std::string("memory budget: kind 9 is not a "
                          "MemoryBudget::Kind") +
                  help);
  expectError(planWith([](PlanOptions &o) { o.target = TargetSpec(); }),
              kInvalid,
              "target '': matmul_flops_f64 is 0; it must be a finite positive "
              "number");
  expectError(
      planWith([](PlanOptions &o) { o.target.launchOverheadUs = -100; }),
      kInvalid,
      "target 'h100': launch_overhead_us is -100; it must be a finite "
      "non-negative number");
  expectError(
      planWith([](PlanOptions &o) { o.target.allocationGranularityBytes = 0; }),
      kInvalid,
      "target 'h100': allocation granularity is 0 bytes; it must be "
      "from 1 (no rounding) to 1073741824");
  expectError(planWith([](PlanOptions &o) {
                o.strategy = Strategy::Optimal;
                o.optimalTimeLimitSeconds = -1;
              }),
              kInvalid,
              "optimal time limit -1 s is not a positive finite number of "
              "seconds");
  // Only `optimal` reads its limit: another strategy plans whatever it is
  // (remat-bench-quality leaves it 0).
  EXPECT_TRUE(
      planWith([](PlanOptions &o) { o.optimalTimeLimitSeconds = 0; }).ok());
  expectError(planWith([](PlanOptions &o) {
                o.schedulePlans = false;
                o.decisionGroups = {{}};
              }),
              kInvalid,
              "decision-groups: group 0 is empty; a group names at least one "
              "value");
  expectError(planWith([](PlanOptions &o) {
                o.schedulePlans = false;
                o.decisionGroups = {{"a"}, {"a"}};
              }),
              kInvalid,
              "decision-groups lists 'a' twice: a value belongs to one group "
              "at most");
  // Any positive fraction of the peak parses; one past INT64_MAX bytes is
  // no bound at all (it plans), not a negative budget.
  PlanOptions huge = test::optionsFor(Strategy::Budget);
  huge.budget = *parseMemoryBudget("1e18peak"); // 32 B x 1e18
  absl::StatusOr<Plan> plan = planRematerialization(graph, huge);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->budgetBytes, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(parseStrategy(" min-cut ").ok());
}

TEST(ErrorMessages, ContradictoryTags) {
  Tags tags;
  tags.neverRecompute = true;
  tags.mustRecompute = true;
  expectError(planRematerialization(smallJointGraph(tags),
                                    test::optionsFor(Strategy::MinCut))
                  .status(),
              kInvalid,
              "op pointwise act is tagged both never_recompute and "
              "must_recompute; remove one of the two tags");
}

TEST(ErrorMessages, MustRecomputeRandomWithoutRngState) {
  Tags tags;
  tags.mustRecompute = true;
  expectError(planRematerialization(smallJointGraph(tags, ComputeClass::Random),
                                    test::optionsFor(Strategy::MinCut))
                  .status(),
              kInvalid,
              "op random act is tagged must_recompute, but it is a random op "
              "whose RNG state is not a graph input, so a recomputation would "
              "draw different numbers; pass its seed/offset as a graph input "
              "with role rng, or drop the tag");
}

TEST(ErrorMessages, PolicyNamesUnknownValue) {
  PlanOptions options = test::optionsFor(Strategy::MinCut);
  options.policy = *parseNamePolicy("save_only_these_names:query");
  expectError(planRematerialization(smallJointGraph({}), options).status(),
              kInvalid,
              "checkpoint policy save_only_these_names:query names 'query', "
              "but no forward value has that name; forward names: a");
}

TEST(ErrorMessages, BudgetStrategyWithoutBudget) {
  expectError(planRematerialization(smallJointGraph({}),
                                    test::optionsFor(Strategy::Budget))
                  .status(),
              kInvalid,
              "strategy budget needs a memory budget: give bytes (\"2GiB\"), "
              "a fraction between recompute-all and save-all (\"0.5\"), or a "
              "fraction of the save-all peak (\"0.8peak\")");
  expectError(planRematerialization(smallJointGraph({}),
                                    test::optionsFor(Strategy::Optimal))
                  .status(),
              kInvalid,
              "strategy optimal needs a memory budget (bytes, \"0.5\" or "
              "\"0.8peak\")");
}

TEST(ErrorMessages, InfeasibleBudget) {
  PlanOptions options = test::optionsFor(Strategy::Budget);
  options.budget = *parseMemoryBudget("activations:0");
  expectError(planRematerialization(smallJointGraph({}), options).status(),
              absl::StatusCode::kResourceExhausted,
              "memory budget 0 B (0 bytes) is infeasible: the smallest "
              "activation peak the budget strategy reaches is 32 B (32 bytes, "
              "proven minimal: an op or the values that must be kept need "
              "that much at once; "
              "save-all needs 32 B); raise the budget to at least 32 bytes, or "
              "allow more recomputation (a checkpoint policy or must_recompute "
              "tags lift the automatic bans)");
}

TEST(ErrorMessages, ForwardOpReadsBackward) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId mixed = builder.op("mix", "add", ComputeClass::Pointwise, {x, dy},
                             builder.type({4}));
  builder.producer(mixed).phase = Phase::Forward;
  builder.graph().markOutput(mixed, OutputRole::Gradient);
  expectError(classify(builder.graph()).status(), kInvalid,
              "op 0 'mix' (add) is marked phase forward but reads value 1 "
              "'dy', which is a tangent; forward cannot depend on backward: "
              "drop the explicit phase or mark the op backward");
}

TEST(ErrorMessages, ForwardOutputComputedInBackward) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {4});
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId scaled = builder.op("scaled", "mul", ComputeClass::Pointwise, {x, dy},
                              builder.type({4}));
  builder.graph().markOutput(scaled, OutputRole::Output);
  expectError(classify(builder.graph()).status(), kInvalid,
              "value 2 is a function result with role output, but "
              "it is computed in backward: op 0 'scaled' (mul) reads value 1 "
              "'dy', which is a tangent. A forward output may not depend on "
              "backward: give the result role grad if it is a gradient, or "
              "compute it from forward values");
}

} // namespace
} // namespace remat
