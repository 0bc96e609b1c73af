//===- OrderSearch.cpp - Lower-peak evaluation orders ---------------------===//
//
// Part of remat. Issue #17 item 1: the order of first evaluations is the
// planner's to choose, not the input's. On graphs without a backward phase
// (the random layered graphs of the literature) the order alone decides most
// of the peak: FastSA's lever.
//
// The search permutes the events of a schedule without derivations and keeps
// it a valid schedule that computes the same: each read stays bound to the
// evaluation it reads in the start schedule (the latest earlier one, as the
// simulator resolves it), so an event stays after the evaluations it reads
// and the readers of its op's previous evaluation, and before its readers
// and the next evaluation of its op and of each op it reads, within its
// section (forward events stay before backward ones). Half the moves take
// an event to a random position within those limits; the other half take
// it anywhere in its section, together with the events between that must
// stay on its far side (a block: its descendants there when it moves later,
// its ancestors when it moves earlier), which keep their order. A block
// move takes a branch out of a region at the peak in one step where single
// moves would each raise the peak first: on random-n100 and n250 (shared
// data) they lowered the lowest order found from 0.81 and 0.83 of the
// input order's peak to 0.73 and 0.78. Only
// forward ops move: backward ops keep their order, so that every schedule
// found stays in the class of TimeLowerBound.cpp (backward ops once, in id
// order; forward ops anywhere) and the bound reported with the plan still
// holds. The evaluations are the same, so the time is the same and only the
// peak moves. The energy is the simulator's peak plus a weighted mean of
// the live bytes above a level just under the best peak found, which
// rewards orders with fewer steps at the peak (the peak alone is flat over
// most moves). Moves are accepted by threshold accepting (Dueck and
// Scheuer, 1990: a move is taken when it raises the energy by at most a
// threshold that falls linearly to zero), simulated annealing without the
// exponential: no math-library call (whose last bits differ between
// libraries) enters a decision, only integer live bytes and IEEE sums in a
// fixed order. The random numbers come from a fixed-seed SplitMix64, the
// length of the search from a work count, not a clock, so a plan is the
// same from run to run and machine to machine.
//
// Memory is the simulator's model: an evaluation's result is live from its
// step to the last read bound to it, the last evaluation of a function
// result to the end, graph inputs not at all, a view adds no bytes but
// keeps the storage of the evaluation it views live while it is read, and
// an op's workspace is live at its own step only.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/types/span.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace remat::detail {

