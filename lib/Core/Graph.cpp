//===- Graph.cpp - MLIR-free training graph model -------------------------===//
//
// Part of remat. Building, checking and classifying the joint training graph.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Graph.h"

#include "FlatGraph.h"
#include "StringUtil.h"

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace remat {

namespace {
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

/// a * b for non-negative operands, saturating at INT64_MAX: tensor sizes come
/// from user-written shapes, and an overflow would silently corrupt the peak.
int64_t saturatingMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0)
    return 0;
  if (a > kInt64Max / b)
    return kInt64Max;
  return a * b;
}

std::string describeValue(const Graph &graph, ValueId id) {
  const GraphValue &value = graph.value(id);
  if (!value.name.empty())
    return absl::StrCat("value ", id, " '", value.name, "'");
  return absl::StrCat("value ", id);
}

std::string describeOp(const Graph &graph, OpId id) {
  const GraphOp &op = graph.op(id);
  if (!op.name.empty())
    return absl::StrCat("op ", id, " '", op.name, "' (", op.kind, ")");
  return absl::StrCat("op ", id, " (", op.kind, ")");
}
} // namespace

int64_t TensorType::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count = saturatingMul(count, std::max<int64_t>(dim, 0));
  return count;
}

int64_t tensorBytes(int64_t numElements, DType type) {
  return saturatingMul(numElements, dtypeBytes(type));
}

int64_t TensorType::bytes() const { return tensorBytes(numElements(), dtype); }

ValueId Graph::addInput(std::string name, TensorType type, InputRole role) {
  GraphValue value;
  value.name = std::move(name);
  value.type = std::move(type);
  value.inputRole = role;
  values_.push_back(std::move(value));
  usersValid_ = false;
  return static_cast<ValueId>(values_.size() - 1);
}

void Graph::reserve(size_t numOps, size_t numValues) {
  ops_.reserve(numOps);
  values_.reserve(numValues);
}

absl::StatusOr<OpId> Graph::addOp(GraphOp op,
                                  const std::vector<TensorType> &resultTypes,
                                  const std::vector<std::string> &resultNames) {
  // Not modified: addOpImpl only moves out of the vectors when takeOver.
  return addOpImpl(std::move(op),
                   const_cast<std::vector<TensorType> &>(resultTypes),
                   const_cast<std::vector<std::string> &>(resultNames),
                   /*takeOver=*/false);
}

absl::StatusOr<OpId> Graph::addOp(GraphOp op,
                                  std::vector<TensorType> &&resultTypes,
                                  std::vector<std::string> &&resultNames) {
  return addOpImpl(std::move(op), resultTypes, resultNames,
                   /*takeOver=*/true);
}

absl::StatusOr<OpId> Graph::addOpImpl(GraphOp op,
                                      std::vector<TensorType> &resultTypes,
                                      std::vector<std::string> &resultNames,
                                      bool takeOver) {
  OpId id = static_cast<OpId>(ops_.size());
  for (size_t i = 0; i < op.operands.size(); ++i) {
    ValueId operand = op.operands[i];
    if (operand < 0 || static_cast<size_t>(operand) >= values_.size())
      return absl::InvalidArgumentError(absl::StrFormat(
          "op %d '%s' (%s): operand %d refers to value %d, but only values "
          "0..%d exist; add an operand's producer (or graph input) before "
          "the op that reads it",
          id, op.name, op.kind, i, operand,
          static_cast<int64_t>(values_.size()) - 1));
  }
  if (!resultNames.empty() && resultNames.size() != resultTypes.size())
    return absl::InvalidArgumentError(absl::StrFormat(
        "op %d '%s' (%s): %d result names given for %d results; give one "
        "name per result or none",
        id, op.name, op.kind, resultNames.size(), resultTypes.size()));
  op.results.clear();
  op.results.reserve(resultTypes.size());
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    GraphValue value;
    if (!resultNames.empty())
      value.name = takeOver ? std::move(resultNames[i]) : resultNames[i];
    value.type = takeOver ? std::move(resultTypes[i]) : resultTypes[i];
    value.producer = id;
    value.resultIndex = static_cast<unsigned>(i);
    values_.push_back(std::move(value));
    op.results.push_back(static_cast<ValueId>(values_.size() - 1));
  }
  ops_.push_back(std::move(op));
  usersValid_ = false;
  return id;
}

