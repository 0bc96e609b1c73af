//===- ExternalModels.h - PlannerOpInterface for upstream ops ---*- C++ -*-===//
//
// Part of remat. Attaches PlannerOpInterface to upstream arith, math, tensor
// and linalg ops so the planner works on linalg-on-tensors programs from
// other compilers.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INTERFACES_EXTERNALMODELS_H
#define REMAT_INTERFACES_EXTERNALMODELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace remat {
void registerPlannerExternalModels(mlir::DialectRegistry &registry);
} // namespace remat

#endif // REMAT_INTERFACES_EXTERNALMODELS_H