namespace {

/// Independent searches from the start order, each with its share of the
/// moves: the single-move neighbourhood settles in local minima that more
/// moves do not leave, and other seeds find other minima.
constexpr int64_t kChains = 4;
/// The seed of the first search; search c uses kSeed + c.
constexpr uint64_t kSeed = 0x72656d6174ULL; // "remat"
/// Moves per op that can move at all: more found no lower peak on the
/// random layered graphs (random-n100 and n250 reach the same orders with
/// 4x as many), and graphs whose forward order is nearly forced (chains)
/// end the search early.
constexpr int64_t kMaxMovesPerOp = 1000;
/// Events a block move takes at most (the moved event, and those that must
/// stay on its far side).
constexpr size_t kMaxBlock = 32;
/// Work of a move besides the scan of the live bytes (drawing it, its
/// window, the storages it touches), in scanned entries.
constexpr int64_t kMoveOverhead = 64;
/// Schedules on which the work limit affords fewer moves per search than
/// this are too large for a useful search.
constexpr int64_t kMinMoves = 2000;
/// The energy's level, as a fraction of the best peak found so far.
constexpr double kLevelFraction = 0.9;
/// Weight of the mean live bytes above the level in the energy.
constexpr double kExcessWeight = 5.0;
/// The acceptance threshold at the start, as a fraction of the start peak;
/// it falls linearly to zero over the search.
constexpr double kStartThreshold = 0.01;
/// Events per block of the live-bytes maxima evaluate keeps: a move
/// changes the live bytes in one window, so only the blocks it touches are
/// rescanned, and a block whose maximum is not above the energy's level
/// adds nothing to it and is skipped.
constexpr int32_t kBlockShift = 6;

/// Adjacency lists in compressed-sparse-row form.
struct Csr {
  std::vector<uint32_t> begin;
  std::vector<int32_t> items;
  /// Builds the lists of `numRows` rows from (row, item) pairs.
  void build(size_t numRows,
             const std::vector<std::pair<int32_t, int32_t>> &pairs) {
    begin.assign(numRows + 1, 0);
    for (const auto &[row, item] : pairs)
      ++begin[row + 1];
    for (size_t row = 0; row < numRows; ++row)
      begin[row + 1] += begin[row];
    items.resize(pairs.size());
    std::vector<uint32_t> fill(begin.begin(), begin.end() - 1);
    for (const auto &[row, item] : pairs)
      items[fill[row]++] = item;
  }
  absl::Span<const int32_t> of(int32_t row) const {
    return {items.data() + begin[row], begin[row + 1] - begin[row]};
  }
};

/// (a, b) pairs as (b, a): the same relation, read from the other side.
std::vector<std::pair<int32_t, int32_t>>
swapped(const std::vector<std::pair<int32_t, int32_t>> &pairs) {
  std::vector<std::pair<int32_t, int32_t>> result;
  result.reserve(pairs.size());
  for (const auto &[first, second] : pairs)
    result.emplace_back(second, first);
  return result;
}

class OrderSearch {
public:
  /// Events are numbered by their place in `start`; each read is bound to
  /// the evaluation it reads there (the latest earlier one, as in the
  /// simulator), and moves keep every binding: a reader stays after the
  /// evaluation it reads and before the next evaluation of the same op,
  /// which stays after every reader of the previous one.
  OrderSearch(const PlanContext &context, const Schedule &start)
      : context_(context), numEvents_(static_cast<int32_t>(start.steps.size())),
        boundary_(
            static_cast<int32_t>(backwardBoundary(start, context.phases))) {
    const FlatGraph &flat = context.flat;
    const Graph &graph = context.graph;
    eventOp_ = start.steps;
    events_.resize(numEvents_);
    position_.resize(numEvents_);
    for (int32_t e = 0; e < numEvents_; ++e)
      events_[e] = position_[e] = e;
    linked_.assign(numEvents_, 0);

    // Storage instances: one per result of an evaluation that is its own
    // storage; a view's result is the storage instance of the evaluation
    // its first operand is bound to (-1 for a view of a graph input).
    std::vector<int32_t> latest(flat.numOps(), -1);
    std::vector<uint32_t> resultSlot(numEvents_ + 1, 0);
    for (int32_t e = 0; e < numEvents_; ++e)
      resultSlot[e + 1] = resultSlot[e] + static_cast<uint32_t>(
                                              flat.results(eventOp_[e]).size());
    std::vector<int32_t> storageOfResult(resultSlot[numEvents_], -1);
    std::vector<std::vector<int32_t>> readersOfEvent(numEvents_);
    std::vector<std::pair<int32_t, int32_t>> order, reads, born;
    int64_t total = 0; // bytes of every storage instance, while they fit
    auto addToTotal = [&](int64_t bytes) {
      overflows_ |= bytes > std::numeric_limits<int64_t>::max() - total;
      total = overflows_ ? total : total + bytes;
    };
    for (int32_t e = 0; e < numEvents_; ++e) {
      const OpId op = eventOp_[e];
      absl::Span<const ValueId> operands = flat.operands(op);
      int32_t viewStorage = -1;
      const size_t firstRead = reads.size();
      for (size_t i = 0; i < operands.size(); ++i) {
        const OpId producer = flat.producer[operands[i]];
        if (producer == kNoId)
          continue;
        const int32_t bound = latest[producer];
        order.emplace_back(bound, e);
        readersOfEvent[bound].push_back(e);
        const int32_t storage =
            storageOfResult[resultSlot[bound] +
                            graph.value(operands[i]).resultIndex];
        if (i == 0)
          viewStorage = storage;
        if (storage >= 0 && std::none_of(reads.begin() + firstRead, reads.end(),
                                         [&](const auto &read) {
                                           return read.second == storage;
                                         }))
          reads.emplace_back(e, storage);
      }
      if (const int32_t previous = latest[op]; previous >= 0) {
        order.emplace_back(previous, e);
        for (int32_t reader : readersOfEvent[previous])
          order.emplace_back(reader, e);
      }
      latest[op] = e;
      addToTotal(flat.workspace(op));
      absl::Span<const ValueId> results = flat.results(op);
      for (size_t k = 0; k < results.size(); ++k) {
        int32_t storage = viewStorage;
        if (flat.storageOf(results[k]) == results[k]) {
          addToTotal(context.tables.valueBytes[results[k]]);
          storage = static_cast<int32_t>(storageValue_.size());
          storageValue_.push_back(results[k]);
          storageProducer_.push_back(e);
          born.emplace_back(e, storage);
        }
        storageOfResult[resultSlot[e] + k] = storage;
      }
    }
    // Function results hold their storage (the last evaluation's) to the
    // end.
    heldToEnd_.assign(storageValue_.size(), 0);
    for (size_t id = 0; id < flat.numValues(); ++id) {
      if (flat.outputRole[id] == OutputRole::None)
        continue;
      const OpId producer = flat.producer[id];
      if (producer == kNoId || latest[producer] < 0)
        continue;
      const int32_t storage =
          storageOfResult[resultSlot[latest[producer]] +
                          graph.value(static_cast<ValueId>(id)).resultIndex];
      if (storage >= 0)
        heldToEnd_[storage] = 1;
    }
    reads_.build(numEvents_, reads);
    born_.build(numEvents_, born);
    readers_.build(storageValue_.size(), swapped(reads));
    before_.build(numEvents_, swapped(order));
    after_.build(numEvents_, order);
    lastReader_.assign(storageValue_.size(), -1);
    storageStamp_.assign(storageValue_.size(), 0);
    for (size_t storage = 0; storage < storageValue_.size(); ++storage)
      rescanLastReader(static_cast<int32_t>(storage));

    if (overflows_)
      return;
    // The live bytes: bornBytes_[e], the storage event e produces and its
    // op's workspace, and cross_[e], what is live across the gap after
    // event e. Event e holds cross_[e - 1] + bornBytes_[e].
    bornBytes_.assign(numEvents_, 0);
    storageBornBytes_.assign(numEvents_, 0);
    for (int32_t e = 0; e < numEvents_; ++e) {
      for (int32_t storage : born_.of(e))
        storageBornBytes_[e] += bytesOf(storage);
      bornBytes_[e] = flat.workspace(eventOp_[e]) + storageBornBytes_[e];
    }
    endBytes_.assign(numEvents_, 0);
    for (size_t storage = 0; storage < storageValue_.size(); ++storage)
      if (!heldToEnd_[storage])
        endBytes_[holder(static_cast<int32_t>(storage))] +=
            bytesOf(static_cast<int32_t>(storage));
    cross_.assign(numEvents_, 0);
    recomputeCross(0, numEvents_ - 1);
    blockMax_.assign(((numEvents_ - 1) >> kBlockShift) + 1, 0);
    markChanged(0, numEvents_ - 1);
  }

