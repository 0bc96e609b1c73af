//===- LoweringUtils.cpp - helpers for the remat to linalg patterns -------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

#include <functional>
#include <limits>

using namespace mlir;

namespace remat::lowering {

Value clampedId(OpBuilder &b, Location loc, Value id, int64_t size) {
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value last = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(size - 1));
  return arith::MinSIOp::create(b, loc,
                                arith::MaxSIOp::create(b, loc, id, zero), last);
}

Value clampedIndex(OpBuilder &b, Location loc, Value id, int64_t size) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                    clampedId(b, loc, id, size));
}

ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

SmallVector<int64_t> complement(unsigned rank, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (!llvm::is_contained(dims, d))
      result.push_back(d);
  return result;
}

SmallVector<int64_t> dropDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> result;
  for (auto [d, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      result.push_back(size);
  return result;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t result = 1;
  for (int64_t size : shape)
    result *= size;
  return result;
}

AffineExpr LoweringBuilder::dim(unsigned position) const {
  return getAffineDimExpr(position, b.getContext());
}

AffineMap LoweringBuilder::identity(unsigned rank) const {
  return AffineMap::getMultiDimIdentityMap(rank, b.getContext());
}

AffineMap LoweringBuilder::select(unsigned rank, ArrayRef<int64_t> dims) const {
  SmallVector<AffineExpr> results;
  for (int64_t d : dims)
    results.push_back(dim(d));
  return AffineMap::get(rank, 0, results, b.getContext());
}

AffineMap LoweringBuilder::drop(unsigned rank, ArrayRef<int64_t> dims) const {
  return select(rank, complement(rank, dims));
}

AffineMap LoweringBuilder::map(unsigned rank,
                               ArrayRef<AffineExpr> results) const {
  return AffineMap::get(rank, 0, results, b.getContext());
}

Value LoweringBuilder::empty(ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

SmallVector<Value>
LoweringBuilder::generic(ArrayRef<Value> inputs, ArrayRef<AffineMap> inputMaps,
                         ArrayRef<Value> inits, ArrayRef<AffineMap> initMaps,
                         ArrayRef<utils::IteratorType> iterators, BodyFn body) {
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(initMaps.begin(), initMaps.end());
  SmallVector<Type> resultTypes;
  for (Value init : inits)
    resultTypes.push_back(init.getType());
  auto op = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> yielded = body(nested, nestedLoc, args);
        linalg::YieldOp::create(nested, nestedLoc, yielded);
      });
  return SmallVector<Value>(op.getResults());
}

Value LoweringBuilder::map(ArrayRef<int64_t> shape, Type resultType,
                           ArrayRef<Value> inputs,
                           ArrayRef<AffineMap> inputMaps, ValueFn fn) {
  unsigned rank = shape.size();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return generic(inputs, inputMaps, {empty(shape, resultType)},
                 {identity(rank)}, iterators,
                 [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                   Value value = fn(nested, nestedLoc, args.drop_back());
                   if (isa<FloatType>(resultType) &&
                       value.getType() != resultType)
                     value = fromF32(nested, nestedLoc, value, resultType);
                   return SmallVector<Value>{value};
                 })
      .front();
}

