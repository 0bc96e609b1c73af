//===- InitAllRemat.h - Register everything remat provides ------*- C++ -*-===//
//
// Part of remat. One call for a compiler that links remat: the dialect, the
// external interface models on upstream ops and the passes.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_INITALLREMAT_H
#define REMAT_INITALLREMAT_H

#include "remat/Autodiff/Passes.h"
#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/ExternalModels.h"
#include "remat/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"

namespace remat {

inline void registerAllRematDialects(mlir::DialectRegistry &registry) {
  registry.insert<RematDialect>();
  registerPlannerExternalModels(registry);
}

/// remat-autodiff (needs MLIRRematAutodiff), remat-plan, remat-partition,
/// remat-report and remat-pipeline (needs MLIRRematTransforms) and the
/// lowering passes (needs MLIRRematConversion).
inline void registerAllRematPasses() {
  registerRematAutodiffPasses();
  registerRematPasses();
  registerRematPipelines();
  registerRematConversionPasses();
}

} // namespace remat

#endif // REMAT_INITALLREMAT_H
