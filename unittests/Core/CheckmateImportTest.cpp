//===- CheckmateImportTest.cpp - Checkmate JSON import ----------*- C++ -*-===//
//
// Part of remat. Both schemas of the published benchmark graphs, the
// accounting the literature reports for them, and the import errors.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/CheckmateImport.h"
#include "remat/Core/Simulator.h"

#include "TestGraphs.h"

#include "gtest/gtest.h"

#include <string>

namespace remat {
namespace {

bool contains(const absl::Status &status, const std::string &text) {
  return std::string(status.message()).find(text) != std::string::npos;
}

TEST(CheckmateImportTest, ModelSchema) {
  absl::StatusOr<Graph> graph = importCheckmateJson(R"json({
    "directed": true, "multigraph": true, "graph": {},
    "nodes": [
      {"name": "conv", "backward": false, "cost_cpu": 5, "cost_ram": 64, "id": 0},
      {"name": "loss", "backward": false, "cost_cpu": 1, "cost_ram": 4, "id": 1},
      {"name": "conv_backward", "backward": true, "cost_cpu": 7, "cost_ram": 16, "id": 2}
    ],
    "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2},
              {"source": 0, "target": 2}, {"source": 0, "target": 2}]
  })json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->numOps(), 3u);
  EXPECT_TRUE(graph->validate().ok()) << graph->validate();
  const GraphOp &backward = graph->op(2);
  EXPECT_EQ(backward.name, "conv_backward");
  EXPECT_EQ(backward.phase, Phase::Backward);
  EXPECT_EQ(graph->op(0).phase, Phase::Forward);
  EXPECT_EQ(backward.fixedTimeUs, 7);
  // The duplicate link is one read.
  ASSERT_EQ(backward.operands.size(), 2u);
  EXPECT_EQ(graph->value(backward.operands[0]).producer, 0);
  EXPECT_EQ(graph->value(backward.operands[1]).producer, 1);
  const GraphValue &gradient = graph->value(backward.results.front());
  EXPECT_EQ(gradient.type.bytes(), 16);
  EXPECT_EQ(gradient.outputRole, OutputRole::Gradient);
  EXPECT_EQ(graph->value(graph->op(0).results.front()).outputRole,
            OutputRole::None);
}

TEST(CheckmateImportTest, RandomSchemaIsOrderedTopologically) {
  // As in the published random graphs, the sink has id 1 and is read last.
  absl::StatusOr<Graph> graph = importCheckmateJson(R"json({
    "nodes": [
      {"out_cost": 10, "param_cost": 0, "duration": 0, "name": 0},
      {"out_cost": 20, "param_cost": 0, "duration": 0, "name": 1},
      {"out_cost": 30, "param_cost": 8, "duration": 3, "name": 2}
    ],
    "links": [{"0": 0, "1": 2}, {"0": 2, "1": 1}]
  })json");
  ASSERT_TRUE(graph.ok()) << graph.status();
  ASSERT_EQ(graph->numOps(), 3u);
  EXPECT_TRUE(graph->validate().ok()) << graph->validate();
  EXPECT_EQ(graph->op(1).name, "node2");
  EXPECT_EQ(graph->op(2).name, "node1");
  EXPECT_FALSE(graph->op(0).phase.has_value());
  EXPECT_EQ(graph->op(1).fixedTimeUs, 3);
  // param_cost is a parameter input: available, outside the activation peak.
  ASSERT_EQ(graph->op(1).operands.size(), 2u);
  const GraphValue &parameter = graph->value(graph->op(1).operands[1]);
  EXPECT_EQ(parameter.inputRole, InputRole::Parameter);
  EXPECT_EQ(parameter.type.bytes(), 8);
  EXPECT_EQ(graph->value(graph->op(2).results.front()).outputRole,
            OutputRole::Output);
}

