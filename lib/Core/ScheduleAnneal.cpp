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
// that reads a value before any evaluation of its producer, is refused; a
// shift never passes an evaluation of its op, of an operand's producer or of
// a reader, so it binds no read anew). The energy of a schedule is its
// recomputation time plus the mean over its steps of the live bytes above
// 90% of the budget, weighed by the graph's recomputation time per byte,
// which rewards room below the budget where a later move can drop a
// recomputation. A move is accepted when it raises the energy by at most a
// threshold that falls linearly to zero (Dueck and Scheuer, 1990), with a
// fixed-seed SplitMix64 and a work count (steps of the evaluations) as the
// limit, so the search is the same from run to run and machine to machine.
//
// The memory model is the simulator's (that of OrderSearch.cpp: a read is
// bound to the latest earlier evaluation of its producer; an evaluation's
// storage is live from its step to its last read, a function result's to
// the end; graph inputs are not counted; a view adds no bytes and keeps its
// base's storage live; an op's workspace is live at its own step). A move
// is evaluated on a Timeline, which keeps the current schedule's bindings,
// readers and live bytes by step up to date move by move: a move changes
// the live intervals of the few storages it touches, and one pass over the
// live bytes gives the peak and the energy (about 1 us per move on 250 to
// 500 nodes, against 5-7 us for evaluating the schedule in full). On graphs
// with views, which the timeline does not follow, each candidate is
// evaluated in full. The caller re-simulates the result and checks the peak
// against this accounting; IncrementalSearchTest checks the timeline against
// the full evaluation move by move.
//
// Backward ops are neither moved, added nor dropped, and forward
// evaluations move within their section, so every schedule stays in the
// class the plan's lower bound is proven for (TimeLowerBound.cpp).
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

