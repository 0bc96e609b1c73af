//===- Optimal.cpp - Exact rematerialization with a MILP (CBC) ------------===//
//
// Part of remat. Checkmate's MILP (Jain et al., MLSys 2020), written so that
// its memory terms are exactly the accounting of Simulator.h (Moccasin's):
//
//   positions 0..n-1  the ops to schedule, forward ops then backward ops,
//                     each in id order (the order every strategy executes)
//   R[t][i]  stage t evaluates op i (i <= t); R[t][t] = 1: stage t is where
//            op t is evaluated for the first time ("frontier-advancing")
//   S[t][v]  the copy of value v current at the start of stage t is read at
//            stage t or later (it is held across the stage boundary)
//   F[t][v][k]  v is freed right after op k (v's producer or a reader) in
//            stage t: k ran, no later reader of v runs in stage t and v is
//            not held into stage t+1
//   U[t][k]  live bytes while op k runs in stage t: held values + results of
//            ops run so far in the stage - values freed before k; <= budget,
//            and with op k's workspace (R[t][k] * workspace(k)) too
//
// Dominance rows (every recomputation and every held value is used later)
// prune solutions that only differ by useless work.
//
// Within a stage ops run in position order, each at most once. The schedule
// is the concatenation of the stages. docs/Optimal.md argues why the optimum
// of this MILP is the cheapest schedule of that form and why its memory is
// the simulator's.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Optimal.h"

#include "BudgetError.h"
#include "FlatGraph.h"
#include "StringUtil.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcSolver.hpp"
#include "CoinPackedMatrix.hpp"
#include "OsiClpSolverInterface.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace remat {

namespace {

constexpr int kNone = -1;

std::string describeOp(const Graph &graph, OpId op) {
  const GraphOp &graphOp = graph.op(op);
  if (!graphOp.name.empty())
    return absl::StrCat("'", graphOp.name, "'");
  return absl::StrCat(graphOp.kind, " #", op);
}

/// A value produced by a scheduled op or a derivation, in solver terms.
struct ScheduledValue {
  ValueId id = kNoId;
  int producer = kNone;     // position of the producing op; kNone for a copy
  int slot = kNone;         // for a derived copy: the derivation making it
  int64_t bytes = 0;        // true size
  int64_t units = 0;        // size in memory units (bytes / unit)
  std::vector<int> readers; // positions of scheduled readers, ascending
  /// Derivations reading it (indices in Problem::slots, ascending); for a
  /// copy, the later derivations that may read it instead of the value.
  std::vector<int> readerSlots;
  /// For a value ops produce: its derived copies (indices in `values`), in
  /// slot order.
  std::vector<int> copies;
  bool isOutput = false;    // output or gradient: live from production to end
  /// Not held from forward into backward (OptimalOptions::notSaved); for a
  /// copy, its value's.
  bool notSaved = false;
};

/// A derivation the MILP may schedule (OptimalOptions::derivations). It runs
/// right after position `after`, in any later stage, and creates `copy`, a
/// second value standing for `value`: the ops after it in the stage, and in
/// later stages while the copy is held, may read the copy instead.
struct DerivationSlot {
  int value = kNone;        // index in values of what it re-creates
  int copy = kNone;         // index in values of the derived copy
  std::vector<int> sources; // indices in values; graph inputs left out
  int after = kNone;        // the last position its sources need
  /// What the schedule records (beforeStep unset); its timeUs is the cost.
  DerivationStep step;
};

bool isAliasingView(const GraphOp &op) {
  return (op.isView || op.computeClass == ComputeClass::View) &&
         !op.operands.empty();
}

/// A value's bytes in the MILP. The simulator charges a view nothing and
/// keeps the storage it shares live while the view is read; the MILP has no
/// such link between two values, so a view is charged as a copy of its
/// storage (nothing for a view of a graph input, which is always live): the
/// storage's bytes over the view's life and over its own cover the bytes
/// over their union. Any schedule's MILP memory is then at least its
/// simulated memory: the MILP's schedules fit their budget in the
/// simulator too, but with views its optimum is the best under this
/// accounting only.
int64_t modelledBytes(const Graph &graph, const CostModel &costModel,
                      ValueId value) {
  ValueId storage = value;
  for (OpId op = graph.value(storage).producer;
       op != kNoId && isAliasingView(graph.op(op));
       op = graph.value(storage).producer)
    storage = graph.op(op).operands.front();
  if (storage == value)
    return costModel.allocatedBytes(graph.value(value).type.bytes());
  if (graph.value(storage).producer == kNoId)
    return 0;
  return costModel.allocatedBytes(graph.value(storage).type.bytes());
}

/// The ops to schedule and the facts the MILP needs about them.
struct Problem {
  std::vector<OpId> order;   // position -> op
  std::vector<int> position; // op -> position or kNone
  std::vector<ScheduledValue> values;
  std::vector<std::vector<int>> resultsOf;  // position -> indices in values
  std::vector<std::vector<int>> operandsOf; // position -> distinct indices
  /// position -> predicted time of an evaluation after the first
  /// (SimulationTables::replayTimeUs), the MILP's cost per evaluation: every
  /// op runs at least once, so the first evaluations' extra cost
  /// (firstCostUs - costUs) is the same for every schedule.
  std::vector<double> costUs;
  std::vector<double> firstCostUs; // position -> predicted time, first run
  std::vector<bool> recomputable;           // position -> may repeat
  /// position -> GraphOp::workspaceBytes, live while the op runs only; and
  /// the same in memory units.
  std::vector<int64_t> workspaceBytes, workspaceUnits;
  int64_t unitBytes = 1;
  /// Every value's and workspace's units together (saturating at
  /// INT64_MAX): the MILP's memory rows are exact in doubles only while
  /// this is at most kMaxExactUnits.
  int64_t totalUnits = 0;
  /// position -> the folded forward views (graph order) the schedule
  /// evaluates again just before that op, which reads them (buildProblem).
  std::vector<std::vector<OpId>> viewsBefore;
  /// Whether some view is charged conservatively (modelledBytes, or a folded
  /// view with operands besides its storage): then the MILP's memory is an
  /// upper bound of the simulator's, not equal to it.
  bool conservativeViews = false;
  /// Ordered by `after`, then by OptimalOptions::derivations.
  std::vector<DerivationSlot> slots;
  /// The order of events within a stage: position k, then the slots after
  /// it. sequenceOf* give an event's rank in that order.
  std::vector<int> sequenceOfPosition, sequenceOfSlot;
  std::vector<std::vector<int>> slotsAfter; // position -> slots, in order
  int firstBackward = 0; // the first backward op's position, or size()
  /// Whether backward reads a value it may not read from forward
  /// (ScheduledValue::notSaved): then every op once is no schedule.
  bool backwardReadsNotSaved = false;

