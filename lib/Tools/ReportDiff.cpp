//===- ReportDiff.cpp - Compare two remat-report JSON files ---------------===//
//
// Part of remat. What counts as a regression is decided here and documented
// in docs/UserGuide.md ("remat-diff in CI").
//
//===----------------------------------------------------------------------===//

#include "remat/Tools/ReportDiff.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cmath>
#include <map>
#include <optional>

using llvm::StringRef;

namespace remat {

llvm::Expected<double> parsePercent(StringRef text) {
  StringRef number = text.trim();
  number.consume_back("%");
  double value = 0;
  if (number.empty() || number.getAsDouble(value) || !(value >= 0) ||
      std::isinf(value))
    return llvm::createStringError(
        "'" + text.str() +
        "' is not a percentage; write e.g. 2% (or 2), 0.5%, 0% (a finite "
        "number, not negative)");
  return value;
}

StringRef toString(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::FunctionRemoved:
    return "function-removed";
  case ChangeKind::FunctionAdded:
    return "function-added";
  case ChangeKind::ValueRemoved:
    return "value-removed";
  case ChangeKind::ValueAdded:
    return "value-added";
  case ChangeKind::Shape:
    return "shape";
  case ChangeKind::Decision:
    return "decision";
  case ChangeKind::PeakMemory:
    return "peak-memory";
  case ChangeKind::RecomputeTime:
    return "recompute-time";
  case ChangeKind::SavedBytes:
    return "saved-bytes";
  case ChangeKind::RecomputeFlops:
    return "recompute-flops";
  case ChangeKind::Strategy:
    return "strategy";
  case ChangeKind::Target:
    return "target";
  case ChangeKind::InputReadBy:
    return "input-read-by";
  case ChangeKind::TotalPeakMemory:
    return "total-peak-memory";
  case ChangeKind::Setting:
    return "setting";
  case ChangeKind::Derivation:
    return "derivation";
  case ChangeKind::Tags:
    return "tags";
  case ChangeKind::Op:
    return "op";
  }
  return "?";
}

namespace {

/// The decisions a report's values carry (remat-report's spellings).
constexpr std::array<StringRef, 5> kDecisions = {"save", "recompute", "derive",
                                                 "not-needed", "input"};

std::optional<ChangeKind> parseChangeKind(StringRef text) {
  for (int kind = 0; kind <= static_cast<int>(ChangeKind::Op); ++kind)
    if (toString(static_cast<ChangeKind>(kind)) == text)
      return static_cast<ChangeKind>(kind);
  return std::nullopt;
}

/// Every change kind's spelling, comma-separated, for an error.
std::string changeKindList() {
  std::string list;
  for (int kind = 0; kind <= static_cast<int>(ChangeKind::Op); ++kind)
    list += (kind ? ", " : "") + toString(static_cast<ChangeKind>(kind)).str();
  return list;
}

/// Whether a change of this kind names a value (or, for `setting`, a
/// field) in the VALUE column; the others are about the whole function.
bool namesValue(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::ValueRemoved:
  case ChangeKind::ValueAdded:
  case ChangeKind::Shape:
  case ChangeKind::Decision:
  case ChangeKind::InputReadBy:
  case ChangeKind::Setting:
  case ChangeKind::Derivation:
  case ChangeKind::Tags:
  case ChangeKind::Op:
    return true;
  default:
    return false;
  }
}

/// `line` without its comment: a `#` at the start of the line or after a
/// space or tab. A `#` inside a field is part of it: a value of a
/// multi-result op is named `name#N`.
StringRef stripComment(StringRef line) {
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t'))
      return line.take_front(i);
  return line;
}

bool globMatches(const std::string &pattern, StringRef text) {
  llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(pattern);
  if (!glob) {
    llvm::consumeError(glob.takeError());
    return pattern == text;
  }
  return glob->match(text);
}

} // namespace

bool AllowList::allows(const Change &change) const {
  for (const AllowRule &rule : rules) {
    if (rule.kind != change.kind ||
        !globMatches(rule.functionPattern, change.function))
      continue;
    if (!change.value.empty() && !globMatches(rule.valuePattern, change.value))
      continue;
    if (!rule.fromDecision.empty() &&
        (rule.fromDecision != change.before || rule.toDecision != change.after))
      continue;
    return true;
  }
  return false;
}

