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

namespace remat::detail {

RecomputeChains
buildChains(size_t numValues,
            const std::vector<std::pair<ValueId, OpId>> &replays) {
  // Counting sort by value, stable: each chain keeps schedule order.
  RecomputeChains chains;
  chains.begin.assign(numValues + 1, 0);
  for (const auto &[value, op] : replays)
    ++chains.begin[value + 1];
  for (size_t id = 0; id < numValues; ++id)
    chains.begin[id + 1] += chains.begin[id];
  std::vector<uint32_t> fill(chains.begin.begin(), chains.begin.end() - 1);
  chains.ops.resize(replays.size());
  for (const auto &[value, op] : replays)
    chains.ops[fill[value]++] = op;
  return chains;
}

namespace {

std::string formatMicroseconds(double us) {
  return absl::StrFormat("%.3g us", us);
}

/// " (<note>)" when a tool said why `op` carries its tags (Tags::note).
void appendTagNote(std::string &out, const Graph &graph, OpId op) {
  const std::string &note = graph.op(op).tags.note;
  if (!note.empty())
    absl::StrAppend(&out, " (", note, ")");
}

void appendBanPhrase(std::string &out, const Graph &graph, OpId op,
                     AutoBan ban) {
  appendOpForUser(out, graph, op);
  switch (ban) {
  case AutoBan::ComputeIntensive:
    // Untagged: the automatic ban on compute-intensive classes applies. Say
    // so, and how to lift it, rather than naming a tag the user never set.
    out += " which is compute-intensive (matmul, conv and attention are not "
           "recomputed automatically; a policy or must_recompute can allow "
           "it)";
    break;
  case AutoBan::NoAutoRecompute:
    out += " which is no_auto_recompute";
    appendTagNote(out, graph, op);
    break;
  case AutoBan::LargeReduction:
    out += " whose output is less than 1/4 of its input (not recomputed "
           "automatically)";
    break;
  case AutoBan::Collective:
    out += " (collectives are not recomputed automatically)";
    break;
  case AutoBan::PreferSave:
    out += " which is prefer_save";
    appendTagNote(out, graph, op);
    break;
  case AutoBan::None:
    break;
  }
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

/// Formats every reason straight into `Plan::reasons`; the searches behind
/// some reasons mark visited values and ops with a per-search stamp instead
/// of allocating sets, so that explaining a 1M-op plan allocates nothing
/// per decision.
class Explainer {
public:
  Explainer(const PlanContext &context, const StrategyResult &result,
            const WalkFacts &facts, const Schedule &schedule, Plan &plan)
      : context_(context), graph_(context.graph), flat_(context.flat),
        constraints_(context.constraints), result_(result), facts_(facts),
        schedule_(schedule), plan_(plan), out_(plan.reasons) {}

  void run() {
    const size_t numValues = flat_.numValues();
    inForward_.assign(flat_.numOps(), 0);
    const size_t boundary = backwardBoundary(schedule_, context_.phases);
    for (size_t step = 0; step < boundary; ++step)
      inForward_[schedule_.steps[step]] = 1;
    chains_ = buildChains(numValues, facts_.replays);
    if (!result_.derivations.empty()) {
      derivedIndex_.assign(numValues, -1);
      for (size_t i = 0; i < result_.derivations.size(); ++i)
        derivedIndex_[result_.derivations[i].value] = static_cast<int32_t>(i);
    }
    std::vector<ValueDecision> &decisions = plan_.decisions;
    decisions.clear();
    decisions.reserve(context_.phases.forwardValues.size() +
                      context_.phases.neededByBackward.size());
    out_.clear();
    // About 64 characters a reason: one allocation, not a doubling series.
    out_.reserve(64 * decisions.capacity());
    plan_.recomputeOps.clear();
    for (size_t id = 0; id < numValues; ++id) {
      ValueId value = static_cast<ValueId>(id);
      prefetchProducer(id + kPrefetchDistance);
      ValueDecision decision;
      decision.value = value;
      decision.reasonBegin = out_.size();
      if (int8_t role = flat_.inputRole[id]; role != FlatGraph::kNotInput) {
        InputRole inputRole = static_cast<InputRole>(role);
        if (inputRole == InputRole::Tangent || !facts_.inputRead[value])
          continue;
        decision.decision = Decision::Input;
        appendInputReason(inputRole, facts_.inputRead[value]);
      } else if (!constraints_.isForward[value]) {
        continue;
      } else if (int32_t index = derivedIndex(value); index >= 0) {
        const DerivationChoice &choice = result_.derivations[index];
        decision.decision = Decision::Derive;
        decision.derivation =
            std::make_shared<const Derivation>(choice.derivation);
        appendDeriveReason(choice);
      } else if (facts_.readFromForward[value]) {
        decision.decision = Decision::Save;
        appendSaveReason(value);
        appendRefusedDerivation(value);
      } else if (facts_.recomputed[value] && constraints_.needed[value]) {
        decision.decision = Decision::Recompute;
        absl::Span<const OpId> chain = chains_.of(value);
        decision.chainBegin = plan_.recomputeOps.size();
        decision.chainSize = static_cast<uint32_t>(chain.size());
        plan_.recomputeOps.insert(plan_.recomputeOps.end(), chain.begin(),
                                  chain.end());
        appendRecomputeReason(value);
        appendFusedInto(value);
      } else {
        decision.decision = Decision::NotNeeded;
        appendNotNeededReason(value);
      }
      decision.reasonSize =
          static_cast<uint32_t>(out_.size() - decision.reasonBegin);
      decisions.push_back(std::move(decision));
    }
  }

private:
  /// How many values ahead `run` fetches the producer's GraphOp.
  static constexpr size_t kPrefetchDistance = 16;

  /// Reasons name ops by name or kind (appendOpForUser), the only fields
  /// read from a GraphOp here: one cache miss per op on large graphs, so the
  /// line is fetched while earlier values are explained.
  void prefetchProducer(size_t id) const {
    if (id >= flat_.numValues())
      return;
    OpId producer = flat_.producer[id];
    if (producer == kNoId)
      return;
    const GraphOp &op = graph_.op(producer);
    __builtin_prefetch(&op.name);
    __builtin_prefetch(&op.kind);
  }

  /// Says whether a backward op reads the input or only a recomputation
  /// (or derivation) does: under save-all a weight that only a replayed
  /// transpose reads is not read at all, and reports compared across
  /// strategies show that as a change of this reason. remat-report words
  /// the inputs nothing reads alike (RematReport.cpp).
  void appendInputReason(InputRole role, uint8_t readBits) {
    const bool onlyRecomputation = !(readBits & kReadByBackwardOp);
    switch (role) {
    case InputRole::Input:
      out_ += onlyRecomputation
                  ? "input: a recomputation in backward reads this function "
                    "input"
                  : "input: backward reads this function input";
      return;
    case InputRole::Parameter:
      out_ += onlyRecomputation ? "parameter: always available; a "
                                  "recomputation in backward reads it"
                                : "parameter: always available; backward "
                                  "reads it";
      return;
    case InputRole::RngState:
      out_ += "rng state: always available, so random ops can be replayed";
      return;
    case InputRole::Tangent:
      break;
    }
    out_ += "input";
  }

  OpId producerOf(ValueId value) const { return flat_.producer[value]; }

  /// The index of the value's derivation in the result, or -1.
  int32_t derivedIndex(ValueId value) const {
    return derivedIndex_.empty() ? -1 : derivedIndex_[value];
  }

  /// "derived as a - b", then what it won against (Derivation.cpp weighs
  /// the same figures): the save it replaces or the replays it avoids.
  void appendDeriveReason(const DerivationChoice &choice) {
    const Derivation &derivation = choice.derivation;
    absl::StrAppend(&out_, "derived as ", formula(graph_, derivation));
    if (!derivation.exact)
      out_ += " (inexact: floating-point rounding may differ)";
    if (choice.feeds != kNoId) {
      out_ += "; it feeds the derivation of ";
      appendName(choice.feeds);
      out_ += ", together";
    }
    if (choice.replacedSaveBytes > 0)
      absl::StrAppend(&out_, "; ", formatBytes(choice.replacedSaveBytes),
                      " less saved for ", formatMicroseconds(choice.costUs),
                      " in backward");
    else
      absl::StrAppend(&out_, "; ", formatMicroseconds(choice.costUs),
                      " in backward instead of ",
                      formatMicroseconds(choice.avoidedReplayUs),
                      " of replay");
    if (choice.sourceSaveBytes > 0)
      absl::StrAppend(&out_, ", keeping ",
                      formatBytes(choice.sourceSaveBytes),
                      " of its sources from forward");
  }

  /// A value whose derivation reads `value` (the first in the result), or
  /// kNoId: for schedules whose walk attributes no owner (`optimal`'s).
  ValueId derivationReading(ValueId value) {
    if (result_.derivations.empty())
      return kNoId;
    if (derivationReader_.empty()) {
      derivationReader_.assign(flat_.numValues(), kNoId);
      for (const DerivationChoice &choice : result_.derivations)
        for (ValueId source : choice.derivation.from)
          if (derivationReader_[source] == kNoId)
            derivationReader_[source] = choice.value;
    }
    return derivationReader_[value];
  }

  /// displayName, without touching the graph for unnamed values.
  void appendName(ValueId value) {
    if (flat_.named[value])
      appendDisplayName(out_, graph_, value);
    else
      absl::StrAppend(&out_, "%", value);
  }

  const std::string &policyText() {
    if (policyText_.empty())
      policyText_ = toString(context_.options.policy);
    return policyText_;
  }

  /// A fresh stamp for one search; the mark arrays are allocated on first
  /// use (many plans never search).
  uint32_t nextStamp() {
    if (valueMark_.empty()) {
      valueMark_.assign(flat_.numValues(), 0);
      opMark_.assign(flat_.numOps(), 0);
    }
    return ++stamp_;
  }

  /// The closest op a recomputation of `value` would have to replay but that
  /// automatic planning may not, searching through values not kept.
  std::optional<std::pair<OpId, AutoBan>> blockingBan(ValueId value) {
    const uint32_t stamp = nextStamp();
    frontier_.clear();
    frontier_.push_back(value);
    valueMark_[value] = stamp;
    constexpr size_t kSearchLimit = 256; // reasons stay cheap on huge graphs
    for (size_t next = 0; next < frontier_.size() && next < kSearchLimit;
         ++next) {
      ValueId current = frontier_[next];
      if (current != value) {
        // A kept value is there to start from, banned producer or not.
        if (result_.keep[current] || facts_.readFromForward[current])
          continue;
        if (constraints_.autoBan[current] != AutoBan::None)
          return std::make_pair(producerOf(current),
                                constraints_.autoBan[current]);
      }
      for (ValueId operand : flat_.operands(producerOf(current))) {
        if (flat_.isInput(operand) || valueMark_[operand] == stamp)
          continue;
        valueMark_[operand] = stamp;
        frontier_.push_back(operand);
      }
    }
    return std::nullopt;
  }

  void appendSaveReason(ValueId value) {
    if (constraints_.isOutput[value]) {
      out_ += "saved: it is a function result, live until the end anyway";
      if (constraints_.user[value] == UserChoice::MustRecompute)
        out_ += " (its must_recompute tag cannot apply: a result is never "
                "freed before backward)";
      return;
    }
    OpId producer = producerOf(value);
    switch (constraints_.hardSave[value]) {
    case HardSave::NeverRecompute:
      out_ += "saved: tagged never_recompute";
      appendTagNote(out_, graph_, producer);
      if (constraints_.policyOverruled[value])
        absl::StrAppend(&out_, " (which wins over checkpoint policy ",
                        policyText(), ")");
      return;
    case HardSave::RandomWithoutRng:
      out_ += "saved: recomputing it needs ";
      appendOpForUser(out_, graph_, producer);
      out_ += " whose RNG state is not a graph input, so a replay would draw "
              "other numbers";
      if (constraints_.policyOverruled[value])
        absl::StrAppend(&out_, " (which wins over checkpoint policy ",
                        policyText(), ")");
      else if (constraints_.preferenceOverruled[value])
        out_ += " (which wins over its prefer_recompute tag)";
      return;
    case HardSave::None:
      break;
    }
    if (constraints_.user[value] == UserChoice::PolicySave) {
      absl::StrAppend(&out_, "saved: checkpoint policy ", policyText(),
                      " saves it");
      if (constraints_.preferenceOverruled[value])
        out_ += " (which wins over its prefer_recompute tag)";
      return;
    }
    if (!constraints_.needed[value]) {
      // A derivation reading it directly says more than the replay it
      // ultimately feeds (min-cut may replay from a derived value).
      ValueId owner = derivationReading(value);
      if (owner == kNoId)
        owner = facts_.owner[value];
      if (owner != kNoId && derivedIndex(owner) >= 0) {
        out_ += "saved: the derivation of ";
        appendName(owner);
        out_ += " reads it";
        return;
      }
      out_ += "saved: recomputing ";
      if (owner == kNoId)
        out_ += "other values";
      else
        appendName(owner);
      out_ += " starts from it";
      return;
    }
    Strategy strategy = context_.options.strategy;
    if (strategy == Strategy::SaveAll) {
      out_ += "saved: save-all keeps every value backward reads";
      return;
    }
    if (strategy == Strategy::RecomputeAll) {
      out_ += "saved: recompute-all could not recompute it";
      return;
    }
    if (constraints_.autoBan[value] != AutoBan::None) {
      out_ += "saved: recomputing it needs ";
      appendBanPhrase(out_, graph_, producer, constraints_.autoBan[value]);
      return;
    }
    if (auto ban = blockingBan(value)) {
      out_ += "saved: recomputing it needs ";
      appendBanPhrase(out_, graph_, ban->first, ban->second);
      out_ += ", whose result is not saved";
      return;
    }
    int64_t bytes = context_.tables.valueBytes[value];
    switch (strategy) {
    case Strategy::MinCut:
      absl::StrAppend(&out_, "saved: keeping it (", formatBytes(bytes),
                      ") costs less than keeping what recomputing it "
                      "needs");
      if (double rate = exchangeRate(context_.options); rate > 0)
        absl::StrAppend(&out_, " plus its replay time at ",
                        formatBytes(static_cast<int64_t>(rate)), " per us");
      out_ += " (min-cut)";
      return;
    case Strategy::Budget:
      out_ += "saved: the budget";
      if (result_.budgetBytes)
        absl::StrAppend(&out_, " (", formatBytes(*result_.budgetBytes), ")");
      if (context_.constraints.neededInForward.at(producer))
        absl::StrAppend(
            &out_, " has room for it, and recomputing it would cost ",
            formatMicroseconds(context_.tables.replayTimeUs[producer]));
      else
        out_ += " has room for it (only backward needs it: evaluated there "
                "instead, it would add no time)";
      appendDroppedPreference(value, FlatGraph::kPreferRecompute);
      return;
    case Strategy::Optimal:
      out_ += "saved: the optimal schedule keeps it from forward";
      return;
    default:
      break;
    }
    out_ += "saved";
  }

  /// With inexact derivation allowed, a 16-bit float value is never derived
  /// inexactly (Derivation.cpp): name the derivation it did not get, so that
  /// "why is it saved when it is `out - residual`?" has an answer.
  void appendRefusedDerivation(ValueId value) {
    if (!context_.options.allowInexactDerivation)
      return;
    DType dtype = flat_.dtype[value];
    if (dtype != DType::BF16 && dtype != DType::F16)
      return;
    for (OpId user : graph_.users(value)) {
      if (context_.phases.opPhase[user] != Phase::Forward)
        continue;
      const GraphOp &op = graph_.op(user);
      for (const InverseRule &rule : op.inverseRules) {
        if (rule.exact || op.operands[rule.recoveredOperand] != value)
          continue;
        Derivation derivation = derivationThrough(graph_, user, rule);
        absl::StrAppend(&out_, "; not derived as ", formula(graph_, derivation),
                        ": inexact derivations are not used for ",
                        std::string(toString(dtype)), " values");
        return;
      }
    }
  }

  /// `budget` recomputes a compute-intensive value only because no plan
  /// inside the automatic bans meets the budget (recompute-banned=allow).
  void appendLiftedBan(ValueId value) {
    bool lifted = false;
    for (OpId op : chains_.of(value))
      for (ValueId result : flat_.results(op))
        lifted |= !constraints_.banLifted.empty() &&
                  constraints_.banLifted[result] != 0;
    if (lifted)
      out_ += "; replays a compute-intensive op to meet the budget, as no "
              "plan inside the automatic bans does (recompute-banned=allow)";
  }

  /// `budget` ignored prefer_* tags because no plan honouring them fits:
  /// say so for a value whose producer carries the ignored `tag`.
  void appendDroppedPreference(ValueId value, FlatGraph::OpFlag tag) {
    if (!constraints_.preferencesDropped ||
        !flat_.hasFlag(producerOf(value), tag))
      return;
    absl::StrAppend(&out_, "; its ",
                    tag == FlatGraph::kPreferSave ? "prefer_save"
                                                  : "prefer_recompute",
                    " tag yields, as no plan honouring the prefer_* tags "
                    "fits the budget");
  }

  /// The values a recomputation reads from outside its chain (parameters
  /// left out): the first three by name, then a count.
  void appendFromList(ValueId value) {
    absl::Span<const OpId> chain = chains_.of(value);
    size_t numReads = 0;
    if (!chain.empty()) {
      const uint32_t stamp = nextStamp();
      for (OpId op : chain)
        opMark_[op] = stamp;
      constexpr size_t kShown = 3;
      for (OpId op : chain)
        for (ValueId operand : flat_.operands(op)) {
          OpId producer = flat_.producer[operand];
          if (producer != kNoId && opMark_[producer] == stamp)
            continue;
          if (flat_.inputRole[operand] ==
              static_cast<int8_t>(InputRole::Parameter))
            continue; // weights are always there; naming them adds noise
          if (valueMark_[operand] == stamp)
            continue;
          valueMark_[operand] = stamp;
          if (numReads < kShown) {
            if (numReads > 0)
              out_ += ", ";
            appendName(operand);
          }
          ++numReads;
        }
      if (numReads > kShown)
        absl::StrAppend(&out_, " and ", numReads - kShown, " more");
    }
    if (numReads == 0)
      out_ += "parameters only";
  }

  /// On a target that fuses, names the backward op whose kernel a fused
  /// replay of `value`'s producer runs in (SimulationTables::replayTimeUs):
  /// the first backward op that reads it.
  void appendFusedInto(ValueId value) {
    const SimulationTables &tables = context_.tables;
    OpId producer = producerOf(value);
    if (tables.fusesIntoReaders.empty() ||
        !(tables.replayTimeUs[producer] < tables.opTimeUs[producer]))
      return;
    if (firstBackwardReader_.empty()) {
      firstBackwardReader_.assign(flat_.numValues(), kNoId);
      for (size_t op = flat_.numOps(); op-- > 0;) {
        if (context_.phases.opPhase[op] != Phase::Backward)
          continue;
        for (ValueId operand : flat_.operands(static_cast<OpId>(op)))
          firstBackwardReader_[operand] = static_cast<OpId>(op);
      }
    }
    if (OpId reader = firstBackwardReader_[value]; reader != kNoId) {
      out_ += "; the replay fuses into ";
      appendOpForUser(out_, graph_, reader);
    }
  }

  void appendRecomputeReason(ValueId value) {
    // A result of an op replayed for another value (split, multi-output
    // attention): name that value instead of an empty chain.
    ValueId owner = facts_.owner[value];
    if (chains_.of(value).empty() && owner != kNoId && owner != value) {
      out_ += "recomputed together with ";
      appendName(owner);
      out_ += " by ";
      appendOpForUser(out_, graph_, producerOf(value));
    } else {
      out_ += "recomputed from ";
      appendFromList(value);
    }
    switch (constraints_.user[value]) {
    case UserChoice::MustRecompute:
      out_ += ": tagged must_recompute";
      appendTagNote(out_, graph_, producerOf(value));
      return;
    case UserChoice::PolicyRecompute:
      absl::StrAppend(&out_, ": checkpoint policy ", policyText(),
                      " does not save it");
      return;
    case UserChoice::PreferRecompute:
      out_ += ": tagged prefer_recompute";
      appendTagNote(out_, graph_, producerOf(value));
      return;
    default:
      break;
    }
    // The time the chain adds: its ops forward runs too. An op forward
    // does not run (a weight's transpose only backward reads) has its one
    // evaluation in backward.
    absl::Span<const OpId> chain = chains_.of(value);
    double rerunUs = 0;
    bool moved = false;
    for (OpId op : chain) {
      if (inForward_[op])
        rerunUs += context_.tables.replayTimeUs[op];
      else
        moved = true;
    }
    if (moved && !(rerunUs > 0)) {
      out_ += " (only backward needs it: it runs there and not in forward, "
              "so it adds no time)";
      return;
    }
    switch (context_.options.strategy) {
    case Strategy::RecomputeAll:
      out_ += " (recompute-all saves only inputs and what tags force)";
      return;
    case Strategy::MinCut:
      absl::StrAppend(&out_, " (cheaper than saving ",
                      formatBytes(context_.tables.valueBytes[value]));
      if (double rate = exchangeRate(context_.options); rate > 0)
        absl::StrAppend(&out_, ", replay time weighed at ",
                        formatBytes(static_cast<int64_t>(rate)), " per us");
      out_ += ")";
      return;
    case Strategy::Budget: {
      absl::StrAppend(&out_, " (cheaper than saving ",
                      formatBytes(context_.tables.valueBytes[value]),
                      "; costs ", formatMicroseconds(rerunUs),
                      " to fit the budget");
      appendDroppedPreference(value, FlatGraph::kPreferSave);
      appendLiftedBan(value);
      out_ += ")";
      return;
    }
    case Strategy::Optimal:
      out_ += " (the optimal schedule re-evaluates it in backward)";
      return;
    default:
      break;
    }
  }

  void appendNotNeededReason(ValueId value) {
    if (facts_.recomputed[value]) {
      // What the replay was for: the walk's owner, else (a schedule whose
      // walk attributes none, `optimal`'s) a derivation reading it.
      ValueId owner = facts_.owner[value];
      if (owner == kNoId)
        owner = derivationReading(value);
      if (owner != kNoId) {
        out_ += derivedIndex(owner) >= 0
                    ? "not needed by backward: replayed for the derivation of "
                    : "not needed by backward: replayed only to recompute ";
        appendName(owner);
        return;
      }
    }
    OpId producer = producerOf(value);
    bool readsInputs = false;
    for (ValueId operand : flat_.operands(producer))
      readsInputs |= constraints_.needed[operand] != 0;
    if (readsInputs) {
      out_ += "not needed by backward: the backward of ";
      appendOpForUser(out_, graph_, producer);
      out_ += " reads only its inputs";
      return;
    }
    out_ += "not needed by backward: no backward op reads it";
  }

  const PlanContext &context_;
  const Graph &graph_;
  const FlatGraph &flat_;
  const Constraints &constraints_;
  const StrategyResult &result_;
  const WalkFacts &facts_;
  const Schedule &schedule_;
  Plan &plan_;
  std::string &out_;
  RecomputeChains chains_;
  /// By op, whether the schedule evaluates it in forward.
  std::vector<uint8_t> inForward_;
  /// Per value, the index of its derivation; empty when none.
  std::vector<int32_t> derivedIndex_;
  /// Per value, what derivationReading returns; built on first use.
  std::vector<ValueId> derivationReader_;
  /// Per value, the first backward op reading it; built on first use.
  std::vector<OpId> firstBackwardReader_;
  std::string policyText_;
  std::vector<uint32_t> valueMark_;
  std::vector<uint32_t> opMark_;
  uint32_t stamp_ = 0;
  std::vector<ValueId> frontier_;
};

} // namespace

void explainDecisions(const PlanContext &context, const StrategyResult &result,
                      const WalkFacts &facts, const Schedule &schedule,
                      Plan &plan) {
  Explainer(context, result, facts, schedule, plan).run();
}

} // namespace remat::detail