  int size() const { return static_cast<int>(order.size()); }
};

/// Adds the derivations of `options` the MILP can place (see
/// OptimalOptions::derivations) as slots, each with its copy value, and the
/// event order of a stage.
void addDerivationSlots(const Graph &graph, const OptimalOptions &options,
                        const std::vector<bool> &folded,
                        const std::vector<int> &valueIndex, Problem &problem) {
  const int n = problem.size();
  for (const OptimalDerivation &option : options.derivations) {
    if (option.value < 0 ||
        static_cast<size_t>(option.value) >= graph.numValues())
      continue;
    const int value = valueIndex[option.value];
    if (value == kNone || problem.values[value].isOutput ||
        isAliasingView(graph.op(problem.order[problem.values[value].producer])))
      continue;
    DerivationSlot slot;
    slot.value = value;
    slot.after = problem.values[value].producer;
    bool placeable = true;
    for (ValueId read : option.reads) {
      if (read < 0 || static_cast<size_t>(read) >= graph.numValues() ||
          read == option.value) {
        placeable = false;
        break;
      }
      OpId producer = graph.value(read).producer;
      if (producer == kNoId)
        continue; // graph inputs are always available
      if (folded[producer] || valueIndex[read] == kNone) {
        placeable = false;
        break;
      }
      int source = valueIndex[read];
      if (std::find(slot.sources.begin(), slot.sources.end(), source) ==
          slot.sources.end())
        slot.sources.push_back(source);
      slot.after = std::max(slot.after, problem.values[source].producer);
    }
    // Its copy is read by ops after it in its stage, or in a later stage
    // (held) by any reader that runs there: one after it, or a forward op
    // evaluated again.
    const std::vector<int> &readers = problem.values[value].readers;
    if (!placeable || slot.after >= n - 1 ||
        std::none_of(readers.begin(), readers.end(), [&](int reader) {
          return reader > slot.after || problem.recomputable[reader];
        }))
      continue;
    slot.step.value = option.value;
    slot.step.reads = option.reads;
    slot.step.timeUs = option.timeUs;
    slot.step.flops = option.flops;
    problem.slots.push_back(std::move(slot));
  }
  std::stable_sort(problem.slots.begin(), problem.slots.end(),
                   [](const DerivationSlot &lhs, const DerivationSlot &rhs) {
                     return lhs.after < rhs.after;
                   });
  // Copies, in slot order: a derivation may read the copies of its sources
  // that earlier slots make (a chain).
  for (int d = 0; d < static_cast<int>(problem.slots.size()); ++d) {
    DerivationSlot &slot = problem.slots[d];
    for (int source : slot.sources) {
      problem.values[source].readerSlots.push_back(d);
      for (int copy : problem.values[source].copies)
        problem.values[copy].readerSlots.push_back(d);
    }
    const ScheduledValue &original = problem.values[slot.value];
    ScheduledValue copy;
    copy.id = original.id;
    copy.slot = d;
    copy.bytes = original.bytes;
    copy.readers = original.readers;
    copy.notSaved = original.notSaved;
    slot.copy = static_cast<int>(problem.values.size());
    problem.values[slot.value].copies.push_back(slot.copy);
    problem.values.push_back(std::move(copy));
  }
  problem.slotsAfter.assign(n, {});
  for (int d = 0; d < static_cast<int>(problem.slots.size()); ++d)
    problem.slotsAfter[problem.slots[d].after].push_back(d);
  problem.sequenceOfPosition.assign(n, 0);
  problem.sequenceOfSlot.assign(problem.slots.size(), 0);
  int sequence = 0;
  for (int pos = 0; pos < n; ++pos) {
    problem.sequenceOfPosition[pos] = sequence++;
    for (int d : problem.slotsAfter[pos])
      problem.sequenceOfSlot[d] = sequence++;
  }
}

absl::StatusOr<Problem> buildProblem(const Graph &graph,
                                     const Classification &phases,
                                     const CostModel &costModel,
                                     const OptimalOptions &options) {
  const int numOps = static_cast<int>(graph.numOps());
  if (phases.opPhase.size() != graph.numOps())
    return absl::InvalidArgumentError(absl::StrFormat(
        "solveOptimal: the classification covers %d ops but the graph has %d; "
        "classify() the same graph that is planned",
        phases.opPhase.size(), numOps));
  if (!options.recomputable.empty() &&
      options.recomputable.size() != graph.numOps())
    return absl::InvalidArgumentError(absl::StrFormat(
        "solveOptimal: OptimalOptions::recomputable has %d entries but the "
        "graph has %d ops; give one per op or leave it empty",
        options.recomputable.size(), numOps));
  if (!options.notSaved.empty() && options.notSaved.size() != graph.numValues())
    return absl::InvalidArgumentError(absl::StrFormat(
        "solveOptimal: OptimalOptions::notSaved has %d entries but the graph "
        "has %d values; give one per value or leave it empty",
        options.notSaved.size(), graph.numValues()));

  // The ops the partitioned program runs: every backward op (remat-partition
  // keeps each one, in graph order, whether or not its results are read),
  // the ops producing outputs and gradients, and every forward op those
  // read, transitively. Forward ops nothing of that reads are dropped by
  // every strategy and by the partition pass. A graph that marks no result
  // at all (e.g. a bare Checkmate graph) needs every op, as in Checkmate.
  std::vector<bool> required(numOps, false);
  std::vector<OpId> worklist;
  bool anyOutput = false;
  for (const GraphValue &value : graph.values()) {
    if (value.outputRole == OutputRole::None)
      continue;
    anyOutput = true;
    if (value.producer != kNoId && !required[value.producer]) {
      required[value.producer] = true;
      worklist.push_back(value.producer);
    }
  }
  for (OpId op = 0; op < numOps; ++op)
    if (phases.opPhase[op] == Phase::Backward && !required[op]) {
      required[op] = true;
      worklist.push_back(op);
    }
  if (!anyOutput)
    std::fill(required.begin(), required.end(), true);
  while (!worklist.empty()) {
    OpId op = worklist.back();
    worklist.pop_back();
    for (ValueId operand : graph.op(op).operands) {
      OpId producer = graph.value(operand).producer;
      if (producer != kNoId && !required[producer]) {
        required[producer] = true;
        worklist.push_back(producer);
      }
    }
  }

  // Forward views that may repeat and are no function result are folded
  // out of the MILP: the schedule evaluates each one again (at no cost)
  // just before every op that reads it, so that a view never outlives the
  // instance of the storage it was made from, and the MILP lets those
  // readers read what the view reads instead (its storage first). That is
  // the simulator's accounting exactly, with no variables for views. Other
  // views (backward views, results, never_recompute ones) stay scheduled
  // ops, charged conservatively (modelledBytes).
  auto mayRepeatOp = [&](OpId op) {
    return phases.opPhase[op] == Phase::Forward &&
           (options.recomputable.empty()
                ? !graph.op(op).tags.neverRecompute
                : static_cast<bool>(options.recomputable[op]));
  };
  std::vector<bool> folded(numOps, false);
  for (OpId op = 0; op < numOps; ++op) {
    const GraphOp &graphOp = graph.op(op);
    if (!required[op] || !isAliasingView(graphOp) || !mayRepeatOp(op) ||
        costModel.predictTimeUs(graph, op) != 0)
      continue;
    bool result = false;
    for (ValueId value : graphOp.results)
      result |= graph.value(value).outputRole != OutputRole::None;
    folded[op] = !result;
  }

  Problem problem;
  problem.position.assign(numOps, kNone);
  // Forward before backward, each in id order: the execution order of every
  // strategy, and a topological order because forward never reads backward.
  std::vector<OpId> requiredOrder;
  for (Phase phase : {Phase::Forward, Phase::Backward})
    for (OpId op = 0; op < numOps; ++op)
      if (required[op] && phases.opPhase[op] == phase) {
        requiredOrder.push_back(op);
        if (folded[op])
          continue;
        problem.position[op] = problem.size();
        problem.order.push_back(op);
      }

  const int n = problem.size();
  problem.firstBackward = n;
  for (int pos = n - 1; pos >= 0; --pos)
    if (phases.opPhase[problem.order[pos]] == Phase::Backward)
      problem.firstBackward = pos;
  problem.resultsOf.resize(n);
  problem.operandsOf.resize(n);
  problem.costUs.resize(n);
  problem.firstCostUs.resize(n);
  problem.recomputable.resize(n);
  problem.workspaceBytes.resize(n);
  std::vector<double> opTimes(numOps);
  for (OpId op = 0; op < numOps; ++op)
    opTimes[op] = costModel.predictTimeUs(graph, op);
  const std::vector<double> replayTimes =
      computeReplayTimes(graph, costModel, opTimes);
  problem.viewsBefore.resize(n);
  std::vector<int> valueIndex(graph.numValues(), kNone);
  // A folded view's result: the values reading it reads (indices in
  // `values`, its storage first) and the folded ops to evaluate for it, in
  // graph order.
  struct FoldedValue {
    std::vector<int> reads;
    std::vector<OpId> chain;
  };
  std::vector<FoldedValue> foldedValues(graph.numValues());
  auto addUnique = [](auto &list, auto item) {
    if (std::find(list.begin(), list.end(), item) == list.end())
      list.push_back(item);
  };
  for (OpId op : requiredOrder) {
    const GraphOp &graphOp = graph.op(op);
    const int pos = problem.position[op];
    // What reading `operand` means here: the scheduled values it stands
    // for (appended to `reads`) and the folded ops it needs (to `chain`).
    std::vector<int> reads;
    std::vector<OpId> chain;
    for (ValueId operand : graphOp.operands) {
      OpId producer = graph.value(operand).producer;
      if (producer == kNoId)
        continue; // graph inputs are always available and not counted
      if (folded[producer]) {
        for (int read : foldedValues[operand].reads)
          addUnique(reads, read);
        for (OpId view : foldedValues[operand].chain)
          addUnique(chain, view);
        continue;
      }
      int index = valueIndex[operand];
      if (index == kNone || (pos != kNone && problem.position[producer] >= pos))
        return absl::InvalidArgumentError(absl::StrFormat(
            "solveOptimal: op %s reads value %d before the op producing it; "
            "the forward/backward order of the classification is not "
            "topological (forward ops must not read backward values)",
            describeOp(graph, op), operand));
      addUnique(reads, index);
    }
    std::sort(chain.begin(), chain.end()); // op ids are topological
    if (pos == kNone) {
      // A folded view: its results stand for what it reads. A view whose
      // other operands are not graph inputs makes the MILP hold them until
      // the reader, one event longer than the simulator: an upper bound.
      chain.push_back(op);
      size_t fromStorage = 0;
      if (ValueId storage = graphOp.operands.front();
          graph.value(storage).producer != kNoId)
        fromStorage = folded[graph.value(storage).producer]
                          ? foldedValues[storage].reads.size()
                          : 1;
      problem.conservativeViews |= reads.size() > fromStorage;
      for (ValueId result : graphOp.results)
        foldedValues[result] = FoldedValue{reads, chain};
      continue;
    }
    problem.costUs[pos] = replayTimes[op];
    problem.firstCostUs[pos] = opTimes[op];
    problem.workspaceBytes[pos] = graphOp.workspaceBytes;
    // Backward ops run exactly once, at their place in graph order: the
    // partitioned program recomputes forward values only.
    bool mayRepeat = mayRepeatOp(op);
    for (ValueId result : graphOp.results) {
      const GraphValue &value = graph.value(result);
      ScheduledValue scheduled;
      scheduled.id = result;
      scheduled.producer = pos;
      scheduled.bytes = modelledBytes(graph, costModel, result);
      problem.conservativeViews |= isAliasingView(graphOp);
      scheduled.isOutput = value.outputRole != OutputRole::None;
      scheduled.notSaved =
          !scheduled.isOutput &&
          static_cast<size_t>(result) < options.notSaved.size() &&
          options.notSaved[result];
      // An output stays live from its production to the end; evaluating
      // its op again would only hold a second copy.
      if (scheduled.isOutput)
        mayRepeat = false;
      valueIndex[result] = static_cast<int>(problem.values.size());
      problem.resultsOf[pos].push_back(valueIndex[result]);
      problem.values.push_back(std::move(scheduled));
    }
    problem.recomputable[pos] = mayRepeat;
    for (int index : reads) {
      problem.operandsOf[pos].push_back(index);
      problem.values[index].readers.push_back(pos);
    }
    problem.viewsBefore[pos] = std::move(chain);
  }

  addDerivationSlots(graph, options, folded, valueIndex, problem);
  for (const ScheduledValue &value : problem.values)
    problem.backwardReadsNotSaved |=
        value.notSaved && !value.readers.empty() &&
        value.readers.back() >= problem.firstBackward;

  // Memory in units of the gcd of all sizes keeps every coefficient an
  // integer, so the solver's tolerances cannot blur the budget.
  int64_t unit = 0;
  for (const ScheduledValue &value : problem.values)
    unit = std::gcd(unit, value.bytes);
  for (int64_t workspace : problem.workspaceBytes)
    unit = std::gcd(unit, workspace);
  problem.unitBytes = unit > 0 ? unit : 1;
  for (ScheduledValue &value : problem.values) {
    value.units = value.bytes / problem.unitBytes;
    problem.totalUnits = detail::saturatingAdd(problem.totalUnits, value.units);
  }
  for (int64_t workspace : problem.workspaceBytes) {
    problem.workspaceUnits.push_back(workspace / problem.unitBytes);
    problem.totalUnits = detail::saturatingAdd(problem.totalUnits,
                                               problem.workspaceUnits.back());
  }
  return problem;
}

/// Appends the evaluation of the op at `pos` to `steps`, after the folded
/// views it reads (buildProblem).
void appendStep(const Problem &problem, int pos, std::vector<OpId> &steps) {
  steps.insert(steps.end(), problem.viewsBefore[pos].begin(),
               problem.viewsBefore[pos].end());
  steps.push_back(problem.order[pos]);
}

/// Byte sums below saturate at INT64_MAX, as tensor sizes do.
int64_t resultBytes(const Problem &problem, int pos) {
  int64_t bytes = 0;
  for (int value : problem.resultsOf[pos])
    bytes = detail::saturatingAdd(bytes, problem.values[value].bytes);
  return bytes;
}

/// A lower bound on any schedule's peak: the first evaluation of each op
/// needs its operands, its results, its workspace and every output produced
/// before it live at once. Returns the bound and the op where it is
/// reached.
std::pair<int64_t, int> peakLowerBound(const Problem &problem) {
  int64_t best = 0;
  int where = kNone;
  int64_t heldOutputs = 0;
  for (int pos = 0; pos < problem.size(); ++pos) {
    int64_t need = detail::saturatingAdd(
        detail::saturatingAdd(resultBytes(problem, pos),
                              problem.workspaceBytes[pos]),
        heldOutputs);
    for (int operand : problem.operandsOf[pos]) {
      const ScheduledValue &value = problem.values[operand];
      if (!value.isOutput) // outputs are already in heldOutputs
        need = detail::saturatingAdd(need, value.bytes);
    }
    if (need > best || where == kNone) {
      best = need;
      where = pos;
    }
    for (int result : problem.resultsOf[pos])
      if (problem.values[result].isOutput)
        heldOutputs =
            detail::saturatingAdd(heldOutputs, problem.values[result].bytes);
  }
  return {best, where};
}

/// Column-and-row accumulator for the MILP.
class MilpBuilder {
public:
  int addColumn(double lower, double upper, double objective, bool integer) {
    columnLower_.push_back(lower);
    columnUpper_.push_back(upper);
    objective_.push_back(objective);
    if (integer)
      integers_.push_back(static_cast<int>(columnLower_.size()) - 1);
    return static_cast<int>(columnLower_.size()) - 1;
  }
  void addRow(const std::vector<std::pair<int, double>> &terms, double lower,
              double upper) {
    rowStarts_.push_back(static_cast<CoinBigIndex>(rowColumns_.size()));
    rowLengths_.push_back(static_cast<int>(terms.size()));
    for (const auto &[column, coefficient] : terms) {
      rowColumns_.push_back(column);
      rowCoefficients_.push_back(coefficient);
    }
    rowLower_.push_back(lower);
    rowUpper_.push_back(upper);
  }
  int numColumns() const { return static_cast<int>(columnLower_.size()); }
  int numRows() const { return static_cast<int>(rowLower_.size()); }

