//===- CostModelTest.cpp - Target presets, JSON overrides, roofline -------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Core/CostModel.h"
#include "remat/Core/Planner.h"
#include "remat/Core/Simulator.h"

#include "gtest/gtest.h"

#include <limits>

namespace remat {
namespace {

void expectErrorContains(const absl::StatusOr<TargetSpec> &result,
                         std::string_view needle) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << needle;
  EXPECT_NE(result.status().message().find(std::string(needle)),
            std::string::npos)
      << result.status();
}

TEST(CostModel, PresetsExistAndAreOrdered) {
  for (std::string_view name : {"h100", "h200", "a100", "mi300x", "cpu"}) {
    absl::StatusOr<TargetSpec> spec = getTargetPreset(name);
    ASSERT_TRUE(spec.ok()) << name;
    EXPECT_EQ(spec->name, name);
    EXPECT_GT(spec->matmulFlops16, 0);
    EXPECT_GT(spec->memoryBandwidthBytesPerSecond, 0);
    EXPECT_GE(spec->matmulFlops16, spec->vectorFlops16) << name;
  }
  TargetSpec h100 = *getTargetPreset("h100");
  TargetSpec h200 = *getTargetPreset("h200");
  TargetSpec a100 = *getTargetPreset("a100");
  EXPECT_DOUBLE_EQ(h100.matmulFlops16, h200.matmulFlops16);
  EXPECT_GT(h200.memoryBandwidthBytesPerSecond,
            h100.memoryBandwidthBytesPerSecond);
  EXPECT_GT(h100.matmulFlops16, a100.matmulFlops16);
  expectErrorContains(getTargetPreset("v100"),
                      "valid targets: h100, h200, a100, mi300x, cpu");
}

TEST(CostModel, JsonOverridesABase) {
  absl::StatusOr<TargetSpec> spec = parseTargetJson(
      R"({"base": "h100", "memory_bandwidth": 1.5e12,
          "launch_overhead_us": 0, "name": "my-gpu"})");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->name, "my-gpu");
  EXPECT_DOUBLE_EQ(spec->memoryBandwidthBytesPerSecond, 1.5e12);
  EXPECT_DOUBLE_EQ(spec->launchOverheadUs, 0);
  EXPECT_DOUBLE_EQ(spec->matmulFlops16, getTargetPreset("h100")->matmulFlops16);
  absl::StatusOr<TargetSpec> unnamed = parseTargetJson(R"({"base":"a100"})");
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ(unnamed->name, "a100-custom");
}

TEST(CostModel, JsonErrorsArePrecise) {
  expectErrorContains(parseTargetJson(R"({"base": "h100", "bandwidth": 1})"),
                      "line 1, column 18: unknown field \"bandwidth\"");
  expectErrorContains(
      parseTargetJson("{\"base\": \"h100\",\n \"memory_bandwidth\": 3.0.1}"),
      "line 2, column 2: field \"memory_bandwidth\" has the value '3.0.1'");
  expectErrorContains(
      parseTargetJson(R"({"base": "h100", "memory_bandwidth": "fast"})"),
      "must be a number");
  expectErrorContains(parseTargetJson(R"({"base": "tpu"})"),
                      "unknown base \"tpu\"; valid bases: h100");
  expectErrorContains(parseTargetJson(R"({"memory_bandwidth": 1e12})"),
                      "is missing; give every numeric field or a \"base\"");
  expectErrorContains(parseTargetJson(R"({"base": "h100",})"),
                      "expected a field name");
  expectErrorContains(parseTargetJson(R"({"base": "h100"} x)"),
                      "unexpected text after");
  expectErrorContains(parseTargetJson(R"({"base": "h100", "base": "a100"})"),
                      "given twice");
  expectErrorContains(
      parseTargetJson(R"({"base": "h100", "memory_bandwidth": 0})"),
      "must be positive");
  expectErrorContains(
      parseTargetJson(R"({"base": "h100", "launch_overhead_us": true})"),
      "not a JSON number or string");
  expectErrorContains(parseTargetJson("[1]"), "expected '{'");
  // The name is one line of the text report.
  expectErrorContains(
      parseTargetJson("{\"base\": \"h100\", \"name\": \"a\\nb\"}"),
      "target name 'a\\nb' holds a control character");
  for (const char *granularity : {"0", "1.5", "-64", "2e9"})
    expectErrorContains(parseTargetJson(absl::StrCat(
                            R"({"base": "h100", )",
                            R"("allocation_granularity": )", granularity, "}")),
                        "must be a whole number of bytes from 1");
}

