//===- Planner.cpp - Save / recompute / derive planning -------------------===//
//
// Part of remat. Option parsing, the strategy dispatch, the `optimal`
// strategy (its schedule becomes a plan in ScheduleDecisions.cpp), and the
// text form of a plan.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Planner.h"
#include "remat/Core/Optimal.h"

#include "BudgetError.h"
#include "PlannerInternal.h"
#include "StringUtil.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>

namespace remat {

namespace {
constexpr std::array<std::pair<Strategy, std::string_view>, 5> kStrategyNames =
    {{
        {Strategy::SaveAll, "save-all"},
        {Strategy::RecomputeAll, "recompute-all"},
        {Strategy::MinCut, "min-cut"},
        {Strategy::Budget, "budget"},
        {Strategy::Optimal, "optimal"},
    }};
} // namespace

std::string_view toString(Strategy strategy) {
  for (const auto &[value, name] : kStrategyNames)
    if (value == strategy)
      return name;
  return "?";
}

absl::StatusOr<Strategy> parseStrategy(std::string_view text) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(asAbsl(text));
  for (const auto &[value, name] : kStrategyNames)
    if (name == asStd(trimmed))
      return value;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown strategy '", asAbsl(text),
                   "'; valid strategies: save-all, recompute-all, min-cut, "
                   "budget, optimal"));
}

std::string_view toString(Decision decision) {
  switch (decision) {
  case Decision::Save:
    return "save";
  case Decision::Recompute:
    return "recompute";
  case Decision::Derive:
    return "derive";
  case Decision::NotNeeded:
    return "not-needed";
  case Decision::Input:
    return "input";
  }
  return "?";
}

namespace {

/// A budget without its `total:` / `activations:` prefix: bytes or a
/// fraction, `total` unset. `written` is what the user wrote, for errors.
absl::StatusOr<MemoryBudget> parseBudgetValue(absl::string_view trimmed,
                                              absl::string_view written) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "memory budget '", written, "': ", asAbsl(why),
        "; write bytes, which bound the total peak (\"8GiB\", \"total:8GiB\"), "
        "\"activations:\" and bytes for the activation peak alone "
        "(\"activations:512MiB\"), a fraction of the activation peak between "
        "recompute-all and save-all (\"0.5\"), or of the save-all activation "
        "peak (\"0.8peak\")"));
  };
  if (trimmed.empty())
    return bad("empty");
  if (absl::StartsWith(trimmed, "total:") ||
      absl::StartsWith(trimmed, "activations:"))
    return bad("'activations:' and 'total:' are two different bounds");
  MemoryBudget budget;
  if (absl::ConsumeSuffix(&trimmed, "peak")) {
    double fraction = 0;
    if (!absl::SimpleAtod(absl::StripAsciiWhitespace(trimmed), &fraction) ||
        !std::isfinite(fraction) || fraction <= 0)
      return bad("the fraction before 'peak' must be a positive number");
    budget.kind = MemoryBudget::Kind::FractionOfPeak;
    budget.fraction = fraction;
    return budget;
  }
  struct Unit {
    absl::string_view suffix;
    int64_t multiplier;
  };
  static constexpr std::array<Unit, 9> kUnits = {{
      {"KiB", int64_t(1) << 10},
      {"MiB", int64_t(1) << 20},
      {"GiB", int64_t(1) << 30},
      {"TiB", int64_t(1) << 40},
      {"KB", 1000},
      {"MB", 1000000},
      {"GB", 1000000000},
      {"TB", 1000000000000},
      {"B", 1},
  }};
  for (const Unit &unit : kUnits) {
    absl::string_view number = trimmed;
    if (!absl::ConsumeSuffix(&number, unit.suffix))
      continue;
    double amount = 0;
    number = absl::StripAsciiWhitespace(number);
    // "5KIB" ends in "B" but its unit is "KIB": name the units rather than
    // call "5KI" not a number.
    if (!number.empty() && absl::ascii_isalpha(number.back()))
      return bad("unknown unit; the units are KiB, MiB, GiB, TiB (powers of "
                 "1024), KB, MB, GB, TB (powers of 1000) and B, spelled so");
    if (!absl::SimpleAtod(number, &amount) || !std::isfinite(amount) ||
        amount < 0)
      return bad(absl::StrCat("'", number, "' is not a non-negative number"));
    double bytes = amount * static_cast<double>(unit.multiplier);
    if (bytes >= 9.2e18)
      return bad("too large");
    budget.kind = MemoryBudget::Kind::Bytes;
    budget.bytes = static_cast<int64_t>(std::llround(bytes));
    return budget;
  }
  if (trimmed.find_first_of(".eE") == absl::string_view::npos) {
    int64_t bytes = 0;
    if (!absl::SimpleAtoi(trimmed, &bytes) || bytes < 0)
      return bad(!trimmed.empty() && std::all_of(trimmed.begin(), trimmed.end(),
                                                 absl::ascii_isdigit)
                     ? "too large"
                     : "not a non-negative integer number of bytes");
    budget.kind = MemoryBudget::Kind::Bytes;
    budget.bytes = bytes;
    return budget;
  }
  double fraction = 0;
  if (!absl::SimpleAtod(trimmed, &fraction) || !std::isfinite(fraction))
    return bad("not a number");
  if (fraction < 0 || fraction > 1)
    return bad("a fraction must lie in [0, 1] (for bytes write an integer "
               "or add a unit)");
  budget.kind = MemoryBudget::Kind::Fraction;
  budget.fraction = fraction;
  return budget;
}

} // namespace

