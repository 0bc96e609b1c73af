//===- RematMathOps.td - elementwise, contraction, reduction, shape ops -*-===//
//
// Part of remat. Included from RematOps.td (base classes live there).
//
// Cost model used by the ops below (PlannerOpInterface::estimateFlops). The
// counts are per result element unless stated otherwise; a transcendental
// counts as a few FLOPs because GPUs evaluate it with a hardware approximation
// plus a handful of fused multiply-adds:
//   1  add, sub, mul, div, neg, square, relu, where, compare, cast,
//      add/mul_scalar, relu_backward
//   2  sqrt, rsqrt, leaky_relu, leaky_relu_backward
//   3  sigmoid_backward, tanh_backward
//   4  exp, log
//   6  tanh
//   7  sigmoid  (neg, exp, add, reciprocal)
//   8  silu     (sigmoid, mul)
//   9  pow, pow_scalar (exp(y * log(x)))
//   12 gelu approximate="tanh", silu_backward
//   14 gelu approximate="none" (erf as a rational approximation)
//   22 gelu_backward approximate="tanh"; 24 gelu_backward approximate="none"
//   matmul 2*M*N*K (times the batch); linear 2*rows*in*out (+ rows*out bias)
//   sum, max: 1 per input element; mean: 1 per input + 1 per result element
//   views (reshape, transpose, broadcast, slice): 0 FLOPs and 0 bytes moved
//   concat, constant: 0 FLOPs, memory bound
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD

//===----------------------------------------------------------------------===//
// Helper classes
//===----------------------------------------------------------------------===//

// Pointwise cost facts generated from one number, so the documentation
// (`costNote`, appended to each op's description) and estimateFlops cannot
// disagree.
class Remat_PointwiseCost<int flopsPerElement> {
  string costNote = "\n    Cost model: " # flopsPerElement #
                    " FLOP(s) per result element; compute class pointwise.";
  code costDefinition = [{
    double $cppClass::estimateFlops() {
      return }] # flopsPerElement # [{ *
          ::remat::detail::defaultFlops(getOperation());
    }
    ::remat::ComputeClass $cppClass::classifyCompute() {
      return ::remat::ComputeClass::Pointwise;
    }
  }];
}

// Unary elementwise op on a float tensor: `%y = remat.exp %x : T`.
class Remat_UnaryOpBase<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])> {
  let arguments = (ins Remat_FloatTensor:$input);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

class Remat_UnaryOp<string mnemonic, int flopsPerElement,
                    list<Trait> traits = []>
    : Remat_UnaryOpBase<mnemonic, traits>,
      Remat_PointwiseCost<flopsPerElement> {
  let extraClassDefinition = costDefinition;
}

// Binary elementwise op on same-typed float tensors: `remat.mul %a, %b : T`.
class Remat_BinaryOp<string mnemonic, int flopsPerElement,
                     list<Trait> traits = []>
    : Remat_ElementwiseBinaryOp<mnemonic, traits>,
      Remat_PointwiseCost<flopsPerElement> {
  let extraClassDefinition = costDefinition;
}

// Elementwise op with a scalar f64 attribute: `remat.mul_scalar %x, 0.5 : T`.
class Remat_ScalarOp<string mnemonic, string attrName, int flopsPerElement>
    : Remat_Op<mnemonic, [SameOperandsAndResultType]>,
      Remat_PointwiseCost<flopsPerElement> {
  let arguments = !con((ins Remat_FloatTensor:$input),
                       !dag(ins, [F64Attr], [attrName]));
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = "$input `,` $" # attrName #
                       " attr-dict `:` type($result)";
  let extraClassDefinition = costDefinition;
}

// Activation backward op `%dx = remat.<act>_backward %grad, %saved : T`:
// the gradient with respect to the activation's input, given the gradient
// of its output and one saved forward tensor whose name (`input` or
// `output`) says which one the formula reads.
class Remat_ActivationBackwardOp<string mnemonic, string savedName,
                                 int flopsPerElement, list<Trait> traits = []>
    : Remat_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])>,
      Remat_PointwiseCost<flopsPerElement> {
  let arguments = !con((ins Remat_FloatTensor:$grad),
                       !dag(ins, [Remat_FloatTensor], [savedName]));
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $" # savedName #
                       " attr-dict `:` type($result)";
  let extraClassDefinition = costDefinition;
}