llvm::Expected<AllowList> parseAllowList(StringRef text, StringRef fileName) {
  AllowList list;
  llvm::SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (auto [index, rawLine] : llvm::enumerate(lines)) {
    unsigned lineNumber = static_cast<unsigned>(index) + 1;
    // Before 2026-12-07 any '#' started a comment, so a rule for a value
    // named `attention_out#0` matched every value of the function.
    StringRef line = stripComment(rawLine).trim();
    if (line.empty())
      continue;
    // Fields are separated by spaces or tabs (a tab was read as part of a
    // field before 2026-12-07).
    llvm::SmallVector<StringRef> fields;
    llvm::SplitString(line, fields);
    auto fail = [&](const llvm::Twine &why) {
      return llvm::createStringError(fileName + ":" + llvm::Twine(lineNumber) +
                                     ": " + why);
    };
    std::optional<ChangeKind> kind = parseChangeKind(fields[0]);
    if (!kind)
      return fail("unknown change '" + fields[0] + "'; expected one of " +
                  changeKindList());
    if (fields.size() < 2 || fields.size() > 4)
      return fail("expected '<change> <function> [<value> "
                  "[<from>-><to>]]', got " +
                  llvm::Twine(fields.size()) + " field(s)");
    if (fields.size() > 2 && !namesValue(*kind))
      return fail("a '" + fields[0] +
                  "' change is about the whole function and names no value; "
                  "drop '" +
                  fields[2] + "'");
    AllowRule rule;
    rule.kind = *kind;
    rule.line = lineNumber;
    rule.functionPattern = fields[1].str();
    rule.valuePattern = fields.size() > 2 ? fields[2].str() : "*";
    if (fields.size() == 4) {
      if (*kind != ChangeKind::Decision)
        return fail("a '<from>-><to>' transition is only valid for "
                    "'decision' rules");
      auto [from, to] = fields[3].split("->");
      if (from.empty() || to.empty() || !fields[3].contains("->"))
        return fail("malformed transition '" + fields[3] +
                    "'; write e.g. save->recompute");
      rule.fromDecision = from.str();
      rule.toDecision = to.str();
    }
    for (const std::string &pattern : {rule.functionPattern, rule.valuePattern})
      if (llvm::Expected<llvm::GlobPattern> glob =
              llvm::GlobPattern::create(pattern);
          !glob)
        return fail("bad pattern '" + pattern +
                    "': " + llvm::toString(glob.takeError()));
    list.rules.push_back(std::move(rule));
  }
  return list;
}

size_t DiffResult::numRegressions() const {
  return llvm::count_if(changes, [](const Change &change) {
    return change.regression && !change.allowed;
  });
}

size_t DiffResult::numAllowedRegressions() const {
  return llvm::count_if(changes, [](const Change &change) {
    return change.regression && change.allowed;
  });
}

namespace {

std::string numberText(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (value == std::floor(value) && std::fabs(value) < 1e18)
    os << static_cast<int64_t>(value);
  else
    os << llvm::format("%.6g", value);
  return text;
}

struct ValueFacts {
  std::string name, op, dtype, decision, computeClass;
  /// For arguments: "backward", "recomputation" or "none" (empty in reports
  /// written before remat-report listed it).
  std::string readBy;
  /// For a derived value: its rule and sources ("subtract from out, mlpwo").
  std::string derivation;
  std::vector<int64_t> shape;
  int64_t bytes = 0;
  std::vector<std::string> tags;
  /// A function argument: always there whatever the plan, so it is never a
  /// regression (older reports listed only the arguments backward reads).
  bool isArgument() const { return op == "argument" || decision == "input"; }
};

/// The report fields that record how a plan was asked for (or what the
/// planner had to relax): a change there explains the decision changes.
constexpr const char *kSettingFields[] = {
    "policy",
    "budget_bytes",
    "budget_total_bytes",
    "exchange_rate_bytes_per_us",
    "budget_search_effort",
    "schedule_plans",
    "allow_inexact_derivation",
    "preferences_dropped",
    "bans_lifted",
};

struct FunctionFacts {
  std::string name, strategy, target;
  double peakMemory = 0, savedBytes = 0, recomputeFlops = 0,
         recomputeTimeUs = 0;
  /// Absent in reports written before it existed.
  std::optional<double> totalPeak;
  /// kSettingFields present in the report, as text ("none" for null).
  std::vector<std::pair<std::string, std::string>> settings;
  const std::string *setting(StringRef field) const {
    for (const auto &[name, text] : settings)
      if (name == field)
        return &text;
    return nullptr;
  }
  std::vector<ValueFacts> values;
  /// Index into `values` by name (a linear search per value made diffing a
  /// 80,000-value report take 44 s).
  llvm::StringMap<size_t> valueIndex;
  const ValueFacts *find(StringRef name) const {
    auto it = valueIndex.find(name);
    return it == valueIndex.end() ? nullptr : &values[it->second];
  }
};

class ReportReader {
  static constexpr int kMaxDepth = 64;

