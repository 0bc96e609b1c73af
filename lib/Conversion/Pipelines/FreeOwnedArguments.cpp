//===- FreeOwnedArguments.cpp - Free the arguments a function owns --------===//
//
// Part of remat. The ownership-based deallocation pipeline never frees a
// function argument: the caller owns it. A caller that hands a buffer over
// (remat-run giving the saved values to the backward function, as PyTorch's
// compiled backward drops each saved tensor after its last read) marks the
// argument `remat.owned`; this pass frees it before the return, and
// remat-dealloc-at-last-use moves that free to the argument's last use.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace remat {
#define GEN_PASS_DEF_REMATFREEOWNEDARGUMENTSPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

constexpr llvm::StringLiteral kOwnedAttr = "remat.owned";

struct RematFreeOwnedArgumentsPass final
    : impl::RematFreeOwnedArgumentsPassBase<RematFreeOwnedArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    SmallVector<BlockArgument> owned;
    for (BlockArgument argument : function.getArguments())
      if (function.getArgAttr(argument.getArgNumber(), kOwnedAttr))
        owned.push_back(argument);
    if (owned.empty())
      return;
    if (!function.getBody().hasOneBlock()) {
      function.emitOpError()
          << "has " << kOwnedAttr
          << " arguments but more than one block; "
             "remat-free-owned-arguments frees them before the entry "
             "block's return and needs a single-block function";
      return signalPassFailure();
    }
    Block &entry = function.getBody().front();
    OpBuilder builder(entry.getTerminator());
    for (BlockArgument argument : owned) {
      if (!isa<MemRefType>(argument.getType())) {
        function.emitOpError()
            << "argument " << argument.getArgNumber() << " is marked "
            << kOwnedAttr << " but has type " << argument.getType()
            << ", not a ranked memref (run this pass after bufferization)";
        return signalPassFailure();
      }
      memref::DeallocOp::create(builder, function.getLoc(), argument);
      function.removeArgAttr(argument.getArgNumber(), kOwnedAttr);
    }
  }
};

} // namespace
} // namespace remat
