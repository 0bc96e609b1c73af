//===- RematReport.cpp - The remat-report pass ----------------------------===//
//
// Part of remat. Turns the plan recorded on each joint function into a JSON
// document or a text table. The JSON is what remat-diff compares in CI, so
// its field order and number formatting are fixed and nothing in it depends
// on time, pointers or hash order.
//
//===----------------------------------------------------------------------===//

#include "remat/Transforms/Passes.h"

#include "OptionText.h"
#include "TextFormat.h"

#include "remat/Transforms/GraphBuilder.h"
#include "remat/Transforms/PlanAttributes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <optional>

namespace remat {
#define GEN_PASS_DEF_REMATREPORTPASS
#include "remat/Transforms/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct ValueRow {
  std::string name;
  std::string op; // producing op, or "argument"
  std::vector<int64_t> shape;
  std::string dtype;
  int64_t bytes = 0;
  std::string decision;
  std::string reason;
  std::vector<std::string> derivedFrom;
  std::string derivationKind;
  /// For function arguments: "backward" (a backward op reads it),
  /// "recomputation" (only a recomputation or derivation in backward does)
  /// or "none"; empty for other values.
  std::string readBy;
  std::string computeClass; // "none" for arguments
  std::vector<std::string> tags;
  /// For a saved view: the value whose storage it shares (Graph::storageOf),
  /// which the plan's peaks and saved bytes count instead of `bytes`; empty
  /// otherwise.
  std::string storage;
};

struct FunctionReport {
  std::string function;
  DictionaryAttr summary;
  std::vector<ValueRow> values;
};

std::string sv(std::string_view text) { return std::string(text); }

/// "input", "parameter" or "rng state", as reasons name an argument.
StringRef argumentNoun(InputRole role) {
  switch (role) {
  case InputRole::Parameter:
    return "parameter";
  case InputRole::RngState:
    return "rng state";
  case InputRole::Input:
  case InputRole::Tangent:
    break;
  }
  return "input";
}

/// The reason of an argument the planner gives no decision: no backward op
/// and no recomputation reads it, or (`keptBy` non-empty) backward reads it
/// only through that saved view. The report lists every primal argument
/// under every strategy (a weight that only a replayed transpose reads is
/// read by a recomputation under min-cut and through a saved view under
/// save-all), so that reports of one graph compare value by value. The
/// wording follows the planner's `input` reasons (lib/Core/Explain.cpp).
std::string argumentReason(InputRole role, StringRef keptBy) {
  std::string noun = argumentNoun(role).str();
  if (!keptBy.empty())
    return noun + ": backward reads it through the saved view " + keptBy.str();
  if (role == InputRole::Parameter)
    return noun + ": always available; neither backward nor a "
                  "recomputation reads it";
  if (role == InputRole::RngState)
    return noun + ": neither backward nor a recomputation reads it";
  return noun + ": neither backward nor a recomputation reads this "
                "function input";
}