  /// Whether the bytes of all storage instances together pass INT64_MAX
  /// (saturated tensor sizes): the live-byte sums would overflow, and the
  /// search does not run.
  bool overflows() const { return overflows_; }

  /// Checks the bookkeeping against a recount from the order after every
  /// move and every undo (tests).
  void verifyMoves() { verify_ = true; }
  /// Moves and undos after which the bookkeeping disagreed with the
  /// recount, with verifyMoves.
  int64_t mismatches() const { return mismatches_; }

  /// The order of ops of the current event order.
  std::vector<OpId> steps(const std::vector<int32_t> &events) const {
    std::vector<OpId> steps(events.size());
    for (size_t i = 0; i < events.size(); ++i)
      steps[i] = eventOp_[events[i]];
    return steps;
  }

  /// Runs `chains` searches from the start order, each of at most `moves`
  /// moves and `work` scanned entries; calls `record(events, peak)` whenever
  /// the lowest peak found drops at least `gridStep` below the last one
  /// recorded, and once more at the end for the lowest-peak order if that is
  /// below the last one recorded.
  template <typename Record>
  void run(int64_t chains, int64_t moves, int64_t work, int64_t gridStep,
           Record &&record) {
    if (numEvents_ < 2)
      return;
    const std::vector<int32_t> start = events_;
    const std::vector<int64_t> startBorn = bornBytes_, startCross = cross_;
    const std::vector<int32_t> startLastReader = lastReader_;
    const std::vector<int64_t> startEnd = endBytes_;
    const int64_t startPeak = evaluate(0).peak;
    int64_t bestPeak = startPeak, recorded = startPeak;
    std::vector<int32_t> best = events_;
    const double startThreshold =
        kStartThreshold * static_cast<double>(startPeak);
    for (int64_t chain = 0; chain < chains; ++chain) {
      if (chain > 0) {
        events_ = start;
        bornBytes_ = startBorn;
        cross_ = startCross;
        lastReader_ = startLastReader;
        endBytes_ = startEnd;
        for (int32_t e = 0; e < numEvents_; ++e)
          position_[events_[e]] = e;
        markChanged(0, numEvents_ - 1);
      }
      SplitMix64 random(kSeed + static_cast<uint64_t>(chain));
      int64_t chainBest = startPeak;
      double level = kLevelFraction * static_cast<double>(chainBest);
      Evaluation current = evaluate(level);
      const int64_t workEnd = work_ + work;
      for (int64_t move = 0; move < moves && work_ < workEnd; ++move) {
        const int32_t from = static_cast<int32_t>(random.below(numEvents_));
        if (context_.phases.opPhase[eventOp_[events_[from]]] != Phase::Forward)
          continue;
        // Half the moves stay within the event's window (the event alone
        // moves), half go anywhere in its section (a block moves).
        const auto [low, high] =
            random.below(2) == 0 ? window(from) : section(from);
        if (high <= low)
          continue;
        const int32_t to =
            low + static_cast<int32_t>(random.below(high - low + 1));
        if (to == from || !moveBlock(from, to))
          continue;
        Evaluation candidate = evaluate(level);
        const double progress =
            std::max(static_cast<double>(move) / static_cast<double>(moves),
                     static_cast<double>(work_ - (workEnd - work)) /
                         static_cast<double>(work));
        const double threshold = startThreshold * (1.0 - progress);
        if (candidate.energy > current.energy + threshold) {
          undoBlock();
          continue;
        }
        current = candidate;
        if (current.peak >= chainBest)
          continue;
        chainBest = current.peak;
        level = kLevelFraction * static_cast<double>(chainBest);
        current = evaluate(level);
        if (chainBest >= bestPeak)
          continue;
        bestPeak = chainBest;
        best = events_;
        if (bestPeak <= recorded - gridStep) {
          record(best, bestPeak);
          recorded = bestPeak;
        }
      }
    }
    if (bestPeak < recorded)
      record(best, bestPeak);
  }

