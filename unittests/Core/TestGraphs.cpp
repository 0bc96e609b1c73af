//===- TestGraphs.cpp - Graphs shared by the core tests -------------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Core/CheckmateImport.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

namespace remat::test {

namespace {
/// The builders construct known-good graphs; a failure is a bug in the test
/// support itself, so stop loudly instead of threading a status through.
template <typename T> T orDie(absl::StatusOr<T> result) {
  if (!result.ok()) {
    std::cerr << "TestGraphs: " << result.status() << "\n";
    std::abort();
  }
  return *std::move(result);
}

double numElements(const TensorType &type) {
  return static_cast<double>(type.numElements());
}
} // namespace

//===----------------------------------------------------------------------===//
// GraphBuilder
//===----------------------------------------------------------------------===//

ValueId GraphBuilder::input(std::string name, std::vector<int64_t> shape,
                            InputRole role) {
  return graph_.addInput(std::move(name), type(std::move(shape)), role);
}

ValueId GraphBuilder::input(std::string name, TensorType type, InputRole role) {
  return graph_.addInput(std::move(name), std::move(type), role);
}

ValueId GraphBuilder::op(std::string opName, std::string kind,
                         ComputeClass computeClass,
                         std::vector<ValueId> operands, TensorType resultType,
                         std::string resultName) {
  return multiOp(std::move(opName), std::move(kind), computeClass,
                 std::move(operands), {std::move(resultType)},
                 {std::move(resultName)})
      .front();
}

std::vector<ValueId>
GraphBuilder::multiOp(std::string opName, std::string kind,
                      ComputeClass computeClass, std::vector<ValueId> operands,
                      std::vector<TensorType> resultTypes,
                      std::vector<std::string> resultNames) {
  GraphOp graphOp;
  graphOp.name = std::move(opName);
  graphOp.kind = std::move(kind);
  graphOp.computeClass = computeClass;
  graphOp.operands = std::move(operands);
  graphOp.isView = computeClass == ComputeClass::View;
  graphOp.isRandom = computeClass == ComputeClass::Random;
  // Elementwise work by default; matmul builders overwrite it.
  double elements = 0;
  for (const TensorType &type : resultTypes)
    elements += numElements(type);
  graphOp.flops = computeClass == ComputeClass::View ? 0 : elements;
  OpId id = orDie(graph_.addOp(std::move(graphOp), resultTypes, resultNames));
  return graph_.op(id).results;
}

GraphOp &GraphBuilder::producer(ValueId value) {
  return graph_.mutableOp(graph_.value(value).producer);
}

//===----------------------------------------------------------------------===//
// Checkmate's linear graph
//===----------------------------------------------------------------------===//

Graph buildCheckmateLinearGraph(int n, int64_t unitBytes) {
  Graph graph;
  TensorType unit{{unitBytes}, DType::I8};
  std::vector<ValueId> results;
  const int numOps = 2 * n + 1;
  for (int i = 0; i < numOps; ++i) {
    GraphOp op;
    op.name = "node" + std::to_string(i);
    op.kind = "checkmate.node";
    op.fixedTimeUs = 1;
    op.phase = i < n ? Phase::Forward : Phase::Backward;
    if (i > 0)
      op.operands.push_back(results[i - 1]);
    if (i > n)
      op.operands.push_back(results[numOps - 1 - i]);
    OpId id =
        orDie(graph.addOp(std::move(op), {unit}, {"v" + std::to_string(i)}));
    results.push_back(graph.op(id).results.front());
  }
  graph.markOutput(results.back(), OutputRole::Gradient);
  return graph;
}

//===----------------------------------------------------------------------===//
// Transformer layers
//===----------------------------------------------------------------------===//

namespace {
/// Sets matmul FLOPs 2*m*n*k from the result's element count and the
/// contracted size.
void setMatmulFlops(GraphBuilder &builder, ValueId result, int64_t contracted) {
  builder.producer(result).flops = 2.0 * numElements(builder.typeOf(result)) *
                                   static_cast<double>(contracted);
}

/// `backwardOp` builds a backward op (phase from tangent reachability)
/// reading `reads`, producing gradients shaped like `gradShapesOf`.
std::vector<ValueId> backwardOp(GraphBuilder &builder, const std::string &name,
                                ComputeClass computeClass,
                                std::vector<ValueId> reads,
                                const std::vector<ValueId> &gradShapesOf) {
  std::vector<TensorType> types;
  for (ValueId value : gradShapesOf)
    types.push_back(builder.typeOf(value));
  return builder.multiOp(name, "bwd." + name, computeClass, std::move(reads),
                         types);
}
} // namespace

std::vector<std::string> megatronAttentionCoreNames() {
  return {"attn_scores", "attn_probs", "attn_dropout_mask", "attn_dropout"};
}

Graph buildMegatronLayer(const LayerShape &shape) {
  const int64_t s = shape.s, b = shape.b, h = shape.h, a = shape.a;
  GraphBuilder builder(DType::BF16);
  TensorType act = builder.type({s, b, h});
  TensorType act4 = builder.type({s, b, 4 * h});
  TensorType scoresType = builder.type({b, a, s, s});
  TensorType maskScores{{b, a, s, s}, DType::I1};
  TensorType maskAct{{s, b, h}, DType::I1};

  ValueId x = builder.input("x", act, InputRole::Input);
  ValueId ln1W = builder.input("ln1_w", {h}, InputRole::Parameter);
  ValueId wQkv = builder.input("w_qkv", {h, 3 * h}, InputRole::Parameter);
  ValueId wO = builder.input("w_o", {h, h}, InputRole::Parameter);
  ValueId ln2W = builder.input("ln2_w", {h}, InputRole::Parameter);
  ValueId wFc1 = builder.input("w_fc1", {h, 4 * h}, InputRole::Parameter);
  ValueId wFc2 = builder.input("w_fc2", {4 * h, h}, InputRole::Parameter);
  ValueId seed = builder.input("rng_seed", TensorType{{2}, DType::I64},
                               InputRole::RngState);

  // Forward.
  ValueId ln1 = builder.op("ln1", "layer_norm", ComputeClass::Normalization,
                           {x, ln1W}, act, "ln1_out");
  ValueId qkv = builder.op("qkv_proj", "matmul", ComputeClass::Matmul,
                           {ln1, wQkv}, builder.type({s, b, 3 * h}), "qkv");
  setMatmulFlops(builder, qkv, h);
  std::vector<ValueId> qkvParts =
      builder.multiOp("split_qkv", "split", ComputeClass::View, {qkv},
                      {act, act, act}, {"q", "k", "v"});
  ValueId q = qkvParts[0], k = qkvParts[1], v = qkvParts[2];
  ValueId scores = builder.op("qk", "bmm", ComputeClass::Matmul, {q, k},
                              scoresType, "attn_scores");
  setMatmulFlops(builder, scores, h / a);
  ValueId probs = builder.op("softmax", "softmax", ComputeClass::Normalization,
                             {scores}, scoresType, "attn_probs");
  ValueId mask1 =
      builder.op("attn_dropout_rng", "bernoulli", ComputeClass::Random, {seed},
                 maskScores, "attn_dropout_mask");
  ValueId dropped = builder.op("attn_dropout", "mul", ComputeClass::Pointwise,
                               {probs, mask1}, scoresType, "attn_dropout");
  ValueId ctx = builder.op("attn_v", "bmm", ComputeClass::Matmul, {dropped, v},
                           act, "context");
  setMatmulFlops(builder, ctx, s);
  ValueId proj = builder.op("out_proj", "matmul", ComputeClass::Matmul,
                            {ctx, wO}, act, "out_proj");
  setMatmulFlops(builder, proj, h);
  ValueId mask2 =
      builder.op("proj_dropout_rng", "bernoulli", ComputeClass::Random, {seed},
                 maskAct, "proj_dropout_mask");
  ValueId d2 = builder.op("proj_dropout", "mul", ComputeClass::Pointwise,
                          {proj, mask2}, act, "proj_dropout");
  ValueId h1 = builder.op("residual1", "add", ComputeClass::Pointwise, {x, d2},
                          act, "h");
  ValueId ln2 = builder.op("ln2", "layer_norm", ComputeClass::Normalization,
                           {h1, ln2W}, act, "ln2_out");
  ValueId fc1 = builder.op("fc1", "matmul", ComputeClass::Matmul, {ln2, wFc1},
                           act4, "fc1");
  setMatmulFlops(builder, fc1, h);
  ValueId gelu =
      builder.op("gelu", "gelu", ComputeClass::Pointwise, {fc1}, act4, "gelu");
  ValueId fc2 = builder.op("fc2", "matmul", ComputeClass::Matmul, {gelu, wFc2},
                           act, "fc2");
  setMatmulFlops(builder, fc2, 4 * h);
  ValueId mask3 =
      builder.op("mlp_dropout_rng", "bernoulli", ComputeClass::Random, {seed},
                 maskAct, "mlp_dropout_mask");
  ValueId d3 = builder.op("mlp_dropout", "mul", ComputeClass::Pointwise,
                          {fc2, mask3}, act, "mlp_dropout");
  ValueId out = builder.op("residual2", "add", ComputeClass::Pointwise,
                           {h1, d3}, act, "layer_out");
  builder.graph().markOutput(out, OutputRole::Output);

  // Backward, as AOTAutograd emits it (the adds' backward emits no op).
  ValueId dy = builder.input("dy", act, InputRole::Tangent);
  ValueId gFc2 = backwardOp(builder, "mlp_dropout", ComputeClass::Pointwise,
                            {dy, mask3}, {fc2})[0];
  std::vector<ValueId> fc2Grads = backwardOp(
      builder, "fc2", ComputeClass::Matmul, {gFc2, gelu, wFc2}, {gelu, wFc2});
  ValueId gFc1 = backwardOp(builder, "gelu", ComputeClass::Pointwise,
                            {fc2Grads[0], fc1}, {fc1})[0];
  std::vector<ValueId> fc1Grads = backwardOp(
      builder, "fc1", ComputeClass::Matmul, {gFc1, ln2, wFc1}, {ln2, wFc1});
  std::vector<ValueId> ln2Grads =
      backwardOp(builder, "ln2", ComputeClass::Normalization,
                 {fc1Grads[0], h1, ln2W}, {h1, ln2W});
  ValueId gH1 = backwardOp(builder, "residual_grad", ComputeClass::Pointwise,
                           {dy, ln2Grads[0]}, {h1})[0];
  ValueId gProj = backwardOp(builder, "proj_dropout", ComputeClass::Pointwise,
                             {gH1, mask2}, {proj})[0];
  std::vector<ValueId> projGrads = backwardOp(
      builder, "out_proj", ComputeClass::Matmul, {gProj, ctx, wO}, {ctx, wO});
  std::vector<ValueId> attnVGrads =
      backwardOp(builder, "attn_v", ComputeClass::Matmul,
                 {projGrads[0], dropped, v}, {dropped, v});
  ValueId gProbs = backwardOp(builder, "attn_dropout", ComputeClass::Pointwise,
                              {attnVGrads[0], mask1}, {probs})[0];
  ValueId gScores = backwardOp(builder, "softmax", ComputeClass::Normalization,
                               {gProbs, probs}, {scores})[0];
  std::vector<ValueId> qkGrads =
      backwardOp(builder, "qk", ComputeClass::Matmul, {gScores, q, k}, {q, k});
  ValueId gQkv = backwardOp(builder, "split_qkv", ComputeClass::Pointwise,
                            {qkGrads[0], qkGrads[1], attnVGrads[1]}, {qkv})[0];
  std::vector<ValueId> qkvGrads =
      backwardOp(builder, "qkv_proj", ComputeClass::Matmul, {gQkv, ln1, wQkv},
                 {ln1, wQkv});
  std::vector<ValueId> ln1Grads =
      backwardOp(builder, "ln1", ComputeClass::Normalization,
                 {qkvGrads[0], x, ln1W}, {x, ln1W});
  ValueId gX = backwardOp(builder, "input_grad", ComputeClass::Pointwise,
                          {gH1, ln1Grads[0]}, {x})[0];
  Graph &graph = builder.graph();
  for (ValueId grad : {gX, ln1Grads[1], qkvGrads[1], projGrads[1], ln2Grads[1],
                       fc1Grads[1], fc2Grads[1]})
    graph.markOutput(grad, OutputRole::Gradient);
  return builder.take();
}

Graph buildLlamaLayer(const LlamaOptions &options) {
  const int64_t s = options.shape.s, b = options.shape.b, h = options.shape.h,
                a = options.shape.a;
  const int64_t ffn = (8 * h) / 3;
  GraphBuilder builder(options.dtype);
  TensorType act = builder.type({s, b, h});
  TensorType actFfn = builder.type({s, b, ffn});

  ValueId x = builder.input("decoder_layer_input", act, InputRole::Input);
  ValueId norm1W = builder.input("norm1_w", {h}, InputRole::Parameter);
  ValueId wq = builder.input("wq", {h, h}, InputRole::Parameter);
  ValueId wk = builder.input("wk", {h, h}, InputRole::Parameter);
  ValueId wv = builder.input("wv", {h, h}, InputRole::Parameter);
  ValueId wo = builder.input("wo", {h, h}, InputRole::Parameter);
  ValueId norm2W = builder.input("norm2_w", {h}, InputRole::Parameter);
  ValueId wi0 = builder.input("wi_0", {h, ffn}, InputRole::Parameter);
  ValueId wi1 = builder.input("wi_1", {h, ffn}, InputRole::Parameter);
  ValueId wMlpO = builder.input("wo_mlp", {ffn, h}, InputRole::Parameter);

  auto residualAdd = [&](const std::string &name, ValueId lhs, ValueId rhs) {
    ValueId sum =
        builder.op(name, "add", ComputeClass::Pointwise, {lhs, rhs}, act, name);
    if (options.residualInverseRules) {
      // c = a + b gives a = c - b and b = c - a; inexact in floating point.
      builder.producer(sum).inverseRules = {
          InverseRule{0, InverseKind::SubtractOther, {1}, false},
          InverseRule{1, InverseKind::SubtractOther, {0}, false}};
    }
    return sum;
  };

  ValueId n1 =
      builder.op("pre_attention_norm", "rms_norm", ComputeClass::Normalization,
                 {x, norm1W}, act, "pre_attention_norm");
  ValueId q = builder.op("query_proj", "matmul", ComputeClass::Matmul, {n1, wq},
                         act, "query_proj");
  ValueId k = builder.op("key_proj", "matmul", ComputeClass::Matmul, {n1, wk},
                         act, "key_proj");
  ValueId v = builder.op("value_proj", "matmul", ComputeClass::Matmul, {n1, wv},
                         act, "value_proj");
  for (ValueId proj : {q, k, v})
    setMatmulFlops(builder, proj, h);
  std::vector<ValueId> attention = builder.multiOp(
      "attention", "sdpa", ComputeClass::Attention, {q, k, v},
      {act, TensorType{{b, a, s}, DType::F32}}, {"context", "attention_lse"});
  GraphOp &attentionOp = builder.producer(attention[0]);
  attentionOp.flops = 4.0 * static_cast<double>(b * s) *
                      static_cast<double>(s) * static_cast<double>(h);
  attentionOp.tags.noAutoRecompute = options.attentionNoAutoRecompute;
  attentionOp.tags.neverRecompute = options.attentionNeverRecompute;
  ValueId context = attention[0], lse = attention[1];
  ValueId attnOut = builder.op("out_proj", "matmul", ComputeClass::Matmul,
                               {context, wo}, act, "attention_out");
  setMatmulFlops(builder, attnOut, h);
  ValueId hRes = residualAdd("h", x, attnOut);
  ValueId n2 =
      builder.op("post_attention_norm", "rms_norm", ComputeClass::Normalization,
                 {hRes, norm2W}, act, "post_attention_norm");
  ValueId gate = builder.op("mlpwi_0", "matmul", ComputeClass::Matmul,
                            {n2, wi0}, actFfn, "mlpwi_0");
  ValueId up = builder.op("mlpwi_1", "matmul", ComputeClass::Matmul, {n2, wi1},
                          actFfn, "mlpwi_1");
  setMatmulFlops(builder, gate, h);
  setMatmulFlops(builder, up, h);
  ValueId act0 = builder.op("silu", "silu", ComputeClass::Pointwise, {gate},
                            actFfn, "mlp_act");
  ValueId hidden = builder.op("glu", "mul", ComputeClass::Pointwise, {act0, up},
                              actFfn, "mlp_hidden");
  ValueId mlpOut = builder.op("mlpwo", "matmul", ComputeClass::Matmul,
                              {hidden, wMlpO}, act, "mlpwo");
  setMatmulFlops(builder, mlpOut, ffn);
  ValueId out = residualAdd("layer_out", hRes, mlpOut);
  Graph &graph = builder.graph();
  graph.markOutput(out, OutputRole::Output);
  ValueId aux = kNoId;
  if (options.mlpOutputRegularizer) {
    ValueId squared = builder.op("mlpwo_square", "mul", ComputeClass::Pointwise,
                                 {mlpOut, mlpOut}, act, "mlpwo_square");
    aux = builder.op("aux_loss", "sum", ComputeClass::Reduction, {squared},
                     builder.type({}), "aux_loss");
    graph.markOutput(aux, OutputRole::Output);
  }

  // Backward.
  ValueId dy = builder.input("dy", act, InputRole::Tangent);
  ValueId gOut = dy; // add backward emits no op
  ValueId gMlpOut = gOut;
  if (options.mlpOutputRegularizer) {
    ValueId dAux = builder.input("daux", builder.type({}), InputRole::Tangent);
    ValueId gSquared = backwardOp(builder, "aux_loss", ComputeClass::Pointwise,
                                  {dAux}, {mlpOut})[0];
    ValueId gReg = backwardOp(builder, "mlpwo_square", ComputeClass::Pointwise,
                              {gSquared, mlpOut}, {mlpOut})[0];
    gMlpOut = backwardOp(builder, "mlpwo_grad_sum", ComputeClass::Pointwise,
                         {gOut, gReg}, {mlpOut})[0];
  }
  std::vector<ValueId> mlpOutGrads =
      backwardOp(builder, "mlpwo", ComputeClass::Matmul,
                 {gMlpOut, hidden, wMlpO}, {hidden, wMlpO});
  std::vector<ValueId> gluGrads =
      backwardOp(builder, "glu", ComputeClass::Pointwise,
                 {mlpOutGrads[0], act0, up}, {act0, up});
  ValueId gGate = backwardOp(builder, "silu", ComputeClass::Pointwise,
                             {gluGrads[0], gate}, {gate})[0];
  std::vector<ValueId> upGrads =
      backwardOp(builder, "mlpwi_1", ComputeClass::Matmul,
                 {gluGrads[1], n2, wi1}, {n2, wi1});
  std::vector<ValueId> gateGrads = backwardOp(
      builder, "mlpwi_0", ComputeClass::Matmul, {gGate, n2, wi0}, {n2, wi0});
  ValueId gN2 = backwardOp(builder, "mlp_input_grad", ComputeClass::Pointwise,
                           {upGrads[0], gateGrads[0]}, {n2})[0];
  std::vector<ValueId> norm2Grads =
      backwardOp(builder, "post_attention_norm", ComputeClass::Normalization,
                 {gN2, hRes, norm2W}, {hRes, norm2W});
  ValueId gH = backwardOp(builder, "h_grad", ComputeClass::Pointwise,
                          {gOut, norm2Grads[0]}, {hRes})[0];
  std::vector<ValueId> outProjGrads =
      backwardOp(builder, "out_proj", ComputeClass::Matmul, {gH, context, wo},
                 {context, wo});
  std::vector<ValueId> attentionGrads =
      backwardOp(builder, "attention", ComputeClass::Attention,
                 {outProjGrads[0], q, k, v, context, lse}, {q, k, v});
  std::vector<ValueId> qGrads =
      backwardOp(builder, "query_proj", ComputeClass::Matmul,
                 {attentionGrads[0], n1, wq}, {n1, wq});
  std::vector<ValueId> kGrads =
      backwardOp(builder, "key_proj", ComputeClass::Matmul,
                 {attentionGrads[1], n1, wk}, {n1, wk});
  std::vector<ValueId> vGrads =
      backwardOp(builder, "value_proj", ComputeClass::Matmul,
                 {attentionGrads[2], n1, wv}, {n1, wv});
  ValueId gN1 =
      backwardOp(builder, "attention_input_grad", ComputeClass::Pointwise,
                 {qGrads[0], kGrads[0], vGrads[0]}, {n1})[0];
  std::vector<ValueId> norm1Grads =
      backwardOp(builder, "pre_attention_norm", ComputeClass::Normalization,
                 {gN1, x, norm1W}, {x, norm1W});
  ValueId gX = backwardOp(builder, "input_grad", ComputeClass::Pointwise,
                          {gH, norm1Grads[0]}, {x})[0];
  for (ValueId grad :
       {gX, norm1Grads[1], qGrads[1], kGrads[1], vGrads[1], outProjGrads[1],
        norm2Grads[1], upGrads[1], gateGrads[1], mlpOutGrads[1]})
    graph.markOutput(grad, OutputRole::Gradient);
  return builder.take();
}

//===----------------------------------------------------------------------===//
// Random joint graphs
//===----------------------------------------------------------------------===//

Graph buildRandomJointGraph(uint64_t seed, const RandomGraphOptions &options) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  auto chance = [&](double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
  };
  GraphBuilder builder(DType::F32);
  auto sized = [&](int64_t elements) { return builder.type({elements}); };

