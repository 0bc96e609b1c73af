//===- Runner.cpp - execute remat functions on the host -------------------===//
//
// Part of remat. remat-lower-to-cpu (results returned in buffers the
// function allocates) or remat-lower-to-nvvm (results as out-parameters),
// then MLIR's ExecutionEngine; calls go through the packed `_mlir_<name>`
// wrappers with memref descriptors built here. On the CUDA device the
// descriptors point into managed memory and the host code's mgpu* calls go
// to lib/Runner/CudaRuntime.cpp.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/Runner.h"

#include "remat/Conversion/Passes.h"
#include "remat/Dialect/Remat/IR/RematOps.h"
#include "remat/Runner/CompilerRuntime.h"
#include "remat/Runner/CudaRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include <unistd.h>

using namespace mlir;

namespace remat {

//===----------------------------------------------------------------------===//
// Element kinds and host tensors
//===----------------------------------------------------------------------===//

StringRef getElementKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return "f32";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::I64:
    return "i64";
  case ElementKind::I8:
    return "i8";
  case ElementKind::I1:
    return "i1";
  }
  return "?";
}

int64_t getElementSize(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I64:
    return 8;
  case ElementKind::I8:
  case ElementKind::I1:
    return 1;
  }
  return 1;
}

static bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F32 || kind == ElementKind::F16 ||
         kind == ElementKind::BF16;
}

static const llvm::fltSemantics &semanticsOf(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return llvm::APFloat::IEEEhalf();
  case ElementKind::BF16:
    return llvm::APFloat::BFloat();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

HostTensor HostTensor::zeros(ElementKind kind, ArrayRef<int64_t> shape) {
  HostTensor tensor;
  tensor.kind = kind;
  tensor.shape.assign(shape.begin(), shape.end());
  tensor.bytes.assign(tensor.getNumElements() * getElementSize(kind), 0);
  return tensor;
}

int64_t HostTensor::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

uint64_t HostTensor::getBits(int64_t index) const {
  int64_t size = getElementSize(kind);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size, size); // little-endian host
  return bits;
}