  /// Work of the smallest move: one scan of the live bytes and the
  /// bookkeeping of a move.
  int64_t moveCost() const { return kMoveOverhead + numEvents_; }

  /// How many forward ops have somewhere else to go in the start order.
  int64_t movableOps() const {
    int64_t movable = 0;
    for (int32_t from = 0; from < numEvents_; ++from) {
      const auto [low, high] = window(from);
      movable += high > low;
    }
    return movable;
  }

private:
  struct Evaluation {
    int64_t peak = 0;
    double energy = 0;
  };

  /// The positions of the section of the event at `from` (forward or
  /// backward events).
  std::pair<int32_t, int32_t> section(int32_t from) const {
    return from < boundary_ ? std::make_pair(0, boundary_ - 1)
                            : std::make_pair(boundary_, numEvents_ - 1);
  }

  /// Moves the event at `from` to `to` in its section, with the events
  /// between that must stay on its far side (those that follow it when it
  /// moves later, those it follows when it moves earlier), keeping their
  /// order: a block move, and a single move when `to` is within the event's
  /// window. Keeps what undoBlock needs. False, with nothing moved, when the
  /// block would take a backward op or grow past kMaxBlock events.
  bool moveBlock(int32_t from, int32_t to) {
    const bool later = to > from;
    // The block is the moved event and the events between that it reaches
    // through the links on its far side (what must follow it when it moves
    // later, what it must follow when it moves earlier): a link never goes
    // back past its source in a valid order, so a depth-first walk from the
    // moved event that stops at `to` finds them, without scanning the
    // positions between (those are what a move mostly spans). A stamp
    // marks the events reached by this move.
    if (++linkStamp_ == 0) {
      std::fill(linked_.begin(), linked_.end(), 0);
      linkStamp_ = 1;
    }
    block_.assign(1, from);
    linked_[events_[from]] = linkStamp_;
    pending_.assign(1, events_[from]);
    bool valid = true;
    while (!pending_.empty() && valid) {
      const int32_t event = pending_.back();
      pending_.pop_back();
      for (int32_t next : later ? after_.of(event) : before_.of(event)) {
        const int32_t p = position_[next];
        if (linked_[next] == linkStamp_ || (later ? p > to : p < to))
          continue;
        linked_[next] = linkStamp_;
        block_.push_back(p);
        pending_.push_back(next);
        valid = context_.phases.opPhase[eventOp_[next]] == Phase::Forward &&
                block_.size() <= kMaxBlock;
        if (!valid)
          break;
      }
    }
    work_ += std::abs(to - from);
    if (!valid)
      return false;
    std::sort(block_.begin(), block_.end());
    // The block ends at `to` in its order, the events between keep theirs
    // on the other side. The work is that of moving the block's events one
    // at a time, the one farthest toward `to` first, to `to` itself, the
    // others each one short of the one before (the search was measured and
    // tuned with that counting, so its length stays the same): the i-th
    // in position order goes to to - (size - 1 - i) when the block moves
    // later, to to + i when it moves earlier.
    const int32_t size = static_cast<int32_t>(block_.size());
    blockWork_ = 0;
    for (int32_t i = 0; i < size; ++i) {
      const int32_t at = block_[i],
                    target = later ? to - (size - 1 - i) : to + i;
      const int32_t event = events_[at];
      blockWork_ +=
          kMoveOverhead +
          static_cast<int64_t>(std::max(at, target) -
                               std::max(std::min(at, target) - 1, 0) + 1) *
              static_cast<int64_t>(1 + reads_.of(event).size() +
                                   born_.of(event).size());
    }
    work_ += blockWork_;
    undoLow_ = std::min(from, to);
    undoHigh_ = std::max(from, to);
    undoEvents_.assign(events_.begin() + undoLow_,
                       events_.begin() + undoHigh_ + 1);
    // The rearranged positions: the events between, in their order, on
    // the far side of the block's, in theirs. The block's positions split
    // the range into the runs of events between.
    movers_.clear();
    for (int32_t p : block_)
      movers_.push_back(events_[p]);
    arranged_.clear();
    if (!later)
      arranged_.insert(arranged_.end(), movers_.begin(), movers_.end());
    arranged_.insert(arranged_.end(), events_.begin() + undoLow_,
                     events_.begin() + block_[0]);
    for (int32_t i = 0; i < size; ++i) {
      const int32_t runEnd = i + 1 < size ? block_[i + 1] : undoHigh_ + 1;
      arranged_.insert(arranged_.end(), events_.begin() + block_[i] + 1,
                       events_.begin() + runEnd);
    }
    if (later)
      arranged_.insert(arranged_.end(), movers_.begin(), movers_.end());
    arrange(arranged_);
    return true;
  }

