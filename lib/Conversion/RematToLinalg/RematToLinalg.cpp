//===- RematToLinalg.cpp - remat-lower-to-linalg
//---------------------------===//
//
// Part of remat. A partial conversion with the remat dialect illegal: every
// typed op has a pattern (one file per op family); remat.opaque has no
// semantics to lower and is reported by name.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <limits>

namespace remat {
#define GEN_PASS_DEF_REMATLOWERTOLINALGPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {

void populateRematToLinalgPatterns(RewritePatternSet &patterns) {
  lowering::populateElementwisePatterns(patterns);
  lowering::populateStructurePatterns(patterns);
  lowering::populateNormalizationPatterns(patterns);
  lowering::populateAttentionPatterns(patterns);
  lowering::populateSpatialPatterns(patterns);
}

namespace {

struct RematLowerToLinalgPass final
    : impl::RematLowerToLinalgPassBase<RematLowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool hasOpaque = false;
    module.walk([&](OpaqueOp op) {
      op.emitOpError() << "'" << op.getOpName()
                       << "' has no semantics to lower: remat.opaque stands "
                          "for a computation the dialect does not model; "
                          "replace it with typed remat ops or upstream "
                          "linalg/arith/math ops before lowering";
      hasOpaque = true;
    });
    if (hasOpaque)
      return signalPassFailure();
    // The dialect admits f64 so that f64 graphs can be planned, but the
    // patterns compute in f32 (toF32/fromF32): an f64 op lowered that way
    // would silently lose half its significand.
    auto isF64Tensor = [](Type type) {
      auto tensor = dyn_cast<mlir::TensorType>(type);
      return tensor && tensor.getElementType().isF64();
    };
    WalkResult f64 = module.walk([&](Operation *op) {
      if (!isa<RematDialect>(op->getDialect()) ||
          (llvm::none_of(op->getOperandTypes(), isF64Tensor) &&
           llvm::none_of(op->getResultTypes(), isF64Tensor)))
        return WalkResult::advance();
      op->emitOpError()
          << "has f64 tensors, which remat plans but does not lower: its "
             "kernels compute in f32 and would lose precision; plan and "
             "partition the f64 graph with remat, and lower it with another "
             "compiler, or use f32";
      return WalkResult::interrupt();
    });
    if (f64.wasInterrupted())
      return signalPassFailure();
    // Buffer sizes are 64-bit indices: a larger tensor's allocation size
    // wrapped (a malloc of a few bytes that the kernels then overran; before
    // 2026-12-08 only the GPU pipelines, by their grid size, refused it).
    auto tooLarge = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape())
        return false;
      Type element = tensor.getElementType();
      if (auto complex = dyn_cast<ComplexType>(element))
        element = complex.getElementType();
      if (!element.isIntOrFloat())
        return false;
      std::optional<uint64_t> bytes = staticTensorBytes(tensor);
      return !bytes || *bytes > static_cast<uint64_t>(
                                    std::numeric_limits<int64_t>::max());
    };
    auto sizeError = [](InFlightDiagnostic diagnostic, Type type) {
      diagnostic << "has a value of type " << type
                 << ", with more bytes than a 64-bit buffer size counts; the "
                    "lowered program could not allocate it: shrink the "
                    "shapes (remat plans such graphs, it does not lower them)";
    };
    WalkResult huge = module.walk([&](Operation *op) {
      if (auto func = dyn_cast<FunctionOpInterface>(op))
        for (Type type : func.getArgumentTypes())
          if (tooLarge(type)) {
            sizeError(func.emitOpError(), type);
            return WalkResult::interrupt();
          }
      for (Type type : op->getResultTypes())
        if (tooLarge(type)) {
          sizeError(op->emitOpError(), type);
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (huge.wasInterrupted())
      return signalPassFailure();

    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalDialect<RematDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect>();
    RewritePatternSet patterns(context);
    populateRematToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    giveRepeatedResultsTheirOwnTensor(module);
  }

private:
  /// A function may return one value twice: a partitioned forward returns an
  /// output that is also saved for backward. Bufferizing results into
  /// caller-provided buffers needs every result to be a tensor of its own, so
  /// each repeat returns a copy.
  static void giveRepeatedResultsTheirOwnTensor(ModuleOp module) {
    module.walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 8> seen;
      OpBuilder builder(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        Value result = operand.get();
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || seen.insert(result).second)
          continue;
        Value empty = tensor::EmptyOp::create(
            builder, ret.getLoc(), type.getShape(), type.getElementType());
        operand.set(linalg::CopyOp::create(builder, ret.getLoc(),
                                           ValueRange{result},
                                           ValueRange{empty})
                        ->getResult(0));
      }
    });
  }
};

} // namespace
} // namespace remat
