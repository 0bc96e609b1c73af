//===- Derivation.cpp - Algebraic derivation through inverse rules --------===//
//
// Part of remat. A value backward needs can be re-created from other values
// through an inverse rule of one of its forward users: `c = a + b` gives
// `a = c - b`. A derivation is one more way of not saving a value, and it
// competes with the other two on the strategy's own terms:
//
//   - against a save, it frees the value's bytes;
//   - against a replay, it avoids the replay of every op that backward runs
//     only to re-create the value (the value's exclusive replay cone);
//   - it costs its own backward time, the time of any derivation it needs
//     first (derivations chain, up to kMaxChainDepth deep: `h = out - mlpwo`
//     where `out` is itself a reshape of a function result), and the bytes
//     of any source that has to be saved for it.
//
// Bytes and time are weighed with the strategy's exchange rate (min-cut's;
// 0 for `budget`, which then only takes derivations that lower memory, or
// that save time at no memory cost). The choice is greedy, largest value
// first; a value another derivation reads is never derived afterwards, so
// derivations never form a cycle.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace remat::detail {
namespace {

/// Element types whose inexact derivations stay within a few ulps of the
/// value: at least f32's 24-bit significand (integers only have exact rules).
bool hasWideSignificand(DType type) {
  return type != DType::F16 && type != DType::BF16;
}

/// Whether the user's tags and policy let `value` be derived at all: not
/// a function result, no hard save, bytes to spare. A policy's or a
/// preference's "recompute" means "do not save": a derivation satisfies
/// it. must_recompute asks for the replay itself; a policy's "save" is
/// kept. The same for a value derived to feed another (a chain).
bool isDerivable(const Constraints &constraints,
                 const std::vector<int64_t> &bytes, ValueId value) {
  if (constraints.isOutput[value] ||
      constraints.hardSave[value] != HardSave::None || bytes[value] == 0)
    return false;
  switch (constraints.user[value]) {
  case UserChoice::None:
  case UserChoice::PolicyRecompute:
  case UserChoice::PreferRecompute:
    return true;
  case UserChoice::MustRecompute:
  case UserChoice::PolicySave:
    return false;
  }
  return false;
}

/// An inexact rule cancels: `a = c - b` loses the bits of `a` that `c` and
/// `b` share, about 2^-p of the larger operand for a p-bit significand.
/// With f32/f64 that stays near rounding; with bf16 (8 bits) or f16 (11) a
/// small value beside a large one (a residual branch beside the residual
/// stream) comes back mostly wrong, so 16-bit floats are never derived
/// inexactly.
bool inexactAllowed(const Graph &graph, ValueId value,
                    const Derivation &derivation) {
  if (derivation.exact)
    return true;
  return hasWideSignificand(graph.value(value).type.dtype) &&
         std::all_of(derivation.from.begin(), derivation.from.end(),
                     [&](ValueId source) {
                       return hasWideSignificand(
                           graph.value(source).type.dtype);
                     });
}

/// Calls `fn(Derivation)` for each derivation of `value` through an inverse
/// rule of one of its forward users that the exactness rules allow.
template <typename Fn>
void forEachDerivation(const PlanContext &context, ValueId value, Fn &&fn) {
  const Graph &graph = context.graph;
  for (OpId user : graph.users(value)) {
    if (context.phases.opPhase[user] != Phase::Forward)
      continue;
    const GraphOp &op = graph.op(user);
    for (const InverseRule &rule : op.inverseRules) {
      if (op.operands[rule.recoveredOperand] != value ||
          (!rule.exact && !context.options.allowInexactDerivation))
        continue;
      Derivation derivation = derivationThrough(graph, user, rule);
      if (inexactAllowed(graph, value, derivation))
        fn(std::move(derivation));
    }
  }
}

/// How many derivations may feed the one chosen for a value, in a chain.
constexpr int kMaxChainDepth = 2;
/// Replays one trial may release before it stops counting (the estimate is
/// then low, which only makes a derivation less likely): keeps the search
/// linear-ish on graphs whose replay cones span 100k ops.
constexpr size_t kMaxTrialReleases = size_t{1} << 16;

/// The distinct operands of an op (an op reading a value twice demands it
/// once), in operand order.
template <typename Fn>
void forEachDistinctOperand(absl::Span<const ValueId> operands, Fn &&fn) {
  for (size_t i = 0; i < operands.size(); ++i) {
    bool seen = false;
    for (size_t j = 0; j < i && !seen; ++j)
      seen = operands[j] == operands[i];
    if (!seen)
      fn(operands[i]);
  }
}

/// One way to make a value available by derivation: the derivation, the
/// derivations it needs first (innermost first), the sources saved for it,
/// and what that costs.
struct Option {
  Derivation derivation;
  bool exact = true; // the derivation and every one feeding it
  std::vector<DerivationChoice> feeding; // sub-derivations, innermost first
  std::vector<ValueId> saves;            // sources saved for it
  std::vector<ValueId> replays;          // sources replayed for it
  int64_t saveBytes = 0;
  double timeUs = 0; // backward time of the derivation and its feeders
};

class DerivationSearch {
public:
  DerivationSearch(const PlanContext &context, std::vector<uint8_t> &keep,
                   double bytesPerUs)
      : context_(context), graph_(context.graph), flat_(context.flat),
        constraints_(context.constraints), bytes_(context.tables.valueBytes),
        keep_(keep), bytesPerUs_(bytesPerUs) {}