FailureOr<FunctionReport> collect(FunctionOpInterface func,
                                  AnalysisManager analyses) {
  FailureOr<ImportedGraph *> imported = getOrBuildGraph(func, analyses);
  if (failed(imported))
    return failure();
  FailureOr<RecordedPlan> plan = readPlan(func, **imported, "remat-report");
  if (failed(plan))
    return failure();
  const Graph &graph = (*imported)->graph;
  // Which arguments a backward op reads directly: remat-plan's
  // classification of this graph when it left one.
  JointGraphAnalysis *cached = getCachedGraphAnalysis(func, analyses);
  std::optional<Classification> computed;
  if (!cached || !cached->classification) {
    absl::StatusOr<Classification> phases = classify(graph);
    if (!phases.ok())
      return func->emitError()
             << "remat-report: cannot classify '" << func.getName()
             << "': " << std::string(phases.status().message());
    computed = std::move(*phases);
  }
  const Classification &phases = computed ? *computed : *cached->classification;
  std::vector<uint8_t> readByBackwardOp(graph.numValues(), 0);
  for (ValueId id : phases.neededByBackward)
    readByBackwardOp[id] = 1;
  // An argument a saved view shares is kept for backward through it (the
  // simulator counts it as read there, and remat-partition passes nothing
  // but re-creates the view from the argument): the first such view.
  std::vector<ValueId> keptByView(graph.numValues(), kNoId);
  for (ValueId id = 0; id < static_cast<ValueId>(graph.numValues()); ++id)
    if (const std::optional<RecordedDecision> &decision = plan->decisions[id];
        decision && decision->decision == Decision::Save)
      if (ValueId storage = graph.storageOf(id);
          storage != id && keptByView[storage] == kNoId)
        keptByView[storage] = id;
  FunctionReport report;
  report.function = func.getName().str();
  report.summary = plan->summary;
  for (ValueId id = 0; id < static_cast<ValueId>(graph.numValues()); ++id) {
    const std::optional<RecordedDecision> &decision = plan->decisions[id];
    const GraphValue &value = graph.value(id);
    // Tangents are backward's own inputs, not part of the plan.
    bool primalArgument =
        value.inputRole && *value.inputRole != InputRole::Tangent;
    if (!decision && !primalArgument)
      continue;
    ValueRow row;
    row.name = value.name;
    row.shape = value.type.shape;
    row.dtype = sv(toString(value.type.dtype));
    row.bytes = value.type.bytes();
    bool keptThroughView = !decision && keptByView[id] != kNoId;
    if (primalArgument)
      row.readBy = readByBackwardOp[id] || keptThroughView ? "backward"
                   : decision                              ? "recomputation"
                                                           : "none";
    if (!decision) {
      row.decision = decisionSpelling(Decision::Input).str();
      row.reason = argumentReason(
          *value.inputRole,
          keptThroughView ? graph.value(keptByView[id]).name : "");
    } else {
      row.decision = decisionSpelling(decision->decision).str();
      row.reason = decision->reason.str();
      if (decision->decision == Decision::Save)
        if (ValueId storage = graph.storageOf(id); storage != id)
          row.storage = graph.value(storage).name;
    }
    if (decision && decision->derivation) {
      row.derivedFrom = decision->derivation->from;
      row.derivationKind = sv(toString(decision->derivation->kind));
    }
    if (value.producer == kNoId) {
      row.op = "argument";
      row.computeClass = "none";
    } else {
      const GraphOp &producer = graph.op(value.producer);
      row.op = producer.kind;
      row.computeClass = sv(toString(producer.computeClass));
      row.tags = tagNames(producer.tags);
    }
    report.values.push_back(std::move(row));
  }
  return report;
}

std::optional<int64_t> intField(DictionaryAttr dict, StringRef name) {
  if (auto value = dict.getAs<IntegerAttr>(name))
    return value.getInt();
  return std::nullopt;
}
double floatField(DictionaryAttr dict, StringRef name) {
  if (auto value = dict.getAs<FloatAttr>(name))
    return value.getValueAsDouble();
  return 0;
}
std::string stringField(DictionaryAttr dict, StringRef name) {
  if (auto value = dict.getAs<StringAttr>(name))
    return value.getValue().str();
  return "";
}
bool boolField(DictionaryAttr dict, StringRef name) {
  auto value = dict.getAs<BoolAttr>(name);
  return value && value.getValue();
}

/// Recompute time over the time of one evaluation of every op, the TDI the
/// Checkmate literature reports (0.003 = 0.3% slower training step).
double totalDurationIncrease(DictionaryAttr summary) {
  double recompute = floatField(summary, "predicted_recompute_time_us");
  double original = floatField(summary, "predicted_total_time_us") - recompute;
  return original > 0 ? recompute / original : 0;
}

