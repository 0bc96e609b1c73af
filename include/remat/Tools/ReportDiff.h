//===- ReportDiff.h - Compare two remat-report JSON files -------*- C++ -*-===//
//
// Part of remat. The logic of the remat-diff CLI: compares two reports
// written by -remat-report{format=json}, lists every change and decides
// which ones are regressions a CI job should fail on. MLIR-free (LLVM's JSON
// parser only).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TOOLS_REPORTDIFF_H
#define REMAT_TOOLS_REPORTDIFF_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace remat {

struct DiffThresholds {
  /// Largest accepted relative increase of peak_memory_bytes (and of
  /// total_peak_bytes), in percent.
  double maxMemoryIncreasePercent = 2.0;
  /// Largest accepted relative increase of predicted_recompute_time_us.
  double maxRecomputeIncreasePercent = 1.0;
};

/// "2%", "2" (both percent) or "0.5%"; fails on anything else or < 0.
llvm::Expected<double> parsePercent(llvm::StringRef text);

enum class ChangeKind {
  FunctionRemoved, // regression
  FunctionAdded,
  ValueRemoved, // regression, unless the value is a function argument
  ValueAdded,
  Shape,         // shape or dtype changed: regression
  Decision,      // regression when save -> recompute of an expensive/tagged op
  PeakMemory,    // regression above the threshold
  RecomputeTime, // regression above the threshold
  SavedBytes,
  RecomputeFlops,
  Strategy,
  Target,
  InputReadBy,     // which part of backward reads an argument: information
  TotalPeakMemory, // with inputs, parameters, tangents: as peak-memory
  Setting,         // a planner setting (policy, budget, ...): information
  Derivation, // a derived value derived otherwise (rule, sources): information
  Tags,       // a value's op tags (never_recompute, ...): information
  Op,         // the op producing a value: information
};
/// The spelling used in the table and in allow files, e.g. "peak-memory".
llvm::StringRef toString(ChangeKind kind);

struct Change {
  ChangeKind kind;
  std::string function;
  std::string value; // empty for function-level changes
  std::string before, after;
  bool regression = false;
  bool allowed = false; // a regression accepted by the allow file
  std::string note;     // why it is (or is not) a regression
};

/// Accepted changes, one per line:
///
///   # comment
///   <change> <function> [<value> [<from>-><to>]]
///
/// <change> is a ChangeKind spelling (decision, value-removed, shape,
/// peak-memory, recompute-time, function-removed, ...); <function> and
/// <value> are glob patterns (`*`, `attn_*`); the optional transition limits
/// a `decision` rule to one decision change, e.g. `save->recompute`.
struct AllowRule {
  ChangeKind kind;
  std::string functionPattern;
  std::string valuePattern;             // "*" when omitted
  std::string fromDecision, toDecision; // empty: any
  unsigned line = 0;
};

struct AllowList {
  std::vector<AllowRule> rules;
  bool allows(const Change &change) const;
};

/// Parses an allow file; errors name the line and what is wrong.
llvm::Expected<AllowList> parseAllowList(llvm::StringRef text,
                                         llvm::StringRef fileName);

struct DiffResult {
  std::vector<Change> changes;
  size_t numRegressions() const;        // not allowed
  size_t numAllowedRegressions() const; // accepted by the allow file
};

/// Compares two reports (a JSON object per function, or an array of them).
/// Errors name the file and the malformed field.
llvm::Expected<DiffResult>
diffReports(llvm::StringRef oldJson, llvm::StringRef oldName,
            llvm::StringRef newJson, llvm::StringRef newName,
            const DiffThresholds &thresholds, const AllowList &allow);

/// One row per change, aligned columns, then a summary line.
void printDiff(llvm::raw_ostream &os, const DiffResult &result);

} // namespace remat

#endif // REMAT_TOOLS_REPORTDIFF_H
