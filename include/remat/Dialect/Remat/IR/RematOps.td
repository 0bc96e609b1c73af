//===- RematOps.td - remat operations ----------------------*- tablegen -*-===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATOPS_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "remat/Dialect/Remat/IR/RematInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Remat_FloatElement : AnyTypeOf<[F64, F32, F16, BF16]>;
// Every remat tensor is statically shaped: the planner's costs and memory
// peaks are computed from the shapes.
// f64 is planned like any float; the lowering (remat-lower-to-linalg)
// refuses it, since its kernels compute in f32.
def Remat_FloatTensor : StaticShapeTensorOf<[F64, F32, F16, BF16]> {
  let summary = "statically shaped tensor of f64, f32, f16 or bf16";
}
def Remat_MaskTensor : StaticShapeTensorOf<[I1, I8]>;
def Remat_IndexTensor : StaticShapeTensorOf<[I64]>;
def Remat_AnyTensor : StaticShapeTensorOf<[F64, F32, F16, BF16, I1, I8, I64]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

class Remat_Op<string mnemonic, list<Trait> traits = []>
    : Op<Remat_Dialect, mnemonic,
         !listconcat(traits, [Pure,
             DeclareOpInterfaceMethods<PlannerOpInterface,
                 ["estimateFlops", "classifyCompute"]>])>;

// Elementwise binary op on same-typed tensors: `remat.add %a, %b : T`.
class Remat_ElementwiseBinaryOp<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])> {
  let arguments = (ins Remat_FloatTensor:$lhs, Remat_FloatTensor:$rhs);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Escape hatch
//===----------------------------------------------------------------------===//

def Remat_OpaqueOp : Remat_Op<"opaque", [
    DeclareOpInterfaceMethods<PlannerOpInterface,
        ["estimateBytesRead", "estimateBytesWritten", "drawsRandomNumbers", "isViewOnly"]>]> {
  let summary = "an op the dialect does not model, with declared cost facts";
  let description = [{
    `%r = remat.opaque "my_kernel"(%a, %b) {flops = 1.0e9, compute_class =
    "matmul"} : (tensor<...>, tensor<...>) -> tensor<...>` stands for any
    computation the dialect does not model, so foreign graphs can still be
    planned. `compute_class` is one of pointwise, reduction, normalization,
    matmul, conv, attention, random, view, collective, other. `bytes_read` and
    `bytes_written` default to the operand and result sizes; `random` marks an
    op that draws random numbers, `view` one that only reinterprets data.
  }];
  let arguments = (ins StrAttr:$op_name, Variadic<AnyType>:$inputs,
                       DefaultValuedAttr<F64Attr, "0.0">:$flops,
                       OptionalAttr<I64Attr>:$bytes_read,
                       OptionalAttr<I64Attr>:$bytes_written,
                       DefaultValuedStrAttr<StrAttr, "other">:$compute_class,
                       UnitAttr:$random, UnitAttr:$view);
  let results = (outs Variadic<AnyType>:$outputs);
  let assemblyFormat = [{
    $op_name `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs)
  }];
  let hasVerifier = 1;
}

// Op families, one file each.
include "remat/Dialect/Remat/IR/RematMathOps.td"
include "remat/Dialect/Remat/IR/RematNNOps.td"

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_TD