  /// The largest amount by which `solution` misses a row, a bound or
  /// integrality: tells a solver artefact from a modelling error.
  double maxViolation(const double *solution) const {
    double worst = 0;
    for (int column = 0; column < numColumns(); ++column) {
      worst = std::max(worst, columnLower_[column] - solution[column]);
      worst = std::max(worst, solution[column] - columnUpper_[column]);
    }
    for (int column : integers_)
      worst = std::max(
          worst, std::abs(solution[column] - std::round(solution[column])));
    for (int row = 0; row < numRows(); ++row) {
      double activity = 0;
      for (int e = 0; e < rowLengths_[row]; ++e)
        activity += rowCoefficients_[rowStarts_[row] + e] *
                    solution[rowColumns_[rowStarts_[row] + e]];
      worst = std::max(worst, rowLower_[row] - activity);
      worst = std::max(worst, activity - rowUpper_[row]);
    }
    return worst;
  }

  void load(OsiClpSolverInterface &solver) const {
    // Built in one piece: appending rows one by one is quadratic in CoinUtils.
    CoinPackedMatrix matrix(/*colordered=*/false, numColumns(), numRows(),
                            static_cast<CoinBigIndex>(rowColumns_.size()),
                            rowCoefficients_.data(), rowColumns_.data(),
                            rowStarts_.data(), rowLengths_.data());
    solver.loadProblem(matrix, columnLower_.data(), columnUpper_.data(),
                       objective_.data(), rowLower_.data(), rowUpper_.data());
    for (int column : integers_)
      solver.setInteger(column);
  }

private:
  std::vector<double> columnLower_, columnUpper_, objective_;
  std::vector<int> integers_;
  std::vector<CoinBigIndex> rowStarts_;
  std::vector<int> rowLengths_, rowColumns_;
  std::vector<double> rowCoefficients_;
  std::vector<double> rowLower_, rowUpper_;
};

/// The MILP's columns, for reading the solution back.
struct Formulation {
  MilpBuilder milp;
  std::vector<std::vector<int>> evaluate; // R[t][i], kNone when fixed to 0
  std::vector<std::vector<int>> derive;   // D[d][t], kNone when absent
  int peakColumn = kNone;                 // set when minimising the peak
  /// Microseconds per objective unit when minimising time (0 otherwise):
  /// the objective is the schedule's total time over the largest op time.
  double microsecondsPerUnit = 0;
};

enum class Objective { MinimiseTime, MinimisePeak };

Formulation formulate(const Problem &problem, int64_t budgetUnits,
                      Objective objective) {
  const int n = problem.size();
  const int numSlots = static_cast<int>(problem.slots.size());
  const double infinity = COIN_DBL_MAX;
  Formulation formulation;
  MilpBuilder &milp = formulation.milp;
  using Terms = std::vector<std::pair<int, double>>;

  // Time coefficients relative to the largest keep the objective well
  // scaled; a zero-cost graph still gets a well-defined (empty) objective.
  double maxCost = 0;
  for (double cost : problem.costUs)
    maxCost = std::max(maxCost, cost);
  for (const DerivationSlot &slot : problem.slots)
    maxCost = std::max(maxCost, slot.step.timeUs);
  auto timeCoefficient = [&](double costUs) {
    if (objective != Objective::MinimiseTime || maxCost <= 0)
      return 0.0;
    return costUs / maxCost;
  };
  if (objective == Objective::MinimiseTime)
    formulation.microsecondsPerUnit = maxCost;

  // R[t][i]: an op is worth evaluating again only if something reads it.
  std::vector<bool> hasReaders(n, false);
  for (const ScheduledValue &value : problem.values)
    if (value.producer != kNone &&
        (!value.readers.empty() || !value.readerSlots.empty()))
      hasReaders[value.producer] = true;
  formulation.evaluate.assign(n, {});
  for (int t = 0; t < n; ++t) {
    formulation.evaluate[t].assign(t + 1, kNone);
    for (int i = 0; i < t; ++i)
      if (problem.recomputable[i] && hasReaders[i])
        formulation.evaluate[t][i] =
            milp.addColumn(0, 1, timeCoefficient(problem.costUs[i]), true);
    formulation.evaluate[t][t] =
        milp.addColumn(1, 1, timeCoefficient(problem.costUs[t]), true);
  }
  auto evaluate = [&](int t, int i) { return formulation.evaluate[t][i]; };

  // The last stage that may read a value: a reader's own stage, or any
  // later stage where it may run again (a derivation reading it: the last
  // stage its copy may be read). Outputs are held to the end. Copies are
  // read by later slots only, so reverse slot order sees them in time.
  const int numValues = static_cast<int>(problem.values.size());
  std::vector<int> lastStage(numValues, kNone);
  auto computeLast = [&](int v) {
    const ScheduledValue &value = problem.values[v];
    int last = value.producer != kNone ? value.producer
                                       : problem.slots[value.slot].after + 1;
    for (int reader : value.readers)
      last = std::max(last, evaluate(n - 1, reader) != kNone ? n - 1 : reader);
    for (int d : value.readerSlots)
      last = std::max(last, lastStage[problem.slots[d].copy]);
    if (value.isOutput)
      last = n - 1;
    lastStage[v] = last;
  };
  for (int d = numSlots - 1; d >= 0; --d)
    computeLast(problem.slots[d].copy);
  for (int v = 0; v < numValues; ++v)
    if (problem.values[v].slot == kNone)
      computeLast(v);

  // D[d][t]: derivation d runs in stage t, after its sources exist and while
  // its copy may still be read.
  formulation.derive.assign(numSlots, std::vector<int>(n, kNone));
  for (int d = 0; d < numSlots; ++d) {
    const DerivationSlot &slot = problem.slots[d];
    for (int t = slot.after + 1; t <= lastStage[slot.copy]; ++t)
      formulation.derive[d][t] =
          milp.addColumn(0, 1, timeCoefficient(slot.step.timeUs), true);
  }
  auto derive = [&](int d, int t) { return formulation.derive[d][t]; };
  // One derivation rule per value in the whole schedule: the plan records
  // one per value, and remat-partition emits every derivation of it with
  // that one. use_d >= D[d][t], and the uses of a value's slots sum to 1.
  for (int v = 0; v < numValues; ++v) {
    const std::vector<int> &copies = problem.values[v].copies;
    if (copies.size() < 2)
      continue;
    Terms uses;
    for (int copy : copies) {
      const int d = problem.values[copy].slot;
      const int use = milp.addColumn(0, 1, 0, true);
      uses.push_back({use, 1});
      for (int t = 0; t < n; ++t)
        if (derive(d, t) != kNone)
          milp.addRow({{derive(d, t), 1}, {use, -1}}, -infinity, 0);
    }
    milp.addRow(uses, -infinity, 1);
  }
  // The column that makes value v in stage t (R or D), or kNone.
  auto produce = [&](int t, int v) {
    const ScheduledValue &value = problem.values[v];
    if (value.producer != kNone)
      return value.producer <= t ? evaluate(t, value.producer) : kNone;
    return derive(value.slot, t);
  };
  // The first stage that may make the value.
  auto firstStage = [&](int v) {
    const ScheduledValue &value = problem.values[v];
    return value.producer != kNone ? value.producer
                                   : problem.slots[value.slot].after + 1;
  };

  // Where the event making value v falls in a stage's order.
  auto makingSequence = [&](int v) {
    const ScheduledValue &value = problem.values[v];
    return value.producer != kNone ? problem.sequenceOfPosition[value.producer]
                                   : problem.sequenceOfSlot[value.slot];
  };

  // S[t][v] exists for the first stage making v < t <= its last stage. A
  // value backward may not read from forward is not held into the first
  // backward stage: stages after it read an instance made in backward.
  std::vector<std::vector<int>> hold(n, std::vector<int>(numValues, kNone));
  for (int v = 0; v < numValues; ++v) {
    const ScheduledValue &value = problem.values[v];
    for (int t = firstStage(v) + 1; t <= lastStage[v]; ++t) {
      const double upper = value.notSaved && t == problem.firstBackward ? 0 : 1;
      hold[t][v] = value.isOutput ? milp.addColumn(1, 1, 0, true)
                                  : milp.addColumn(0, upper, 0, true);
    }
  }

  if (objective == Objective::MinimisePeak)
    formulation.peakColumn = milp.addColumn(0, infinity, 1, true);
  double unitsBound = objective == Objective::MinimisePeak
                          ? infinity
                          : static_cast<double>(budgetUnits);

  // Holding v into stage t+1 needs v at the end of stage t.
  for (int v = 0; v < numValues; ++v) {
    for (int t = firstStage(v) + 1; t < n; ++t) {
      if (hold[t][v] == kNone)
        continue;
      Terms terms = {{hold[t][v], 1}};
      if (hold[t - 1][v] != kNone)
        terms.push_back({hold[t - 1][v], -1});
      if (int made = produce(t - 1, v); made != kNone)
        terms.push_back({made, -1});
      milp.addRow(terms, -infinity, 0);
    }
  }

  // The events of a stage in the order they run: positions, each followed
  // by the derivation slots after it. `ran` is the column of an event.
  struct Event {
    int sequence;
    int pos;  // kNone for a derivation
    int slot; // kNone for an op
  };
  auto ran = [&](int t, const Event &event) {
    return event.pos != kNone ? evaluate(t, event.pos) : derive(event.slot, t);
  };
  // Value v's events in stage t that may run: its making and its reads, in
  // order.
  auto eventsOf = [&](int t, int v) {
    const ScheduledValue &value = problem.values[v];
    std::vector<Event> events;
    if (value.producer != kNone)
      events.push_back(
          {problem.sequenceOfPosition[value.producer], value.producer, kNone});
    else
      events.push_back({problem.sequenceOfSlot[value.slot], kNone, value.slot});
    for (int reader : value.readers)
      if (reader <= t)
        events.push_back({problem.sequenceOfPosition[reader], reader, kNone});
    for (int d : value.readerSlots)
      if (derive(d, t) != kNone)
        events.push_back({problem.sequenceOfSlot[d], kNone, d});
    std::sort(events.begin(), events.end(),
              [](const Event &lhs, const Event &rhs) {
                return lhs.sequence < rhs.sequence;
              });
    std::vector<Event> running;
    for (const Event &event : events)
      if (ran(t, event) != kNone)
        running.push_back(event);
    return running;
  };

  // Dominance rows: a recomputation, a derivation or a held value nobody
  // reads later can be dropped without raising cost or memory, so some
  // optimum has none. Requiring a later use removes those equivalent
  // solutions from the search and tightens the LP.
  auto laterUse = [&](int t, int v, int afterSequence) {
    Terms terms;
    for (const Event &event : eventsOf(t, v))
      if (event.sequence > afterSequence)
        terms.push_back({ran(t, event), -1});
    if (t + 1 < n && hold[t + 1][v] != kNone)
      terms.push_back({hold[t + 1][v], -1});
    return terms;
  };
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i < t; ++i) {
      if (evaluate(t, i) == kNone)
        continue;
      Terms terms = {{evaluate(t, i), 1}};
      for (int v : problem.resultsOf[i]) {
        Terms uses = laterUse(t, v, problem.sequenceOfPosition[i]);
        terms.insert(terms.end(), uses.begin(), uses.end());
      }
      milp.addRow(terms, -infinity, 0);
    }
    for (int d = 0; d < numSlots; ++d) {
      if (derive(d, t) == kNone)
        continue;
      Terms terms = {{derive(d, t), 1}};
      Terms uses =
          laterUse(t, problem.slots[d].copy, problem.sequenceOfSlot[d]);
      terms.insert(terms.end(), uses.begin(), uses.end());
      milp.addRow(terms, -infinity, 0);
    }
    for (int v = 0; v < numValues; ++v) {
      if (hold[t][v] == kNone || problem.values[v].isOutput)
        continue;
      Terms terms = {{hold[t][v], 1}};
      Terms uses = laterUse(t, v, makingSequence(v));
      terms.insert(terms.end(), uses.begin(), uses.end());
      milp.addRow(terms, -infinity, 0);
    }
  }

  for (int t = 0; t < n; ++t) {
    // An event reads the copy of each operand made earlier in the stage or
    // held into it: the value itself, or a copy derived before the event.
    auto available = [&](int v, int sequence, Terms &terms) {
      if (int made = produce(t, v); made != kNone)
        terms.push_back({made, -1});
      if (hold[t][v] != kNone)
        terms.push_back({hold[t][v], -1});
      for (int copy : problem.values[v].copies) {
        int d = problem.values[copy].slot;
        if (problem.sequenceOfSlot[d] < sequence && derive(d, t) != kNone)
          terms.push_back({derive(d, t), -1});
        if (hold[t][copy] != kNone)
          terms.push_back({hold[t][copy], -1});
      }
    };
    for (int k = 0; k <= t; ++k) {
      if (evaluate(t, k) == kNone)
        continue;
      for (int v : problem.operandsOf[k]) {
        Terms terms = {{evaluate(t, k), 1}};
        available(v, problem.sequenceOfPosition[k], terms);
        milp.addRow(terms, -infinity, 0);
      }
    }
    for (int d = 0; d < numSlots; ++d) {
      if (derive(d, t) == kNone)
        continue;
      for (int v : problem.slots[d].sources) {
        Terms terms = {{derive(d, t), 1}};
        available(v, problem.sequenceOfSlot[d], terms);
        milp.addRow(terms, -infinity, 0);
      }
    }

    // At most one instance of a derived value in a stage: a copy is never
    // made or held beside the value or another copy. (The value's own
    // recomputation beside its held copy is the formulation's as before.)
    for (int v = 0; v < numValues; ++v) {
      const ScheduledValue &value = problem.values[v];
      if (value.copies.empty())
        continue;
      Terms copies;
      for (int copy : value.copies) {
        if (int made = produce(t, copy); made != kNone)
          copies.push_back({made, 1});
        if (hold[t][copy] != kNone)
          copies.push_back({hold[t][copy], 1});
      }
      if (copies.empty())
        continue;
      for (int column : {produce(t, v), hold[t][v]}) {
        Terms terms = copies;
        if (column != kNone)
          terms.push_back({column, 1});
        milp.addRow(terms, -infinity, 1);
      }
    }

    // Frees: F[t][v][e] <= ran(e), <= 1 - S[t+1][v], <= 1 - ran(e') for
    // every later event e' of v in the stage. Outputs are never freed. Where
    // a reader may read a copy instead, v may be freed after it only if v
    // is in the stage (made or held).
    std::vector<Terms> freedAfter(n + numSlots);
    for (int v = 0; v < numValues; ++v) {
      const ScheduledValue &value = problem.values[v];
      if (value.isOutput || value.units == 0 || firstStage(v) > t)
        continue;
      const bool family = !value.copies.empty() || value.slot != kNone;
      std::vector<Event> events = eventsOf(t, v);
      for (size_t e = 0; e < events.size(); ++e) {
        int freeColumn = milp.addColumn(0, 1, 0, true);
        freedAfter[events[e].sequence].push_back(
            {freeColumn, static_cast<double>(value.units)});
        milp.addRow({{freeColumn, 1}, {ran(t, events[e]), -1}}, -infinity, 0);
        if (t + 1 < n && hold[t + 1][v] != kNone)
          milp.addRow({{freeColumn, 1}, {hold[t + 1][v], 1}}, -infinity, 1);
        for (size_t later = e + 1; later < events.size(); ++later)
          milp.addRow({{freeColumn, 1}, {ran(t, events[later]), 1}}, -infinity,
                      1);
        // Before the copy's slot only a held copy is there.
        if (family && events[e].sequence != makingSequence(v)) {
          Terms present = {{freeColumn, 1}};
          if (int made = produce(t, v);
              made != kNone && events[e].sequence > makingSequence(v))
            present.push_back({made, -1});
          if (hold[t][v] != kNone)
            present.push_back({hold[t][v], -1});
          milp.addRow(present, -infinity, 0);
        }
      }
    }

    // U chain: U[t][e] = U[t][e'] + ran(e) * results(e) - freed after e',
    // where e' is the previous event that may run in the stage. Frees only
    // follow events that ran, so the chain only needs those.
    int previous = kNone, previousSequence = kNone;
    auto link = [&](int column, int64_t results, int sequence,
                    int64_t workspace) {
      int live = milp.addColumn(0, unitsBound, 0, false);
      Terms terms = {{live, 1}};
      if (results != 0)
        terms.push_back({column, -static_cast<double>(results)});
      if (previous == kNone) {
        for (int v = 0; v < numValues; ++v)
          if (hold[t][v] != kNone && problem.values[v].units != 0)
            terms.push_back(
                {hold[t][v], -static_cast<double>(problem.values[v].units)});
      } else {
        terms.push_back({previous, -1});
        for (const auto &[freeColumn, units] : freedAfter[previousSequence])
          terms.push_back({freeColumn, units});
      }
      milp.addRow(terms, 0, 0);
      if (formulation.peakColumn != kNone)
        milp.addRow({{live, 1}, {formulation.peakColumn, -1}}, -infinity, 0);
      // The workspace counts while op k runs, not in the chain after it.
      if (workspace > 0) {
        Terms running = {{live, 1}, {column, static_cast<double>(workspace)}};
        if (formulation.peakColumn != kNone) {
          running.push_back({formulation.peakColumn, -1});
          milp.addRow(running, -infinity, 0);
        } else {
          milp.addRow(running, -infinity, unitsBound);
        }
      }
      previous = live;
      previousSequence = sequence;
    };
    for (int k = 0; k <= t; ++k) {
      if (evaluate(t, k) != kNone) {
        int64_t results = 0;
        for (int r : problem.resultsOf[k])
          results += problem.values[r].units;
        link(evaluate(t, k), results, problem.sequenceOfPosition[k],
             problem.workspaceUnits[k]);
      }
      if (k == t)
        break;
      for (int d : problem.slotsAfter[k])
        if (derive(d, t) != kNone)
          link(derive(d, t), problem.values[problem.slots[d].copy].units,
               problem.sequenceOfSlot[d], 0);
    }
  }
  return formulation;
}

