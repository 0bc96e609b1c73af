//===- MapLoopsToGPU.cpp - remat-memref-copy-to-linalg, -map-loops-to-gpu -===//
//
// Part of remat. The two loop preparations the pipelines need: copies as
// linalg ops, and linalg ops as scf.parallel loops in the block/thread
// shape that convert-parallel-loops-to-gpu expects.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace remat {
#define GEN_PASS_DEF_REMATMEMREFCOPYTOLINALGPASS
#define GEN_PASS_DEF_REMATMAPLOOPSTOGPUPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

struct RematMemrefCopyToLinalgPass final
    : impl::RematMemrefCopyToLinalgPassBase<RematMemrefCopyToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp op) { copies.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    }
    if (copies.empty())
      markAllAnalysesPreserved();
  }
};

struct RematMapLoopsToGPUPass final
    : impl::RematMapLoopsToGPUPassBase<RematMapLoopsToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerBlock <= 0) {
      getOperation().emitError()
          << "remat-map-loops-to-gpu: threads-per-block must be positive, "
             "got "
          << threadsPerBlock.getValue();
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    if (failed(convertLinalgToLoops(rewriter)))
      return signalPassFailure();
    wrapSequentialNests(rewriter);
    if (failed(mapParallelLoops(rewriter)))
      return signalPassFailure();
  }

  /// Every linalg op becomes scf.parallel over its parallel dimensions.
  LogicalResult convertLinalgToLoops(IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        return op->emitOpError("could not be converted to parallel loops");
      rewriter.eraseOp(op);
    }
    return success();
  }

  /// An scf.for nest directly in the function body (a linalg op without
  /// parallel dimensions) would run on the host: put it in a one-iteration
  /// scf.parallel so it becomes a one-thread kernel.
  void wrapSequentialNests(IRRewriter &rewriter) {
    SmallVector<scf::ForOp> nests;
    for (Block &block : getOperation().getBody())
      for (Operation &op : block)
        if (auto loop = dyn_cast<scf::ForOp>(op))
          nests.push_back(loop);
    for (scf::ForOp loop : nests) {
      Location loc = loop.getLoc();
      rewriter.setInsertionPoint(loop);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto parallel = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                              ValueRange{one}, ValueRange{one});
      rewriter.moveOpBefore(loop, parallel.getBody()->getTerminator());
    }
  }

  /// Collapse each outermost scf.parallel to 1-D, tile it and map tiles to
  /// blocks and tile elements to threads.
  LogicalResult mapParallelLoops(IRRewriter &rewriter) {
    SmallVector<scf::ParallelOp> roots = outermostParallelLoops();
    for (scf::ParallelOp loop : roots)
      if (failed(checkGridSize(loop)))
        return failure();
    for (scf::ParallelOp loop : roots) {
      if (loop.getNumLoops() > 1) {
        std::vector<unsigned> all;
        for (unsigned d = 0; d < loop.getNumLoops(); ++d)
          all.push_back(d);
        rewriter.setInsertionPoint(loop);
        collapseParallelLoops(rewriter, loop, {all});
      }
    }
    MLIRContext *context = &getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
    auto mapping = [&](gpu::Processor processor) {
      return gpu::ParallelLoopDimMappingAttr::get(context, processor, identity,
                                                  identity);
    };
    for (scf::ParallelOp loop : outermostParallelLoops()) {
      auto [tiles, elements] = scf::tileParallelLoop(loop, {threadsPerBlock},
                                                     /*noMinMaxBounds=*/true);
      (void)gpu::setMappingAttr(tiles, {mapping(gpu::Processor::BlockX)});
      (void)gpu::setMappingAttr(elements, {mapping(gpu::Processor::ThreadX)});
      // Nested scf.parallel loops inside a kernel run sequentially.
      elements.getBody()->walk([&](scf::ParallelOp nested) {
        SmallVector<gpu::ParallelLoopDimMappingAttr> sequential(
            nested.getNumLoops(), mapping(gpu::Processor::Sequential));
        (void)gpu::setMappingAttr(nested, sequential);
      });
    }
    return success();
  }

  /// CUDA's grid holds at most 2^31 - 1 blocks in x, and the launch passes
  /// the count as 32 bits: more would launch none, or a few (a partial
  /// result without an error, before 2026-12-07).
  LogicalResult checkGridSize(scf::ParallelOp loop) {
    constexpr double kMaxBlocks = 2147483647.0;
    double iterations = 1;
    for (auto [lower, upper, step] : llvm::zip(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> lo = getConstantIntValue(lower);
      std::optional<int64_t> hi = getConstantIntValue(upper);
      std::optional<int64_t> by = getConstantIntValue(step);
      if (!lo || !hi || !by || *by <= 0)
        return success(); // not static: nothing to check here
      iterations *=
          *hi > *lo ? static_cast<double>((*hi - *lo - 1) / *by + 1) : 0.0;
    }
    double blocks = std::ceil(iterations / threadsPerBlock);
    if (blocks <= kMaxBlocks)
      return success();
    return loop.emitError()
           << "remat-map-loops-to-gpu: a kernel over "
           << llvm::formatv("{0:F0}", iterations).str() << " elements needs "
           << llvm::formatv("{0:F0}", blocks).str() << " blocks of "
           << threadsPerBlock.getValue()
           << " threads, more than the 2^31 - 1 a grid holds; raise "
              "threads-per-block (up to 1024) or split the tensor";
  }

  SmallVector<scf::ParallelOp> outermostParallelLoops() {
    SmallVector<scf::ParallelOp> roots;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        roots.push_back(loop);
    });
    return roots;
  }
};

} // namespace
} // namespace remat
