//===- Runner.h - execute remat functions on the host -----------*- C++ -*-===//
//
// Part of remat. Compiles a module (remat ops, or anything
// remat-lower-to-cpu accepts) to host code with MLIR's ExecutionEngine and
// calls its functions on host tensors. This is the CPU path that checks
// gradients (finite differences), plans (partitioned vs joint graphs) and
// GPU results; with Device::CUDA the same functions run as NVIDIA GPU
// kernels. tools/remat-run is a thin command line around it.
//
// Typical use (a central finite difference of output 0 w.r.t. input 2):
//
//   auto runner = remat::Runner::create(module);          // compiles once
//   if (!runner) return runner.takeError();
//   const remat::FunctionSignature *sig = (*runner)->lookup("f");
//   std::vector<remat::HostTensor> inputs = remat::makeSeededInputs(*sig, 1);
//   inputs[2].set(k, x + eps);  auto plus  = (*runner)->run("f", inputs);
//   inputs[2].set(k, x - eps);  auto minus = (*runner)->run("f", inputs);
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_RUNNER_H
#define REMAT_RUNNER_RUNNER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace remat {

/// Element types a remat tensor can have.
enum class ElementKind { F32, F16, BF16, I64, I8, I1 };

/// "f32", "bf16", ...
llvm::StringRef getElementKindName(ElementKind kind);
/// Bytes per element in host memory (i1 takes one byte, 0 or 1).
int64_t getElementSize(ElementKind kind);

/// A dense row-major tensor in host memory.
struct HostTensor {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> bytes;

  /// A zero-filled tensor.
  static HostTensor zeros(ElementKind kind, llvm::ArrayRef<int64_t> shape);

  int64_t getNumElements() const;
  /// Element `index` (row-major) as a double: floats exactly, integers as
  /// their signed value (i1 as 0 or 1).
  double get(int64_t index) const;
  /// Sets element `index`, rounding to nearest-even for f16/bf16/f32 and
  /// truncating toward zero for integers (i1: value != 0).
  void set(int64_t index, double value);
  /// The raw bits of element `index`, zero-extended (for bitwise compares).
  uint64_t getBits(int64_t index) const;
  /// "tensor<2x3xf32>".
  std::string getTypeString() const;
};

/// An argument or result of a function, as declared before lowering.
struct TensorSpec {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  /// `remat.role` of the argument or result ("" when absent): input, param,
  /// tangent, rng, output, grad, saved, ...
  std::string role;
  /// `remat.grad_of` of a gradient result (-1 when absent).
  int64_t gradOf = -1;
  /// For an i64 argument: seeded values are drawn from [0, this), taken from
  /// the op that consumes it (embedding rows, cross-entropy classes,
  /// max-pool plane size); 16 when no consumer says.
  int64_t indexBound = 16;
  /// An argument the function takes ownership of
  /// (RunnerOptions::backwardOwnsSavedValues): the runner hands it a heap
  /// buffer that the lowered function frees after its last read.
  bool owned = false;
};

struct FunctionSignature {
  std::string name;
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> results;
  /// Why the function cannot run here, empty when it can: a tensor it
  /// takes, returns or computes whose bytes overflow 64 bits or exceed the
  /// machine's physical memory (Runner::run refuses it; so does remat-run
  /// before it allocates the arguments).
  std::string tooLarge;
};

/// Where a Runner executes the functions.
enum class Device {
  /// remat-lower-to-cpu, JIT-compiled for the host.
  CPU,
  /// remat-lower-to-nvvm: host code JIT-compiled, kernels in cubins (or PTX
  /// that the driver compiles), run through lib/Runner/CudaRuntime.cpp on
  /// device 0 of the NVIDIA driver.
  CUDA,
};

/// "cpu", "cuda".
llvm::StringRef getDeviceName(Device device);