  /// Takes back the last block move, with the work of moving its events
  /// back one at a time.
  void undoBlock() {
    work_ += blockWork_;
    arrange(undoEvents_);
  }

  /// Puts `events` at positions [undoLow_, undoHigh_], which hold the same
  /// events, where only those of movers_ change places relative to the
  /// others, and brings the live bytes and last readers up to date: only
  /// the storages a mover reads can end at another event, and the gaps
  /// outside the range hold what they held.
  void arrange(const std::vector<int32_t> &events) {
    stamp_ += 1;
    if (stamp_ == 0) {
      std::fill(storageStamp_.begin(), storageStamp_.end(), 0);
      stamp_ = 1;
    }
    touched_.clear();
    for (int32_t event : movers_)
      for (int32_t storage : reads_.of(event)) {
        if (storageStamp_[storage] == stamp_)
          continue;
        storageStamp_[storage] = stamp_;
        touched_.push_back(storage);
        if (!heldToEnd_[storage])
          endBytes_[holder(storage)] -= bytesOf(storage);
      }
    for (int32_t p = undoLow_; p <= undoHigh_; ++p) {
      const int32_t event = events[p - undoLow_];
      events_[p] = event;
      position_[event] = p;
      bornBytes_[p] =
          context_.flat.workspace(eventOp_[event]) + storageBornBytes_[event];
    }
    for (int32_t storage : touched_) {
      rescanLastReader(storage);
      if (!heldToEnd_[storage])
        endBytes_[holder(storage)] += bytesOf(storage);
    }
    recomputeCross(undoLow_, undoHigh_ - 1);
    markChanged(std::max(undoLow_ - 1, 0),
                std::min(undoHigh_ + 1, numEvents_ - 1));
    if (verify_ && !consistent())
      ++mismatches_;
  }