  std::vector<DerivationChoice> run(bool replaceSaves) {
    const size_t numValues = flat_.numValues();
    derived_.assign(numValues, 0);
    pinned_.assign(numValues, 0);
    initDemand();

    std::vector<ValueId> candidates;
    for (ValueId value : context_.phases.forwardValues) {
      if (!candidate(value, replaceSaves))
        continue;
      candidates.push_back(value);
    }
    if (candidates.empty())
      return {};
    // Values backward reads first (deriving one can make replays of the
    // others unnecessary), then largest first; among equals, values
    // automatic planning may not recompute first (a derivation is their
    // only alternative to saving), so that the others keep recomputation
    // open.
    auto banned = [&](ValueId value) {
      return constraints_.autoBan[value] != AutoBan::None;
    };
    std::stable_sort(
        candidates.begin(), candidates.end(), [&](ValueId lhs, ValueId rhs) {
          if (constraints_.needed[lhs] != constraints_.needed[rhs])
            return constraints_.needed[lhs] > constraints_.needed[rhs];
          if (bytes_[lhs] != bytes_[rhs])
            return bytes_[lhs] > bytes_[rhs];
          return banned(lhs) && !banned(rhs);
        });

    std::vector<DerivationChoice> choices;
    for (ValueId value : candidates) {
      // An earlier choice may have made it available, or read it.
      if (pinned_[value] || derived_[value] ||
          (!keep_[value] && demand_[value] == 0))
        continue;
      std::vector<ValueId> stack = {value};
      std::vector<Option> options = optionsFor(value, 0, stack);
      const int64_t replaced = keep_[value] ? freedBytes(value) : 0;
      std::optional<size_t> best;
      double bestScore = 0, bestTime = 0, bestAvoided = 0;
      for (size_t i = 0; i < options.size(); ++i) {
        releasedKernels_ = 0;
        double avoided = trial(value, options[i]);
        double timeDelta = options[i].timeUs - avoided;
        const int64_t bytesDelta = options[i].saveBytes - replaced;
        // Rounding-level error is not traded for fused arithmetic: an
        // inexact derivation that frees no memory must spare a kernel.
        if (bytesDelta >= 0 && !options[i].exact && releasedKernels_ == 0)
          continue;
        double score =
            static_cast<double>(bytesDelta) + bytesPerUs_ * timeDelta;
        if (!best || score < bestScore ||
            (score == bestScore && timeDelta < bestTime)) {
          best = i;
          bestScore = score;
          bestTime = timeDelta;
          bestAvoided = avoided;
        }
      }
      // Worth it only when it beats what the value has now: fewer bytes at
      // the exchange rate, or as many bytes in less time.
      if (!best || bestScore > 0 || (bestScore == 0 && !(bestTime < 0)))
        continue;
      Option &chosen = options[*best];
      commit(value, chosen);
      DerivationChoice choice;
      choice.value = value;
      choice.derivation = std::move(chosen.derivation);
      choice.replacedSaveBytes = replaced;
      choice.avoidedReplayUs = bestAvoided;
      choice.costUs = chosen.timeUs;
      choice.sourceSaveBytes = chosen.saveBytes;
      // A feeder was weighed as part of the chain: it carries the chain's
      // figures.
      for (DerivationChoice &feeder : chosen.feeding) {
        feeder.feeds = value;
        feeder.replacedSaveBytes = choice.replacedSaveBytes;
        feeder.avoidedReplayUs = choice.avoidedReplayUs;
        feeder.costUs = choice.costUs;
        feeder.sourceSaveBytes = choice.sourceSaveBytes;
        choices.push_back(std::move(feeder));
      }
      choices.push_back(std::move(choice));
    }
    dropUnread(choices);
    std::sort(choices.begin(), choices.end(),
              [](const DerivationChoice &lhs, const DerivationChoice &rhs) {
                return lhs.value < rhs.value;
              });
    return choices;
  }

private:
  //===--------------------------------------------------------------------===//
  // Which values backward replays, given what is available
  //===--------------------------------------------------------------------===//

