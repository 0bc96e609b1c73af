//===- ExternalModels.cpp - PlannerOpInterface for upstream ops -----------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "remat/Interfaces/ExternalModels.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

namespace {
/// Pointwise arith ops: defaults (one FLOP per element, operand/result bytes).
template <typename OpTy>
struct PointwiseModel
    : public remat::PlannerOpInterface::ExternalModel<PointwiseModel<OpTy>,
                                                       OpTy> {};
} // namespace

void remat::registerPlannerExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<PointwiseModel<arith::AddFOp>>(*context);
  });
}
