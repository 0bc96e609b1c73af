//===- Autodiff.h - Reverse-mode autodiff of forward functions --*- C++ -*-===//
//
// Part of remat. The transformation behind `remat-autodiff`, callable
// without a pass manager (the gradient checker builds joint functions with
// it directly).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_AUTODIFF_AUTODIFF_H
#define REMAT_AUTODIFF_AUTODIFF_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace remat {

/// True for a function marked `remat.graph = "forward"`.
bool isForwardFunction(mlir::func::FuncOp func);

/// The symbol name of the joint function built for `forwardName` when it is
/// added next to the forward one: `<forwardName>_joint`.
std::string jointFunctionName(llvm::StringRef forwardName);

/// What buildJointFunction produced, for statistics and callers that want to
/// map gradients back to arguments.
struct JointFunctionInfo {
  mlir::func::FuncOp joint;
  /// Ops emitted for the backward pass (the rest of the body is the cloned
  /// forward).
  unsigned numBackwardOps = 0;
  /// For each result of the forward function, the index of its tangent
  /// argument in the joint function, or -1 (integer results get none).
  llvm::SmallVector<int> tangentArgOfResult;
  /// For each gradient result of the joint function (in order, after the
  /// forward outputs), the forward argument it is the gradient of.
  llvm::SmallVector<unsigned> gradOfArg;
};

/// Builds the joint (forward + backward) function of `forward`, a
/// `remat.graph = "forward"` function, and inserts it right after `forward`
/// under the symbol `jointName` (which must be free). Arguments: the
/// forward's, then one tangent per floating-point result. Results: the
/// forward outputs, then the gradient of every floating-point `input` /
/// `param` argument. On failure nothing is inserted and a diagnostic names
/// the op or argument at fault.
mlir::FailureOr<JointFunctionInfo>
buildJointFunction(mlir::func::FuncOp forward, llvm::StringRef jointName);

} // namespace remat

#endif // REMAT_AUTODIFF_AUTODIFF_H