double HostTensor::get(int64_t index) const {
  uint64_t bits = getBits(index);
  switch (kind) {
  case ElementKind::F32:
  case ElementKind::F16:
  case ElementKind::BF16: {
    unsigned width = getElementSize(kind) * 8;
    llvm::APFloat value(semanticsOf(kind), llvm::APInt(width, bits));
    bool losesInfo = false;
    value.convert(llvm::APFloat::IEEEdouble(),
                  llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return value.convertToDouble();
  }
  case ElementKind::I64:
    return static_cast<double>(static_cast<int64_t>(bits));
  case ElementKind::I8:
    return static_cast<double>(static_cast<int8_t>(bits));
  case ElementKind::I1:
    return bits ? 1.0 : 0.0;
  }
  return 0.0;
}

void HostTensor::set(int64_t index, double value) {
  int64_t size = getElementSize(kind);
  uint64_t bits = 0;
  if (isFloatKind(kind)) {
    llvm::APFloat converted(value);
    bool losesInfo = false;
    converted.convert(semanticsOf(kind), llvm::APFloat::rmNearestTiesToEven,
                      &losesInfo);
    bits = converted.bitcastToAPInt().getZExtValue();
  } else if (kind == ElementKind::I1) {
    bits = value != 0.0 ? 1 : 0;
  } else {
    bits = static_cast<uint64_t>(static_cast<int64_t>(std::trunc(value)));
  }
  std::memcpy(bytes.data() + index * size, &bits, size);
}

std::string HostTensor::getTypeString() const {
  std::string text = "tensor<";
  for (int64_t size : shape)
    text += std::to_string(size) + "x";
  text += getElementKindName(kind).str() + ">";
  return text;
}

//===----------------------------------------------------------------------===//
// Seeded inputs
//===----------------------------------------------------------------------===//

namespace {

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

uint64_t mix64(uint64_t z) {
  z += kGoldenGamma;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

} // namespace

std::vector<HostTensor> makeSeededInputs(const FunctionSignature &signature,
                                         uint64_t seed) {
  std::vector<HostTensor> inputs;
  uint64_t base = mix64(seed);
  for (auto [position, spec] : llvm::enumerate(signature.inputs)) {
    HostTensor tensor = HostTensor::zeros(spec.kind, spec.shape);
    // SplitMix64: state advances by the golden gamma, output is mix(state);
    // each argument starts at an unrelated state (not a shifted stream).
    uint64_t state = mix64(base ^ mix64(static_cast<uint64_t>(position)));
    for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
      state += kGoldenGamma;
      uint64_t draw = mix64(state);
      if (isFloatKind(spec.kind)) {
        double k = static_cast<double>(draw >> 40); // 24 bits
        tensor.set(i, k / static_cast<double>(1 << 23) - 1.0);
      } else if (spec.kind == ElementKind::I64) {
        uint64_t bound = spec.indexBound > 0 ? spec.indexBound : 16;
        tensor.set(i, static_cast<double>(draw % bound));
      } else {
        tensor.set(i, static_cast<double>(draw >> 63));
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

//===----------------------------------------------------------------------===//
// Formatting and comparison
//===----------------------------------------------------------------------===//

void printElements(llvm::raw_ostream &os, const HostTensor &tensor,
                   FloatFormat format) {
  char buffer[64];
  for (int64_t i = 0, e = tensor.getNumElements(); i < e; ++i) {
    if (i)
      os << ' ';
    double value = tensor.get(i);
    if (!isFloatKind(tensor.kind))
      std::snprintf(buffer, sizeof(buffer), "%lld",
                    static_cast<long long>(value));
    else if (std::isnan(value))
      std::snprintf(buffer, sizeof(buffer), "nan");
    else if (format == FloatFormat::Hex)
      std::snprintf(buffer, sizeof(buffer), "%a", value);
    else
      std::snprintf(buffer, sizeof(buffer), "%.9g", value);
    os << buffer;
  }
}

TensorComparison compareTensors(const HostTensor &actual,
                                const HostTensor &expected, double absTolerance,
                                double relTolerance) {
  TensorComparison comparison;
  if (actual.kind != expected.kind || actual.shape != expected.shape) {
    comparison.sameType = false;
    return comparison;
  }
  for (int64_t i = 0, e = actual.getNumElements(); i < e; ++i) {
    if (actual.getBits(i) != expected.getBits(i))
      ++comparison.bitwiseMismatches;
    double a = actual.get(i), b = expected.get(i);
    if ((std::isnan(a) && std::isnan(b)) || a == b)
      continue;
    double absError = std::fabs(a - b);
    double relError = b != 0.0 ? absError / std::fabs(b) : absError;
    if (std::isnan(absError)) {
      absError = relError = std::numeric_limits<double>::infinity();
    }
    comparison.maxAbsError = std::max(comparison.maxAbsError, absError);
    comparison.maxRelError = std::max(comparison.maxRelError, relError);
    if (!(absError <= absTolerance + relTolerance * std::fabs(b)))
      ++comparison.toleranceFailures;
  }
  return comparison;
}

//===----------------------------------------------------------------------===//
// Signatures
//===----------------------------------------------------------------------===//

namespace {

std::optional<ElementKind> kindOf(Type type) {
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isInteger(64))
    return ElementKind::I64;
  if (type.isInteger(8))
    return ElementKind::I8;
  if (type.isInteger(1))
    return ElementKind::I1;
  return std::nullopt;
}

/// The range of valid values for an i64 argument, from the op reading it.
int64_t indexBoundFromUsers(Value argument) {
  // Every op that reads the ids, also through reshapes, transposes, slices
  // and concatenations (ids [B, S] reshaped to [B * S] before the lookup),
  // bounds them; the smallest bound holds for all (one argument read by an
  // embedding of 50 rows and a cross-entropy of 3 classes). Before
  // 2026-12-07 only the first direct user counted: reshaped ids fell back
  // to 16 and read outside a 5-row table.
  auto dimOf = [](Value value, unsigned d) {
    return cast<RankedTensorType>(value.getType()).getDimSize(d);
  };
  std::optional<int64_t> bound;
  auto bounded = [&](int64_t limit) {
    bound = bound ? std::min(*bound, limit) : limit;
  };
  SmallVector<Value> worklist{argument};
  llvm::DenseSet<Value> seen{argument};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto op = dyn_cast<EmbeddingOp>(user))
        bounded(dimOf(op.getTable(), 0));
      else if (auto op = dyn_cast<EmbeddingBackwardOp>(user))
        bounded(dimOf(op.getResult(), 0));
      else if (auto op = dyn_cast<CrossEntropyOp>(user))
        bounded(dimOf(op.getLogits(), 1));
      else if (auto op = dyn_cast<CrossEntropyBackwardOp>(user))
        bounded(dimOf(op.getLogits(), 1));
      else if (auto op = dyn_cast<MaxPool2dBackwardOp>(user))
        bounded(dimOf(op.getResult(), 2) * dimOf(op.getResult(), 3));
      else if (isa<DropoutOp>(user))
        bounded(int64_t(1) << 31); // any seed or offset
      else if (isa<ReshapeOp, TransposeOp, BroadcastOp, SliceOp, ConcatOp>(
                   user))
        for (Value result : user->getResults())
          if (seen.insert(result).second)
            worklist.push_back(result);
    }
  }
  return bound.value_or(16);
}

std::optional<TensorSpec> specOf(Type type, DictionaryAttr attrs) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (!tensorType || !tensorType.hasStaticShape())
    return std::nullopt;
  std::optional<ElementKind> kind = kindOf(tensorType.getElementType());
  if (!kind)
    return std::nullopt;
  TensorSpec spec;
  spec.kind = *kind;
  spec.shape.assign(tensorType.getShape().begin(), tensorType.getShape().end());
  if (attrs) {
    if (auto role = attrs.getAs<StringAttr>("remat.role"))
      spec.role = role.str();
    if (auto gradOf = attrs.getAs<IntegerAttr>("remat.grad_of"))
      spec.gradOf = gradOf.getInt();
  }
  return spec;
}

std::optional<FunctionSignature> signatureOf(func::FuncOp func) {
  if (func.isExternal() || !func.isPublic())
    return std::nullopt;
  FunctionSignature signature;
  signature.name = func.getSymName().str();
  FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    std::optional<TensorSpec> spec =
        specOf(type.getInput(i), func.getArgAttrDict(i));
    if (!spec)
      return std::nullopt;
    if (spec->kind == ElementKind::I64)
      spec->indexBound = indexBoundFromUsers(func.getArgument(i));
    signature.inputs.push_back(*spec);
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    std::optional<TensorSpec> spec =
        specOf(type.getResult(i), func.getResultAttrDict(i));
    if (!spec)
      return std::nullopt;
    signature.results.push_back(*spec);
  }
  return signature;
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Appends the packed-call fields of a memref descriptor for `tensor`
/// (allocated and aligned pointer, offset, sizes, row-major strides) to
/// `fields`.
void appendDescriptor(std::vector<int64_t> &fields, void *data,
                      ArrayRef<int64_t> shape) {
  fields.push_back(reinterpret_cast<intptr_t>(data));
  fields.push_back(reinterpret_cast<intptr_t>(data));
  fields.push_back(0);
  for (int64_t size : shape)
    fields.push_back(size);
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  fields.insert(fields.end(), strides.begin(), strides.end());
}

//===----------------------------------------------------------------------===//
// Counting allocation hooks (RunnerOptions::measureMemory)
//===----------------------------------------------------------------------===//

/// Live heap buffers of lowered code, by address, and the high-water mark
/// of their sum. One per process: the hooks are plain functions that JIT
/// code calls without a context. A measured call resets the mark at its
/// start and reads it at its end.
struct HeapCounter {
  std::mutex mutex;
  llvm::DenseMap<void *, int64_t> sizes;
  llvm::DenseSet<void *> adopted;
  int64_t liveBytes = 0;
  int64_t peakBytes = 0;
  int64_t allocations = 0;
  int64_t allocatedBytes = 0;

  void *record(void *pointer, uint64_t size) {
    if (!pointer)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    sizes[pointer] = static_cast<int64_t>(size);
    liveBytes += static_cast<int64_t>(size);
    peakBytes = std::max(peakBytes, liveBytes);
    ++allocations;
    allocatedBytes += static_cast<int64_t>(size);
    return pointer;
  }
  /// A buffer allocated outside the lowered code and handed to it (an owned
  /// argument): live from now on, not one of the call's allocations.
  void adopt(void *pointer, int64_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    adopted.insert(pointer);
    sizes[pointer] = size;
    liveBytes += size;
    peakBytes = std::max(peakBytes, liveBytes);
  }
  /// Whether an adopted buffer has not been released yet (its address may
  /// have been reused by a later allocation: that does not count).
  bool isAdoptedAndLive(void *pointer) {
    std::lock_guard<std::mutex> lock(mutex);
    return adopted.contains(pointer);
  }
  /// The recorded size of a live buffer, -1 if `pointer` is not one.
  int64_t sizeOf(void *pointer) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(pointer);
    return it == sizes.end() ? -1 : it->second;
  }
  void release(void *pointer) {
    if (!pointer)
      return;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = sizes.find(pointer);
    if (it == sizes.end())
      return;
    liveBytes -= it->second;
    sizes.erase(it);
    adopted.erase(pointer);
  }
  /// Starts a measurement: the mark restarts from what is live now.
  void begin() {
    std::lock_guard<std::mutex> lock(mutex);
    peakBytes = liveBytes;
    allocations = 0;
    allocatedBytes = 0;
  }
  /// Ends a measurement that began with `liveAtBegin` live bytes, when
  /// `returnedBytes` of what is live are the returned buffers.
  void end(int64_t liveAtBegin, int64_t returnedBytes,
           MemoryMeasurement &measurement) {
    std::lock_guard<std::mutex> lock(mutex);
    measurement.heapAllocations = allocations;
    measurement.heapAllocatedBytes = allocatedBytes;
    measurement.heapPeakBytes = peakBytes - liveAtBegin;
    measurement.heapLiveAtReturnBytes =
        liveBytes - liveAtBegin - returnedBytes;
  }
  int64_t getLiveBytes() {
    std::lock_guard<std::mutex> lock(mutex);
    return liveBytes;
  }
};

