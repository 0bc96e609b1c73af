//===- PlannerBenchmark.cpp - Planner speed on model-sized graphs ---------===//
//
// Part of remat. Times `planRematerialization` for every automatic strategy
// on Llama-style joint graphs (1, 8, 32 layers at Llama-2-7B dimensions, 80
// at Llama-2-70B) and on random layered DAGs of 10k, 100k and 1M ops. Each
// run reports, besides the time:
//   ops      the graph's op count,
//   nodes/s  ops planned per second (a rate),
//   s/node   its inverse, to show whether the cost per node stays flat,
//   peak_rss the process's peak resident set while that benchmark ran
//            (VmHWM, reset through /proc/self/clear_refs before it), which
//            includes the graph itself,
//   cold_s/node  CPU time per op of the first plan of the benchmark, made
//            right after the heap gave its free pages back to the kernel
//            (malloc_trim): what a process planning once pays, page faults
//            for fresh memory included.
// The timed plans run in steady state: the process keeps freed memory in
// its heap (mallopt, below), as the caching allocators compilers link do,
// so that every graph size is timed alike. With glibc's defaults, blocks of
// 32 MiB and more are mapped and unmapped per plan, so only the 1M-op plans
// paid a fresh page fault (~1.5 us here) per 4 KiB they touch; `cold_s/node`
// shows that cost for every size.
// Graphs are built outside the timed loop, one at a time.
//
// `remat-bench-planner --graph-stats` prints op/value/edge counts per graph
// instead of timing; `--plan-digests` prints, per graph and strategy, the
// size and a hash of the plan's text form (`toText`), so that a speed change
// can show that it left every plan byte-identical (compare the output of two
// builds).
//
//===----------------------------------------------------------------------===//

#include "BenchGraphs.h"

#include "remat/Core/Planner.h"

#include "benchmark/benchmark.h"

#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace remat;

namespace {

struct GraphSpec {
  std::string name;
  std::function<Graph()> build;
  /// Graphs that take seconds to plan run one iteration per repetition.
  bool large = false;
};

std::vector<GraphSpec> graphSpecs() {
  std::vector<GraphSpec> specs;
  for (int layers : {1, 8, 32})
    specs.push_back({"llama7b-" + std::to_string(layers) + "L", [layers] {
                       return bench::buildLlamaStack(bench::llama2_7b(layers));
                     }});
  specs.push_back({"llama70b-80L", [] {
                     return bench::buildLlamaStack(bench::llama2_70b(80));
                   }});
  for (int64_t ops : {int64_t(10000), int64_t(100000), int64_t(1000000)}) {
    std::string label = ops >= 1000000 ? std::to_string(ops / 1000000) + "M"
                                       : std::to_string(ops / 1000) + "k";
    specs.push_back({"dag-" + label,
                     [ops] {
                       bench::RandomDagOptions options;
                       options.numOps = ops;
                       return bench::buildRandomLayeredDag(options);
                     },
                     ops >= 1000000});
  }
  return specs;
}

/// Keeps only the graph being benchmarked alive, so that the peak RSS of one
/// benchmark does not include the graphs of the others.
const Graph &graphFor(const GraphSpec &spec) {
  static std::string currentName;
  static std::unique_ptr<Graph> current;
  if (!current || currentName != spec.name) {
    current.reset();
    current = std::make_unique<Graph>(spec.build());
    currentName = spec.name;
  }
  return *current;
}

/// Resets the kernel's peak-RSS mark for this process (Linux >= 4.0).
void resetPeakRss() {
  std::ofstream clearRefs("/proc/self/clear_refs");
  clearRefs << "5";
}

/// CPU time of this process, in seconds.
double cpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * now.tv_nsec;
}

/// VmHWM in bytes, or 0 when /proc is unavailable.
double peakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stod(line.substr(6)) * 1024.0; // reported in kB
  return 0;
}