struct MilpOutcome {
  enum class Kind { Solved, Infeasible, NoSolutionInTime, SolverFailed } kind;
  bool provenOptimal = false;
  Schedule schedule;
  double peakUnits = 0;      // the peak column, when minimising it
  std::string solverStatus;  // CBC's status codes, for SolverFailed
  double modelViolation = 0; // how far the solution misses the MILP
  /// CBC's bound on the objective once it searched a node (time objectives).
  std::optional<double> boundObjective;
};

/// Passes CBC's search state to OptimalOptions::progress. CBC solves copies
/// of the model (after preprocessing, again after a root restart) and clones
/// the handler into each, so `model_` is the model being searched. The
/// models of its heuristics' small sub-searches have a parent model: their
/// nodes and bounds are not the whole problem's, so they only move the
/// clock. Across restarts the incumbent only improves, the bound only rises
/// and the node counts add up.
class ProgressEvents : public CbcEventHandler {
public:
  struct Search {
    std::optional<double> bestObjective, boundObjective;
    int64_t earlierNodes = 0; // nodes of the models searched before
    int lastNodes = 0;
  };

  ProgressEvents(const std::function<void(const OptimalProgress &)> &progress,
                 double microsecondsPerUnit, double baselineUs, Search &search)
      : progress_(progress), microsecondsPerUnit_(microsecondsPerUnit),
        baselineUs_(baselineUs), search_(search) {}