Value LoweringBuilder::reduce(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> reducedDims, ReduceKind kind,
                              ArrayRef<Value> inputs,
                              ArrayRef<AffineMap> inputMaps, ReduceFn fn,
                              Type resultType, EpilogueFn epilogue) {
  unsigned rank = shape.size();
  Type elementType = resultType ? resultType : b.getF32Type();
  SmallVector<int64_t> keptDims = complement(rank, reducedDims);
  SmallVector<int64_t> outputShape = dropDims(shape, reducedDims);
  // A rank-0 result is computed as one element of a 1-D tensor: a generic
  // without loops would leave its reduction loops at the top of the
  // function, where the GPU mapping makes them a kernel of their own that
  // the final store could not see.
  bool scalar = outputShape.empty();
  SmallVector<int64_t> loopShape =
      scalar ? SmallVector<int64_t>{1} : outputShape;
  unsigned outputRank = loopShape.size();
  double initValue =
      kind == ReduceKind::Sum ? 0.0 : -std::numeric_limits<double>::infinity();
  SmallVector<utils::IteratorType> iterators(outputRank,
                                             utils::IteratorType::parallel);
  Value result =
      generic(
          {}, {}, {empty(loopShape, elementType)}, {identity(outputRank)},
          iterators,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange) {
            SmallVector<Value> indices(rank);
            SmallVector<Value> outputIndices;
            for (auto [position, d] : llvm::enumerate(keptDims)) {
              indices[d] = linalg::IndexOp::create(nested, nestedLoc, position);
              outputIndices.push_back(indices[d]);
            }
            // One scf.for per reduced dimension, the accumulator carried.
            std::function<Value(OpBuilder &, Location, unsigned, Value)> loops =
                [&](OpBuilder &builder, Location l, unsigned level,
                    Value accumulator) -> Value {
              if (level == reducedDims.size()) {
                SmallVector<Value> args;
                for (auto [input, inputMap] : llvm::zip(inputs, inputMaps)) {
                  SmallVector<Value> at;
                  for (AffineExpr expr : inputMap.getResults())
                    at.push_back(affine::expandAffineExpr(builder, l, expr,
                                                          indices, {}));
                  args.push_back(
                      tensor::ExtractOp::create(builder, l, input, at));
                }
                Value value = fn(builder, l, args, indices);
                if (kind == ReduceKind::Sum)
                  return arith::AddFOp::create(builder, l, accumulator, value);
                return arith::MaximumFOp::create(builder, l, accumulator,
                                                 value);
              }
              int64_t d = reducedDims[level];
              auto loop = scf::ForOp::create(
                  builder, l, index(builder, 0), index(builder, shape[d]),
                  index(builder, 1), ValueRange{accumulator},
                  [&](OpBuilder &body, Location bodyLoc, Value iv,
                      ValueRange carried) {
                    indices[d] = iv;
                    Value next = loops(body, bodyLoc, level + 1, carried[0]);
                    scf::YieldOp::create(body, bodyLoc, next);
                  });
              return loop.getResult(0);
            };
            Value accumulator =
                loops(nested, nestedLoc, 0, f32(nested, initValue));
            if (epilogue)
              accumulator =
                  epilogue(nested, nestedLoc, accumulator, outputIndices);
            return SmallVector<Value>{
                fromF32(nested, nestedLoc, accumulator, elementType)};
          })
          .front();
  return scalar ? reshape(result, {}) : result;
}

Value LoweringBuilder::reshape(Value tensor, ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> sourceShape = shapeOf(tensor);
  if (sourceShape == shape)
    return tensor;
  auto resultType = RankedTensorType::get(shape, elementTypeOf(tensor));
  // Rank 0 on either side: the other side is all ones, and an empty
  // reassociation expresses that.
  if (sourceShape.empty())
    return tensor::ExpandShapeOp::create(b, loc, resultType, tensor,
                                         ArrayRef<ReassociationIndices>{});
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, resultType, tensor,
                                           ArrayRef<ReassociationIndices>{});
  Value flat = tensor;
  if (sourceShape.size() != 1) {
    ReassociationIndices all;
    for (int64_t d = 0; d < static_cast<int64_t>(sourceShape.size()); ++d)
      all.push_back(d);
    flat = tensor::CollapseShapeOp::create(b, loc, flat,
                                           ArrayRef<ReassociationIndices>{all});
  }
  if (shape.size() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    all.push_back(d);
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       ArrayRef<ReassociationIndices>{all});
}

Value LoweringBuilder::f32(double value) { return f32(b, value); }

Value LoweringBuilder::f32(OpBuilder &builder, double value) {
  return arith::ConstantOp::create(
      builder, loc, builder.getF32FloatAttr(static_cast<float>(value)));
}

Value LoweringBuilder::index(OpBuilder &builder, int64_t value) {
  return arith::ConstantIndexOp::create(builder, loc, value);
}

Value LoweringBuilder::i64(OpBuilder &builder, int64_t value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getI64IntegerAttr(value));
}

Value LoweringBuilder::toF32(OpBuilder &builder, Location loc, Value scalar) {
  if (scalar.getType().isF32())
    return scalar;
  return arith::ExtFOp::create(builder, loc, builder.getF32Type(), scalar);
}

Value LoweringBuilder::fromF32(OpBuilder &builder, Location loc, Value scalar,
                               Type type) {
  if (scalar.getType() == type)
    return scalar;
  return arith::TruncFOp::create(builder, loc, type, scalar);
}

} // namespace remat::lowering

namespace remat {

std::optional<uint64_t> staticTensorBytes(mlir::RankedTensorType type) {
  mlir::Type element = type.getElementType();
  if (auto complex = mlir::dyn_cast<mlir::ComplexType>(element))
    element = complex.getElementType();
  if (!element.isIntOrFloat())
    return std::nullopt;
  uint64_t bytes = (element.getIntOrFloatBitWidth() + 7) / 8;
  if (mlir::isa<mlir::ComplexType>(type.getElementType()))
    bytes *= 2;
  for (int64_t size : type.getShape())
    if (size < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(size), &bytes))
      return std::nullopt;
  return bytes;
}

} // namespace remat