  /// A value is demanded once per backward reader and once per replayed op
  /// that reads it; an op is replayed while any of its results is demanded.
  /// The same closure BackwardWalker (Materialize.cpp) computes, kept as
  /// counts so that making one value available releases exactly the replays
  /// nothing else needs.
  void initDemand() {
    const size_t numValues = flat_.numValues();
    storageRefs_.assign(numValues, 0);
    for (size_t id = 0; id < numValues; ++id) {
      ValueId value = static_cast<ValueId>(id);
      if (!constraints_.isOutput[id] && !(keep_[id] && constraints_.needed[id]))
        continue;
      if (ValueId storage = flat_.storageOf(value); storage != value)
        ++storageRefs_[storage];
    }
    available_.assign(numValues, 0);
    demand_.assign(numValues, 0);
    opDemand_.assign(flat_.numOps(), 0);
    for (size_t id = 0; id < numValues; ++id)
      available_[id] = flat_.isInput(static_cast<ValueId>(id)) ||
                       constraints_.isOutput[id] || keep_[id];
    std::vector<OpId> replayed;
    auto demand = [&](ValueId value) {
      if (available_[value] || !constraints_.isForward[value])
        return;
      ++demand_[value];
      if (opDemand_[flat_.producer[value]]++ == 0)
        replayed.push_back(flat_.producer[value]);
    };
    for (ValueId value : context_.phases.neededByBackward)
      demand(value);
    while (!replayed.empty()) {
      OpId op = replayed.back();
      replayed.pop_back();
      forEachDistinctOperand(flat_.operands(op), demand);
    }
  }

  enum class Field : uint8_t { Available, Demand, OpDemand };
  struct Change {
    Field field;
    int32_t index; // a ValueId or an OpId
    int32_t old;
  };

  void setAvailable(ValueId value) {
    log_.push_back({Field::Available, value, available_[value]});
    available_[value] = 1;
  }
  void addDemand(ValueId value, int32_t delta) {
    log_.push_back({Field::Demand, value, demand_[value]});
    demand_[value] += delta;
  }
  /// Returns the op's demand after the change.
  int32_t addOpDemand(OpId op, int32_t delta) {
    log_.push_back({Field::OpDemand, op, opDemand_[op]});
    return opDemand_[op] += delta;
  }
  void undo(size_t mark) {
    while (log_.size() > mark) {
      const Change &change = log_.back();
      switch (change.field) {
      case Field::Available:
        available_[change.index] = static_cast<uint8_t>(change.old);
        break;
      case Field::Demand:
        demand_[change.index] = change.old;
        break;
      case Field::OpDemand:
        opDemand_[change.index] = change.old;
        break;
      }
      log_.pop_back();
    }
  }

