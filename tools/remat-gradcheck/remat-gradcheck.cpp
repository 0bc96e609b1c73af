//===- remat-gradcheck.cpp - Check remat-autodiff by finite differences ---===//
//
// Part of remat. For every forward function of a .mlir file: builds its
// joint function with remat-autodiff, runs both on the host and compares
// every gradient with central finite differences (lib/Autodiff/
// GradientCheck.cpp). Exits with 1 when a gradient is wrong.
//
//===----------------------------------------------------------------------===//

#include "remat/Autodiff/GradientCheck.h"
#include "remat/InitAllRemat.h"
#include "remat/Tools/DiagnosticOptions.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

/// Every option of remat-gradcheck; --help lists only these (and MLIR's
/// -mlir-print-op-on-diagnostic), not LLVM's back-end options.
static cl::OptionCategory gradcheckCategory("remat-gradcheck options");

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                 cl::Required, cl::cat(gradcheckCategory));
  cl::list<std::string> functions(
      "function", cl::desc("Check only this forward function (repeatable)"),
      cl::cat(gradcheckCategory));
  cl::opt<uint64_t> seed("seed", cl::desc("Seed of inputs and probes"),
                         cl::init(1), cl::cat(gradcheckCategory));
  cl::opt<double> epsilon("eps", cl::desc("Finite-difference step"),
                          cl::init(1e-3), cl::cat(gradcheckCategory));
  cl::opt<double> relTolerance("rtol", cl::desc("Relative tolerance"),
                               cl::init(1e-3), cl::cat(gradcheckCategory));
  cl::opt<double> roundingUlps(
      "rounding-ulps",
      cl::desc("f32 rounding allowance per forward output, in ulps"),
      cl::init(8.0), cl::cat(gradcheckCategory));
  cl::opt<int64_t> maxExhaustive(
      "max-exhaustive",
      cl::desc("Probe every element of gradients up to this size"),
      cl::init(64), cl::cat(gradcheckCategory));
  cl::opt<unsigned> directions(
      "directions", cl::desc("Random +-1 directions for larger gradients"),
      cl::init(3), cl::cat(gradcheckCategory));
  cl::opt<unsigned> elementProbes(
      "element-probes", cl::desc("Random elements for larger gradients"),
      cl::init(8), cl::cat(gradcheckCategory));
  cl::opt<bool> noWiden("no-widen",
                        cl::desc("Keep bf16/f16 instead of widening to f32"),
                        cl::init(false), cl::cat(gradcheckCategory));
  cl::opt<double> gradientScale(
      "scale-gradients",
      cl::desc("Multiply autodiff gradients by this factor before comparing "
               "(1.0; other values check that the check can fail)"),
      cl::init(1.0), cl::cat(gradcheckCategory));
  remat::registerDiagnosticOptions(&gradcheckCategory);
  cl::HideUnrelatedOptions(gradcheckCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-gradcheck: check remat-autodiff gradients against central "
      "finite differences on the host\n");

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  remat::registerAllRematDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputFile, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return 1;

  remat::GradientCheckOptions options;
  options.seed = seed;
  options.epsilon = epsilon;
  options.relTolerance = relTolerance;
  options.roundingUlps = roundingUlps;
  options.maxExhaustiveElements = maxExhaustive;
  options.numDirections = directions;
  options.numElementProbes = elementProbes;
  options.widenToF32 = !noWiden;
  options.gradientScale = gradientScale;
  options.functions.assign(functions.begin(), functions.end());

  auto results = remat::checkGradients(*module, options);
  if (!results) {
    llvm::errs() << "remat-gradcheck: " << llvm::toString(results.takeError())
                 << "\n";
    return 1;
  }
  remat::printGradientCheckReport(llvm::outs(), *results, options);
  unsigned failed = llvm::count_if(
      *results, [](const auto &result) { return !result.passed(); });
  llvm::outs() << (failed ? "FAIL" : "PASS") << ": " << results->size() - failed
               << " of " << results->size()
               << " function(s) have correct gradients\n";
  return failed ? 1 : 0;
}