// Reduction over `dims` of a float tensor.
class Remat_ReductionOp<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, traits> {
  let arguments = (ins Remat_FloatTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

// A view: it only reinterprets its operand's data. No FLOPs and no memory
// traffic in the cost model (its consumer pays for reading the data), compute
// class view; the planner treats its result as aliasing the operand.
class Remat_ViewOp<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, !listconcat(traits, [
          DeclareOpInterfaceMethods<PlannerOpInterface,
              ["estimateBytesRead", "estimateBytesWritten", "isViewOnly"]>])> {
  let results = (outs Remat_AnyTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    double $cppClass::estimateFlops() { return 0.0; }
    ::remat::ComputeClass $cppClass::classifyCompute() {
      return ::remat::ComputeClass::View;
    }
    int64_t $cppClass::estimateBytesRead() { return 0; }
    int64_t $cppClass::estimateBytesWritten() { return 0; }
    bool $cppClass::isViewOnly() { return true; }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Remat_ConstantOp : Remat_Op<"constant", [
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor (splat or dense)";
  let description = [{
    `%c = remat.constant dense<0.0> : tensor<4x8xf32>` materializes a
    constant; a splat (`dense<1.0>`) is how zeros, ones and scaling constants
    are written. The value is any elements attribute whose type is the result
    type. A constant whose every element is finite and non-zero lets `mul` and
    `div` offer their division-based inverse rules.

    Cost model: 0 FLOPs, no bytes read, the result's bytes written (a fill);
    compute class pointwise.
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Remat_AnyTensor:$result);
  let assemblyFormat = "$value attr-dict";
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

def Remat_AddOp : Remat_BinaryOp<"add", 1, [Commutative,
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise addition";
  let description = [{
    `%c = remat.add %a, %b : tensor<...>` computes `a + b`. Either operand can
    be derived from the result and the other operand (`a = c - b`), inexactly
    in floating point.
  }] # costNote;
}

def Remat_SubOp : Remat_BinaryOp<"sub", 1, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise subtraction";
  let description = [{
    `%c = remat.sub %a, %b : tensor<...>` computes `a - b`. Inverse rules
    (inexact in floating point): `a = c + b` and `b = a - c`.
  }] # costNote;
}

def Remat_MulOp : Remat_BinaryOp<"mul", 1, [Commutative,
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise multiplication";
  let description = [{
    `%c = remat.mul %a, %b : tensor<...>` computes `a * b`. `a = c / b` is
    offered (inexact) only when `b` is a constant (`remat.constant` or
    `arith.constant`) whose every element is finite and non-zero, and likewise
    for `b`. Outputs of `exp` or `sigmoid` are not treated as non-zero: they
    underflow to 0 for very negative inputs, and a mask multiplied in (relu,
    dropout) is zero by design.
  }] # costNote;
}

def Remat_DivOp : Remat_BinaryOp<"div", 1, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise division";
  let description = [{
    `%c = remat.div %a, %b : tensor<...>` computes `a / b`. `a = c * b` is
    offered (inexact) only when `b` is a constant whose every element is
    finite and non-zero (as for `mul`); `b = a / c` is never offered, since
    `c` is zero wherever `a` is.
  }] # costNote;
}

def Remat_PowOp : Remat_BinaryOp<"pow", 9> {
  let summary = "elementwise power with a tensor exponent";
  let description = [{
    `%c = remat.pow %base, %exponent : tensor<...>` computes `base ^ exponent`
    elementwise (operand `lhs` is the base, `rhs` the exponent). For a fixed scalar exponent use `remat.pow_scalar`, or
    `remat.square` for the exponent 2.
  }] # costNote;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Remat_NegOp : Remat_UnaryOp<"neg", 1, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise negation";
  let description = [{
    `%y = remat.neg %x : tensor<...>` computes `-x`. Inverse: `x = -y`,
    bit-exact.
  }] # costNote;
}

def Remat_ExpOp : Remat_UnaryOp<"exp", 4, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise natural exponential";
  let description = [{
    `%y = remat.exp %x : tensor<...>` computes `e^x`. Inverse: `x = log(y)`,
    inexact.
  }] # costNote;
}

def Remat_LogOp : Remat_UnaryOp<"log", 4, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise natural logarithm";
  let description = [{
    `%y = remat.log %x : tensor<...>` computes `ln(x)`. Inverse: `x = exp(y)`,
    inexact.
  }] # costNote;
}

def Remat_SqrtOp : Remat_UnaryOp<"sqrt", 2> {
  let summary = "elementwise square root";
  let description = [{
    `%y = remat.sqrt %x : tensor<...>` computes `sqrt(x)`.
  }] # costNote;
}

def Remat_RsqrtOp : Remat_UnaryOp<"rsqrt", 2> {
  let summary = "elementwise reciprocal square root";
  let description = [{
    `%y = remat.rsqrt %x : tensor<...>` computes `1 / sqrt(x)`.
  }] # costNote;
}

def Remat_TanhOp : Remat_UnaryOp<"tanh", 6> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    `%y = remat.tanh %x : tensor<...>` computes `tanh(x)`.
  }] # costNote;
}

