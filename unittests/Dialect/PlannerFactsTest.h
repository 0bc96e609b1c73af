//===- PlannerFactsTest.h - Fixture for PlannerOpInterface tests -*- C++ -*-===//
//
// Part of remat. Parses a small function and finds ops by their `remat.name`
// tag, so tests can check the facts the planner reads through
// PlannerOpInterface (lit cannot observe them).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_UNITTESTS_DIALECT_PLANNERFACTSTEST_H
#define REMAT_UNITTESTS_DIALECT_PLANNERFACTSTEST_H

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace remat::test {

class PlannerFactsTest : public ::testing::Test {
protected:
  PlannerFactsTest() {
    context.loadDialect<RematDialect, mlir::func::FuncDialect,
                        mlir::arith::ArithDialect>();
  }

  /// Parses `body` as the body of a function with the given arguments; the
  /// module must also verify, so a shape mistake in a test shows up here.
  void parse(const std::string &arguments, const std::string &body) {
    std::string source =
        "func.func @f(" + arguments + ") {\n" + body + "\n  return\n}\n";
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    ASSERT_TRUE(module) << "failed to parse or verify:\n" << source;
  }

  /// The op tagged {remat.name = name}, as the planner sees it.
  PlannerOpInterface op(llvm::StringRef name) {
    PlannerOpInterface found;
    if (!module)
      return found; // parse() already reported the failure.
    module->walk([&](mlir::Operation *candidate) {
      auto tag = candidate->getAttrOfType<mlir::StringAttr>("remat.name");
      if (tag && tag.getValue() == name)
        found = mlir::dyn_cast<PlannerOpInterface>(candidate);
    });
    EXPECT_TRUE(found) << "no op implementing PlannerOpInterface named "
                       << name.str();
    return found;
  }

  std::vector<InverseRule> rules(llvm::StringRef name) {
    llvm::SmallVector<InverseRule> collected;
    if (PlannerOpInterface planned = op(name))
      planned.getInverseRules(collected);
    return {collected.begin(), collected.end()};
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

} // namespace remat::test

#endif // REMAT_UNITTESTS_DIALECT_PLANNERFACTSTEST_H
