//===- MlirPipelineFuzzer.cpp - Fuzz parse -> plan -> partition -----------===//
//
// Part of remat. Treats the fuzzer's bytes as `.mlir` text and runs what
// `remat-opt --remat-plan --remat-partition` runs, in process: parse, verify,
// then for each of save-all, recompute-all, min-cut and budget (0.5) plan and
// partition a clone of the module with the verifier on after every pass.
// Diagnostics are swallowed: rejecting bad input is the expected outcome.
// The checks: nothing crashes (ASan/UBSan watch our code), and when
// `remat-plan` succeeds, `remat-partition` succeeds too and its result
// verifies: a plan the planner accepted must turn into a valid program.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/ExternalModels.h"
#include "remat/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

/// The dialects the tests and examples use; everything else is a parse
/// error, as in a remat-opt that only knows these.
MLIRContext &getContext() {
  static MLIRContext *context = [] {
    remat::registerRematPasses();
    DialectRegistry registry;
    registry
        .insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                math::MathDialect, tensor::TensorDialect>();
    registry.insert<remat::RematDialect>();
    remat::registerPlannerExternalModels(registry);
    auto *created = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    return created;
  }();
  return *context;
}

/// `remat-plan` options, one pipeline each.
constexpr const char *kPlanOptions[] = {
    "strategy=save-all",
    "strategy=recompute-all",
    "strategy=min-cut",
    "strategy=budget memory-budget=0.5",
};

[[noreturn]] void fail(const std::string &what, ModuleOp module,
                       const std::string &diagnostics) {
  llvm::errs() << "mlir pipeline fuzzer: " << what << "\n"
               << diagnostics << "\n";
  module->print(llvm::errs(), OpPrintingFlags().printGenericOpForm());
  llvm::errs() << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = getContext();
  std::string diagnostics;
  ScopedDiagnosticHandler silence(&context, [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += diagnostic.str() + "\n";
    return success();
  });

  // MLIR's lexer reads up to a terminating NUL, as files loaded through
  // llvm::MemoryBuffer have; libFuzzer's buffer has none, so copy it into a
  // std::string (whose data() is NUL-terminated).
  std::string text(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, config, "fuzz-input");
  if (!module || failed(verify(*module)))
    return 0;

  for (const char *planOptions : kPlanOptions) {
    OwningOpRef<ModuleOp> clone = module->clone();
    diagnostics.clear();

    PassManager plan(&context);
    if (failed(parsePassPipeline(std::string("builtin.module(remat-plan{") +
                                     planOptions + "})",
                                 plan)))
      fail("cannot build the remat-plan pipeline", *clone, diagnostics);
    if (failed(plan.run(*clone)))
      continue; // rejected cleanly

    PassManager partition(&context);
    if (failed(parsePassPipeline("builtin.module(remat-partition)", partition)))
      fail("cannot build the remat-partition pipeline", *clone, diagnostics);
    if (failed(partition.run(*clone)))
      fail(std::string("remat-plan{") + planOptions +
               "} succeeded but remat-partition failed",
           *clone, diagnostics);
    if (failed(verify(*clone)))
      fail(std::string("the module partitioned after remat-plan{") +
               planOptions + "} does not verify",
           *clone, diagnostics);
  }
  return 0;
}