struct RunnerOptions {
  Device device = Device::CPU;
  /// LLVM optimization level of the host code.
  unsigned optLevel = 2;
  /// CUDA: the GPU architecture and PTX features of the kernels (empty
  /// features: the chip's oldest PTX version).
  std::string chip = "sm_90";
  std::string features;
  /// CUDA: the kernels' payload: "bin" (cubin, needs ptxas), "isa" (PTX,
  /// compiled by the driver when loaded) or "" for bin when the toolkit
  /// has ptxas and isa otherwise.
  std::string format;
  /// CUDA: the toolkit (libdevice, ptxas); "" finds one: $CUDA_ROOT,
  /// $CUDA_HOME, $CUDA_PATH, then /usr/local/cuda.
  std::string toolkit;
  /// CPU only: lower with remat-lower-to-cpu{generic-alloc-functions} and
  /// bind the allocation functions to counting hooks, so that `run` can
  /// measure heap memory (MemoryMeasurement). `create` rejects it for CUDA.
  bool measureMemory = false;
  /// CPU only: a backward function of remat-partition (`remat.stage =
  /// "backward"`) owns its saved values (its first |remat.saved_values|
  /// arguments): the runner hands each over in a heap buffer that it does
  /// not free, the lowered function frees each after its last read
  /// (`remat.owned`, remat-free-owned-arguments), as PyTorch's compiled
  /// backward drops each saved tensor. `create` rejects it for CUDA.
  bool backwardOwnsSavedValues = false;
};

/// The memory of one call, measured by a Runner created with
/// `RunnerOptions::measureMemory`. All figures are bytes the program asked
/// for (element bytes; an i1 takes one byte), not the C allocator's
/// overhead.
struct MemoryMeasurement {
  /// The arguments' bytes (the caller's buffers).
  int64_t argumentBytes = 0;
  /// The heap bytes of the arguments handed to the function
  /// (RunnerOptions::backwardOwnsSavedValues; each rounded up to 64 bytes,
  /// as the lowering's own buffers are): live from the start of the call
  /// until the function frees them, so they are in `heapPeakBytes`.
  int64_t ownedArgumentBytes = 0;
  /// The heap bytes of the buffers the function returned (each allocation
  /// once): the function allocates each result where it is computed and the
  /// caller frees it after the call, so results are in `heapPeakBytes` from
  /// their allocation on.
  int64_t resultBytes = 0;
  /// Per result: the bytes of the allocation it lives in, or 0 when an
  /// earlier result lives in the same one.
  std::vector<int64_t> resultAllocationBytes;
  /// Heap buffers the lowered function allocated during the call (through
  /// _mlir_memref_to_llvm_alloc / _aligned_alloc): how many, their total,
  /// the high-water mark of the live sum (with the owned arguments), and
  /// what was still live at return apart from the returned buffers (0
  /// unless the lowering leaks).
  int64_t heapAllocations = 0;
  int64_t heapAllocatedBytes = 0;
  int64_t heapPeakBytes = 0;
  int64_t heapLiveAtReturnBytes = 0;
  /// Stack buffers (memref.alloca) of the function, statically: the hooks
  /// do not see them. The CPU lowering makes none for remat programs; this
  /// is the sum of the static sizes of any that the lowered function body
  /// holds (a dynamic one makes `create` fail when measuring).
  int64_t stackBytes = 0;

  /// What the function's own values occupy at its worst moment: the heap
  /// high-water mark (results from their allocation on, owned arguments
  /// until freed) plus stack buffers. Arguments the caller keeps are not in
  /// it.
  int64_t getPeak() const { return heapPeakBytes + stackBytes; }
};

/// The CUDA toolkit `RunnerOptions::toolkit = ""` resolves to ("" if none).
std::string findCudaToolkit();

/// A module compiled for the host or a GPU. Compile once, run many times
/// (runs are independent and deterministic; `run` is not thread-safe).
class Runner {
public:
  /// Lowers a clone of `module` with remat-lower-to-cpu (tensor results
  /// returned in buffers the function allocates; the runner copies and
  /// frees them) and JIT-compiles it. Every public function with a body
  /// and ranked, statically shaped tensor arguments and results is callable.
  static llvm::Expected<std::unique_ptr<Runner>> create(mlir::ModuleOp module,
                                                        unsigned optLevel = 2);