HeapCounter &getHeapCounter() {
  static HeapCounter counter;
  return counter;
}

// The signatures finalize-memref-to-llvm{use-generic-functions} declares:
// alloc(size), aligned_alloc(alignment, size), free(pointer); sizes are
// index (64-bit on this host).
void *countingAlloc(uint64_t size) {
  return getHeapCounter().record(std::malloc(size), size);
}

void *countingAlignedAlloc(uint64_t alignment, uint64_t size) {
  void *pointer = nullptr;
  // posix_memalign wants a power of two that is a multiple of
  // sizeof(void *); memref alignments are powers of two.
  size_t effective = std::max<size_t>(alignment, sizeof(void *));
  if (posix_memalign(&pointer, effective, std::max<uint64_t>(size, 1)) != 0)
    return nullptr;
  return getHeapCounter().record(pointer, size);
}

void countingFree(void *pointer) {
  getHeapCounter().release(pointer);
  std::free(pointer);
}

/// The bytes of the fixed-size stack buffers (llvm.alloca with a constant
/// count, from memref.alloca) in each function of the lowered module; an
/// error for one with a dynamic count.
llvm::Expected<llvm::StringMap<int64_t>> getStackBytes(ModuleOp module) {
  llvm::StringMap<int64_t> bytes;
  DataLayout layout(module);
  std::string dynamic;
  module.walk([&](LLVM::LLVMFuncOp func) {
    int64_t total = 0;
    func.walk([&](LLVM::AllocaOp alloca) {
      APInt count;
      if (!matchPattern(alloca.getArraySize(), m_ConstantInt(&count))) {
        dynamic = func.getName().str();
        return;
      }
      total += count.getSExtValue() *
               static_cast<int64_t>(layout.getTypeSize(alloca.getElemType()));
    });
    bytes[func.getName()] = total;
  });
  if (!dynamic.empty())
    return llvm::createStringError(
        "--measure-memory: @" + dynamic +
        " allocates a dynamically sized stack buffer, which cannot be "
        "counted");
  return bytes;
}

} // namespace

