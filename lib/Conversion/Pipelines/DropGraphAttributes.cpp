//===- DropGraphAttributes.cpp - Drop remat.* attributes before LLVM -------===//
//
// Part of remat. The training-graph attributes (roles, gradient indices,
// graph forms, tags, plans) describe a function's tensor signature; the
// lowering changes that signature, after which the dialect's verifier
// rejects them. Only remat.owned, which remat-free-owned-arguments reads, is
// kept.
//
//===----------------------------------------------------------------------===//

#include "remat/Conversion/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace remat {
#define GEN_PASS_DEF_REMATDROPGRAPHATTRIBUTESPASS
#include "remat/Conversion/Passes.h.inc"
} // namespace remat

using namespace mlir;

namespace remat {
namespace {

bool dropped(StringRef name) {
  return name.starts_with("remat.") && name != "remat.owned";
}

struct RematDropGraphAttributesPass final
    : impl::RematDropGraphAttributesPassBase<RematDropGraphAttributesPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      SmallVector<StringAttr> names;
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (dropped(attr.getName().strref()))
          names.push_back(attr.getName());
      for (StringAttr name : names)
        op->removeDiscardableAttr(name);
      auto function = dyn_cast<FunctionOpInterface>(op);
      if (!function)
        return;
      auto prune = [](ArrayRef<NamedAttribute> attrs) {
        SmallVector<NamedAttribute> kept;
        for (NamedAttribute attr : attrs)
          if (!dropped(attr.getName().strref()))
            kept.push_back(attr);
        return kept;
      };
      for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
        function.setArgAttrs(i, prune(function.getArgAttrs(i)));
      for (unsigned i = 0, e = function.getNumResults(); i < e; ++i)
        function.setResultAttrs(i, prune(function.getResultAttrs(i)));
    });
  }
};

} // namespace
} // namespace remat
