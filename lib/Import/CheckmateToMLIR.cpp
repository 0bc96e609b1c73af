//===- CheckmateToMLIR.cpp - Checkmate JSON graphs as joint functions ----===//
//
// Part of remat. Reads the graph with the core's reader (one parser, one set
// of error messages) and prints the core graph back as IR, so that planning
// the IR (through GraphBuilder) and planning the core graph directly see the
// same ops, sizes, costs and phases.
//
//===----------------------------------------------------------------------===//

#include "remat/Import/CheckmateToMLIR.h"

#include "remat/Core/CheckmateImport.h"
#include "remat/Core/Graph.h"
#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Dialect/Remat/IR/RematOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>

using namespace mlir;

namespace remat {

std::string checkmateFunctionName(llvm::StringRef fileName) {
  std::string name = llvm::sys::path::stem(fileName).str();
  for (char &c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  // stdin and odd names still give a usable symbol.
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
    name = "graph_" + name;
  return name;
}

OwningOpRef<ModuleOp> importCheckmateGraph(llvm::StringRef json,
                                           llvm::StringRef functionName,
                                           Location loc) {
  // Errors name the file without a line: the graph files are one line of
  // JSON, which a diagnostic at 1:1 printed whole (60 KB for ResNet50's);
  // the messages say where in the JSON themselves.
  Location errorLoc = loc;
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    errorLoc = FileLineColLoc::get(file.getFilename(), 0, 0);
  absl::StatusOr<Graph> read =
      importCheckmateJson(std::string_view(json.data(), json.size()));
  if (!read.ok()) {
    emitError(errorLoc) << "cannot import the Checkmate graph: "
                        << std::string(read.status().message());
    return nullptr;
  }
  const Graph &graph = *read;
  // The reader accepts any DAG; a forward node reading a backward one is a
  // graph the planner would reject later, so say so here, at the source.
  absl::StatusOr<Classification> phases = classify(graph);
  if (!phases.ok()) {
    emitError(errorLoc) << "the Checkmate graph's phases are inconsistent: "
                        << std::string(phases.status().message());
    return nullptr;
  }

  MLIRContext *context = loc.getContext();
  context->loadDialect<RematDialect, func::FuncDialect>();
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());

  auto typeOf = [&](const TensorType &type) -> mlir::Type {
    // Every Checkmate value is an opaque byte buffer.
    return RankedTensorType::get(type.shape, builder.getI8Type());
  };

  llvm::SmallVector<mlir::Type> argumentTypes, resultTypes;
  llvm::SmallVector<ValueId> arguments, results;
  for (size_t id = 0; id < graph.numValues(); ++id) {
    const GraphValue &value = graph.value(static_cast<ValueId>(id));
    if (value.inputRole) {
      arguments.push_back(static_cast<ValueId>(id));
      argumentTypes.push_back(typeOf(value.type));
    }
    if (value.outputRole != OutputRole::None) {
      results.push_back(static_cast<ValueId>(id));
      resultTypes.push_back(typeOf(value.type));
    }
  }

  auto func =
      func::FuncOp::create(builder, loc, functionName,
                           builder.getFunctionType(argumentTypes, resultTypes));
  func->setAttr(RematDialect::GraphAttrHelper::getNameStr(),
                builder.getStringAttr("joint"));
  StringRef roleName = RematDialect::RoleAttrHelper::getNameStr();
  for (auto [index, id] : llvm::enumerate(arguments)) {
    InputRole role = *graph.value(id).inputRole;
    func.setArgAttr(index, roleName,
                    builder.getStringAttr(
                        role == InputRole::Parameter ? "param" : "input"));
  }
  for (auto [index, id] : llvm::enumerate(results))
    func.setResultAttr(
        index, roleName,
        builder.getStringAttr(graph.value(id).outputRole == OutputRole::Gradient
                                  ? "grad"
                                  : "output"));

  Block *body = func.addEntryBlock();
  builder.setInsertionPointToEnd(body);
  std::vector<Value> valueOf(graph.numValues());
  for (auto [index, id] : llvm::enumerate(arguments)) {
    BlockArgument argument = body->getArgument(index);
    // A named location gives the argument its value name in reports.
    argument.setLoc(NameLoc::get(builder.getStringAttr(graph.value(id).name)));
    valueOf[id] = argument;
  }

  for (size_t opId = 0; opId < graph.numOps(); ++opId) {
    const GraphOp &node = graph.op(static_cast<OpId>(opId));
    llvm::SmallVector<Value> operands;
    for (ValueId operand : node.operands)
      operands.push_back(valueOf[operand]);
    llvm::SmallVector<mlir::Type> types;
    for (ValueId result : node.results)
      types.push_back(typeOf(graph.value(result).type));
    llvm::SmallVector<NamedAttribute> attributes = {
        builder.getNamedAttr("op_name", builder.getStringAttr(node.name)),
        builder.getNamedAttr("compute_class", builder.getStringAttr(
                                                  toString(node.computeClass))),
        builder.getNamedAttr(RematDialect::NameAttrHelper::getNameStr(),
                             builder.getStringAttr(node.name)),
        builder.getNamedAttr(
            RematDialect::PhaseAttrHelper::getNameStr(),
            builder.getStringAttr(phases->opPhase[opId] == Phase::Backward
                                      ? "backward"
                                      : "forward")),
        builder.getNamedAttr(
            RematDialect::FixedTimeUsAttrHelper::getNameStr(),
            builder.getF64FloatAttr(node.fixedTimeUs.value_or(0)))};
    auto op = OpaqueOp::create(builder, loc, types, operands, attributes);
    for (auto [result, id] : llvm::zip(op->getResults(), node.results))
      valueOf[id] = result;
  }

  llvm::SmallVector<Value> returned;
  for (ValueId id : results)
    returned.push_back(valueOf[id]);
  func::ReturnOp::create(builder, loc, returned);
  return module;
}

void registerCheckmateImportTranslation() {
  TranslateToMLIRRegistration registration(
      "import-checkmate-json",
      "Import a Checkmate/Moccasin node-link JSON graph as a joint function",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        StringRef file = buffer->getBufferIdentifier();
        Location loc = FileLineColLoc::get(context, file, 1, 1);
        OwningOpRef<ModuleOp> module = importCheckmateGraph(
            buffer->getBuffer(), checkmateFunctionName(file), loc);
        return OwningOpRef<Operation *>(module.release());
      },
      [](DialectRegistry &registry) {
        registry.insert<RematDialect, func::FuncDialect>();
      });
}

} // namespace remat
