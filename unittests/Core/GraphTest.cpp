//===- GraphTest.cpp - Graph building, validation, classification --------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Core/Graph.h"

#include "gtest/gtest.h"

#include <limits>

namespace remat {
namespace {

using test::GraphBuilder;

TEST(TensorType, BytesAndSaturation) {
  EXPECT_EQ((TensorType{{4, 4}, DType::F32}.bytes()), 64);
  EXPECT_EQ((TensorType{{}, DType::BF16}.bytes()), 2); // scalar
  EXPECT_EQ((TensorType{{3, 0}, DType::F32}.bytes()), 0);
  EXPECT_EQ((TensorType{{8}, DType::I1}.bytes()), 8);
  TensorType huge{{1LL << 40, 1LL << 40}, DType::F64};
  EXPECT_EQ(huge.numElements(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(huge.bytes(), std::numeric_limits<int64_t>::max());
  TensorType almost{{(1LL << 62) / 3}, DType::F64};
  EXPECT_EQ(almost.bytes(), std::numeric_limits<int64_t>::max());
}

TEST(Graph, AddOpRejectsUndefinedOperand) {
  Graph graph;
  ValueId x =
      graph.addInput("x", TensorType{{4}, DType::F32}, InputRole::Input);
  GraphOp op;
  op.name = "bad";
  op.kind = "test.op";
  op.operands = {x, 7};
  absl::StatusOr<OpId> id = graph.addOp(op, {TensorType{{4}, DType::F32}});
  ASSERT_FALSE(id.ok());
  EXPECT_NE(id.status().message().find("operand 1 refers to value 7"),
            std::string::npos)
      << id.status();
  GraphOp names;
  names.kind = "test.op";
  names.operands = {x};
  absl::StatusOr<OpId> misnamed =
      graph.addOp(names, {TensorType{{4}, DType::F32}}, {"a", "b"});
  EXPECT_FALSE(misnamed.ok());
}

TEST(Graph, AddOpMovingTypesAndNamesMatchesCopying) {
  // The rvalue overload (used by the IR importer, which reuses its vectors
  // for every op) must build the same graph as the copying one, and the
  // copying one must leave the caller's vectors as they were.
  Graph copied, moved;
  copied.reserve(2, 4);
  moved.reserve(2, 4);
  EXPECT_EQ(moved.numOps(), 0u);
  EXPECT_EQ(moved.numValues(), 0u);
  ValueId x =
      copied.addInput("x", TensorType{{4, 8}, DType::F32}, InputRole::Input);
  ASSERT_EQ(
      moved.addInput("x", TensorType{{4, 8}, DType::F32}, InputRole::Input), x);
  std::vector<TensorType> types = {TensorType{{4, 8}, DType::BF16},
                                   TensorType{{4}, DType::F32}};
  std::vector<std::string> names = {"a_long_result_name_beyond_sso#0",
                                    "a_long_result_name_beyond_sso#1"};
  GraphOp op;
  op.kind = "test.split";
  op.operands = {x};
  ASSERT_TRUE(copied.addOp(op, types, names).ok());
  EXPECT_EQ(types[0].shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(names[1], "a_long_result_name_beyond_sso#1");
  std::vector<TensorType> reusedTypes = types;
  std::vector<std::string> reusedNames = names;
  ASSERT_TRUE(
      moved.addOp(op, std::move(reusedTypes), std::move(reusedNames)).ok());
  // Refill the same vectors, as the importer does, for a second op.
  reusedTypes.clear();
  reusedNames.clear();
  reusedTypes.push_back(TensorType{{8}, DType::F16});
  reusedNames.push_back("second");
  GraphOp second;
  second.kind = "test.reduce";
  second.operands = {1};
  ASSERT_TRUE(copied.addOp(second, reusedTypes, reusedNames).ok());
  ASSERT_TRUE(
      moved.addOp(second, std::move(reusedTypes), std::move(reusedNames)).ok());
  ASSERT_EQ(copied.numValues(), 4u);
  ASSERT_EQ(moved.numValues(), copied.numValues());
  ASSERT_EQ(moved.numOps(), copied.numOps());
  for (ValueId id = 0; id < static_cast<ValueId>(copied.numValues()); ++id) {
    EXPECT_EQ(moved.value(id).name, copied.value(id).name) << id;
    EXPECT_EQ(moved.value(id).type.shape, copied.value(id).type.shape) << id;
    EXPECT_EQ(moved.value(id).type.dtype, copied.value(id).type.dtype) << id;
    EXPECT_EQ(moved.value(id).producer, copied.value(id).producer) << id;
    EXPECT_EQ(moved.value(id).resultIndex, copied.value(id).resultIndex) << id;
  }
  EXPECT_EQ(moved.value(2).name, "a_long_result_name_beyond_sso#1");
  EXPECT_EQ(moved.value(3).name, "second");
  EXPECT_EQ(moved.op(1).results, (std::vector<ValueId>{3}));
  EXPECT_TRUE(moved.validate().ok());
}

TEST(Graph, UsersAreInOpOrderAndDeduplicated) {
  GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId a = builder.op("a", "mul", ComputeClass::Pointwise, {x, x},
                         builder.type({4}));
  ValueId b =
      builder.op("b", "neg", ComputeClass::Pointwise, {x}, builder.type({4}));
  builder.op("c", "add", ComputeClass::Pointwise, {a, b}, builder.type({4}));
  Graph graph = builder.take();
  EXPECT_EQ(graph.users(x), (std::vector<OpId>{0, 1}));
  EXPECT_EQ(graph.users(a), (std::vector<OpId>{2}));
  // Editing an op invalidates the cached user lists.
  graph.mutableOp(2).operands = {x, b};
  EXPECT_EQ(graph.users(x), (std::vector<OpId>{0, 1, 2}));
  EXPECT_TRUE(graph.users(a).empty());
  EXPECT_TRUE(graph.validate().ok());
}

TEST(Graph, StorageOfFollowsViewsToTheirBase) {
  GraphBuilder builder;
  ValueId x = builder.input("x", {2, 4});
  ValueId t = builder.op("t", "tanh", ComputeClass::Pointwise, {x},
                         builder.type({2, 4}));
  ValueId flat =
      builder.op("flat", "reshape", ComputeClass::View, {t}, builder.type({8}));
  ValueId wide = builder.op("wide", "broadcast", ComputeClass::View, {flat},
                            builder.type({3, 8}));
  ValueId xFlat = builder.op("x_flat", "reshape", ComputeClass::View, {x},
                             builder.type({8}));
  // A view by flag rather than compute class counts too.
  ValueId alias = builder.op("alias", "opaque", ComputeClass::Other, {t},
                             builder.type({2, 4}));
  Graph graph = builder.take();
  graph.mutableOp(graph.value(alias).producer).isView = true;
  EXPECT_EQ(graph.storageOf(t), t);
  EXPECT_EQ(graph.storageOf(flat), t);
  EXPECT_EQ(graph.storageOf(wide), t);
  EXPECT_EQ(graph.storageOf(xFlat), x);
  EXPECT_EQ(graph.storageOf(alias), t);
  EXPECT_EQ(graph.storageOf(x), x);
}

TEST(Graph, ValidateCatchesBrokenEdges) {
  GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId a =
      builder.op("a", "neg", ComputeClass::Pointwise, {x}, builder.type({4}));
  ValueId b =
      builder.op("b", "neg", ComputeClass::Pointwise, {a}, builder.type({4}));
  Graph graph = builder.take();
  ASSERT_TRUE(graph.validate().ok());
  // Make op 0 read the value op 1 produces: not topological.
  graph.mutableOp(0).operands = {b};
  absl::Status status = graph.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("topological"), std::string::npos) << status;

  Graph outputs;
  outputs.markOutput(3, OutputRole::Output);
  EXPECT_FALSE(outputs.validate().ok());

  GraphBuilder rules;
  ValueId y = rules.input("y", {4});
  ValueId z =
      rules.op("z", "neg", ComputeClass::Pointwise, {y}, rules.type({4}));
  rules.producer(z).inverseRules = {
      InverseRule{0, InverseKind::Negate, {2}, true}};
  Graph withRule = rules.take();
  status = withRule.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("reads operand 2"), std::string::npos)
      << status;
}

TEST(Graph, ValidateRejectsNegativeAndViewWorkspaces) {
  GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId a =
      builder.op("a", "neg", ComputeClass::Pointwise, {x}, builder.type({4}));
  ValueId v =
      builder.op("v", "reshape", ComputeClass::View, {a}, builder.type({2, 2}));
  builder.graph().markOutput(v, OutputRole::Output);
  Graph graph = builder.take();
  graph.mutableOp(0).workspaceBytes = 64;
  ASSERT_TRUE(graph.validate().ok()) << graph.validate();
  graph.mutableOp(0).workspaceBytes = -1;
  absl::Status status = graph.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("workspace of -1 bytes"), std::string::npos)
      << status;
  graph.mutableOp(0).workspaceBytes = 0;
  graph.mutableOp(1).workspaceBytes = 8;
  status = graph.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("a view runs no kernel"), std::string::npos)
      << status;
}

TEST(Classify, BackwardIsWhatReadsATangent) {
  GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId w = builder.input("w", {4}, InputRole::Parameter);
  ValueId a = builder.op("a", "mul", ComputeClass::Pointwise, {x, w},
                         builder.type({4}), "a");
  ValueId b = builder.op("b", "cos", ComputeClass::Pointwise, {a},
                         builder.type({4}), "b");
  // A forward-only op that backward reads but that reads no tangent (like a
  // transposed weight): forward, as AOTAutograd classifies it.
  ValueId wt = builder.op("wt", "transpose", ComputeClass::View, {w},
                          builder.type({4}), "wt");
  builder.graph().markOutput(b, OutputRole::Output);
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId ga = builder.op("b_bwd", "sin_mul", ComputeClass::Pointwise, {dy, a},
                          builder.type({4}));
  builder.op("a_bwd", "mul", ComputeClass::Pointwise, {ga, wt, x},
             builder.type({4}));
  Graph graph = builder.take();
  absl::StatusOr<Classification> phases = classify(graph);
  ASSERT_TRUE(phases.ok()) << phases.status();
  EXPECT_EQ(phases->opPhase,
            (std::vector<Phase>{Phase::Forward, Phase::Forward, Phase::Forward,
                                Phase::Backward, Phase::Backward}));
  EXPECT_EQ(phases->neededByBackward, (std::vector<ValueId>{x, a, wt}));
  EXPECT_EQ(phases->forwardValues, (std::vector<ValueId>{a, b, wt}));
}

TEST(Classify, ExplicitPhaseWinsAndContradictionsAreErrors) {
  Graph linear = test::buildCheckmateLinearGraph(3);
  absl::StatusOr<Classification> phases = classify(linear);
  ASSERT_TRUE(phases.ok()) << phases.status();
  EXPECT_EQ(phases->opPhase[2], Phase::Forward);
  EXPECT_EQ(phases->opPhase[3], Phase::Backward);
  // Forward ops 0..2 are read by backward (op 3 reads 2, op 4 reads 1 ...).
  EXPECT_EQ(phases->neededByBackward.size(), 3u);

  GraphBuilder builder;
  ValueId x = builder.input("x", {4});
  ValueId dy = builder.input("dy", {4}, InputRole::Tangent);
  ValueId g = builder.op("g", "mul", ComputeClass::Pointwise, {x, dy},
                         builder.type({4}), "g");
  builder.producer(g).phase = Phase::Forward;
  absl::StatusOr<Classification> bad = classify(builder.graph());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("marked phase forward but reads"),
            std::string::npos)
      << bad.status();
  EXPECT_NE(bad.status().message().find("a tangent"), std::string::npos);
}

} // namespace
} // namespace remat