void planBenchmark(benchmark::State &state, const GraphSpec &spec,
                   Strategy strategy) {
  const Graph &graph = graphFor(spec);
  PlanOptions options;
  options.strategy = strategy;
  if (strategy == Strategy::Budget) {
    // Halfway between the recompute-all and save-all peaks.
    options.budget = MemoryBudget{MemoryBudget::Kind::Fraction, 0, 0.5};
  }
  // The cold plan: after the heap is trimmed, and counted in the peak RSS.
  malloc_trim(0);
  resetPeakRss();
  const double coldStart = cpuSeconds();
  double planPeak = 0, recomputeUs = 0;
  {
    absl::StatusOr<Plan> plan = planRematerialization(graph, options);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    planPeak = static_cast<double>(plan->simulation.peakBytes);
    recomputeUs = plan->simulation.recomputeTimeUs;
  }
  const double coldSeconds = cpuSeconds() - coldStart;
  for (auto _ : state) {
    absl::StatusOr<Plan> plan = planRematerialization(graph, options);
    if (!plan.ok()) {
      state.SkipWithError(std::string(plan.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(plan->simulation.peakBytes);
  }
  const double ops = static_cast<double>(graph.numOps());
  state.counters["ops"] = ops;
  state.counters["nodes/s"] =
      benchmark::Counter(ops, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["s/node"] =
      benchmark::Counter(ops, benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
  state.counters["cold_s/node"] = coldSeconds / ops;
  // What was planned, so that a speed change can be told from a plan change.
  state.counters["plan_peak"] = benchmark::Counter(
      planPeak, benchmark::Counter::kDefaults, benchmark::Counter::kIs1024);
  state.counters["recompute_us"] = recomputeUs;
  state.counters["peak_rss"] =
      benchmark::Counter(peakRssBytes(), benchmark::Counter::kDefaults,
                         benchmark::Counter::kIs1024);
}

int printGraphStats() {
  std::printf("| graph | ops | values | edges (operands) | forward ops |\n"
              "| --- | ---: | ---: | ---: | ---: |\n");
  for (const GraphSpec &spec : graphSpecs()) {
    Graph graph = spec.build();
    int64_t edges = 0;
    for (const GraphOp &op : graph.ops())
      edges += static_cast<int64_t>(op.operands.size());
    absl::StatusOr<Classification> phases = classify(graph);
    if (!phases.ok()) {
      std::fprintf(stderr, "%s: %s\n", spec.name.c_str(),
                   std::string(phases.status().message()).c_str());
      return 1;
    }
    int64_t forward = 0;
    for (Phase phase : phases->opPhase)
      forward += phase == Phase::Forward;
    std::printf("| %s | %zu | %zu | %lld | %lld |\n", spec.name.c_str(),
                graph.numOps(), graph.numValues(),
                static_cast<long long>(edges), static_cast<long long>(forward));
  }
  return 0;
}

/// 64-bit FNV-1a: stable across builds and machines, unlike std::hash.
uint64_t fnv1a(const std::string &text) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

int printPlanDigests() {
  const Strategy strategies[] = {Strategy::SaveAll, Strategy::RecomputeAll,
                                 Strategy::MinCut, Strategy::Budget};
  for (const GraphSpec &spec : graphSpecs()) {
    Graph graph = spec.build();
    for (Strategy strategy : strategies) {
      PlanOptions options;
      options.strategy = strategy;
      if (strategy == Strategy::Budget)
        options.budget = MemoryBudget{MemoryBudget::Kind::Fraction, 0, 0.5};
      absl::StatusOr<Plan> plan = planRematerialization(graph, options);
      std::string text = plan.ok() ? toText(*plan, graph)
                                   : "error: " + plan.status().ToString();
      std::printf("%s/%s bytes=%zu fnv1a=%016llx\n", spec.name.c_str(),
                  std::string(remat::toString(strategy)).c_str(), text.size(),
                  static_cast<unsigned long long>(fnv1a(text)));
    }
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--graph-stats") == 0)
      return printGraphStats();
    if (std::strcmp(argv[i], "--plan-digests") == 0)
      return printPlanDigests();
  }

  // Steady state (see the top of this file): freed memory stays in the
  // heap, however large the block.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  static const std::vector<GraphSpec> specs = graphSpecs();
  const Strategy strategies[] = {Strategy::SaveAll, Strategy::RecomputeAll,
                                 Strategy::MinCut, Strategy::Budget};
  for (const GraphSpec &spec : specs) {
    for (Strategy strategy : strategies) {
      std::string name =
          spec.name + "/" + std::string(remat::toString(strategy));
      auto *registered = benchmark::RegisterBenchmark(
          name.c_str(), [&spec, strategy](benchmark::State &state) {
            planBenchmark(state, spec, strategy);
          });
      registered->Unit(benchmark::kMillisecond)->UseRealTime();
      if (spec.large)
        registered->Iterations(1)->Repetitions(3);
      else
        registered->Repetitions(5)->MinTime(0.2);
      registered->ReportAggregatesOnly(true);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
