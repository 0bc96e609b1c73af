//===- MinCut.cpp - Minimum saved bytes by max-flow/min-cut ---------------===//
//
// Part of remat. PyTorch's min-cut partitioner on a node-split graph: each
// candidate value v becomes v_in -> v_out with capacity bytes(v); v_out ->
// w_in is infinite for every w computed from v; source -> v_in is infinite
// for graph inputs and values automatic planning may not recompute; v_out ->
// sink is infinite for values backward reads. A minimum s-t cut is then a
// set of values to save, of least total size, from which every value backward
// needs can be recomputed without replaying a banned op.
//
// The max-flow is Dinic's algorithm with iterative augmenting-path search, so
// that 100k+-value graphs neither recurse deeply nor allocate per node.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"

#include <algorithm>
#include <limits>
#include <memory>

namespace remat::detail {

namespace {

using Capacity = int64_t;
constexpr Capacity kInfinite = Capacity(1) << 62;

/// Dinic's max-flow over a static edge set, laid out in compressed-sparse-row
/// form (each node's arcs contiguous, paired forward/reverse arcs linked by
/// index): on 1M-op graphs the breadth-first level builds dominate, and
/// walking a per-node linked list scattered over the whole arc array cost a
/// cache miss per arc.
///
/// Edges from the source and infinite edges into the sink are not stored as
/// arcs (on the 1M-op DAG they were about a third of them): a node the
/// source feeds keeps its edge's residual capacity instead (kInfinite for an
/// infinite edge, which is never saturated), a node that drains infinitely
/// into the sink is flagged, and the searches start from every node with
/// source residual left and end at any sink-flagged one. Arcs into the
/// source are never on an augmenting path nor on the way to a node
/// reachable from the source, so the flow value and the residual
/// reachability (the cut) are those of the network with the arcs.
class MaxFlow {
public:
  MaxFlow(int32_t numNodes, int32_t source, int32_t sink)
      : numNodes_(numNodes), source_(source), sink_(sink) {}

  /// Lays out the edges that `forEachEdge(add)` passes to
  /// `add(from, to, capacity)`. It is called twice, to count each node's arcs
  /// and then to place them (a counting sort by tail node), and must pass
  /// the same edges in the same order both times: no edge list is stored.
  template <typename ForEachEdge> void build(ForEachEdge forEachEdge) {
    firstArc_.assign(numNodes_ + 1, 0);
    terminal_.assign(numNodes_, 0);
    sourceResidual_.assign(numNodes_, 0);
    size_t numEdges = 0;
    forEachEdge([&](int32_t from, int32_t to, Capacity capacity) {
      if (isTerminalEdge(from, to, capacity))
        return;
      ++firstArc_[from + 1];
      ++firstArc_[to + 1];
      ++numEdges;
    });
    for (int32_t node = 0; node < numNodes_; ++node)
      firstArc_[node + 1] += firstArc_[node];
    // Arcs are written once below: no zero-filling pass over them first.
    arcs_.reset(new Arc[2 * numEdges]);
    reverse_.reset(new int32_t[2 * numEdges]);
    std::vector<int32_t> &fill = currentArc_;
    fill.assign(firstArc_.begin(), firstArc_.end() - 1);
    sourceNodes_.clear();
    forEachEdge([&](int32_t from, int32_t to, Capacity capacity) {
      if (isTerminalEdge(from, to, capacity)) {
        if (from == source_) {
          if (capacity <= 0)
            return;
          if (sourceResidual_[to] == 0)
            sourceNodes_.push_back(to); // in edge order, as the arcs were
          sourceResidual_[to] = std::min(kInfinite, sourceResidual_[to] +
                                                        std::min(capacity,
                                                                 kInfinite));
        } else {
          terminal_[from] |= kToSink;
        }
        return;
      }
      int32_t forward = fill[from]++;
      int32_t backward = fill[to]++;
      arcs_[forward] = Arc{capacity, to};
      arcs_[backward] = Arc{0, from};
      reverse_[forward] = backward;
      reverse_[backward] = forward;
    });
  }

