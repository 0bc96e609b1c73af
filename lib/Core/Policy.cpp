//===- Policy.cpp - Tags, name policies and their contradictions ----------===//
//
// Part of remat. Turns tags, compute classes and a name policy into the
// per-value constraints every strategy obeys, and reports contradictions
// naming both sources.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"
#include "StringUtil.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

#include <algorithm>
#include <array>

namespace remat {

namespace {
struct PolicyName {
  NamePolicy::Kind kind;
  std::string_view spelling;
  bool takesNames;
};
constexpr std::array<PolicyName, 5> kPolicyNames = {{
    {NamePolicy::Kind::SaveOnlyTheseNames, "save_only_these_names", true},
    {NamePolicy::Kind::SaveAnyNamesButThese, "save_any_names_but_these", true},
    {NamePolicy::Kind::DotsSaveable, "dots_saveable", false},
    {NamePolicy::Kind::NothingSaveable, "nothing_saveable", false},
    {NamePolicy::Kind::EverythingSaveable, "everything_saveable", false},
}};

std::string_view spellingOf(NamePolicy::Kind kind) {
  for (const PolicyName &name : kPolicyNames)
    if (name.kind == kind)
      return name.spelling;
  return "none";
}
} // namespace

absl::StatusOr<NamePolicy> parseNamePolicy(std::string_view text) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(asAbsl(text));
  NamePolicy policy;
  if (trimmed.empty() || trimmed == "none")
    return policy;
  absl::string_view head = trimmed, tail;
  bool hasColon = false;
  if (size_t colon = trimmed.find(':'); colon != absl::string_view::npos) {
    head = absl::StripAsciiWhitespace(trimmed.substr(0, colon));
    tail = trimmed.substr(colon + 1);
    hasColon = true;
  }
  const PolicyName *match = nullptr;
  for (const PolicyName &name : kPolicyNames)
    if (asAbsl(name.spelling) == head)
      match = &name;
  if (!match) {
    std::vector<absl::string_view> valid;
    for (const PolicyName &name : kPolicyNames)
      valid.push_back(asAbsl(name.spelling));
    return absl::InvalidArgumentError(
        absl::StrCat("unknown checkpoint policy '", head,
                     "'; valid policies: ", absl::StrJoin(valid, ", "),
                     " (the first two take names: save_only_these_names:a,b)"));
  }
  policy.kind = match->kind;
  if (!match->takesNames) {
    if (hasColon)
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint policy '", head, "' takes no names; drop ':", tail, "'"));
    return policy;
  }
  if (!hasColon)
    return absl::InvalidArgumentError(absl::StrCat("checkpoint policy '", head,
                                                   "' needs names: write '",
                                                   head, ":name1,name2'"));
  for (absl::string_view piece : absl::StrSplit(tail, ',')) {
    absl::string_view name = absl::StripAsciiWhitespace(piece);
    if (name.empty())
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint policy '", trimmed,
          "' has an empty name; separate names with single commas"));
    if (std::find(policy.names.begin(), policy.names.end(),
                  std::string(name)) != policy.names.end())
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint policy '", trimmed, "' lists '", name, "' twice"));
    policy.names.emplace_back(name);
  }
  return policy;
}

std::string toString(const NamePolicy &policy) {
  std::string text(spellingOf(policy.kind));
  if (!policy.names.empty())
    absl::StrAppend(&text, ":", absl::StrJoin(policy.names, ","));
  return text;
}

