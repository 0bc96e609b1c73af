//===- GPUManagedMemory.cpp - remat-gpu-managed-memory --------------------===//
//
// Part of remat. Host buffers of the GPU pipelines in managed memory, so
// that kernels and the host code around them can both use every buffer.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace remat {
#define GEN_PASS_DEF_REMATGPUMANAGEDMEMORYPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

/// Whether `op` is host code: not inside a kernel (gpu.launch body) or a
/// device module.
bool isOnHost(Operation *op) {
  return !op->getParentOfType<gpu::LaunchOp>() &&
         !op->getParentOfType<gpu::GPUFuncOp>() &&
         !op->getParentOfType<gpu::GPUModuleOp>();
}

struct RematGPUManagedMemoryPass final
    : impl::RematGPUManagedMemoryPassBase<RematGPUManagedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> work;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp, memref::DeallocOp,
              memref::GetGlobalOp>(op) &&
          isOnHost(op))
        work.push_back(op);
    });
    if (work.empty()) {
      markAllAnalysesPreserved();
      return;
    }
    IRRewriter rewriter(&getContext());
    for (Operation *op : work) {
      LogicalResult result =
          TypeSwitch<Operation *, LogicalResult>(op)
              .Case([&](memref::AllocOp alloc) {
                return replaceAlloc(rewriter, alloc, alloc.getType(),
                                    alloc.getDynamicSizes(),
                                    alloc.getSymbolOperands(),
                                    /*freeAtBlockEnd=*/false);
              })
              .Case([&](memref::AllocaOp alloca) {
                // A stack buffer lives until its scope ends; in managed
                // memory it is freed at the end of its block (the scope of
                // every host alloca the pipelines produce).
                return replaceAlloc(rewriter, alloca, alloca.getType(),
                                    alloca.getDynamicSizes(),
                                    alloca.getSymbolOperands(),
                                    /*freeAtBlockEnd=*/true);
              })
              .Case([&](memref::DeallocOp dealloc) {
                rewriter.setInsertionPoint(dealloc);
                emitFree(rewriter, dealloc.getLoc(), dealloc.getMemref());
                rewriter.eraseOp(dealloc);
                return success();
              })
              .Case([&](memref::GetGlobalOp global) {
                return copyGlobal(rewriter, global);
              })
              .Default([](Operation *) { return success(); });
      if (failed(result))
        return signalPassFailure();
    }
  }

  /// `gpu.dealloc` lowers only in its asynchronous form: free on a fresh
  /// stream and wait for it, which is synchronous again.
  static void emitFree(OpBuilder &builder, Location loc, Value buffer) {
    Type token = gpu::AsyncTokenType::get(builder.getContext());
    Value stream =
        gpu::WaitOp::create(builder, loc, token, ValueRange{}).getAsyncToken();
    Value freed =
        gpu::DeallocOp::create(builder, loc, token, ValueRange{stream}, buffer)
            .getAsyncToken();
    gpu::WaitOp::create(builder, loc, Type(), ValueRange{freed});
  }

  static LogicalResult checkConvertible(Operation *op, MemRefType type) {
    if (type.getLayout().isIdentity())
      return success();
    return op->emitOpError()
           << "allocates " << type
           << " with a non-identity layout, which cannot live in managed "
              "memory (gpu.alloc needs an identity layout); "
              "remat-gpu-managed-memory expects the identity layouts that "
              "the remat pipelines' bufferization produces";
  }

  static LogicalResult replaceAlloc(IRRewriter &rewriter, Operation *op,
                                    MemRefType type, ValueRange dynamicSizes,
                                    ValueRange symbolOperands,
                                    bool freeAtBlockEnd) {
    if (failed(checkConvertible(op, type)))
      return failure();
    if (!symbolOperands.empty())
      return op->emitOpError()
             << "has layout symbol operands, which gpu.alloc does not take";
    Location loc = op->getLoc(); // `op` is erased below
    rewriter.setInsertionPoint(op);
    auto alloc = gpu::AllocOp::create(
        rewriter, loc, type, /*asyncToken=*/Type(),
        /*asyncDependencies=*/ValueRange{}, dynamicSizes,
        /*symbolOperands=*/ValueRange{}, /*hostShared=*/true);
    rewriter.replaceOp(op, alloc.getMemref());
    if (freeAtBlockEnd) {
      rewriter.setInsertionPoint(alloc->getBlock()->getTerminator());
      emitFree(rewriter, loc, alloc.getMemref());
    }
    return success();
  }

  /// A constant global lives in host memory, where a kernel cannot read
  /// it: copy it into a managed buffer, freed when its block ends (unless
  /// the block returns it).
  static LogicalResult copyGlobal(IRRewriter &rewriter,
                                  memref::GetGlobalOp global) {
    MemRefType type = global.getType();
    if (failed(checkConvertible(global, type)))
      return failure();
    Location loc = global.getLoc();
    rewriter.setInsertionPointAfter(global);
    auto alloc = gpu::AllocOp::create(rewriter, loc, type, Type(), ValueRange{},
                                      ValueRange{}, ValueRange{},
                                      /*hostShared=*/true);
    rewriter.replaceAllUsesWith(global.getResult(), alloc.getMemref());
    memref::CopyOp::create(rewriter, loc, global.getResult(),
                           alloc.getMemref());
    Operation *terminator = alloc->getBlock()->getTerminator();
    bool returned =
        llvm::is_contained(terminator->getOperands(), alloc.getMemref());
    if (!returned) {
      rewriter.setInsertionPoint(terminator);
      emitFree(rewriter, loc, alloc.getMemref());
    }
    return success();
  }
};

} // namespace
} // namespace remat
