//===- Derivation.cpp - Algebraic derivation through inverse rules --------===//
//
// Part of remat. A value backward needs can be re-created from values that
// stay available anyway (graph inputs, function results, values saved for
// their own sake) through an inverse rule of one of its users: `c = a + b`
// gives `a = c - b`. The choice is greedy, largest value first, and never
// derives a value that another derivation reads.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <numeric>

namespace remat::detail {
namespace {

/// Element types whose inexact derivations stay within a few ulps of the
/// value: at least f32's 24-bit significand (integers only have exact rules).
bool hasWideSignificand(DType type) {
  return type != DType::F16 && type != DType::BF16;
}

} // namespace

Derivation derivationThrough(const Graph &graph, OpId via,
                             const InverseRule &rule) {
  const GraphOp &op = graph.op(via);
  Derivation derivation;
  derivation.viaOp = via;
  derivation.rule = rule;
  derivation.exact = rule.exact;
  derivation.from.push_back(op.results.front());
  for (unsigned other : rule.otherOperands)
    derivation.from.push_back(op.operands[other]);
  return derivation;
}

std::vector<DerivationChoice>
chooseDerivations(const PlanContext &context, const std::vector<uint8_t> &keep,
                  bool replaceSaves) {
  const Graph &graph = context.graph;
  const Constraints &constraints = context.constraints;
  if (!constraints.hasInverseRules)
    return {};
  const std::vector<int64_t> &bytes = context.tables.valueBytes;

  const size_t numValues = graph.numValues();
  std::vector<uint8_t> derived(numValues, 0), pinned(numValues, 0);
  auto anchored = [&](ValueId value) {
    const GraphValue &graphValue = graph.value(value);
    if (graphValue.inputRole)
      return *graphValue.inputRole != InputRole::Tangent;
    if (!constraints.isForward[value] || derived[value])
      return false;
    return constraints.isOutput[value] ||
           (constraints.needed[value] && keep[value]);
  };

  std::vector<ValueId> candidates;
  for (ValueId value : context.phases.neededByBackward) {
    if (!constraints.isForward[value] || constraints.isOutput[value] ||
        constraints.hardSave[value] != HardSave::None ||
        constraints.user[value] != UserChoice::None)
      continue;
    if (bytes[value] == 0)
      continue;
    if (keep[value] && !replaceSaves)
      continue;
    candidates.push_back(value);
  }
  // Largest first; among equals, values automatic planning may not recompute
  // first (a derivation is their only alternative to saving), so that the
  // others keep recomputation open.
  auto banned = [&](ValueId value) {
    return constraints.autoBan[value] != AutoBan::None;
  };
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](ValueId lhs, ValueId rhs) {
                     if (bytes[lhs] != bytes[rhs])
                       return bytes[lhs] > bytes[rhs];
                     return banned(lhs) && !banned(rhs);
                   });

  std::vector<DerivationChoice> choices;
  for (ValueId value : candidates) {
    if (pinned[value])
      continue;
    std::optional<Derivation> best;
    for (OpId user : graph.users(value)) {
      if (context.phases.opPhase[user] != Phase::Forward)
        continue;
      const GraphOp &op = graph.op(user);
      for (const InverseRule &rule : op.inverseRules) {
        if (op.operands[rule.recoveredOperand] != value ||
            (!rule.exact && !context.options.allowInexactDerivation))
          continue;
        Derivation derivation = derivationThrough(graph, user, rule);
        bool usable = std::all_of(derivation.from.begin(),
                                  derivation.from.end(), [&](ValueId source) {
                                    return source != value && anchored(source);
                                  });
        // An inexact rule cancels: `a = c - b` loses the bits of `a` that
        // `c` and `b` share, about 2^-p of the larger operand for a p-bit
        // significand. With f32/f64 that stays near rounding; with bf16
        // (8 bits) or f16 (11) a small value beside a large one (a residual
        // branch beside the residual stream) comes back mostly wrong, so
        // 16-bit floats are never derived inexactly.
        if (usable && !derivation.exact)
          usable = hasWideSignificand(graph.value(value).type.dtype) &&
                   std::all_of(derivation.from.begin(), derivation.from.end(),
                               [&](ValueId source) {
                                 return hasWideSignificand(
                                     graph.value(source).type.dtype);
                               });
        if (usable) {
          best = std::move(derivation);
          break;
        }
      }
      if (best)
        break;
    }
    if (!best)
      continue;
    // Replacing a save always lowers saved bytes. Replacing a recomputation
    // only pays when the derivation is cheaper than replaying the producer.
    if (!keep[value] &&
        derivationTimeUs(context, *best, value) >=
            context.tables.replayTimeUs[graph.value(value).producer])
      continue;
    derived[value] = 1;
    for (ValueId source : best->from)
      pinned[source] = 1;
    choices.push_back(DerivationChoice{value, std::move(*best)});
  }
  std::sort(choices.begin(), choices.end(),
            [](const DerivationChoice &lhs, const DerivationChoice &rhs) {
              return lhs.value < rhs.value;
            });
  return choices;
}

} // namespace remat::detail
