//===- ScheduleAnneal.cpp - Order and recomputation searched together ----===//
//
// Part of remat. The last step of `budget`'s polish for one budget (issue
// #17 item 2): from the fastest schedule within the budget the other
// searches found, a threshold-accepting search over the schedule itself,
// as FastSA (NeurIPS 2023) searches: a move either takes a forward
// evaluation a few steps earlier or later, adds an evaluation of a forward
// op shortly before one of its readers (a recomputation), or drops an
// evaluation of an op that is evaluated earlier too. The order search
// (OrderSearch.cpp) and the split descents (BudgetPlanner.cpp) search order
// and recomputation one after the other; here a move that frees memory and
// one that spends the room it made on dropping a recomputation can follow
// each other (docs/Planner.md has what it gains on the random layered
// graphs).
//
// Every accepted schedule is within the budget (a move that leaves it, or
// that reads a value before any evaluation of its producer, is refused).
// The energy of a schedule is its recomputation time plus the mean over
// its steps of the live bytes above 90% of the budget, weighed by the
// graph's recomputation time per byte, which rewards room below the budget
// where a later move can drop a recomputation. A move is accepted when it
// raises the energy by at most a threshold that falls linearly to zero (Dueck
// and Scheuer, 1990), with a fixed-seed SplitMix64 and a work count (entries an
// evaluation visits) as the limit, so the search is the same from run to run
// and machine to machine.
//
// Each candidate schedule is evaluated in full, with the simulator's memory
// model (that of OrderSearch.cpp: a read is bound to the latest earlier
// evaluation of its producer; an evaluation's storage is live from its step
// to its last read, a function result's to the end; graph inputs are not
// counted; a view adds no bytes and keeps its base's storage live; an op's
// workspace is live at its own step). The caller re-simulates the result and
// checks the peak against this accounting.
//
// Backward ops are neither moved, added nor dropped, and forward
// evaluations move within their section, so every schedule stays in the
// class the plan's lower bound is proven for (TimeLowerBound.cpp).
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace remat::detail {
namespace {

/// The seed of the search.
constexpr uint64_t kSeed = 0x616e6e65616cULL; // "anneal"
/// How far a move takes an evaluation, and how far before its reader an
/// added evaluation goes, in steps at most.
constexpr int64_t kReach = 4;
/// The energy's level, as a fraction of the budget.
constexpr double kLevelFraction = 0.9;
/// The acceptance threshold at the start, as a fraction of the mean time of
/// an op the search may add.
constexpr double kStartThreshold = 0.5;

class Annealer {
public:
  Annealer(const PlanContext &context, int64_t budget)
      : context_(context), budget_(budget),
        level_(kLevelFraction * static_cast<double>(budget)) {
    const FlatGraph &flat = context.flat;
    const Graph &graph = context.graph;
    const size_t numOps = flat.numOps();
    rules_ = reevaluationRules(context, {});
    operandBegin_.assign(1, 0);
    firstProduced_.assign(numOps, 0);
    double addableTime = 0, addableBytes = 0;
    for (size_t index = 0; index < numOps; ++index) {
      const OpId op = static_cast<OpId>(index);
      absl::Span<const ValueId> operands = flat.operands(op);
      for (size_t i = 0; i < operands.size(); ++i) {
        const OpId producer = flat.producer[operands[i]];
        if (producer == kNoId)
          continue;
        firstProduced_[index] |= i == 0;
        operands_.push_back({producer, graph.value(operands[i]).resultIndex});
      }
      operandBegin_.push_back(static_cast<uint32_t>(operands_.size()));
      if (!rules_.mayAdd[index])
        continue;
      addableTime += context.tables.replayTimeUs[index];
      for (ValueId result : flat.results(op))
        addableBytes += static_cast<double>(context.tables.valueBytes[result]);
    }
    for (size_t id = 0; id < flat.numValues(); ++id) {
      const OpId producer = flat.producer[id];
      if (flat.outputRole[id] != OutputRole::None && producer != kNoId)
        outputs_.push_back(
            {producer, graph.value(static_cast<ValueId>(id)).resultIndex});
    }
    const size_t addable = static_cast<size_t>(
        std::count(rules_.mayAdd.begin(), rules_.mayAdd.end(), 1));
    if (addable > 0 && addableBytes > 0) {
      usPerByte_ = addableTime / addableBytes;
      startThreshold_ =
          kStartThreshold * addableTime / static_cast<double>(addable);
    }
  }

  /// Whether the search can change anything: some op may be evaluated
  /// once more and recomputation has a time.
  bool useful() const { return usPerByte_ > 0 && startThreshold_ > 0; }

  std::optional<OrderFound> run(const Schedule &start, int64_t workLimit,
                                int64_t movesPerEvent) {
    std::vector<OpId> steps = start.steps;
    int64_t boundary =
        static_cast<int64_t>(backwardBoundary(start, context_.phases));
    Evaluation current = evaluate(steps);
    if (!current.valid || current.peak > budget_)
      return std::nullopt;
    const double startRecomputeUs = current.recomputeUs;
    const int64_t numEvents = static_cast<int64_t>(steps.size());
    const int64_t moves =
        std::min(workLimit / std::max<int64_t>(1, current.work),
                 movesPerEvent * numEvents);
    std::vector<int32_t> evaluations(context_.flat.numOps(), 0);
    for (OpId op : steps)
      ++evaluations[op];
    std::vector<OpId> best = steps, candidate;
    int64_t bestBoundary = boundary;
    Evaluation bestEvaluation = current;
    SplitMix64 random(kSeed);
    int64_t work = 0;
    for (int64_t move = 0; move < moves && work < workLimit; ++move) {
      const int64_t size = static_cast<int64_t>(steps.size());
      const int64_t at = static_cast<int64_t>(random.below(size));
      const OpId op = steps[at];
      int64_t candidateBoundary = boundary;
      OpId added = kNoId, dropped = kNoId;
      switch (random.below(3)) {
      case 0: { // take a forward evaluation a few steps away, in its section
        if (context_.phases.opPhase[op] != Phase::Forward)
          continue;
        const int64_t low = at < boundary ? 0 : boundary;
        const int64_t high = at < boundary ? boundary - 1 : size - 1;
        const int64_t to = std::clamp<int64_t>(
            at - kReach + static_cast<int64_t>(random.below(2 * kReach + 1)),
            low, high);
        if (to == at)
          continue;
        candidate.assign(steps.begin(), steps.end());
        if (to > at)
          std::rotate(candidate.begin() + at, candidate.begin() + at + 1,
                      candidate.begin() + to + 1);
        else
          std::rotate(candidate.begin() + to, candidate.begin() + at,
                      candidate.begin() + at + 1);
        break;
      }
      case 1: { // evaluate an operand's producer again, shortly before
        const uint32_t begin = operandBegin_[op], end = operandBegin_[op + 1];
        if (begin == end)
          continue;
        const OpId producer =
            operands_[begin + random.below(end - begin)].producer;
        if (!rules_.mayAdd[producer])
          continue;
        const int64_t to =
            at - static_cast<int64_t>(random.below(std::min(kReach, at) + 1));
        candidate.assign(steps.begin(), steps.end());
        candidate.insert(candidate.begin() + to, producer);
        candidateBoundary += to < boundary;
        added = producer;
        break;
      }
      default: // drop a re-evaluation (an earlier evaluation stays)
        if (!rules_.mayDrop[op] || evaluations[op] < 2 ||
            std::find(steps.begin(), steps.begin() + at, op) ==
                steps.begin() + at)
          continue;
        candidate.assign(steps.begin(), steps.end());
        candidate.erase(candidate.begin() + at);
        candidateBoundary -= at < boundary;
        dropped = op;
        break;
      }
      const Evaluation evaluation = evaluate(candidate);
      work += evaluation.work;
      if (!evaluation.valid || evaluation.peak > budget_)
        continue;
      const double progress =
          std::max(static_cast<double>(move) / static_cast<double>(moves),
                   static_cast<double>(work) / static_cast<double>(workLimit));
      if (evaluation.energy >
          current.energy + startThreshold_ * (1.0 - progress))
        continue;
      steps.swap(candidate);
      boundary = candidateBoundary;
      current = evaluation;
      if (added != kNoId)
        ++evaluations[added];
      if (dropped != kNoId)
        --evaluations[dropped];
      if (current.recomputeUs < bestEvaluation.recomputeUs ||
          (current.recomputeUs == bestEvaluation.recomputeUs &&
           current.peak < bestEvaluation.peak)) {
        best = steps;
        bestBoundary = boundary;
        bestEvaluation = current;
      }
    }
    if (!(bestEvaluation.recomputeUs < startRecomputeUs))
      return std::nullopt;
    OrderFound found;
    found.schedule.steps = std::move(best);
    found.schedule.backwardStart = static_cast<size_t>(bestBoundary);
    found.peakBytes = bestEvaluation.peak;
    return found;
  }

private:
  struct Operand {
    OpId producer;
    uint32_t resultIndex;
  };
  struct Evaluation {
    bool valid = false;
    int64_t peak = 0;
    double recomputeUs = 0;
    double energy = 0;
    int64_t work = 0; // entries visited
  };

  /// The peak, recomputation time and energy of `steps`; invalid when a
  /// step (or a function result) reads a value before any evaluation of
  /// its producer, or when the bytes produced pass INT64_MAX.
  Evaluation evaluate(const std::vector<OpId> &steps) {
    const FlatGraph &flat = context_.flat;
    const SimulationTables &tables = context_.tables;
    const int32_t numEvents = static_cast<int32_t>(steps.size());
    Evaluation result;
    // Bytes produced so far: while they fit in 64 bits no live sum
    // overflows; saturated tensor sizes (fuzzed graphs) end the search.
    int64_t produced = 0;
    auto produce = [&](int64_t bytes) {
      if (bytes > std::numeric_limits<int64_t>::max() - produced)
        return false;
      produced += bytes;
      return true;
    };
    latestResults_.assign(flat.numOps(), -1);
    storageOfResult_.clear();
    storageBytes_.clear();
    storageBorn_.clear();
    storageLast_.clear();
    bornBytes_.assign(numEvents, 0);
    for (int32_t e = 0; e < numEvents; ++e) {
      const OpId op = steps[e];
      int32_t viewStorage = -1;
      for (uint32_t i = operandBegin_[op]; i < operandBegin_[op + 1]; ++i) {
        const int32_t bound = latestResults_[operands_[i].producer];
        if (bound < 0)
          return result;
        const int32_t storage =
            storageOfResult_[bound + operands_[i].resultIndex];
        if (storage >= 0)
          storageLast_[storage] = e;
        if (i == operandBegin_[op] && firstProduced_[op])
          viewStorage = storage;
      }
      if (latestResults_[op] >= 0)
        result.recomputeUs += tables.replayTimeUs[op];
      latestResults_[op] = static_cast<int32_t>(storageOfResult_.size());
      absl::Span<const ValueId> results = flat.results(op);
      for (ValueId value : results) {
        int32_t storage = viewStorage;
        if (flat.storageOf(value) == value) {
          if (!produce(tables.valueBytes[value]))
            return result;
          storage = static_cast<int32_t>(storageBytes_.size());
          storageBytes_.push_back(tables.valueBytes[value]);
          storageBorn_.push_back(e);
          storageLast_.push_back(e);
          bornBytes_[e] += tables.valueBytes[value];
        }
        storageOfResult_.push_back(storage);
      }
      if (!produce(flat.workspace(op)))
        return result;
      bornBytes_[e] += flat.workspace(op);
      result.work += 1 + (operandBegin_[op + 1] - operandBegin_[op]) +
                     static_cast<int64_t>(results.size());
    }
    for (const Operand &output : outputs_) {
      const int32_t bound = latestResults_[output.producer];
      if (bound < 0)
        return result;
      const int32_t storage = storageOfResult_[bound + output.resultIndex];
      if (storage >= 0)
        storageLast_[storage] = numEvents;
    }
    delta_.assign(numEvents + 1, 0);
    for (size_t storage = 0; storage < storageBytes_.size(); ++storage) {
      delta_[storageBorn_[storage]] += storageBytes_[storage];
      delta_[storageLast_[storage]] -= storageBytes_[storage];
    }
    int64_t cross = 0;
    double excess = 0;
    for (int32_t e = 0; e < numEvents; ++e) {
      const int64_t live = cross + bornBytes_[e];
      result.peak = std::max(result.peak, live);
      if (static_cast<double>(live) > level_)
        excess += static_cast<double>(live) - level_;
      cross += delta_[e];
    }
    result.work += numEvents +
                   static_cast<int64_t>(outputs_.size() + storageBytes_.size());
    result.valid = true;
    result.energy = result.recomputeUs +
                    usPerByte_ * excess / static_cast<double>(numEvents);
    return result;
  }

  const PlanContext &context_;
  const int64_t budget_;
  const double level_;
  ReevaluationRules rules_;
  // By op, its operands produced by ops (graph inputs are not counted),
  // and whether its first operand is among them (a view's storage is its
  // first operand's).
  std::vector<uint32_t> operandBegin_;
  std::vector<Operand> operands_;
  std::vector<uint8_t> firstProduced_;
  std::vector<Operand> outputs_; // the function results' producers
  double usPerByte_ = 0, startThreshold_ = 0;
  // Scratch of evaluate: by op, where its latest evaluation's results'
  // storages start in storageOfResult_ (-1: not evaluated yet); by result
  // of an event, its storage (-1: a view of a graph input); by storage, its
  // bytes, its event and its last reader.
  std::vector<int32_t> latestResults_, storageOfResult_, storageBorn_,
      storageLast_;
  std::vector<int64_t> storageBytes_, bornBytes_, delta_;
};

} // namespace

std::optional<OrderFound>
annealForBudget(const PlanContext &context, const Schedule &start,
                int64_t budgetBytes, int64_t workLimit, int64_t movesPerEvent) {
  if (!start.derivations.empty() || start.steps.empty())
    return std::nullopt;
  Annealer annealer(context, budgetBytes);
  if (!annealer.useful())
    return std::nullopt;
  return annealer.run(start, workLimit, movesPerEvent);
}

} // namespace remat::detail
