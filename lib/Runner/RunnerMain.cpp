//===- RunnerMain.cpp - the remat-run command line ------------------------===//
//
// Part of remat. `remat-run FILE --function=f` compiles FILE for the host
// (or, with --device=cuda, for an NVIDIA GPU), calls @f on seeded (or
// given) inputs and prints every result; with `--compare=g` it also calls
// @g on the same inputs and compares results pairwise, bitwise unless a
// tolerance is given; with `--compare-devices` the reference results come
// from the CPU.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/RunnerMain.h"

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Interfaces/ExternalModels.h"
#include "remat/Runner/CudaRuntime.h"
#include "remat/Runner/Runner.h"
#include "remat/Tools/DiagnosticOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;

namespace remat {
namespace {

/// Every option of remat-run; --help lists only these (and MLIR's
/// -mlir-print-op-on-diagnostic), not LLVM's back-end options.
cl::OptionCategory runCategory("remat-run options");

struct Options {
  cl::opt<std::string> inputFile{cl::Positional, cl::desc("<file.mlir>"),
                                 cl::Required, cl::cat(runCategory)};
  cl::opt<std::string> function{
      "function", cl::desc("Function to call (public, tensor arguments)"),
      cl::Required, cl::cat(runCategory)};
  cl::opt<uint64_t> seed{"seed", cl::desc("Seed of the generated inputs"),
                         cl::init(1), cl::cat(runCategory)};
  cl::list<std::string> inputs{
      "input",
      cl::desc("Set argument N to the listed values instead of seeded ones: "
               "--input=N:v0,v1,... (row-major; one value fills the tensor)"),
      cl::cat(runCategory)};
  cl::list<std::string> perturbations{
      "perturb",
      cl::desc("Add eps to one element before the call: "
               "--perturb=N:index:eps (argument N, row-major element index)"),
      cl::cat(runCategory)};
  cl::opt<std::string> compare{
      "compare",
      cl::desc("Also call this function on the same inputs and compare "
               "results pairwise; exit 1 on a mismatch"),
      cl::cat(runCategory)};
  cl::opt<std::string> partitioned{
      "check-partition",
      cl::desc("Equivalence check of a plan: FILE holds @<function>_forward "
               "and @<function>_backward (remat-partition's output for the "
               "joint @<function> of the input file); runs the joint graph "
               "and forward + backward on the same inputs and compares "
               "outputs and gradients (bitwise unless --atol/--rtol)"),
      cl::cat(runCategory)};
  cl::opt<double> absTolerance{
      "atol",
      cl::desc("Absolute tolerance of --compare (0 with --rtol=0: "
               "bitwise)"),
      cl::init(0.0), cl::cat(runCategory)};
  cl::opt<double> relTolerance{"rtol",
                               cl::desc("Relative tolerance of --compare"),
                               cl::init(0.0), cl::cat(runCategory)};
  cl::opt<std::string> format{
      "format", cl::desc("How floats print: decimal (%.9g) or hex (%a)"),
      cl::init("decimal"), cl::cat(runCategory)};
  cl::opt<bool> printInputs{"print-inputs",
                            cl::desc("Print the arguments before the call"),
                            cl::init(false), cl::cat(runCategory)};
  cl::opt<unsigned> optLevel{"opt-level",
                             cl::desc("LLVM optimization level of the JIT"),
                             cl::init(2), cl::cat(runCategory)};
  cl::opt<std::string> device{
      "device",
      cl::desc("Where the functions run: cpu, or cuda (NVIDIA GPU through "
               "remat-lower-to-nvvm and the CUDA driver, device 0)"),
      cl::init("cpu"), cl::cat(runCategory)};
  cl::opt<bool> compareDevices{
      "compare-devices",
      cl::desc("Take the reference results from the CPU: compare @<function> "
               "on --device with @<function> on the CPU, or with "
               "--check-partition the partitioned functions on --device with "
               "the joint function on the CPU (bitwise unless --atol/--rtol)"),
      cl::init(false), cl::cat(runCategory)};
  cl::opt<bool> measureMemory{
      "measure-memory",
      cl::desc("cpu: count the heap allocations of the lowered code and "
               "print, per call, the bytes of arguments, results, the heap "
               "high-water mark and stack buffers; with --check-partition "
               "also the plan's measured activation peak (comparable to "
               "remat-report's peak_memory_bytes)"),
      cl::init(false), cl::cat(runCategory)};
  cl::opt<bool> backwardFreesSaved{
      "backward-frees-saved",
      cl::desc("cpu, --check-partition: hand the saved values (the "
               "forward's results after its outputs) to "
               "@<function>_backward, which frees each after its last read, "
               "as PyTorch's compiled backward does; =false: the caller "
               "holds them through the backward call (--device=cuda: always "
               "false)"),
      cl::init(true), cl::cat(runCategory)};
  cl::opt<bool> compileOnly{
      "compile-only",
      cl::desc("Lower, JIT-compile and link the functions for --device, "
               "print what was compiled and stop (needs no GPU)"),
      cl::init(false), cl::cat(runCategory)};
  cl::opt<std::string> gpuChip{
      "gpu-chip",
      cl::desc("cuda: GPU architecture of the kernels (default: device 0's, "
               "or sm_90 with --compile-only)"),
      cl::cat(runCategory)};
  cl::opt<std::string> gpuFeatures{
      "gpu-features",
      cl::desc("cuda: PTX features of the kernels, e.g. +ptx86 (default: "
               "the oldest PTX version the chip supports)"),
      cl::cat(runCategory)};
  cl::opt<std::string> gpuFormat{
      "gpu-format",
      cl::desc("cuda: kernel payload: bin (cubin, needs ptxas), isa (PTX "
               "that the driver compiles) or auto (bin when ptxas is found)"),
      cl::init("auto"), cl::cat(runCategory)};
  cl::opt<std::string> cudaToolkit{
      "cuda-toolkit",
      cl::desc("cuda: CUDA toolkit folder (libdevice, ptxas); default "
               "$CUDA_ROOT, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda"),
      cl::cat(runCategory)};
};

/// A parsed input file. While it lives, diagnostics about its ops print
/// with source context (it is not movable: the handler points into it).
struct ParsedInput {
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<SourceMgrDiagnosticHandler> diagnostics;
  OwningOpRef<ModuleOp> module;
};

/// Parses `path`; on failure sets `error` and returns null.
std::unique_ptr<ParsedInput> parseInput(llvm::StringRef path,
                                        MLIRContext &context,
                                        std::string &error) {
  auto file = openInputFile(path, &error);
  if (!file)
    return nullptr;
  auto input = std::make_unique<ParsedInput>();
  input->sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  input->diagnostics = std::make_unique<SourceMgrDiagnosticHandler>(
      input->sourceMgr, &context);
  input->module = parseSourceFile<ModuleOp>(input->sourceMgr, &context);
  if (!input->module) {
    error = ("could not parse '" + path + "'").str();
    return nullptr;
  }
  return input;
}

int fail(const llvm::Twine &message) {
  llvm::errs() << "remat-run: error: " << message << "\n";
  return 2;
}

/// Applies --input and --perturb to the seeded arguments.
llvm::Error applyOverrides(const Options &options,
                           std::vector<HostTensor> &arguments) {
  auto argumentIndex = [&](StringRef text,
                           StringRef flag) -> llvm::Expected<size_t> {
    size_t index;
    if (text.getAsInteger(10, index) || index >= arguments.size())
      return llvm::createStringError(
          "--" + flag.str() + ": '" + text.str() +
          "' is not an argument index (the function has " +
          std::to_string(arguments.size()) + " arguments)");
    return index;
  };
  auto parseDouble = [](StringRef text, double &value) {
    std::string copy = text.trim().str();
    char *end = nullptr;
    value = std::strtod(copy.c_str(), &end);
    return !copy.empty() && end && *end == '\0';
  };
  for (StringRef spec : options.inputs) {
    auto [indexText, valuesText] = spec.split(':');
    auto index = argumentIndex(indexText, "input");
    if (!index)
      return index.takeError();
    HostTensor &tensor = arguments[*index];
    SmallVector<StringRef> values;
    valuesText.split(values, ',');
    int64_t count = tensor.getNumElements();
    if (static_cast<int64_t>(values.size()) != count && values.size() != 1)
      return llvm::createStringError(
          "--input=" + spec.str() + ": argument " + indexText.str() + " (" +
          tensor.getTypeString() + ") needs " + std::to_string(count) +
          " values (or one to fill it), got " + std::to_string(values.size()));
    for (int64_t i = 0; i < count; ++i) {
      double value;
      if (!parseDouble(values[values.size() == 1 ? 0 : i], value))
        return llvm::createStringError("--input=" + spec.str() +
                                       ": not a number: '" + values[i].str() +
                                       "'");
      tensor.set(i, value);
    }
  }
  for (StringRef spec : options.perturbations) {
    SmallVector<StringRef> parts;
    spec.split(parts, ':');
    if (parts.size() != 3)
      return llvm::createStringError("--perturb=" + spec.str() +
                                     ": expected N:index:eps");
    auto index = argumentIndex(parts[0], "perturb");
    if (!index)
      return index.takeError();
    HostTensor &tensor = arguments[*index];
    int64_t element;
    double eps;
    if (parts[1].getAsInteger(10, element) || element < 0 ||
        element >= tensor.getNumElements() || !parseDouble(parts[2], eps))
      return llvm::createStringError(
          "--perturb=" + spec.str() + ": element index must be in [0, " +
          std::to_string(tensor.getNumElements()) + ") and eps a number");
    tensor.set(element, tensor.get(element) + eps);
  }
  return llvm::Error::success();
}

void printTensors(StringRef label, ArrayRef<HostTensor> tensors,
                  FloatFormat format) {
  for (auto [i, tensor] : llvm::enumerate(tensors)) {
    llvm::outs() << label << " " << i << " " << tensor.getTypeString() << ": ";
    printElements(llvm::outs(), tensor, format);
    llvm::outs() << "\n";
  }
}

/// One line on a measured call (docs/Lowering.md, "Measuring memory").
void printMemory(StringRef function, const MemoryMeasurement &memory) {
  llvm::outs() << "@" << function << " memory (bytes): arguments "
               << memory.argumentBytes << " owned "
               << memory.ownedArgumentBytes << " results "
               << memory.resultBytes << " heap-high-water "
               << memory.heapPeakBytes << " stack " << memory.stackBytes
               << " peak " << memory.getPeak() << " | heap allocations "
               << memory.heapAllocations << " allocated "
               << memory.heapAllocatedBytes << " live-at-return "
               << memory.heapLiveAtReturnBytes << "\n";
}

/// Compares `actual` with `expected` pairwise, printing one line per pair
/// labelled `labels[i]`; returns whether all match (bitwise without a
/// tolerance).
bool compareAll(ArrayRef<HostTensor> actual, ArrayRef<HostTensor> expected,
                ArrayRef<std::string> labels, double absTolerance,
                double relTolerance) {
  bool bitwise = absTolerance == 0.0 && relTolerance == 0.0;
  bool allMatch = true;
  for (size_t i = 0; i < expected.size(); ++i) {
    TensorComparison comparison =
        compareTensors(actual[i], expected[i], absTolerance, relTolerance);
    llvm::outs() << "compare " << labels[i] << ": ";
    if (!comparison.sameType) {
      llvm::outs() << "type mismatch " << expected[i].getTypeString() << " vs "
                   << actual[i].getTypeString() << "\n";
      allMatch = false;
      continue;
    }
    bool match = bitwise ? comparison.bitwiseMismatches == 0
                         : comparison.toleranceFailures == 0;
    allMatch &= match;
    llvm::outs() << (comparison.bitwiseMismatches == 0 ? "bitwise-equal"
                                                       : "differs")
                 << " max-abs-error "
                 << llvm::format("%.3g", comparison.maxAbsError)
                 << " max-rel-error "
                 << llvm::format("%.3g", comparison.maxRelError) << " ("
                 << (bitwise ? comparison.bitwiseMismatches
                             : comparison.toleranceFailures)
                 << " of " << expected[i].getNumElements() << " elements "
                 << (bitwise ? "differ" : "outside tolerance") << ")\n";
  }
  return allMatch;
}

/// --check-partition: joint(args) -> (outputs, gradients) against
/// forward(args without tangents) -> (outputs, saved) and
/// backward(saved, args) -> gradients (remat-partition's conventions).
int checkPartition(const Options &options, const RunnerOptions &compile,
                   MLIRContext &context, const Runner &joint,
                   ArrayRef<HostTensor> arguments) {
  const FunctionSignature *jointSignature = joint.lookup(options.function);
  std::string errorMessage;
  std::unique_ptr<ParsedInput> partitioned =
      parseInput(options.partitioned, context, errorMessage);
  if (!partitioned)
    return fail(errorMessage);
  RunnerOptions splitOptions = compile;
  if (options.backwardFreesSaved && compile.device == Device::CPU)
    splitOptions.backwardOwnsSavedValues = true;
  auto split = Runner::create(*partitioned->module, splitOptions);
  if (!split)
    return fail(llvm::toString(split.takeError()));
  if (options.compileOnly) {
    llvm::outs() << "compiled '" << options.partitioned
                 << "': " << (*split)->getCompilationSummary() << "\n";
    return 0;
  }
  std::string forwardName = options.function + "_forward";
  std::string backwardName = options.function + "_backward";
  const FunctionSignature *forward = (*split)->lookup(forwardName);
  const FunctionSignature *backward = (*split)->lookup(backwardName);
  for (auto [name, signature] :
       {std::pair(forwardName, forward), std::pair(backwardName, backward)}) {
    if (signature)
      continue;
    // Defined but not callable: say so (before 2026-12-08 this too read
    // "must define"). remat-partition passes a saved index (a loop bound)
    // as an index argument, which the runner cannot pass.
    if (partitioned->module->lookupSymbol<func::FuncOp>(name))
      return fail("'" + options.partitioned + "' defines @" + name +
                  ", but the runner cannot call it: it must be public and "
                  "take and return statically shaped tensors only (a saved "
                  "index or scalar is not one)");
    return fail("'" + options.partitioned + "' must define @" + forwardName +
                " and @" + backwardName +
                " (run remat-plan and remat-partition on the joint function)");
  }

  std::vector<HostTensor> forwardArguments;
  for (auto [i, spec] : llvm::enumerate(jointSignature->inputs))
    if (spec.role != "tangent")
      forwardArguments.push_back(arguments[i]);
  MemoryMeasurement jointMemory, forwardMemory, backwardMemory;
  bool measure = options.measureMemory;
  auto jointResults =
      joint.run(options.function, arguments, measure ? &jointMemory : nullptr);
  if (!jointResults)
    return fail(llvm::toString(jointResults.takeError()));
  auto forwardResults = (*split)->run(forwardName, forwardArguments,
                                      measure ? &forwardMemory : nullptr);
  if (!forwardResults)
    return fail(llvm::toString(forwardResults.takeError()));

  std::vector<HostTensor> expected, actual;
  std::vector<std::string> labels;
  size_t next = 0;
  for (auto [i, spec] : llvm::enumerate(jointSignature->results)) {
    if (spec.role != "output")
      continue;
    expected.push_back((*jointResults)[i]);
    actual.push_back((*forwardResults)[next++]);
    labels.push_back("output " + std::to_string(i));
  }
  size_t savedCount = forwardResults->size() - next;
  std::vector<HostTensor> backwardArguments(forwardResults->begin() + next,
                                            forwardResults->end());
  backwardArguments.insert(backwardArguments.end(), arguments.begin(),
                           arguments.end());
  auto backwardResults = (*split)->run(backwardName, backwardArguments,
                                       measure ? &backwardMemory : nullptr);
  if (!backwardResults)
    return fail(llvm::toString(backwardResults.takeError()));
  if (measure) {
    printMemory(options.function, jointMemory);
    printMemory(forwardName, forwardMemory);
    printMemory(backwardName, backwardMemory);
    // The plan's activations, as the simulator counts them: graph inputs,
    // parameters, tangents and RNG state are out (they are arguments).
    // The forward's outputs are held by the caller from the forward call to
    // the end of the backward one; so are its saved values, unless they are
    // handed to the backward (--backward-frees-saved), whose peak then
    // counts them until it frees them.
    int64_t held = 0;
    for (auto [i, bytes] :
         llvm::enumerate(forwardMemory.resultAllocationBytes))
      if (i < next || !(*split)->lookup(backwardName)->inputs[i - next].owned)
        held += bytes;
    int64_t forwardPhase = forwardMemory.getPeak();
    int64_t backwardPhase = held + backwardMemory.getPeak();
    llvm::outs() << "@" << forwardName << " + @" << backwardName
                 << " memory (bytes): forward-phase " << forwardPhase
                 << " backward-phase " << backwardPhase << " activation-peak "
                 << std::max(forwardPhase, backwardPhase) << "\n";
  }
  next = 0;
  for (auto [i, spec] : llvm::enumerate(jointSignature->results)) {
    if (spec.role != "grad")
      continue;
    expected.push_back((*jointResults)[i]);
    actual.push_back((*backwardResults)[next++]);
    labels.push_back("gradient " + std::to_string(i) +
                     (spec.gradOf >= 0
                          ? " (of argument " + std::to_string(spec.gradOf) + ")"
                          : std::string()));
  }
  if (actual.size() != jointSignature->results.size())
    return fail("the joint function's results are not all marked remat.role "
                "= \"output\" or \"grad\"; cannot pair them with the "
                "partitioned functions' results");
  llvm::outs() << "@" << options.function << ": " << savedCount
               << " values saved by @" << forwardName << "\n";
  bool allMatch = compareAll(actual, expected, labels, options.absTolerance,
                             options.relTolerance);
  llvm::outs() << (allMatch ? "PASS" : "FAIL") << ": @" << options.function
               << (options.compareDevices ? " on cpu" : "") << " vs @"
               << forwardName << " + @" << backwardName
               << (options.compareDevices
                       ? " on " + getDeviceName(compile.device).str()
                       : std::string())
               << "\n";
  return allMatch ? 0 : 1;
}

} // namespace

int runnerMain(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  Options options;
  registerDiagnosticOptions(&runCategory);
  cl::HideUnrelatedOptions(runCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "remat-run: execute a function of an .mlir file on the host (through "
      "remat-lower-to-cpu and MLIR's ExecutionEngine) or on an NVIDIA GPU "
      "(--device=cuda: remat-lower-to-nvvm and the CUDA driver) and print "
      "or compare its results\n");
  FloatFormat format;
  if (options.format == "decimal")
    format = FloatFormat::Decimal;
  else if (options.format == "hex")
    format = FloatFormat::Hex;
  else
    return fail("--format must be decimal or hex, got '" + options.format +
                "'");

  // A NaN or negative tolerance fails every comparison; say so instead.
  if (!(options.absTolerance >= 0) || !std::isfinite(options.absTolerance) ||
      !(options.relTolerance >= 0) || !std::isfinite(options.relTolerance))
    return fail("--atol and --rtol must be non-negative numbers");
  if (options.optLevel > 3)
    return fail("--opt-level must be 0, 1, 2 or 3 (LLVM's levels), got " +
                std::to_string(options.optLevel));

  RunnerOptions compile;
  compile.optLevel = options.optLevel;
  if (options.device == "cuda")
    compile.device = Device::CUDA;
  else if (options.device != "cpu")
    return fail("--device must be cpu or cuda, got '" + options.device + "'");
  if (options.compareDevices && compile.device == Device::CPU)
    return fail("--compare-devices compares --device=cuda with the CPU; "
                "add --device=cuda");
  if (options.compareDevices && !options.compare.empty())
    return fail("--compare-devices and --compare=" + options.compare +
                " cannot be combined: the first compares devices, the "
                "second functions");
  if (!options.partitioned.empty() && !options.compare.empty())
    return fail("--check-partition and --compare=" + options.compare +
                " cannot be combined: the first compares a joint function "
                "with its partition, the second two functions; run them "
                "one at a time");
  if (options.measureMemory && compile.device != Device::CPU)
    return fail("--measure-memory works with --device=cpu only: it counts "
                "the heap allocations of remat-lower-to-cpu's host code "
                "(on " +
                options.device +
                " buffers are the CUDA runtime's managed "
                "memory, which it does not count)");
  compile.measureMemory = options.measureMemory;
  if (options.gpuFormat != "auto" && options.gpuFormat != "bin" &&
      options.gpuFormat != "isa")
    return fail("--gpu-format must be auto, bin or isa, got '" +
                options.gpuFormat + "'");
  if (compile.device == Device::CUDA) {
    // Fail before compiling anything when the driver or GPU is missing.
    if (!options.compileOnly) {
      if (llvm::Error error = cuda::initialize())
        return fail("--device=cuda " + llvm::toString(std::move(error)));
      llvm::outs() << "device: " << cuda::getDeviceDescription() << "\n";
    }
    compile.chip = !options.gpuChip.empty() ? options.gpuChip.getValue()
                   : !options.compileOnly   ? cuda::getDeviceChip()
                                            : std::string("sm_90");
    compile.features = options.gpuFeatures;
    compile.format = options.gpuFormat == "auto" ? std::string()
                                                 : options.gpuFormat.getValue();
    compile.toolkit = options.cudaToolkit;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<RematDialect>();
  registerPlannerExternalModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string errorMessage;
  std::unique_ptr<ParsedInput> input =
      parseInput(options.inputFile, context, errorMessage);
  if (!input)
    return fail(errorMessage);
  ModuleOp module = *input->module;

  // With --check-partition --compare-devices the joint function is only
  // the CPU reference: it is not compiled for the GPU at all.
  RunnerOptions jointOptions = compile;
  if (options.compareDevices && !options.partitioned.empty()) {
    jointOptions = RunnerOptions();
    jointOptions.optLevel = options.optLevel;
  }
  auto runner = Runner::create(module, jointOptions);
  if (!runner)
    return fail(llvm::toString(runner.takeError()));
  if (options.compileOnly) {
    llvm::outs() << "compiled '" << options.inputFile
                 << "': " << (*runner)->getCompilationSummary() << "\n";
    if (options.partitioned.empty())
      return 0;
  }
  // --compare-devices: the reference runs on the CPU.
  std::unique_ptr<Runner> reference;
  if (options.compareDevices && options.partitioned.empty() &&
      !options.compileOnly) {
    auto cpu = Runner::create(module, options.optLevel);
    if (!cpu)
      return fail(llvm::toString(cpu.takeError()));
    reference = std::move(*cpu);
  }
  const FunctionSignature *signature = (*runner)->lookup(options.function);
  if (!signature)
    return fail("no callable function '" + options.function + "' in '" +
                options.inputFile +
                "': it must be public, have a body, and take and return "
                "statically shaped tensors");
  if (!signature->tooLarge.empty())
    return fail(signature->tooLarge);
  std::vector<HostTensor> arguments =
      makeSeededInputs(*signature, options.seed);
  if (llvm::Error error = applyOverrides(options, arguments))
    return fail(llvm::toString(std::move(error)));
  if (options.printInputs)
    printTensors("@" + options.function + " argument", arguments, format);

  if (!options.partitioned.empty())
    return checkPartition(options, compile, context, **runner, arguments);

  MemoryMeasurement memory;
  auto results = (*runner)->run(options.function, arguments,
                                options.measureMemory ? &memory : nullptr);
  if (!results)
    return fail(llvm::toString(results.takeError()));
  printTensors("@" + options.function + " result", *results, format);
  if (options.measureMemory)
    printMemory(options.function, memory);
  if (reference) {
    auto expected = reference->run(options.function, arguments);
    if (!expected)
      return fail("--compare-devices: " + llvm::toString(expected.takeError()));
    printTensors("@" + options.function + " cpu result", *expected, format);
    std::vector<std::string> labels;
    for (size_t i = 0; i < results->size(); ++i)
      labels.push_back("result " + std::to_string(i));
    bool allMatch = compareAll(*results, *expected, labels,
                               options.absTolerance, options.relTolerance);
    llvm::outs() << (allMatch ? "PASS" : "FAIL") << ": @" << options.function
                 << " on " << options.device << " vs cpu\n";
    return allMatch ? 0 : 1;
  }
  if (options.compare.empty())
    return 0;

  MemoryMeasurement otherMemory;
  auto others = (*runner)->run(options.compare, arguments,
                               options.measureMemory ? &otherMemory : nullptr);
  if (!others)
    return fail("--compare=" + options.compare + ": " +
                llvm::toString(others.takeError()));
  printTensors("@" + options.compare + " result", *others, format);
  if (options.measureMemory)
    printMemory(options.compare, otherMemory);
  if (others->size() != results->size())
    return fail("@" + options.function + " returns " +
                std::to_string(results->size()) + " results but @" +
                options.compare + " returns " + std::to_string(others->size()));
  std::vector<std::string> labels;
  for (size_t i = 0; i < results->size(); ++i)
    labels.push_back("result " + std::to_string(i));
  bool allMatch = compareAll(*others, *results, labels, options.absTolerance,
                             options.relTolerance);
  llvm::outs() << (allMatch ? "PASS" : "FAIL") << ": @" << options.function
               << " vs @" << options.compare << "\n";
  return allMatch ? 0 : 1;
}

} // namespace remat