  /// The maximum flow, piece by piece: when the sink has no stored arcs
  /// (min-cut's network; the source never has any), flow only runs inside
  /// the connected pieces of the stored arcs that hold a node the source
  /// feeds and a sink-flagged node, so Dinic's phases run on each such
  /// piece alone. A piece then takes as
  /// many phases as its own longest augmenting path needs, instead of every
  /// phase leveling the whole network (on the 1M-op DAG the pieces hold a
  /// fifth of the nodes and at most ~100 each). The flow value and the
  /// residual reachability are those of one run over the whole network.
  Capacity run() {
    level_.assign(numNodes_, -1);
    level_[source_] = 0;
    currentArc_[source_] = firstArc_[source_];
    if (firstArc_[sink_] != firstArc_[sink_ + 1]) {
      scope_ = nullptr;
      seeds_ = sourceNodes_;
      return runPhases();
    }
    std::vector<uint8_t> seen(numNodes_, 0);
    Capacity total = 0;
    for (int32_t start : sourceNodes_) {
      if (seen[start])
        continue;
      piece_.clear();
      pieceSeeds_.clear();
      bool reachesSink = false;
      seen[start] = 1;
      piece_.push_back(start);
      for (size_t head = 0; head < piece_.size(); ++head) {
        int32_t node = piece_[head];
        if (sourceResidual_[node] > 0)
          pieceSeeds_.push_back(node);
        reachesSink |= (terminal_[node] & kToSink) != 0;
        for (int32_t arc = firstArc_[node]; arc < firstArc_[node + 1]; ++arc)
          if (!seen[arcs_[arc].to]) {
            seen[arcs_[arc].to] = 1;
            piece_.push_back(arcs_[arc].to);
          }
      }
      if (!reachesSink)
        continue;
      scope_ = &piece_;
      seeds_ = pieceSeeds_;
      total += runPhases();
      if (total >= kInfinite)
        return kInfinite;
    }
    return total;
  }

  /// Nodes reachable from the source in the residual graph after run().
  std::vector<uint8_t> reachableFromSource() const {
    std::vector<uint8_t> seen(numNodes_, 0);
    std::vector<int32_t> queue;
    queue.reserve(numNodes_); // grows to the source side: no reallocations
    queue.push_back(source_);
    seen[source_] = 1;
    for (int32_t node : sourceNodes_) {
      if (sourceResidual_[node] <= 0)
        continue; // saturated: reachable only through other arcs, if at all
      seen[node] = 1;
      queue.push_back(node);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      int32_t node = queue[head];
      for (int32_t arc = firstArc_[node]; arc < firstArc_[node + 1]; ++arc)
        if (arcs_[arc].residual > 0 && !seen[arcs_[arc].to]) {
          seen[arcs_[arc].to] = 1;
          queue.push_back(arcs_[arc].to);
        }
    }
    return seen;
  }

private:
  /// How many queued nodes ahead the level build prefetches.
  static constexpr size_t kPrefetchDistance = 8;
  /// `terminal_` bits.
  static constexpr uint8_t kToSink = 2; // infinite node -> sink edge

  /// Source edges of any capacity (a source -> sink edge is not supported),
  /// and infinite sink edges.
  bool isTerminalEdge(int32_t from, int32_t to, Capacity capacity) const {
    if (from == source_)
      return to != source_ && to != sink_;
    return capacity >= kInfinite && to == sink_ && from != sink_;
  }

  /// 12 bytes: the searches scan only these; the paired arc's index, needed
  /// only when a path is augmented, is in `reverse_`.
#pragma pack(push, 4)
  struct Arc {
    Capacity residual;
    int32_t to;
  };
#pragma pack(pop)
  static_assert(sizeof(Arc) == 12);

