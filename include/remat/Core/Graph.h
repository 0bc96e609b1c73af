//===- Graph.h - MLIR-free training graph model -----------------*- C++ -*-===//
//
// Part of remat. The planning core works on this plain graph: operations with
// typed tensor operands and results, tags, names and cost facts. Nothing here
// includes MLIR; the passes in lib/Transforms adapt IR to it, and a framework
// can build it directly.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_CORE_GRAPH_H
#define REMAT_CORE_GRAPH_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace remat {

//===----------------------------------------------------------------------===//
// Vocabulary shared with the dialect (the op interface returns these).
//===----------------------------------------------------------------------===//

/// Element types. C64/C128 are complex numbers of two f32/f64 (PyTorch's
/// complex64/complex128: rotary embeddings built with torch.polar, FFTs);
/// only opaque ops carry them.
enum class DType : uint8_t { F64, F32, F16, BF16, I64, I32, I8, I1, C64, C128 };

/// Storage size of one element; i1 masks are stored one per byte.
int64_t dtypeBytes(DType type);
/// Storage size of `numElements` (>= 0) elements, saturating at INT64_MAX.
int64_t tensorBytes(int64_t numElements, DType type);
std::string_view toString(DType type);
std::optional<DType> parseDType(std::string_view text);

/// What kind of work an operation does. Drives the roofline (which peak
/// FLOP/s applies) and the automatic recompute bans of `min-cut`/`budget`.
enum class ComputeClass : uint8_t {
  Pointwise,
  Reduction,
  Normalization,
  Matmul,
  Conv,
  Attention,
  Random,
  View,
  Collective,
  Other,
};
std::string_view toString(ComputeClass computeClass);
std::optional<ComputeClass> parseComputeClass(std::string_view text);
/// Comma-separated list of every valid spelling, for error messages.
std::string_view allComputeClassNames();

/// How an operand of an op can be recovered from the op's result and its
/// other operands (algebraic derivation). Named after the operation that
/// recovers the operand, written with `c` the op's result, `a`/`b` operands
/// 0/1.
enum class InverseKind : uint8_t {
  SubtractOther,     // c = a + b: a = c - b (or b = c - a)
  AddOther,          // c = a - b: a = c + b
  SubtractFromOther, // c = a - b: b = a - c
  DivideByOther,     // c = a * b: a = c / b  (b must be non-zero)
  MultiplyByOther,   // c = a / b: a = c * b
  DivideOtherBy,     // c = a / b: b = a / c  (c must be non-zero)
  Negate,            // c = -a:   a = -c
  Log,               // c = exp(a): a = log(c)
  Exp,               // c = log(a): a = exp(c)
  Reshape,           // c = reshape(a): a = reshape(c)
  Transpose,         // c = transpose(a, p): a = transpose(c, inverse(p))
  LeakyReluInverse,  // c = leaky_relu(a, s): a = c >= 0 ? c : c / s
  Cast,              // c = cast(a) widening: a = cast(c) back, exact
};
std::string_view toString(InverseKind kind);

/// One derivation rule an op supports.
struct InverseRule {
  /// Operand index of the op that this rule recovers.
  unsigned recoveredOperand = 0;
  InverseKind kind = InverseKind::SubtractOther;
  /// Other operand indices the rule reads besides the op's result 0.
  std::vector<unsigned> otherOperands;
  /// False for floating-point rules whose result can differ in the last bits;
  /// those are only used when inexact derivation is allowed.
  bool exact = false;
};

/// Planning tags (see docs/Dialect.md for their semantics).
struct Tags {
  bool neverRecompute = false;  // never recompute, under any strategy/policy
  bool noAutoRecompute = false; // automatic planning never recomputes it
  bool mustRecompute = false;   // always recompute (hard constraint)
  bool preferRecompute = false; // soft: lean towards recompute
  bool preferSave = false;      // soft: lean towards save
  /// Why the op carries its tags when a tool set them (`remat.tag_note`,
  /// e.g. "set by remat_torch: a higher-order cond call is not replayed"),
  /// quoted by the reasons that cite a tag; empty for a user's own tags.
  std::string note;
};

/// The tags set in `tags`, spelled as the dialect's attributes are without
/// their prefix ("never_recompute", ...), in declaration order.
std::vector<std::string> tagNames(const Tags &tags);

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

using ValueId = int32_t;
using OpId = int32_t;
inline constexpr int32_t kNoId = -1;

struct TensorType {
  std::vector<int64_t> shape;
  DType dtype = DType::F32;
  int64_t numElements() const;
  /// Saturates at INT64_MAX instead of overflowing.
  int64_t bytes() const;
};

/// Role of a graph input. Inputs and parameters are counted apart from the
/// activation peak; RNG state (seed/offset) is tiny metadata that is always
/// available, like PyTorch's saved Philox state.
enum class InputRole : uint8_t { Input, Parameter, Tangent, RngState };
std::string_view toString(InputRole role);

/// Role of a function result.
enum class OutputRole : uint8_t { None, Output, Gradient };

/// Explicit phase, for graphs that carry it (the Checkmate JSON has a
/// `backward` flag). Unset means: classify from tangent reachability.
enum class Phase : uint8_t { Forward, Backward };

