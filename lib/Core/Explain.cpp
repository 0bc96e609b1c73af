//===- Explain.cpp - A reason a user can act on, for every decision -------===//
//
// Part of remat. The sentences follow one pattern per decision ("saved: ...",
// "recomputed from x (...)", "derived as a - b", "not needed by backward:
// ...") and name the tag, policy, op or budget that caused it, so that a
// user knows what to change.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"
#include "StringUtil.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace remat::detail {

namespace {

std::string formatMicroseconds(double us) {
  return absl::StrFormat("%.3g us", us);
}

std::string banPhrase(const Graph &graph, OpId op, AutoBan ban) {
  std::string what = describeOpForUser(graph, op);
  switch (ban) {
  case AutoBan::ComputeIntensive:
    // Untagged: the automatic ban on compute-intensive classes applies. Say
    // so, and how to lift it, rather than naming a tag the user never set.
    return absl::StrCat(what,
                        " which is compute-intensive (matmul, conv and "
                        "attention are not recomputed automatically; a "
                        "policy or must_recompute can allow it)");
  case AutoBan::NoAutoRecompute:
    return absl::StrCat(what, " which is no_auto_recompute");
  case AutoBan::LargeReduction:
    return absl::StrCat(what,
                        " whose output is less than 1/4 of its input (not "
                        "recomputed automatically)");
  case AutoBan::Collective:
    return absl::StrCat(what,
                        " (collectives are not recomputed automatically)");
  case AutoBan::None:
    break;
  }
  return what;
}

std::string formula(const Graph &graph, const Derivation &derivation) {
  auto name = [&](size_t i) {
    return i < derivation.from.size() ? displayName(graph, derivation.from[i])
                                      : std::string("?");
  };
  std::string c = name(0);
  switch (derivation.rule.kind) {
  case InverseKind::SubtractOther:
    return absl::StrCat(c, " - ", name(1));
  case InverseKind::AddOther:
    return absl::StrCat(c, " + ", name(1));
  case InverseKind::SubtractFromOther:
    return absl::StrCat(name(1), " - ", c);
  case InverseKind::DivideByOther:
    return absl::StrCat(c, " / ", name(1));
  case InverseKind::MultiplyByOther:
    return absl::StrCat(c, " * ", name(1));
  case InverseKind::DivideOtherBy:
    return absl::StrCat(name(1), " / ", c);
  case InverseKind::Negate:
    return absl::StrCat("-", c);
  case InverseKind::Log:
    return absl::StrCat("log(", c, ")");
  case InverseKind::Exp:
    return absl::StrCat("exp(", c, ")");
  case InverseKind::Reshape:
    return absl::StrCat("reshape(", c, ")");
  case InverseKind::Transpose:
    return absl::StrCat("transpose(", c, ")");
  case InverseKind::LeakyReluInverse:
    return absl::StrCat("leaky_relu_inverse(", c, ")");
  case InverseKind::Cast:
    return absl::StrCat("cast(", c, ")");
  }
  return c;
}

class Explainer {
public:
  Explainer(const PlanContext &context, const StrategyResult &result,
            const WalkFacts &facts)
      : context_(context), graph_(context.graph),
        constraints_(context.constraints), result_(result), facts_(facts) {}

  std::vector<ValueDecision> run() {
    std::vector<int32_t> derivedIndex(graph_.numValues(), -1);
    for (size_t i = 0; i < result_.derivations.size(); ++i)
      derivedIndex[result_.derivations[i].value] = static_cast<int32_t>(i);
    std::vector<ValueDecision> decisions;
    for (size_t id = 0; id < graph_.numValues(); ++id) {
      ValueId value = static_cast<ValueId>(id);
      const GraphValue &graphValue = graph_.value(value);
      ValueDecision decision;
      decision.value = value;
      if (graphValue.inputRole) {
        if (*graphValue.inputRole == InputRole::Tangent ||
            !facts_.inputRead[value])
          continue;
        decision.decision = Decision::Input;
        decision.reason = inputReason(*graphValue.inputRole);
        decisions.push_back(std::move(decision));
        continue;
      }
      if (!constraints_.isForward[value])
        continue;
      if (int32_t index = derivedIndex[value]; index >= 0) {
        const Derivation &derivation = result_.derivations[index].derivation;
        decision.decision = Decision::Derive;
        decision.derivation = derivation;
        decision.reason =
            absl::StrCat("derived as ", formula(graph_, derivation));
        if (!derivation.exact)
          absl::StrAppend(&decision.reason,
                          " (inexact: floating-point rounding may differ)");
      } else if (facts_.readFromForward[value]) {
        decision.decision = Decision::Save;
        decision.reason = saveReason(value);
      } else if (facts_.recomputed[value] && constraints_.needed[value]) {
        decision.decision = Decision::Recompute;
        decision.recomputeChain = facts_.chains[value];
        decision.reason = recomputeReason(value);
      } else {
        decision.decision = Decision::NotNeeded;
        decision.reason = notNeededReason(value);
      }
      decisions.push_back(std::move(decision));
    }
    return decisions;
  }

private:
  std::string inputReason(InputRole role) const {
    switch (role) {
    case InputRole::Input:
      return "input: backward reads this function input";
    case InputRole::Parameter:
      return "parameter: always available";
    case InputRole::RngState:
      return "rng state: always available, so random ops can be replayed";
    case InputRole::Tangent:
      break;
    }
    return "input";
  }

