//===- TimeLowerBound.cpp - A certified lower bound on plan time ----------===//
//
// Part of remat. The bound `budget` reports with its plan (issue #17 item 3):
// no schedule of the class below whose activation peak is within the budget
// takes less total predicted time (forward + backward + recomputation +
// derivation, as Simulator.h sums it).
//
// The schedule class: every backward op is evaluated exactly once, in id
// order; forward ops may be evaluated any number of times, anywhere, in any
// order (in forward or in backward), but only ops with a result that is no
// function result and that automatic planning may recompute
// (Constraints::recomputable(automatic)) more than once; every other forward
// op exactly once; the forward ops a forward function result needs are
// evaluated before the first backward op; forward values may also be
// re-created by derivations. Every plan `budget` and `optimal` make is in it
// (budget: Materialize.cpp's schedules replay only ops with a non-kept
// recomputable result, the refinement splits only such ops, and the order
// search moves forward evaluations only, keeping every read bound to the
// same evaluation and backward ops in order; optimal: the MILP's class is a
// subset).
// The class is larger than the MILP of Optimal.cpp, whose relaxation is
// therefore not used: `budget` evaluates some forward ops for the first time
// in backward, replays one op several times between two backward ops and in
// any order, and derives values, none of which the MILP's schedules do.
//
// Two bounds:
//  - evaluate-once: every op some backward op or function result needs is
//    evaluated at least once, and its first evaluation costs its predicted
//    time (later ones cost the replay time, >= 0);
//  - backward-lp: a linear relaxation over the checkpoints "backward op k
//    runs" (k = 0..m-1) and the stages between them (stage u: the events
//    after backward op u-1 and before backward op u; stage 0 holds forward):
//      a[p][u] in [0,1]  forward op p is evaluated in stage u (cost: p's
//                        replay time, minus one replay for the evaluation
//                        every needed op has; so a schedule costs at least
//                        its LP objective)
//      d[s][u] in [0,1]  s is derived in stage u (cost: its cheapest rule)
//      h[s][k] in [0,1]  an instance of storage s is live at checkpoint k
//    with rows
//      - memory: what is certainly live at checkpoint k (its operands and
//        results and workspace, backward values read later, forward
//        function results)
//        plus sum bytes(s) h[s][k] <= budget;
//      - reads: a storage s read by backward op r is live at the checkpoint
//        before r or re-created in stage r: h[s][r-1] + a[p][r] + d[s][r]
//        >= 1, p its producer;
//      - continuity: an instance live at checkpoint k was live at k-1 or
//        created in stage k: h[s][k] <= h[s][k-1] + a[p][k] + d[s][k]
//        (h[s][-1] = 0). Chained, these give the coverage "held at k or
//        re-created in a stage k+1..r" for every k before a read r with
//        a handful of coefficients per row rather than one per stage
//        (ResNet50 at 0.7 of the peak: 131k nonzeros instead of 784k, the
//        solve 0.58 s instead of 0.90 s), and they are tighter: a hold
//        that feeds an operand row must have been created or held before;
//      - operands: an evaluation of p in stage u >= 1 reads each operand's
//        storage q, live at checkpoint u-1 or re-created in stage u:
//        h[q][u-1] + a[prod q][u] + d[q][u] >= a[p][u]; in stage 0,
//        a[prod q][0] >= a[p][0];
//      - every needed op is evaluated at least once (before its first
//        backward reader), ops that may not repeat exactly once.
//    Any schedule of the class gives a 0/1 point of these rows (a = "some
//    evaluation of p in stage u", h = "live at the checkpoint") of objective
//    <= its time, so the LP optimum is a lower bound. The bound is not the
//    solver's objective but a dual certificate recomputed here from the
//    solver's row duals (weak duality holds for any duals once signs are
//    clipped), so neither solver tolerances nor a stop at the time limit can
//    make it exceed the optimum; a small relative margin covers the
//    floating-point sums.
//    The LP is solved only where the plan at hand is more than 0.1% slower
//    than evaluate-once (a narrower gap is nothing a user acts on) and the
//    program is small enough (PlanOptions::lowerBoundMaxNonzeros).
//
// While the plan at hand is more than 0.1% slower than the bound, up to
// five rounds of cover inequalities strengthen the memory rows: for a set
// S of holds at one checkpoint whose bytes exceed what the budget leaves
// there, sum over S of h <= |S| - 1 holds at every 0/1 point, while the
// relaxation likes to hold a large value half-way and pay half its replay.
// Each round adds the covers the current solution violates and re-solves
// from the last basis (dual simplex); every round's certificate is a valid
// bound and the largest is reported. VGG16 at 0.9 of the peak: gap 1.01% ->
// 0.00%; VGG19 at 0.8: 0.79% -> 0.06% (0.04% with the continuity rows). A
// round that closes less than 5% of its gap is the last, and the rounds share
// an iteration budget (kCoverIterationShare): where covers help they close
// 19-100% a round in a few dozen iterations; where they do not (ResNet50
// at 0.35) a round took a second for nothing.
//
// Two reductions keep the program small without weakening it in practice:
// a forward op gets no column for stages after the last one in which an
// evaluation of it can feed a read, and a checkpoint whose memory row cannot
// bind (every key that could be held there fits in what the budget leaves)
// gets no rows and no holds; the stages on its two sides are merged into
// one, so the read and continuity rows skip it (an evaluation anywhere in
// a merged stage counts for all of it, a relaxation). A key certainly live
// at a checkpoint (read there, or a forward result) needs no continuity row
// after it. On ResNet50 at 0.8 of the peak this halves the
// checkpoints and the solve time; the bounds of the Checkmate CNNs are the
// same to the 1e-9 margin below.
//
// Memory is counted by storage as in the simulator: a view is its base's
// storage, except a view that a derivation may re-create, which counts as
// its own value of zero bytes (a derived copy does not hold the base).
// Checkpoints are backward ops only: the relaxation says nothing about the
// forward section's peak, which is why it is weak at budgets where that
// peak binds.
//
//===----------------------------------------------------------------------===//