  /// Dinic's phases on the scope (`scope_`, `seeds_`).
  Capacity runPhases() {
    Capacity total = 0;
    while (buildLevels()) {
      if (scope_) {
        for (int32_t node : *scope_)
          currentArc_[node] = firstArc_[node];
      } else {
        std::copy(firstArc_.begin(), firstArc_.end() - 1, currentArc_.begin());
      }
      currentSource_ = 0;
      while (Capacity pushed = augment()) {
        total += pushed;
        if (total >= kInfinite)
          return kInfinite;
      }
    }
    return total;
  }

  /// Levels from the source (0; the nodes in scope it still feeds 1);
  /// `sinkLevel_` is the sink's, one past the first sink-flagged node found.
  bool buildLevels() {
    if (scope_) {
      for (int32_t node : *scope_)
        level_[node] = -1;
    } else {
      std::fill(level_.begin(), level_.end(), -1);
    }
    std::vector<int32_t> &queue = queue_;
    queue.clear();
    queue.reserve(scope_ ? scope_->size() + 1 : numNodes_);
    level_[source_] = 0;
    queue.push_back(source_);
    sinkLevel_ = -1;
    // The nodes the source still feeds are level 1, as if their edges were
    // the source's arcs.
    for (int32_t node : seeds_) {
      if (sourceResidual_[node] <= 0 || level_[node] >= 0)
        continue;
      level_[node] = 1;
      queue.push_back(node);
    }
    for (size_t head = 0; head < queue.size(); ++head) {
      int32_t node = queue[head];
      // The queue is known ahead, and each node's arcs are one cache miss
      // away on large graphs: fetch a later node's arc range and arcs early.
      if (head + 2 * kPrefetchDistance < queue.size())
        __builtin_prefetch(&firstArc_[queue[head + 2 * kPrefetchDistance]]);
      if (head + kPrefetchDistance < queue.size())
        __builtin_prefetch(&arcs_[firstArc_[queue[head + kPrefetchDistance]]]);
      // Augmenting paths only climb one level per arc, so nodes at the
      // sink's level or beyond are useless: stop there instead of leveling
      // the rest of the graph (most of it, on 1M-op graphs). The flow value
      // is the same, and so is the cut read from the residual graph (the
      // source side of the minimal minimum cut, which every maximum flow
      // gives).
      int32_t sinkLevel = sinkLevel_ >= 0 ? sinkLevel_ : level_[sink_];
      if (sinkLevel >= 0 && level_[node] >= sinkLevel)
        break;
      if ((terminal_[node] & kToSink) && sinkLevel_ < 0)
        sinkLevel_ = level_[node] + 1;
      for (int32_t arc = firstArc_[node]; arc < firstArc_[node + 1]; ++arc)
        if (arcs_[arc].residual > 0 && level_[arcs_[arc].to] < 0) {
          level_[arcs_[arc].to] = level_[node] + 1;
          queue.push_back(arcs_[arc].to);
        }
    }
    if (level_[sink_] >= 0 &&
        (sinkLevel_ < 0 || level_[sink_] < sinkLevel_))
      sinkLevel_ = level_[sink_];
    return sinkLevel_ >= 0;
  }

  /// Whether the search stands at the sink: the sink node itself, or a
  /// sink-flagged node one level below the sink's.
  bool atSink(int32_t node) const {
    return node == sink_ ||
           ((terminal_[node] & kToSink) && level_[node] + 1 == sinkLevel_);
  }

