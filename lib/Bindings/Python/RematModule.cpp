//===- RematModule.cpp - Python bindings to remat's planner -----*- C++ -*-===//
//
// Part of remat. The `remat._remat` extension module: plans a joint function
// given as remat `.mlir` text in this process, with exactly the passes
// `remat-opt -remat-plan=... -remat-report=...` runs, and returns the report.
// Frontends (python/remat_torch, ...) build the text, the planner parses it
// once in memory: no process start, no files. Errors come back as values
// (one line per diagnostic, no op dump), never as a crash.
//
//===----------------------------------------------------------------------===//

#include "remat/InitAllRemat.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/AnalysisManager.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>

#include <chrono>
#include <mutex>
#include <string>
#include <tuple>

namespace py = pybind11;
using namespace mlir;

namespace {

/// What one planning call produced.
struct PlanOutcome {
  bool ok = false;
  std::string report;      // the remat-report text (json or text)
  std::string diagnostics; // one line per error/warning, with notes
  double parseSeconds = 0;
  double planSeconds = 0;
  double reportSeconds = 0;
};

const DialectRegistry &registry() {
  static DialectRegistry *instance = [] {
    auto *registry = new DialectRegistry();
    registerAllDialects(*registry);
    registerAllExtensions(*registry);
    remat::registerAllRematDialects(*registry);
    return registry;
  }();
  return *instance;
}

void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { remat::registerAllRematPasses(); });
}

/// "loc: error: message" and its notes, one line each: what a terminal user
/// of remat-opt reads, without the op MLIR would otherwise print.
void appendDiagnostic(std::string &out, Diagnostic &diagnostic) {
  llvm::raw_string_ostream os(out);
  auto line = [&](Diagnostic &d) {
    Location location = d.getLocation();
    if (auto file = dyn_cast<FileLineColLoc>(location)) {
      os << file.getFilename().getValue() << ":" << file.getLine() << ":"
         << file.getColumn() << ": ";
    } else if (!isa<UnknownLoc>(location)) {
      location.print(os);
      os << ": ";
    }
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << d.str() << "\n";
  };
  line(diagnostic);
  for (Diagnostic &note : diagnostic.getNotes())
    line(note);
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

PlanOutcome planSource(const std::string &source, const std::string &options,
                       const std::string &format) {
  PlanOutcome outcome;
  registerPassesOnce();
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.printOpOnDiagnostic(false);
  context.printStackTraceOnDiagnostic(false);
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Remark)
      appendDiagnostic(outcome.diagnostics, diagnostic);
    return success();
  });

  auto start = std::chrono::steady_clock::now();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(source, "<remat input>",
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  outcome.parseSeconds = secondsSince(start);
  if (!module)
    return outcome;

  start = std::chrono::steady_clock::now();
  PassManager pm(&context, ModuleOp::getOperationName());
  std::string pipeline = "remat-plan{" + options + "}";
  std::string pipelineErrors;
  llvm::raw_string_ostream pipelineErrorStream(pipelineErrors);
  if (failed(parsePassPipeline(pipeline, pm, pipelineErrorStream))) {
    outcome.diagnostics += "error: bad planner options '" + options +
                           "': " + pipelineErrors + "\n";
    return outcome;
  }
  if (failed(pm.run(*module)))
    return outcome;
  outcome.planSeconds = secondsSince(start);

  start = std::chrono::steady_clock::now();
  ModuleAnalysisManager analyses(*module, /*passInstrumentor=*/nullptr);
  llvm::raw_string_ostream report(outcome.report);
  if (failed(remat::writeRematReport(*module, analyses, format, report)))
    return outcome;
  outcome.reportSeconds = secondsSince(start);
  outcome.ok = true;
  return outcome;
}

} // namespace

PYBIND11_MODULE(_remat, m) {
  m.doc() = "remat's planner in-process: plan(mlir_text, options, format)";
  m.def(
      "plan",
      [](const std::string &source, const std::string &options,
         const std::string &format) {
        PlanOutcome outcome;
        {
          py::gil_scoped_release release;
          outcome = planSource(source, options, format);
        }
        py::dict timing;
        timing["parse"] = outcome.parseSeconds;
        timing["plan"] = outcome.planSeconds;
        timing["report"] = outcome.reportSeconds;
        return std::make_tuple(outcome.ok, outcome.report,
                               outcome.diagnostics, timing);
      },
      py::arg("source"), py::arg("options") = "", py::arg("format") = "json",
      "Plans every joint function of `source` (remat .mlir text) as "
      "`remat-opt -remat-plan='{options}' -remat-report=format={format}` "
      "does. Returns (ok, report text, diagnostics text, timing seconds).");
}
