//===- quality.cpp - Plan quality against baselines and the optimum -------===//
//
// Part of remat. `remat-bench-quality` plans the Checkmate benchmark graphs
// (VGG16, VGG19, MobileNet, ResNet50, random layered n100 and n250), the
// Llama and GPT layers and three small random joint graphs of the core tests
// at budgets given as fractions of the no-recompute peak, and prints one
// markdown table per graph: the recompute overhead and the solve time of
// `budget`, of `optimal` (under a time limit), of `recompute-all` and of
// sqrt(n) checkpointing (Chen et al. 2016).
//
// Everything is measured the way the Checkmate README states it, so the
// numbers compare with the published ones:
//   no-recompute peak  the simulated peak of every op in id order, nothing
//                      recomputed (the "topological peak");
//   budget B           ceil(fraction * no-recompute peak);
//   TDI                (total predicted time of the schedule, recomputations
//                      included, - total time of all ops) / total time of all
//                      ops; for the Checkmate graphs op times are `cost_cpu`.
// Every schedule, the baselines' included, is judged by the core simulator.
//
// Options:
//   --graphs=A,B,...          subset of the graph names above (default: all)
//   --fractions=0.9,0.8,...   budgets as fractions of the no-recompute peak
//   --optimal-time-limit=S    wall-clock limit of `optimal` per solve (10)
//   --skip-optimal            do not run `optimal`
//   --csv=PATH                also write every point (and a finer sweep of
//                             `budget` for the Pareto plot) as CSV
//   --data-dir=DIR            where the Checkmate JSON files are
//
//===----------------------------------------------------------------------===//

#include "TestGraphs.h"

#include "remat/Core/CheckmateImport.h"
#include "remat/Core/Planner.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace remat;