absl::StatusOr<MemoryBudget> parseMemoryBudget(std::string_view text) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(asAbsl(text));
  const absl::string_view written = trimmed;
  const bool total = absl::ConsumePrefix(&trimmed, "total:");
  const bool activations = !total && absl::ConsumePrefix(&trimmed, "activations:");
  absl::StatusOr<MemoryBudget> budget =
      parseBudgetValue(absl::StripAsciiWhitespace(trimmed), written);
  if (!budget.ok())
    return budget.status();
  if (budget->kind != MemoryBudget::Kind::Bytes) {
    if (total)
      return absl::InvalidArgumentError(absl::StrCat(
          "memory budget '", written,
          "': 'total:' takes bytes (\"total:8GiB\"): the total peak has no "
          "fraction"));
    return budget;
  }
  // Bytes bound the total peak unless they say `activations:` (#16 item 2).
  budget->total = !activations;
  return budget;
}

absl::StatusOr<double> parseExchangeRate(std::string_view text) {
  absl::string_view trimmed = absl::StripAsciiWhitespace(asAbsl(text));
  absl::ConsumeSuffix(&trimmed, "/us");
  trimmed = absl::StripAsciiWhitespace(trimmed);
  if (double number = 0; absl::SimpleAtod(trimmed, &number)) {
    if (number >= 0 && std::isfinite(number))
      return number;
  } else if (absl::StatusOr<MemoryBudget> bytes =
                 parseMemoryBudget(asStd(trimmed));
             bytes.ok() && bytes->kind == MemoryBudget::Kind::Bytes &&
             !absl::StartsWith(trimmed, "total:") &&
             !absl::StartsWith(trimmed, "activations:")) {
    return static_cast<double>(bytes->bytes);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "'", asAbsl(text),
      "' is not an exchange rate: give the bytes one microsecond of "
      "recompute time is worth, a non-negative number such as 300000, "
      "2.5e5, 256KiB or 1MB/us (0 weighs saved bytes alone)"));
}

std::string toString(const MemoryBudget &budget) {
  switch (budget.kind) {
  case MemoryBudget::Kind::Bytes:
    return absl::StrCat(budget.total ? "total:" : "activations:",
                        budget.bytes);
  case MemoryBudget::Kind::Fraction:
    return absl::StrFormat("%g", budget.fraction);
  case MemoryBudget::Kind::FractionOfPeak:
    return absl::StrFormat("%gpeak", budget.fraction);
  }
  return "?";
}

PlanOptions::PlanOptions() {
  absl::StatusOr<TargetSpec> preset = getTargetPreset("h100");
  if (preset.ok())
    target = *preset;
}