  /// Makes `value` available in backward without its replay; returns the
  /// replay time this releases.
  double makeAvailable(ValueId value) {
    if (available_[value])
      return 0;
    setAvailable(value);
    int32_t demand = demand_[value];
    if (demand == 0)
      return 0;
    addDemand(value, -demand);
    double released = 0;
    size_t releases = 0;
    std::vector<OpId> stack;
    if (addOpDemand(flat_.producer[value], -demand) == 0)
      stack.push_back(flat_.producer[value]);
    while (!stack.empty() && releases < kMaxTrialReleases) {
      OpId op = stack.back();
      stack.pop_back();
      ++releases;
      // An op forward does not need runs once, in backward, replayed or
      // not: its replay releases no time and no kernel (neededInForward).
      if (constraints_.neededInForward[op]) {
        released += context_.tables.replayTimeUs[op];
        // A replay that runs as a kernel of its own (not fused into a
        // reader).
        releasedKernels_ +=
            !flat_.hasFlag(op, FlatGraph::kView) &&
            context_.tables.replayTimeUs[op] >= context_.tables.opTimeUs[op];
      }
      forEachDistinctOperand(flat_.operands(op), [&](ValueId operand) {
        if (available_[operand] || !constraints_.isForward[operand])
          return;
        addDemand(operand, -1);
        if (addOpDemand(flat_.producer[operand], -1) == 0)
          stack.push_back(flat_.producer[operand]);
      });
    }
    return released;
  }

  /// The replay time `option` avoids if `value` is derived through it.
  double trial(ValueId value, const Option &option) {
    size_t mark = log_.size();
    double avoided = apply(value, option);
    undo(mark);
    return avoided;
  }
  double apply(ValueId value, const Option &option) {
    double avoided = makeAvailable(value);
    for (const DerivationChoice &feeder : option.feeding)
      avoided += makeAvailable(feeder.value);
    for (ValueId source : option.saves)
      avoided += makeAvailable(source);
    return avoided;
  }
  void commit(ValueId value, const Option &option) {
    apply(value, option);
    derived_[value] = 1;
    for (ValueId source : option.derivation.from)
      pinned_[source] = 1;
    for (const DerivationChoice &feeder : option.feeding) {
      derived_[feeder.value] = 1;
      for (ValueId source : feeder.derivation.from)
        pinned_[source] = 1;
    }
    // What a replayed source reads must stay available, never derived
    // from the value (a cycle in the walk).
    for (ValueId source : option.replays)
      for (ValueId operand : flat_.operands(flat_.producer[source]))
        pinned_[operand] = 1;
    for (ValueId source : option.saves) {
      keep_[source] = 1;
      if (ValueId storage = flat_.storageOf(source); storage != source)
        ++storageRefs_[storage];
    }
  }

  /// Drops derivations backward no longer reads: a value derived because a
  /// replay read it, before a later derivation made that replay
  /// unnecessary. The walk is BackwardWalker's: from what backward reads,
  /// through derivations' sources and replayed producers' operands.
  void dropUnread(std::vector<DerivationChoice> &choices) {
    if (choices.empty())
      return;
    std::vector<int32_t> index(flat_.numValues(), -1);
    for (size_t i = 0; i < choices.size(); ++i)
      index[choices[i].value] = static_cast<int32_t>(i);
    std::vector<uint8_t> seen(flat_.numValues(), 0), read(choices.size(), 0);
    std::vector<ValueId> stack;
    auto visit = [&](ValueId value) {
      if (!seen[value] && constraints_.isForward[value]) {
        seen[value] = 1;
        stack.push_back(value);
      }
    };
    for (ValueId value : context_.phases.neededByBackward)
      visit(value);
    while (!stack.empty()) {
      ValueId value = stack.back();
      stack.pop_back();
      if (int32_t i = index[value]; i >= 0) {
        read[i] = 1;
        for (ValueId source : choices[i].derivation.from)
          visit(source);
      } else if (!keep_[value] && !constraints_.isOutput[value]) {
        for (ValueId operand : flat_.operands(flat_.producer[value]))
          visit(operand);
      }
    }
    size_t kept = 0;
    for (size_t i = 0; i < choices.size(); ++i) {
      if (!read[i])
        continue;
      if (kept != i)
        choices[kept] = std::move(choices[i]);
      ++kept;
    }
    choices.resize(kept);
  }