void Graph::markOutput(ValueId value, OutputRole role) {
  if (value < 0 || static_cast<size_t>(value) >= values_.size()) {
    invalidOutputMarks_.push_back(value);
    return;
  }
  values_[value].outputRole = role;
}

const std::vector<OpId> &Graph::users(ValueId value) const {
  if (!usersValid_) {
    users_.assign(values_.size(), {});
    for (size_t opId = 0; opId < ops_.size(); ++opId) {
      for (ValueId operand : ops_[opId].operands) {
        if (operand < 0 || static_cast<size_t>(operand) >= values_.size())
          continue; // reported by validate()
        std::vector<OpId> &list = users_[operand];
        // An op reading a value twice (x * x) is one user.
        if (list.empty() || list.back() != static_cast<OpId>(opId))
          list.push_back(static_cast<OpId>(opId));
      }
    }
    usersValid_ = true;
  }
  return users_[value];
}

ValueId Graph::storageOf(ValueId value) const {
  for (OpId producer = values_[value].producer; producer != kNoId;
       producer = values_[value].producer) {
    const GraphOp &op = ops_[producer];
    if (!(op.isView || op.computeClass == ComputeClass::View) ||
        op.operands.empty())
      break;
    value = op.operands.front();
  }
  return value;
}

absl::Status Graph::validate() const {
  for (ValueId bad : invalidOutputMarks_)
    return absl::InvalidArgumentError(absl::StrFormat(
        "markOutput was called with value id %d, but only values 0..%d "
        "exist",
        bad, static_cast<int64_t>(values_.size()) - 1));
  for (size_t id = 0; id < values_.size(); ++id) {
    const GraphValue &value = values_[id];
    ValueId valueId = static_cast<ValueId>(id);
    for (size_t dim = 0; dim < value.type.shape.size(); ++dim)
      if (value.type.shape[dim] < 0)
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s has size %d in dimension %d; shapes are static and each "
            "size is 0 or more (a dynamic size must be bounded first)",
            describeValue(*this, valueId), value.type.shape[dim], dim));
    if (value.producer == kNoId) {
      if (!value.inputRole)
        return absl::InvalidArgumentError(absl::StrCat(
            describeValue(*this, valueId),
            " has no producer and no input role; add it with addInput"));
      continue;
    }
    if (value.inputRole)
      return absl::InvalidArgumentError(absl::StrCat(
          describeValue(*this, valueId), " is both a graph input (role ",
          asAbsl(toString(*value.inputRole)), ") and produced by op ",
          value.producer, "; a value has one definition"));
    if (value.producer < 0 ||
        static_cast<size_t>(value.producer) >= ops_.size())
      return absl::InvalidArgumentError(
          absl::StrFormat("%s names producer op %d, which does not exist",
                          describeValue(*this, valueId), value.producer));
    const GraphOp &producer = ops_[value.producer];
    if (value.resultIndex >= producer.results.size() ||
        producer.results[value.resultIndex] != valueId)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s claims to be result %d of %s, but that op does not list it; "
          "each value must be defined exactly once",
          describeValue(*this, valueId), value.resultIndex,
          describeOp(*this, value.producer)));
  }
  for (size_t id = 0; id < ops_.size(); ++id) {
    const GraphOp &op = ops_[id];
    OpId opId = static_cast<OpId>(id);
    for (size_t i = 0; i < op.operands.size(); ++i) {
      ValueId operand = op.operands[i];
      if (operand < 0 || static_cast<size_t>(operand) >= values_.size())
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: operand %d refers to value %d, which does "
                            "not exist",
                            describeOp(*this, opId), i, operand));
      OpId producer = values_[operand].producer;
      if (producer != kNoId && producer >= opId)
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s reads %s, produced by %s, which comes later; ops must be in "
            "a topological order (operands defined before use)",
            describeOp(*this, opId), describeValue(*this, operand),
            describeOp(*this, producer)));
    }
    for (size_t i = 0; i < op.results.size(); ++i) {
      ValueId result = op.results[i];
      if (result < 0 || static_cast<size_t>(result) >= values_.size() ||
          values_[result].producer != opId || values_[result].resultIndex != i)
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s lists value %d as result %d, but that value does not name "
            "the op as its producer",
            describeOp(*this, opId), result, i));
    }
    // Costs feed every time the planner weighs: a NaN, infinite or
    // negative one would make a replay look free or poison the totals.
    if (!std::isfinite(op.flops) || op.flops < 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s has %g FLOPs; an op's FLOPs are a finite number, 0 or more",
          describeOp(*this, opId), op.flops));
    if (op.bytesRead < 0 || op.bytesWritten < 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s reads %d and writes %d bytes; both are 0 or more",
          describeOp(*this, opId), op.bytesRead, op.bytesWritten));
    if (op.fixedTimeUs &&
        (!std::isfinite(*op.fixedTimeUs) || *op.fixedTimeUs < 0))
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s has a fixed time of %g us; a measured time is a finite number, "
          "0 or more",
          describeOp(*this, opId), *op.fixedTimeUs));
    if (op.workspaceBytes < 0)
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s has a workspace of %d bytes; a workspace is 0 or more bytes",
          describeOp(*this, opId), op.workspaceBytes));
    if (op.workspaceBytes > 0 &&
        (op.isView || op.computeClass == ComputeClass::View))
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s is a view with a workspace of %d bytes; a view runs no kernel, "
          "so its workspace must be 0",
          describeOp(*this, opId), op.workspaceBytes));
    for (const InverseRule &rule : op.inverseRules) {
      if (rule.recoveredOperand >= op.operands.size())
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s: inverse rule %s recovers operand %d, but the op has %d "
            "operands",
            describeOp(*this, opId), toString(rule.kind), rule.recoveredOperand,
            op.operands.size()));
      for (unsigned other : rule.otherOperands)
        if (other >= op.operands.size())
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: inverse rule %s reads operand %d, but the op has %d "
              "operands",
              describeOp(*this, opId), toString(rule.kind), other,
              op.operands.size()));
      if (op.results.empty())
        return absl::InvalidArgumentError(
            absl::StrFormat("%s has an inverse rule but no result to invert",
                            describeOp(*this, opId)));
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> tagNames(const Tags &tags) {
  std::vector<std::string> names;
  if (tags.neverRecompute)
    names.push_back("never_recompute");
  if (tags.noAutoRecompute)
    names.push_back("no_auto_recompute");
  if (tags.mustRecompute)
    names.push_back("must_recompute");
  if (tags.preferRecompute)
    names.push_back("prefer_recompute");
  if (tags.preferSave)
    names.push_back("prefer_save");
  return names;
}

