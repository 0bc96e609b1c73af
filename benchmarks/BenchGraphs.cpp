//===- BenchGraphs.cpp - Graphs the benchmarks plan -----------------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "BenchGraphs.h"

#include "TestGraphs.h"

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace remat::bench {

LlamaStackShape llama2_7b(int layers) {
  LlamaStackShape shape;
  shape.layers = layers;
  return shape;
}

LlamaStackShape llama2_70b(int layers) {
  LlamaStackShape shape;
  shape.layers = layers;
  shape.hidden = 8192;
  shape.intermediate = 28672;
  shape.heads = 64;
  shape.kvHeads = 8;
  return shape;
}

//===----------------------------------------------------------------------===//
// Llama stacks
//===----------------------------------------------------------------------===//

namespace {

using test::GraphBuilder;

/// How the backward of one forward op is written (the derivative formulas
/// of PyTorch's decompositions, reduced to the values each one reads).
enum class BackwardRule : uint8_t {
  Unary,       // one op reading the gradient and the saved values
  View,        // one view of the gradient back to the operand's shape
  Expand,      // a sum of the gradient over the broadcast dimensions
  Mean,        // expand the gradient back, then divide
  PassThrough, // the gradient flows to every operand unchanged (add)
  Mul,         // grad_a = g * b, grad_b = g * a, summed where broadcast
  Slice,       // slice_backward: the gradient padded with zeros
  Cat,         // one slice of the gradient per operand
  Matmul,      // grad_a = g @ b^T, grad_b = a^T @ g
  Attention,   // one fused attention backward reading q, k, v, out, lse
  Embedding,   // embedding_dense_backward reading the indices
  NllLoss,     // nll_loss_backward reading the labels
};

struct TapeEntry {
  BackwardRule rule;
  std::string name;
  ValueId result;
  std::vector<ValueId> operands;
  /// Values the backward reads besides the incoming gradient (Unary,
  /// Attention, Embedding, NllLoss).
  std::vector<ValueId> saved;
  ComputeClass backwardClass = ComputeClass::Pointwise;
};

/// Builds the forward of a Llama stack op by op, recording a tape, then
/// writes the backward from the tape in reverse, accumulating gradients of
/// values with several users by adds, as autograd does.
class LlamaTracer {
public:
  explicit LlamaTracer(const LlamaStackShape &shape) : shape_(shape) {}

  Graph build();

private:
  // Forward building blocks.
  ValueId record(ValueId result, BackwardRule rule, std::string name,
                 std::vector<ValueId> operands, std::vector<ValueId> saved = {},
                 ComputeClass backwardClass = ComputeClass::Pointwise);
  ValueId forwardOp(const std::string &name, const std::string &kind,
                    ComputeClass computeClass,
                    const std::vector<ValueId> &operands, TensorType type);
  ValueId unary(const std::string &name, const std::string &kind,
                ComputeClass computeClass, ValueId x, TensorType type,
                std::vector<ValueId> savedInputs, bool savesOutput);
  ValueId view(const std::string &name, ValueId x, std::vector<int64_t> shape);
  ValueId convert(const std::string &name, ValueId x, DType dtype);
  ValueId mul(const std::string &name, ValueId a, ValueId b);
  ValueId add(const std::string &name, ValueId a, ValueId b);
  ValueId matmul(const std::string &name, ValueId a, ValueId b);
  ValueId linear(const std::string &name, ValueId x, ValueId weight);
  ValueId rmsNorm(const std::string &name, ValueId x, ValueId weight);
  ValueId rotary(const std::string &name, ValueId x, ValueId cos, ValueId sin);
  ValueId repeatKv(const std::string &name, ValueId x);
  ValueId decoderLayer(int layer, ValueId x, ValueId cos, ValueId sin);

  // Backward.
  void accumulate(ValueId target, ValueId gradient);
  ValueId backwardOp(const std::string &name, const std::string &kind,
                     ComputeClass computeClass, std::vector<ValueId> reads,
                     TensorType type);
  ValueId sumTo(const std::string &name, ValueId gradient, ValueId like);
  void differentiate(const TapeEntry &entry);

  bool requiresGrad(ValueId value) const {
    return static_cast<size_t>(value) < requiresGrad_.size() &&
           requiresGrad_[value];
  }
  void setRequiresGrad(ValueId value, bool flag) {
    if (requiresGrad_.size() <= static_cast<size_t>(value))
      requiresGrad_.resize(value + 1, 0);
    requiresGrad_[value] = flag;
  }
  TensorType typeOf(ValueId value) { return builder_.typeOf(value); }
  /// A copy: adding ops reallocates the graph's value storage.
  std::vector<int64_t> shapeOf(ValueId value) {
    return builder_.typeOf(value).shape;
  }
  ValueId parameter(const std::string &name, std::vector<int64_t> shape) {
    ValueId id = builder_.input(name, std::move(shape), InputRole::Parameter);
    setRequiresGrad(id, true);
    parameters_.push_back(id);
    return id;
  }

  LlamaStackShape shape_;
  GraphBuilder builder_{DType::BF16};
  std::vector<uint8_t> requiresGrad_;
  std::vector<TapeEntry> tape_;
  std::vector<ValueId> gradient_;
  std::vector<ValueId> parameters_;
};

ValueId LlamaTracer::record(ValueId result, BackwardRule rule, std::string name,
                            std::vector<ValueId> operands,
                            std::vector<ValueId> saved,
                            ComputeClass backwardClass) {
  bool anyGrad = std::any_of(operands.begin(), operands.end(),
                             [&](ValueId v) { return requiresGrad(v); });
  setRequiresGrad(result, anyGrad);
  if (anyGrad)
    tape_.push_back(TapeEntry{rule, std::move(name), result,
                              std::move(operands), std::move(saved),
                              backwardClass});
  return result;
}

ValueId LlamaTracer::forwardOp(const std::string &name, const std::string &kind,
                               ComputeClass computeClass,
                               const std::vector<ValueId> &operands,
                               TensorType type) {
  return builder_.op(name, kind, computeClass, operands, std::move(type), name);
}

ValueId LlamaTracer::unary(const std::string &name, const std::string &kind,
                           ComputeClass computeClass, ValueId x,
                           TensorType type, std::vector<ValueId> savedInputs,
                           bool savesOutput) {
  ValueId result = forwardOp(name, kind, computeClass, {x}, std::move(type));
  if (savesOutput)
    savedInputs.push_back(result);
  return record(result, BackwardRule::Unary, name, {x}, std::move(savedInputs),
                computeClass == ComputeClass::Normalization
                    ? ComputeClass::Normalization
                    : ComputeClass::Pointwise);
}

ValueId LlamaTracer::view(const std::string &name, ValueId x,
                          std::vector<int64_t> shape) {
  ValueId result = forwardOp(name, "view", ComputeClass::View, {x},
                             TensorType{std::move(shape), typeOf(x).dtype});
  return record(result, BackwardRule::View, name, {x});
}

ValueId LlamaTracer::convert(const std::string &name, ValueId x, DType dtype) {
  return unary(name, "convert_element_type", ComputeClass::Pointwise, x,
               TensorType{shapeOf(x), dtype}, {}, false);
}

ValueId LlamaTracer::mul(const std::string &name, ValueId a, ValueId b) {
  // The result has the shape of the larger operand (broadcast).
  ValueId larger = typeOf(a).numElements() >= typeOf(b).numElements() ? a : b;
  TensorType type{shapeOf(larger), typeOf(a).dtype};
  ValueId result =
      forwardOp(name, "mul", ComputeClass::Pointwise, {a, b}, std::move(type));
  return record(result, BackwardRule::Mul, name, {a, b});
}

ValueId LlamaTracer::add(const std::string &name, ValueId a, ValueId b) {
  ValueId result =
      forwardOp(name, "add", ComputeClass::Pointwise, {a, b}, typeOf(a));
  // Residual adds are invertible (a = c - b): inexact in floating point.
  builder_.producer(result).inverseRules = {
      InverseRule{0, InverseKind::SubtractOther, {1}, false},
      InverseRule{1, InverseKind::SubtractOther, {0}, false}};
  return record(result, BackwardRule::PassThrough, name, {a, b});
}

ValueId LlamaTracer::matmul(const std::string &name, ValueId a, ValueId b) {
  const std::vector<int64_t> lhs = shapeOf(a), rhs = shapeOf(b);
  TensorType type{{lhs[0], rhs[1]}, typeOf(a).dtype};
  ValueId result =
      forwardOp(name, "mm", ComputeClass::Matmul, {a, b}, std::move(type));
  builder_.producer(result).flops = 2.0 * static_cast<double>(lhs[0]) *
                                    static_cast<double>(lhs[1]) *
                                    static_cast<double>(rhs[1]);
  return record(result, BackwardRule::Matmul, name, {a, b}, {},
                ComputeClass::Matmul);
}

ValueId LlamaTracer::linear(const std::string &name, ValueId x,
                            ValueId weight) {
  // nn.Linear as AOTAutograd traces it: view to 2-D, t(weight), mm, view
  // back.
  const std::vector<int64_t> xShape = shapeOf(x);
  const std::vector<int64_t> wShape = shapeOf(weight); // {out, in}
  int64_t rows = 1;
  for (size_t i = 0; i + 1 < xShape.size(); ++i)
    rows *= xShape[i];
  std::vector<int64_t> outShape = xShape;
  outShape.back() = wShape[0];
  ValueId x2 = view(name + ".view_in", x, {rows, xShape.back()});
  ValueId wt = view(name + ".t", weight, {wShape[1], wShape[0]});
  ValueId y = matmul(name, x2, wt);
  return view(name + ".view_out", y, std::move(outShape));
}

ValueId LlamaTracer::rmsNorm(const std::string &name, ValueId x,
                             ValueId weight) {
  // LlamaRMSNorm: x32 = x.float(); var = x32.pow(2).mean(-1, keepdim);
  // y = x32 * rsqrt(var + eps); weight * y.to(bf16).
  std::vector<int64_t> statShape = shapeOf(x);
  statShape.back() = 1;
  ValueId x32 = convert(name + ".to_f32", x, DType::F32);
  ValueId squared = unary(name + ".pow", "pow", ComputeClass::Pointwise, x32,
                          typeOf(x32), {x32}, false);
  ValueId variance = forwardOp(name + ".mean", "mean", ComputeClass::Reduction,
                               {squared}, TensorType{statShape, DType::F32});
  record(variance, BackwardRule::Mean, name + ".mean", {squared});
  ValueId shifted = forwardOp(name + ".add_eps", "add", ComputeClass::Pointwise,
                              {variance}, TensorType{statShape, DType::F32});
  record(shifted, BackwardRule::PassThrough, name + ".add_eps", {variance});
  ValueId inverse = unary(name + ".rsqrt", "rsqrt", ComputeClass::Pointwise,
                          shifted, typeOf(shifted), {}, true);
  ValueId normalized = mul(name + ".scale", x32, inverse);
  ValueId narrowed = convert(name + ".to_bf16", normalized, DType::BF16);
  return mul(name, weight, narrowed);
}

ValueId LlamaTracer::rotary(const std::string &name, ValueId x, ValueId cos,
                            ValueId sin) {
  // apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, rotate_half =
  // cat(-x2, x1).
  std::vector<int64_t> half = shapeOf(x);
  half.back() /= 2;
  TensorType halfType{half, typeOf(x).dtype};
  ValueId x1 =
      forwardOp(name + ".x1", "slice", ComputeClass::View, {x}, halfType);
  record(x1, BackwardRule::Slice, name + ".x1", {x});
  ValueId x2 =
      forwardOp(name + ".x2", "slice", ComputeClass::View, {x}, halfType);
  record(x2, BackwardRule::Slice, name + ".x2", {x});
  ValueId negated = unary(name + ".neg", "neg", ComputeClass::Pointwise, x2,
                          halfType, {}, false);
  ValueId rotated = forwardOp(name + ".cat", "cat", ComputeClass::Pointwise,
                              {negated, x1}, typeOf(x));
  record(rotated, BackwardRule::Cat, name + ".cat", {negated, x1});
  ValueId withCos = mul(name + ".mul_cos", x, cos);
  ValueId withSin = mul(name + ".mul_sin", rotated, sin);
  return add(name, withCos, withSin);
}

ValueId LlamaTracer::repeatKv(const std::string &name, ValueId x) {
  // repeat_kv: x[:, :, None].expand(b, kv, rep, s, d).reshape(b, kv*rep, s, d)
  // (the reshape of a non-contiguous expand copies: clone + view).
  const int64_t repeats = shape_.heads / shape_.kvHeads;
  if (repeats == 1)
    return x;
  std::vector<int64_t> s = shapeOf(x); // {b, kv, s, d}
  ValueId unsqueezed =
      view(name + ".unsqueeze", x, {s[0], s[1], 1, s[2], s[3]});
  TensorType expandedType{{s[0], s[1], repeats, s[2], s[3]}, typeOf(x).dtype};
  ValueId expanded = forwardOp(name + ".expand", "expand", ComputeClass::View,
                               {unsqueezed}, expandedType);
  record(expanded, BackwardRule::Expand, name + ".expand", {unsqueezed});
  ValueId copied = unary(name + ".clone", "clone", ComputeClass::Pointwise,
                         expanded, expandedType, {}, false);
  return view(name + ".reshape", copied, {s[0], s[1] * repeats, s[2], s[3]});
}

ValueId LlamaTracer::decoderLayer(int layer, ValueId x, ValueId cos,
                                  ValueId sin) {
  const int64_t b = shape_.batch, s = shape_.sequence, h = shape_.hidden;
  const int64_t headDim = h / shape_.heads;
  const int64_t kvDim = headDim * shape_.kvHeads;
  const std::string prefix = "layers." + std::to_string(layer) + ".";
  ValueId inputNorm = parameter(prefix + "input_layernorm.weight", {h});
  ValueId wq = parameter(prefix + "q_proj.weight", {h, h});
  ValueId wk = parameter(prefix + "k_proj.weight", {kvDim, h});
  ValueId wv = parameter(prefix + "v_proj.weight", {kvDim, h});
  ValueId wo = parameter(prefix + "o_proj.weight", {h, h});
  ValueId postNorm = parameter(prefix + "post_attention_layernorm.weight", {h});
  ValueId wGate =
      parameter(prefix + "gate_proj.weight", {shape_.intermediate, h});
  ValueId wUp = parameter(prefix + "up_proj.weight", {shape_.intermediate, h});
  ValueId wDown =
      parameter(prefix + "down_proj.weight", {h, shape_.intermediate});

  ValueId normed = rmsNorm(prefix + "input_layernorm", x, inputNorm);
  auto heads = [&](const std::string &name, ValueId projected, int64_t count) {
    ValueId split = view(name + ".view", projected, {b, s, count, headDim});
    return view(name + ".transpose", split, {b, count, s, headDim});
  };
  ValueId q =
      heads(prefix + "q", linear(prefix + "q_proj", normed, wq), shape_.heads);
  ValueId k = heads(prefix + "k", linear(prefix + "k_proj", normed, wk),
                    shape_.kvHeads);
  ValueId v = heads(prefix + "v", linear(prefix + "v_proj", normed, wv),
                    shape_.kvHeads);
  ValueId qRot = rotary(prefix + "q_rotary", q, cos, sin);
  ValueId kRot = rotary(prefix + "k_rotary", k, cos, sin);
  ValueId kAll = repeatKv(prefix + "repeat_k", kRot);
  ValueId vAll = repeatKv(prefix + "repeat_v", v);

  std::vector<ValueId> attention = builder_.multiOp(
      prefix + "attention", "scaled_dot_product_flash_attention",
      ComputeClass::Attention, {qRot, kAll, vAll},
      {typeOf(qRot), TensorType{{b, shape_.heads, s}, DType::F32}},
      {prefix + "attention", prefix + "attention.lse"});
  GraphOp &attentionOp = builder_.producer(attention[0]);
  // Causal: half of the 4*b*s^2*h FLOPs of full attention.
  attentionOp.flops = 2.0 * static_cast<double>(b) * static_cast<double>(s) *
                      static_cast<double>(s) * static_cast<double>(h);
  attentionOp.tags.noAutoRecompute = true;
  setRequiresGrad(attention[1], false);
  record(attention[0], BackwardRule::Attention, prefix + "attention",
         {qRot, kAll, vAll}, {qRot, kAll, vAll, attention[0], attention[1]},
         ComputeClass::Attention);

  ValueId merged = view(prefix + "attention.transpose", attention[0],
                        {b, s, shape_.heads, headDim});
  ValueId contiguous =
      unary(prefix + "attention.clone", "clone", ComputeClass::Pointwise,
            merged, typeOf(merged), {}, false);
  ValueId context = view(prefix + "attention.view", contiguous, {b, s, h});
  ValueId attentionOut = linear(prefix + "o_proj", context, wo);
  ValueId residual = add(prefix + "attention_residual", x, attentionOut);

  ValueId normed2 =
      rmsNorm(prefix + "post_attention_layernorm", residual, postNorm);
  ValueId gate = linear(prefix + "gate_proj", normed2, wGate);
  ValueId up = linear(prefix + "up_proj", normed2, wUp);
  ValueId activated = unary(prefix + "silu", "silu", ComputeClass::Pointwise,
                            gate, typeOf(gate), {gate}, false);
  ValueId gated = mul(prefix + "swiglu", activated, up);
  ValueId down = linear(prefix + "down_proj", gated, wDown);
  return add(prefix + "mlp_residual", residual, down);
}

void LlamaTracer::accumulate(ValueId target, ValueId gradient) {
  if (!requiresGrad(target))
    return;
  if (gradient_.size() <= static_cast<size_t>(target))
    gradient_.resize(target + 1, kNoId);
  if (gradient_[target] == kNoId) {
    gradient_[target] = gradient;
    return;
  }
  gradient_[target] =
      builder_.op("grad_acc", "add", ComputeClass::Pointwise,
                  {gradient_[target], gradient}, typeOf(target));
}

ValueId LlamaTracer::backwardOp(const std::string &name,
                                const std::string &kind,
                                ComputeClass computeClass,
                                std::vector<ValueId> reads, TensorType type) {
  return builder_.op(name, kind, computeClass, std::move(reads),
                     std::move(type));
}

ValueId LlamaTracer::sumTo(const std::string &name, ValueId gradient,
                           ValueId like) {
  if (typeOf(gradient).numElements() == typeOf(like).numElements())
    return gradient;
  return backwardOp(name + ".sum_to_size", "sum", ComputeClass::Reduction,
                    {gradient}, typeOf(like));
}

void LlamaTracer::differentiate(const TapeEntry &entry) {
  if (static_cast<size_t>(entry.result) >= gradient_.size() ||
      gradient_[entry.result] == kNoId)
    return;
  const ValueId g = gradient_[entry.result];
  const std::string bwd = entry.name + ".backward";
  const std::vector<ValueId> &ops = entry.operands;
  switch (entry.rule) {
  case BackwardRule::Unary: {
    std::vector<ValueId> reads = {g};
    reads.insert(reads.end(), entry.saved.begin(), entry.saved.end());
    accumulate(ops[0], backwardOp(bwd, "unary_backward", entry.backwardClass,
                                  std::move(reads), typeOf(ops[0])));
    return;
  }
  case BackwardRule::View:
    accumulate(ops[0], backwardOp(bwd, "view", ComputeClass::View, {g},
                                  typeOf(ops[0])));
    return;
  case BackwardRule::Expand:
    accumulate(ops[0], backwardOp(bwd, "sum", ComputeClass::Reduction, {g},
                                  typeOf(ops[0])));
    return;
  case BackwardRule::Mean: {
    ValueId expanded = backwardOp(bwd + ".expand", "expand", ComputeClass::View,
                                  {g}, typeOf(ops[0]));
    accumulate(ops[0], backwardOp(bwd, "div", ComputeClass::Pointwise,
                                  {expanded}, typeOf(ops[0])));
    return;
  }
  case BackwardRule::PassThrough:
    for (ValueId operand : ops)
      accumulate(operand, g);
    return;
  case BackwardRule::Mul:
    for (size_t i = 0; i < 2; ++i) {
      if (!requiresGrad(ops[i]))
        continue;
      ValueId product =
          backwardOp(bwd + (i == 0 ? ".lhs" : ".rhs"), "mul",
                     ComputeClass::Pointwise, {g, ops[1 - i]}, typeOf(g));
      accumulate(ops[i], sumTo(bwd, product, ops[i]));
    }
    return;
  case BackwardRule::Slice:
    accumulate(ops[0],
               backwardOp(bwd, "slice_backward", ComputeClass::Pointwise, {g},
                          typeOf(ops[0])));
    return;
  case BackwardRule::Cat:
    for (ValueId operand : ops)
      accumulate(operand, backwardOp(bwd, "slice", ComputeClass::View, {g},
                                     typeOf(operand)));
    return;
  case BackwardRule::Matmul: {
    const ValueId a = ops[0], b = ops[1];
    const std::vector<int64_t> aShape = shapeOf(a), bShape = shapeOf(b);
    if (requiresGrad(a)) {
      ValueId bT =
          backwardOp(bwd + ".rhs_t", "permute", ComputeClass::View, {b},
                     TensorType{{bShape[1], bShape[0]}, typeOf(b).dtype});
      ValueId gradA = backwardOp(bwd + ".lhs", "mm", ComputeClass::Matmul,
                                 {g, bT}, typeOf(a));
      builder_.producer(gradA).flops = 2.0 * static_cast<double>(aShape[0]) *
                                       static_cast<double>(aShape[1]) *
                                       static_cast<double>(bShape[1]);
      accumulate(a, gradA);
    }
    if (requiresGrad(b)) {
      ValueId aT =
          backwardOp(bwd + ".lhs_t", "permute", ComputeClass::View, {a},
                     TensorType{{aShape[1], aShape[0]}, typeOf(a).dtype});
      ValueId gradB = backwardOp(bwd + ".rhs", "mm", ComputeClass::Matmul,
                                 {aT, g}, typeOf(b));
      builder_.producer(gradB).flops = 2.0 * static_cast<double>(aShape[0]) *
                                       static_cast<double>(aShape[1]) *
                                       static_cast<double>(bShape[1]);
      accumulate(b, gradB);
    }
    return;
  }
  case BackwardRule::Attention: {
    std::vector<ValueId> reads = {g};
    reads.insert(reads.end(), entry.saved.begin(), entry.saved.end());
    std::vector<ValueId> grads =
        builder_.multiOp(bwd, "scaled_dot_product_flash_attention_backward",
                         ComputeClass::Attention, std::move(reads),
                         {typeOf(ops[0]), typeOf(ops[1]), typeOf(ops[2])});
    builder_.producer(grads[0]).flops =
        2.5 * builder_.graph()
                  .op(builder_.graph().value(entry.result).producer)
                  .flops;
    for (size_t i = 0; i < 3; ++i)
      accumulate(ops[i], grads[i]);
    return;
  }
  case BackwardRule::Embedding:
  case BackwardRule::NllLoss: {
    std::vector<ValueId> reads = {g};
    reads.insert(reads.end(), entry.saved.begin(), entry.saved.end());
    // The differentiable operand is the one that requires a gradient.
    for (ValueId operand : ops)
      if (requiresGrad(operand))
        accumulate(operand, backwardOp(bwd,
                                       entry.rule == BackwardRule::Embedding
                                           ? "embedding_dense_backward"
                                           : "nll_loss_backward",
                                       ComputeClass::Pointwise,
                                       std::move(reads), typeOf(operand)));
    return;
  }
  }
}

Graph LlamaTracer::build() {
  const int64_t b = shape_.batch, s = shape_.sequence, h = shape_.hidden;
  const int64_t headDim = h / shape_.heads;
  ValueId tokens = builder_.input("input_ids", TensorType{{b, s}, DType::I64},
                                  InputRole::Input);
  ValueId labels = builder_.input("labels", TensorType{{b * s}, DType::I64},
                                  InputRole::Input);
  ValueId cos =
      builder_.input("rope_cos", {b, 1, s, headDim}, InputRole::Input);
  ValueId sin =
      builder_.input("rope_sin", {b, 1, s, headDim}, InputRole::Input);
  ValueId embedTable = parameter("embed_tokens.weight", {shape_.vocabulary, h});
  ValueId lmHead = parameter("lm_head.weight", {shape_.vocabulary, h});
  ValueId finalNorm = parameter("norm.weight", {h});

  ValueId x = forwardOp("embed_tokens", "embedding", ComputeClass::Other,
                        {embedTable, tokens}, builder_.type({b, s, h}));
  record(x, BackwardRule::Embedding, "embed_tokens", {embedTable, tokens},
         {tokens});
  for (int layer = 0; layer < shape_.layers; ++layer)
    x = decoderLayer(layer, x, cos, sin);
  ValueId normed = rmsNorm("norm", x, finalNorm);
  ValueId logits = linear("lm_head", normed, lmHead);
  ValueId logits32 = convert("logits.float", logits, DType::F32);
  ValueId flat = view("logits.view", logits32, {b * s, shape_.vocabulary});
  ValueId logProbs =
      unary("log_softmax", "log_softmax", ComputeClass::Normalization, flat,
            typeOf(flat), {}, true);
  ValueId loss = forwardOp("loss", "nll_loss_forward", ComputeClass::Reduction,
                           {logProbs, labels}, TensorType{{}, DType::F32});
  record(loss, BackwardRule::NllLoss, "loss", {logProbs, labels}, {labels});
  Graph &graph = builder_.graph();
  graph.markOutput(loss, OutputRole::Output);

  ValueId tangent = builder_.input("tangent_loss", TensorType{{}, DType::F32},
                                   InputRole::Tangent);
  gradient_.assign(graph.numValues(), kNoId);
  gradient_[loss] = tangent;
  for (auto it = tape_.rbegin(); it != tape_.rend(); ++it)
    differentiate(*it);
  for (ValueId param : parameters_)
    if (static_cast<size_t>(param) < gradient_.size() &&
        gradient_[param] != kNoId)
      graph.markOutput(gradient_[param], OutputRole::Gradient);
  return builder_.take();
}

} // namespace

Graph buildLlamaStack(const LlamaStackShape &shape) {
  return LlamaTracer(shape).build();
}

//===----------------------------------------------------------------------===//
// Random layered DAGs
//===----------------------------------------------------------------------===//

Graph buildRandomLayeredDag(const RandomDagOptions &options) {
  std::mt19937_64 rng(options.seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  auto chance = [&](double p) {
    return std::uniform_real_distribution<double>(0, 1)(rng) < p;
  };
  GraphBuilder builder(DType::F32);
  Graph &graph = builder.graph();

  constexpr int kNumInputs = 4, kNumParameters = 8;
  std::vector<std::vector<ValueId>> layers(1);
  std::vector<ValueId> parameters;
  for (int i = 0; i < kNumInputs; ++i)
    layers[0].push_back(builder.input(
        "x" + std::to_string(i), {1024 * uniform(1, 64)}, InputRole::Input));
  for (int i = 0; i < kNumParameters; ++i) {
    parameters.push_back(builder.input("w" + std::to_string(i),
                                       {1024 * uniform(1, 64)},
                                       InputRole::Parameter));
  }

  struct ForwardOp {
    std::vector<ValueId> operands;
    ValueId result;
  };
  const int64_t numForward = std::max<int64_t>(1, options.numOps / 2);
  std::vector<ForwardOp> forward;
  forward.reserve(numForward);
  // Forward readers of each value (indices into `forward`), for the backward
  // that mirrors them.
  std::vector<std::vector<int32_t>> readers(graph.numValues());
  for (int64_t i = 0; i < numForward; ++i) {
    if (i % options.layerWidth == 0)
      layers.emplace_back();
    const int64_t current = static_cast<int64_t>(layers.size()) - 1;
    auto pickFrom = [&](int64_t layer) {
      const std::vector<ValueId> &values = layers[layer];
      return values[uniform(0, static_cast<int64_t>(values.size()) - 1)];
    };
    auto pickOperand = [&] {
      double p = std::uniform_real_distribution<double>(0, 1)(rng);
      if (p < 0.75 || current < 3)
        return pickFrom(current - 1);
      if (p < 0.95)
        return pickFrom(current - uniform(2, std::min<int64_t>(4, current)));
      return pickFrom(uniform(0, current - 1)); // a long skip connection
    };
    int pick = static_cast<int>(uniform(0, 99));
    ComputeClass computeClass = ComputeClass::Pointwise;
    if (pick < 15)
      computeClass = ComputeClass::Matmul;
    else if (pick < 25)
      computeClass = ComputeClass::Reduction;
    else if (pick < 35)
      computeClass = ComputeClass::View;
    else if (pick < 45)
      computeClass = ComputeClass::Normalization;
    std::vector<ValueId> operands = {pickOperand()};
    int arity = static_cast<int>(uniform(1, 3));
    for (int k = 1; k < arity; ++k) {
      ValueId other = pickOperand();
      if (std::find(operands.begin(), operands.end(), other) == operands.end())
        operands.push_back(other);
    }
    if (computeClass == ComputeClass::Matmul)
      operands.push_back(parameters[uniform(0, kNumParameters - 1)]);
    int64_t elements = 1024 * uniform(1, 64);
    if (computeClass == ComputeClass::View)
      elements = graph.value(operands.front()).type.numElements();
    ValueId result =
        builder.op("", "fwd", computeClass, operands, builder.type({elements}));
    if (computeClass == ComputeClass::Matmul)
      builder.producer(result).flops = 512.0 * static_cast<double>(elements);
    readers.resize(graph.numValues());
    for (ValueId operand : operands)
      readers[operand].push_back(static_cast<int32_t>(forward.size()));
    forward.push_back(ForwardOp{std::move(operands), result});
    layers.back().push_back(result);
  }

  // Tangents for the forward values nothing reads (the outputs).
  std::vector<ValueId> tangent(forward.size(), kNoId);
  for (size_t i = 0; i < forward.size(); ++i) {
    if (!readers[forward[i].result].empty())
      continue;
    graph.markOutput(forward[i].result, OutputRole::Output);
    tangent[i] = builder.input("", builder.typeOf(forward[i].result),
                               InputRole::Tangent);
  }
  // The mirrored backward: one op per forward op, in reverse, reading the
  // gradients its readers' backward ops produced (summed inside the op) and
  // some of the forward values its derivative needs.
  std::vector<ValueId> gradientOf(forward.size(), kNoId);
  for (size_t i = forward.size(); i-- > 0;) {
    const ForwardOp &op = forward[i];
    std::vector<ValueId> reads;
    if (tangent[i] != kNoId)
      reads.push_back(tangent[i]);
    for (int32_t reader : readers[op.result])
      reads.push_back(gradientOf[reader]);
    for (ValueId operand : op.operands)
      if (chance(0.5))
        reads.push_back(operand);
    if (chance(0.25))
      reads.push_back(op.result);
    gradientOf[i] = builder.op("", "bwd", ComputeClass::Pointwise,
                               std::move(reads), builder.typeOf(op.result));
  }
  // Parameter gradients: one op per parameter summing what its readers got.
  for (ValueId parameter : parameters) {
    std::vector<ValueId> reads;
    for (int32_t reader : readers[parameter])
      reads.push_back(gradientOf[reader]);
    if (reads.empty())
      continue;
    ValueId gradient = builder.op("", "bwd.param", ComputeClass::Reduction,
                                  std::move(reads), builder.typeOf(parameter));
    graph.markOutput(gradient, OutputRole::Gradient);
  }
  return builder.take();
}

} // namespace remat::bench