  /// The offset of the first bracket nested deeper than kMaxDepth, outside
  /// strings, if any.
  static std::optional<size_t> tooDeep(StringRef text) {
    int depth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (inString) {
        if (c == '\\')
          ++i;
        else if (c == '"')
          inString = false;
      } else if (c == '"') {
        inString = true;
      } else if (c == '[' || c == '{') {
        if (++depth > kMaxDepth)
          return i;
      } else if (c == ']' || c == '}') {
        --depth;
      }
    }
    return std::nullopt;
  }

public:
  explicit ReportReader(StringRef fileName) : fileName(fileName) {}

  llvm::Expected<std::vector<FunctionFacts>> read(StringRef text) {
    // llvm::json::parse recurses once per level: 50,000 '[' overflowed the
    // stack (before 2026-12-08). A report is a few levels deep.
    if (std::optional<size_t> at = tooDeep(text))
      return error("not a report: JSON nested deeper than " +
                   llvm::Twine(kMaxDepth) + " levels at byte " +
                   llvm::Twine(*at + 1));
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
    if (!parsed)
      return error("not valid JSON: " + llvm::toString(parsed.takeError()));
    std::vector<FunctionFacts> functions;
    if (const llvm::json::Array *array = parsed->getAsArray()) {
      for (const llvm::json::Value &entry : *array)
        if (llvm::Error err = readFunction(entry, functions))
          return std::move(err);
    } else if (llvm::Error err = readFunction(*parsed, functions)) {
      return std::move(err);
    }
    return functions;
  }

private:
  llvm::Error error(const llvm::Twine &why) {
    return llvm::createStringError(fileName + ": " + why);
  }

  /// Bytes, FLOPs and microseconds: no plan has a negative figure.
  llvm::Error checkFigure(const std::string &where, double number) {
    if (number >= 0 && std::isfinite(number))
      return llvm::Error::success();
    return error(where + " is " + numberText(number) +
                 ": expected a finite number, not negative");
  }

