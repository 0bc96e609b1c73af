//===- Passes.td - remat autodiff passes -------------------*- tablegen -*-===//
//
// Part of remat. The reverse-mode autodiff pass; `ninja remat-doc` turns this
// file into a generated page under build/docs/.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_AUTODIFF_PASSES_TD
#define REMAT_AUTODIFF_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematAutodiffPass : Pass<"remat-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the joint forward + backward function of every "
                "forward function (reverse-mode autodiff)";
  let description = [{
    For every `func.func` marked `remat.graph = "forward"`, builds the joint
    training graph that `remat-plan` works on:

    * arguments: the forward arguments with their roles, then one
      `remat.role = "tangent"` argument per floating-point result (the
      cotangent of that output; for a scalar loss, pass 1.0);
    * results: the forward outputs (`remat.role = "output"`), then one
      gradient (`remat.role = "grad"`, `remat.grad_of = i`) per
      floating-point argument `i` whose role is `input` or `param`
      (`rng` and integer arguments get none).

    The forward ops are cloned unchanged (tags and `remat.name` kept);
    the backward ops read forward values directly, so the joint graph
    saves nothing by itself (AOTAutograd-style): which values are saved,
    recomputed or derived is what `remat-plan` decides afterwards. Backward
    ops are the dialect's own (`softmax_backward`, `rmsnorm_backward`,
    `sdpa_backward`, `conv2d_backward_input`, `dropout_backward`, ...);
    matmul and linear differentiate into matmuls with transpose flags,
    broadcast into sum, slice into concatenation with zeros. A
    single-result `remat.rmsnorm` becomes the two-result form, since its
    backward reads `rstd`.

    By default the joint function is added next to the forward one as
    `@<name>_joint`; with `replace=true` it takes the forward function's
    place and name.

    Errors: an op without a derivative rule that a gradient must flow
    through (upstream ops, backward ops, `remat.opaque` without a
    declared `backward`), a gradient flowing into a statistic result
    (norm `rstd`, attention `logsumexp`), a forward function with nothing
    to differentiate, a name clash.
  }];
  let options = [
    Option<"replace", "replace", "bool", /*default=*/"false",
           "Replace each forward function by its joint function (same "
           "symbol name) instead of adding @<name>_joint">,
  ];
  let statistics = [
    Statistic<"numJointFunctions", "joint-functions",
              "Number of joint functions built">,
    Statistic<"numBackwardOps", "backward-ops",
              "Number of operations emitted for the backward passes">,
  ];
  let dependentDialects = ["::remat::RematDialect",
                           "::mlir::func::FuncDialect"];
}

#endif // REMAT_AUTODIFF_PASSES_TD