namespace {

struct Options {
  std::vector<std::string> graphs;
  std::vector<double> fractions = {0.9, 0.8, 0.7, 0.6, 0.5};
  double optimalTimeLimit = 10;
  bool runOptimal = true;
  std::string csvPath;
  std::string dataDir = REMAT_SHARED_DATA_DIR "/checkmate";
};

struct NamedGraph {
  std::string name;
  std::string file; // Checkmate JSON file, or empty for a built graph
};

const std::vector<NamedGraph> &allGraphs() {
  static const std::vector<NamedGraph> graphs = {
      {"VGG16", "VGG16_b256_224x224_train.json"},
      {"VGG19", "VGG19_b256_224x224_train.json"},
      {"MobileNet", "MobileNet_b512_224x224_train.json"},
      {"ResNet50", "ResNet50_b256_224x224_train.json"},
      {"random-n100", "random_layered_n100.json"},
      {"random-n250", "random_layered_n250.json"},
      {"llama-layer", ""},
      {"gpt-layer", ""},
      // Small seeded joint graphs of the core tests (random tags, random and
      // RNG ops, derivable adds) on which `optimal` finishes, so that the
      // gap of `budget` to the optimum is measured, not only bounded.
      {"random-joint-1", ""},
      {"random-joint-2", ""},
      {"random-joint-3", ""},
  };
  return graphs;
}

absl::StatusOr<Graph> loadGraph(const NamedGraph &named,
                                const Options &options) {
  if (named.name == "llama-layer")
    return test::buildLlamaLayer(); // s=1024, b=2, h=1024, 8 heads
  if (named.name == "gpt-layer")
    return test::buildMegatronLayer(test::LayerShape{1024, 2, 1024, 16});
  if (named.name.rfind("random-joint-", 0) == 0) {
    test::RandomGraphOptions random;
    random.numForwardOps = 24;
    return test::buildRandomJointGraph(
        std::stoull(named.name.substr(std::strlen("random-joint-"))), random);
  }
  std::string path = options.dataDir + "/" + named.file;
  std::ifstream file(path);
  if (!file)
    return absl::NotFoundError(
        "cannot read " + path +
        "; pass --data-dir=DIR pointing at the Checkmate JSON files "
        "(../shared/data/checkmate next to the repository)");
  std::stringstream text;
  text << file.rdbuf();
  return importCheckmateJson(text.str());
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// One strategy's result at one budget.
struct Point {
  enum class Status { Ok, Infeasible, TimedOut, TooLarge, Error };
  Status status = Status::Error;
  int64_t peakBytes = 0;
  double tdi = 0;
  double seconds = 0;
  std::string message;
  /// Its lower bound as a TDI, the optimality gap and the kind (`budget`'s
  /// LP; `optimal`'s MILP bound).
  std::optional<double> boundTdi;
  std::optional<double> gap;
  std::string boundKind;
  /// The solver behind the bound stopped at its limit; for `optimal`, a plan
  /// the time limit left unproven: the best found, with a gap to its bound.
  /// (With views charged conservatively a finished search also leaves a
  /// gap: its bound is every op once.)
  bool boundStopped = false;
  bool unproven() const { return boundStopped; }
};

/// The facts every measurement of one graph shares.
struct GraphContext {
  const Graph &graph;
  Classification phases;
  SimulationTables tables;
  int64_t noRecomputePeak = 0;
  double baseTimeUs = 0;
};

double tdiOf(const GraphContext &context, double totalTimeUs) {
  return (totalTimeUs - context.baseTimeUs) / context.baseTimeUs;
}

Point runPlanner(const GraphContext &context, Strategy strategy,
                 std::optional<int64_t> budgetBytes, double timeLimit) {
  PlanOptions options;
  options.strategy = strategy;
  if (budgetBytes)
    options.budget = MemoryBudget{MemoryBudget::Kind::Bytes, *budgetBytes, 0};
  if (strategy == Strategy::Optimal)
    options.optimalTimeLimitSeconds = timeLimit;
  Point point;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Plan> plan = planRematerialization(context.graph, options);
  point.seconds = secondsSince(start);
  if (!plan.ok()) {
    point.message = std::string(plan.status().message());
    switch (plan.status().code()) {
    case absl::StatusCode::kResourceExhausted:
      point.status = Point::Status::Infeasible;
      break;
    case absl::StatusCode::kDeadlineExceeded:
      point.status = Point::Status::TimedOut;
      break;
    case absl::StatusCode::kFailedPrecondition:
      point.status = Point::Status::TooLarge;
      break;
    default:
      point.status = Point::Status::Error;
    }
    return point;
  }
  point.status = Point::Status::Ok;
  point.peakBytes = plan->simulation.peakBytes;
  point.tdi = tdiOf(context, plan->simulation.totalTimeUs);
  if (budgetBytes && point.peakBytes > *budgetBytes) {
    point.status = Point::Status::Error;
    point.message = "plan peak exceeds the budget";
  }
  if (plan->lowerBound) {
    point.boundTdi = tdiOf(context, plan->lowerBound->timeUs);
    point.gap = plan->optimalityGap();
    point.boundKind = std::string(toString(plan->lowerBound->kind));
    point.boundStopped = plan->lowerBound->lpStopped;
    if (point.boundStopped)
      point.boundKind += ", stopped";
    if (plan->lowerBound->lpSkipped)
      point.boundKind += ", LP skipped";
    if (plan->lowerBound->timeUs > plan->simulation.totalTimeUs) {
      point.status = Point::Status::Error;
      point.message = "the lower bound exceeds the plan's time";
    }
  }
  return point;
}

/// Chen et al. 2016's sqrt(n) checkpointing, on a general DAG: the forward
/// ops (in id order) are cut into round(sqrt(n)) segments of equal length.
/// A segment keeps only its boundary values (those a later segment or the
/// function's results read); the rest are dropped after forward. In
/// backward, the first time an op reads a dropped value of a segment, the
/// ops of that segment that backward needs are replayed (from the kept
/// boundaries) just before it.
Point runSqrtCheckpointing(const GraphContext &context) {
  const Graph &graph = context.graph;
  auto start = std::chrono::steady_clock::now();
  std::vector<OpId> forwardOps, backwardOps;
  for (size_t op = 0; op < graph.numOps(); ++op)
    (context.phases.opPhase[op] == Phase::Forward ? forwardOps : backwardOps)
        .push_back(static_cast<OpId>(op));
  const size_t n = forwardOps.size();
  const size_t numSegments = std::max<size_t>(
      1, static_cast<size_t>(std::llround(std::sqrt(static_cast<double>(n)))));
  const size_t segmentLength = (n + numSegments - 1) / numSegments;
  std::vector<int32_t> segmentOfOp(graph.numOps(), -1);
  for (size_t i = 0; i < n; ++i)
    segmentOfOp[forwardOps[i]] = static_cast<int32_t>(i / segmentLength);
  auto segmentOfValue = [&](ValueId value) {
    OpId producer = graph.value(value).producer;
    return producer == kNoId ? -1 : segmentOfOp[producer];
  };

  std::vector<uint8_t> available(graph.numValues(), 0);
  for (size_t v = 0; v < graph.numValues(); ++v) {
    const GraphValue &value = graph.value(static_cast<ValueId>(v));
    if (value.producer == kNoId || value.outputRole != OutputRole::None)
      available[v] = 1;
  }
  for (OpId op : forwardOps)
    for (ValueId operand : graph.op(op).operands) {
      int32_t segment = segmentOfValue(operand);
      if (segment >= 0 && segment < segmentOfOp[op])
        available[operand] = 1; // a boundary: kept through backward
    }

  Schedule schedule;
  schedule.steps = forwardOps;
  schedule.backwardStart = n;
  std::vector<uint8_t> inReplay(graph.numOps(), 0);
  std::vector<OpId> replay, stack;
  for (OpId op : backwardOps) {
    for (ValueId operand : graph.op(op).operands) {
      int32_t segment = segmentOfValue(operand);
      if (segment < 0 || available[operand])
        continue;
      // Replay the ops of `segment` that the dropped values backward reads
      // need, in id order.
      replay.clear();
      stack.clear();
      for (OpId reader : backwardOps)
        for (ValueId read : graph.op(reader).operands)
          if (segmentOfValue(read) == segment && !available[read] &&
              !inReplay[graph.value(read).producer]) {
            inReplay[graph.value(read).producer] = 1;
            stack.push_back(graph.value(read).producer);
          }
      while (!stack.empty()) {
        OpId current = stack.back();
        stack.pop_back();
        replay.push_back(current);
        for (ValueId input : graph.op(current).operands)
          if (segmentOfValue(input) == segment && !available[input] &&
              !inReplay[graph.value(input).producer]) {
            inReplay[graph.value(input).producer] = 1;
            stack.push_back(graph.value(input).producer);
          }
      }
      std::sort(replay.begin(), replay.end());
      for (OpId replayed : replay) {
        schedule.steps.push_back(replayed);
        for (ValueId result : graph.op(replayed).results)
          available[result] = 1;
      }
    }
    schedule.steps.push_back(op);
  }
  absl::StatusOr<SimulationResult> simulation =
      simulate(graph, context.phases, schedule, context.tables);
  Point point;
  point.seconds = secondsSince(start);
  if (!simulation.ok()) {
    point.message = std::string(simulation.status().message());
    return point;
  }
  point.status = Point::Status::Ok;
  point.peakBytes = simulation->peakBytes;
  point.tdi = tdiOf(context, simulation->totalTimeUs);
  return point;
}

std::string formatPercent(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f%%", 100 * value);
  return text;
}

std::string formatSeconds(double seconds) {
  char text[32];
  if (seconds < 1)
    std::snprintf(text, sizeof(text), "%.1f ms", 1000 * seconds);
  else
    std::snprintf(text, sizeof(text), "%.2f s", seconds);
  return text;
}

std::string formatBytes(int64_t bytes) {
  std::string digits = std::to_string(bytes), grouped;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0)
      grouped += ',';
    grouped += digits[i];
  }
  return grouped;
}