  /// Whether positions, last readers, the bytes each event produces and
  /// ends, and the live bytes across each gap are what the current order
  /// gives when counted from scratch.
  bool consistent() const {
    std::vector<int64_t> ends(numEvents_, 0), delta(numEvents_ + 1, 0);
    for (int32_t e = 0; e < numEvents_; ++e)
      if (position_[events_[e]] != e ||
          bornBytes_[e] != context_.flat.workspace(eventOp_[events_[e]]) +
                               storageBornBytes_[events_[e]])
        return false;
    for (int32_t storage = 0;
         storage < static_cast<int32_t>(storageValue_.size()); ++storage) {
      if (latestReader(storage) != lastReader_[storage])
        return false;
      const int64_t bytes = bytesOf(storage);
      delta[position_[storageProducer_[storage]]] += bytes;
      if (heldToEnd_[storage])
        continue;
      const int32_t holds = holder(storage);
      ends[holds] += bytes;
      delta[position_[holds]] -= bytes;
    }
    if (ends != endBytes_)
      return false;
    int64_t live = 0;
    for (int32_t e = 0; e < numEvents_; ++e)
      if (cross_[e] != (live += delta[e]))
        return false;
    return true;
  }

  /// cross_ at the gaps after positions [low, high] from the gap before
  /// them: each event adds the storage it produces and drops the storage
  /// that ends at it.
  void recomputeCross(int32_t low, int32_t high) {
    int64_t live = low > 0 ? cross_[low - 1] : 0;
    for (int32_t e = low; e <= high; ++e) {
      const int32_t event = events_[e];
      live += storageBornBytes_[event] - endBytes_[event];
      cross_[e] = live;
    }
  }

  /// The positions the event at `from` may move to: between the events it
  /// must follow and those it must precede, within its section. Empty (high
  /// <= low) for a backward op, which does not move.
  std::pair<int32_t, int32_t> window(int32_t from) const {
    const int32_t event = events_[from];
    if (context_.phases.opPhase[eventOp_[event]] != Phase::Forward)
      return {from, from};
    auto [low, high] = section(from);
    for (int32_t other : before_.of(event))
      low = std::max(low, position_[other] + 1);
    for (int32_t other : after_.of(event))
      high = std::min(high, position_[other] - 1);
    return {low, high};
  }