namespace detail {

ProgressReporter::ProgressReporter(const PlanOptions &options)
    : options_(options), start_(std::chrono::steady_clock::now()),
      last_(start_) {
  state_.strategy = options.strategy;
  if (options.budget && options.budget->kind == MemoryBudget::Kind::Bytes)
    state_.budgetBytes = options.budget->bytes;
}

void ProgressReporter::setStage(std::string_view stage) {
  state_.stage = stage;
}

void ProgressReporter::candidate(int64_t peakBytes, double recomputeTimeUs) {
  if (!options_.progress)
    return;
  ++state_.explored;
  bool within = state_.budgetBytes && peakBytes <= *state_.budgetBytes;
  // The same order planBudget chooses by: least recompute time within the
  // budget, then lower peak; while nothing fits, the lowest peak.
  bool better;
  if (within)
    better = !state_.bestWithinBudget ||
             recomputeTimeUs < *state_.bestRecomputeTimeUs ||
             (recomputeTimeUs == *state_.bestRecomputeTimeUs &&
              peakBytes < *state_.bestPeakBytes);
  else
    better = !state_.bestWithinBudget &&
             (!state_.bestPeakBytes || peakBytes < *state_.bestPeakBytes ||
              (peakBytes == *state_.bestPeakBytes &&
               recomputeTimeUs < *state_.bestRecomputeTimeUs));
  if (better) {
    state_.bestPeakBytes = peakBytes;
    state_.bestRecomputeTimeUs = recomputeTimeUs;
    state_.bestWithinBudget = within;
  }
  maybeReport();
}

void ProgressReporter::step() {
  if (options_.progress)
    maybeReport();
}

void ProgressReporter::setBudget(int64_t bytes) {
  if (!options_.progress || state_.budgetBytes == bytes)
    return;
  state_.budgetBytes = bytes;
  // Candidates seen so far were judged without it.
  state_.bestWithinBudget =
      state_.bestPeakBytes && *state_.bestPeakBytes <= bytes;
}

void ProgressReporter::solver(int64_t nodes,
                              std::optional<double> bestRecomputeTimeUs,
                              std::optional<double> recomputeTimeBoundUs) {
  if (!options_.progress)
    return;
  state_.stage = "solving the MILP";
  state_.explored = nodes;
  state_.bestPeakBytes.reset();
  state_.bestRecomputeTimeUs = bestRecomputeTimeUs;
  state_.bestWithinBudget = bestRecomputeTimeUs.has_value();
  state_.recomputeTimeBoundUs = recomputeTimeBoundUs;
  maybeReport();
}

void ProgressReporter::maybeReport() {
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - last_).count() <
      options_.progressIntervalSeconds)
    return;
  last_ = now;
  state_.elapsedSeconds = std::chrono::duration<double>(now - start_).count();
  options_.progress(state_);
}

} // namespace detail

std::string_view toString(TimeLowerBound::Kind kind) {
  switch (kind) {
  case TimeLowerBound::Kind::EvaluateOnce:
    return "evaluate-once";
  case TimeLowerBound::Kind::BackwardLp:
    return "backward-lp";
  case TimeLowerBound::Kind::Milp:
    return "milp";
  }
  return "evaluate-once";
}

std::optional<double> Plan::optimalityGap() const {
  if (!lowerBound || !(lowerBound->timeUs > 0))
    return std::nullopt;
  return (simulation.totalTimeUs - lowerBound->timeUs) / lowerBound->timeUs;
}

const ValueDecision *Plan::find(ValueId value) const {
  auto it = std::lower_bound(decisions.begin(), decisions.end(), value,
                             [](const ValueDecision &decision, ValueId id) {
                               return decision.value < id;
                             });
  if (it == decisions.end() || it->value != value)
    return nullptr;
  return &*it;
}