#include "PlannerInternal.h"

#include "absl/container/flat_hash_map.h"

#include "ClpSimplex.hpp"
#include "ClpSolve.hpp"
#include "CoinPackedMatrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace remat::detail {

namespace {

/// Row-wise LP accumulator.
class LinearProgram {
public:
  int addColumn(double lower, double upper, double cost) {
    columnLower.push_back(lower);
    columnUpper.push_back(upper);
    objective.push_back(cost);
    return static_cast<int>(objective.size()) - 1;
  }
  void addRow(const std::vector<std::pair<int, double>> &terms, double lower,
              double upper) {
    for (const auto &[column, coefficient] : terms) {
      rows.push_back(static_cast<int>(rowLower.size()));
      columns.push_back(column);
      elements.push_back(coefficient);
    }
    rowLower.push_back(lower);
    rowUpper.push_back(upper);
  }
  size_t numNonzeros() const { return elements.size(); }

  std::vector<double> columnLower, columnUpper, objective;
  std::vector<double> rowLower, rowUpper;
  std::vector<int> rows, columns;
  std::vector<double> elements;
};

/// min objective.x subject to the program's rows and bounds is at least
/// this, for any `rowDuals` (signs that would need an infinite row side are
/// taken as 0): c.x = y.Ax + (c - A'y).x and each term is bounded below by
/// its row or column bounds. Columns must be bounded.
long double dualCertificate(const LinearProgram &program,
                            const double *rowDuals) {
  const size_t numRows = program.rowLower.size();
  std::vector<long double> duals(numRows, 0);
  long double bound = 0;
  for (size_t row = 0; row < numRows; ++row) {
    double y = rowDuals[row];
    if (!std::isfinite(y))
      y = 0;
    if (y > 0 && program.rowLower[row] > -COIN_DBL_MAX / 2) {
      duals[row] = y;
      bound += static_cast<long double>(y) * program.rowLower[row];
    } else if (y < 0 && program.rowUpper[row] < COIN_DBL_MAX / 2) {
      duals[row] = y;
      bound += static_cast<long double>(y) * program.rowUpper[row];
    }
  }
  std::vector<long double> reduced(program.objective.begin(),
                                   program.objective.end());
  for (size_t i = 0; i < program.elements.size(); ++i)
    reduced[program.columns[i]] -= duals[program.rows[i]] * program.elements[i];
  for (size_t column = 0; column < reduced.size(); ++column)
    bound += reduced[column] > 0
                 ? reduced[column] * program.columnLower[column]
                 : reduced[column] * program.columnUpper[column];
  return bound;
}

/// Rounds of cover inequalities added to the memory rows after the first
/// solve (each a warm-started dual simplex), while the plan's time is more
/// than kCoverGap above the bound and the last round closed at least
/// kCoverProgress of the gap it started from. All rounds together get
/// kCoverIterationShare of the first solve's simplex iterations, and at
/// least kMinCoverIterations: a round's iteration on the unpresolved program
/// costs about 15 times one of the first solve (ResNet50 at 0.35 of its peak
/// ran rounds until the 10 s clock, for 0.0002% of bound).
constexpr int kCoverRounds = 5;
constexpr long double kCoverGap = 0.001L;
constexpr long double kCoverProgress = 0.05L;
constexpr int kCoverIterationShare = 16;
constexpr int kMinCoverIterations = 500;

class BoundBuilder {
public:
  BoundBuilder(const PlanContext &context, int64_t budgetBytes)
      : context_(context), flat_(context.flat),
        constraints_(context.constraints), budgetBytes_(budgetBytes) {}

