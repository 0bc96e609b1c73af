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

#include <cmath>

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

//===----------------------------------------------------------------------===//
// Plan attributes (written by remat-plan and remat-partition)
//===----------------------------------------------------------------------===//

namespace {
bool isDecisionSpelling(StringRef value) {
  return value == "save" || value == "recompute" || value == "derive" ||
         value == "not-needed" || value == "input";
}

/// `remat.decision` / `remat.reason`: one string per value the attribute
/// describes (`expected` of them); decisions must be known spellings.
LogicalResult verifyPerValueStrings(Operation *op, StringRef name,
                                    Attribute value, size_t expected,
                                    StringRef where) {
  auto array = dyn_cast<ArrayAttr>(value);
  if (!array || array.size() != expected ||
      !llvm::all_of(array, [](Attribute a) { return isa<StringAttr>(a); }))
    return op->emitError() << "'" << name << "' " << where
                           << " must be an array of " << expected
                           << " string(s), one per value";
  if (name == RematDialect::DecisionAttrHelper::getNameStr())
    for (Attribute entry : array)
      if (!isDecisionSpelling(cast<StringAttr>(entry).getValue()))
        return op->emitError()
               << "'" << name << "' has unknown decision '"
               << cast<StringAttr>(entry).getValue()
               << "'; expected save, recompute, derive, not-needed or input";
  return success();
}

/// `remat.derivation`: per result, `unit` or a dictionary naming the inverse
/// rule, e.g. {via = "layer_out", operand = 0, kind = "subtract-other",
/// from = ["layer_out", "h"], exact = false}.
LogicalResult verifyDerivation(Operation *op, Attribute value) {
  auto array = dyn_cast<ArrayAttr>(value);
  if (!array || array.size() != op->getNumResults())
    return op->emitError() << "'remat.derivation' must be an array with one "
                              "entry per result ("
                           << op->getNumResults() << ")";
  auto decisions = op->getAttrOfType<ArrayAttr>(
      RematDialect::DecisionAttrHelper::getNameStr());
  for (auto [index, entry] : llvm::enumerate(array)) {
    if (isa<UnitAttr>(entry))
      continue;
    auto dict = dyn_cast<DictionaryAttr>(entry);
    if (!dict || !dict.getAs<StringAttr>("via") ||
        !dict.getAs<IntegerAttr>("operand") ||
        !dict.getAs<StringAttr>("kind") || !dict.getAs<ArrayAttr>("from") ||
        !dict.getAs<BoolAttr>("exact"))
      return op->emitError()
             << "'remat.derivation' entry #" << index
             << " must be unit or a dictionary with via (string), operand "
                "(integer), kind (string), from (array) and exact (bool)";
    if (!decisions || decisions.size() <= index ||
        cast<StringAttr>(decisions[index]).getValue() != "derive")
      return op->emitError() << "'remat.derivation' entry #" << index
                             << " describes a derivation, but the result's "
                                "'remat.decision' is not \"derive\"";
  }
  return success();
}
} // namespace

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
  if (name == TagNoteAttrHelper::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || value.getValue().empty())
      return op->emitError()
             << "'remat.tag_note' must be a non-empty string saying why the "
                "op carries its tags, e.g. {remat.never_recompute, "
                "remat.tag_note = \"an exporter's call op\"}";
    const bool tagged = op->hasAttr(NeverRecomputeAttrHelper::getNameStr()) ||
                        op->hasAttr(NoAutoRecomputeAttrHelper::getNameStr()) ||
                        op->hasAttr(MustRecomputeAttrHelper::getNameStr()) ||
                        op->hasAttr(PreferRecomputeAttrHelper::getNameStr()) ||
                        op->hasAttr(PreferSaveAttrHelper::getNameStr());
    if (!tagged)
      return op->emitError()
             << "'remat.tag_note' explains the op's tags, but it has none; "
                "add the tag it explains or drop the note";
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
    // Imported graphs (e.g. Checkmate's) state each op's phase instead of
    // reading a tangent; their backward need not start from an argument.
    auto hasExplicitPhase = [&] {
      return func
          .walk([](Operation *inner) {
            return inner->hasAttr(PhaseAttrHelper::getNameStr())
                       ? WalkResult::interrupt()
                       : WalkResult::advance();
          })
          .wasInterrupted();
    };
    if (joint && !sawTangent && !hasExplicitPhase())
      return op->emitError()
             << "a remat.graph = \"joint\" function needs at least one "
                "argument with {remat.role = \"tangent\"} (the cotangent of "
                "its output), or ops with an explicit {remat.phase = "
                "\"forward\"/\"backward\"}";
    return success();
  }
  if (name == PhaseAttrHelper::getNameStr()) {
    auto phase = dyn_cast<StringAttr>(attr.getValue());
    if (!phase ||
        (phase.getValue() != "forward" && phase.getValue() != "backward"))
      return op->emitError() << "'remat.phase' must be \"forward\" or "
                                "\"backward\", e.g. {remat.phase = "
                                "\"backward\"}";
    return success();
  }
  if (name == FixedTimeUsAttrHelper::getNameStr()) {
    auto time = dyn_cast<FloatAttr>(attr.getValue());
    if (!time || !(time.getValueAsDouble() >= 0) ||
        std::isinf(time.getValueAsDouble()))
      return op->emitError()
             << "'remat.fixed_time_us' must be a finite non-negative float "
                "(a measured time in microseconds), e.g. "
                "{remat.fixed_time_us = 12.5 : f64}";
    return success();
  }
  if (name == WorkspaceBytesAttrHelper::getNameStr()) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    // Unsigned types read as unsigned; fits in int64 either way.
    if (!bytes ||
        (!bytes.getType().isUnsignedInteger() &&
         bytes.getValue().isNegative()) ||
        bytes.getValue().getActiveBits() > 63)
      return op->emitError()
             << "'remat.workspace_bytes' must be a non-negative integer (the "
                "bytes the op's kernel allocates while it runs), e.g. "
                "{remat.workspace_bytes = 4096 : i64}";
    return success();
  }
  if (name == DecisionAttrHelper::getNameStr() ||
      name == ReasonAttrHelper::getNameStr())
    return verifyPerValueStrings(op, name, attr.getValue(),
                                 op->getNumResults(), "on an operation");
  if (name == DerivationAttrHelper::getNameStr())
    return verifyDerivation(op, attr.getValue());
  if (name == PlanAttrHelper::getNameStr() ||
      name == StageAttrHelper::getNameStr() ||
      name == SavedValuesAttrHelper::getNameStr() ||
      name == ScheduleAttrHelper::getNameStr()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name
                             << "' is only valid on a function";
    if (name == PlanAttrHelper::getNameStr()) {
      auto plan = dyn_cast<DictionaryAttr>(attr.getValue());
      if (!plan || !plan.getAs<StringAttr>("strategy") ||
          !plan.getAs<StringAttr>("target") ||
          !plan.getAs<IntegerAttr>("peak_memory_bytes"))
        return op->emitError()
               << "'remat.plan' must be a dictionary with at least strategy "
                  "(string), target (string) and peak_memory_bytes "
                  "(integer); it is written by -remat-plan";
      return success();
    }
    if (name == ScheduleAttrHelper::getNameStr()) {
      // Indices are checked against the function by remat-partition.
      auto schedule = dyn_cast<DictionaryAttr>(attr.getValue());
      const size_t expectedSize =
          schedule && schedule.get("fingerprint") ? 3 : 2;
      if (!schedule || schedule.size() != expectedSize ||
          !schedule.getAs<DenseI64ArrayAttr>("steps") ||
          !schedule.getAs<IntegerAttr>("backward_start") ||
          (expectedSize == 3 && !schedule.getAs<IntegerAttr>("fingerprint")))
        return op->emitError()
               << "'remat.schedule' must be {backward_start = <i64>, steps "
                  "= array<i64: ...>}, with an optional fingerprint = <i64>; "
                  "it is written by -remat-plan";
      return success();
    }
    if (name == StageAttrHelper::getNameStr()) {
      auto stage = dyn_cast<StringAttr>(attr.getValue());
      if (!stage ||
          (stage.getValue() != "forward" && stage.getValue() != "backward"))
        return op->emitError()
               << "'remat.stage' must be \"forward\" or \"backward\"";
      return success();
    }
    auto saved = dyn_cast<ArrayAttr>(attr.getValue());
    if (!saved ||
        !llvm::all_of(saved, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError() << "'remat.saved_values' must be an array of "
                                "value names";
    return success();
  }
  if (name == RoleAttrHelper::getNameStr() || name == GradOfAttrHelper::getNameStr())
    return op->emitError() << "'" << name
                           << "' belongs on function arguments or results, "
                              "not on an operation";
  return op->emitError() << "unknown remat attribute '" << name
                         << "'; known: never_recompute, no_auto_recompute, "
                            "must_recompute, prefer_recompute, prefer_save, "
                            "tag_note, name, graph, phase, fixed_time_us, "
                            "workspace_bytes, decision, "
                            "reason, derivation, plan, stage, saved_values, "
                            "schedule";
}

LogicalResult RematDialect::verifyRegionArgAttribute(Operation *op,
                                                     unsigned /*regionIndex*/,
                                                     unsigned argIndex,
                                                     NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // remat-plan records the decision for an argument backward reads.
  if (name == DecisionAttrHelper::getNameStr() ||
      name == ReasonAttrHelper::getNameStr())
    return verifyPerValueStrings(op, name, attr.getValue(), 1,
                                 ("on argument #" + Twine(argIndex)).str());
  if (name == NameAttrHelper::getNameStr()) {
    auto value = dyn_cast<StringAttr>(attr.getValue());
    if (!value || value.getValue().empty())
      return op->emitError() << "argument #" << argIndex
                             << ": 'remat.name' must be a non-empty string, "
                                "e.g. {remat.name = \"tokens\"}";
    return success();
  }
  // The function owns (and frees) the buffer: set by remat-run on the saved
  // values it hands to a backward function, read by
  // remat-free-owned-arguments in the CPU lowering.
  if (name == "remat.owned") {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "argument #" << argIndex
                             << ": 'remat.owned' is a unit attribute, "
                                "e.g. {remat.owned}";
    return success();
  }
  if (name != RoleAttrHelper::getNameStr())
    return op->emitError() << "'" << name << "' is not valid on argument #"
                           << argIndex
                           << "; only 'remat.role' and 'remat.name' are "
                              "accepted there (remat-plan also writes "
                              "'remat.decision' and 'remat.reason'; "
                              "'remat.owned' hands the buffer to the "
                              "function)";
  auto role = dyn_cast<StringAttr>(attr.getValue());
  if (!role)
    return op->emitError() << "argument #" << argIndex
                           << ": 'remat.role' must be a string, e.g. "
                              "{remat.role = \"param\"}";
  StringRef value = role.getValue();
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
    auto resultRole =
        func.getResultAttrOfType<StringAttr>(resultIndex,
                                             RoleAttrHelper::getNameStr());
    if (resultRole && resultRole.getValue() != "grad")
      return op->emitError()
             << "result #" << resultIndex << " has 'remat.grad_of' but role '"
             << resultRole.getValue()
             << "'; only a {remat.role = \"grad\"} result is a gradient";
    auto argRole = func.getArgAttrOfType<StringAttr>(
        index.getInt(), RoleAttrHelper::getNameStr());
    if (argRole && argRole.getValue() != "input" &&
        argRole.getValue() != "param")
      return op->emitError()
             << "result #" << resultIndex << " is the gradient of argument #"
             << index.getInt() << ", whose role is '" << argRole.getValue()
             << "'; gradients are of \"input\" or \"param\" arguments";
    Type argType = func.getArgumentTypes()[index.getInt()];
    Type resultType = func.getResultTypes()[resultIndex];
    if (argType != resultType)
      return op->emitError()
             << "result #" << resultIndex << " is the gradient of argument #"
             << index.getInt() << " but has type " << resultType
             << "; a gradient has its argument's type, " << argType;
    return success();
  }
  if (name != RoleAttrHelper::getNameStr())
    return op->emitError() << "'" << name << "' is not valid on result #"
                           << resultIndex
                           << "; only 'remat.role' and 'remat.grad_of' are";
  auto role = dyn_cast<StringAttr>(attr.getValue());
  if (!role)
    return op->emitError() << "result #" << resultIndex
                           << ": 'remat.role' must be a string, e.g. "
                              "{remat.role = \"grad\"}";
  StringRef value = role.getValue();
  if (value != "output" && value != "grad")
    return op->emitError() << "result #" << resultIndex
                           << " has unknown role '" << value
                           << "'; expected \"output\" or \"grad\"";
  return success();
}
