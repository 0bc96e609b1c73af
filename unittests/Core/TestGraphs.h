//===- TestGraphs.h - Graphs shared by the core tests -----------*- C++ -*-===//
//
// Part of remat. Builders for the reference graphs of ../shared/REFERENCES.md
// (Checkmate's linear graph, a Megatron GPT layer, a Llama-style decoder
// layer) and for seeded random joint graphs. Tests, the `optimal` tests and
// the benchmarks use them, so their shapes are part of what the tests assert.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_CORE_TESTGRAPHS_H
#define REMAT_UNITTESTS_CORE_TESTGRAPHS_H

#include "remat/Core/Graph.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat::test {

/// A graph of ../shared/data/checkmate/ (`file` is its name there),
/// imported as remat-translate --import-checkmate-json does.
absl::StatusOr<Graph> readCheckmateGraph(const std::string &file);

/// Checkmate's gen_linear_graph(n): 2n+1 ops of unit cost (fixedTimeUs = 1)
/// and `unitBytes` bytes each. Ops 0..n-1 are forward, n..2n backward (by
/// explicit phase; there is no tangent); op i reads op i-1, and backward op
/// 2n-i also reads forward op i. The last op's result is the gradient.
Graph buildCheckmateLinearGraph(int n, int64_t unitBytes = 1);

/// Builds a joint graph op by op, with backward ops written the way
/// AOTAutograd emits them (one op per forward op, reading the incoming
/// gradient and whatever the derivative needs).
class GraphBuilder {
public:
  explicit GraphBuilder(DType dtype = DType::BF16) : dtype_(dtype) {}

  ValueId input(std::string name, std::vector<int64_t> shape,
                InputRole role = InputRole::Input);
  ValueId input(std::string name, TensorType type, InputRole role);
  /// One op with one result; returns the result.
  ValueId op(std::string opName, std::string kind, ComputeClass computeClass,
             std::vector<ValueId> operands, TensorType resultType,
             std::string resultName = "");
  /// One op with several results.
  std::vector<ValueId> multiOp(std::string opName, std::string kind,
                               ComputeClass computeClass,
                               std::vector<ValueId> operands,
                               std::vector<TensorType> resultTypes,
                               std::vector<std::string> resultNames = {});
  /// The producer of `value`, to set tags, flops, inverse rules.
  GraphOp &producer(ValueId value);
  TensorType type(std::vector<int64_t> shape) const {
    return TensorType{std::move(shape), dtype_};
  }
  TensorType typeOf(ValueId value) const { return graph_.value(value).type; }
  Graph &graph() { return graph_; }
  Graph take() { return std::move(graph_); }

private:
  DType dtype_;
  Graph graph_;
};

/// Shape parameters of a transformer layer: sequence, micro-batch, hidden,
/// heads (Korthikanti et al.'s s, b, h, a).
struct LayerShape {
  int64_t s = 2048, b = 4, h = 4096, a = 32;
};

/// Names the Megatron layer gives the attention core (QK^T, softmax,
/// dropout, attention over V): a `save_any_names_but_these` policy over them
/// is Megatron's selective recomputation.
std::vector<std::string> megatronAttentionCoreNames();

/// A GPT layer exactly as Korthikanti et al. count it: bf16 activations,
/// 1-byte dropout masks (random ops reading an RngState input), layer-norm
/// statistics ignored. The layer input `x` is a primal input, weights are
/// parameters, `dy` the tangent. Values backward reads total sbh(34+5as/h)
/// bytes.
Graph buildMegatronLayer(const LayerShape &shape);

struct LlamaOptions {
  LayerShape shape{1024, 2, 1024, 8};
  /// Tag the fused attention op no_auto_recompute (as Thunder does) or
  /// never_recompute.
  bool attentionNoAutoRecompute = true;
  bool attentionNeverRecompute = false;
  /// Add a regulariser reading the mlpwo output (`aux = sum(square(wo))`) so
  /// that backward needs it, and a final norm reading the layer output, so
  /// that `mlpwo = layer_out - h` is a useful derivation.
  bool mlpOutputRegularizer = false;
  /// Declare inverse rules (inexact, floating point) on the residual adds.
  bool residualInverseRules = true;
  /// Element type of activations and weights.
  DType dtype = DType::BF16;
};

/// A Llama-style decoder layer with MaxText's names: decoder_layer_input,
/// query_proj, key_proj, value_proj, attention (fused, class attention),
/// out_proj, h (residual), mlpwi_0, mlpwi_1, mlpwo, layer_out.
Graph buildLlamaLayer(const LlamaOptions &options = {});

/// A random joint graph: a forward DAG of `numForwardOps` ops over a few
/// inputs/parameters (pointwise, matmul, reduction, view, random ops with or
/// without an RNG-state input, random tags, random sizes), a loss, and a
/// backward op per forward op reading its gradient and a random subset of
/// the op's operands and results. Deterministic in `seed`.
struct RandomGraphOptions {
  int numForwardOps = 12;
  bool randomTags = true;
  bool withRandomOps = true;
};
Graph buildRandomJointGraph(uint64_t seed, const RandomGraphOptions &options);

} // namespace remat::test

#endif // REMAT_UNITTESTS_CORE_TESTGRAPHS_H