//===----------------------------------------------------------------------===//
// Runner
//===----------------------------------------------------------------------===//

StringRef getDeviceName(Device device) {
  return device == Device::CUDA ? "cuda" : "cpu";
}

std::string findCudaToolkit() {
  for (const char *variable : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(variable))
      if (*value && llvm::sys::fs::is_directory(value))
        return value;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

namespace {

/// The GPU lowering options for `options`: the toolkit found, and a cubin
/// when ptxas is available (in the toolkit or on PATH), PTX otherwise.
GPULoweringOptions getGPULoweringOptions(const RunnerOptions &options) {
  GPULoweringOptions gpu;
  gpu.chip = options.chip;
  gpu.features = options.features;
  gpu.toolkit = options.toolkit.empty() ? findCudaToolkit() : options.toolkit;
  gpu.format = options.format;
  if (gpu.format.empty()) {
    SmallString<128> ptxas(gpu.toolkit);
    llvm::sys::path::append(ptxas, "bin", "ptxas");
    bool found = (!gpu.toolkit.empty() && llvm::sys::fs::can_execute(ptxas)) ||
                 static_cast<bool>(llvm::sys::findProgramByName("ptxas"));
    gpu.format = found ? "bin" : "isa";
  }
  gpu.threadsPerBlock = 128;
  gpu.resultsToOutParams = true;
  return gpu;
}

/// Binds a table of {name, address} functions into the JIT'd modules.
template <typename SymbolT>
void bindSymbols(ExecutionEngine &engine, llvm::ArrayRef<SymbolT> table) {
  engine.registerSymbols([table](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const SymbolT &symbol : table)
      symbols[interner(symbol.name)] = {
          llvm::orc::ExecutorAddr::fromPtr(symbol.address),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

/// The bytes of the machine's physical memory (0 when unknown).
uint64_t physicalMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long pageSize = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && pageSize > 0
             ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize)
             : 0;
}

/// An error naming the first tensor of `func` (argument, result or value it
/// computes) that cannot be allocated on this machine: its size overflows,
/// or it alone exceeds the physical memory. The lowered code would call
/// malloc for it and write through the null pointer it returns (a
/// segfault), or abort in LLVM's allocator, where the planner, which
/// saturates sizes, planned it without complaint.
llvm::Error checkTensorSizes(func::FuncOp func) {
  const uint64_t memory = physicalMemoryBytes();
  llvm::Error error = llvm::Error::success();
  auto check = [&](Type type, llvm::StringRef what) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (error || !tensor || !tensor.hasStaticShape())
      return;
    std::optional<uint64_t> bytes = staticTensorBytes(tensor);
    if (bytes && (!memory || *bytes <= memory))
      return;
    std::string subject;
    llvm::raw_string_ostream(subject)
        << "@" << func.getSymName() << ": " << what << " " << tensor;
    error = llvm::createStringError(
        subject +
        (bytes ? " needs " + std::to_string(*bytes) +
                     " bytes, more than this machine's memory (" +
                     std::to_string(memory) + " bytes)"
               : std::string(" has more bytes than 64 bits count")) +
        "; remat-run executes examples: shrink the shapes");
  };
  FunctionType type = func.getFunctionType();
  for (auto [index, input] : llvm::enumerate(type.getInputs()))
    check(input, "argument " + std::to_string(index));
  for (auto [index, result] : llvm::enumerate(type.getResults()))
    check(result, "result " + std::to_string(index));
  func.walk([&](Operation *op) {
    for (Type result : op->getResultTypes())
      check(result, "a value of " + op->getName().getStringRef().str());
  });
  return error;
}

} // namespace

Runner::~Runner() = default;

llvm::Expected<std::unique_ptr<Runner>> Runner::create(ModuleOp module,
                                                       unsigned optLevel) {
  RunnerOptions options;
  options.optLevel = optLevel;
  return create(module, options);
}

llvm::Expected<std::unique_ptr<Runner>>
Runner::create(ModuleOp module, const RunnerOptions &options) {
  if (options.measureMemory && options.device != Device::CPU)
    return llvm::createStringError(
        "measuring memory works on the CPU only: the counting allocation "
        "hooks replace malloc/free of remat-lower-to-cpu's host code, while "
        "on " +
        getDeviceName(options.device).str() +
        " the buffers are managed memory that the CUDA runtime allocates");
  if (options.backwardOwnsSavedValues && options.device != Device::CPU)
    return llvm::createStringError(
        "handing the saved values to the backward function works on the CPU "
        "only: the " +
        getDeviceName(options.device).str() +
        " lowering does not free owned arguments");
  std::unique_ptr<Runner> runner(new Runner());
  runner->device = options.device;
  runner->measuringMemory = options.measureMemory;
  for (auto func : module.getOps<func::FuncOp>())
    if (std::optional<FunctionSignature> signature = signatureOf(func)) {
      if (llvm::Error error = checkTensorSizes(func))
        signature->tooLarge = llvm::toString(std::move(error));
      // remat-partition's backward: saved values first, then the joint
      // function's arguments.
      auto stage = func->getAttrOfType<StringAttr>("remat.stage");
      auto saved = func->getAttrOfType<ArrayAttr>("remat.saved_values");
      if (options.backwardOwnsSavedValues && stage &&
          stage.getValue() == "backward" && saved) {
        if (saved.size() > signature->inputs.size())
          return llvm::createStringError(
              "@" + signature->name + " lists " +
              std::to_string(saved.size()) +
              " remat.saved_values but takes only " +
              std::to_string(signature->inputs.size()) + " arguments");
        for (size_t i = 0; i < saved.size(); ++i)
          signature->inputs[i].owned = true;
      }
      runner->functions.push_back(std::move(*signature));
    }

  MLIRContext *context = module.getContext();
  // Bufferization and LLVM translation need their interfaces registered;
  // callers need not know which (the GPU path needs the gpu.binary
  // offloading translation and the NVVM target).
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  context->appendDialectRegistry(registry);

  OwningOpRef<ModuleOp> lowered(cast<ModuleOp>(module->clone()));
  // Arguments handed to the function: remat-free-owned-arguments frees them.
  // Which those are is the runner's call, not the input's. (The lowering
  // pipelines drop the other remat.* attributes: remat-drop-graph-attributes.)
  lowered->walk([](func::FuncOp func) {
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.removeArgAttr(i, "remat.owned");
  });
  for (const FunctionSignature &signature : runner->functions) {
    auto func = lowered->lookupSymbol<func::FuncOp>(signature.name);
    for (auto [i, spec] : llvm::enumerate(signature.inputs))
      if (spec.owned)
        func.setArgAttr(i, "remat.owned", UnitAttr::get(context));
  }

  // A function with a tensor this machine cannot hold is refused when it
  // is called (tooLarge) and not lowered: remat-lower-to-linalg refuses
  // sizes past 64 bits, which would keep the module's other functions from
  // running.
  for (const FunctionSignature &signature : runner->functions)
    if (!signature.tooLarge.empty())
      if (auto func = lowered->lookupSymbol<func::FuncOp>(signature.name);
          func && SymbolTable::symbolKnownUseEmpty(func, *lowered))
        func.erase();

  PassManager pm(context);
  GPULoweringOptions gpu;
  StringRef target = "the host (remat-lower-to-cpu)";
  if (options.device == Device::CUDA) {
    gpu = getGPULoweringOptions(options);
    if (std::string error = gpuLoweringOptionsError(gpu, /*nvvm=*/true);
        !error.empty())
      return llvm::createStringError("bad GPU option " + error);
    buildLowerToNVVMPipeline(pm, gpu);
    target = "an NVIDIA GPU (remat-lower-to-nvvm)";
  } else {
    buildLowerToCPUPipeline(pm, /*resultsToOutParams=*/false,
                            /*genericAllocFunctions=*/options.measureMemory);
  }
  std::string diagnostics;
  {
    llvm::raw_string_ostream stream(diagnostics);
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      stream << diag.getLocation() << ": " << diag << "\n";
      for (Diagnostic &note : diag.getNotes())
        stream << "  note: " << note << "\n";
      return success();
    });
    if (failed(pm.run(*lowered)))
      return llvm::createStringError("lowering the module to " + target.str() +
                                     " failed:\n" + diagnostics);
  }

  if (options.measureMemory) {
    auto stackBytes = getStackBytes(*lowered);
    if (!stackBytes)
      return stackBytes.takeError();
    runner->stackBytes = std::move(*stackBytes);
  }

  initializeNativeTarget();
  ExecutionEngineOptions engineOptions;
  auto optimize = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                            /*targetMachine=*/nullptr);
  // The runtime functions the host code calls, seen in the LLVM module
  // (the gpu.binary translation adds the module-load and launch calls).
  llvm::StringSet<> runtimeCalls;
  std::string unknownCalls;
  auto transformer = [&](llvm::Module *llvmModule) -> llvm::Error {
    if (options.device == Device::CUDA) {
      for (llvm::Function &function : *llvmModule) {
        if (!function.isDeclaration() ||
            !function.getName().starts_with("mgpu"))
          continue;
        runtimeCalls.insert(function.getName());
        if (!cuda::isRuntimeSymbol(function.getName()))
          unknownCalls +=
              (unknownCalls.empty() ? "" : ", ") + function.getName().str();
      }
    }
    // ExecutionEngine::create treats a transformer error as fatal: unknown
    // calls are reported after it returns.
    return optimize(llvmModule);
  };
  engineOptions.transformer = transformer;
  auto engine = ExecutionEngine::create(*lowered, engineOptions);
  if (!engine)
    return llvm::joinErrors(
        llvm::createStringError("JIT compilation of the lowered module "
                                "failed"),
        engine.takeError());
  if (!unknownCalls.empty())
    return llvm::createStringError(
        "the host code calls runtime functions that remat's CUDA runtime "
        "(lib/Runner/CudaRuntime.cpp) does not implement: " +
        unknownCalls);
  runner->engine = std::move(*engine);

  // Functions LLVM's code generator may call for bf16 on CPUs without native
  // conversions, which Debian's libgcc lacks (CompilerRuntime.h).
  bindSymbols(*runner->engine, compiler_rt::getSymbols());
  if (options.device == Device::CUDA)
    bindSymbols(*runner->engine, cuda::getRuntimeSymbols());
  if (options.measureMemory) {
    runner->engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      auto bind = [&](StringRef name, void *address) {
        symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported};
      };
      bind("_mlir_memref_to_llvm_alloc",
           reinterpret_cast<void *>(&countingAlloc));
      bind("_mlir_memref_to_llvm_aligned_alloc",
           reinterpret_cast<void *>(&countingAlignedAlloc));
      bind("_mlir_memref_to_llvm_free",
           reinterpret_cast<void *>(&countingFree));
      return symbols;
    });
  }
  // Link every callable function now (not at its first call), so a missing
  // symbol is reported here and before anything needs the driver.
  for (const FunctionSignature &signature : runner->functions)
    if (!signature.tooLarge.empty())
      continue; // not lowered (above)
    else if (auto entry = runner->engine->lookupPacked(signature.name); !entry)
      return llvm::joinErrors(
          llvm::createStringError("linking @" + signature.name + " for " +
                                  getDeviceName(options.device).str() +
                                  " failed"),
          entry.takeError());

  unsigned kernels = 0;
  lowered->walk([&](gpu::BinaryOp) { ++kernels; });
  std::string text;
  llvm::raw_string_ostream summary(text);
  summary << getDeviceName(options.device) << ": " << runner->functions.size()
          << " callable functions";
  if (options.measureMemory)
    summary << ", heap allocations counted";
  if (options.device == Device::CUDA)
    summary << ", " << kernels << " kernels (" << gpu.chip << " "
            << (gpu.format == "bin"   ? "cubin"
                : gpu.format == "isa" ? "PTX"
                                      : gpu.format)
            << "), host code calls " << runtimeCalls.size()
            << " runtime functions, all resolved";
  runner->summary = text;
  return runner;
}