/// The activation peak plus the inputs, parameters and tangents the
/// runtime holds through the step (issue #16 item 2); -1 for a plan
/// recorded before tangent bytes were (then the figure would be short).
int64_t totalPeakBytes(DictionaryAttr summary) {
  int64_t total = 0;
  for (StringRef field : {"peak_memory_bytes", "input_bytes",
                          "parameter_bytes", "tangent_bytes"}) {
    auto bytes = summary.getAs<IntegerAttr>(field);
    if (!bytes)
      return -1;
    int64_t value = bytes.getInt();
    total = value > std::numeric_limits<int64_t>::max() - total
                ? std::numeric_limits<int64_t>::max()
                : total + value;
  }
  return total;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// An integer attribute, written without an llvm::json::Value: GCC 12 at
/// -O3 under ASan reports the Value's storage as maybe-uninitialized
/// (JSON.h unpoisons it before constructing into it), a false positive that
/// -Werror turns into a failed sanitizer build.
void writeInt(llvm::json::OStream &json, StringRef key, int64_t value) {
  json.attributeBegin(key);
  json.rawValue([&](llvm::raw_ostream &os) { os << value; });
  json.attributeEnd();
}

void writeJson(llvm::json::OStream &json, const FunctionReport &report) {
  DictionaryAttr s = report.summary;
  auto optionalInt = [&](StringRef key, std::optional<int64_t> value) {
    if (value)
      writeInt(json, key, *value);
    else
      json.attribute(key, nullptr);
  };
  json.object([&] {
    json.attribute("function", report.function);
    json.attribute("strategy", stringField(s, "strategy"));
    json.attribute("target", stringField(s, "target"));
    std::string policy = stringField(s, "policy");
    if (policy.empty())
      json.attribute("policy", nullptr);
    else
      json.attribute("policy", policy);
    optionalInt("budget_bytes", intField(s, "budget_bytes"));
    optionalInt("budget_total_bytes", intField(s, "budget_total_bytes"));
    optionalInt("peak_memory_bytes", intField(s, "peak_memory_bytes"));
    if (int64_t total = totalPeakBytes(s); total >= 0)
      writeInt(json, "total_peak_bytes", total);
    else
      json.attribute("total_peak_bytes", nullptr);
    optionalInt("saved_bytes", intField(s, "saved_bytes"));
    optionalInt("saved_input_bytes", intField(s, "saved_input_bytes"));
    optionalInt("input_bytes", intField(s, "input_bytes"));
    optionalInt("parameter_bytes", intField(s, "parameter_bytes"));
    optionalInt("tangent_bytes", intField(s, "tangent_bytes"));
    json.attribute("recompute_flops", floatField(s, "recompute_flops"));
    json.attribute("predicted_recompute_time_us",
                   floatField(s, "predicted_recompute_time_us"));
    json.attribute("predicted_total_time_us",
                   floatField(s, "predicted_total_time_us"));
    json.attribute("total_duration_increase", totalDurationIncrease(s));
    json.attribute("allow_inexact_derivation",
                   boolField(s, "allow_inexact_derivation"));
    json.attribute("uses_inexact_derivation",
                   boolField(s, "uses_inexact_derivation"));
    json.attribute("preferences_dropped", boolField(s, "preferences_dropped"));
    json.attribute("bans_lifted", boolField(s, "bans_lifted"));
    if (s.get("exchange_rate_bytes_per_us"))
      json.attribute("exchange_rate_bytes_per_us",
                     floatField(s, "exchange_rate_bytes_per_us"));
    else
      json.attribute("exchange_rate_bytes_per_us", nullptr);
    if (s.get("budget_search_effort"))
      json.attribute("budget_search_effort",
                     floatField(s, "budget_search_effort"));
    else
      json.attribute("budget_search_effort", nullptr);
    if (s.get("schedule_plans"))
      json.attribute("schedule_plans", boolField(s, "schedule_plans"));
    else
      json.attribute("schedule_plans", nullptr);
    // A certified lower bound on the total time of any plan of the
    // strategy's schedule class within the budget (`budget` only).
    auto optionalFloat = [&](StringRef key) {
      if (s.get(key))
        json.attribute(key, floatField(s, key));
      else
        json.attribute(key, nullptr);
    };
    optionalFloat("lower_bound_time_us");
    if (s.get("lower_bound_kind"))
      json.attribute("lower_bound_kind", stringField(s, "lower_bound_kind"));
    else
      json.attribute("lower_bound_kind", nullptr);
    optionalFloat("optimality_gap");
    json.attribute("lower_bound_stopped", boolField(s, "lower_bound_stopped"));
    json.attributeArray("values", [&] {
      for (const ValueRow &row : report.values) {
        json.object([&] {
          json.attribute("name", row.name);
          json.attribute("op", row.op);
          json.attributeArray("shape", [&] {
            for (int64_t dim : row.shape)
              json.value(dim);
          });
          json.attribute("dtype", row.dtype);
          json.attribute("bytes", row.bytes);
          json.attribute("decision", row.decision);
          json.attribute("reason", row.reason);
          if (!row.storage.empty())
            json.attribute("storage", row.storage);
          if (row.decision == "derive") {
            json.attributeArray("derived_from", [&] {
              for (const std::string &name : row.derivedFrom)
                json.value(name);
            });
            json.attribute("derivation", row.derivationKind);
          }
          if (!row.readBy.empty())
            json.attribute("read_by", row.readBy);
          json.attribute("compute_class", row.computeClass);
          json.attributeArray("tags", [&] {
            for (const std::string &tag : row.tags)
              json.value(tag);
          });
        });
      }
    });
  });
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

/// "64.0 MiB (67108864 B)", or "320 B" when the short form is exact.
std::string bytesWithExact(int64_t bytes) {
  std::string text = humanBytes(bytes);
  if (bytes >= 1024)
    text += " (" + std::to_string(bytes) + " B)";
  return text;
}

std::string shapeText(const ValueRow &row) {
  std::string text;
  for (int64_t dim : row.shape)
    text += std::to_string(dim) + "x";
  return text + row.dtype;
}

void writeText(llvm::raw_ostream &os, const FunctionReport &report) {
  DictionaryAttr s = report.summary;
  std::string policy = stringField(s, "policy");
  os << "remat plan for @" << report.function << "\n";
  os << "  strategy:            " << stringField(s, "strategy") << "\n";
  os << "  target:              " << stringField(s, "target") << "\n";
  os << "  policy:              " << (policy.empty() ? "none" : policy) << "\n";
  std::optional<int64_t> budget = intField(s, "budget_bytes");
  std::optional<int64_t> totalBudget = intField(s, "budget_total_bytes");
  os << "  budget:              ";
  if (totalBudget)
    os << bytesWithExact(*totalBudget) << " total, leaving "
       << bytesWithExact(budget.value_or(0))
       << " for activations after the inputs, parameters and tangents\n";
  else
    os << (budget ? bytesWithExact(*budget) : std::string("none")) << "\n";
  os << "  peak memory:         "
     << bytesWithExact(intField(s, "peak_memory_bytes").value_or(0)) << "\n";
  if (int64_t total = totalPeakBytes(s); total >= 0)
    os << "  total peak:          " << bytesWithExact(total)
       << " (with the inputs, parameters and tangents)\n";
  os << "  saved for backward:  "
     << bytesWithExact(intField(s, "saved_bytes").value_or(0));
  if (int64_t inputs = intField(s, "saved_input_bytes").value_or(0); inputs > 0)
    os << ", of which " << bytesWithExact(inputs) << " graph inputs";
  os << "\n";
  os << "  recompute:           "
     << llvm::format("%.6g FLOPs, %.3f us predicted",
                     floatField(s, "recompute_flops"),
                     floatField(s, "predicted_recompute_time_us"))
     << llvm::format(" (total duration +%.3f%%)",
                     100 * totalDurationIncrease(s))
     << "\n";
  if (s.get("lower_bound_time_us")) {
    os << "  lower bound:         "
       << llvm::format("%.3f us total (%s)",
                       floatField(s, "lower_bound_time_us"),
                       stringField(s, "lower_bound_kind").c_str());
    if (s.get("optimality_gap"))
      os << llvm::format(", optimality gap %.3f%%",
                         100 * floatField(s, "optimality_gap"));
    if (boolField(s, "lower_bound_stopped"))
      os << "; its solver stopped at the time limit, so the result "
            "depends on the machine's speed";
    os << "\n";
  }
  os << "  inexact derivation:  "
     << (boolField(s, "allow_inexact_derivation") ? "allowed" : "not allowed")
     << (boolField(s, "uses_inexact_derivation") ? ", used" : "") << "\n";
  if (boolField(s, "preferences_dropped"))
    os << "  prefer_* tags:       dropped (no plan honouring them fits the "
          "budget)\n";
  if (s.get("exchange_rate_bytes_per_us")) {
    double rate = floatField(s, "exchange_rate_bytes_per_us");
    os << "  exchange rate:       ";
    if (rate > 0)
      os << llvm::format("%.6g", rate)
         << " bytes per us of recompute time (min-cut weighs saved bytes "
            "against replay time)\n";
    else
      os << "0 (min-cut weighs saved bytes alone)\n";
  }
  if (s.get("schedule_plans") && !boolField(s, "schedule_plans"))
    os << "  schedules:           per-value decisions only "
          "(schedule-plans=false)\n";
  if (s.get("budget_search_effort") &&
      floatField(s, "budget_search_effort") != 1)
    os << "  search effort:       "
       << llvm::format("%g", floatField(s, "budget_search_effort"))
       << "x the default work limits (budget-search-effort)\n";
  if (boolField(s, "bans_lifted"))
    os << "  automatic bans:      lifted for matmul, conv and attention (no "
          "plan inside them fits the budget; recompute-banned=allow)\n";
  os << "\n";

  std::vector<std::array<std::string, 6>> rows;
  rows.push_back({"VALUE", "DECISION", "BYTES", "SHAPE", "OP", "REASON"});
  for (const ValueRow &row : report.values)
    rows.push_back(
        {row.name, row.decision, humanBytes(row.bytes), shapeText(row), row.op,
         row.storage.empty() ? row.reason
                             : row.reason + " (a view of " + row.storage +
                                   "'s storage: no bytes of its own)"});
  std::array<size_t, 6> widths = {};
  for (const auto &row : rows)
    for (size_t column = 0; column < row.size(); ++column)
      widths[column] = std::max(widths[column], row[column].size());
  for (const auto &row : rows) {
    std::string line = " ";
    for (size_t column = 0; column < row.size(); ++column) {
      line += " " + row[column];
      if (column + 1 < row.size())
        line.append(widths[column] - row[column].size() + 1, ' ');
    }
    os << StringRef(line).rtrim() << "\n";
  }
}

struct RematReportPass final
    : remat::impl::RematReportPassBase<RematReportPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkPassOptionText(*this, options, {}, errorHandler)))
      return failure();
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // On nested modules each instance would write the file, the last one
    // to finish winning (which one varies from run to run under
    // threading): refused, for the one report of the enclosing module.
    if (output != "-" && module->getParentOp())
      return emitNestedFileError(module);
    // Written in memory first, so a failed report leaves no file behind.
    std::string text;
    llvm::raw_string_ostream buffer(text);
    if (failed(writeRematReport(module, getAnalysisManager(), format, buffer)))
      return signalPassFailure();
    // The module's own file (remat-opt model.mlir -remat-report=
    // output=model.mlir) would be replaced by its report: before 2026-12-07
    // it was, with exit 0.
    if (auto source = dyn_cast<FileLineColLoc>(module.getLoc());
        source && output != "-" &&
        llvm::sys::fs::equivalent(source.getFilename().strref(),
                                  output.getValue())) {
      module.emitError() << "remat-report: output=" << output.getValue()
                         << " is the input file; the report would replace "
                            "the module. Write it elsewhere";
      return signalPassFailure();
    }
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output.getValue(), &errorMessage);
    if (!file) {
      module.emitError() << "remat-report: cannot write output="
                         << output.getValue() << ": " << errorMessage;
      return signalPassFailure();
    }
    file->os() << text;
    file->os().flush();
    // A write error left in the stream ended the process with LLVM's fatal
    // "IO failure on output stream", without the file's name (before
    // 2026-12-08).
    if (std::error_code error = file->os().error()) {
      file->os().clear_error();
      module.emitError() << "remat-report: cannot write output="
                         << output.getValue() << ": " << error.message();
      return signalPassFailure();
    }
    file->keep();
    markAllAnalysesPreserved();
  }