  OpId producerOf(ValueId value) const { return graph_.value(value).producer; }

  /// The closest op a recomputation of `value` would have to replay but that
  /// automatic planning may not, searching through values not kept.
  std::optional<std::pair<OpId, AutoBan>> blockingBan(ValueId value) const {
    std::vector<ValueId> frontier = {value};
    std::vector<ValueId> seen = {value};
    constexpr size_t kSearchLimit = 256; // reasons stay cheap on huge graphs
    for (size_t next = 0; next < frontier.size() && next < kSearchLimit;
         ++next) {
      ValueId current = frontier[next];
      if (current != value) {
        if (constraints_.autoBan[current] != AutoBan::None)
          return std::make_pair(producerOf(current),
                                constraints_.autoBan[current]);
        if (result_.keep[current] || facts_.readFromForward[current])
          continue;
      }
      for (ValueId operand : graph_.op(producerOf(current)).operands) {
        if (graph_.value(operand).producer == kNoId ||
            std::find(seen.begin(), seen.end(), operand) != seen.end())
          continue;
        seen.push_back(operand);
        frontier.push_back(operand);
      }
    }
    return std::nullopt;
  }

  std::string saveReason(ValueId value) const {
    if (constraints_.isOutput[value])
      return "saved: it is a function result, live until the end anyway";
    OpId producer = producerOf(value);
    switch (constraints_.hardSave[value]) {
    case HardSave::NeverRecompute:
      if (constraints_.policyOverruled[value])
        return absl::StrCat("saved: tagged never_recompute (which wins over "
                            "checkpoint policy ",
                            toString(context_.options.policy), ")");
      return "saved: tagged never_recompute";
    case HardSave::RandomWithoutRng:
      return absl::StrCat("saved: recomputing it needs ",
                          describeOpForUser(graph_, producer),
                          " whose RNG state is not a graph input");
    case HardSave::None:
      break;
    }
    if (constraints_.user[value] == UserChoice::PolicySave)
      return absl::StrCat("saved: checkpoint policy ",
                          toString(context_.options.policy), " saves it");
    if (!constraints_.needed[value]) {
      ValueId owner = facts_.owner[value];
      return absl::StrCat("saved: recomputing ",
                          owner == kNoId ? std::string("other values")
                                         : displayName(graph_, owner),
                          " starts from it");
    }
    Strategy strategy = context_.options.strategy;
    if (strategy == Strategy::SaveAll)
      return "saved: save-all keeps every value backward reads";
    if (strategy == Strategy::RecomputeAll)
      return "saved: recompute-all could not recompute it";
    if (constraints_.autoBan[value] != AutoBan::None)
      return absl::StrCat(
          "saved: recomputing it needs ",
          banPhrase(graph_, producer, constraints_.autoBan[value]));
    if (auto ban = blockingBan(value))
      return absl::StrCat("saved: recomputing it needs ",
                          banPhrase(graph_, ban->first, ban->second),
                          ", whose result is not saved");
    int64_t bytes = graph_.value(value).type.bytes();
    switch (strategy) {
    case Strategy::MinCut:
      return absl::StrCat("saved: keeping it (", formatBytes(bytes),
                          ") costs less than keeping what recomputing it "
                          "needs (min-cut)");
    case Strategy::Budget:
      return absl::StrCat(
          "saved: the budget",
          result_.budgetBytes
              ? absl::StrCat(" (", formatBytes(*result_.budgetBytes), ")")
              : std::string(),
          " has room for it, and recomputing it would cost ",
          formatMicroseconds(
              context_.costModel.predictTimeUs(graph_, producer)));
    case Strategy::Optimal:
      return "saved: the optimal schedule keeps it from forward";
    default:
      break;
    }
    return "saved";
  }