std::string toText(const Plan &plan, const Graph &graph) {
  std::string text = absl::StrFormat(
      "plan strategy=%s target=%s budget=%s peak=%d saved=%d total_us=%.9g "
      "recompute_us=%.9g recomputed_evaluations=%d derivations=%d "
      "inexact=%d\n",
      asAbsl(toString(plan.strategy)), plan.targetName,
      plan.budgetBytes ? absl::StrCat(*plan.budgetBytes) : std::string("-"),
      plan.simulation.peakBytes, plan.simulation.savedBytes,
      plan.simulation.totalTimeUs, plan.simulation.recomputeTimeUs,
      plan.simulation.numRecomputedEvaluations, plan.simulation.numDerivations,
      plan.usesInexactDerivation ? 1 : 0);
  if (plan.preferencesDropped) {
    text.pop_back();
    text += " preferences_dropped=1\n";
  }
  if (plan.bansLifted) {
    text.pop_back();
    text += " bans_lifted=1\n";
  }
  if (plan.exchangeRateBytesPerUs > 0) {
    text.pop_back();
    absl::StrAppendFormat(&text, " exchange_rate=%.9g\n",
                          plan.exchangeRateBytesPerUs);
  }
  for (const ValueDecision &decision : plan.decisions) {
    absl::StrAppend(&text, "%", decision.value, " ");
    detail::appendDisplayName(text, graph, decision.value);
    absl::StrAppend(&text, " ", asAbsl(toString(decision.decision)), ": ",
                    asAbsl(plan.reason(decision)));
    if (absl::Span<const OpId> chain = plan.recomputeChain(decision);
        !chain.empty())
      absl::StrAppend(&text, " [replays ops ", absl::StrJoin(chain, ","),
                      "]");
    if (decision.derivation)
      absl::StrAppend(&text, " [via op ", decision.derivation->viaOp, " ",
                      asAbsl(toString(decision.derivation->rule.kind)),
                      " from ", absl::StrJoin(decision.derivation->from, ","),
                      "]");
    absl::StrAppend(&text, "\n");
  }
  absl::StrAppend(&text, "schedule ", absl::StrJoin(plan.schedule.steps, ","),
                  "\n");
  for (const DerivationStep &step : plan.schedule.derivations)
    absl::StrAppend(&text, "derive %", step.value, " before step ",
                    step.beforeStep, " from ", absl::StrJoin(step.reads, ","),
                    "\n");
  return text;
}