  using CbcEventHandler::event;
  CbcAction event(CbcEvent whichEvent) override {
    if (model_ && (whichEvent == node || whichEvent == solution ||
                   whichEvent == heuristicSolution || whichEvent == endSearch))
      report(*model_);
    return noAction;
  }
  CbcEventHandler *clone() const override { return new ProgressEvents(*this); }

private:
  /// Objective values are total times in units of the largest op time; the
  /// recompute time is what exceeds one evaluation of every op (rounding
  /// noise around zero is zero).
  double recomputeUs(double objective) const {
    double us = objective * microsecondsPerUnit_ - baselineUs_;
    return us > 1e-9 * std::max(1.0, baselineUs_) ? us : 0.0;
  }
  void report(const CbcModel &model) {
    // A sub-search only moves the clock: the main search can sit in one for
    // a long time.
    if (!model.parentModel())
      update(model);
    if (!progress_)
      return;
    OptimalProgress progress;
    progress.nodes = search_.earlierNodes + search_.lastNodes;
    if (search_.bestObjective)
      progress.bestRecomputeTimeUs = recomputeUs(*search_.bestObjective);
    if (search_.boundObjective)
      progress.recomputeTimeBoundUs = recomputeUs(*search_.boundObjective);
    progress_(progress);
  }
  void update(const CbcModel &model) {
    int nodes = model.getNodeCount();
    if (nodes < search_.lastNodes)
      search_.earlierNodes += search_.lastNodes;
    search_.lastNodes = nodes;
    if (model.bestSolution() && (!search_.bestObjective ||
                                 model.getObjValue() < *search_.bestObjective))
      search_.bestObjective = model.getObjValue();
    double bound = model.getBestPossibleObjValue();
    if (std::isfinite(bound) && std::abs(bound) < 1e40 &&
        (!search_.boundObjective || bound > *search_.boundObjective))
      search_.boundObjective = bound;
  }

  const std::function<void(const OptimalProgress &)> &progress_;
  double microsecondsPerUnit_;
  double baselineUs_;
  Search &search_;
};