absl::StatusOr<Classification> classify(const Graph &graph) {
  if (absl::Status status = graph.validate(); !status.ok())
    return status;
  absl::StatusOr<detail::FlatGraph> flat = detail::buildFlatGraph(graph);
  if (!flat.ok())
    return flat.status();
  return detail::classifyFlat(graph, *flat);
}

absl::StatusOr<Classification>
detail::classifyFlat(const Graph &graph, const FlatGraph &flat) {
  const size_t numValues = flat.numValues();
  const size_t numOps = flat.numOps();
  Classification result;
  result.opPhase.assign(numOps, Phase::Forward);
  // isBackwardValue: a tangent or a value produced by a backward op.
  std::vector<uint8_t> isBackwardValue(numValues, 0);
  // Read by a backward op, and not backward itself.
  std::vector<uint8_t> needed(numValues, 0);
  size_t numNeeded = 0, numBackwardValues = 0;
  for (size_t id = 0; id < numValues; ++id)
    isBackwardValue[id] =
        flat.inputRole[id] == static_cast<int8_t>(InputRole::Tangent);
  for (size_t id = 0; id < numOps; ++id) {
    OpId opId = static_cast<OpId>(id);
    ValueId backwardOperand = kNoId;
    for (ValueId operand : flat.operands(opId))
      if (isBackwardValue[operand]) {
        backwardOperand = operand;
        break;
      }
    Phase phase = flat.explicitPhase[id] != FlatGraph::kNoPhase
                      ? static_cast<Phase>(flat.explicitPhase[id])
                      : (backwardOperand != kNoId ? Phase::Backward
                                                  : Phase::Forward);
    if (phase == Phase::Forward && backwardOperand != kNoId) {
      const GraphValue &culprit = graph.value(backwardOperand);
      std::string origin =
          culprit.inputRole ? std::string("a tangent")
                            : absl::StrCat("produced by backward ",
                                           describeOp(graph, culprit.producer));
      return atOp(
          absl::InvalidArgumentError(absl::StrCat(
              describeOp(graph, opId), " is marked phase forward but reads ",
              describeValue(graph, backwardOperand), ", which is ", origin,
              "; forward cannot depend on backward: drop the explicit phase or "
              "mark the op backward")),
          opId);
    }
    result.opPhase[id] = phase;
    if (phase != Phase::Backward)
      continue;
    for (ValueId res : flat.results(opId))
      isBackwardValue[res] = 1;
    numBackwardValues += flat.results(opId).size();
    // Operands precede their readers, so their phase is final here.
    for (ValueId operand : flat.operands(opId))
      if (!isBackwardValue[operand] && !needed[operand]) {
        needed[operand] = 1;
        ++numNeeded;
      }
  }
  // A forward output computed in backward: the plan left it out, and only
  // remat-partition refused it, blaming a tangent (before 2026-12-08).
  for (size_t id = 0; id < numValues; ++id) {
    if (flat.outputRole[id] != OutputRole::Output || !isBackwardValue[id])
      continue;
    const ValueId value = static_cast<ValueId>(id);
    const OpId producer = flat.producer[id];
    std::string why = "it is a tangent";
    if (producer != kNoId &&
        flat.explicitPhase[producer] == static_cast<int8_t>(Phase::Backward)) {
      why = absl::StrCat(describeOp(graph, producer),
                         " is marked phase backward");
    } else if (producer != kNoId) {
      for (ValueId operand : flat.operands(producer))
        if (isBackwardValue[operand]) {
          const GraphValue &culprit = graph.value(operand);
          why = absl::StrCat(
              describeOp(graph, producer), " reads ",
              describeValue(graph, operand), ", which is ",
              culprit.inputRole
                  ? std::string("a tangent")
                  : absl::StrCat("computed in backward by ",
                                 describeOp(graph, culprit.producer)));
          break;
        }
    }
    absl::Status error = absl::InvalidArgumentError(absl::StrCat(
        describeValue(graph, value),
        " is a function result with role output, but it is computed in "
        "backward: ",
        why,
        ". A forward output may not depend on backward: give the result "
        "role grad if it is a gradient, or compute it from forward values"));
    return producer == kNoId ? error : atOp(error, producer);
  }
  // Sized up front: on 1M-op graphs a doubling series of these vectors cost
  // more than the loop below (a large allocation searches the heap).
  result.neededByBackward.reserve(numNeeded);
  result.forwardValues.reserve(numValues - numBackwardValues);
  for (size_t id = 0; id < numValues; ++id) {
    if (needed[id])
      result.neededByBackward.push_back(static_cast<ValueId>(id));
    OpId producer = flat.producer[id];
    if (producer != kNoId && result.opPhase[producer] == Phase::Forward)
      result.forwardValues.push_back(static_cast<ValueId>(id));
  }
  return result;
}

/// The payload URL atOp puts on a status.
constexpr char kErrorOpUrl[] = "remat/error-op";

absl::Status atOp(absl::Status status, OpId op) {
  status.SetPayload(kErrorOpUrl, absl::Cord(std::to_string(op)));
  return status;
}

std::optional<OpId> errorOp(const absl::Status &status) {
  auto payload = status.GetPayload(kErrorOpUrl);
  OpId op = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &op) || op < 0)
    return std::nullopt;
  return op;
}

} // namespace remat
