//===- LoweringUtils.h - helpers for the remat to linalg patterns -*- C++
//-*-===//
//
// Part of remat. Small builders shared by the patterns of
// remat-lower-to-linalg: affine maps over an iteration space, linalg.generic
// construction with f32 bodies, f32 reductions, reshapes and scalar
// constants. Private to lib/Conversion/RematToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
#define REMAT_LIB_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace remat::lowering {

/// Body of a generic: receives the block arguments (inputs, then outputs)
/// and returns the values to yield, one per output.
using BodyFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Computes one f32 (or other scalar) value from the input block arguments
/// (the output's block argument is not passed).
using ValueFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// The element a reduction accumulates at one point of its iteration space:
/// receives the input elements there and the indices of every dimension of
/// the iteration space (reduced ones included), in order.
using ReduceFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange args,
    mlir::ValueRange indices)>;

/// What a reduction writes for one output element: receives its f32
/// accumulator and the output element's indices.
using EpilogueFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::Value accumulator,
    mlir::ValueRange outputIndices)>;

enum class ReduceKind { Sum, Max };

/// Everything a pattern needs to build at one location.
class LoweringBuilder {
public:
  LoweringBuilder(mlir::OpBuilder &builder, mlir::Location loc)
      : b(builder), loc(loc) {}

  mlir::OpBuilder &b;
  mlir::Location loc;

  // Affine maps over an iteration space of `rank` dimensions.
  mlir::AffineMap identity(unsigned rank) const;
  /// (d0 .. d{rank-1}) -> (d{dims[0]}, d{dims[1]}, ...).
  mlir::AffineMap select(unsigned rank, llvm::ArrayRef<int64_t> dims) const;
  /// Drops the listed dimensions: the map of a reduction's output.
  mlir::AffineMap drop(unsigned rank, llvm::ArrayRef<int64_t> dims) const;
  mlir::AffineMap map(unsigned rank,
                      llvm::ArrayRef<mlir::AffineExpr> results) const;
  mlir::AffineExpr dim(unsigned position) const;

  // Tensors.
  mlir::Value empty(llvm::ArrayRef<int64_t> shape, mlir::Type elementType);

  /// A general linalg.generic; returns its results.
  llvm::SmallVector<mlir::Value>
  generic(llvm::ArrayRef<mlir::Value> inputs,
          llvm::ArrayRef<mlir::AffineMap> inputMaps,
          llvm::ArrayRef<mlir::Value> inits,
          llvm::ArrayRef<mlir::AffineMap> initMaps,
          llvm::ArrayRef<mlir::utils::IteratorType> iterators, BodyFn body);

  /// An all-parallel generic over `shape` producing one tensor of `shape` and
  /// `resultType`; `fn` computes each element (converted to `resultType` when
  /// it is a float of another width).
  mlir::Value map(llvm::ArrayRef<int64_t> shape, mlir::Type resultType,
                  llvm::ArrayRef<mlir::Value> inputs,
                  llvm::ArrayRef<mlir::AffineMap> inputMaps, ValueFn fn);

  /// Reduces `fn` (an f32) over `reducedDims` of the iteration space `shape`
  /// into a tensor of the remaining dimensions, in increasing index order of
  /// the reduced dimensions (outer to inner in dimension order), so the CPU
  /// and GPU loops give the same sums. The accumulator is an f32 scalar
  /// carried by the loops over the reduced dimensions, inside an
  /// all-parallel generic over the output: no f32 tensor of the output's
  /// shape exists unless the result is f32. Each output element is
  /// `epilogue(accumulator)` (the accumulator when null) converted once to
  /// `resultType` (f32 when null). Inputs are read with tensor.extract at
  /// their map of the iteration space.
  mlir::Value reduce(llvm::ArrayRef<int64_t> shape,
                     llvm::ArrayRef<int64_t> reducedDims, ReduceKind kind,
                     llvm::ArrayRef<mlir::Value> inputs,
                     llvm::ArrayRef<mlir::AffineMap> inputMaps, ReduceFn fn,
                     mlir::Type resultType = {}, EpilogueFn epilogue = {});

  /// Reshape keeping row-major order (collapse to 1-D, expand to `shape`).
  mlir::Value reshape(mlir::Value tensor, llvm::ArrayRef<int64_t> shape);

  /// Scalar helpers.
  mlir::Value f32(double value);
  mlir::Value f32(mlir::OpBuilder &builder, double value);
  mlir::Value index(mlir::OpBuilder &builder, int64_t value);
  mlir::Value i64(mlir::OpBuilder &builder, int64_t value);
  /// Extends a bf16/f16 scalar to f32 (f32 unchanged).
  static mlir::Value toF32(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value scalar);
  /// Converts an f32 scalar to float type `type` (unchanged when f32).
  static mlir::Value fromF32(mlir::OpBuilder &builder, mlir::Location loc,
                             mlir::Value scalar, mlir::Type type);
};

/// An i64 id (embedding row, cross-entropy class) clamped into [0, size):
/// an out-of-range id is undefined behaviour in PyTorch; the forward ops
/// read the nearest valid entry rather than memory outside the tensor, and
/// their backward ops send the gradient to that same entry, so that the
/// pair stays the gradient of one function (before 2026-12-07 backward
/// dropped it). `clampedIndex` is the same as an index.
mlir::Value clampedId(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                      int64_t size);
mlir::Value clampedIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                         int64_t size);

/// Shape and element type of a ranked tensor value.
llvm::ArrayRef<int64_t> shapeOf(mlir::Value value);
mlir::Type elementTypeOf(mlir::Value value);

/// The dimensions of `[0, rank)` not in `dims`, in increasing order.
llvm::SmallVector<int64_t> complement(unsigned rank,
                                      llvm::ArrayRef<int64_t> dims);
/// `shape` without the listed dimensions.
llvm::SmallVector<int64_t> dropDims(llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> dims);
int64_t product(llvm::ArrayRef<int64_t> shape);

/// Pattern registration, one function per op family (one file each).
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateStructurePatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns);
void populateAttentionPatterns(mlir::RewritePatternSet &patterns);
void populateSpatialPatterns(mlir::RewritePatternSet &patterns);

} // namespace remat::lowering

#endif // REMAT_LIB_CONVERSION_REMATTOLINALG_LOWERINGUTILS_H