/// `progress`, when set, follows the search (time objectives only). With a
/// `cutoff` (an objective value a known schedule reaches), CBC searches for
/// cheaper solutions only: Infeasible then means there are none.
MilpOutcome solveMilp(
    const Problem &problem, const Formulation &formulation, double seconds,
    const std::function<void(const OptimalProgress &)> &progress = nullptr,
    std::optional<double> cutoff = std::nullopt) {
  OsiClpSolverInterface solver;
  formulation.milp.load(solver);
  solver.messageHandler()->setLogLevel(0);
  solver.setHintParam(OsiDoReducePrint, true, OsiHintTry);

  // CbcMain0 and CbcMain1 parse their arguments through state shared by
  // every call in the process: two solves at once (MLIR runs the plans of
  // nested modules on several threads) misread each other's arguments and
  // fail. One solve runs at a time; each one's time limit starts when it
  // does.
  static std::mutex cbcMutex;
  std::lock_guard<std::mutex> cbcLock(cbcMutex);
  CbcModel model(solver);
  CbcSolverUsefulData data;
  CbcMain0(model, data);
  // CBC checks its limit between nodes; the root LP of a large model can run
  // far past it, so the LP gets the same wall-clock limit.
  if (auto *lpSolver = dynamic_cast<OsiClpSolverInterface *>(model.solver())) {
    lpSolver->getModelPtr()->setMaximumWallSeconds(seconds);
    lpSolver->getModelPtr()->setMaximumSeconds(seconds);
  }
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  // The handler also keeps CBC's bound for the result, progress or not.
  ProgressEvents::Search search;
  if (formulation.microsecondsPerUnit > 0) {
    double baselineUs = 0;
    for (double cost : problem.costUs)
      baselineUs += cost;
    ProgressEvents events(progress, formulation.microsecondsPerUnit, baselineUs,
                          search);
    model.passInEventHandler(&events); // cloned
  }
  // Exact: no gap allowed; single-threaded so the search is deterministic.
  std::string secondsText = absl::StrFormat("%.3f", std::max(seconds, 0.001));
  std::string cutoffText = cutoff ? absl::StrFormat("%.17g", *cutoff) : "";
  std::vector<const char *> argv = {"remat-optimal",
                                    "-log",
                                    "0",
                                    "-slog",
                                    "0",
                                    "-timeMode",
                                    "elapsed",
                                    "-seconds",
                                    secondsText.c_str(),
                                    "-allowableGap",
                                    "0",
                                    "-ratioGap",
                                    "0",
                                    "-increment",
                                    "1e-10",
                                    "-threads",
                                    "0"};
  if (cutoff) {
    argv.push_back("-cutoff");
    argv.push_back(cutoffText.c_str());
  }
  argv.push_back("-solve");
  argv.push_back("-quit");
  auto start = std::chrono::steady_clock::now();
  CbcMain1(
      static_cast<int>(argv.size()), argv.data(), model,
      [](CbcModel *, int) { return 0; }, data);
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  // An LP cut short by its time limit looks infeasible to CBC, so once the
  // time is up neither an infeasibility nor an optimality claim is trusted.
  bool outOfTime = model.isSecondsLimitReached() || elapsed >= 0.99 * seconds;

  MilpOutcome outcome;
  if (search.earlierNodes + search.lastNodes > 0)
    outcome.boundObjective = search.boundObjective;
  const double *solution = model.bestSolution();
  if (!solution) {
    if (outOfTime)
      outcome.kind = MilpOutcome::Kind::NoSolutionInTime;
    else if (model.isProvenInfeasible())
      outcome.kind = MilpOutcome::Kind::Infeasible;
    else
      outcome.kind = MilpOutcome::Kind::SolverFailed;
    outcome.solverStatus =
        absl::StrFormat("status %d, secondary status %d", model.status(),
                        model.secondaryStatus());
    return outcome;
  }
  outcome.kind = MilpOutcome::Kind::Solved;
  outcome.provenOptimal = !outOfTime && model.isProvenOptimal();
  outcome.modelViolation = formulation.milp.maxViolation(solution);
  Schedule &schedule = outcome.schedule;
  for (int t = 0; t < problem.size(); ++t) {
    // Replays in the first backward op's stage are backward's.
    if (t == problem.firstBackward)
      schedule.backwardStart = schedule.steps.size();
    for (int i = 0; i <= t; ++i) {
      int column = formulation.evaluate[t][i];
      if (column != kNone && solution[column] > 0.5)
        appendStep(problem, i, schedule.steps);
      if (i == t)
        break;
      for (int d : problem.slotsAfter[i])
        if (int derive = formulation.derive[d][t];
            derive != kNone && solution[derive] > 0.5) {
          DerivationStep step = problem.slots[d].step;
          step.beforeStep = schedule.steps.size();
          schedule.derivations.push_back(std::move(step));
        }
    }
  }
  if (formulation.peakColumn != kNone)
    outcome.peakUnits = std::round(solution[formulation.peakColumn]);
  return outcome;
}

class Deadline {
public:
  explicit Deadline(double seconds)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(seconds))) {}
  double remainingSeconds() const {
    return std::chrono::duration<double>(end_ -
                                         std::chrono::steady_clock::now())
        .count();
  }

private:
  std::chrono::steady_clock::time_point end_;
};

/// The most memory units the MILP's rows sum exactly in doubles.
constexpr int64_t kMaxExactUnits = int64_t{1} << 53;

/// Whether the MILP can state the memory of `problem` exactly; else the
/// error that says why not.
absl::Status checkExactUnits(const Problem &problem) {
  if (problem.totalUnits <= kMaxExactUnits)
    return absl::OkStatus();
  int64_t largest = 0;
  for (const ScheduledValue &value : problem.values)
    largest = std::max(largest, value.bytes);
  for (int64_t workspace : problem.workspaceBytes)
    largest = std::max(largest, workspace);
  return absl::FailedPreconditionError(absl::StrFormat(
      "the exact `optimal` strategy cannot state this graph's memory: its "
      "values and workspace add up to more than 2^53 units of %d bytes (the "
      "largest is %d bytes), beyond what its MILP's rows sum exactly; check "
      "the tensor sizes (a size of %d bytes is saturated), or use the "
      "`budget` strategy",
      problem.unitBytes, largest, std::numeric_limits<int64_t>::max()));
}

std::string tooLargeAdvice(const Problem &problem) {
  return absl::StrFormat(
      "the graph (%d ops to schedule) is too large for the exact `optimal` "
      "strategy, whose MILP grows with the square of the op count (see "
      "docs/Optimal.md); use the `budget` strategy instead",
      problem.size());
}

/// Drops re-evaluations whose results nobody reads. The solver only leaves
/// them for zero-cost ops, where it is indifferent; without them the plan
/// reads better and its memory can only shrink. The first evaluation of an
/// op stays even when unread, so every op keeps its place in the order the
/// program runs (a dead backward op included). Derivations read like steps
/// and stay where they were relative to the steps kept.
void dropUnreadEvaluations(const Graph &graph, Schedule &schedule) {
  bool changed = true;
  while (changed) {
    changed = false;
    const size_t numSteps = schedule.steps.size();
    std::vector<bool> read(numSteps, false);
    std::vector<int64_t> latestStep(graph.numValues(), -1);
    std::vector<int> evaluations(graph.numOps(), 0);
    auto readValue = [&](ValueId value) {
      if (latestStep[value] >= 0)
        read[latestStep[value]] = true;
    };
    size_t nextDerivation = 0;
    for (size_t step = 0; step <= numSteps; ++step) {
      for (; nextDerivation < schedule.derivations.size() &&
             schedule.derivations[nextDerivation].beforeStep == step;
           ++nextDerivation) {
        const DerivationStep &derivation = schedule.derivations[nextDerivation];
        for (ValueId value : derivation.reads)
          readValue(value);
        latestStep[derivation.value] = -1; // not a step's instance
      }
      if (step == numSteps)
        break;
      const GraphOp &op = graph.op(schedule.steps[step]);
      for (ValueId operand : op.operands)
        readValue(operand);
      for (ValueId result : op.results)
        latestStep[result] = static_cast<int64_t>(step);
      ++evaluations[schedule.steps[step]];
    }
    // The last evaluation of an output stays live to the end: it is read.
    for (size_t value = 0; value < graph.numValues(); ++value)
      if (graph.value(static_cast<ValueId>(value)).outputRole !=
              OutputRole::None &&
          latestStep[value] >= 0)
        read[latestStep[value]] = true;
    std::vector<OpId> kept;
    // Old step index -> how many steps are kept before it.
    std::vector<size_t> keptBefore(numSteps + 1, 0);
    std::vector<uint8_t> seen(graph.numOps(), 0);
    for (size_t step = 0; step < numSteps; ++step) {
      keptBefore[step] = kept.size();
      OpId op = schedule.steps[step];
      bool first = !seen[op];
      seen[op] = 1;
      if (!read[step] && !first && evaluations[op] > 1) {
        --evaluations[op];
        changed = true;
        continue;
      }
      kept.push_back(op);
    }
    keptBefore[numSteps] = kept.size();
    for (DerivationStep &derivation : schedule.derivations)
      derivation.beforeStep = keptBefore[derivation.beforeStep];
    if (schedule.backwardStart)
      schedule.backwardStart =
          keptBefore[std::min(*schedule.backwardStart, numSteps)];
    schedule.steps = std::move(kept);
  }
}