  llvm::Error readFunction(const llvm::json::Value &value,
                           std::vector<FunctionFacts> &functions) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return error("expected a remat-report object (or an array of them)");
    FunctionFacts facts;
    std::optional<StringRef> name = object->getString("function");
    if (!name)
      return error("a report has no \"function\" string; is this a "
                   "remat-report JSON file?");
    facts.name = name->str();
    // Functions are matched by name: a second entry would never be compared.
    for (const FunctionFacts &earlier : functions)
      if (earlier.name == facts.name)
        return error("function '" + facts.name +
                     "' has two reports; a module's report has one per "
                     "function (diff the reports one file each)");
    auto where = [&](StringRef field) {
      return "function '" + facts.name + "': field \"" + field.str() + "\"";
    };
    facts.strategy = object->getString("strategy").value_or("").str();
    facts.target = object->getString("target").value_or("").str();
    for (auto [field, slot] :
         {std::pair<StringRef, double *>{"peak_memory_bytes",
                                         &facts.peakMemory},
          {"saved_bytes", &facts.savedBytes},
          {"recompute_flops", &facts.recomputeFlops},
          {"predicted_recompute_time_us", &facts.recomputeTimeUs}}) {
      std::optional<double> number = object->getNumber(field);
      if (!number)
        return error(where(field) + " is missing or not a number");
      if (llvm::Error err = checkFigure(where(field), *number))
        return err;
      *slot = *number;
    }
    if (const llvm::json::Value *total = object->get("total_peak_bytes");
        total && total->kind() != llvm::json::Value::Null) {
      std::optional<double> number = total->getAsNumber();
      if (!number)
        return error(where("total_peak_bytes") + " is not a number");
      if (llvm::Error err = checkFigure(where("total_peak_bytes"), *number))
        return err;
      facts.totalPeak = *number;
    }
    for (const char *field : kSettingFields) {
      const llvm::json::Value *setting = object->get(field);
      if (!setting)
        continue;
      std::string text;
      if (setting->kind() == llvm::json::Value::Null)
        text = "none";
      else if (std::optional<bool> flag = setting->getAsBoolean())
        text = *flag ? "true" : "false";
      else if (std::optional<double> number = setting->getAsNumber())
        text = numberText(*number);
      else if (std::optional<StringRef> string = setting->getAsString())
        text = string->str();
      else
        return error(where(field) +
                     " is not a string, number, boolean or null");
      facts.settings.emplace_back(field, std::move(text));
    }
    const llvm::json::Array *values = object->getArray("values");
    if (!values)
      return error(where("values") + " is missing or not an array");
    for (const llvm::json::Value &entry : *values) {
      const llvm::json::Object *valueObject = entry.getAsObject();
      if (!valueObject)
        return error(where("values") + " holds a non-object entry");
      ValueFacts fact;
      std::optional<StringRef> valueName = valueObject->getString("name");
      std::optional<StringRef> decision = valueObject->getString("decision");
      if (!valueName || !decision)
        return error(where("values") +
                     " has an entry without \"name\" or \"decision\"");
      fact.name = valueName->str();
      fact.decision = decision->str();
      // What no plan writes is refused rather than compared (before
      // 2026-12-07 each passed, as "no changes" or a bogus decision).
      if (!llvm::is_contained(kDecisions, *decision))
        return error(where("values") + ": value '" + fact.name +
                     "' has decision \"" + *decision + "\"; expected one of " +
                     llvm::join(kDecisions, ", "));
      if (std::optional<int64_t> bytes = valueObject->getInteger("bytes");
          bytes && *bytes < 0)
        return error(where("values") + ": value '" + fact.name + "' has " +
                     std::to_string(*bytes) +
                     " bytes: expected a number, not negative");
      if (!facts.valueIndex.try_emplace(fact.name, facts.values.size()).second)
        return error(where("values") + " lists value '" + fact.name +
                     "' twice; a report has one entry per value");
      fact.op = valueObject->getString("op").value_or("").str();
      fact.dtype = valueObject->getString("dtype").value_or("").str();
      fact.computeClass =
          valueObject->getString("compute_class").value_or("").str();
      fact.readBy = valueObject->getString("read_by").value_or("").str();
      fact.bytes = valueObject->getInteger("bytes").value_or(0);
      if (const llvm::json::Array *shape = valueObject->getArray("shape"))
        for (const llvm::json::Value &dim : *shape)
          fact.shape.push_back(dim.getAsInteger().value_or(-1));
      if (const llvm::json::Array *sources =
              valueObject->getArray("derived_from")) {
        std::vector<std::string> names;
        for (const llvm::json::Value &source : *sources)
          names.push_back(source.getAsString().value_or("?").str());
        fact.derivation =
            valueObject->getString("derivation").value_or("?").str() +
            " from " + llvm::join(names, ", ");
      }
      if (const llvm::json::Array *tags = valueObject->getArray("tags"))
        for (const llvm::json::Value &tag : *tags)
          if (std::optional<StringRef> text = tag.getAsString())
            fact.tags.push_back(text->str());
      llvm::sort(fact.tags);
      facts.values.push_back(std::move(fact));
    }
    functions.push_back(std::move(facts));
    return llvm::Error::success();
  }

  std::string fileName;
};

std::string shapeText(const ValueFacts &value) {
  std::string text;
  for (int64_t dim : value.shape)
    text += std::to_string(dim) + "x";
  return text + value.dtype;
}

std::string tagsText(const ValueFacts &value) {
  return value.tags.empty() ? "none" : llvm::join(value.tags, ",");
}

/// Relative increase in percent; +inf when growing from zero.
double increasePercent(double before, double after) {
  if (after <= before)
    return 0;
  if (before <= 0)
    return INFINITY;
  return (after - before) / before * 100.0;
}

std::string percentText(double percent) {
  if (std::isinf(percent))
    return "from 0";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::format("+%.2f%%", percent);
  return text;
}

