//===- RematDialect.cpp - remat dialect -----------------------------------===//
//
// Part of remat. Registration and the verification of the dialect's
// discardable attributes (tags, names, graph forms and roles).
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace remat;

#include "remat/Dialect/Remat/IR/RematOpsDialect.cpp.inc"

void RematDialect::initialize() { registerOps(); }

void RematDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "remat/Dialect/Remat/IR/RematOps.cpp.inc"
      >();
}

LogicalResult RematDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto expectUnit = [&]() -> LogicalResult {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' is a tag and takes no value; write it as "
                                "a unit attribute, e.g. {"
                             << name << "}";
    return success();
  };
  if (name == NeverRecomputeAttrHelper::getNameStr() ||
      name == NoAutoRecomputeAttrHelper::getNameStr() ||
      name == MustRecomputeAttrHelper::getNameStr() ||
      name == PreferRecomputeAttrHelper::getNameStr() ||
      name == PreferSaveAttrHelper::getNameStr()) {
    if (failed(expectUnit()))
      return failure();
    // Contradictions are reported once, from the tag that sorts first.
    auto has = [&](StringRef tag) { return op->hasAttr(tag); };
    if (name == MustRecomputeAttrHelper::getNameStr() &&
        has(NeverRecomputeAttrHelper::getNameStr()))
      return op->emitError()
             << "contradictory tags: 'remat.never_recompute' forbids "
                "recomputation but 'remat.must_recompute' requires it; "
                "remove one of them";
    if (name == PreferRecomputeAttrHelper::getNameStr() && has(PreferSaveAttrHelper::getNameStr()))
      return op->emitError()
             << "contradictory tags: 'remat.prefer_recompute' and "
                "'remat.prefer_save'; keep at most one preference";
    if (name == PreferRecomputeAttrHelper::getNameStr() &&
        has(NeverRecomputeAttrHelper::getNameStr()))
      return op->emitError()
             << "contradictory tags: 'remat.never_recompute' forbids "
                "recomputation but 'remat.prefer_recompute' asks for it; "
                "remove one of them";
    if (name == PreferSaveAttrHelper::getNameStr() && has(MustRecomputeAttrHelper::getNameStr()))
      return op->emitError()
             << "contradictory tags: 'remat.must_recompute' requires "
                "recomputation but 'remat.prefer_save' asks to save; "
                "remove one of them";
    return success();
  }
  if (name == NameAttrHelper::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || value.getValue().empty())
      return op->emitError()
             << "'remat.name' must be a non-empty string, e.g. "
                "{remat.name = \"query_proj\"}";
    return success();
  }
  if (name == GraphAttrHelper::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || (value.getValue() != "joint" && value.getValue() != "forward"))
      return op->emitError() << "'remat.graph' must be \"joint\" or "
                                "\"forward\"";
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func)
      return op->emitError() << "'remat.graph' is only valid on a function";
    bool joint = value.getValue() == "joint";
    bool sawTangent = false;
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      auto role = func.getArgAttrOfType<StringAttr>(i, RoleAttrHelper::getNameStr());
      if (!role)
        return op->emitError()
               << "argument #" << i << " of a remat.graph = \""
               << value.getValue()
               << "\" function has no 'remat.role'; mark it with "
                  "{remat.role = \"input\"}, \"param\""
               << (joint ? ", \"tangent\"" : "") << " or \"rng\"";
      if (role.getValue() == "tangent") {
        if (!joint)
          return op->emitError()
                 << "argument #" << i
                 << " is a tangent, but a remat.graph = \"forward\" function "
                    "has no tangents; use remat.graph = \"joint\"";
        sawTangent = true;
      }
    }
    for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
      auto role = func.getResultAttrOfType<StringAttr>(i, RoleAttrHelper::getNameStr());
      if (!role)
        return op->emitError()
               << "result #" << i << " of a remat.graph = \""
               << value.getValue()
               << "\" function has no 'remat.role'; mark it with "
                  "{remat.role = \"output\"}"
               << (joint ? " or {remat.role = \"grad\"}" : "");
      if (role.getValue() == "grad" && !joint)
        return op->emitError()
               << "result #" << i
               << " is a gradient, but a remat.graph = \"forward\" function "
                  "returns no gradients; use remat.graph = \"joint\"";
    }
    if (joint && !sawTangent)
      return op->emitError()
             << "a remat.graph = \"joint\" function needs at least one "
                "argument with {remat.role = \"tangent\"} (the cotangent of "
                "its output)";
    return success();
  }
  if (name == RoleAttrHelper::getNameStr() || name == GradOfAttrHelper::getNameStr())
    return op->emitError() << "'" << name
                           << "' belongs on function arguments or results, "
                              "not on an operation";
  return op->emitError() << "unknown remat attribute '" << name
                         << "'; known: never_recompute, no_auto_recompute, "
                            "must_recompute, prefer_recompute, prefer_save, "
                            "name, graph";
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned /*regionIndex*/,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != RoleAttrHelper::getNameStr())
    return op->emitError() << "'" << name << "' is not valid on argument #"
                           << argIndex << "; only 'remat.role' is";
  auto role = dyn_cast<StringAttr>(attr.getValue());
  StringRef value = role ? role.getValue() : "";
  if (value != "input" && value != "param" && value != "tangent" &&
      value != "rng")
    return op->emitError() << "argument #" << argIndex
                           << " has unknown role '" << value
                           << "'; expected \"input\", \"param\", \"tangent\" "
                              "or \"rng\"";
  return success();
}

LogicalResult RematDialect::verifyRegionResultAttribute(Operation *op,
                                                        unsigned /*regionIndex*/,
                                                        unsigned resultIndex,
                                                        NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == GradOfAttrHelper::getNameStr()) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!index || !func || index.getInt() < 0 ||
        index.getInt() >= static_cast<int64_t>(func.getNumArguments()))
      return op->emitError()
             << "result #" << resultIndex
             << ": 'remat.grad_of' must be the index of a function argument";
    return success();
  }
  if (name != RoleAttrHelper::getNameStr())
    return op->emitError() << "'" << name << "' is not valid on result #"
                           << resultIndex
                           << "; only 'remat.role' and 'remat.grad_of' are";
  auto role = dyn_cast<StringAttr>(attr.getValue());
  StringRef value = role ? role.getValue() : "";
  if (value != "output" && value != "grad")
    return op->emitError() << "result #" << resultIndex
                           << " has unknown role '" << value
                           << "'; expected \"output\" or \"grad\"";
  return success();
}