  std::vector<ValueId> forward; // candidate operands: inputs and fwd values
  int numInputs = uniform(1, 3);
  for (int i = 0; i < numInputs; ++i)
    forward.push_back(builder.input("in" + std::to_string(i),
                                    {16 * uniform(1, 8)}, InputRole::Input));
  if (chance(0.5))
    forward.push_back(
        builder.input("param", {16 * uniform(1, 8)}, InputRole::Parameter));
  ValueId rngState = kNoId;
  if (chance(0.6))
    rngState =
        builder.input("rng", TensorType{{2}, DType::I64}, InputRole::RngState);

  struct ForwardOp {
    OpId op;
    std::vector<ValueId> operands;
    ValueId result;
  };
  std::vector<ForwardOp> ops;
  std::vector<bool> consumed;
  for (int i = 0; i < options.numForwardOps; ++i) {
    int pick = uniform(0, 99);
    ComputeClass computeClass = ComputeClass::Pointwise;
    if (pick < 15)
      computeClass = ComputeClass::Matmul;
    else if (pick < 25)
      computeClass = ComputeClass::Reduction;
    else if (pick < 35)
      computeClass = ComputeClass::View;
    else if (pick < 45)
      computeClass = ComputeClass::Normalization;
    else if (pick < 50 && options.withRandomOps)
      computeClass = ComputeClass::Random;
    // Prefer recent values, like real layer stacks.
    auto pickOperand = [&] {
      int n = static_cast<int>(forward.size());
      int lo = std::max(0, n - 6);
      return forward[chance(0.8) ? uniform(lo, n - 1) : uniform(0, n - 1)];
    };
    std::vector<ValueId> operands;
    if (computeClass == ComputeClass::Random && rngState != kNoId &&
        chance(0.7))
      operands.push_back(rngState);
    else
      operands.push_back(pickOperand());
    int arity = computeClass == ComputeClass::Random ? 1 : uniform(1, 2);
    while (static_cast<int>(operands.size()) < arity) {
      ValueId other = pickOperand();
      if (other != operands.front())
        operands.push_back(other);
      else
        break;
    }
    int64_t elements = 16 * uniform(1, 8);
    if (computeClass == ComputeClass::Reduction)
      elements = chance(0.5) ? 4 : 16 * uniform(1, 4);
    ValueId result = builder.op("op" + std::to_string(i), "random.op",
                                computeClass, operands, sized(elements),
                                chance(0.7) ? "v" + std::to_string(i) : "");
    GraphOp &op = builder.producer(result);
    if (computeClass == ComputeClass::Matmul)
      op.flops = 64.0 * static_cast<double>(elements);
    if (options.randomTags) {
      if (chance(0.04))
        op.tags.neverRecompute = true;
      else if (chance(0.06))
        op.tags.noAutoRecompute = true;
      // must_recompute on a random op without RNG state, or together with
      // never_recompute, is a contradiction the planner reports; keep the
      // random graphs consistent.
      bool randomWithoutRng =
          computeClass == ComputeClass::Random &&
          !(operands.front() == rngState && rngState != kNoId);
      if (!op.tags.neverRecompute && !randomWithoutRng && chance(0.04))
        op.tags.mustRecompute = true;
    }
    if (computeClass == ComputeClass::Pointwise && operands.size() == 2 &&
        chance(0.3))
      op.inverseRules = {
          InverseRule{0, InverseKind::SubtractOther, {1}, chance(0.5)}};
    ops.push_back({builder.graph().value(result).producer, operands, result});
    forward.push_back(result);
  }