  TimeLowerBound compute(double timeLimitSeconds, int64_t maxNonzeros,
                         double planTimeUs) {
    analyze();
    TimeLowerBound result;
    result.kind = TimeLowerBound::Kind::EvaluateOnce;
    result.timeUs = static_cast<double>(requiredTimeUs_);
    // Nothing to solve for, or the evaluate-once bound already certifies
    // the plan within kCoverGap (llama7b-1L: 0.016%, where the LP would
    // take 0.37 s to certify 0.008%). A budget of INT64_MAX bytes never
    // binds: the simulator's byte counts saturate there, where the LP's
    // exact sums would exceed it (the planner fuzzer found a bound twice
    // the plan's time on saturated tensors).
    if (timeLimitSeconds <= 0 || backward_.empty() ||
        budgetBytes_ == std::numeric_limits<int64_t>::max() ||
        planTimeUs <= requiredTimeUs_ * (1 + kCoverGap))
      return result;
    if (!build(maxNonzeros)) {
      result.lpSkipped = true;
      return result;
    }
    ClpSimplex simplex;
    simplex.setLogLevel(0);
    simplex.setMaximumSeconds(timeLimitSeconds);
    // A work limit that does not depend on the machine, so that a stopped
    // solve (still a valid bound) gives the same report everywhere; the
    // clock only guards against a machine far slower than expected. The dual
    // simplex needs a few iterations per row in practice.
    simplex.setMaximumIterations(static_cast<int>(std::min<size_t>(
        std::numeric_limits<int>::max(),
        20 * (program_.rowLower.size() + program_.objective.size()))));
    CoinPackedMatrix matrix(/*colordered=*/false, program_.rows.data(),
                            program_.columns.data(), program_.elements.data(),
                            static_cast<CoinBigIndex>(program_.numNonzeros()));
    // The triplet constructor sizes the matrix by the largest index seen:
    // make room for rows and columns that have no coefficient.
    matrix.setDimensions(static_cast<int>(program_.rowLower.size()),
                         static_cast<int>(program_.objective.size()));
    simplex.loadProblem(matrix, program_.columnLower.data(),
                        program_.columnUpper.data(), program_.objective.data(),
                        program_.rowLower.data(), program_.rowUpper.data());
    // Dual simplex after CLP's presolve: the same optimum (and the
    // certificate below is recomputed from the postsolved row duals), in
    // about 60% of the time on the Checkmate CNNs (ResNet50: 1.1-1.3 s
    // per plan instead of 1.6-2.4 s, measured with remat-bench-quality).
    ClpSolve solve;
    solve.setPresolveType(ClpSolve::presolveOn);
    solve.setSolveType(ClpSolve::useDual);
    simplex.initialSolve(solve);
    const int status = simplex.status();
    // 1: primal infeasible. No schedule of the class meets the budget, so
    // the plan at hand is outside the class (a bug this bound must not
    // hide behind a large number): keep the evaluate-once bound.
    if (status == 1) {
      result.lpSkipped = true;
      return result;
    }
    long double magnitude = std::fabs(static_cast<long double>(constant_));
    for (size_t column = 0; column < program_.objective.size(); ++column)
      magnitude +=
          std::fabs(static_cast<long double>(program_.objective[column]));
    // Each certificate is valid (for the rows then in the program, all of
    // them valid for the class), so the largest is reported.
    auto certify = [&] {
      return constant_ + dualCertificate(program_, simplex.dualRowSolution()) -
             1e-9L * magnitude;
    };
    long double lpBound = certify();
    result.lpStopped = status != 0;
    // Iteration counts, not the clock, end the rounds, so that the bound is
    // the same on every machine.
    int coverIterations = std::max(
        kMinCoverIterations, simplex.numberIterations() / kCoverIterationShare);
    for (int round = 0;
         round < kCoverRounds && simplex.status() == 0 && coverIterations > 0 &&
         planTimeUs > lpBound * (1 + kCoverGap);
         ++round) {
      if (addViolatedCovers(simplex) == 0)
        break;
      simplex.setMaximumIterations(coverIterations);
      simplex.dual();
      coverIterations -= simplex.numberIterations();
      const long double bound = certify();
      const bool progressed =
          bound - lpBound >= kCoverProgress * (planTimeUs - lpBound);
      lpBound = std::max(lpBound, bound);
      if (!progressed)
        break;
    }
    if (lpBound > requiredTimeUs_) {
      result.timeUs = static_cast<double>(lpBound);
      result.kind = TimeLowerBound::Kind::BackwardLp;
    }
    return result;
  }

private:
  /// Adds to `program_` and `simplex` the cover inequality of each memory
  /// row that the current solution violates: for a set S of holds whose
  /// bytes exceed what the row leaves, at most |S| - 1 of them are 1 in any
  /// schedule. S is chosen greedily by (1 - h) per byte. Returns how many.
  int addViolatedCovers(ClpSimplex &simplex) {
    const double *values = simplex.primalColumnSolution();
    std::vector<int> starts = {0}, columns;
    std::vector<double> elements, lower, upper;
    std::vector<std::pair<double, size_t>> order;
    std::vector<std::pair<int, double>> terms;
    for (const MemoryRow &row : memoryRows_) {
      order.clear();
      for (size_t i = 0; i < row.terms.size(); ++i)
        if (values[row.terms[i].first] > 1e-6)
          order.push_back({(1 - std::min(1.0, values[row.terms[i].first])) /
                               row.terms[i].second,
                           i});
      std::sort(order.begin(), order.end());
      // The greedy cover, and sum (1 - h) over it: violated below 1.
      double weight = 0, slack = 0;
      terms.clear();
      for (const auto &[ratio, i] : order) {
        if (weight > row.capacity)
          break;
        const auto &[column, bytes] = row.terms[i];
        terms.push_back({column, 1.0});
        weight += bytes;
        slack += 1 - std::min(1.0, values[column]);
      }
      if (weight <= row.capacity * (1 + 1e-9) || slack >= 1 - 1e-6)
        continue;
      for (const auto &[column, one] : terms) {
        columns.push_back(column);
        elements.push_back(one);
      }
      starts.push_back(static_cast<int>(columns.size()));
      const double size = static_cast<double>(terms.size());
      lower.push_back(-COIN_DBL_MAX);
      upper.push_back(size - 1);
      program_.addRow(terms, -COIN_DBL_MAX, size - 1);
    }
    const int added = static_cast<int>(lower.size());
    if (added > 0)
      simplex.addRows(added, lower.data(), upper.data(), starts.data(),
                      columns.data(), elements.data());
    return added;
  }