namespace {

using namespace detail;

/// The plan of a `budget` result: its refined schedule, or its materialised
/// keep set.
absl::StatusOr<Plan> budgetPlan(const PlanContext &context,
                                const StrategyResult &result) {
  return result.schedule ? planFromBudgetSchedule(context, result)
                         : materializePlan(context, result);
}

/// Decisions of an `optimal` schedule: a forward value backward reads is
/// derived if the schedule derives it (`candidates`: what the MILP chose
/// from), else recomputed if its producer is re-evaluated in backward
/// before that read, else saved.
absl::StatusOr<Plan>
planFromOptimal(const PlanContext &context, OptimalSolution solution,
                int64_t budgetBytes,
                const std::vector<DerivationChoice> &candidates) {
  absl::StatusOr<SimulationResult> simulation =
      simulateFlat(context.graph, context.flat, context.phases,
                   solution.schedule, context.tables);
  if (!simulation.ok())
    return absl::InternalError(
        absl::StrCat("the optimal schedule does not simulate: ",
                     simulation.status().message()));
  StrategyResult result;
  result.budgetBytes = budgetBytes;
  // A derivation weighed in the MILP against holding and replaying the
  // value: its reason gives the bytes a save would hold and its own time.
  // (A `budget` incumbent's derivations are among the candidates too: the
  // same rules and tags.) The plan records one rule per value, which
  // remat-partition emits for every derivation of it.
  for (const DerivationStep &step : solution.schedule.derivations) {
    auto same = [&](const DerivationChoice &choice) {
      return choice.value == step.value && choice.derivation.from == step.reads;
    };
    auto recorded =
        std::find_if(result.derivations.begin(), result.derivations.end(),
                     [&](const DerivationChoice &choice) {
                       return choice.value == step.value;
                     });
    auto candidate = std::find_if(candidates.begin(), candidates.end(), same);
    if (recorded != result.derivations.end() && same(*recorded))
      continue;
    if (recorded != result.derivations.end() || candidate == candidates.end())
      return absl::InternalError(absl::StrCat(
          "the optimal schedule derives value ", step.value,
          " through a rule the planner did not offer, or through two rules "
          "(a planner bug; please report it with the graph)"));
    DerivationChoice choice = *candidate;
    choice.replacedSaveBytes = context.tables.valueBytes[step.value];
    result.derivations.push_back(std::move(choice));
  }
  return planFromSchedule(context, result, std::move(solution.schedule),
                          *simulation, ChainAttribution::LastEvaluation);
}

absl::StatusOr<Plan> planOptimal(const PlanContext &context) {
  const PlanOptions &options = context.options;
  if (!options.budget)
    return absl::InvalidArgumentError(
        "strategy optimal needs a memory budget (bytes, \"0.5\" or "
        "\"0.8peak\")");
  int64_t budgetBytes = options.budget->bytes;
  if (options.budget->kind != MemoryBudget::Kind::Bytes) {
    absl::StatusOr<BudgetAnchors> anchors = computeBudgetAnchors(context);
    if (!anchors.ok())
      return anchors.status();
    budgetBytes = resolveBudget(*options.budget, *anchors);
  }
  context.progress.setBudget(budgetBytes);
  OptimalOptions optimalOptions;
  optimalOptions.timeLimitSeconds = options.optimalTimeLimitSeconds;
  // When the limit strikes, the best schedule found, with its bound (the
  // report's optimality gap says how far from proven it is).
  optimalOptions.acceptSuboptimal = true;
  if (options.progress)
    optimalOptions.progress = [&](const OptimalProgress &progress) {
      context.progress.solver(progress.nodes, progress.bestRecomputeTimeUs,
                              progress.recomputeTimeBoundUs);
    };
  const Graph &graph = context.graph;
  optimalOptions.recomputable.assign(graph.numOps(), true);
  for (size_t opIndex = 0; opIndex < graph.numOps(); ++opIndex) {
    const GraphOp &op = graph.op(static_cast<OpId>(opIndex));
    bool recomputable = !op.tags.neverRecompute;
    for (ValueId result : op.results)
      if (context.constraints.isForward[result] &&
          !context.constraints.recomputable(result, /*automatic=*/true))
        recomputable = false;
    optimalOptions.recomputable[opIndex] = recomputable;
  }
  // must_recompute and a policy's "recompute" are kept out of the saved
  // set as in every strategy; where a hard save keeps the op from
  // repeating (a policy that also saves another of its results), the save
  // wins, as never_recompute wins over a policy. prefer_recompute is a
  // preference `optimal` does not weigh (docs/Optimal.md).
  optimalOptions.notSaved.assign(graph.numValues(), false);
  for (ValueId value : context.phases.forwardValues) {
    const UserChoice choice = context.constraints.user[value];
    const OpId producer = graph.value(value).producer;
    optimalOptions.notSaved[value] = (choice == UserChoice::MustRecompute ||
                                      choice == UserChoice::PolicyRecompute) &&
                                     producer != kNoId &&
                                     optimalOptions.recomputable[producer];
  }
  // The `budget` strategy's plan, when it has one, is where CBC starts: it
  // then searches for cheaper schedules only (the GPT dropout example at
  // 0.5: ~25 s to find an optimum the budget plan already has, without).
  // Both resolve a fractional budget through the same anchors. The budget
  // search's own progress (its candidates) is not the solver's: it is quiet.
  // solveOptimal asks for it only when the MILP runs, within its limit.
  PlanOptions seedOptions = options;
  seedOptions.progress = nullptr;
  optimalOptions.incumbent = [&]() -> std::optional<Schedule> {
    ProgressReporter quiet(seedOptions);
    PlanContext seedContext{
        graph,       context.flat,      context.phases, context.constraints,
        seedOptions, context.costModel, context.tables, quiet};
    absl::StatusOr<StrategyResult> seed = planBudget(seedContext);
    if (!seed.ok())
      return std::nullopt;
    absl::StatusOr<Plan> plan = budgetPlan(seedContext, *seed);
    if (!plan.ok())
      return std::nullopt;
    return std::move(plan->schedule);
  };
  // Save, replay and derive compete in the MILP (docs/Optimal.md).
  const std::vector<DerivationChoice> derivations =
      derivationCandidates(context);
  for (const DerivationChoice &candidate : derivations)
    optimalOptions.derivations.push_back(
        {candidate.value, candidate.derivation.from, candidate.costUs,
         derivationElements(context, candidate.value)});
  absl::StatusOr<OptimalSolution> solution = solveOptimal(
      graph, context.phases, budgetBytes, context.costModel, optimalOptions);
  if (!solution.ok())
    return solution.status();
  TimeLowerBound bound;
  bound.kind = solution->lowerBoundFromSolver
                   ? TimeLowerBound::Kind::Milp
                   : TimeLowerBound::Kind::EvaluateOnce;
  bound.timeUs = solution->lowerBoundUs;
  bound.lpStopped = solution->timedOut && !solution->provenOptimal;
  absl::StatusOr<Plan> plan =
      planFromOptimal(context, std::move(*solution), budgetBytes, derivations);
  if (plan.ok())
    plan->lowerBound = bound;
  return plan;
}

/// `options` with a total budget turned into the activation budget it
/// leaves once the graph's inputs, parameters and tangents are held (the
/// bytes the simulator reports beside the activation peak), 0 if they alone
/// exceed it (the strategy then says how low the activations can go);
/// `resident` gets those bytes.
PlanOptions withActivationBudget(const PlanOptions &options,
                                 const FlatGraph &flat,
                                 const SimulationTables &tables,
                                 int64_t &resident) {
  resident = 0;
  if (!options.budget || !options.budget->total)
    return options;
  for (size_t id = 0; id < flat.numValues(); ++id) {
    int8_t role = flat.inputRole[id];
    if (role == FlatGraph::kNotInput ||
        role == static_cast<int8_t>(InputRole::RngState))
      continue;
    int64_t bytes = tables.valueBytes[id];
    resident = bytes > std::numeric_limits<int64_t>::max() - resident
                   ? std::numeric_limits<int64_t>::max()
                   : resident + bytes;
  }
  const int64_t total = options.budget->bytes;
  PlanOptions resolved = options;
  resolved.budget->bytes = std::max<int64_t>(0, total - resident);
  resolved.budget->total = false;
  return resolved;
}


} // namespace

