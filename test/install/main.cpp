//===- main.cpp - out-of-tree consumer of the installed remat package -----===//
//
// Part of remat. Proves that another MLIR compiler can link remat from its
// installed CMake package: register the dialect (and the external models on
// upstream ops), parse and verify a remat module, read planner facts through
// PlannerOpInterface, and see the dialect's verifier reject bad tags.
// run-consumer-test.sh checks the lines this prints.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/InitAllRemat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace {

// 64x128 times 128x32: 2 * 64 * 32 * 128 = 524288 FLOPs. The add is the
// upstream arith.addf, planned through the external model (one FLOP per
// element, 64 * 32 = 2048).
constexpr const char *kValidModule = R"mlir(
func.func @layer(%x: tensor<64x128xbf16> {remat.role = "input"},
                 %w: tensor<128x32xbf16> {remat.role = "param"},
                 %b: tensor<64x32xbf16> {remat.role = "param"})
    -> (tensor<64x32xbf16> {remat.role = "output"})
    attributes {remat.graph = "forward"} {
  %0 = remat.matmul %x, %w {remat.name = "query_proj", remat.no_auto_recompute}
      : (tensor<64x128xbf16>, tensor<128x32xbf16>) -> tensor<64x32xbf16>
  %1 = arith.addf %0, %b {remat.name = "bias"} : tensor<64x32xbf16>
  return %1 : tensor<64x32xbf16>
}
)mlir";

constexpr const char *kContradictoryModule = R"mlir(
func.func @bad(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = remat.add %a, %a {remat.never_recompute, remat.must_recompute} : tensor<8xf32>
  return %0 : tensor<8xf32>
}
)mlir";

std::string nameOf(mlir::Operation *op) {
  if (auto name = op->getAttrOfType<mlir::StringAttr>("remat.name"))
    return name.str();
  return "<unnamed>";
}

} // namespace

int main() {
  remat::registerAllRematPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  remat::registerAllRematDialects(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kValidModule, &context);
  if (!module) {
    llvm::errs() << "remat-consumer: the valid module did not parse\n";
    return 1;
  }
  if (mlir::failed(mlir::verify(*module))) {
    llvm::errs() << "remat-consumer: the valid module did not verify\n";
    return 1;
  }
  llvm::outs() << "verified: " << module->getName().value_or("module") << "\n";

  int plannedOps = 0;
  module->walk([&](remat::PlannerOpInterface planned) {
    mlir::Operation *op = planned.getOperation();
    llvm::outs() << op->getName() << " " << nameOf(op)
                 << " flops=" << static_cast<int64_t>(planned.estimateFlops())
                 << " bytes_read=" << planned.estimateBytesRead()
                 << " bytes_written=" << planned.estimateBytesWritten()
                 << " class=" << remat::toString(planned.classifyCompute())
                 << " no_auto_recompute="
                 << (op->hasAttr("remat.no_auto_recompute") ? "yes" : "no")
                 << "\n";
    ++plannedOps;
  });
  llvm::outs() << "planned ops: " << plannedOps << "\n";

  // The dialect's attribute verifier travels with the library too.
  std::string diagnostic;
  {
    mlir::ScopedDiagnosticHandler capture(&context,
                                          [&](mlir::Diagnostic &diag) {
                                            diagnostic = diag.str();
                                            return mlir::success();
                                          });
    mlir::OwningOpRef<mlir::ModuleOp> bad =
        mlir::parseSourceString<mlir::ModuleOp>(kContradictoryModule, &context);
    if (bad) {
      llvm::errs() << "remat-consumer: contradictory tags were accepted\n";
      return 1;
    }
  }
  llvm::outs() << "rejected: " << diagnostic << "\n";
  return 0;
}