struct GraphValue {
  std::string
      name; // user-visible name (`remat.name` or SSA-derived), may be empty
  TensorType type;
  OpId producer = kNoId;              // kNoId for graph inputs
  unsigned resultIndex = 0;           // which result of `producer`
  std::optional<InputRole> inputRole; // set iff this is a graph input
  OutputRole outputRole = OutputRole::None;
};

struct GraphOp {
  std::string name; // `remat.name` tag, may be empty
  std::string kind; // op name, e.g. "remat.matmul", "linalg.matmul"
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  ComputeClass computeClass = ComputeClass::Pointwise;
  double flops = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  /// When set, replaces the roofline prediction (in microseconds). Used by
  /// graphs that come with profiled costs, e.g. Checkmate's `cost_cpu`.
  std::optional<double> fixedTimeUs;
  /// Bytes the op's kernel allocates while it runs and frees before it
  /// returns (scratch, accumulation buffers, layout copies): live at the
  /// op's own step only, on top of its operands and results. Set from
  /// `remat.workspace_bytes`; 0 when unknown.
  int64_t workspaceBytes = 0;
  bool isRandom = false;
  bool isView = false;
  Tags tags;
  std::vector<InverseRule> inverseRules;
  std::optional<Phase> phase;
};

/// A joint (forward + backward) training graph in SSA form. Ops must be added
/// in a topological order (operands defined before use), which the builder
/// enforces; `validate` re-checks a graph assembled by other means.
class Graph {
public:
  ValueId addInput(std::string name, TensorType type, InputRole role);
  /// Adds an op; `op.results` is ignored and filled from `resultTypes`.
  /// Fails if an operand id is out of range.
  absl::StatusOr<OpId> addOp(GraphOp op,
                             const std::vector<TensorType> &resultTypes,
                             const std::vector<std::string> &resultNames = {});
  /// As above, but moves the result types and names into the graph instead
  /// of copying them; both vectors keep their storage (for reuse), with their
  /// elements left moved-from.
  absl::StatusOr<OpId> addOp(GraphOp op, std::vector<TensorType> &&resultTypes,
                             std::vector<std::string> &&resultNames);
  /// Room for `numOps` ops and `numValues` values (inputs and op results),
  /// for a builder that knows the sizes up front; a hint, never a limit.
  void reserve(size_t numOps, size_t numValues);
  /// Marks a value as a function result. Out-of-range ids are ignored here
  /// and reported by `validate`, like any other malformed edge.
  void markOutput(ValueId value, OutputRole role);

  const std::vector<GraphValue> &values() const { return values_; }
  const std::vector<GraphOp> &ops() const { return ops_; }
  const GraphValue &value(ValueId id) const { return values_[id]; }
  const GraphOp &op(OpId id) const { return ops_[id]; }
  /// Editing an op may change its operands, so the user lists are rebuilt.
  GraphOp &mutableOp(OpId id) {
    usersValid_ = false;
    return ops_[id];
  }
  size_t numValues() const { return values_.size(); }
  size_t numOps() const { return ops_.size(); }
  /// Ops reading `value`, in op order (built lazily, cached; the first call
  /// after an edit writes the cache, so a graph shared between threads
  /// should have users() called once before planning concurrently).
  const std::vector<OpId> &users(ValueId value) const;
  /// The value whose storage `value` lives in when every op is evaluated
  /// once: `value` itself, or for the result of a view (`isView` or the
  /// View compute class, with an operand) its first operand's storage,
  /// transitively. Keeping `value` keeps that storage alive; the simulator
  /// counts it once (Simulator.h). The graph must be valid.
  ValueId storageOf(ValueId value) const;

  /// Checks ids, single definition, topological order, roles.
  absl::Status validate() const;
  /// Whether markOutput was called with an id that does not exist (an error
  /// validate() reports; the planner checks the rest on its flat copy).
  bool hasInvalidOutputMarks() const { return !invalidOutputMarks_.empty(); }

private:
  /// Shared by both addOp overloads: moves the types and names out of the
  /// vectors when `takeOver`, else copies them (and leaves them untouched).
  absl::StatusOr<OpId> addOpImpl(GraphOp op,
                                 std::vector<TensorType> &resultTypes,
                                 std::vector<std::string> &resultNames,
                                 bool takeOver);

  std::vector<GraphValue> values_;
  std::vector<GraphOp> ops_;
  std::vector<ValueId> invalidOutputMarks_;
  mutable std::vector<std::vector<OpId>> users_;
  mutable bool usersValid_ = false;
};

/// Forward/backward split, as AOTAutograd computes it.
struct Classification {
  std::vector<Phase> opPhase; // per op
  /// Values produced in forward (or graph inputs other than tangents) that a
  /// backward op reads directly. Sorted by id.
  std::vector<ValueId> neededByBackward;
  /// Every value produced by a forward op, sorted by id.
  std::vector<ValueId> forwardValues;
};

/// Backward = ops that (transitively) read a tangent, unless an op carries an
/// explicit phase. Fails with a precise message on an inconsistent graph
/// (e.g. an explicit forward op reading a backward value).
absl::StatusOr<Classification> classify(const Graph &graph);

/// `status` marked as being about op `op` of the graph, so that a caller
/// holding the graph's source (remat-plan) reports it at that op rather
/// than at the whole function; the message is unchanged.
absl::Status atOp(absl::Status status, OpId op);
/// The op an error is about (atOp), if it names one.
std::optional<OpId> errorOp(const absl::Status &status);

} // namespace remat

#endif // REMAT_CORE_GRAPH_H