const FunctionSignature *Runner::lookup(StringRef function) const {
  for (const FunctionSignature &signature : functions)
    if (signature.name == function)
      return &signature;
  return nullptr;
}

llvm::Expected<std::vector<HostTensor>>
Runner::run(StringRef function, ArrayRef<HostTensor> inputs,
            MemoryMeasurement *measurement) const {
  if (measurement && !measuringMemory)
    return llvm::createStringError(
        "measuring the memory of @" + function.str() +
        " needs a runner created with RunnerOptions::measureMemory");
  const FunctionSignature *signature = lookup(function);
  if (!signature) {
    std::string known;
    for (const FunctionSignature &candidate : functions)
      known += (known.empty() ? "" : ", ") + candidate.name;
    return llvm::createStringError(
        "no callable function '" + function.str() +
        "' (public, with a body and static tensor arguments and results); "
        "callable: " +
        (known.empty() ? std::string("none") : known));
  }
  if (!signature->tooLarge.empty())
    return llvm::createStringError(signature->tooLarge);

  if (inputs.size() != signature->inputs.size())
    return llvm::createStringError("@" + function.str() + " takes " +
                                   std::to_string(signature->inputs.size()) +
                                   " arguments, got " +
                                   std::to_string(inputs.size()));
  for (auto [position, input] : llvm::enumerate(inputs)) {
    const TensorSpec &spec = signature->inputs[position];
    if (input.kind != spec.kind ||
        ArrayRef<int64_t>(input.shape) != ArrayRef<int64_t>(spec.shape) ||
        static_cast<int64_t>(input.bytes.size()) !=
            input.getNumElements() * getElementSize(input.kind)) {
      HostTensor expected = HostTensor::zeros(spec.kind, spec.shape);
      return llvm::createStringError("argument " + std::to_string(position) +
                                     " of @" + function.str() + " must be " +
                                     expected.getTypeString() + ", got " +
                                     input.getTypeString());
    }
  }

  // Inputs are copied so a function that writes into an argument buffer
  // cannot change the caller's tensors.
  std::vector<HostTensor> arguments(inputs.begin(), inputs.end());
  std::vector<HostTensor> results;
  for (const TensorSpec &spec : signature->results)
    results.push_back(HostTensor::zeros(spec.kind, spec.shape));
  if (llvm::Error error =
          invoke(*signature, arguments, results, measurement))
    return std::move(error);
  return results;
}