def Remat_SigmoidOp : Remat_UnaryOp<"sigmoid", 7> {
  let summary = "elementwise logistic sigmoid";
  let description = [{
    `%y = remat.sigmoid %x : tensor<...>` computes `1 / (1 + e^-x)`.
  }] # costNote;
}

def Remat_ReluOp : Remat_UnaryOp<"relu", 1> {
  let summary = "elementwise rectified linear unit";
  let description = [{
    `%y = remat.relu %x : tensor<...>` computes `max(x, 0)`.
  }] # costNote;
}

def Remat_LeakyReluOp : Remat_UnaryOp<"leaky_relu", 2, [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "elementwise leaky rectified linear unit";
  let description = [{
    `%y = remat.leaky_relu %x {alpha = 0.2 : f64} : tensor<...>` computes
    `x >= 0 ? x : alpha * x`; `alpha` defaults to 0.01 (PyTorch's default).
    With `alpha > 0` the op is invertible: `x = y >= 0 ? y : y / alpha`
    (inexact); with `alpha <= 0` no inverse rule is offered.
  }] # costNote;
  let arguments = (ins Remat_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def Remat_GeluOp : Remat_UnaryOpBase<"gelu"> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    `%y = remat.gelu %x {approximate = "tanh"} : tensor<...>` computes
    `x * Phi(x)` with `Phi` the standard normal CDF; `approximate` is `"none"`
    (the default: exact erf form) or `"tanh"` (the tanh approximation), as in
    PyTorch.

    Cost model: 14 FLOPs per element for "none", 12 for "tanh"; pointwise.
  }];
  let arguments = (ins Remat_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let hasVerifier = 1;
}

def Remat_SiluOp : Remat_UnaryOp<"silu", 8> {
  let summary = "elementwise sigmoid linear unit (swish)";
  let description = [{
    `%y = remat.silu %x : tensor<...>` computes `x * sigmoid(x)`.
  }] # costNote;
}

def Remat_SquareOp : Remat_UnaryOp<"square", 1> {
  let summary = "elementwise square";
  let description = [{
    `%y = remat.square %x : tensor<...>` computes `x * x`.
  }] # costNote;
}

def Remat_PowScalarOp : Remat_ScalarOp<"pow_scalar", "exponent", 9> {
  let summary = "elementwise power with a scalar exponent";
  let description = [{
    `%y = remat.pow_scalar %x, 3.0 : tensor<...>` computes `x ^ exponent` with
    a constant f64 exponent (printed as `3.000000e+00`).
  }] # costNote;
}

def Remat_AddScalarOp : Remat_ScalarOp<"add_scalar", "scalar", 1> {
  let summary = "add a scalar constant to every element";
  let description = [{
    `%y = remat.add_scalar %x, 1.0 : tensor<...>` computes `x + scalar`.
  }] # costNote;
}

def Remat_MulScalarOp : Remat_ScalarOp<"mul_scalar", "scalar", 1> {
  let summary = "multiply every element by a scalar constant";
  let description = [{
    `%y = remat.mul_scalar %x, 0.5 : tensor<...>` computes `x * scalar`, e.g.
    the `1/sqrt(d)` attention scale or the `1/N` of a mean's gradient.
  }] # costNote;
}

def Remat_WhereOp : Remat_Op<"where", [
    AllTypesMatch<["true_value", "false_value", "result"]>]>,
    Remat_PointwiseCost<1> {
  let summary = "elementwise select by an i1 condition";
  let description = [{
    `%r = remat.where %cond, %a, %b : tensor<4x8xi1>, tensor<4x8xf32>` picks
    `a` where `cond` is true and `b` elsewhere (PyTorch's `torch.where`,
    `arith.select` on tensors). The condition has the result's shape; `a`,
    `b` and the result share one type, which may be any remat tensor type.
  }] # costNote;
  let arguments = (ins StaticShapeTensorOf<[I1]>:$condition,
                       Remat_AnyTensor:$true_value,
                       Remat_AnyTensor:$false_value);
  let results = (outs Remat_AnyTensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = costDefinition;
}

def Remat_CompareOp : Remat_Op<"compare", [
    AllTypesMatch<["lhs", "rhs"]>]>, Remat_PointwiseCost<1> {
  let summary = "elementwise comparison producing an i1 mask";
  let description = [{
    `%m = remat.compare %a, %b {predicate = "gt"} : (tensor<4x8xf32>,
    tensor<4x8xf32>) -> tensor<4x8xi1>` compares elementwise; `predicate` is
    one of `eq`, `ne`, `lt`, `le`, `gt`, `ge` (`lhs <predicate> rhs`; floats
    compare ordered, so any NaN gives false except for `ne`). The operands
    share one type (any remat tensor type); the result is an i1 tensor of
    their shape, e.g. the condition of `remat.where` or the argmax mask of a
    `remat.max` gradient.
  }] # costNote;
  let arguments = (ins Remat_AnyTensor:$lhs, Remat_AnyTensor:$rhs,
                       StrAttr:$predicate);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = costDefinition;
}

def Remat_CastOp : Remat_Op<"cast", [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]>,
    Remat_PointwiseCost<1> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    `%y = remat.cast %x : (tensor<4xbf16>) -> tensor<4xf32>` converts each
    element; the shape is unchanged and the element type must change. Integers
    are signed, except `i1` (0 or 1); float to integer truncates toward zero.
    A widening cast, one that represents every source value exactly
    (f16/bf16 to f32, i1 to i8/i64, i8 to i64, i1/i8 to any float), offers
    the bit-exact inverse `x = cast(y)` back.
  }] # costNote;
  let arguments = (ins Remat_AnyTensor:$input);
  let results = (outs Remat_AnyTensor:$result);
  let assemblyFormat = [{
    $input attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = costDefinition;
}

//===----------------------------------------------------------------------===//
// Activation backward
//===----------------------------------------------------------------------===//

def Remat_ReluBackwardOp : Remat_ActivationBackwardOp<"relu_backward",
                                                      "output", 1> {
  let summary = "gradient of relu";
  let description = [{
    `%dx = remat.relu_backward %grad, %output : tensor<...>` computes
    `output > 0 ? grad : 0` with `output = relu(x)`. Passing `x` itself gives
    the same result (`relu(x) > 0` exactly when `x > 0`); saving the output
    lets the planner free `x`.
  }] # costNote;
}

def Remat_LeakyReluBackwardOp : Remat_ActivationBackwardOp<
    "leaky_relu_backward", "input", 2> {
  let summary = "gradient of leaky_relu";
  let description = [{
    `%dx = remat.leaky_relu_backward %grad, %input {alpha = 0.2 : f64} :
    tensor<...>` computes `input > 0 ? grad : alpha * grad`; `alpha` must
    match the forward op's (default 0.01).
  }] # costNote;
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def Remat_GeluBackwardOp : Remat_Op<"gelu_backward",
                                    [SameOperandsAndResultType]> {
  let summary = "gradient of gelu";
  let description = [{
    `%dx = remat.gelu_backward %grad, %input {approximate = "tanh"} :
    tensor<...>` computes `grad * d gelu(input) / d input`; `approximate` must
    match the forward op's (`"none"` or `"tanh"`).

    Cost model: 24 FLOPs per element for "none", 22 for "tanh"; pointwise.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Remat_SiluBackwardOp : Remat_ActivationBackwardOp<"silu_backward",
                                                      "input", 12> {
  let summary = "gradient of silu";
  let description = [{
    `%dx = remat.silu_backward %grad, %input : tensor<...>` computes
    `grad * s * (1 + input * (1 - s))` with `s = sigmoid(input)`.
  }] # costNote;
}

def Remat_SigmoidBackwardOp : Remat_ActivationBackwardOp<"sigmoid_backward",
                                                         "output", 3> {
  let summary = "gradient of sigmoid";
  let description = [{
    `%dx = remat.sigmoid_backward %grad, %output : tensor<...>` computes
    `grad * output * (1 - output)` with `output = sigmoid(x)`.
  }] # costNote;
}

def Remat_TanhBackwardOp : Remat_ActivationBackwardOp<"tanh_backward",
                                                      "output", 3> {
  let summary = "gradient of tanh";
  let description = [{
    `%dx = remat.tanh_backward %grad, %output : tensor<...>` computes
    `grad * (1 - output^2)` with `output = tanh(x)`.
  }] # costNote;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Remat_MatmulOp : Remat_Op<"matmul"> {
  let summary = "matrix multiplication, batched when rank > 2";
  let description = [{
    `%c = remat.matmul %a, %b {transpose_b} : (tensor<MxKxf16>, tensor<NxKxf16>)
    -> tensor<MxNxf16>` multiplies the last two dimensions; leading dimensions
    are batch dimensions, so a batch-matmul is a matmul of rank > 2, e.g.
    attention scores `(tensor<BxHxSxDxbf16>, tensor<BxHxSxDxbf16>) ->
    tensor<BxHxSxSxbf16>` with `transpose_b`. Operands of equal rank must have
    equal batch dimensions (no size-1 broadcasting); a rank-2 operand may
    meet a batched one and is then shared by every batch element, e.g.
    `(tensor<BxSxKxf32>, tensor<KxNxf32>) -> tensor<BxSxNxf32>` (PyTorch's
    `matmul` broadcasting of a matrix). The result has the larger rank and the
    batched operand's batch dimensions. `transpose_a` / `transpose_b` swap the
    last two dimensions of an operand before the product. Operands and result
    share one element type.

    Cost model: `2 * M * N * K` FLOPs per batch element; compute class matmul.
  }];
  let arguments = (ins Remat_FloatTensor:$lhs, Remat_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Remat_LinearOp : Remat_Op<"linear"> {
  let summary = "affine layer `x @ W^T + b` (PyTorch convention)";
  let description = [{
    `%y = remat.linear %x, %w, %b : (tensor<2x16x64xbf16>, tensor<128x64xbf16>,
    tensor<128xbf16>) -> tensor<2x16x128xbf16>` computes `x @ W^T + b` as
    `torch.nn.functional.linear` does: `W` is `[out, in]`, `x` is `[..., in]`
    (any number of leading dimensions, possibly none), the optional bias is
    `[out]`, and the result is `[..., out]`. All share one element type.

    Cost model: `2 * rows * in * out` FLOPs plus `rows * out` for the bias,
    where `rows` is the product of the leading dimensions; compute class
    matmul.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$weight,
                       Optional<Remat_FloatTensor>:$bias);
  let results = (outs Remat_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Remat_SumOp : Remat_ReductionOp<"sum"> {
  let summary = "sum over dimensions";
  let description = [{
    `%s = remat.sum %x {dims = array<i64: 1>} : (tensor<4x8xf32>) ->
    tensor<4xf32>` adds over the listed dimensions. `dims` is non-empty,
    in range `[0, rank)`, without repeats (any order); reducing every
    dimension means listing them all. The result drops the reduced dimensions,
    or keeps them with size 1 under `keepdim` (`tensor<4x1xf32>` above). The
    element type is unchanged.

    Cost model: 1 FLOP per input element; compute class reduction.
  }];
}

def Remat_MeanOp : Remat_ReductionOp<"mean"> {
  let summary = "mean over dimensions";
  let description = [{
    `%m = remat.mean %x {dims = array<i64: 0, 1>, keepdim} :
    (tensor<4x8xf32>) -> tensor<1x1xf32>` averages over the listed
    dimensions, with the same `dims` / `keepdim` rules as `remat.sum`.

    Cost model: 1 FLOP per input element plus 1 per result element; compute
    class reduction.
  }];
}

def Remat_MaxOp : Remat_ReductionOp<"max"> {
  let summary = "maximum over dimensions";
  let description = [{
    `%m = remat.max %x {dims = array<i64: 1>} : (tensor<4x8xf32>) ->
    tensor<4xf32>` takes the maximum over the listed dimensions (values only,
    no indices), with the same `dims` / `keepdim` rules as `remat.sum`.

    Cost model: 1 FLOP (a comparison) per input element; compute class
    reduction.
  }];
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Remat_ReshapeOp : Remat_ViewOp<"reshape", [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "reinterpret a tensor with another shape";
  let description = [{
    `%y = remat.reshape %x : (tensor<4x8xf32>) -> tensor<2x16xf32>` keeps the
    elements in row-major order; the element count and element type must not
    change. A view (0 FLOPs, 0 bytes) with the bit-exact inverse
    `x = reshape(y)`.
  }];
  let arguments = (ins Remat_AnyTensor:$input);
}

def Remat_TransposeOp : Remat_ViewOp<"transpose", [
    DeclareOpInterfaceMethods<PlannerOpInterface, ["getInverseRules"]>]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    `%y = remat.transpose %x {permutation = array<i64: 0, 2, 1, 3>} :
    (tensor<2x16x8x64xbf16>) -> tensor<2x8x16x64xbf16>` is PyTorch's
    `permute`: result dimension `i` is input dimension `permutation[i]`.
    `permutation` must hold each of `0 .. rank-1` once. A view (strided, as in
    PyTorch) with the bit-exact inverse: the inverse permutation.
  }];
  let arguments = (ins Remat_AnyTensor:$input,
                       DenseI64ArrayAttr:$permutation);
}

def Remat_BroadcastOp : Remat_ViewOp<"broadcast"> {
  let summary = "broadcast a tensor to a larger shape";
  let description = [{
    Without `dims`, numpy rules: `%y = remat.broadcast %x : (tensor<8xf32>) ->
    tensor<4x8xf32>` aligns the input's dimensions with the result's trailing
    ones; each must be 1 or equal to the result's size. With `dims`, an
    explicit mapping: `%y = remat.broadcast %x {dims = array<i64: 0>} :
    (tensor<4xf32>) -> tensor<4x8xf32>` maps input dimension `i` to result
    dimension `dims[i]` (strictly increasing, one entry per input dimension,
    sizes 1 or equal), which broadcasts along trailing dimensions too. The
    element type is unchanged. A view (stride 0, as PyTorch's `expand`).
  }];
  let arguments = (ins Remat_AnyTensor:$input,
                       OptionalAttr<DenseI64ArrayAttr>:$dims);
}

def Remat_SliceOp : Remat_ViewOp<"slice"> {
  let summary = "static strided slice";
  let description = [{
    `%y = remat.slice %x {offsets = array<i64: 0, 4>, sizes = array<i64: 4, 2>,
    strides = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<4x2xf32>` takes,
    along each dimension `d`, `sizes[d]` elements starting at `offsets[d]`,
    `strides[d]` apart (`strides` defaults to all 1). Each attribute has one
    entry per dimension; offsets are >= 0, strides >= 1, the last element
    taken lies inside the input, and the result shape is `sizes`. A view.
  }];
  let arguments = (ins Remat_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$sizes,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
}

def Remat_ConcatOp : Remat_Op<"concat"> {
  let summary = "concatenate tensors along one dimension";
  let description = [{
    `%y = remat.concat %a, %b {dim = 1} : (tensor<4x8xf32>, tensor<4x2xf32>)
    -> tensor<4x10xf32>` joins one or more tensors of the same rank and
    element type along `dim`; all other dimensions must agree, and the
    result's `dim` is the sum of the inputs'.

    Cost model: a copy, 0 FLOPs, every byte read and written once; compute
    class pointwise (memory bound).
  }];
  let arguments = (ins Variadic<Remat_AnyTensor>:$inputs, I64Attr:$dim);
  let results = (outs Remat_AnyTensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, results)
  }];
  let hasVerifier = 1;
}

#endif // REMAT_DIALECT_REMAT_IR_REMATMATHOPS_TD
