//===- DeallocAtLastUse.cpp - Free each buffer after its last use ---------===//
//
// Part of remat. Ownership-based deallocation frees at the end of the block
// that owns a buffer; in remat's straight-line functions that is function
// return. `remat-dealloc-at-last-use` moves each dealloc of the entry block
// up to the last op that may read the buffer, so that the lowered program's
// live bytes follow the planner's schedule (remat-run --measure-memory).
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace remat {
#define GEN_PASS_DEF_REMATDEALLOCATLASTUSEPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

/// The value whose storage `value` views: through ops that take a memref
/// operand and yield memrefs (views, casts, the base buffer the lowering of
/// deallocations extracts), up to an allocation or a block argument.
Value rootOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto source = llvm::find_if(def->getOperands(), [](Value operand) {
      return isa<BaseMemRefType>(operand.getType());
    });
    if (source == def->operand_end() || isa<memref::AllocOp>(def))
      break;
    value = *source;
  }
  return value;
}

/// The last op of `block` (before `dealloc`) that uses `root` or a value
/// that may alias it; nullptr when an alias escapes the block or is used
/// in a way that cannot be placed (then the dealloc stays).
FailureOr<Operation *> lastUseInBlock(Value root, Operation *dealloc,
                                      Block *block) {
  SmallVector<Value> worklist = {root};
  llvm::SmallPtrSet<Value, 8> aliases = {root};
  Operation *last = root.getDefiningOp();
  if (last && last->getBlock() != block)
    last = nullptr;
  while (!worklist.empty()) {
    Value alias = worklist.pop_back_val();
    for (OpOperand &use : alias.getUses()) {
      Operation *user = use.getOwner();
      if (user == dealloc)
        continue;
      if (user->hasTrait<OpTrait::IsTerminator>() && user->getBlock() == block)
        return failure(); // returned or branched: it leaves the block
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor)
        return failure(); // used in another block of the function
      if (dealloc->isBeforeInBlock(ancestor))
        return failure(); // read after the free already: leave it alone
      if (!last || last->isBeforeInBlock(ancestor))
        last = ancestor;
      // Whatever memref an op yields from an alias may alias it too.
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) &&
            aliases.insert(result).second)
          worklist.push_back(result);
    }
  }
  return last;
}

struct RematDeallocAtLastUsePass final
    : impl::RematDeallocAtLastUsePassBase<RematDeallocAtLastUsePass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    Block *entry = &function.getBody().front();
    SmallVector<memref::DeallocOp> deallocs;
    for (Operation &op : *entry)
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
    for (memref::DeallocOp dealloc : deallocs) {
      Value root = rootOf(dealloc.getMemref());
      FailureOr<Operation *> last = lastUseInBlock(root, dealloc, entry);
      if (failed(last))
        continue;
      if (!*last) {
        // Never used (an argument nothing reads): free it first thing.
        dealloc->moveBefore(entry, entry->begin());
        continue;
      }
      if ((*last)->getNextNode() != dealloc.getOperation())
        dealloc->moveAfter(*last);
    }
  }
};

} // namespace
} // namespace remat
