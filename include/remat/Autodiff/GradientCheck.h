//===- GradientCheck.h - Finite-difference check of remat-autodiff -*- C++
//-*-===//
//
// Part of remat. Checks the gradients that remat-autodiff produces against
// central finite differences of the forward function, both compiled for the
// host by remat::Runner (remat-lower-to-cpu + ExecutionEngine).
//
// For a forward function F with outputs y_j and seeded random tangents t_j,
// the scalar checked is L(x) = sum_j <t_j, y_j(x)>; the joint function
// returns dL/dx for every differentiated argument. Each gradient g of an
// argument x is probed along perturbations v (every unit vector when x is
// small, otherwise a few random +-1 directions and a few random unit
// vectors, as the random-projection checks of JAX's check_grads and
// PyTorch's fast gradcheck do):
//
//   fd = L(x + eps v) - L(x - eps v)      ad = <g, (x + eps v) - (x - eps v)>
//
// using the perturbed inputs as actually rounded, so input rounding is not
// an error source. The check passes when
//
//   |fd - ad| <= relTolerance * max(|fd|, |ad|)
//                + roundingUlps * 2^-24 * sum_i |t_i| (|y_i(x+)| + |y_i(x-)|)
//
// where the sum runs over the outputs that changed. The first term covers
// the O(eps^2) truncation error of the central difference; the second
// bounds the f32 rounding error of the two forward evaluations (each output
// within `roundingUlps` units in the last place of its value; outputs that
// did not change cancel exactly). bf16 / f16 functions are first widened to
// f32 (the lowering computes in f32 anyway), since finite differences at
// 8-bit mantissa precision are meaningless.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_AUTODIFF_GRADIENTCHECK_H
#define REMAT_AUTODIFF_GRADIENTCHECK_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace remat {

struct GradientCheckOptions {
  /// Seeds the inputs and tangents (remat::makeSeededInputs) and the probes.
  uint64_t seed = 1;
  /// Finite-difference step, in units of the inputs (which lie in [-1, 1)).
  double epsilon = 1e-3;
  /// Relative tolerance (truncation error of the central difference).
  double relTolerance = 1e-3;
  /// Rounding allowance per forward output, in f32 units in the last place.
  double roundingUlps = 8.0;
  /// Gradients with at most this many elements are probed element by
  /// element; larger ones by `numDirections` random +-1 directions and
  /// `numElementProbes` random elements.
  int64_t maxExhaustiveElements = 64;
  unsigned numDirections = 3;
  unsigned numElementProbes = 8;
  /// Widen bf16 / f16 tensors of the function to f32 before checking.
  bool widenToF32 = true;
  /// Multiplies every autodiff gradient by this factor before comparing:
  /// 1.0 for a real check; the tests use another value to show that the
  /// check fails on a gradient that is off by that factor.
  double gradientScale = 1.0;
  /// Only check the forward functions with these names (all when empty).
  std::vector<std::string> functions;
};

/// The check of one gradient (one differentiated argument).
struct GradientCheckResult {
  unsigned argument = 0;
  std::string role;
  std::string type;
  unsigned numProbes = 0;
  /// |fd - ad| / (2 eps) of the probe nearest its tolerance (the failing
  /// one when any fails), and that tolerance in the same unit.
  double maxError = 0.0;
  double toleranceAtMaxError = 0.0;
  /// Largest |ad| / (2 eps): the size of the derivatives compared.
  double maxDerivative = 0.0;
  unsigned failedProbes = 0;
  bool passed() const { return failedProbes == 0; }
};

/// The check of one forward function.
struct FunctionCheckResult {
  std::string function;
  /// The forward outputs of the joint function match those of the forward
  /// function (same ops, same inputs), within 1e-5 relative.
  bool outputsMatch = true;
  double outputMaxError = 0.0;
  std::vector<GradientCheckResult> gradients;
  bool passed() const;
};

/// Widens every bf16 / f16 tensor type in `func` (signature, values,
/// constants) to f32; casts that become f32 -> f32 are removed. Fails, with a diagnostic, on an op whose attributes
/// would have to change in a way it does not know.
mlir::LogicalResult widenFloatsToF32(mlir::func::FuncOp func);

/// Checks every `remat.graph = "forward"` function of `module` (or those
/// named in `options.functions`). `module` is not modified: each function is
/// checked in a clone holding only that function and its joint function.
/// Errors (autodiff or lowering failures, unknown function names) come back
/// as an llvm::Error naming the function.
llvm::Expected<std::vector<FunctionCheckResult>>
checkGradients(mlir::ModuleOp module, const GradientCheckOptions &options);

/// Human-readable report: one line per gradient, one verdict per function.
void printGradientCheckReport(llvm::raw_ostream &os,
                              llvm::ArrayRef<FunctionCheckResult> results,
                              const GradientCheckOptions &options);

} // namespace remat

#endif // REMAT_AUTODIFF_GRADIENTCHECK_H