namespace detail {
/// The plan of a `budget` result (its refined schedule, or its materialised
/// keep set) with the lower bound of its schedule class within its budget,
/// computed with the constraints of `context`, those the plan was made
/// under.
absl::StatusOr<Plan> budgetPlanWithBound(const PlanContext &context,
                                         const StrategyResult &result) {
  absl::StatusOr<Plan> plan = budgetPlan(context, result);
  if (!plan.ok() || !plan->budgetBytes)
    return plan;
  plan->lowerBound = computeTimeLowerBound(
      context, *plan->budgetBytes, context.options.lowerBoundTimeLimitSeconds,
      context.options.lowerBoundMaxNonzeros, plan->simulation.totalTimeUs);
  return plan;
}

/// planRematerialization once the request is checked: `resident` gets the
/// bytes a total budget set aside (0 otherwise).
absl::StatusOr<Plan> planWithinActivationBudget(const Graph &graph,
                                                const PlanOptions &requested,
                                                int64_t &resident);
} // namespace detail

absl::Status checkPlanOptions(const PlanOptions &options) {
  if (toString(options.strategy) == "?")
    return absl::InvalidArgumentError(absl::StrCat(
        "strategy ", static_cast<int>(options.strategy),
        " is not a Strategy; valid strategies: save-all, recompute-all, "
        "min-cut, budget, optimal"));
  if (options.budget) {
    const MemoryBudget &budget = *options.budget;
    auto bad = [&](std::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("memory budget: ", asAbsl(why),
                       " (parseMemoryBudget gives a valid one)"));
    };
    switch (budget.kind) {
    case MemoryBudget::Kind::Bytes:
      if (budget.bytes < 0)
        return bad(absl::StrCat(budget.bytes, " bytes is negative"));
      break;
    case MemoryBudget::Kind::Fraction:
      if (!(budget.fraction >= 0 && budget.fraction <= 1))
        return bad(absl::StrCat("fraction ", budget.fraction,
                                " does not lie in [0, 1]"));
      break;
    case MemoryBudget::Kind::FractionOfPeak:
      if (!(budget.fraction > 0) || std::isinf(budget.fraction))
        return bad(absl::StrCat("fraction of the peak ", budget.fraction,
                                " is not a positive finite number"));
      break;
    default:
      return bad(absl::StrCat("kind ", static_cast<int>(budget.kind),
                              " is not a MemoryBudget::Kind"));
    }
    if (budget.total && budget.kind != MemoryBudget::Kind::Bytes)
      return bad("a total budget takes bytes, not a fraction");
  }
  if (absl::Status target = validateTarget(options.target); !target.ok())
    return target;
  // Only `optimal` reads its limit (a caller planning another strategy may
  // leave it 0).
  if (options.strategy == Strategy::Optimal &&
      (!(options.optimalTimeLimitSeconds > 0) ||
       std::isinf(options.optimalTimeLimitSeconds)))
    return absl::InvalidArgumentError(
        absl::StrCat("optimal time limit ", options.optimalTimeLimitSeconds,
                     " s is not a positive finite number of seconds"));
  if (!(options.lowerBoundTimeLimitSeconds >= 0) ||
      std::isinf(options.lowerBoundTimeLimitSeconds))
    return absl::InvalidArgumentError(absl::StrCat(
        "lower-bound time limit ", options.lowerBoundTimeLimitSeconds,
        " s is not a non-negative finite number of seconds"));
  if (double rate = exchangeRate(options); !(rate >= 0) || std::isinf(rate))
    return absl::InvalidArgumentError(
        absl::StrCat("exchange rate ", rate,
                     " bytes per us is not a non-negative finite "
                     "number; give 0 to weigh saved bytes alone"));
  if (double effort = options.budgetSearchEffort;
      !(effort > 0) || !(effort <= kMaxBudgetSearchEffort))
    return absl::InvalidArgumentError(absl::StrCat(
        "budget search effort ", effort, " is not above 0 and at most ",
        kMaxBudgetSearchEffort, " (a multiple of the default search work)"));
  if (!options.decisionGroups.empty() &&
      (options.strategy != Strategy::Budget || options.schedulePlans))
    return absl::InvalidArgumentError(
        "decision-groups applies to strategy=budget with "
        "schedule-plans=false (plans of per-value decisions): drop it, or "
        "plan with both");
  return absl::OkStatus();
}

