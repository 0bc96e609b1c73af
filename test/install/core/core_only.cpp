//===- core_only.cpp - a framework linking only the installed core --------===//
//
// Part of remat. Builds a two-op training graph with the core's API (no MLIR,
// no LLVM), plans it with min-cut and prints each decision and the error
// for a graph that is not in topological order.
// run-consumer-test.sh checks the lines this prints.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Graph.h"
#include "remat/Core/Planner.h"

#include <iostream>
#include <string>
#include <vector>

namespace {

int fail(const char *what, const absl::Status &status) {
  std::cerr << "remat-core-consumer: " << what << ": " << status << "\n";
  return 1;
}

} // namespace

int main() {
  remat::TensorType type{{1024, 1024}, remat::DType::F32};
  remat::Graph graph;
  remat::ValueId x = graph.addInput("x", type, remat::InputRole::Input);
  remat::ValueId dy = graph.addInput("dy", type, remat::InputRole::Tangent);

  // One elementwise op (one flop per element) with one result.
  auto addElementwise = [&](const char *name, const char *kind,
                            std::vector<remat::ValueId> operands,
                            const char *result) {
    remat::GraphOp op;
    op.name = name;
    op.kind = kind;
    op.operands = std::move(operands);
    op.flops = 1024 * 1024;
    return graph.addOp(op, {type}, {result});
  };

  // Forward: y = exp(x), an elementwise op backward reads; z = y + x is the
  // forward's result.
  absl::StatusOr<remat::OpId> expOp =
      addElementwise("exp", "remat.exp", {x}, "y");
  if (!expOp.ok())
    return fail("adding exp", expOp.status());
  remat::ValueId y = graph.op(*expOp).results.front();
  absl::StatusOr<remat::OpId> addOp =
      addElementwise("residual", "remat.add", {y, x}, "z");
  if (!addOp.ok())
    return fail("adding residual", addOp.status());
  graph.markOutput(graph.op(*addOp).results.front(), remat::OutputRole::Output);

  // Backward: dx = dy * y.
  absl::StatusOr<remat::OpId> mulOp =
      addElementwise("exp_bwd", "remat.mul", {dy, y}, "dx");
  if (!mulOp.ok())
    return fail("adding exp_bwd", mulOp.status());
  graph.markOutput(graph.op(*mulOp).results.front(),
                   remat::OutputRole::Gradient);

  remat::PlanOptions options;
  options.strategy = remat::Strategy::MinCut;
  absl::StatusOr<remat::Plan> plan =
      remat::planRematerialization(graph, options);
  if (!plan.ok())
    return fail("planning", plan.status());
  // The decision of each value (the reasons quote the cost model's figures,
  // which this test does not pin).
  for (const remat::ValueDecision &decision : plan->decisions)
    std::cout << "core: " << graph.value(decision.value).name << " "
              << remat::toString(decision.decision) << "\n";

  // A bad graph gets an error, not a crash.
  remat::Graph cyclic = graph;
  cyclic.mutableOp(*expOp).operands = {graph.op(*mulOp).results.front()};
  absl::StatusOr<remat::Plan> refused =
      remat::planRematerialization(cyclic, options);
  std::cout << "core: refused: "
            << (refused.ok() ? std::string("nothing")
                             : std::string(refused.status().message()))
            << "\n";
  return 0;
}