  /// Finds one augmenting path in the level graph with an explicit stack,
  /// advancing current-arc pointers past dead ends; returns its bottleneck.
  /// The nodes the source feeds are tried in order after its stored arcs;
  /// a path from one of them also takes its source residual.
  Capacity augment() {
    path_.clear();      // arcs from the first node after the source
    pathTails_.clear(); // the node each arc of path_ leaves
    int32_t node = source_;
    int32_t seed = -1; // the node the source feeds that the path starts at
    while (true) {
      if (atSink(node)) {
        Capacity bottleneck = seed >= 0 ? sourceResidual_[seed] : kInfinite;
        for (int32_t arc : path_) {
          Capacity residual = arcs_[arc].residual;
          bottleneck = std::min(bottleneck, residual);
        }
        for (int32_t arc : path_) {
          arcs_[arc].residual -= bottleneck;
          arcs_[reverse_[arc]].residual += bottleneck;
        }
        if (seed >= 0 && sourceResidual_[seed] < kInfinite)
          sourceResidual_[seed] -= bottleneck;
        return bottleneck;
      }
      int32_t &arc = currentArc_[node];
      const int32_t end = firstArc_[node + 1];
      while (arc < end && !(arcs_[arc].residual > 0 &&
                            level_[arcs_[arc].to] == level_[node] + 1))
        ++arc;
      if (arc < end) {
        path_.push_back(arc);
        pathTails_.push_back(node);
        node = arcs_[arc].to;
        continue;
      }
      if (node == source_) {
        // The stored arcs are exhausted: continue with a node the source
        // still feeds, at level 1.
        while (currentSource_ < seeds_.size() &&
               (level_[seeds_[currentSource_]] != 1 ||
                sourceResidual_[seeds_[currentSource_]] <= 0))
          ++currentSource_;
        if (currentSource_ == seeds_.size())
          return 0;
        node = seed = seeds_[currentSource_];
        continue;
      }
      // Dead end: retreat and never try this node again in this phase.
      level_[node] = -1;
      if (path_.empty()) {
        // A node the source feeds: try the next one.
        node = source_;
        seed = -1;
        ++currentSource_;
        continue;
      }
      path_.pop_back();
      node = pathTails_.back();
      pathTails_.pop_back();
      ++currentArc_[node];
    }
  }