/// The smallest feasible budget named by an infeasibility message of
/// `budget` ("... at least N bytes ...") or `optimal` ("... meets is N
/// bytes", "... below the minimum N bytes", or only a lower bound: "...
/// needs at least N bytes; the exact minimum was not found ...").
std::optional<int64_t> smallestFeasibleBudget(const std::string &message,
                                              bool &lowerBoundOnly) {
  lowerBoundOnly =
      message.find("exact minimum was not found") != std::string::npos;
  for (const char *marker : {"meets is ", "the minimum ", "at least "}) {
    size_t at = message.find(marker);
    if (at == std::string::npos)
      continue;
    size_t begin = at + std::strlen(marker);
    size_t end = message.find_first_not_of("0123456789", begin);
    int64_t bytes = 0;
    if (absl::SimpleAtoi(message.substr(begin, end - begin), &bytes))
      return bytes;
  }
  return std::nullopt;
}

/// A table cell for a budgeted strategy.
std::string budgetedCell(const Point &point, double timeLimit,
                         int64_t noRecomputePeak) {
  switch (point.status) {
  case Point::Status::Ok:
    if (timeLimit > 0 && point.unproven())
      return formatPercent(point.tdi) + " unproven, gap " +
             formatPercent(*point.gap) + " (" + formatSeconds(point.seconds) +
             ")";
    return formatPercent(point.tdi) + " (" + formatSeconds(point.seconds) + ")";
  case Point::Status::Infeasible: {
    std::string cell = "infeasible";
    bool lowerBoundOnly = false;
    if (std::optional<int64_t> smallest =
            smallestFeasibleBudget(point.message, lowerBoundOnly);
        smallest && noRecomputePeak > 0) {
      char text[48];
      std::snprintf(text, sizeof(text), ", min %s%.3f",
                    lowerBoundOnly ? ">= " : "",
                    static_cast<double>(*smallest) /
                        static_cast<double>(noRecomputePeak));
      cell += text;
    }
    return cell + " (" + formatSeconds(point.seconds) + ")";
  }
  case Point::Status::TimedOut: {
    char text[64];
    std::snprintf(text, sizeof(text), "no result in %.0f s", timeLimit);
    return text;
  }
  case Point::Status::TooLarge:
    return "too large";
  case Point::Status::Error:
    return "error: " + point.message;
  }
  return "?";
}