  /// The storage `value` lives in for this bound: the end of its chain of
  /// aliasing views, stopping at a value a derivation may re-create.
  ValueId keyOf(ValueId value) const {
    while (!derivable_[value] && flat_.producer[value] != kNoId &&
           flat_.isAliasingView(flat_.producer[value]))
      value = flat_.operands(flat_.producer[value])[0];
    return value;
  }
  bool isTracked(ValueId key) const {
    return !flat_.isInput(key) && constraints_.isForward[key];
  }

  void analyze() {
    const Graph &graph = context_.graph;
    const size_t numValues = flat_.numValues();
    const size_t numOps = flat_.numOps();
    derivable_.assign(numValues, 0);
    derivationUs_.assign(numValues, std::numeric_limits<double>::infinity());
    if (constraints_.hasInverseRules) {
      for (size_t opIndex = 0; opIndex < numOps; ++opIndex) {
        OpId op = static_cast<OpId>(opIndex);
        if (context_.phases.opPhase[op] != Phase::Forward)
          continue;
        for (const InverseRule &rule : graph.op(op).inverseRules) {
          ValueId value = graph.op(op).operands[rule.recoveredOperand];
          if (flat_.isInput(value) || !constraints_.isForward[value] ||
              constraints_.isOutput[value])
            continue;
          derivable_[value] = 1;
          derivationUs_[value] = std::min(
              derivationUs_[value],
              derivationTimeUs(context_, derivationThrough(graph, op, rule),
                               value));
        }
      }
    }
    // Needed ops: backward ops, producers of function results, and what they
    // read, transitively (reverse id order is topological).
    required_.assign(numOps, 0);
    for (size_t id = 0; id < numValues; ++id)
      if (constraints_.isOutput[id] && !flat_.isInput(static_cast<ValueId>(id)))
        required_[flat_.producer[id]] = 1;
    for (size_t opIndex = 0; opIndex < numOps; ++opIndex)
      if (context_.phases.opPhase[opIndex] == Phase::Backward)
        required_[opIndex] = 1;
    anchored_.assign(numOps, 0);
    for (size_t id = 0; id < numValues; ++id)
      if (constraints_.isOutput[id] && constraints_.isForward[id])
        anchored_[flat_.producer[id]] = 1;
    for (size_t opIndex = numOps; opIndex-- > 0;) {
      if (!required_[opIndex])
        continue;
      for (ValueId operand : flat_.operands(static_cast<OpId>(opIndex))) {
        OpId producer = flat_.producer[operand];
        if (producer == kNoId)
          continue;
        required_[producer] = 1;
        if (anchored_[opIndex] &&
            context_.phases.opPhase[producer] == Phase::Forward)
          anchored_[producer] = 1;
      }
    }
    requiredTimeUs_ = 0;
    for (size_t opIndex = 0; opIndex < numOps; ++opIndex)
      if (required_[opIndex])
        requiredTimeUs_ += context_.tables.opTimeUs[opIndex];
    for (size_t opIndex = 0; opIndex < numOps; ++opIndex)
      if (context_.phases.opPhase[opIndex] == Phase::Backward)
        backward_.push_back(static_cast<OpId>(opIndex));
  }