namespace {

/// Every figure is finite, or the plan cannot be reported (JSON has no inf)
/// nor compared: each op's cost is finite (Graph::validate and
/// validateTarget check that), but their sum can overflow when costs or
/// target figures are extreme (a launch overhead of 1e308 us, a bandwidth
/// of 1e-300 bytes/s).
absl::Status checkFiniteFigures(const Plan &plan) {
  const SimulationResult &simulation = plan.simulation;
  const bool finite =
      std::isfinite(simulation.totalTimeUs) &&
      std::isfinite(simulation.recomputeTimeUs) &&
      std::isfinite(simulation.recomputeFlops) &&
      (!plan.lowerBound || std::isfinite(plan.lowerBound->timeUs));
  if (finite)
    return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the plan's predicted times do not add up to a finite number (total ",
      simulation.totalTimeUs, " us, recomputation ", simulation.recomputeTimeUs,
      " us): the op costs (flops, bytes, "
      "remat.fixed_time_us) or the target's figures (launch_overhead_us, "
      "memory_bandwidth, *_flops) are too extreme; give figures of a real "
      "machine"));
}

} // namespace

absl::StatusOr<Plan> planRematerialization(const Graph &graph,
                                           const PlanOptions &requested) {
  if (absl::Status status = checkPlanOptions(requested); !status.ok())
    return status;
  int64_t resident = 0;
  absl::StatusOr<Plan> plan =
      detail::planWithinActivationBudget(graph, requested, resident);
  if (plan.ok())
    if (absl::Status status = checkFiniteFigures(*plan); !status.ok())
      return status;
  if (!requested.budget || !requested.budget->total)
    return plan;
  const int64_t total = requested.budget->bytes;
  if (plan.ok()) {
    if (plan->budgetBytes) // a strategy that reads the budget
      plan->budgetTotalBytes = total;
    return plan;
  }
  if (plan.status().code() != absl::StatusCode::kResourceExhausted)
    return plan;
  // The strategy speaks of the activation budget the total leaves: say so,
  // and first give its smallest peak as a total (the figure to pass back).
  const int64_t left = std::max<int64_t>(0, total - resident);
  const std::optional<int64_t> smallest = smallestPeakOf(plan.status());
  std::string message =
      absl::StrCat("memory budget total:", formatBytes(total), " (", total,
                   " bytes) ");
  if (smallest) {
    const int64_t smallestTotal =
        *smallest > std::numeric_limits<int64_t>::max() - resident
            ? std::numeric_limits<int64_t>::max()
            : *smallest + resident;
    absl::StrAppend(&message, "is infeasible: raise it to at least total:",
                    smallestTotal, " (", formatBytes(smallestTotal),
                    "), or bound the activations alone with "
                    "activations:<bytes>. It ");
  }
  absl::StrAppend(
      &message, "leaves ", formatBytes(left), " (", left,
      " bytes) for activations once the graph's inputs, parameters and "
      "tangents (", formatBytes(resident), ", ", resident,
      " bytes) are held",
      smallest ? "; in activation figures: " : ": ", plan.status().message());
  if (!smallest)
    absl::StrAppend(&message, " [activation figures; a total budget is ",
                    resident,
                    " bytes more, or bound the activations alone with "
                    "activations:<bytes>]");
  return smallest ? infeasibleBudgetError(message, *smallest)
                  : absl::ResourceExhaustedError(message);
}

