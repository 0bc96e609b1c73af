//===- RematMathOps.td - elementwise, contraction, reduction, shape ops -*-===//
//
// Part of remat. Included from RematOps.td (base classes live there).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Remat_AddOp : Remat_ElementwiseBinaryOp<"add", [Commutative,
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise addition";
  let description = [{
    `%c = remat.add %a, %b : tensor<...>` computes `a + b`. Either operand can
    be derived from the result and the other operand (`a = c - b`), inexactly
    in floating point.
  }];
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Remat_MatmulOp : Remat_Op<"matmul"> {
  let summary = "matrix multiplication, batched when rank > 2";
  let description = [{
    `%c = remat.matmul %a, %b {transpose_b} : (tensor<MxKxf16>, tensor<NxKxf16>)
    -> tensor<MxNxf16>` multiplies the last two dimensions; leading dimensions
    are batch dimensions and must match. `transpose_a` / `transpose_b` swap the
    last two dimensions of an operand before the product.
  }];
  let arguments = (ins Remat_FloatTensor:$lhs, Remat_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD
