//===- RematDialect.td - remat dialect definition ----------*- tablegen -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
#define REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD

include "mlir/IR/OpBase.td"

def Remat_Dialect : Dialect {
  let name = "remat";
  let cppNamespace = "::remat";
  let summary = "Training graphs for save / recompute / derive planning";
  let description = [{
    The `remat` dialect models forward and joint (forward + backward) training
    graphs on statically shaped ranked tensors, with the facts a
    rematerialization planner needs: FLOPs, bytes, compute class, randomness,
    views and algebraic inverse rules (through `PlannerOpInterface`), and
    planning tags that are valid on any operation, ours or upstream.
    See docs/Dialect.md for the graph forms and the rationale.
  }];

  // Tags and roles: discardable attributes valid on any op / function, checked
  // in verifyOperationAttribute, verifyRegionArgAttribute and
  // verifyRegionResultAttribute.
  let discardableAttrs = (ins
    "::mlir::UnitAttr":$never_recompute,
    "::mlir::UnitAttr":$no_auto_recompute,
    "::mlir::UnitAttr":$must_recompute,
    "::mlir::UnitAttr":$prefer_recompute,
    "::mlir::UnitAttr":$prefer_save,
    // Why a tool set the op's tags (an exporter), quoted in the reasons that
    // cite one.
    "::mlir::StringAttr":$tag_note,
    "::mlir::StringAttr":$name,
    "::mlir::StringAttr":$graph,
    "::mlir::StringAttr":$role,
    "::mlir::IntegerAttr":$grad_of,
    // Graphs imported with profiled facts (lib/Import, the Checkmate JSON):
    // an explicit forward/backward phase, which overrides tangent
    // reachability, and a measured time that replaces the roofline.
    "::mlir::StringAttr":$phase,
    "::mlir::FloatAttr":$fixed_time_us,
    // Bytes the op's kernel allocates while it runs and frees before it
    // returns (scratch, accumulation buffers): counted at its step only.
    "::mlir::IntegerAttr":$workspace_bytes,
    // Written by remat-plan / remat-partition (lib/Transforms): per-result
    // decisions, reasons and derivations on ops (and on the arguments
    // backward reads), the plan summary on the function, and the stage and
    // saved-value order of the partitioned functions; on the joint function,
    // the plan's schedule when its decisions do not express it.
    "::mlir::ArrayAttr":$decision,
    "::mlir::ArrayAttr":$reason,
    "::mlir::ArrayAttr":$derivation,
    "::mlir::DictionaryAttr":$plan,
    "::mlir::StringAttr":$stage,
    "::mlir::ArrayAttr":$saved_values,
    "::mlir::DictionaryAttr":$schedule
  );

  let dependentDialects = ["::mlir::func::FuncDialect"];
  let extraClassDeclaration = [{
    void registerOps();
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATDIALECT_TD