  int64_t bytesOf(int32_t storage) const {
    return context_.tables.valueBytes[storageValue_[storage]];
  }

  /// The last event that holds `storage` in the current order (not held
  /// to the end): its last reader, or its producer when none reads it.
  int32_t holder(int32_t storage) const {
    const int32_t reader = lastReader_[storage];
    return reader >= 0 ? reader : storageProducer_[storage];
  }

  /// The event that reads `storage` last in the current order (-1: none
  /// reads it), found by a scan of its readers.
  int32_t latestReader(int32_t storage) const {
    int32_t last = -1;
    for (int32_t reader : readers_.of(storage))
      if (last < 0 || position_[reader] > position_[last])
        last = reader;
    return last;
  }
  void rescanLastReader(int32_t storage) {
    lastReader_[storage] = latestReader(storage);
  }

  /// Notes that the live bytes of the events at [low, high] may have
  /// changed since the last evaluation.
  void markChanged(int32_t low, int32_t high) {
    changedLow_ = std::min(changedLow_, low);
    changedHigh_ = std::max(changedHigh_, high);
  }

  /// The live bytes at the event at position `e`.
  int64_t liveAt(int32_t e) const {
    return (e > 0 ? cross_[e - 1] : 0) + bornBytes_[e];
  }

  /// The peak of the current order and its energy at `level`. The work
  /// counted is a full scan's, whatever the block maxima spare, so that
  /// the length of the search does not depend on them. The excess is summed
  /// in event order over the same events as by a full scan (a block whose
  /// maximum is not above the level has no event above it: the conversion
  /// to double is monotone), so the energy is the same to the last bit.
  Evaluation evaluate(double level) {
    work_ += numEvents_;
    if (changedLow_ <= changedHigh_) {
      for (int32_t block = changedLow_ >> kBlockShift;
           block <= changedHigh_ >> kBlockShift; ++block) {
        const int32_t end = std::min(numEvents_, (block + 1) << kBlockShift);
        int64_t blockMax = 0;
        for (int32_t e = block << kBlockShift; e < end; ++e)
          blockMax = std::max(blockMax, liveAt(e));
        blockMax_[block] = blockMax;
      }
      changedLow_ = numEvents_;
      changedHigh_ = -1;
    }
    // Below 2^53 (every real level), double(live) > level is live >
    // floor(level) for every integer live: an integer comparison.
    const bool integerCut = level < 9007199254740992.0;
    const int64_t cut =
        integerCut ? static_cast<int64_t>(std::floor(level)) : 0;
    Evaluation result;
    double excess = 0;
    for (size_t block = 0; block < blockMax_.size(); ++block) {
      result.peak = std::max(result.peak, blockMax_[block]);
      if (static_cast<double>(blockMax_[block]) <= level)
        continue;
      const int32_t begin = static_cast<int32_t>(block) << kBlockShift;
      const int32_t end = std::min(numEvents_, begin + (1 << kBlockShift));
      int64_t before = begin > 0 ? cross_[begin - 1] : 0;
      for (int32_t e = begin; e < end; ++e) {
        const int64_t live = before + bornBytes_[e];
        before = cross_[e];
        if (integerCut ? live > cut : static_cast<double>(live) > level)
          excess += static_cast<double>(live) - level;
      }
    }
    result.energy = static_cast<double>(result.peak) +
                    kExcessWeight * excess / static_cast<double>(numEvents_);
    return result;
  }