namespace remat::detail {
namespace {

/// The seed of the search.
constexpr uint64_t kSeed = 0x616e6e65616cULL; // "anneal"
/// How far a move takes an evaluation, and how far before its reader an
/// added evaluation goes, in steps at most.
constexpr int64_t kReach = 16;
/// The energy's level, as a fraction of the budget.
constexpr double kLevelFraction = 0.9;
/// The acceptance threshold at the start, as a fraction of the mean time of
/// an op the search may add.
constexpr double kStartThreshold = 0.25;
/// What an entry of a full evaluation costs in the work count, against a
/// step of the timeline's: it takes about four times as long (random reads
/// through the bindings against passes over arrays; measured on the random
/// layered graphs).
constexpr int64_t kFullEvaluationCharge = 4;

class Annealer {
public:
  Annealer(const PlanContext &context, int64_t budget)
      : context_(context), budget_(budget),
        level_(static_cast<int64_t>(kLevelFraction *
                                    static_cast<double>(budget))) {
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

  /// Evaluates every move the timeline evaluates in full too (tests).
  void verifyTimeline() { verify_ = true; }
  /// Moves whose two evaluations disagreed, with verifyTimeline.
  int64_t mismatches() const { return mismatches_; }

  /// Whether a Timeline can follow schedules of up to `maxEvents` events:
  /// no value is a view, and no sum of live bytes can pass 2^62 (an event
  /// holds at most its op's results and workspace).
  bool timelineFits(int64_t maxEvents) const {
    const FlatGraph &flat = context_.flat;
    for (size_t id = 0; id < flat.numValues(); ++id)
      if (flat.storageOf(static_cast<ValueId>(id)) != static_cast<ValueId>(id))
        return false;
    double largest = 0;
    for (size_t index = 0; index < flat.numOps(); ++index) {
      const OpId op = static_cast<OpId>(index);
      double bytes = static_cast<double>(flat.workspace(op));
      for (ValueId value : flat.results(op))
        bytes += static_cast<double>(context_.tables.valueBytes[value]);
      largest = std::max(largest, bytes);
    }
    return largest * static_cast<double>(maxEvents) < 0x1p62;
  }

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
    int64_t moves = movesPerEvent * numEvents;
    // The timeline evaluates a move from what it touches; without it each
    // move costs a full evaluation, and the moves are as many as the work
    // pays for.
    std::optional<Timeline> timeline;
    if (timelineFits(numEvents + moves)) {
      timeline.emplace(*this, steps);
    } else {
      moves = std::min(moves,
                       workLimit / std::max<int64_t>(1, kFullEvaluationCharge *
                                                            current.work));
    }
    std::vector<int32_t> evaluations(context_.flat.numOps(), 0);
    for (OpId op : steps)
      ++evaluations[op];
    std::vector<OpId> best = steps, candidate;
    int64_t bestBoundary = boundary;
    Evaluation bestEvaluation = current;
    SplitMix64 random(kSeed);
    int64_t work = 0;
    auto opAt = [&](int64_t e) {
      return timeline ? timeline->opAt(e) : steps[e];
    };
    for (int64_t move = 0; move < moves && work < workLimit; ++move) {
      const int64_t size =
          timeline ? timeline->size() : static_cast<int64_t>(steps.size());
      const int64_t at = static_cast<int64_t>(random.below(size));
      const OpId op = opAt(at);
      Move change;
      change.at = at;
      int64_t candidateBoundary = boundary;
      switch (random.below(3)) {
      case 0: { // take a forward evaluation a few steps away, in its section
        if (context_.phases.opPhase[op] != Phase::Forward)
          continue;
        const int64_t low = at < boundary ? 0 : boundary;
        const int64_t high = at < boundary ? boundary - 1 : size - 1;
        change.kind = MoveKind::Shift;
        change.to = std::clamp<int64_t>(
            at - kReach + static_cast<int64_t>(random.below(2 * kReach + 1)),
            low, high);
        if (change.to == at || passesDependency(at, change.to, opAt))
          continue;
        break;
      }
      case 1: { // evaluate an operand's producer again, shortly before
        const uint32_t begin = operandBegin_[op], end = operandBegin_[op + 1];
        if (begin == end)
          continue;
        change.kind = MoveKind::Add;
        change.op = operands_[begin + random.below(end - begin)].producer;
        if (!rules_.mayAdd[change.op])
          continue;
        change.at =
            at - static_cast<int64_t>(random.below(std::min(kReach, at) + 1));
        candidateBoundary += change.at < boundary;
        break;
      }
      default: // drop a re-evaluation (an earlier evaluation stays)
        if (!rules_.mayDrop[op] || evaluations[op] < 2)
          continue;
        if (timeline ? !timeline->evaluatedBefore(at)
                     : std::find(steps.begin(), steps.begin() + at, op) ==
                           steps.begin() + at)
          continue;
        change.kind = MoveKind::Drop;
        candidateBoundary -= at < boundary;
        break;
      }
      Evaluation evaluation;
      if (timeline) {
        evaluation = timeline->evaluate(change);
        if (verify_ &&
            !sameEvaluation(evaluation,
                            evaluate(applied(timeline->steps(), change))))
          ++mismatches_;
      } else {
        candidate = applied(steps, change);
        evaluation = evaluate(candidate);
        evaluation.work *= kFullEvaluationCharge;
      }
      work += evaluation.work;
      if (!evaluation.valid || evaluation.peak > budget_)
        continue;
      const double progress =
          std::max(static_cast<double>(move) / static_cast<double>(moves),
                   static_cast<double>(work) / static_cast<double>(workLimit));
      if (evaluation.energy >
          current.energy + startThreshold_ * (1.0 - progress))
        continue;
      if (timeline)
        timeline->commit(change);
      else
        steps.swap(candidate);
      boundary = candidateBoundary;
      current = evaluation;
      if (change.kind == MoveKind::Add)
        ++evaluations[change.op];
      if (change.kind == MoveKind::Drop)
        --evaluations[op];
      if (current.recomputeUs < bestEvaluation.recomputeUs ||
          (current.recomputeUs == bestEvaluation.recomputeUs &&
           current.peak < bestEvaluation.peak)) {
        best = timeline ? timeline->steps() : steps;
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
    int64_t work = 0; // the work count: timeline steps or entries visited
  };

  /// A change to the schedule: the event at `at` taken to `to` (Shift),
  /// `op` evaluated at `at` before the event there (Add), or the event at
  /// `at` dropped (Drop).
  enum class MoveKind : uint8_t { Shift, Add, Drop };
  struct Move {
    MoveKind kind;
    int64_t at = 0, to = 0;
    OpId op = kNoId;
  };

  /// Takes the element at `at` of `sequence` to `to`.
  template <typename T>
  static void shift(std::vector<T> &sequence, int64_t at, int64_t to) {
    const auto from = sequence.begin() + at;
    if (to > at)
      std::rotate(from, from + 1, sequence.begin() + to + 1);
    else
      std::rotate(sequence.begin() + to, from, from + 1);
  }

  /// `steps` with `move` made.
  static std::vector<OpId> applied(const std::vector<OpId> &steps,
                                   const Move &move) {
    std::vector<OpId> result = steps;
    const auto at = result.begin() + move.at;
    switch (move.kind) {
    case MoveKind::Shift:
      shift(result, move.at, move.to);
      break;
    case MoveKind::Add:
      result.insert(at, move.op);
      break;
    case MoveKind::Drop:
      result.erase(at);
      break;
    }
    return result;
  }

  /// Whether taking the event at `at` to `to` passes an evaluation of its
  /// op, of one of its operands' producers or of an op that reads it: such a
  /// shift would bind reads anew (or leave one unbound), and is not a move
  /// of the search. `opAt` gives the op at a position.
  template <typename OpAt>
  bool passesDependency(int64_t at, int64_t to, const OpAt &opAt) const {
    const OpId op = opAt(at);
    for (int64_t e = std::min(at, to); e <= std::max(at, to); ++e) {
      if (e == at)
        continue;
      const OpId other = opAt(e);
      if (other == op)
        return true;
      for (uint32_t i = operandBegin_[op]; i < operandBegin_[op + 1]; ++i)
        if (operands_[i].producer == other)
          return true;
      for (uint32_t i = operandBegin_[other]; i < operandBegin_[other + 1]; ++i)
        if (operands_[i].producer == op)
          return true;
    }
    return false;
  }

  /// The current schedule with its bindings and live bytes, kept up to date
  /// move by move, so that a move is evaluated from the storages it touches
  /// and one pass over the live bytes by event, not from every read: each
  /// event keeps the storage each of its reads is bound to, each storage its
  /// readers and how many function results it holds, each op its
  /// evaluations. Only for graphs without views (a view shares its base's
  /// storage, which this bookkeeping does not follow).
  class Timeline {
  public:
    /// The timeline of `steps`, a valid schedule.
    Timeline(const Annealer &annealer, const std::vector<OpId> &steps)
        : a_(annealer) {
      build(steps);
    }

    int64_t size() const { return static_cast<int64_t>(order_.size()); }
    OpId opAt(int64_t at) const { return eventOp_[order_[at]]; }
    std::vector<OpId> steps() const {
      std::vector<OpId> steps(order_.size());
      for (size_t i = 0; i < order_.size(); ++i)
        steps[i] = eventOp_[order_[i]];
      return steps;
    }
    /// Whether the op of the event at `at` is evaluated before it too.
    bool evaluatedBefore(int64_t at) const {
      return latestBefore(opAt(at), at) >= 0;
    }

    /// The evaluation of the schedule with `move` made (a shift that
    /// passes no dependency); the live bytes by event are kept for commit.
    Evaluation evaluate(const Move &move) {
      stamp(); // no storage affected yet
      switch (move.kind) {
      case MoveKind::Add:
        return evaluateAdd(move.op, move.at);
      case MoveKind::Drop:
        return evaluateDrop(move.at);
      case MoveKind::Shift:
        break;
      }
      return evaluateShift(move.at, move.to);
    }

    /// Makes `move`, the one evaluated last.
    void commit(const Move &move) {
      switch (move.kind) {
      case MoveKind::Add:
        commitAdd(move.op, move.at);
        break;
      case MoveKind::Drop:
        commitDrop(move.at);
        break;
      case MoveKind::Shift: {
        shift(order_, move.at, move.to);
        for (int64_t e = std::min(move.at, move.to);
             e <= std::max(move.at, move.to); ++e)
          pos_[order_[e]] = static_cast<int32_t>(e);
        break;
      }
      }
      live_.swap(candidate_);
      recomputeUs_ = candidateRecomputeUs_;
    }

  private:
    void build(const std::vector<OpId> &steps) {
      evaluations_.assign(a_.context_.flat.numOps(), {});
      for (OpId op : steps) {
        const int32_t event = newEvent(op);
        pos_[event] = static_cast<int32_t>(order_.size());
        order_.push_back(event);
        for (uint32_t i = a_.operandBegin_[op]; i < a_.operandBegin_[op + 1];
             ++i) {
          const int32_t bound = evaluations_[a_.operands_[i].producer].back();
          const int32_t storage =
              eventStorage_[bound] +
              static_cast<int32_t>(a_.operands_[i].resultIndex);
          bindings_.push_back(storage);
          readers_[storage].push_back(event);
        }
        if (!evaluations_[op].empty())
          recomputeUs_ += a_.context_.tables.replayTimeUs[op];
        evaluations_[op].push_back(event);
      }
      for (const Operand &output : a_.outputs_)
        ++outputs_[eventStorage_[evaluations_[output.producer].back()] +
                   static_cast<int32_t>(output.resultIndex)];
      const int64_t n = size();
      live_.assign(n, 0);
      std::vector<int64_t> delta(n + 1, 0);
      for (size_t storage = 0; storage < storageBytes_.size(); ++storage) {
        delta[pos_[storageEvent_[storage]]] += storageBytes_[storage];
        delta[lastOf(static_cast<int32_t>(storage)) + 1] -=
            storageBytes_[storage];
      }
      int64_t running = 0;
      for (int64_t e = 0; e < n; ++e) {
        running += delta[e];
        live_[e] = running + workspace(order_[e]);
      }
    }

    int64_t workspace(int32_t event) const {
      return a_.context_.flat.workspace(eventOp_[event]);
    }
    int32_t newEvent(OpId op) {
      const FlatGraph &flat = a_.context_.flat;
      const int32_t event = static_cast<int32_t>(eventOp_.size());
      eventOp_.push_back(op);
      pos_.push_back(-1);
      eventStorage_.push_back(static_cast<int32_t>(storageBytes_.size()));
      eventBinding_.push_back(static_cast<int32_t>(bindings_.size()));
      for (ValueId value : flat.results(op)) {
        storageBytes_.push_back(a_.context_.tables.valueBytes[value]);
        storageEvent_.push_back(event);
        readers_.emplace_back();
        outputs_.push_back(0);
      }
      return event;
    }
    int32_t numResults(int32_t event) const {
      return static_cast<int32_t>(
          a_.context_.flat.results(eventOp_[event]).size());
    }
    /// The last event `storage` is live at, in the current order.
    int64_t lastOf(int32_t storage) const {
      if (outputs_[storage] > 0)
        return size() - 1;
      int64_t last = pos_[storageEvent_[storage]];
      for (int32_t reader : readers_[storage])
        last = std::max<int64_t>(last, pos_[reader]);
      return last;
    }
    /// The latest evaluation of `op` before position `before`, or -1.
    int32_t latestBefore(OpId op, int64_t before) const {
      int32_t latest = -1;
      for (int32_t event : evaluations_[op])
        if (pos_[event] < before && (latest < 0 || pos_[event] > pos_[latest]))
          latest = event;
      return latest;
    }
    /// Whether `op` is evaluated at position `from` or later.
    bool evaluatedFrom(OpId op, int64_t from) const {
      for (int32_t event : evaluations_[op])
        if (pos_[event] >= from)
          return true;
      return false;
    }
    /// The storage operand `i` (of operands_) of an evaluation at position
    /// `before` reads: its producer's latest evaluation before it; -1 when
    /// there is none.
    int32_t boundStorage(uint32_t i, int64_t before) const {
      const int32_t bound = latestBefore(a_.operands_[i].producer, before);
      if (bound < 0)
        return -1;
      return eventStorage_[bound] +
             static_cast<int32_t>(a_.operands_[i].resultIndex);
    }
    void stamp() {
      if (++generation_ == 0) {
        std::fill(touched_.begin(), touched_.end(), 0);
        generation_ = 1;
      }
      touched_.resize(storageBytes_.size(), 0);
    }
    /// Marks `storage` affected; false when it already was.
    bool touch(int32_t storage) {
      if (touched_[storage] == generation_)
        return false;
      touched_[storage] = generation_;
      return true;
    }
    /// Adds `bytes` to the candidate's live bytes at events [first, last].
    void add(int64_t bytes, int64_t first, int64_t last) {
      for (int64_t e = first; e <= last; ++e)
        candidate_[e] += bytes;
      work_ += std::max<int64_t>(0, last - first + 1);
    }
    /// A storage of `bytes` live at [first, last] is live at [first2, last2]
    /// instead (candidate positions both).
    void reinterval(int64_t bytes, int64_t first, int64_t last, int64_t first2,
                    int64_t last2) {
      if (last < first2 || last2 < first) {
        add(-bytes, first, last);
        add(bytes, first2, last2);
        return;
      }
      if (first < first2)
        add(-bytes, first, first2 - 1);
      else if (first2 < first)
        add(bytes, first2, first - 1);
      if (last > last2)
        add(-bytes, last2 + 1, last);
      else if (last2 > last)
        add(bytes, last + 1, last2);
    }
    Evaluation finish(double recomputeUs) {
      Evaluation result;
      result.valid = true;
      const int64_t n = static_cast<int64_t>(candidate_.size());
      double excess = 0;
      std::tie(result.peak, excess) = a_.peakAndExcess(candidate_);
      result.recomputeUs = candidateRecomputeUs_ = recomputeUs;
      result.energy =
          recomputeUs +
          a_.usPerByte_ * excess / static_cast<double>(std::max<int64_t>(1, n));
      result.work = work_ + 2 * n;
      return result;
    }

    /// `op` evaluated at position `t`, before the event there.
    Evaluation evaluateAdd(OpId op, int64_t t) {
      work_ = 0;
      Evaluation invalid;
      const int64_t n = size();
      // Every operand bound to its producer's latest evaluation before t.
      operandStorages_.clear();
      for (uint32_t i = a_.operandBegin_[op]; i < a_.operandBegin_[op + 1];
           ++i) {
        const int32_t storage = boundStorage(i, t);
        if (storage < 0)
          return invalid;
        if (touch(storage))
          operandStorages_.push_back(storage);
      }
      work_ += a_.operandBegin_[op + 1] - a_.operandBegin_[op];
      // The new event's live bytes before it: what is live across t.
      const int32_t next = order_[t];
      int64_t across = live_[t] - workspace(next);
      for (int32_t r = 0; r < numResults(next); ++r)
        across -= storageBytes_[eventStorage_[next] + r];
      candidate_.resize(n + 1);
      std::copy(live_.begin(), live_.begin() + t, candidate_.begin());
      std::copy(live_.begin() + t, live_.end(), candidate_.begin() + t + 1);
      candidate_[t] = across + a_.context_.flat.workspace(op);
      for (int32_t storage : operandStorages_) {
        const int64_t last = lastOf(storage);
        if (last < t)
          add(storageBytes_[storage], last + 1, t);
      }
      // Reads at or after t of the earlier evaluation's results are bound
      // to the new one; so are the function results when no later
      // evaluation exists.
      const int32_t earlier = latestBefore(op, t);
      const bool later = evaluatedFrom(op, t);
      const absl::Span<const ValueId> results = a_.context_.flat.results(op);
      for (int32_t r = 0; r < static_cast<int32_t>(results.size()); ++r) {
        const int64_t bytes = a_.context_.tables.valueBytes[results[r]];
        int64_t newLast = t;
        if (earlier >= 0) {
          const int32_t storage = eventStorage_[earlier] + r;
          const int64_t born = pos_[earlier];
          int64_t kept = born, moved = -1;
          for (int32_t reader : readers_[storage]) {
            if (pos_[reader] < t)
              kept = std::max<int64_t>(kept, pos_[reader]);
            else
              moved = std::max<int64_t>(moved, pos_[reader]);
          }
          work_ += static_cast<int64_t>(readers_[storage].size());
          const bool outputMoves = outputs_[storage] > 0 && !later;
          const int64_t oldLast = lastOf(storage);
          // Live at [born, oldLast] shifted past t (and at t when it was live
          // across t) before, at [born, kept] after; kept < t.
          const int64_t oldEnd = oldLast >= t ? oldLast + 1 : oldLast;
          if (oldEnd > kept)
            add(-bytes, kept + 1, oldEnd);
          if (moved >= 0)
            newLast = moved + 1;
          if (outputMoves)
            newLast = n;
        }
        add(bytes, t, newLast);
      }
      double recompute = recomputeUs_;
      if (!evaluations_[op].empty())
        recompute += a_.context_.tables.replayTimeUs[op];
      return finish(recompute);
    }

    void commitAdd(OpId op, int64_t t) {
      const int32_t earlier = latestBefore(op, t);
      const bool later = evaluatedFrom(op, t);
      const int32_t event = newEvent(op);
      for (uint32_t i = a_.operandBegin_[op]; i < a_.operandBegin_[op + 1];
           ++i) {
        const int32_t storage = boundStorage(i, t);
        bindings_.push_back(storage);
        readers_[storage].push_back(event);
      }
      if (earlier >= 0)
        for (int32_t r = 0; r < numResults(event); ++r) {
          const int32_t from = eventStorage_[earlier] + r;
          const int32_t to = eventStorage_[event] + r;
          std::vector<int32_t> &readers = readers_[from];
          size_t kept = 0;
          for (int32_t reader : readers) {
            if (pos_[reader] < t) {
              readers[kept++] = reader;
              continue;
            }
            readers_[to].push_back(reader);
            rebind(reader, from, to);
          }
          readers.resize(kept);
          if (!later) {
            outputs_[to] = outputs_[from];
            outputs_[from] = 0;
          }
        }
      order_.insert(order_.begin() + t, event);
      for (int64_t e = t; e < size(); ++e)
        pos_[order_[e]] = static_cast<int32_t>(e);
      evaluations_[op].push_back(event);
    }

    /// The event at position `t` dropped; its op is evaluated before t.
    Evaluation evaluateDrop(int64_t t) {
      work_ = 0;
      const int32_t dropped = order_[t];
      const OpId op = eventOp_[dropped];
      const int32_t earlier = latestBefore(op, t);
      const int64_t n = size();
      candidate_.resize(n - 1);
      std::copy(live_.begin(), live_.begin() + t, candidate_.begin());
      std::copy(live_.begin() + t + 1, live_.end(), candidate_.begin() + t);
      auto shifted = [t](int64_t e) { return e < t ? e : e - 1; };
      for (int32_t r = 0; r < numResults(dropped); ++r) {
        const int32_t storage = eventStorage_[dropped] + r;
        const int32_t target = eventStorage_[earlier] + r;
        touch(storage);
        touch(target);
        const int64_t bytes = storageBytes_[storage];
        // The dropped storage is gone (live after t only by its reads).
        const int64_t last = lastOf(storage);
        if (last > t)
          add(-bytes, t, last - 1);
        // Its reads and function results go to the earlier evaluation.
        const int64_t targetLast = lastOf(target); // < t
        int64_t newLast = targetLast;
        if (outputs_[storage] > 0)
          newLast = n - 2;
        else if (last > t)
          newLast = std::max(newLast, shifted(last));
        if (newLast > targetLast)
          add(bytes, targetLast + 1, newLast);
      }
      // The dropped event's reads end earlier where they were the last.
      for (int32_t storage : bindingsOf(dropped)) {
        if (!touch(storage) || outputs_[storage] > 0)
          continue;
        int64_t last = pos_[storageEvent_[storage]], old = last;
        for (int32_t reader : readers_[storage]) {
          old = std::max<int64_t>(old, pos_[reader]);
          if (reader != dropped)
            last = std::max<int64_t>(last, pos_[reader]);
        }
        work_ += static_cast<int64_t>(readers_[storage].size());
        if (old == t && last < t)
          add(-storageBytes_[storage], last + 1, t - 1);
      }
      return finish(recomputeUs_ - a_.context_.tables.replayTimeUs[op]);
    }

    void commitDrop(int64_t t) {
      const int32_t dropped = order_[t];
      const OpId op = eventOp_[dropped];
      const int32_t earlier = latestBefore(op, t);
      for (int32_t r = 0; r < numResults(dropped); ++r) {
        const int32_t from = eventStorage_[dropped] + r;
        const int32_t to = eventStorage_[earlier] + r;
        for (int32_t reader : readers_[from]) {
          readers_[to].push_back(reader);
          rebind(reader, from, to);
        }
        readers_[from].clear();
        outputs_[to] += outputs_[from];
        outputs_[from] = 0;
      }
      for (int32_t storage : bindingsOf(dropped)) {
        std::vector<int32_t> &readers = readers_[storage];
        readers.erase(std::remove(readers.begin(), readers.end(), dropped),
                      readers.end());
      }
      std::vector<int32_t> &evaluations = evaluations_[op];
      evaluations.erase(
          std::find(evaluations.begin(), evaluations.end(), dropped));
      order_.erase(order_.begin() + t);
      pos_[dropped] = -1;
      for (int64_t e = t; e < size(); ++e)
        pos_[order_[e]] = static_cast<int32_t>(e);
    }

    /// The event at `at` taken to `to`; it passes no dependency.
    Evaluation evaluateShift(int64_t at, int64_t to) {
      work_ = 0;
      const int64_t low = std::min(at, to), high = std::max(at, to);
      auto moved = [&](int64_t e) {
        if (e == at)
          return to;
        if (e < low || e > high)
          return e;
        return to > at ? e - 1 : e + 1;
      };
      candidate_ = live_;
      for (int64_t e = low; e <= high; ++e) {
        candidate_[moved(e)] += workspace(order_[e]);
        candidate_[e] -= workspace(order_[e]);
      }
      affected_.clear();
      for (int64_t e = low; e <= high; ++e) {
        const int32_t event = order_[e];
        for (int32_t r = 0; r < numResults(event); ++r)
          if (touch(eventStorage_[event] + r))
            affected_.push_back(eventStorage_[event] + r);
        for (int32_t storage : bindingsOf(event))
          if (touch(storage))
            affected_.push_back(storage);
      }
      const int64_t n = size();
      const int32_t movedEvent = order_[at];
      for (int32_t storage : affected_) {
        const int64_t born = pos_[storageEvent_[storage]];
        // moved() keeps the order of every event but the moved one, so the
        // latest of the other readers is latest after the move too; the
        // moved one reads at `to`.
        int64_t others = born;
        bool movedReads = false;
        for (int32_t reader : readers_[storage]) {
          if (reader == movedEvent)
            movedReads = true;
          else
            others = std::max<int64_t>(others, pos_[reader]);
        }
        int64_t last = movedReads ? std::max(others, at) : others;
        int64_t newLast = moved(others);
        if (movedReads)
          newLast = std::max(newLast, to);
        work_ += static_cast<int64_t>(readers_[storage].size());
        if (outputs_[storage] > 0)
          last = newLast = n - 1;
        reinterval(storageBytes_[storage], born, last, moved(born), newLast);
      }
      return finish(recomputeUs_);
    }

    /// The storages the reads of `event` are bound to, in operand order.
    absl::Span<int32_t> bindingsOf(int32_t event) {
      const OpId op = eventOp_[event];
      return absl::MakeSpan(bindings_).subspan(eventBinding_[event],
                                               a_.operandBegin_[op + 1] -
                                                   a_.operandBegin_[op]);
    }

    /// The read of `reader` bound to storage `from` is bound to `to`.
    void rebind(int32_t reader, int32_t from, int32_t to) {
      for (int32_t &storage : bindingsOf(reader))
        if (storage == from)
          storage = to;
    }

    const Annealer &a_;
    // By position: the event there, and the live bytes at it.
    std::vector<int32_t> order_;
    std::vector<int64_t> live_;
    // By event: its position (-1 once dropped), op, first storage and first
    // binding (one per read of an op's result, in operand order).
    std::vector<int32_t> pos_;
    std::vector<OpId> eventOp_;
    std::vector<int32_t> eventStorage_, eventBinding_, bindings_;
    // By storage: bytes, event, readers (events, once per read) and the
    // function results it holds.
    std::vector<int64_t> storageBytes_;
    std::vector<int32_t> storageEvent_;
    std::vector<std::vector<int32_t>> readers_;
    std::vector<int32_t> outputs_;
    std::vector<std::vector<int32_t>> evaluations_; // by op
    double recomputeUs_ = 0;
    // Scratch of an evaluation.
    std::vector<int64_t> candidate_;
    double candidateRecomputeUs_ = 0;
    int64_t work_ = 0;
    std::vector<uint32_t> touched_;
    uint32_t generation_ = 0;
    std::vector<int32_t> operandStorages_, affected_;
  };

  /// The peak of `live` (at least 0), and the sum over events of the live
  /// bytes above the energy's level, exactly as the sequential sum in
  /// doubles gives it. The timeline takes this after every move, so it is
  /// one pass on four independent lanes summing in 64-bit integers, which
  /// is that sum whenever no sum can pass 2^53 (every double addition is
  /// then exact, in any order); otherwise the sequential sum.
  std::pair<int64_t, double>
  peakAndExcess(const std::vector<int64_t> &live) const {
    constexpr size_t kLanes = 4;
    int64_t peak[kLanes] = {0, 0, 0, 0};
    uint64_t sum[kLanes] = {0, 0, 0, 0};
    const size_t n = live.size();
    size_t i = 0;
    auto take = [&](size_t lane, int64_t bytes) {
      peak[lane] = std::max(peak[lane], bytes);
      sum[lane] += bytes > level_ ? static_cast<uint64_t>(bytes - level_) : 0;
    };
    for (; i + kLanes <= n; i += kLanes)
      for (size_t lane = 0; lane < kLanes; ++lane)
        take(lane, live[i + lane]);
    for (; i < n; ++i)
      take(0, live[i]);
    const int64_t top = *std::max_element(peak, peak + kLanes);
    constexpr uint64_t kExact = uint64_t{1} << 53;
    if (top <= level_ ||
        static_cast<uint64_t>(top - level_) <= kExact / std::max<size_t>(n, 1))
      return {top, static_cast<double>(sum[0] + sum[1] + sum[2] + sum[3])};
    double excess = 0;
    for (int64_t bytes : live)
      if (bytes > level_)
        excess += static_cast<double>(bytes - level_);
    return {top, excess};
  }

  /// Whether two evaluations of one schedule agree: validity and peak
  /// exactly, times up to rounding (sums taken in different orders).
  static bool sameEvaluation(const Evaluation &a, const Evaluation &b) {
    auto close = [](double x, double y) {
      return std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(x));
    };
    return a.valid == b.valid &&
           (!a.valid ||
            (a.peak == b.peak && close(a.recomputeUs, b.recomputeUs) &&
             close(a.energy, b.energy)));
  }

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
      if (live > level_)
        excess += static_cast<double>(live - level_);
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
  const int64_t level_;
  ReevaluationRules rules_;
  // By op, its operands produced by ops (graph inputs are not counted),
  // and whether its first operand is among them (a view's storage is its
  // first operand's).
  std::vector<uint32_t> operandBegin_;
  std::vector<Operand> operands_;
  std::vector<uint8_t> firstProduced_;
  std::vector<Operand> outputs_; // the function results' producers
  double usPerByte_ = 0, startThreshold_ = 0;
  bool verify_ = false;
  int64_t mismatches_ = 0;
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

std::optional<int64_t> annealTimelineMismatches(const PlanContext &context,
                                                const Schedule &start,
                                                int64_t budgetBytes,
                                                int64_t movesPerEvent) {
  if (!start.derivations.empty() || start.steps.empty())
    return std::nullopt;
  Annealer annealer(context, budgetBytes);
  if (!annealer.useful() ||
      !annealer.timelineFits(static_cast<int64_t>(start.steps.size()) *
                             (1 + movesPerEvent)))
    return std::nullopt;
  annealer.verifyTimeline();
  annealer.run(start, std::numeric_limits<int64_t>::max() / 2, movesPerEvent);
  return annealer.mismatches();
}

} // namespace remat::detail
