//===- remat-diff.cpp - Compare two remat reports in CI
//--------------------===//
//
// Part of remat. `remat-diff OLD.json NEW.json [--max-memory-increase=2%]
// [--max-recompute-increase=1%] [--allow=FILE]` prints every change between
// two remat-report JSON files and exits 1 on a regression, 2 on bad input.
// The logic lives in lib/Tools/ReportDiff.cpp.
//
//===----------------------------------------------------------------------===//

#include "remat/Tools/ReportDiff.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

static cl::OptionCategory diffCategory("remat-diff options");
static cl::opt<std::string> oldReport(cl::Positional, cl::Required,
                                      cl::desc("<old report.json>"),
                                      cl::cat(diffCategory));
static cl::opt<std::string> newReport(cl::Positional, cl::Required,
                                      cl::desc("<new report.json>"),
                                      cl::cat(diffCategory));
static cl::opt<std::string> maxMemoryIncrease(
    "max-memory-increase",
    cl::desc("Largest accepted increase of peak memory (default 2%)"),
    cl::init("2%"), cl::cat(diffCategory));
static cl::opt<std::string> maxRecomputeIncrease(
    "max-recompute-increase",
    cl::desc("Largest accepted increase of predicted recompute time "
             "(default 1%)"),
    cl::init("1%"), cl::cat(diffCategory));
static cl::opt<std::string> allowFile("allow",
                                      cl::desc("File of accepted changes (see "
                                               "docs/UserGuide.md)"),
                                      cl::value_desc("file"), cl::init(""),
                                      cl::cat(diffCategory));

static int fail(const Twine &message) {
  WithColor::error(errs(), "remat-diff") << message << "\n";
  return 2;
}

static Expected<std::string> readFile(StringRef path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFileOrSTDIN(path);
  if (!buffer)
    return createStringError("cannot read " + path + ": " +
                             buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(diffCategory);
  // A command line cl cannot parse is bad input (2), never the regression
  // status (1) that cl's own exit would give a CI job.
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "remat-diff: compare two remat-report JSON files; exit 1 on a "
          "regression, 2 on bad input\n",
          &errs()))
    return 2;

  remat::DiffThresholds thresholds;
  Expected<double> memory = remat::parsePercent(maxMemoryIncrease);
  if (!memory)
    return fail("--max-memory-increase: " + toString(memory.takeError()));
  thresholds.maxMemoryIncreasePercent = *memory;
  Expected<double> recompute = remat::parsePercent(maxRecomputeIncrease);
  if (!recompute)
    return fail("--max-recompute-increase: " + toString(recompute.takeError()));
  thresholds.maxRecomputeIncreasePercent = *recompute;

  remat::AllowList allow;
  if (!allowFile.empty()) {
    Expected<std::string> text = readFile(allowFile);
    if (!text)
      return fail(toString(text.takeError()));
    Expected<remat::AllowList> parsed = remat::parseAllowList(*text, allowFile);
    if (!parsed)
      return fail(toString(parsed.takeError()));
    allow = std::move(*parsed);
  }

  Expected<std::string> oldText = readFile(oldReport);
  if (!oldText)
    return fail(toString(oldText.takeError()));
  Expected<std::string> newText = readFile(newReport);
  if (!newText)
    return fail(toString(newText.takeError()));
  Expected<remat::DiffResult> result = remat::diffReports(
      *oldText, oldReport, *newText, newReport, thresholds, allow);
  if (!result)
    return fail(toString(result.takeError()));
  remat::printDiff(outs(), *result);
  // A diff nobody can read is no verdict: exit 2, not LLVM's fatal "IO
  // failure" at exit, whose 1 a CI job reads as a regression.
  outs().flush();
  if (std::error_code error = outs().error()) {
    outs().clear_error();
    return fail("cannot write the diff to standard output: " + error.message());
  }
  return result->numRegressions() ? 1 : 0;
}