  //===--------------------------------------------------------------------===//
  // The derivations of a value
  //===--------------------------------------------------------------------===//

  bool derivable(ValueId value) const {
    return isDerivable(constraints_, bytes_, value);
  }

  /// A kept value replays read (not backward itself) is a candidate too:
  /// min-cut keeps a value at the cost of its derivation when that is
  /// cheaper than its bytes (MinCut.cpp), so that backward replays from it.
  bool candidate(ValueId value, bool replaceSaves) const {
    if (!derivable(value))
      return false;
    if (keep_[value])
      return replaceSaves;
    return demand_[value] > 0;
  }

  /// Available in backward at no cost: a non-tangent graph input, a function
  /// result, a value derived already, or a saved value backward reads.
  bool isFree(ValueId value) const {
    if (const int8_t role = flat_.inputRole[value];
        role != FlatGraph::kNotInput)
      return role != static_cast<int8_t>(InputRole::Tangent);
    if (!constraints_.isForward[value])
      return false;
    return constraints_.isOutput[value] || derived_[value] ||
           (keep_[value] && constraints_.needed[value]);
  }

  /// Whether the strategy may save `value` to feed a derivation: a forward
  /// value that nothing forces to be recomputed.
  bool saveable(ValueId value) const {
    return constraints_.isForward[value] &&
           !constraints_.forcedRecompute(value);
  }

  /// The time of replaying `value`'s op in backward when automatic
  /// planning may and every operand it reads is free there (the walk then
  /// replays it for the derivation reading it); nullopt otherwise.
  /// The replay must not read a value being derived (on `stack`): that
  /// would be a cycle.
  std::optional<double> replayTime(ValueId value,
                                   const std::vector<ValueId> &stack) const {
    if (!constraints_.isForward[value] ||
        !constraints_.recomputable(value, /*automatic=*/true))
      return std::nullopt;
    const OpId producer = flat_.producer[value];
    for (ValueId operand : flat_.operands(producer))
      if (!isFree(operand) ||
          std::find(stack.begin(), stack.end(), operand) != stack.end())
        return std::nullopt;
    return context_.tables.replayTimeUs[producer];
  }

  /// The bytes saving `value` adds: its storage's (a view keeps its base
  /// alive), unless that storage is an input, a result or saved anyway.
  int64_t saveBytes(ValueId value) const {
    ValueId storage = flat_.storageOf(value);
    if (flat_.isInput(storage) || constraints_.isOutput[storage] ||
        (keep_[storage] && !derived_[storage]))
      return 0;
    return bytes_[storage];
  }

  /// The bytes no longer saved when kept `value` is derived instead: none
  /// for a view, or while a saved view or a result shares its storage.
  int64_t freedBytes(ValueId value) const {
    if (flat_.storageOf(value) != value || storageRefs_[value] > 0)
      return 0;
    return bytes_[value];
  }

  double score(int64_t bytes, double timeUs) const {
    return static_cast<double>(bytes) + bytesPerUs_ * timeUs;
  }

  /// The derivations of `value` through inverse rules of its forward users
  /// whose sources are free, saveable or derivable in turn (depth-limited,
  /// never through a value on `stack`).
  std::vector<Option> optionsFor(ValueId value, int depth,
                                 std::vector<ValueId> &stack) {
    std::vector<Option> options;
    forEachDerivation(context_, value, [&](Derivation derivation) {
      Option option;
      option.derivation = std::move(derivation);
      for (ValueId source : option.derivation.from)
        if (!resolveSource(source, depth, stack, option))
          return;
      option.timeUs += derivationTimeUs(context_, option.derivation, value);
      option.exact &= option.derivation.exact;
      options.push_back(std::move(option));
    });
    return options;
  }