/// The cheapest schedule there can be, when it fits: every op once, plus
/// re-evaluations of the zero-cost ops that may repeat (views, mostly) just
/// before each stage that reads them, so that their results are not held in
/// between. It costs what running every op once costs, the least any
/// schedule costs, so if it fits the budget it is optimal. The MILP can need
/// a long search to find such a schedule when the budget is tight.
Schedule zeroCostRematerialization(const Problem &problem) {
  const int n = problem.size();
  auto free = [&](int pos) {
    return problem.recomputable[pos] && problem.costUs[pos] == 0;
  };
  Schedule schedule;
  std::vector<int> mark(n, kNone);
  std::vector<int> stack, replay;
  for (int t = 0; t < n; ++t) {
    replay.clear();
    auto visit = [&](int operand) {
      int producer = problem.values[operand].producer;
      if (free(producer) && mark[producer] != t) {
        mark[producer] = t;
        stack.push_back(producer);
      }
    };
    for (int operand : problem.operandsOf[t])
      visit(operand);
    while (!stack.empty()) {
      int producer = stack.back();
      stack.pop_back();
      replay.push_back(producer);
      for (int operand : problem.operandsOf[producer])
        visit(operand);
    }
    // Position order is topological.
    std::sort(replay.begin(), replay.end());
    for (int pos : replay)
      appendStep(problem, pos, schedule.steps);
    appendStep(problem, t, schedule.steps);
  }
  return schedule;
}

/// The MILP objective of `schedule` (every evaluation at its replay cost, in
/// the formulation's units) when the MILP can express it: each position
/// first evaluated in position order, ending its stage; before that, only
/// re-evaluations the formulation has a column for, in ascending position.
/// nullopt otherwise.
std::optional<double> objectiveInClass(const Problem &problem,
                                       const Formulation &formulation,
                                       const Schedule &schedule) {
  if (formulation.microsecondsPerUnit <= 0 || !schedule.derivations.empty())
    return std::nullopt;
  int stage = 0, previous = kNone;
  double us = 0;
  for (OpId op : schedule.steps) {
    int pos = problem.position[op];
    if (pos == kNone) // a folded view: no column, no cost
      continue;
    if (stage >= problem.size())
      return std::nullopt;
    if (pos == stage) {
      ++stage;
      previous = kNone;
    } else if (pos < stage && pos > previous &&
               formulation.evaluate[stage][pos] != kNone) {
      previous = pos;
    } else {
      return std::nullopt;
    }
    us += problem.costUs[pos];
  }
  if (stage != problem.size())
    return std::nullopt;
  return us / formulation.microsecondsPerUnit;
}

/// CBC's bound on the objective as a total time: the objective charges every
/// evaluation its replay cost, a first evaluation costs firstCostUs.
double totalTimeOfObjective(const Problem &problem,
                            const Formulation &formulation, double objective) {
  double us = objective * formulation.microsecondsPerUnit;
  for (int pos = 0; pos < problem.size(); ++pos)
    us += problem.firstCostUs[pos] - problem.costUs[pos];
  return us;
}

/// Builds the result from a schedule and checks it against the simulator.
/// `boundUs`: a lower bound on the MILP's optimum as a total time, when the
/// search that found `schedule` has one.
absl::StatusOr<OptimalSolution>
finish(const Graph &graph, const Classification &phases,
       const CostModel &costModel, const Problem &problem, Schedule schedule,
       int64_t budgetBytes, bool provenOptimal, double modelViolation = 0,
       std::optional<double> boundUs = std::nullopt) {
  dropUnreadEvaluations(graph, schedule);
  double costUs = 0;
  std::vector<uint8_t> ran(problem.size(), 0);
  for (OpId op : schedule.steps)
    if (int pos = problem.position[op]; pos != kNone) // folded views cost 0
      costUs += ran[pos]++ ? problem.costUs[pos] : problem.firstCostUs[pos];
  for (const DerivationStep &derivation : schedule.derivations)
    costUs += derivation.timeUs;
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, phases, schedule, costModel);
  if (!simulation.ok())
    return absl::InternalError(absl::StrCat(
        "solveOptimal produced a schedule the simulator rejects (a bug in "
        "the MILP): ",
        simulation.status().message()));
  double tolerance = 1e-9 * std::max(1.0, std::abs(costUs));
  // An incumbent of a search cut short by the time limit may not even
  // satisfy the MILP; only one that does is held to the simulator.
  if (!provenOptimal && modelViolation > 1e-6 &&
      simulation->peakBytes > budgetBytes)
    return absl::DeadlineExceededError(absl::StrFormat(
        "`optimal` found no schedule within %d bytes it could verify before "
        "the time limit (%d ops to schedule); use the `budget` strategy, or "
        "raise the time limit (optimal-time-limit)",
        budgetBytes, problem.size()));
  if (simulation->peakBytes > budgetBytes ||
      std::abs(simulation->totalTimeUs - costUs) > tolerance)
    return absl::InternalError(absl::StrFormat(
        "solveOptimal disagrees with the simulator (a bug in the MILP): "
        "simulated peak %d bytes vs budget %d, simulated time %.9g us vs "
        "solver cost %.9g us",
        simulation->peakBytes, budgetBytes, simulation->totalTimeUs, costUs));
  OptimalSolution result;
  result.schedule = std::move(schedule);
  result.totalCostUs = simulation->totalTimeUs;
  result.recomputeCostUs = simulation->recomputeTimeUs;
  result.peakBytes = simulation->peakBytes;
  // With views the MILP's memory is an upper bound (modelledBytes): its
  // optimum is not proven optimal for the simulator's accounting, unless
  // nothing is recomputed at a cost.
  result.provenOptimal =
      provenOptimal && (!problem.conservativeViews || simulation->recomputeTimeUs == 0);
  // The bound holds for the simulator's accounting only where the MILP's
  // memory is the simulator's; every schedule evaluates every op once.
  double evaluateOnceUs = 0;
  for (double cost : problem.firstCostUs)
    evaluateOnceUs += cost;
  // Nothing costs less than every op once: such a schedule is optimal,
  // whatever the search proved.
  const bool solverProved = result.provenOptimal;
  if (result.totalCostUs <= evaluateOnceUs + tolerance)
    result.provenOptimal = true;
  result.lowerBoundUs = std::min(evaluateOnceUs, result.totalCostUs);
  if (solverProved) {
    result.lowerBoundUs = result.totalCostUs;
    result.lowerBoundFromSolver = true;
  } else if (result.provenOptimal) {
    result.lowerBoundUs = result.totalCostUs;
  } else if (boundUs && !problem.conservativeViews &&
             *boundUs > evaluateOnceUs) {
    result.lowerBoundUs = std::min(*boundUs, result.totalCostUs);
    result.lowerBoundFromSolver = true;
  }
  return result;
}

/// The error for a budget no schedule meets, naming the smallest budget that
/// works: the lower bound when a schedule meets it (the usual case), else the
/// minimum peak found by a second MILP; failing both in time, a lower bound.
absl::StatusOr<OptimalSolution>
infeasibleBudget(const Graph &graph, const Classification &phases,
                 const CostModel &costModel, const Problem &problem,
                 int64_t budgetBytes, const Deadline &deadline,
                 int64_t maxOps) {
  auto [lowerBound, where] = peakLowerBound(problem);
  // Activation figures, as the budget strategy's error gives them: the
  // smallest peak as "<size> (<bytes> bytes)", which frontends read.
  auto smallest = [&](int64_t bytes) {
    if (problem.conservativeViews)
      return infeasibleBudgetError(
          absl::StrFormat(
              "no schedule `optimal` models fits the budget of %d bytes: the "
              "smallest activation peak it reaches is %s (%d bytes). It "
              "charges views as copies (docs/Optimal.md), so a schedule that "
              "shares their storage may fit less: try strategy=budget, or "
              "raise the budget to %d bytes",
              budgetBytes, formatBytes(bytes), bytes, bytes),
          bytes);
    return infeasibleBudgetError(
        absl::StrFormat("no schedule fits the budget of %d bytes: the "
                        "smallest activation peak any schedule reaches is %s "
                        "(%d bytes); raise the budget to at least that",
                        budgetBytes, formatBytes(bytes), bytes),
        bytes);
  };
  // With views the MILP's bytes are upper bounds: its lower bound is none.
  if (problem.conservativeViews)
    lowerBound = 0;
  // Without exact memory rows the MILPs below are not run: the lower bound
  // is what is known. Nor on a graph above maxOps: a feasible budget is
  // refused there at once, and before 2026-12-07 an infeasible one ran the
  // MILPs until the time limit (a minute on 576 ops).
  const bool tooLarge = problem.size() > maxOps;
  const bool exact = !tooLarge && checkExactUnits(problem).ok();
  if (exact && deadline.remainingSeconds() > 0 && lowerBound > budgetBytes) {
    Formulation atBound = formulate(problem, lowerBound / problem.unitBytes,
                                    Objective::MinimiseTime);
    MilpOutcome outcome =
        solveMilp(problem, atBound, deadline.remainingSeconds());
    if (outcome.kind == MilpOutcome::Kind::Solved) {
      absl::StatusOr<SimulationResult> simulation =
          simulate(graph, phases, outcome.schedule, costModel);
      if (simulation.ok() && simulation->peakBytes <= lowerBound)
        return smallest(lowerBound);
    }
  }
  if (exact && deadline.remainingSeconds() > 0) {
    Formulation formulation =
        formulate(problem, /*budgetUnits=*/0, Objective::MinimisePeak);
    MilpOutcome outcome =
        solveMilp(problem, formulation, deadline.remainingSeconds());
    if (outcome.kind == MilpOutcome::Kind::Solved && outcome.provenOptimal) {
      absl::StatusOr<SimulationResult> simulation =
          simulate(graph, phases, outcome.schedule, costModel);
      // Views share storage in the simulator: the smallest modelled peak
      // may fit the budget there (not proven the fastest such schedule).
      if (simulation.ok() && problem.conservativeViews &&
          simulation->peakBytes <= budgetBytes)
        return finish(graph, phases, costModel, problem,
                      std::move(outcome.schedule), budgetBytes,
                      /*provenOptimal=*/false);
      if (simulation.ok())
        return smallest(simulation->peakBytes);
    }
  }
  if (tooLarge && budgetBytes >= lowerBound)
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s (at most %d ops are accepted)", tooLargeAdvice(problem), maxOps));
  if (problem.conservativeViews)
    return absl::ResourceExhaustedError(absl::StrFormat(
        "no schedule `optimal` models fits the budget of %d bytes (the "
        "smallest it reaches was not found in time); try strategy=budget",
        budgetBytes));
  if (budgetBytes < lowerBound)
    return infeasibleBudgetError(
        absl::StrFormat(
            "budget %d bytes is below the smallest activation peak any "
            "schedule needs, %s (%d bytes): op %s needs its operands and "
            "results live at once; raise the budget",
            budgetBytes, formatBytes(lowerBound), lowerBound,
            describeOp(graph, problem.order[where])),
        lowerBound);
  if (!exact)
    return checkExactUnits(problem);
  return absl::ResourceExhaustedError(absl::StrFormat(
      "no schedule fits the budget of %d bytes (any schedule needs at least "
      "%d bytes; the exact minimum was not found in time); raise the budget",
      budgetBytes, lowerBound));
}

} // namespace