  /// The same for `options.device`. For CUDA the module is lowered with
  /// remat-lower-to-nvvm{results-to-out-params}, every mgpu* function the
  /// host code calls must be one that lib/Runner/CudaRuntime.cpp provides,
  /// and every callable function is linked here. None of this needs the
  /// driver or a GPU: `run` opens them (remat::cuda::initialize) and fails
  /// cleanly without them.
  static llvm::Expected<std::unique_ptr<Runner>>
  create(mlir::ModuleOp module, const RunnerOptions &options);

  Device getDevice() const { return device; }
  /// One line on what was compiled, e.g. "cuda: 2 functions, 154 kernels
  /// (sm_90 cubin), host code calls 9 runtime functions, all resolved".
  const std::string &getCompilationSummary() const { return summary; }

  ~Runner();

  /// The signature of `function`, or null if it is not callable.
  const FunctionSignature *lookup(llvm::StringRef function) const;
  llvm::ArrayRef<FunctionSignature> getFunctions() const { return functions; }

  /// Calls `function` on `inputs` (kinds and shapes must match its
  /// signature) and returns its results. With `measurement` (the runner
  /// must have been created with `RunnerOptions::measureMemory`) the call's
  /// memory is measured into it.
  llvm::Expected<std::vector<HostTensor>>
  run(llvm::StringRef function, llvm::ArrayRef<HostTensor> inputs,
      MemoryMeasurement *measurement = nullptr) const;

  bool isMeasuringMemory() const { return measuringMemory; }

private:
  Runner() = default;
  llvm::Error invoke(const FunctionSignature &signature,
                     std::vector<HostTensor> &arguments,
                     std::vector<HostTensor> &results,
                     MemoryMeasurement *measurement) const;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::vector<FunctionSignature> functions;
  Device device = Device::CPU;
  std::string summary;
  bool measuringMemory = false;
  /// measureMemory: static bytes of memref.alloca buffers per function.
  llvm::StringMap<int64_t> stackBytes;
};

/// Deterministic inputs for `signature`: argument `i` is filled from a
/// SplitMix64 stream starting at mix(mix(seed) XOR mix(i)); floats are
/// k / 2^23 - 1 for a 24-bit draw k (uniform in [-1, 1), exact in f32, then
/// rounded to bf16/f16), i64 values are draw % indexBound, i1/i8 are 0 or 1.
/// docs/Lowering.md gives the exact recipe.
std::vector<HostTensor> makeSeededInputs(const FunctionSignature &signature,
                                         uint64_t seed);

enum class FloatFormat { Decimal, Hex };

/// Writes the elements of `tensor` to `os`, space-separated, row-major:
/// "%.9g" (exact round trip for f32) or "%a" for floats, decimal for
/// integers. Streamed: a 100M-element result printed through one string
/// needed 1.5 GB more (before 2026-12-08, "LLVM ERROR: out of memory"
/// under a memory limit).
void printElements(llvm::raw_ostream &os, const HostTensor &tensor,
                   FloatFormat format);

/// Element-wise comparison of two tensors of one kind and shape.
struct TensorComparison {
  bool sameType = true;
  int64_t bitwiseMismatches = 0; // elements whose bits differ
  int64_t toleranceFailures = 0; // elements outside the tolerance
  double maxAbsError = 0.0;
  double maxRelError = 0.0;
};

/// An element passes when |a - b| <= absTolerance + relTolerance * |b|, or
/// when both are the same NaN/infinity.
TensorComparison compareTensors(const HostTensor &actual,
                                const HostTensor &expected, double absTolerance,
                                double relTolerance);

} // namespace remat

#endif // REMAT_RUNNER_RUNNER_H