  /// Makes `source` available for `option`: free, else the cheaper of
  /// saving it and deriving it. False when neither is possible.
  bool resolveSource(ValueId source, int depth, std::vector<ValueId> &stack,
                     Option &option) {
    if (std::find(stack.begin(), stack.end(), source) != stack.end())
      return false;
    auto feeds = [&](const DerivationChoice &feeder) {
      return feeder.value == source;
    };
    if (isFree(source) ||
        std::find(option.saves.begin(), option.saves.end(), source) !=
            option.saves.end() ||
        std::any_of(option.feeding.begin(), option.feeding.end(), feeds))
      return true;
    // Saving a view of a value being derived keeps that value's storage:
    // nothing gained.
    std::optional<int64_t> saveCost;
    if (saveable(source) && std::find(stack.begin(), stack.end(),
                                      flat_.storageOf(source)) == stack.end())
      saveCost = saveBytes(source);
    std::optional<Option> derived;
    if (depth < kMaxChainDepth && constraints_.isForward[source] &&
        !pinned_[source] && derivable(source)) {
      stack.push_back(source);
      std::vector<Option> options = optionsFor(source, depth + 1, stack);
      stack.pop_back();
      for (Option &candidate : options)
        if (!derived || score(candidate.saveBytes, candidate.timeUs) <
                            score(derived->saveBytes, derived->timeUs))
          derived = std::move(candidate);
    }
    // A source whose op reads only free values can be replayed for the
    // derivation instead (`b = tanh(x)` for `a = y - b`): no bytes from
    // forward, the replay's time.
    std::optional<double> replayCost = replayTime(source, stack);
    if (replayCost &&
        (!saveCost || score(0, *replayCost) < score(*saveCost, 0)) &&
        (!derived ||
         score(0, *replayCost) <= score(derived->saveBytes, derived->timeUs))) {
      option.timeUs += *replayCost;
      option.replays.push_back(source);
      return true;
    }
    if (derived && (!saveCost || score(derived->saveBytes, derived->timeUs) <
                                     score(*saveCost, 0))) {
      for (DerivationChoice &feeder : derived->feeding)
        option.feeding.push_back(std::move(feeder));
      for (ValueId saved : derived->saves)
        if (std::find(option.saves.begin(), option.saves.end(), saved) ==
            option.saves.end())
          option.saves.push_back(saved);
      option.replays.insert(option.replays.end(), derived->replays.begin(),
                            derived->replays.end());
      option.saveBytes = saturatingAdd(option.saveBytes, derived->saveBytes);
      option.timeUs += derived->timeUs;
      option.exact &= derived->exact;
      DerivationChoice feeder;
      feeder.value = source;
      feeder.costUs = derived->timeUs;
      feeder.derivation = std::move(derived->derivation);
      option.feeding.push_back(std::move(feeder));
      return true;
    }
    if (!saveCost)
      return false;
    option.saves.push_back(source);
    option.saveBytes = saturatingAdd(option.saveBytes, *saveCost);
    return true;
  }

  const PlanContext &context_;
  const Graph &graph_;
  const FlatGraph &flat_;
  const Constraints &constraints_;
  const std::vector<int64_t> &bytes_;
  std::vector<uint8_t> &keep_;
  const double bytesPerUs_;

  std::vector<uint8_t> derived_, pinned_, available_;
  std::vector<int32_t> demand_, opDemand_;
  /// Per value: saved values and results that are views of its storage.
  std::vector<int32_t> storageRefs_;
  std::vector<Change> log_;
  /// Kernels the current trial's releases spared (see makeAvailable).
  int64_t releasedKernels_ = 0;
};

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

std::vector<DerivationChoice> derivationCandidates(const PlanContext &context) {
  std::vector<DerivationChoice> candidates;
  if (!context.constraints.hasInverseRules)
    return candidates;
  for (ValueId value : context.phases.forwardValues) {
    if (!isDerivable(context.constraints, context.tables.valueBytes, value))
      continue;
    forEachDerivation(context, value, [&](Derivation derivation) {
      DerivationChoice candidate;
      candidate.value = value;
      candidate.costUs = derivationTimeUs(context, derivation, value);
      candidate.derivation = std::move(derivation);
      candidates.push_back(std::move(candidate));
    });
  }
  return candidates;
}

std::vector<DerivationChoice> chooseDerivations(const PlanContext &context,
                                                std::vector<uint8_t> &keep,
                                                bool replaceSaves,
                                                double bytesPerUs) {
  if (!context.constraints.hasInverseRules)
    return {};
  return DerivationSearch(context, keep, bytesPerUs).run(replaceSaves);
}

} // namespace remat::detail