  // Every forward value nobody reads becomes an output with a tangent.
  Graph &graph = builder.graph();
  std::vector<ValueId> grad(graph.numValues(), kNoId);
  std::vector<ValueId> pendingGradients;
  std::vector<ValueId> unread;
  for (const ForwardOp &op : ops)
    if (graph.users(op.result).empty())
      unread.push_back(op.result);
  // Adding tangents invalidates the user lists: decide first, then add.
  for (ValueId result : unread) {
    graph.markOutput(result, OutputRole::Output);
    grad[result] = builder.input("d" + std::to_string(result),
                                 builder.typeOf(result), InputRole::Tangent);
  }
  // Backward in reverse order: one op per forward op whose result has a
  // gradient, reading the gradient and a random subset of its operands and
  // result, producing gradients for its non-RNG operands.
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const ForwardOp &op = *it;
    if (grad.size() < graph.numValues())
      grad.resize(graph.numValues(), kNoId);
    if (grad[op.result] == kNoId)
      continue;
    std::vector<ValueId> reads = {grad[op.result]};
    for (ValueId operand : op.operands)
      if (graph.value(operand).inputRole != InputRole::RngState && chance(0.6))
        reads.push_back(operand);
    if (chance(0.3))
      reads.push_back(op.result);
    std::vector<ValueId> targets;
    for (ValueId operand : op.operands)
      if (graph.value(operand).inputRole != InputRole::RngState &&
          std::find(targets.begin(), targets.end(), operand) == targets.end())
        targets.push_back(operand);
    if (targets.empty())
      continue;
    std::vector<ValueId> grads =
        backwardOp(builder, "op" + std::to_string(op.op),
                   ComputeClass::Pointwise, reads, targets);
    if (grad.size() < graph.numValues())
      grad.resize(graph.numValues(), kNoId);
    for (size_t i = 0; i < targets.size(); ++i) {
      ValueId target = targets[i];
      if (grad[target] == kNoId) {
        grad[target] = grads[i];
        continue;
      }
      grad[target] = builder.op(
          "acc" + std::to_string(grads[i]), "add", ComputeClass::Pointwise,
          {grad[target], grads[i]}, builder.typeOf(target));
      grad.resize(graph.numValues(), kNoId);
    }
  }
  for (size_t id = 0; id < graph.numValues(); ++id) {
    const GraphValue &value = graph.value(static_cast<ValueId>(id));
    if ((value.inputRole == InputRole::Input ||
         value.inputRole == InputRole::Parameter) &&
        id < grad.size() && grad[id] != kNoId)
      graph.markOutput(grad[id], OutputRole::Gradient);
  }
  return builder.take();
}

absl::StatusOr<Graph> readCheckmateGraph(const std::string &file) {
  std::ifstream stream(std::string(REMAT_SHARED_DATA_DIR) + "/checkmate/" +
                       file);
  if (!stream)
    return absl::NotFoundError(absl::StrCat("cannot read ", file));
  std::stringstream text;
  text << stream.rdbuf();
  return importCheckmateJson(text.str());
}

} // namespace remat::test