namespace detail {

absl::StatusOr<Plan> planWithinActivationBudget(const Graph &graph,
                                                const PlanOptions &requested,
                                                int64_t &resident) {
  ProgressReporter progress(requested);
  // classify(graph), with the flat form kept for every later pass; the
  // graph is validated while it is copied.
  CostModel costModel(requested.target);
  SimulationTables tables;
  absl::StatusOr<FlatGraph> flat =
      buildValidatedFlatGraph(graph, costModel, tables);
  if (!flat.ok())
    return flat.status();
  absl::StatusOr<Classification> phases = classifyFlat(graph, *flat);
  if (!phases.ok())
    return phases.status();
  // From here on a total budget is the activation budget it leaves.
  const PlanOptions options =
      withActivationBudget(requested, *flat, tables, resident);
  // Progress compares peaks with the budget they must meet (before
  // 2026-12-07 it showed a total budget beside activation peaks).
  if (options.budget && options.budget->kind == MemoryBudget::Kind::Bytes)
    progress.setBudget(options.budget->bytes);
  absl::StatusOr<Constraints> constraints =
      computeConstraints(graph, *flat, *phases, options.policy);
  if (!constraints.ok())
    return constraints.status();
  PlanContext context{graph,   *flat,     *phases, *constraints,
                      options, costModel, tables,  progress};

  StrategyResult result;
  switch (options.strategy) {
  case Strategy::SaveAll:
    result.keep = saveAllKeep(context);
    break;
  case Strategy::RecomputeAll:
    result.keep = recomputeAllKeep(context);
    break;
  case Strategy::MinCut: {
    absl::StatusOr<std::vector<uint8_t>> keep =
        minCutKeep(context, exchangeRate(options));
    if (!keep.ok())
      return keep.status();
    result.keep = std::move(*keep);
    result.derivations = chooseDerivations(context, result.keep,
                                           /*replaceSaves=*/true,
                                           exchangeRate(options));
    break;
  }
  case Strategy::Budget: {
    absl::StatusOr<StrategyResult> budgeted = planBudget(context);
    // When no plan fits, relax what is soft and plan again, weakest first:
    // prefer_* tags (the explanations say which preference yielded); then,
    // with recompute-banned=allow, the automatic ban on compute-intensive
    // values (the explanations say which replays it allowed). Infeasible
    // either way: the last error names the smallest peak then reachable.
    for (bool liftBans : {false, true}) {
      if (budgeted.ok() ||
          budgeted.status().code() != absl::StatusCode::kResourceExhausted)
        break;
      if (liftBans ? !options.recomputeBannedUnderPressure
                   : !flat->hasPreferences)
        continue;
      absl::StatusOr<Constraints> relaxed = computeConstraints(
          graph, *flat, *phases, options.policy,
          /*honourPreferences=*/!flat->hasPreferences, liftBans);
      if (!relaxed.ok())
        return relaxed.status();
      PlanContext relaxedContext{graph,   *flat,     *phases, *relaxed,
                                 options, costModel, tables,  progress};
      absl::StatusOr<StrategyResult> retried = planBudget(relaxedContext);
      if (retried.ok())
        return budgetPlanWithBound(relaxedContext, *retried);
      budgeted = retried.status();
    }
    if (!budgeted.ok())
      return budgeted.status();
    return budgetPlanWithBound(context, *budgeted);
  }
  case Strategy::Optimal:
    return planOptimal(context);
  }
  return materializePlan(context, result);
}

} // namespace detail

} // namespace remat