  /// Whether the class lets `op` (forward) be evaluated more than once.
  bool mayRepeat(OpId op) const {
    for (ValueId result : flat_.results(op))
      if (!constraints_.isOutput[result] &&
          constraints_.recomputable(result, /*automatic=*/true))
        return true;
    return false;
  }

  bool build(int64_t maxNonzeros) {
    const size_t numValues = flat_.numValues();
    const int m = static_cast<int>(backward_.size());
    // Every forward op gets a column per stage and every storage a column
    // per checkpoint: refuse before allocating when that alone is too much.
    if (static_cast<int64_t>(m + 1) * static_cast<int64_t>(flat_.numOps()) >
        maxNonzeros)
      return false;
    // Memory rows in units of the budget: coefficients near 1 for the
    // solver (the certificate is computed on these same rows).
    const double scale =
        std::max<double>(1.0, static_cast<double>(budgetBytes_));
    // Backward readers of every key, by checkpoint index (m: the end, for
    // function results), ascending and unique.
    std::vector<std::vector<int>> readers(numValues);
    std::vector<std::vector<ValueId>> readAt(m);
    for (int k = 0; k < m; ++k) {
      for (ValueId operand : flat_.operands(backward_[k])) {
        ValueId key = keyOf(operand);
        if (flat_.isInput(key))
          continue;
        if (readers[key].empty() || readers[key].back() != k)
          readers[key].push_back(k);
        readAt[k].push_back(key);
      }
    }
    for (size_t id = 0; id < numValues; ++id) {
      if (!constraints_.isOutput[id] || flat_.isInput(static_cast<ValueId>(id)))
        continue;
      ValueId key = keyOf(static_cast<ValueId>(id));
      if (flat_.isInput(key))
        continue;
      if (readers[key].empty() || readers[key].back() != m)
        readers[key].push_back(m);
    }
    std::vector<int> backwardIndex(flat_.numOps(), -1);
    for (int k = 0; k < m; ++k)
      backwardIndex[backward_[k]] = k;

    // Fixed bytes per checkpoint: keys certainly live there.
    std::vector<int64_t> fixed(m, 0);
    auto keyBytes = [&](ValueId key) -> int64_t {
      OpId producer = flat_.producer[key];
      if (producer != kNoId && flat_.isAliasingView(producer))
        return 0; // a derivable view: see the file comment
      return context_.tables.valueBytes[key];
    };
    fixedKeys_.assign(m, {});
    // Byte counts saturate at INT64_MAX (TensorType::bytes); so does the sum
    // (remat's stress test plans such sizes).
    auto addBytes = [&](int k, int64_t bytes) {
      fixed[k] = bytes > std::numeric_limits<int64_t>::max() - fixed[k]
                     ? std::numeric_limits<int64_t>::max()
                     : fixed[k] + bytes;
    };
    auto addFixed = [&](int k, ValueId key) {
      if (flat_.isInput(key) ||
          std::find(fixedKeys_[k].begin(), fixedKeys_[k].end(), key) !=
              fixedKeys_[k].end())
        return;
      addBytes(k, keyBytes(key));
      fixedKeys_[k].push_back(key);
    };
    std::vector<ValueId> forwardResults;
    for (size_t id = 0; id < numValues; ++id)
      if (constraints_.isOutput[id] && constraints_.isForward[id])
        forwardResults.push_back(keyOf(static_cast<ValueId>(id)));
    for (int k = 0; k < m; ++k) {
      for (ValueId key : readAt[k])
        addFixed(k, key);
      for (ValueId result : flat_.results(backward_[k]))
        addFixed(k, keyOf(result));
      for (ValueId key : forwardResults)
        addFixed(k, key);
      // Backward op k's workspace, live while it runs.
      addBytes(k, flat_.workspace(backward_[k]));
    }
    // Backward keys live from their producer to their last reader.
    for (size_t id = 0; id < numValues; ++id) {
      ValueId key = static_cast<ValueId>(id);
      if (flat_.isInput(key) || constraints_.isForward[key] ||
          keyOf(key) != key || readers[key].empty())
        continue;
      int from = backwardIndex[flat_.producer[key]];
      int to = std::min(readers[key].back(), m - 1);
      for (int k = from; k <= to && from >= 0; ++k)
        addFixed(k, key);
    }
    for (std::vector<ValueId> &keys : fixedKeys_)
      std::sort(keys.begin(), keys.end());
    for (int k = 0; k < m; ++k)
      if (fixed[k] > budgetBytes_)
        return false; // no schedule of the class fits: keep evaluate-once

    // Evaluation ops: required forward ops that produce a tracked key.
    std::vector<uint8_t> evaluates(flat_.numOps(), 0);
    for (OpId op = 0; op < static_cast<OpId>(flat_.numOps()); ++op) {
      if (context_.phases.opPhase[op] != Phase::Forward || !required_[op])
        continue;
      bool producesKey = false;
      for (ValueId result : flat_.results(op))
        producesKey |= keyOf(result) == result && isTracked(result);
      if (producesKey) {
        evaluationOps_.push_back(op);
        evaluates[op] = 1;
      }
    }
    // The last stage in which an evaluation of each op can feed a read: the
    // last backward reader of its results, or the last such stage of a
    // forward op that reads them (reverse id order is topological). A
    // schedule's first evaluation of an op comes no later (by induction from
    // the readers), so leaving out later columns drops only evaluations
    // that cost time from a schedule's point.
    std::vector<int> lastStage(flat_.numOps(), 0);
    for (auto it = evaluationOps_.rbegin(); it != evaluationOps_.rend(); ++it) {
      int &last = lastStage[*it];
      for (ValueId result : flat_.results(*it))
        if (keyOf(result) == result && !readers[result].empty())
          last = std::max(last, readers[result].back());
      for (ValueId operand : flat_.operands(*it)) {
        ValueId key = keyOf(operand);
        if (isTracked(key) && required_[flat_.producer[key]])
          lastStage[flat_.producer[key]] =
              std::max(lastStage[flat_.producer[key]], last);
      }
    }

    // Checkpoints whose memory row can bind (file comment): the bytes of the
    // keys that could be held there exceed what the budget leaves. Deciding
    // wrongly would only drop a row, a relaxation.
    std::vector<long double> holdable(m + 1, 0);
    for (OpId op : evaluationOps_)
      for (ValueId result : flat_.results(op))
        if (keyOf(result) == result && isTracked(result) && lastStage[op] > 0) {
          holdable[0] += keyBytes(result);
          holdable[std::min(lastStage[op], m)] -= keyBytes(result);
        }
    std::vector<uint8_t> binding(m, 0);
    long double running = 0;
    for (int k = 0; k < m; ++k) {
      running += holdable[k];
      long double free = running;
      for (ValueId key : fixedKeys_[k])
        if (isTracked(key) && evaluates[flat_.producer[key]] &&
            k < lastStage[flat_.producer[key]])
          free -= keyBytes(key);
      binding[k] = free > static_cast<long double>(budgetBytes_ - fixed[k]);
    }
    // stageOf[u]: the merged stage of stage u. Stage 0 (forward) stays
    // alone; stage u+1 starts a new one after a binding checkpoint u.
    std::vector<int> stageOf(m + 1, 0);
    for (int u = 1; u <= m; ++u)
      stageOf[u] = u == 1 ? 1 : stageOf[u - 1] + binding[u - 1];
    const int numStages = stageOf[m] + 1;
    // The first stage of each merged stage, and the checkpoint before it.
    std::vector<int> firstStage(numStages, 0);
    for (int u = m; u >= 0; --u)
      firstStage[stageOf[u]] = u;
    // Evaluation columns, one per op and merged stage up to its last stage.
    constant_ = requiredTimeUs_;
    std::vector<int> evaluationBase(flat_.numOps(), -1);
    for (OpId op : evaluationOps_) {
      const bool repeat = mayRepeat(op);
      const double cost = repeat ? context_.tables.replayTimeUs[op] : 0;
      evaluationBase[op] = static_cast<int>(program_.objective.size());
      std::vector<std::pair<int, double>> once;
      for (int stage = 0; stage <= stageOf[lastStage[op]]; ++stage) {
        double lower = anchored_[op] && stage == 0 ? 1 : 0;
        double upper = anchored_[op] && stage > 0 && !repeat ? 0 : 1;
        once.push_back({program_.addColumn(lower, upper, cost), 1.0});
      }
      constant_ -= cost;
      program_.addRow(once, 1, repeat ? COIN_DBL_MAX : 1);
    }
    auto evaluation = [&](ValueId key, int stage) {
      return evaluationBase[flat_.producer[key]] + stage;
    };
    // Derivation columns, created on demand.
    absl::flat_hash_map<int64_t, int> derivationColumn, holdColumn;
    auto derivation = [&](ValueId key, int stage) -> int {
      if (!derivable_[key])
        return -1;
      int64_t slot = static_cast<int64_t>(key) * numStages + stage;
      auto [it, inserted] = derivationColumn.try_emplace(slot, 0);
      if (inserted)
        it->second = program_.addColumn(0, 1, derivationUs_[key]);
      return it->second;
    };
    std::vector<std::vector<std::pair<int, double>>> memory(m);
    // Hold columns in creation order: each gets a continuity row below.
    struct Hold {
      ValueId key;
      int checkpoint;
      int column;
    };
    std::vector<Hold> holds;
    auto hold = [&](ValueId key, int k) -> int {
      int64_t slot = static_cast<int64_t>(key) * m + k;
      auto [it, inserted] = holdColumn.try_emplace(slot, 0);
      if (inserted) {
        it->second = program_.addColumn(0, 1, 0);
        holds.push_back({key, k, it->second});
        if (int64_t bytes = keyBytes(key); bytes > 0)
          memory[k].push_back({it->second, static_cast<double>(bytes) / scale});
      }
      return it->second;
    };
    // The binding checkpoint before each checkpoint (-1: none).
    std::vector<int> previousBinding(m + 1, -1);
    for (int k = 1; k <= m; ++k)
      previousBinding[k] = binding[k - 1] ? k - 1 : previousBinding[k - 1];
    // Adds the evaluations and derivations of `key` in merged stages
    // first..last (those an evaluation column exists for) to `terms`.
    auto addCreations = [&](std::vector<std::pair<int, double>> &terms,
                            ValueId key, int first, int last, double sign) {
      last = std::min(last, stageOf[lastStage[flat_.producer[key]]]);
      for (int stage = first; stage <= last; ++stage) {
        terms.push_back({evaluation(key, stage), sign});
        if (int column = derivation(key, stage); column >= 0)
          terms.push_back({column, sign});
      }
    };

    std::vector<std::pair<int, double>> terms;
    for (size_t id = 0; id < numValues; ++id) {
      ValueId key = static_cast<ValueId>(id);
      if (!isTracked(key) || keyOf(key) != key || readers[key].empty() ||
          evaluationBase[flat_.producer[key]] < 0)
        continue;
      const std::vector<int> &reads = readers[key];
      // Produced by an evaluation before its first backward reader.
      terms.clear();
      for (int stage = 0; stage <= stageOf[reads.front()]; ++stage)
        terms.push_back({evaluation(key, stage), 1.0});
      program_.addRow(terms, 1, COIN_DBL_MAX);
      // Live at each backward read r: held at the binding checkpoint k
      // before r or re-created in the merged stage between them (with the
      // continuity rows below, the key is held at every binding checkpoint
      // before a read or re-created after it).
      for (int r : reads) {
        const int k = r < m ? previousBinding[r] : -1;
        if (k < 0 || isFixedAt(key, k))
          continue;
        terms.clear();
        terms.push_back({hold(key, k), 1.0});
        addCreations(terms, key, stageOf[k] + 1, stageOf[r], 1.0);
        program_.addRow(terms, 1, COIN_DBL_MAX);
      }
    }
    // Operands of evaluations in backward stages.
    std::vector<ValueId> operandKeys;
    for (OpId op : evaluationOps_) {
      operandKeys.clear();
      for (ValueId operand : flat_.operands(op)) {
        ValueId key = keyOf(operand);
        if (isTracked(key) && evaluationBase[flat_.producer[key]] >= 0 &&
            std::find(operandKeys.begin(), operandKeys.end(), key) ==
                operandKeys.end())
          operandKeys.push_back(key);
      }
      // In forward (stage 0) nothing is held yet: an evaluation there reads
      // operands evaluated there before it.
      for (ValueId key : operandKeys)
        program_.addRow({{evaluation(key, 0), 1.0}, {evaluationBase[op], -1.0}},
                        0, COIN_DBL_MAX);
      // In a later stage, each operand is held at the checkpoint before the
      // stage or re-created in it (an evaluation later in a merged stage
      // reads what was live at its start or was re-created in it).
      for (int stage = 1; stage <= stageOf[lastStage[op]]; ++stage) {
        const int k = firstStage[stage] - 1;
        if (!binding[k])
          continue;
        for (ValueId key : operandKeys) {
          if (isFixedAt(key, k))
            continue;
          terms.clear();
          terms.push_back({hold(key, k), 1.0});
          addCreations(terms, key, stage, stage, 1.0);
          terms.push_back({evaluationBase[op] + stage, -1.0});
          program_.addRow(terms, 0, COIN_DBL_MAX);
        }
        if (static_cast<int64_t>(program_.numNonzeros()) > maxNonzeros)
          return false;
      }
    }
    // Continuity: an instance of a key live at binding checkpoint k was
    // live at the binding checkpoint before it or was created in the merged
    // stage between them (from stage 0 at the first). This creates the
    // holds it needs, which get their own rows in turn.
    for (size_t i = 0; i < holds.size(); ++i) {
      const Hold current = holds[i]; // a copy: hold() below may grow holds
      const ValueId key = current.key;
      const int before = previousBinding[current.checkpoint];
      if (before >= 0 && isFixedAt(key, before))
        continue;
      terms.clear();
      terms.push_back({current.column, 1.0});
      if (before >= 0)
        terms.push_back({hold(key, before), -1.0});
      addCreations(terms, key, before >= 0 ? stageOf[before] + 1 : 0,
                   stageOf[current.checkpoint], -1.0);
      program_.addRow(terms, -COIN_DBL_MAX, 0);
      if (static_cast<int64_t>(program_.numNonzeros()) > maxNonzeros)
        return false;
    }
    for (int k = 0; k < m; ++k)
      if (binding[k]) {
        const double capacity =
            static_cast<double>(budgetBytes_ - fixed[k]) / scale;
        program_.addRow(memory[k], -COIN_DBL_MAX, capacity);
        memoryRows_.push_back({std::move(memory[k]), capacity});
      }
    return static_cast<int64_t>(program_.numNonzeros()) <= maxNonzeros;
  }