  std::string fromList(ValueId value) const {
    const std::vector<OpId> &chain = facts_.chains[value];
    std::vector<OpId> sortedChain(chain.begin(), chain.end());
    std::sort(sortedChain.begin(), sortedChain.end());
    std::vector<ValueId> reads;
    for (OpId op : chain)
      for (ValueId operand : graph_.op(op).operands) {
        OpId producer = graph_.value(operand).producer;
        if (producer != kNoId &&
            std::binary_search(sortedChain.begin(), sortedChain.end(),
                               producer))
          continue;
        if (graph_.value(operand).inputRole == InputRole::Parameter)
          continue; // weights are always there; naming them adds noise
        if (std::find(reads.begin(), reads.end(), operand) == reads.end())
          reads.push_back(operand);
      }
    if (reads.empty())
      return "parameters only";
    constexpr size_t kShown = 3;
    std::vector<std::string> names;
    for (size_t i = 0; i < reads.size() && i < kShown; ++i)
      names.push_back(displayName(graph_, reads[i]));
    std::string text = absl::StrJoin(names, ", ");
    if (reads.size() > kShown)
      absl::StrAppend(&text, " and ", reads.size() - kShown, " more");
    return text;
  }

  std::string recomputeReason(ValueId value) const {
    std::string from = absl::StrCat("recomputed from ", fromList(value));
    // A result of an op replayed for another value (split, multi-output
    // attention): name that value instead of an empty chain.
    if (facts_.chains[value].empty() && facts_.owner[value] != kNoId &&
        facts_.owner[value] != value)
      from = absl::StrCat("recomputed together with ",
                          displayName(graph_, facts_.owner[value]), " by ",
                          describeOpForUser(graph_, producerOf(value)));
    switch (constraints_.user[value]) {
    case UserChoice::MustRecompute:
      return absl::StrCat(from, ": tagged must_recompute");
    case UserChoice::PolicyRecompute:
      return absl::StrCat(from, ": checkpoint policy ",
                          toString(context_.options.policy),
                          " does not save it");
    default:
      break;
    }
    std::string saving = formatBytes(graph_.value(value).type.bytes());
    switch (context_.options.strategy) {
    case Strategy::RecomputeAll:
      return absl::StrCat(from, " (recompute-all saves only inputs and what "
                                "tags force)");
    case Strategy::MinCut:
      return absl::StrCat(from, " (cheaper than saving ", saving, ")");
    case Strategy::Budget: {
      double us = 0;
      for (OpId op : facts_.chains[value])
        us += context_.costModel.predictTimeUs(graph_, op);
      return absl::StrCat(from, " (cheaper than saving ", saving, "; costs ",
                          formatMicroseconds(us), " to fit the budget)");
    }
    case Strategy::Optimal:
      return absl::StrCat(
          from, " (the optimal schedule re-evaluates it in backward)");
    default:
      break;
    }
    return from;
  }

  std::string notNeededReason(ValueId value) const {
    if (facts_.recomputed[value] && facts_.owner[value] != kNoId)
      return absl::StrCat("not needed by backward: replayed only to recompute ",
                          displayName(graph_, facts_.owner[value]));
    OpId producer = producerOf(value);
    bool readsInputs = false;
    for (ValueId operand : graph_.op(producer).operands)
      readsInputs |= constraints_.needed[operand] != 0;
    if (readsInputs)
      return absl::StrCat("not needed by backward: the backward of ",
                          describeOpForUser(graph_, producer),
                          " reads only its inputs");
    return "not needed by backward: no backward op reads it";
  }

  const PlanContext &context_;
  const Graph &graph_;
  const Constraints &constraints_;
  const StrategyResult &result_;
  const WalkFacts &facts_;
};

} // namespace

std::vector<ValueDecision> explainDecisions(const PlanContext &context,
                                            const StrategyResult &result,
                                            const WalkFacts &facts) {
  return Explainer(context, result, facts).run();
}

} // namespace remat::detail