absl::StatusOr<OptimalSolution> solveOptimal(const Graph &graph,
                                             const Classification &phases,
                                             int64_t budgetBytes,
                                             const CostModel &costModel,
                                             const OptimalOptions &options) {
  Deadline deadline(options.timeLimitSeconds);
  absl::StatusOr<Problem> built =
      buildProblem(graph, phases, costModel, options);
  if (!built.ok())
    return built.status();
  const Problem &problem = *built;

  // Without recomputation every op runs once, the least any schedule does:
  // if that fits, it is optimal and no solver is needed.
  Schedule noRecompute;
  for (int pos = 0; pos < problem.size(); ++pos)
    appendStep(problem, pos, noRecompute.steps);
  absl::StatusOr<SimulationResult> noRecomputeSimulation =
      simulate(graph, phases, noRecompute, costModel);
  if (!noRecomputeSimulation.ok())
    return absl::InternalError(
        absl::StrCat("solveOptimal: the simulator rejects the schedule without "
                     "recomputation: ",
                     noRecomputeSimulation.status().message()));
  if (noRecomputeSimulation->peakBytes <= budgetBytes &&
      !problem.backwardReadsNotSaved)
    return finish(graph, phases, costModel, problem, std::move(noRecompute),
                  budgetBytes, /*provenOptimal=*/true);

  auto [lowerBound, where] = peakLowerBound(problem);
  (void)where;
  if (budgetBytes < lowerBound)
    return infeasibleBudget(graph, phases, costModel, problem, budgetBytes,
                            deadline, options.maxOps);

  // Re-evaluating only zero-cost ops is just as cheap; CBC can take long to
  // find such a schedule under a tight budget.
  Schedule zeroCost = zeroCostRematerialization(problem);
  dropUnreadEvaluations(graph, zeroCost);
  absl::StatusOr<SimulationResult> zeroCostSimulation =
      simulate(graph, phases, zeroCost, costModel);
  if (zeroCostSimulation.ok() && zeroCostSimulation->peakBytes <= budgetBytes &&
      !problem.backwardReadsNotSaved)
    return finish(graph, phases, costModel, problem, std::move(zeroCost),
                  budgetBytes, /*provenOptimal=*/true);
  if (problem.size() > options.maxOps)
    return absl::FailedPreconditionError(
        absl::StrFormat("%s (at most %d ops are accepted)",
                        tooLargeAdvice(problem), options.maxOps));
  if (absl::Status exact = checkExactUnits(problem); !exact.ok())
    return exact;

  Formulation formulation = formulate(problem, budgetBytes / problem.unitBytes,
                                      Objective::MinimiseTime);
  // A known schedule that fits bounds the search from above: CBC then only
  // looks for cheaper ones, and proves it optimal when there are none. One
  // the MILP cannot express is still the best plan found when CBC finds
  // nothing cheaper in time.
  std::optional<Schedule> known =
      options.incumbent ? options.incumbent() : std::nullopt;
  std::optional<double> incumbentUs, cutoff;
  if (known) {
    absl::StatusOr<SimulationResult> simulation =
        simulate(graph, phases, *known, costModel);
    if (simulation.ok() && simulation->peakBytes <= budgetBytes) {
      incumbentUs = simulation->totalTimeUs;
      cutoff = objectiveInClass(problem, formulation, *known);
    }
  }
  MilpOutcome outcome =
      solveMilp(problem, formulation, deadline.remainingSeconds(),
                options.progress, cutoff);
  auto bound = [&]() -> std::optional<double> {
    if (!outcome.boundObjective)
      return std::nullopt;
    return totalTimeOfObjective(problem, formulation, *outcome.boundObjective);
  };
  auto unproven = [&] {
    return absl::DeadlineExceededError(absl::StrFormat(
        "`optimal` could not prove a schedule optimal within %.3g s for a "
        "budget of %d bytes: %s, raise the time limit, or accept the best "
        "schedule found (OptimalOptions::acceptSuboptimal)",
        options.timeLimitSeconds, budgetBytes, tooLargeAdvice(problem)));
  };
  // CBC's bound holds for the MILP's class only: an incumbent outside it
  // may be cheaper than anything in it, and gets every op once as its bound.
  auto incumbent = [&](bool proven) {
    absl::StatusOr<OptimalSolution> result =
        finish(graph, phases, costModel, problem, *known, budgetBytes, proven,
               /*modelViolation=*/0, cutoff ? bound() : std::nullopt);
    if (result.ok())
      result->timedOut = !proven;
    return result;
  };
  if (cutoff && (outcome.kind == MilpOutcome::Kind::Infeasible ||
                 outcome.kind == MilpOutcome::Kind::NoSolutionInTime)) {
    // Nothing cheaper than the incumbent: none exists, or none was found.
    bool proven = outcome.kind == MilpOutcome::Kind::Infeasible;
    if (!proven && !options.acceptSuboptimal)
      return unproven();
    return incumbent(proven);
  }
  // An incumbent outside the MILP's class, and nothing from CBC in time:
  // the incumbent is the best plan found (if finish() cannot account for
  // it in the MILP's terms, the time-out stands).
  if (incumbentUs && !cutoff && options.acceptSuboptimal &&
      outcome.kind == MilpOutcome::Kind::NoSolutionInTime)
    if (absl::StatusOr<OptimalSolution> result = incumbent(false); result.ok())
      return result;
  switch (outcome.kind) {
  case MilpOutcome::Kind::Infeasible:
    return infeasibleBudget(graph, phases, costModel, problem, budgetBytes,
                            deadline, options.maxOps);
  case MilpOutcome::Kind::NoSolutionInTime:
    return absl::DeadlineExceededError(absl::StrFormat(
        "`optimal` found no schedule within %.3g s for a budget of %d bytes: "
        "%s, or raise the time limit (optimal-time-limit)",
        options.timeLimitSeconds, budgetBytes, tooLargeAdvice(problem)));
  case MilpOutcome::Kind::SolverFailed:
    return absl::InternalError(absl::StrFormat(
        "CBC stopped on a budget of %d bytes with neither a schedule nor a "
        "proof that none exists (%s); report this graph",
        budgetBytes, outcome.solverStatus));
  case MilpOutcome::Kind::Solved:
    break;
  }
  if (!outcome.provenOptimal && !options.acceptSuboptimal)
    return unproven();
  absl::StatusOr<OptimalSolution> result = finish(
      graph, phases, costModel, problem, std::move(outcome.schedule),
      budgetBytes, outcome.provenOptimal, outcome.modelViolation, bound());
  if (result.ok())
    result->timedOut = !outcome.provenOptimal;
  // Cut short, CBC's best may cost more than an incumbent it could not
  // take as its cutoff; and an incumbent outside the MILP's class (a
  // derivation, a replayed op that also produces a function result) may
  // cost less than the MILP's proven optimum, which then proves nothing
  // about it: the incumbent is the plan, unproven, with the every-op-once
  // bound.
  if (result.ok() && (result->timedOut || !cutoff) && incumbentUs &&
      *incumbentUs < result->totalCostUs) {
    const bool timedOut = result->timedOut;
    if (absl::StatusOr<OptimalSolution> better = incumbent(false);
        better.ok()) {
      better->timedOut = timedOut;
      return better;
    }
  }
  return result;
}

} // namespace remat