TEST(CheckmateImportTest, ReproducesThePublishedTopologicalPeaks) {
  // README of ../shared/data/checkmate: the peak of the schedule 0..n-1 and
  // the total cost_cpu, in Moccasin's accounting.
  struct Published {
    const char *file;
    size_t nodes;
    int64_t peak;
    double totalCost;
  };
  const Published published[] = {
      {"VGG16_b256_224x224_train.json", 45, 15825108992, 15500},
      {"VGG19_b256_224x224_train.json", 51, 17058234368, 9493135},
      {"MobileNet_b512_224x224_train.json", 185, 34701056000, 162080},
      {"ResNet50_b256_224x224_train.json", 353, 38059356160, 405670},
  };
  CostModel costModel(*getTargetPreset("cpu"));
  for (const Published &expected : published) {
    SCOPED_TRACE(expected.file);
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(expected.file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    ASSERT_EQ(graph->numOps(), expected.nodes);
    absl::StatusOr<Classification> phases = classify(*graph);
    ASSERT_TRUE(phases.ok()) << phases.status();
    Schedule schedule;
    for (OpId op = 0; op < static_cast<OpId>(graph->numOps()); ++op)
      schedule.steps.push_back(op);
    absl::StatusOr<SimulationResult> simulation =
        simulate(*graph, *phases, schedule, costModel);
    ASSERT_TRUE(simulation.ok()) << simulation.status();
    EXPECT_EQ(simulation->peakBytes, expected.peak);
    EXPECT_DOUBLE_EQ(simulation->totalTimeUs, expected.totalCost);
  }
}

TEST(CheckmateImportTest, ImportsTheRandomLayeredGraphs) {
  // README: topological peaks 50,590 and 135,910; total costs 47,769 and
  // 125,569.
  struct Published {
    const char *file;
    int64_t peak;
    double totalCost;
  };
  const Published published[] = {
      {"random_layered_n100.json", 50590, 47769},
      {"random_layered_n250.json", 135910, 125569},
  };
  CostModel costModel(*getTargetPreset("cpu"));
  for (const Published &expected : published) {
    SCOPED_TRACE(expected.file);
    absl::StatusOr<Graph> graph = test::readCheckmateGraph(expected.file);
    ASSERT_TRUE(graph.ok()) << graph.status();
    EXPECT_TRUE(graph->validate().ok()) << graph->validate();
    // One sink, the node with id 1, comes last.
    EXPECT_EQ(graph->op(graph->numOps() - 1).name, "node1");
    absl::StatusOr<Classification> phases = classify(*graph);
    ASSERT_TRUE(phases.ok()) << phases.status();
    Schedule schedule;
    for (OpId op = 0; op < static_cast<OpId>(graph->numOps()); ++op)
      schedule.steps.push_back(op);
    absl::StatusOr<SimulationResult> simulation =
        simulate(*graph, *phases, schedule, costModel);
    ASSERT_TRUE(simulation.ok()) << simulation.status();
    EXPECT_EQ(simulation->peakBytes, expected.peak);
    EXPECT_DOUBLE_EQ(simulation->totalTimeUs, expected.totalCost);
  }
}

TEST(CheckmateImportTest, Errors) {
  absl::StatusOr<Graph> malformed = importCheckmateJson("{\n  \"nodes\": [,]}");
  ASSERT_FALSE(malformed.ok());
  EXPECT_TRUE(contains(malformed.status(), "line 2, column 13"))
      << malformed.status();

  absl::StatusOr<Graph> noLinks = importCheckmateJson(R"({"nodes": []})");
  ASSERT_FALSE(noLinks.ok());
  EXPECT_TRUE(contains(noLinks.status(), "\"links\"")) << noLinks.status();

  absl::StatusOr<Graph> unknownSchema =
      importCheckmateJson(R"({"nodes": [{"id": 0, "size": 3}], "links": []})");
  ASSERT_FALSE(unknownSchema.ok());
  EXPECT_TRUE(contains(unknownSchema.status(), "unknown node schema"))
      << unknownSchema.status();

  absl::StatusOr<Graph> missingField = importCheckmateJson(
      R"({"nodes": [{"id": 0, "cost_ram": 3, "backward": false}],
          "links": []})");
  ASSERT_FALSE(missingField.ok());
  EXPECT_TRUE(contains(missingField.status(), "node 0: expected a numeric "
                                              "field \"cost_cpu\""))
      << missingField.status();

  absl::StatusOr<Graph> dangling = importCheckmateJson(
      R"({"nodes": [{"out_cost": 1, "duration": 1, "name": 0}],
          "links": [{"0": 0, "1": 5}]})");
  ASSERT_FALSE(dangling.ok());
  EXPECT_TRUE(contains(dangling.status(), "(0 -> 5) names a node"))
      << dangling.status();

  absl::StatusOr<Graph> cycle = importCheckmateJson(
      R"({"nodes": [{"out_cost": 1, "duration": 1, "name": 0},
                    {"out_cost": 1, "duration": 1, "name": 1}],
          "links": [{"0": 0, "1": 1}, {"0": 1, "1": 0}]})");
  ASSERT_FALSE(cycle.ok());
  EXPECT_TRUE(contains(cycle.status(), "cycle through node 0"))
      << cycle.status();

  absl::StatusOr<Graph> duplicate = importCheckmateJson(
      R"({"nodes": [{"out_cost": 1, "duration": 1, "name": 0},
                    {"out_cost": 1, "duration": 1, "name": 0}],
          "links": []})");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_TRUE(contains(duplicate.status(), "node id 0 appears more than once"))
      << duplicate.status();

  absl::StatusOr<Graph> negative = importCheckmateJson(
      R"({"nodes": [{"out_cost": -1, "duration": 1, "name": 0}],
          "links": []})");
  ASSERT_FALSE(negative.ok());
  EXPECT_TRUE(contains(negative.status(), "must not be negative"))
      << negative.status();
}

} // namespace
} // namespace remat