private:
  void emitNestedFileError(ModuleOp module) {
    module.emitError()
        << "remat-report: output=" << output.getValue()
        << " on a nested module: each nested module's report would "
           "overwrite the others'. Run remat-report on the enclosing module, "
           "whose report covers the plans of the modules nested in it (names "
           "qualified, as m0::@layer): --pass-pipeline='builtin.module("
           "builtin.module(remat-plan),remat-report{output="
        << output.getValue()
        << "},builtin.module(remat-partition))', or write to output=-";
    signalPassFailure();
  }
};

} // namespace

std::string remat::humanBytes(int64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double scaled = static_cast<double>(bytes);
  unsigned unit = 0;
  while (scaled >= 1024 && unit + 1 < std::size(units)) {
    scaled /= 1024;
    ++unit;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (unit == 0)
    os << bytes << " B";
  else
    os << llvm::format("%.1f %s", scaled, units[unit]);
  return text;
}

namespace {

/// The reports of the planned joint functions of `module` and of the
/// modules nested in it, in IR order. A nested function's name is
/// qualified by its modules' (`m0::@layer`; an unnamed module is `module#N`,
/// N counting the modules of its block from 0), so that one report of the
/// top-level module covers the plans `remat-plan` made one level down. A
/// joint function of the module itself must be planned (an error
/// otherwise); one in a nested module without a plan is left out, as
/// remat-plan on the top level leaves it unplanned (with a warning).
LogicalResult collectModule(ModuleOp module, AnalysisManager analyses,
                            const std::string &prefix,
                            std::vector<FunctionReport> &reports) {
  int nestedIndex = 0;
  for (Operation &op : module.getBody()->getOperations()) {
    if (auto nested = dyn_cast<ModuleOp>(op)) {
      std::string name = nested.getSymName()
                             ? nested.getSymName()->str()
                             : "module#" + std::to_string(nestedIndex);
      ++nestedIndex;
      if (failed(collectModule(nested, analyses.nest(nested),
                               prefix + name + "::@", reports)))
        return failure();
      continue;
    }
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || !isJointFunction(func) || func.isExternal() ||
        (!prefix.empty() &&
         !func->hasAttr(RematDialect::PlanAttrHelper::getNameStr())))
      continue;
    FailureOr<FunctionReport> report = collect(func, analyses);
    if (failed(report))
      return failure();
    report->function = prefix + report->function;
    reports.push_back(std::move(*report));
  }
  return success();
}

} // namespace

LogicalResult remat::writeRematReport(ModuleOp module, AnalysisManager analyses,
                                      StringRef format,
                                      llvm::raw_ostream &os) {
  if (format != "json" && format != "text")
    return module.emitError() << "remat-report: bad option format=" << format
                              << "; expected json or text";
  std::vector<FunctionReport> reports;
  if (failed(collectModule(module, analyses, "", reports)))
    return failure();
  if (reports.empty())
    return module.emitError()
           << "remat-report: no planned joint function in the module; run "
              "-remat-plan first (and report before -remat-partition, which "
              "replaces the joint function unless keep-joint=true)";
  if (format == "json") {
    llvm::json::OStream json(os, /*IndentSize=*/2);
    if (reports.size() == 1) {
      writeJson(json, reports.front());
    } else {
      json.array([&] {
        for (const FunctionReport &report : reports)
          writeJson(json, report);
      });
    }
    os << "\n";
    return success();
  }
  for (auto [index, report] : llvm::enumerate(reports)) {
    if (index)
      os << "\n";
    writeText(os, report);
  }
  return success();
}