  int32_t numNodes_;
  int32_t source_;
  int32_t sink_;
  std::vector<int32_t> firstArc_; // numNodes_ + 1 offsets into arcs_
  std::unique_ptr<Arc[]> arcs_;
  std::unique_ptr<int32_t[]> reverse_; // per arc, the index of its pair
  std::vector<uint8_t> terminal_;      // per node, kToSink
  /// Per node, the residual capacity of its edge from the source (0: none
  /// or saturated; kInfinite: infinite).
  std::vector<Capacity> sourceResidual_;
  std::vector<int32_t> sourceNodes_; // the nodes the source feeds, edge order
  /// The nodes Dinic's phases run on (null: all), and the nodes among them
  /// the source feeds.
  const std::vector<int32_t> *scope_ = nullptr;
  absl::Span<const int32_t> seeds_;
  std::vector<int32_t> piece_, pieceSeeds_; // the scope of `run`'s pieces
  size_t currentSource_ = 0;
  int32_t sinkLevel_ = -1;
  std::vector<int32_t> level_;
  std::vector<int32_t> currentArc_;
  std::vector<int32_t> queue_;
  std::vector<int32_t> path_;
  std::vector<int32_t> pathTails_;
};

} // namespace

absl::StatusOr<std::vector<uint8_t>> minCutKeep(const PlanContext &context,
                                                double bytesPerUs) {
  const FlatGraph &flat = context.flat;
  const Constraints &constraints = context.constraints;
  const size_t numValues = flat.numValues();

  // Candidates: graph inputs other than tangents, and forward values.
  auto isCandidate = [&](size_t id) {
    if (int8_t role = flat.inputRole[id]; role != FlatGraph::kNotInput)
      return role != static_cast<int8_t>(InputRole::Tangent);
    return constraints.isForward[id] != 0;
  };

  // Capacities: bytes scaled so that a small tie-break fits below one byte.
  // Among cuts of equal bytes, prefer saving graph inputs (0), then values
  // backward reads anyway (1), then intermediates (2): fewer recomputations,
  // as PyTorch's distance-to-backward bias does.
  // Each value's bytes are capped at kByteCap and the total is summed in 128
  // bits: sizes saturated at INT64_MAX must neither overflow nor make a
  // finite cut look infinite (found by Stress.SaturatedTensorSizes).
  constexpr int64_t kByteCap = kInfinite >> 2;
  // Keeping a view keeps the storage it shares (FlatGraph::storageOf): its
  // bytes are that storage's, nothing for a view of a graph input. Graph
  // inputs of every role cost nothing to keep: the caller holds them
  // through the step, and the simulator leaves them out of the activation
  // peak (charging primal inputs made the cut keep a normalised copy of a
  // model input instead of the input itself and a 2 KiB statistic, +1.2%
  // measured peak on the Llama of docs/benchmarks.md).
  auto cappedBytes = [&](size_t id) {
    ValueId storage = flat.storageOf(static_cast<ValueId>(id));
    if (flat.inputRole[storage] != FlatGraph::kNotInput)
      return int64_t{0};
    return std::min(context.tables.valueBytes[storage], kByteCap);
  };
  // Storage a function result shares (a view that is an output or a
  // gradient) is live until the end anyway, like the result itself.
  std::vector<uint8_t> heldByResult(numValues, 0);
  for (size_t id = 0; id < numValues; ++id)
    if (constraints.isOutput[id])
      heldByResult[flat.storageOf(static_cast<ValueId>(id))] = 1;
  // Only candidates get network nodes, numbered in value order (on the
  // 1M-op DAG about half the values), so that the per-node arrays of the
  // max-flow are half as large and stay in cache longer.
  std::vector<int32_t> candidateIndex(numValues, -1);
  int64_t numCandidates = 0;
  absl::int128 totalBytes = 0;
  for (size_t id = 0; id < numValues; ++id) {
    if (!isCandidate(id))
      continue;
    candidateIndex[id] = static_cast<int32_t>(numCandidates++);
    totalBytes += cappedBytes(id);
  }
  auto fromSource = [&](size_t id) {
    return flat.isInput(static_cast<ValueId>(id)) ||
           !constraints.recomputable(static_cast<ValueId>(id),
                                     /*automatic=*/true);
  };
  // Time: a forward op replayed in backward costs its predicted replay time
  // (SimulationTables::replayTimeUs: fused or a kernel) in bytes at the
  // exchange rate, paid once when any of its results is
  // recomputed (the result's v_in on the sink side). The charge is an edge
  // from the source into the v_in of its only result that the cut may
  // recompute, or, for ops with several, into an op node with an infinite
  // arc to each such v_in (any of them on the sink side puts it there).
  // Results that are live anyway (outputs) or never kept (forced
  // recomputes) pay nothing here: the cut does not choose them.
  auto chargeable = [&](ValueId value) {
    return candidateIndex[value] >= 0 && !fromSource(value) &&
           !constraints.isOutput[value] && !heldByResult[value] &&
           !constraints.forcedRecompute(value);
  };
  struct TimeCharge {
    OpId op;
    int64_t bytes;
    int32_t opNode; // -1: charged to its one chargeable result
  };
  std::vector<TimeCharge> timeCharges;
  int32_t numOpNodes = 0;
  if (bytesPerUs > 0) {
    const std::vector<double> &replayUs = context.tables.replayTimeUs;
    // No time for replaying an op forward does not need (it runs once
    // either way). That undercharges one case, an op both replayed and
    // feeding a value the cut saves (it then runs twice): the simulator,
    // not the cut, gives the plan's time.
    for (size_t opIndex = 0; opIndex < flat.numOps(); ++opIndex) {
      OpId op = static_cast<OpId>(opIndex);
      if (context.phases.opPhase[opIndex] != Phase::Forward ||
          !constraints.neededInForward[opIndex])
        continue;
      double bytes = replayUs[opIndex] * bytesPerUs;
      if (!(bytes >= 1))
        continue; // views, free ops, and NaN
      int chargeableResults = 0;
      for (ValueId result : flat.results(op))
        chargeableResults += chargeable(result);
      if (chargeableResults == 0)
        continue;
      int64_t capped = bytes >= static_cast<double>(kByteCap)
                           ? kByteCap
                           : static_cast<int64_t>(bytes);
      timeCharges.push_back(
          {op, capped, chargeableResults > 1 ? numOpNodes++ : -1});
      totalBytes += capped;
    }
  }
  // Scale bytes down so that all finite capacities together, tie-breaks
  // included, stay below kInfinite; exact tie-breaking on all but huge
  // graphs.
  int64_t tieRange = 2 * numCandidates + 1;
  int64_t divisor = 1;
  while (totalBytes / divisor > kByteCap / tieRange)
    divisor *= 2;
  // A derivation is a third way of making a value available in backward
  // (issue #16 item 5): cutting v_in -> v_out then means "save or derive",
  // whichever costs less, so the edge's capacity is the smaller of v's bytes
  // and its derivation's backward time at the exchange rate. That is exact
  // when every source is available in backward in every cut: a non-tangent
  // graph input, a function result, a view of either (a broadcast bias: its
  // storage is live anyway), or a value backward reads that may not be
  // recomputed (always saved). A derivation whose source the cut itself
  // decides on (saved or replayed) makes an "and" over values, which a cut
  // cannot express: those are weighed after the cut (chooseDerivations),
  // as are chains. Views are not derived here: a view's storage is its
  // base's, so deriving it frees nothing.
  auto alwaysAvailable = [&](ValueId value) {
    for (ValueId held : {value, flat.storageOf(value)}) {
      if (int8_t role = flat.inputRole[held]; role != FlatGraph::kNotInput) {
        if (role != static_cast<int8_t>(InputRole::Tangent))
          return true;
      } else if (constraints.isOutput[held]) {
        return true;
      }
    }
    return constraints.isForward[value] && constraints.needed[value] &&
           fromSource(value);
  };
  std::vector<int64_t> deriveBytes(numValues, -1); // -1: no such derivation
  for (const DerivationChoice &candidate : derivationCandidates(context)) {
    const ValueId value = candidate.value;
    if (candidateIndex[value] < 0 || fromSource(value) ||
        flat.storageOf(value) != value ||
        !std::all_of(candidate.derivation.from.begin(),
                     candidate.derivation.from.end(), alwaysAvailable))
      continue;
    double bytes = std::max(0.0, candidate.costUs * bytesPerUs);
    int64_t capped = bytes >= static_cast<double>(kByteCap)
                         ? kByteCap
                         : static_cast<int64_t>(bytes);
    if (deriveBytes[value] < 0 || capped < deriveBytes[value])
      deriveBytes[value] = capped;
  }
  auto capacityOf = [&](size_t id) -> Capacity {
    ValueId value = static_cast<ValueId>(id);
    if (flat.inputRole[id] != FlatGraph::kNotInput)
      return 0; // held by the caller, always available
    if (constraints.isOutput[id])
      return 0; // live until the end anyway
    // A forced recompute is not kept, also when a function result views its
    // storage (a JAX name policy cannot save a value under its view's name:
    // before 2026-12-08 such a must_recompute value was kept, for free).
    if (constraints.forcedRecompute(value))
      return kInfinite;
    if (heldByResult[id])
      return 0; // its storage is live until the end anyway
    int64_t bytes = cappedBytes(id);
    if (deriveBytes[id] >= 0)
      bytes = std::min(bytes, deriveBytes[id]);
    return bytes / divisor * tieRange + (constraints.needed[id] ? 1 : 2);
  };

  const int32_t firstOpNode = static_cast<int32_t>(2 * numCandidates);
  const int32_t source = firstOpNode + numOpNodes;
  const int32_t sink = source + 1;
  MaxFlow flow(sink + 1, source, sink);
  auto in = [&](size_t id) { return 2 * candidateIndex[id]; };
  auto out = [&](size_t id) { return 2 * candidateIndex[id] + 1; };
  // v_in of a value the source feeds (infinitely) is on the source side of
  // every finite cut, and v_out of a value the sink drains is on the sink
  // side: an arc into the former or out of the latter never crosses such a
  // cut forwards. Leaving those arcs out keeps every finite cut's capacity,
  // hence the minimal minimum cut read below, and removes ~90% of the
  // value-to-value arcs of the 1M-op DAG: the rest falls apart into small
  // pieces the searches stay inside.
  auto toSink = [&](size_t id) { return constraints.needed[id] != 0; };
  flow.build([&](auto addEdge) {
    for (size_t id = 0; id < numValues; ++id) {
      if (candidateIndex[id] < 0)
        continue;
      addEdge(in(id), out(id), capacityOf(id));
      if (fromSource(id))
        addEdge(source, in(id), kInfinite);
      if (toSink(id))
        addEdge(out(id), sink, kInfinite);
    }
    for (size_t opIndex = 0; opIndex < flat.numOps(); ++opIndex) {
      if (context.phases.opPhase[opIndex] != Phase::Forward)
        continue;
      absl::Span<const ValueId> operands =
          flat.operands(static_cast<OpId>(opIndex));
      absl::Span<const ValueId> results =
          flat.results(static_cast<OpId>(opIndex));
      for (size_t i = 0; i < operands.size(); ++i) {
        ValueId operand = operands[i];
        // x * x: one edge per distinct operand.
        if (std::find(operands.begin(), operands.begin() + i, operand) !=
            operands.begin() + i)
          continue;
        if (candidateIndex[operand] < 0 || toSink(operand))
          continue;
        // Forward results are candidates; a non-candidate would be a dead
        // end without an in -> out arc, so leaving it out changes no flow.
        for (ValueId result : results)
          if (candidateIndex[result] >= 0 && !fromSource(result))
            addEdge(out(operand), in(result), kInfinite);
      }
    }
    for (const TimeCharge &charge : timeCharges) {
      Capacity capacity = charge.bytes / divisor * tieRange;
      if (charge.opNode < 0) {
        for (ValueId result : flat.results(charge.op))
          if (chargeable(result))
            addEdge(source, in(result), capacity);
        continue;
      }
      int32_t node = firstOpNode + charge.opNode;
      addEdge(source, node, capacity);
      for (ValueId result : flat.results(charge.op))
        if (chargeable(result))
          addEdge(node, in(result), kInfinite);
    }
  });
  Capacity cut = flow.run();
  if (cut >= kInfinite)
    return absl::InternalError(
        "min-cut found no finite cut: some value backward needs can neither "
        "be saved nor recomputed (a planner bug, since contradictory tags are "
        "rejected earlier; please report it with the graph)");
  std::vector<uint8_t> reachable = flow.reachableFromSource();
  std::vector<uint8_t> keep(numValues, 0);
  for (size_t id = 0; id < numValues; ++id)
    if (candidateIndex[id] >= 0 && reachable[in(id)] && !reachable[out(id)])
      keep[id] = 1;
  // A kept view keeps its storage alive: backward reads that value from
  // there instead of recomputing it next to a live copy.
  for (size_t id = 0; id < numValues; ++id) {
    if (!keep[id])
      continue;
    ValueId storage = flat.storageOf(static_cast<ValueId>(id));
    if (storage != static_cast<ValueId>(id) && candidateIndex[storage] >= 0 &&
        !flat.isInput(storage) && !constraints.forcedRecompute(storage))
      keep[storage] = 1;
  }
  return keep;
}

} // namespace remat::detail