  /// Whether `key` is among the keys certainly live at checkpoint k.
  bool isFixedAt(ValueId key, int k) const {
    return std::binary_search(fixedKeys_[k].begin(), fixedKeys_[k].end(), key);
  }

  const PlanContext &context_;
  const FlatGraph &flat_;
  const Constraints &constraints_;
  const int64_t budgetBytes_;
  std::vector<uint8_t> derivable_;
  std::vector<double> derivationUs_;
  std::vector<uint8_t> required_, anchored_;
  std::vector<OpId> backward_;
  std::vector<OpId> evaluationOps_;
  std::vector<std::vector<ValueId>> fixedKeys_;
  double requiredTimeUs_ = 0;
  double constant_ = 0;
  LinearProgram program_;
  struct MemoryRow {
    std::vector<std::pair<int, double>> terms;
    double capacity;
  };
  std::vector<MemoryRow> memoryRows_;
};

} // namespace

TimeLowerBound computeTimeLowerBound(const PlanContext &context,
                                     int64_t budgetBytes,
                                     double timeLimitSeconds,
                                     int64_t maxNonzeros, double planTimeUs) {
  return BoundBuilder(context, budgetBytes)
      .compute(timeLimitSeconds, maxNonzeros, planTimeUs);
}

} // namespace remat::detail