/// Why moving `value` from save to recompute is a regression, or empty.
std::string expensiveRecompute(const ValueFacts &before,
                               const ValueFacts &after) {
  for (const ValueFacts *facts : {&after, &before})
    for (const std::string &tag : facts->tags)
      if (tag == "never_recompute" || tag == "no_auto_recompute" ||
          tag == "prefer_save")
        return "its op is tagged " + tag + " but is now recomputed";
  StringRef computeClass = after.computeClass;
  if (computeClass == "matmul" || computeClass == "conv" ||
      computeClass == "attention")
    return "its op is compute-intensive (" + computeClass.str() +
           ") and is now recomputed";
  return "";
}

void compareFunction(const FunctionFacts &before, const FunctionFacts &after,
                     const DiffThresholds &thresholds,
                     std::vector<Change> &changes) {
  auto add = [&](ChangeKind kind, std::string value, std::string from,
                 std::string to, bool regression, std::string note) {
    changes.push_back(Change{kind, before.name, std::move(value),
                             std::move(from), std::move(to), regression, false,
                             std::move(note)});
  };
  if (before.strategy != after.strategy)
    add(ChangeKind::Strategy, "", before.strategy, after.strategy, false, "");
  if (before.target != after.target)
    add(ChangeKind::Target, "", before.target, after.target, false, "");
  for (const auto &[field, text] : before.settings)
    if (const std::string *now = after.setting(field); now && *now != text)
      add(ChangeKind::Setting, field, text, *now, false,
          "planned differently: the changes below may follow from it");
  // Growth within its threshold (in percent) is not a regression.
  auto judge = [&](ChangeKind kind, double from, double to, double limit) {
    if (from == to)
      return;
    double percent = increasePercent(from, to);
    bool regression = percent > limit;
    add(kind, "", numberText(from), numberText(to), regression,
        percent > 0 ? percentText(percent) + (regression ? " > " : " <= ") +
                          numberText(limit) + "% allowed"
                    : "decreased");
  };
  judge(ChangeKind::PeakMemory, before.peakMemory, after.peakMemory,
        thresholds.maxMemoryIncreasePercent);
  if (before.totalPeak && after.totalPeak)
    judge(ChangeKind::TotalPeakMemory, *before.totalPeak, *after.totalPeak,
          thresholds.maxMemoryIncreasePercent);
  judge(ChangeKind::RecomputeTime, before.recomputeTimeUs,
        after.recomputeTimeUs, thresholds.maxRecomputeIncreasePercent);
  if (before.savedBytes != after.savedBytes)
    add(ChangeKind::SavedBytes, "", numberText(before.savedBytes),
        numberText(after.savedBytes), false, "");
  if (before.recomputeFlops != after.recomputeFlops)
    add(ChangeKind::RecomputeFlops, "", numberText(before.recomputeFlops),
        numberText(after.recomputeFlops), false, "");

  for (const ValueFacts &old : before.values) {
    const ValueFacts *now = after.find(old.name);
    if (!now) {
      if (old.isArgument())
        add(ChangeKind::ValueRemoved, old.name, old.decision, "-", false,
            "a function argument: not a planning decision");
      else
        add(ChangeKind::ValueRemoved, old.name, old.decision, "-", true,
            "the value no longer exists");
      continue;
    }
    if (old.shape != now->shape || old.dtype != now->dtype)
      add(ChangeKind::Shape, old.name, shapeText(old), shapeText(*now), true,
          "shape or element type changed");
    if (old.decision != now->decision) {
      std::string why = old.decision == "save" && now->decision == "recompute"
                            ? expensiveRecompute(old, *now)
                            : "";
      add(ChangeKind::Decision, old.name, old.decision, now->decision,
          !why.empty(), why);
    }
    // Information; a tag's effect on the plan shows as the decision and
    // figure changes judged here (before 2026-12-07 neither was listed, and
    // a diff of nothing but a new tag said "no changes").
    if (old.tags != now->tags)
      add(ChangeKind::Tags, old.name, tagsText(old), tagsText(*now), false,
          "the op's tags changed");
    if (!old.op.empty() && !now->op.empty() && old.op != now->op)
      add(ChangeKind::Op, old.name, old.op, now->op, false,
          "another op produces the value");
    // Another rule or other sources: the memory and time it costs are
    // judged above, with the plan's.
    if (old.decision == "derive" && now->decision == "derive" &&
        old.derivation != now->derivation)
      add(ChangeKind::Derivation, old.name, old.derivation, now->derivation,
          false, "derived otherwise");
    // A plan that recomputes more reads more inputs in backward: it shows
    // in peak memory and recompute time, which are judged above.
    if (old.isArgument() && now->isArgument() && !old.readBy.empty() &&
        !now->readBy.empty() && old.readBy != now->readBy)
      add(ChangeKind::InputReadBy, old.name, old.readBy, now->readBy, false,
          "which part of backward reads this argument");
  }
  for (const ValueFacts &now : after.values)
    if (!before.find(now.name))
      add(ChangeKind::ValueAdded, now.name, "-", now.decision, false,
          now.isArgument() ? "a function argument: not a planning decision"
                           : "");
}

} // namespace