absl::StatusOr<std::vector<std::vector<std::string>>>
parseDecisionGroups(std::string_view text) {
  std::vector<std::vector<std::string>> groups;
  absl::flat_hash_set<std::string> seen;
  absl::string_view trimmed = absl::StripAsciiWhitespace(asAbsl(text));
  if (trimmed.empty())
    return groups;
  for (absl::string_view piece : absl::StrSplit(trimmed, ';')) {
    std::vector<std::string> group;
    for (absl::string_view item : absl::StrSplit(piece, ',')) {
      absl::string_view name = absl::StripAsciiWhitespace(item);
      if (name.empty())
        return absl::InvalidArgumentError(absl::StrCat(
            "decision-groups '", trimmed, "' has an empty name in group '",
            absl::StripAsciiWhitespace(piece),
            "': write names separated by ',' and groups by ';' (a,a.1;b,b.1)"));
      if (!seen.insert(std::string(name)).second)
        return absl::InvalidArgumentError(absl::StrCat(
            "decision-groups '", trimmed, "' lists '", name,
            "' twice: a value belongs to one group at most"));
      group.emplace_back(name);
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

namespace detail {

void appendDisplayName(std::string &out, const Graph &graph, ValueId value) {
  const GraphValue &graphValue = graph.value(value);
  if (!graphValue.name.empty()) {
    out += graphValue.name;
    return;
  }
  if (graphValue.producer != kNoId) {
    const GraphOp &op = graph.op(graphValue.producer);
    if (!op.name.empty()) {
      out += op.name;
      if (op.results.size() != 1)
        absl::StrAppend(&out, "#", graphValue.resultIndex);
      return;
    }
  }
  absl::StrAppend(&out, "%", value);
}

std::string displayName(const Graph &graph, ValueId value) {
  std::string name;
  appendDisplayName(name, graph, value);
  return name;
}

void appendOpForUser(std::string &out, const Graph &graph, OpId op) {
  const GraphOp &graphOp = graph.op(op);
  absl::StrAppend(&out, asAbsl(toString(graphOp.computeClass)), " ");
  if (graphOp.name.empty())
    absl::StrAppend(&out, graphOp.kind, "#", op);
  else
    out += graphOp.name;
}

std::string describeOpForUser(const Graph &graph, OpId op) {
  std::string text;
  appendOpForUser(text, graph, op);
  return text;
}

const std::string &policyName(const Graph &graph, ValueId value) {
  const GraphValue &graphValue = graph.value(value);
  if (!graphValue.name.empty() || graphValue.producer == kNoId)
    return graphValue.name;
  return graph.op(graphValue.producer).name;
}

namespace {

/// What the policy says about one forward value.
UserChoice policyChoice(const Graph &graph, const NamePolicy &policy,
                        ValueId value) {
  const std::string &name = policyName(graph, value);
  auto listed = [&] {
    return std::find(policy.names.begin(), policy.names.end(), name) !=
           policy.names.end();
  };
  switch (policy.kind) {
  case NamePolicy::Kind::None:
    return UserChoice::None;
  case NamePolicy::Kind::SaveOnlyTheseNames:
    if (name.empty())
      return UserChoice::None;
    return listed() ? UserChoice::PolicySave : UserChoice::PolicyRecompute;
  case NamePolicy::Kind::SaveAnyNamesButThese:
    if (name.empty())
      return UserChoice::None;
    return listed() ? UserChoice::PolicyRecompute : UserChoice::PolicySave;
  case NamePolicy::Kind::DotsSaveable: {
    ComputeClass computeClass =
        graph.op(graph.value(value).producer).computeClass;
    return computeClass == ComputeClass::Matmul ||
                   computeClass == ComputeClass::Conv
               ? UserChoice::PolicySave
               : UserChoice::PolicyRecompute;
  }
  case NamePolicy::Kind::NothingSaveable:
    return UserChoice::PolicyRecompute;
  case NamePolicy::Kind::EverythingSaveable:
    return UserChoice::PolicySave;
  }
  return UserChoice::None;
}

/// Constraints::neededInForward: the forward ops that results and values
/// automatic planning may not recompute read, transitively.
std::vector<uint8_t> neededInForward(const FlatGraph &flat,
                                     const Classification &phases,
                                     const Constraints &constraints) {
  std::vector<uint8_t> needed(flat.numOps(), 0);
  std::vector<OpId> stack;
  auto need = [&](ValueId value) {
    const OpId producer = flat.producer[value];
    if (producer != kNoId && !needed[producer] &&
        phases.opPhase[producer] == Phase::Forward) {
      needed[producer] = 1;
      stack.push_back(producer);
    }
  };
  for (size_t id = 0; id < flat.numValues(); ++id) {
    const ValueId value = static_cast<ValueId>(id);
    if (constraints.isForward[id] &&
        (constraints.isOutput[id] ||
         !constraints.recomputable(value, /*automatic=*/true)))
      need(value);
  }
  while (!stack.empty()) {
    const OpId op = stack.back();
    stack.pop_back();
    for (ValueId operand : flat.operands(op))
      need(operand);
  }
  return needed;
}

} // namespace

absl::StatusOr<Constraints> computeConstraints(const Graph &graph,
                                               const FlatGraph &flat,
                                               const Classification &phases,
                                               const NamePolicy &policy,
                                               bool honourPreferences,
                                               bool liftComputeBans) {
  const size_t numValues = flat.numValues();
  Constraints constraints;
  constraints.isForward.assign(numValues, 0);
  constraints.needed.assign(numValues, 0);
  constraints.isOutput.assign(numValues, 0);
  constraints.hardSave.assign(numValues, HardSave::None);
  constraints.autoBan.assign(numValues, AutoBan::None);
  constraints.user.assign(numValues, UserChoice::None);
  constraints.policyOverruled.assign(numValues, 0);
  constraints.preferenceOverruled.assign(numValues, 0);
  constraints.preferencesDropped = !honourPreferences;
  if (liftComputeBans)
    constraints.banLifted.assign(numValues, 0);
  for (ValueId value : phases.forwardValues)
    constraints.isForward[value] = 1;
  for (ValueId value : phases.neededByBackward)
    constraints.needed[value] = 1;
  constraints.hasInverseRules = flat.hasInverseRules;
  for (size_t id = 0; id < numValues; ++id)
    constraints.isOutput[id] = flat.outputRole[id] != OutputRole::None;

  // Policy names that match nothing are almost always typos; say so.
  if (!policy.names.empty()) {
    std::vector<std::string> known;
    for (ValueId value : phases.forwardValues)
      if (const std::string &name = policyName(graph, value); !name.empty())
        known.push_back(name);
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    for (const std::string &name : policy.names)
      if (!std::binary_search(known.begin(), known.end(), name)) {
        std::vector<std::string> shown(
            known.begin(), known.begin() + std::min<size_t>(known.size(), 12));
        return absl::InvalidArgumentError(absl::StrCat(
            "checkpoint policy ", toString(policy), " names '", name,
            "', but no forward value has that name; forward names: ",
            known.empty() ? std::string("(none)") : absl::StrJoin(shown, ", "),
            known.size() > shown.size() ? ", ..." : ""));
      }
  }

  // RNG state reaches a value when it flows from an RngState graph input.
  std::vector<uint8_t> rngReachable(numValues, 0);
  for (size_t id = 0; id < numValues; ++id)
    rngReachable[id] =
        flat.inputRole[id] == static_cast<int8_t>(InputRole::RngState);
  for (size_t opIndex = 0; opIndex < flat.numOps(); ++opIndex) {
    OpId opId = static_cast<OpId>(opIndex);
    if (phases.opPhase[opIndex] != Phase::Forward)
      continue;
    absl::Span<const ValueId> operands = flat.operands(opId);
    absl::Span<const ValueId> results = flat.results(opId);
    bool readsRng = false;
    for (ValueId operand : operands)
      readsRng |= rngReachable[operand] != 0;
    for (ValueId result : results)
      rngReachable[result] = readsRng;

    const bool neverRecompute =
        flat.hasFlag(opId, FlatGraph::kNeverRecompute);
    const bool mustRecompute = flat.hasFlag(opId, FlatGraph::kMustRecompute);
    const bool preferRecompute =
        flat.hasFlag(opId, FlatGraph::kPreferRecompute);
    const bool preferSave = flat.hasFlag(opId, FlatGraph::kPreferSave);
    // The dialect's verifier rejects the same pairs; graphs built through
    // the C++ API are checked here.
    auto contradiction = [&](const char *first, const char *second) {
      return atOp(absl::InvalidArgumentError(absl::StrCat(
                      "op ", describeOpForUser(graph, opId), " is tagged both ",
                      first, " and ", second, "; remove one of the two tags")),
                  opId);
    };
    if (neverRecompute && preferRecompute)
      return contradiction("never_recompute", "prefer_recompute");
    if (mustRecompute && preferSave)
      return contradiction("must_recompute", "prefer_save");
    if (preferRecompute && preferSave)
      return contradiction("prefer_recompute", "prefer_save");
    HardSave hard = HardSave::None;
    if (neverRecompute)
      hard = HardSave::NeverRecompute;
    else if (flat.hasFlag(opId, FlatGraph::kRandom) && !readsRng)
      hard = HardSave::RandomWithoutRng;
    if (neverRecompute && mustRecompute)
      return contradiction("never_recompute", "must_recompute");
    if (hard == HardSave::RandomWithoutRng && mustRecompute)
      return atOp(
          absl::InvalidArgumentError(absl::StrCat(
              "op ", describeOpForUser(graph, opId),
              " is tagged must_recompute, but it is a random op whose RNG "
              "state is not a graph input, so a recomputation would draw "
              "different numbers; pass its seed/offset as a graph input with "
              "role rng, or drop the tag")),
          opId);

    AutoBan ban = AutoBan::None;
    switch (flat.computeClass[opIndex]) {
    case ComputeClass::Matmul:
    case ComputeClass::Conv:
    case ComputeClass::Attention:
      ban = AutoBan::ComputeIntensive;
      break;
    case ComputeClass::Collective:
      ban = AutoBan::Collective;
      break;
    case ComputeClass::Reduction:
      if (!operands.empty() && !results.empty()) {
        int64_t in = flat.elements[operands.front()];
        int64_t out = flat.elements[results.front()];
        // PyTorch's rule: recomputing a reduction that shrinks its input by
        // more than 4x keeps the large input alive; save the small output.
        if (in > 0 && out <= (in - 1) / 4) // out * 4 < in, overflow-free
          ban = AutoBan::LargeReduction;
      }
      break;
    default:
      break;
    }
    // The tag is what a user set, so it is the reason reported.
    if (flat.hasFlag(opId, FlatGraph::kNoAutoRecompute))
      ban = AutoBan::NoAutoRecompute;
    else if (preferSave && honourPreferences)
      ban = AutoBan::PreferSave;

    for (ValueId result : results) {
      constraints.hardSave[result] = hard;
      UserChoice choice = UserChoice::None;
      if (mustRecompute)
        choice = UserChoice::MustRecompute;
      // Without a policy, skip the name lookup (a miss per value on large
      // graphs).
      UserChoice fromPolicy = constraints.isOutput[result] ||
                                      policy.kind == NamePolicy::Kind::None
                                  ? UserChoice::None
                                  : policyChoice(graph, policy, result);
      if (fromPolicy == UserChoice::PolicySave && mustRecompute)
        return atOp(
            absl::InvalidArgumentError(absl::StrCat(
                "checkpoint policy ", toString(policy), " saves '",
                displayName(graph, result), "', but its producer op ",
                describeOpForUser(graph, opId),
                " is tagged must_recompute; drop the tag or the name from the "
                "policy")),
            opId);
      if (choice == UserChoice::None)
        choice = fromPolicy;
      if (choice == UserChoice::PolicyRecompute && hard != HardSave::None) {
        // never_recompute (and an unreproducible RNG) win over a policy.
        constraints.policyOverruled[result] = 1;
        choice = UserChoice::None;
      }
      // A preference yields to everything stronger: a policy's choice and
      // a hard save.
      if (preferRecompute && honourPreferences && !constraints.isOutput[result]) {
        if (choice == UserChoice::None && hard == HardSave::None)
          choice = UserChoice::PreferRecompute;
        else if (choice == UserChoice::PolicySave || hard != HardSave::None)
          constraints.preferenceOverruled[result] = 1;
      }
      constraints.user[result] = choice;
      constraints.autoBan[result] = constraints.forcedRecompute(result)
                                        ? AutoBan::None
                                        : ban;
      if (liftComputeBans &&
          constraints.autoBan[result] == AutoBan::ComputeIntensive) {
        constraints.autoBan[result] = AutoBan::None;
        constraints.banLifted[result] = 1;
      }
    }
  }
  constraints.neededInForward = neededInForward(flat, phases, constraints);
  return constraints;
}

} // namespace detail
} // namespace remat