  const PlanContext &context_;
  const int32_t numEvents_;
  const int32_t boundary_;
  std::vector<OpId> eventOp_;     // by event (its place in the start order)
  std::vector<int32_t> events_;   // the current order
  std::vector<int32_t> position_; // by event
  Csr before_, after_;            // by event: what it follows, precedes
  Csr reads_, born_;              // by event: storages it reads, produces
  Csr readers_;                   // by storage: the events that read it
  std::vector<ValueId> storageValue_;
  std::vector<int32_t> storageProducer_;
  std::vector<uint8_t> heldToEnd_;
  // By position: the bytes its event produces with its op's workspace, and
  // what is live across the gap after it.
  std::vector<int64_t> bornBytes_, cross_;
  // By event: the bytes of the storage it produces, and of the storage
  // whose last holder it is (not counting storage held to the end).
  std::vector<int64_t> storageBornBytes_, endBytes_;
  // By block of 2^kBlockShift positions, the most live bytes at an event
  // in it, valid outside the positions [changedLow_, changedHigh_].
  std::vector<int64_t> blockMax_;
  // By storage, the event that reads it last in the current order (-1:
  // none); arrange keeps it current.
  std::vector<int32_t> lastReader_;
  int32_t changedLow_ = std::numeric_limits<int32_t>::max(), changedHigh_ = -1;
  bool overflows_ = false;
  bool verify_ = false;
  int64_t mismatches_ = 0;
  // Scratch of moveBlock: the block's positions and events; the positions
  // the move rearranged, their events before it and after, and the work it
  // counted (undoBlock counts it again).
  std::vector<int32_t> block_, movers_, pending_;
  // By event, the stamp of the last block move that reached it (pending_:
  // the events reached whose links are not followed yet).
  std::vector<uint32_t> linked_;
  uint32_t linkStamp_ = 0;
  int32_t undoLow_ = 0, undoHigh_ = -1;
  std::vector<int32_t> undoEvents_, arranged_;
  int64_t blockWork_ = 0;
  // Scratch of arrange: the storages whose last holder may change, marked
  // by storage with the current stamp.
  std::vector<int32_t> touched_;
  std::vector<uint32_t> storageStamp_;
  uint32_t stamp_ = 0;
  int64_t work_ = 0; // entries scanned and shifted, over all searches
};

} // namespace

namespace {

/// Runs `search` on `start` as searchOrders does, with `record` called for
/// each order found; false when the schedule is too large for a useful
/// search within `workLimit`, or nothing moves.
template <typename Record>
bool runSearch(OrderSearch &search, const PlanContext &context,
               int64_t workLimit, int64_t gridStep, Record &&record) {
  if (search.overflows())
    return false;
  const int64_t affordable = workLimit / search.moveCost();
  if (affordable < kMinMoves * kChains)
    return false;
  const int64_t moves =
      std::min(affordable, kMaxMovesPerOp * search.movableOps());
  if (moves < kChains)
    return false;
  search.run(kChains, moves / kChains, workLimit / kChains,
             std::max<int64_t>(1, gridStep), record);
  return true;
}

} // namespace

std::vector<OrderFound> searchOrders(const PlanContext &context,
                                     const Schedule &start, int64_t workLimit,
                                     int64_t gridStep) {
  std::vector<OrderFound> found;
  if (!start.derivations.empty())
    return found;
  OrderSearch search(context, start);
  const std::optional<size_t> backwardStart =
      backwardBoundary(start, context.phases);
  runSearch(search, context, workLimit, gridStep,
            [&](const std::vector<int32_t> &events, int64_t peak) {
              OrderFound order;
              order.schedule.steps = search.steps(events);
              order.schedule.backwardStart = backwardStart;
              order.peakBytes = peak;
              found.push_back(std::move(order));
            });
  return found;
}

std::optional<int64_t> orderSearchMismatches(const PlanContext &context,
                                             const Schedule &start,
                                             int64_t workLimit) {
  if (!start.derivations.empty())
    return std::nullopt;
  OrderSearch search(context, start);
  search.verifyMoves();
  if (!runSearch(search, context, workLimit, 1,
                 [](const std::vector<int32_t> &, int64_t) {}))
    return std::nullopt;
  return search.mismatches();
}

} // namespace remat::detail