llvm::Expected<DiffResult> diffReports(StringRef oldJson, StringRef oldName,
                                       StringRef newJson, StringRef newName,
                                       const DiffThresholds &thresholds,
                                       const AllowList &allow) {
  llvm::Expected<std::vector<FunctionFacts>> before =
      ReportReader(oldName).read(oldJson);
  if (!before)
    return before.takeError();
  llvm::Expected<std::vector<FunctionFacts>> after =
      ReportReader(newName).read(newJson);
  if (!after)
    return after.takeError();

  DiffResult result;
  auto findIn = [](const std::vector<FunctionFacts> &functions,
                   StringRef name) -> const FunctionFacts * {
    for (const FunctionFacts &function : functions)
      if (function.name == name)
        return &function;
    return nullptr;
  };
  for (const FunctionFacts &old : *before) {
    const FunctionFacts *now = findIn(*after, old.name);
    if (!now) {
      result.changes.push_back(Change{ChangeKind::FunctionRemoved, old.name, "",
                                      "planned", "-", true, false,
                                      "the function is no longer planned"});
      continue;
    }
    compareFunction(old, *now, thresholds, result.changes);
  }
  for (const FunctionFacts &now : *after)
    if (!findIn(*before, now.name))
      result.changes.push_back(Change{ChangeKind::FunctionAdded, now.name, "",
                                      "-", "planned", false, false, ""});
  for (Change &change : result.changes)
    change.allowed = change.regression && allow.allows(change);
  return result;
}

void printDiff(llvm::raw_ostream &os, const DiffResult &result) {
  if (result.changes.empty()) {
    os << "remat-diff: no changes\n";
    return;
  }
  std::vector<std::array<std::string, 7>> rows;
  rows.push_back(
      {"CHANGE", "FUNCTION", "VALUE", "OLD", "NEW", "VERDICT", "NOTE"});
  for (const Change &change : result.changes) {
    std::string verdict = !change.regression ? "ok"
                          : change.allowed   ? "allowed"
                                             : "REGRESSION";
    rows.push_back({toString(change.kind).str(), change.function,
                    change.value.empty() ? "-" : change.value, change.before,
                    change.after, verdict, change.note});
  }
  std::array<size_t, 7> widths = {};
  for (const auto &row : rows)
    for (size_t column = 0; column < row.size(); ++column)
      widths[column] = std::max(widths[column], row[column].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t column = 0; column < row.size(); ++column) {
      line += row[column];
      if (column + 1 < row.size())
        line.append(widths[column] - row[column].size() + 2, ' ');
    }
    os << StringRef(line).rtrim() << "\n";
  }
  size_t regressions = result.numRegressions();
  size_t allowed = result.numAllowedRegressions();
  os << "remat-diff: " << result.changes.size() << " change(s), " << regressions
     << " regression(s)";
  if (allowed)
    os << ", " << allowed << " allowed by the allow file";
  os << "\n";
  // An op's value without a name of its own is named by its SSA number,
  // which an op added before it shifts: its "changes" may be a renumbering
  // (an argument's %argN shifts only with the signature).
  size_t numbered = llvm::count_if(result.changes, [](const Change &change) {
    StringRef value = change.value;
    return value.starts_with("%") && !value.starts_with("%arg");
  });
  if (numbered)
    os << "remat-diff: note: " << numbered
       << " change(s) are of values named by their SSA number (%N), which "
          "an op added or removed before them shifts; name them "
          "(remat.name or a location name) to compare them across edits\n";
}

} // namespace remat
