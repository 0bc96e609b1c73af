//===- RematAutodiff.cpp - The remat-autodiff pass ------------------------===//
//
// Part of remat. Collects the forward functions of the module and builds the
// joint function of each through buildJointFunction (Autodiff.cpp).
//
//===----------------------------------------------------------------------===//

#include "remat/Autodiff/Passes.h"

#include "remat/Autodiff/Autodiff.h"

#include "mlir/IR/SymbolTable.h"

namespace remat {
#define GEN_PASS_DEF_REMATAUTODIFFPASS
#include "remat/Autodiff/Passes.h.inc"
} // namespace remat

using namespace mlir;
using namespace remat;

namespace {

struct RematAutodiffPass final
    : public remat::impl::RematAutodiffPassBase<RematAutodiffPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> forwards;
    for (auto func : module.getOps<func::FuncOp>())
      if (isForwardFunction(func))
        forwards.push_back(func);
    if (forwards.empty()) {
      markAllAnalysesPreserved();
      return;
    }

    bool failedAny = false;
    for (func::FuncOp forward : forwards) {
      std::string forwardName = forward.getSymName().str();
      if (replace &&
          !SymbolTable::symbolKnownUseEmpty(forward.getSymNameAttr(), module)) {
        forward.emitError()
            << "cannot replace @" << forwardName
            << " by its joint function: it is referenced elsewhere in the "
               "module and the joint function has another signature; run "
               "remat-autodiff without replace=true";
        failedAny = true;
        continue;
      }
      // With replace=true, build under a temporary unique name, then take
      // over the forward function's name.
      std::string jointName = jointFunctionName(forwardName);
      if (replace) {
        unsigned suffix = 0;
        while (SymbolTable::lookupSymbolIn(module, jointName))
          jointName =
              jointFunctionName(forwardName) + "_" + std::to_string(++suffix);
      }
      FailureOr<JointFunctionInfo> info =
          buildJointFunction(forward, jointName);
      if (failed(info)) {
        failedAny = true;
        continue;
      }
      ++numJointFunctions;
      numBackwardOps += info->numBackwardOps;
      if (replace) {
        forward.erase();
        info->joint.setSymName(forwardName);
      }
    }
    if (failedAny)
      signalPassFailure();
  }
};

} // namespace
