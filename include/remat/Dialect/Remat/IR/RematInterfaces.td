//===- RematInterfaces.td - PlannerOpInterface -------------*- tablegen -*-===//
//
// Part of remat. The facts the planner reads for each op. Our ops implement
// it; lib/Interfaces attaches it to upstream arith, math, tensor and linalg
// ops as external models.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD
#define REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD

include "mlir/IR/OpBase.td"

def PlannerOpInterface : OpInterface<"PlannerOpInterface"> {
  let cppNamespace = "::remat";
  let description = [{
    Gives the rematerialization planner its facts about an operation: the
    floating-point work, the bytes it reads and writes, its compute class
    (which decides the roofline peak and the automatic recompute bans),
    whether it draws random numbers or is a view, and which operands can be
    recovered algebraically from its result (inverse rules).
  }];

  let methods = [
    InterfaceMethod<"Floating-point operations of one evaluation.",
      "double", "estimateFlops", (ins), [{}], [{
        return ::remat::detail::defaultFlops($_op.getOperation());
      }]>,
    InterfaceMethod<"Bytes read from memory by one evaluation.",
      "int64_t", "estimateBytesRead", (ins), [{}], [{
        return ::remat::detail::operandBytes($_op.getOperation());
      }]>,
    InterfaceMethod<"Bytes written to memory by one evaluation.",
      "int64_t", "estimateBytesWritten", (ins), [{}], [{
        return ::remat::detail::resultBytes($_op.getOperation());
      }]>,
    InterfaceMethod<"Kind of work the op does.",
      "::remat::ComputeClass", "classifyCompute", (ins), [{}], [{
        return ::remat::ComputeClass::Pointwise;
      }]>,
    InterfaceMethod<"Whether the op draws random numbers.",
      "bool", "drawsRandomNumbers", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"Whether the op only reinterprets its operand's data.",
      "bool", "isViewOnly", (ins), [{}], [{ return false; }]>,
    InterfaceMethod<"Operands recoverable from the result (derivation).",
      "void", "getInverseRules",
      (ins "::llvm::SmallVectorImpl<::remat::InverseRule> &":$rules), [{}],
      [{ (void)rules; }]>,
  ];
}

#endif // REMAT_DIALECT_REMAT_IR_REMATINTERFACES_TD