/// The lower bound and optimality gap `budget` reports with its plan.
std::string boundCell(const Point &point) {
  if (point.status != Point::Status::Ok || !point.boundTdi)
    return "-";
  std::string cell = formatPercent(*point.boundTdi);
  if (point.gap)
    cell += " / " + formatPercent(*point.gap);
  return cell + " (" + point.boundKind + ")";
}

/// A table cell for a fixed-memory baseline at one budget.
std::string baselineCell(const Point &point, int64_t budgetBytes,
                         int64_t noRecomputePeak) {
  if (point.status != Point::Status::Ok)
    return "error: " + point.message;
  char text[96];
  double peakFraction = static_cast<double>(point.peakBytes) /
                        static_cast<double>(noRecomputePeak);
  if (point.peakBytes > budgetBytes)
    std::snprintf(text, sizeof(text), "over budget (peak %.2f)", peakFraction);
  else
    std::snprintf(text, sizeof(text), "%s (peak %.2f)",
                  formatPercent(point.tdi).c_str(), peakFraction);
  return text;
}

void writeCsvRow(std::ofstream &csv, const std::string &graph, double fraction,
                 const char *strategy, int64_t budgetBytes, const Point &point,
                 const GraphContext &context) {
  if (!csv)
    return;
  static const char *const kStatus[] = {"ok", "infeasible", "timeout",
                                        "too-large", "error"};
  csv << graph << ',' << fraction << ',' << strategy << ',' << budgetBytes
      << ',' << point.peakBytes << ','
      << static_cast<double>(point.peakBytes) /
             static_cast<double>(context.noRecomputePeak)
      << ',' << point.tdi << ',' << point.seconds << ','
      << (std::strcmp(strategy, "optimal") == 0 && point.unproven()
              ? "unproven"
              : kStatus[static_cast<int>(point.status)])
      << '\n';
}

bool parseList(const char *text, std::vector<std::string> &out) {
  out = absl::StrSplit(text, ',', absl::SkipEmpty());
  return !out.empty();
}