// Memory counts what the runtime allocates (the tensor's bytes rounded up
// to the target's granularity); op times keep the tensor's own traffic.
TEST(CostModel, AllocationGranularityRoundsMemoryNotTraffic) {
  test::GraphBuilder builder(DType::F32);
  ValueId x = builder.input("x", {3});
  ValueId y = builder.op("y", "sigmoid", ComputeClass::Pointwise, {x},
                         builder.type({3}));
  ValueId z = builder.op("z", "sigmoid", ComputeClass::Pointwise, {y},
                         builder.type({16}));
  Graph graph = builder.take();
  absl::StatusOr<TargetSpec> pytorch =
      parseTargetJson(R"({"base": "h100", "allocation_granularity": 512})");
  ASSERT_TRUE(pytorch.ok()) << pytorch.status();
  absl::StatusOr<TargetSpec> cpuLowering =
      parseTargetJson(R"({"base": "cpu", "allocation_granularity": 64})");
  ASSERT_TRUE(cpuLowering.ok()) << cpuLowering.status();
  for (std::string_view name : {"h100", "h200", "a100", "mi300x", "cpu"})
    EXPECT_EQ(getTargetPreset(name)->allocationGranularityBytes, 1);
  struct Case {
    TargetSpec target;
    int64_t yBytes, zBytes;
  };
  for (const Case &c : {Case{*getTargetPreset("h100"), 12, 64},
                        Case{*cpuLowering, 64, 64}, Case{*pytorch, 512, 512}}) {
    SCOPED_TRACE(c.target.name);
    CostModel model(c.target);
    EXPECT_EQ(model.allocatedBytes(0), 0);
    const int64_t saturated = std::numeric_limits<int64_t>::max();
    EXPECT_EQ(model.allocatedBytes(saturated), saturated);
    SimulationTables tables = buildSimulationTables(graph, model);
    EXPECT_EQ(tables.valueBytes[x], model.allocatedBytes(12));
    EXPECT_EQ(tables.valueBytes[y], c.yBytes);
    EXPECT_EQ(tables.valueBytes[z], c.zBytes);
    // y's op moves 24 bytes whatever the allocator rounds them to.
    CostModel unrounded(*getTargetPreset("h100"));
    TargetSpec sameSpeed = *getTargetPreset("h100");
    sameSpeed.allocationGranularityBytes = c.target.allocationGranularityBytes;
    EXPECT_EQ(buildSimulationTables(graph, CostModel(sameSpeed)).opTimeUs,
              buildSimulationTables(graph, unrounded).opTimeUs);
  }
}

TEST(CostModel, RooflinePicksTheBindingLimit) {
  test::GraphBuilder builder(DType::BF16);
  ValueId x = builder.input("x", {4096, 4096});
  ValueId w = builder.input("w", {4096, 4096}, InputRole::Parameter);
  ValueId mm = builder.op("mm", "matmul", ComputeClass::Matmul, {x, w},
                          builder.type({4096, 4096}));
  builder.producer(mm).flops = 2.0 * 4096 * 4096 * 4096;
  ValueId relu = builder.op("relu", "relu", ComputeClass::Pointwise, {mm},
                            builder.type({4096, 4096}));
  ValueId view = builder.op("view", "reshape", ComputeClass::View, {relu},
                            builder.type({4096 * 4096}));
  ValueId fixed = builder.op("fixed", "custom", ComputeClass::Other, {view},
                             builder.type({1}));
  builder.producer(fixed).fixedTimeUs = 42;
  Graph graph = builder.take();
  TargetSpec spec = *getTargetPreset("h100");
  CostModel model(spec);
  // The matmul is compute bound: 137 GFLOP at 989.4 TFLOP/s.
  double matmulUs = 2.0 * 4096 * 4096 * 4096 / spec.matmulFlops16 * 1e6;
  EXPECT_NEAR(model.predictTimeUs(graph, 0), matmulUs + spec.launchOverheadUs,
              1e-6);
  // The relu is bandwidth bound: it reads and writes 32 MiB (no byte counts
  // on the op, so its operand and result sizes are used).
  double reluBytes = 2.0 * 4096 * 4096 * 2;
  EXPECT_NEAR(model.predictTimeUs(graph, 1),
              reluBytes / spec.memoryBandwidthBytesPerSecond * 1e6 +
                  spec.launchOverheadUs,
              1e-6);
  EXPECT_EQ(model.predictTimeUs(graph, 2), 0); // a view launches nothing
  EXPECT_EQ(model.predictTimeUs(graph, 3), 42);
  // Explicit byte counts replace the estimate.
  graph.mutableOp(1).bytesRead = 1000;
  graph.mutableOp(1).bytesWritten = 0;
  graph.mutableOp(1).flops = 0;
  EXPECT_NEAR(model.predictTimeUs(graph, 1),
              1000 / spec.memoryBandwidthBytesPerSecond * 1e6 +
                  spec.launchOverheadUs,
              1e-9);
  EXPECT_EQ(model.peakFlops(ComputeClass::Matmul, DType::F32),
            spec.matmulFlopsF32);
  EXPECT_EQ(model.peakFlops(ComputeClass::Pointwise, DType::F64),
            spec.vectorFlopsF64);
}

// The planner (whose tables come from the flat graph) counts the same
// rounded bytes as buildSimulationTables: on Checkmate's linear graph of
// one-byte values, every peak at a 64-byte granularity is 64 times the
// unrounded one.
TEST(CostModel, PlansCountAllocatedBytes) {
  Graph graph = test::buildCheckmateLinearGraph(8);
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok()) << phases.status();
  for (Strategy strategy : {Strategy::SaveAll, Strategy::RecomputeAll}) {
    PlanOptions options;
    options.strategy = strategy;
    absl::StatusOr<Plan> bytes = planRematerialization(graph, options);
    options.target.allocationGranularityBytes = 64;
    absl::StatusOr<Plan> allocated = planRematerialization(graph, options);
    ASSERT_TRUE(bytes.ok() && allocated.ok());
    EXPECT_GT(bytes->simulation.peakBytes, 0);
    EXPECT_EQ(allocated->simulation.peakBytes,
              64 * bytes->simulation.peakBytes);
    absl::StatusOr<SimulationResult> resimulated =
        simulate(graph, *phases, allocated->schedule,
                 buildSimulationTables(graph, CostModel(options.target)));
    ASSERT_TRUE(resimulated.ok()) << resimulated.status();
    EXPECT_EQ(resimulated->peakBytes, allocated->simulation.peakBytes);
  }
}

} // namespace
} // namespace remat