namespace {

/// Heap bytes of a buffer for `bytes` of data: what the lowering's aligned
/// allocations come to (one-shot bufferization aligns to 64).
constexpr int64_t kBufferAlignment = 64;
int64_t roundToBuffer(int64_t bytes) {
  return (std::max<int64_t>(bytes, 1) + kBufferAlignment - 1) /
         kBufferAlignment * kBufferAlignment;
}

/// The number of int64 fields of a rank-`rank` memref descriptor (allocated
/// and aligned pointers, offset, sizes, strides), as the lowered function
/// returns it in its result struct.
size_t descriptorFields(size_t rank) { return 3 + 2 * rank; }

} // namespace

llvm::Error Runner::invoke(const FunctionSignature &signature,
                           std::vector<HostTensor> &arguments,
                           std::vector<HostTensor> &results,
                           MemoryMeasurement *measurement) const {
  StringRef function = signature.name;
  std::vector<int64_t> fields;
  // CPU: the lowered function returns its results as a struct of memref
  // descriptors, which the packed wrapper stores through one more pointer.
  std::vector<int64_t> returned;
  auto call = [&]() -> llvm::Error {
    SmallVector<void *> packed;
    for (int64_t &field : fields)
      packed.push_back(&field);
    if (!returned.empty())
      packed.push_back(returned.data());
    return engine->invokePacked(function, packed);
  };
  if (device == Device::CPU) {
    HeapCounter &heap = getHeapCounter();
    int64_t liveAtBegin = 0;
    if (measurement) {
      *measurement = MemoryMeasurement();
      for (const HostTensor &argument : arguments)
        measurement->argumentBytes += argument.bytes.size();
      measurement->stackBytes = stackBytes.lookup(function);
      liveAtBegin = heap.getLiveBytes();
      heap.begin();
    }
    // Owned arguments: heap buffers the function frees (live from the
    // start of the call in the measurement); the runner does not free them
    // once the function has run.
    SmallVector<void *> owned;
    SmallVector<size_t> ownedPositions;
    auto releaseOwned = [&]() {
      for (void *buffer : owned) {
        if (measurement)
          heap.release(buffer);
        std::free(buffer);
      }
    };
    for (auto [i, argument] : llvm::enumerate(arguments)) {
      if (!signature.inputs[i].owned) {
        appendDescriptor(fields, argument.bytes.data(), argument.shape);
        continue;
      }
      int64_t size = roundToBuffer(argument.bytes.size());
      void *buffer = nullptr;
      if (posix_memalign(&buffer, kBufferAlignment, size) != 0) {
        releaseOwned();
        return llvm::createStringError("allocating " + std::to_string(size) +
                                       " bytes for argument " +
                                       std::to_string(i) + " of @" +
                                       function.str() + " failed");
      }
      std::memcpy(buffer, argument.bytes.data(), argument.bytes.size());
      owned.push_back(buffer);
      ownedPositions.push_back(i);
      if (measurement) {
        heap.adopt(buffer, size);
        measurement->ownedArgumentBytes += size;
      }
      appendDescriptor(fields, buffer, argument.shape);
    }
    size_t returnedFields = 0;
    for (const HostTensor &result : results)
      returnedFields += descriptorFields(result.shape.size());
    returned.assign(returnedFields, 0);
    if (llvm::Error error = call()) {
      // invokePacked fails before calling (the function was not found):
      // nothing was freed or returned.
      releaseOwned();
      return error;
    }

    // Copy each result out of its buffer; free each distinct allocation
    // once (two results may share one).
    std::string problem;
    SmallVector<void *> allocations;
    int64_t returnedBytes = 0;
    size_t next = 0;
    for (auto [i, result] : llvm::enumerate(results)) {
      size_t rank = result.shape.size();
      void *allocated = reinterpret_cast<void *>(returned[next]);
      auto *aligned = reinterpret_cast<uint8_t *>(returned[next + 1]);
      int64_t offset = returned[next + 2];
      ArrayRef<int64_t> sizes(returned.data() + next + 3, rank);
      ArrayRef<int64_t> strides(returned.data() + next + 3 + rank, rank);
      next += descriptorFields(rank);
      bool contiguous = sizes == ArrayRef<int64_t>(result.shape);
      for (int64_t d = static_cast<int64_t>(rank) - 1, stride = 1;
           contiguous && d >= 0; stride *= sizes[d], --d)
        contiguous = sizes[d] == 1 || strides[d] == stride;
      if (!contiguous && problem.empty())
        problem = "result " + std::to_string(i) + " of @" + function.str() +
                  " came back with sizes or strides other than a row-major " +
                  result.getTypeString();
      if (contiguous && !result.bytes.empty())
        std::memcpy(result.bytes.data(),
                    aligned + offset * getElementSize(result.kind),
                    result.bytes.size());
      bool first = !llvm::is_contained(allocations, allocated);
      if (first)
        allocations.push_back(allocated);
      if (!measurement)
        continue;
      int64_t size = first ? heap.sizeOf(allocated) : 0;
      if (size < 0) {
        if (problem.empty())
          problem = "result " + std::to_string(i) + " of @" + function.str() +
                    " is not in a buffer that the call allocated, so its "
                    "memory was not counted";
        size = 0;
      }
      measurement->resultAllocationBytes.push_back(size);
      returnedBytes += size;
    }
    if (measurement) {
      measurement->resultBytes = returnedBytes;
      heap.end(liveAtBegin, returnedBytes, *measurement);
      // An owned argument the function did not free would make the
      // measurement dishonest (and leak): an error, after freeing it here.
      for (auto [buffer, position] : llvm::zip(owned, ownedPositions)) {
        if (!heap.isAdoptedAndLive(buffer))
          continue;
        if (problem.empty())
          problem = "@" + function.str() + " did not free argument " +
                    std::to_string(position) +
                    ", which it owns (remat.owned)";
        countingFree(buffer);
      }
    }
    for (void *allocated : allocations) {
      if (measurement) {
        if (heap.sizeOf(allocated) < 0)
          continue; // not the call's buffer (reported above): not ours
        countingFree(allocated);
      } else {
        std::free(allocated);
      }
    }
    if (!problem.empty())
      return llvm::createStringError(problem);
    return llvm::Error::success();
  }

  // CUDA: the driver is needed from here on. Loading the kernels (the
  // module's global constructors) happens once, at the first call.
  if (llvm::Error error = cuda::initialize())
    return llvm::createStringError("the CUDA device " +
                                   llvm::toString(std::move(error)));
  engine->initialize();
  if (llvm::Error error = cuda::getFirstError())
    return error;
  // Kernels read arguments and write results in place: both live in
  // managed memory for the call.
  std::vector<void *> buffers;
  auto release = [&]() {
    for (void *buffer : buffers)
      cuda::freeManaged(buffer);
  };
  auto stage = [&](HostTensor &tensor, bool copyIn) -> bool {
    size_t bytes = std::max<size_t>(tensor.bytes.size(), 1);
    void *buffer = cuda::allocateManaged(bytes);
    if (!buffer)
      return false;
    buffers.push_back(buffer);
    if (copyIn)
      std::memcpy(buffer, tensor.bytes.data(), tensor.bytes.size());
    else
      std::memset(buffer, 0, bytes);
    appendDescriptor(fields, buffer, tensor.shape);
    return true;
  };
  for (HostTensor &argument : arguments)
    if (!stage(argument, /*copyIn=*/true)) {
      release();
      return cuda::getFirstError();
    }
  for (HostTensor &result : results)
    if (!stage(result, /*copyIn=*/false)) {
      release();
      return cuda::getFirstError();
    }
  llvm::Error error = call();
  if (!error)
    error = cuda::getFirstError();
  if (!error)
    for (auto [index, result] : llvm::enumerate(results))
      std::memcpy(result.bytes.data(), buffers[arguments.size() + index],
                  result.bytes.size());
  release();
  return error;
}

} // namespace remat