bool parseOptions(int argc, char **argv, Options &options) {
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      size_t length = std::strlen(flag);
      return std::strncmp(arg, flag, length) == 0 ? arg + length : nullptr;
    };
    if (const char *text = value("--graphs=")) {
      if (!parseList(text, options.graphs))
        return false;
    } else if (const char *text = value("--fractions=")) {
      std::vector<std::string> items;
      if (!parseList(text, items))
        return false;
      options.fractions.clear();
      for (const std::string &item : items) {
        double fraction = 0;
        if (!absl::SimpleAtod(item, &fraction) || fraction <= 0)
          return false;
        options.fractions.push_back(fraction);
      }
    } else if (const char *text = value("--optimal-time-limit=")) {
      if (!absl::SimpleAtod(text, &options.optimalTimeLimit) ||
          options.optimalTimeLimit <= 0)
        return false;
    } else if (std::strcmp(arg, "--skip-optimal") == 0) {
      options.runOptimal = false;
    } else if (const char *text = value("--csv=")) {
      options.csvPath = text;
    } else if (const char *text = value("--data-dir=")) {
      options.dataDir = text;
    } else {
      std::fprintf(stderr, "remat-bench-quality: unknown argument '%s'\n", arg);
      return false;
    }
  }
  for (const std::string &name : options.graphs) {
    bool known = false;
    for (const NamedGraph &graph : allGraphs())
      known |= graph.name == name;
    if (!known) {
      std::fprintf(stderr, "remat-bench-quality: unknown graph '%s'\n",
                   name.c_str());
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, options)) {
    std::fprintf(
        stderr,
        "usage: remat-bench-quality [--graphs=A,B] [--fractions=0.9,0.8] "
        "[--optimal-time-limit=S] [--skip-optimal] [--csv=PATH] "
        "[--data-dir=DIR]\ngraphs: VGG16 VGG19 MobileNet ResNet50 "
        "random-n100 random-n250 llama-layer gpt-layer random-joint-1 "
        "random-joint-2 random-joint-3\n");
    return 2;
  }
  std::ofstream csv;
  if (!options.csvPath.empty()) {
    csv.open(options.csvPath);
    if (!csv) {
      std::fprintf(stderr, "remat-bench-quality: cannot write %s\n",
                   options.csvPath.c_str());
      return 1;
    }
    csv << "graph,fraction,strategy,budget_bytes,peak_bytes,peak_fraction,"
           "tdi,seconds,status\n";
  }
  // Budget-only points that make the Pareto curve smoother than the table.
  const std::vector<double> curveFractions = {0.95, 0.85, 0.75, 0.65, 0.55,
                                              0.45, 0.4,  0.35, 0.3};
  int failures = 0;
  double worstGap = -1;
  std::string worstGapAt = "none";
  int comparisons = 0;
  // Budgets `optimal` meets but `budget` reports infeasible: misses that the
  // gap alone does not show.
  int budgetInfeasibleOptimalFeasible = 0;
  for (const NamedGraph &named : allGraphs()) {
    if (!options.graphs.empty() &&
        std::find(options.graphs.begin(), options.graphs.end(), named.name) ==
            options.graphs.end())
      continue;
    absl::StatusOr<Graph> graph = loadGraph(named, options);
    if (!graph.ok()) {
      std::fprintf(stderr, "%s: %s\n", named.name.c_str(),
                   std::string(graph.status().message()).c_str());
      ++failures;
      continue;
    }
    absl::StatusOr<Classification> phases = classify(*graph);
    if (!phases.ok()) {
      std::fprintf(stderr, "%s: %s\n", named.name.c_str(),
                   std::string(phases.status().message()).c_str());
      ++failures;
      continue;
    }
    PlanOptions defaults;
    GraphContext context{
        *graph, *phases,
        buildSimulationTables(*graph, CostModel(defaults.target))};
    Schedule topological;
    for (size_t op = 0; op < graph->numOps(); ++op)
      topological.steps.push_back(static_cast<OpId>(op));
    absl::StatusOr<SimulationResult> noRecompute =
        simulate(*graph, *phases, topological, context.tables);
    if (!noRecompute.ok()) {
      std::fprintf(stderr, "%s: %s\n", named.name.c_str(),
                   std::string(noRecompute.status().message()).c_str());
      ++failures;
      continue;
    }
    context.noRecomputePeak = noRecompute->peakBytes;
    context.baseTimeUs = noRecompute->totalTimeUs;

    Point recomputeAll =
        runPlanner(context, Strategy::RecomputeAll, std::nullopt, 0);
    Point sqrtCheckpointing = runSqrtCheckpointing(context);
    std::printf("### %s\n\n%zu ops; no-recompute peak %s bytes; total op time "
                "%.6g us. recompute-all: peak %.2f, TDI %s, %s. sqrt(n): peak "
                "%.2f, TDI %s, %s.\n\n",
                named.name.c_str(), graph->numOps(),
                formatBytes(context.noRecomputePeak).c_str(),
                context.baseTimeUs,
                static_cast<double>(recomputeAll.peakBytes) /
                    static_cast<double>(context.noRecomputePeak),
                formatPercent(recomputeAll.tdi).c_str(),
                formatSeconds(recomputeAll.seconds).c_str(),
                static_cast<double>(sqrtCheckpointing.peakBytes) /
                    static_cast<double>(context.noRecomputePeak),
                formatPercent(sqrtCheckpointing.tdi).c_str(),
                formatSeconds(sqrtCheckpointing.seconds).c_str());
    std::printf("| fraction | budget B (bytes) | budget: TDI (time) | budget: "
                "bound TDI / gap | optimal: TDI (time) | gap to optimal | "
                "recompute-all | sqrt(n) |\n"
                "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    auto budgetFor = [&](double fraction) {
      return static_cast<int64_t>(
          std::ceil(fraction * static_cast<double>(context.noRecomputePeak)));
    };
    for (double fraction : options.fractions) {
      const int64_t budgetBytes = budgetFor(fraction);
      Point budget = runPlanner(context, Strategy::Budget, budgetBytes, 0);
      Point optimal;
      optimal.message = "skipped";
      if (options.runOptimal)
        optimal = runPlanner(context, Strategy::Optimal, budgetBytes,
                             options.optimalTimeLimit);
      std::string gap = "-";
      if (budget.status == Point::Status::Ok &&
          optimal.status == Point::Status::Ok && !optimal.unproven()) {
        // Relative overhead: the budget plan's total time over optimal's.
        double relative = (1 + budget.tdi) / (1 + optimal.tdi) - 1;
        gap = formatPercent(relative);
        ++comparisons;
        if (relative > worstGap) {
          worstGap = relative;
          char at[64];
          std::snprintf(at, sizeof(at), "%s at %.2f", named.name.c_str(),
                        fraction);
          worstGapAt = at;
        }
      }
      if (budget.status == Point::Status::Infeasible &&
          optimal.status == Point::Status::Ok)
        ++budgetInfeasibleOptimalFeasible;
      if (budget.status == Point::Status::Error ||
          optimal.status == Point::Status::Error) {
        if (options.runOptimal || budget.status == Point::Status::Error)
          ++failures;
      }
      std::printf(
          "| %.2f | %s | %s | %s | %s | %s | %s | %s |\n", fraction,
          formatBytes(budgetBytes).c_str(),
          budgetedCell(budget, 0, context.noRecomputePeak).c_str(),
          boundCell(budget).c_str(),
          options.runOptimal ? budgetedCell(optimal, options.optimalTimeLimit,
                                            context.noRecomputePeak)
                                   .c_str()
                             : "not run",
          gap.c_str(),
          baselineCell(recomputeAll, budgetBytes, context.noRecomputePeak)
              .c_str(),
          baselineCell(sqrtCheckpointing, budgetBytes, context.noRecomputePeak)
              .c_str());
      writeCsvRow(csv, named.name, fraction, "budget", budgetBytes, budget,
                  context);
      if (options.runOptimal)
        writeCsvRow(csv, named.name, fraction, "optimal", budgetBytes, optimal,
                    context);
    }
    std::printf("\n");
    if (csv) {
      for (double fraction : curveFractions) {
        const int64_t budgetBytes = budgetFor(fraction);
        writeCsvRow(csv, named.name, fraction, "budget", budgetBytes,
                    runPlanner(context, Strategy::Budget, budgetBytes, 0),
                    context);
      }
      writeCsvRow(csv, named.name, 0, "recompute-all", 0, recomputeAll,
                  context);
      writeCsvRow(csv, named.name, 0, "sqrt-n", 0, sqrtCheckpointing, context);
    }
    std::fflush(stdout);
  }
  if (options.runOptimal)
    std::printf("Worst gap of budget to optimal over %d budgets where both "
                "finished: %s (%s).\n",
                comparisons, formatPercent(std::max(worstGap, 0.0)).c_str(),
                worstGapAt.c_str());
  if (options.runOptimal)
    std::printf("Budgets optimal meets but budget reports infeasible: %d.\n",
                budgetInfeasibleOptimalFeasible);
  return failures == 0 ? 0 : 1;
}
