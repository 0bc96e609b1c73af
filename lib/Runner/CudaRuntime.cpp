//===- CudaRuntime.cpp - mgpu* functions over the CUDA driver -------------===//
//
// Part of remat. The runtime functions that the host code of
// remat-lower-to-nvvm calls (their names and signatures are those of MLIR's
// CUDA runtime wrappers, as gpu-to-llvm and the gpu.binary translation emit
// them in MLIR 22), implemented on the CUDA driver API. The driver is
// opened with dlopen on first use and the few prototypes needed are
// declared here, so this file builds without cuda.h and runs nowhere near
// a GPU until `initialize` is called.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/CudaRuntime.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <type_traits>

namespace remat {
namespace cuda {
namespace {

//===----------------------------------------------------------------------===//
// The slice of the CUDA driver API used here (values from cuda.h)
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

constexpr CUresult kSuccess = 0;
constexpr int kJitErrorLogBuffer = 5;          // CU_JIT_ERROR_LOG_BUFFER
constexpr int kJitErrorLogBufferSizeBytes = 6; // ..._SIZE_BYTES
constexpr int kJitOptimizationLevel = 7;       // CU_JIT_OPTIMIZATION_LEVEL
constexpr unsigned kMemAttachGlobal = 1;       // CU_MEM_ATTACH_GLOBAL
constexpr unsigned kStreamNonBlocking = 1;     // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDisableTiming = 2;    // CU_EVENT_DISABLE_TIMING
constexpr int kAttributeComputeMajor = 75;     // ..._COMPUTE_CAPABILITY_MAJOR
constexpr int kAttributeComputeMinor = 76;     // ..._COMPUTE_CAPABILITY_MINOR
constexpr int kAttributeManagedMemory = 83;    // ..._MANAGED_MEMORY
constexpr intptr_t kMaxStaticSharedMemory = 48 * 1024;

/// Driver entry points, looked up by their versioned names (cuda.h maps
/// e.g. cuMemFree to cuMemFree_v2).
struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *,
                                 void **);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventCreate)(CUevent *, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuMemAllocManaged)(CUdeviceptr *, size_t, unsigned);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD16Async)(CUdeviceptr, unsigned short, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
};

/// Process-wide state: one driver, device 0, its primary context.
struct State {
  std::mutex mutex;
  bool initialized = false;
  std::string initializationError; // sticky: a failed initialize stays failed
  Driver driver = {};
  CUcontext context = nullptr;
  std::string description, chip;
  bool failed = false;
  std::string firstError;
};

State &state() {
  static State instance;
  return instance;
}

/// The context that is current on this thread (set once per thread).
thread_local CUcontext currentContext = nullptr;

std::string describe(CUresult result) {
  const Driver &driver = state().driver;
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  std::string message = name ? name : "CUDA error";
  message += " (" + std::to_string(result) + ")";
  if (text)
    message += std::string(": ") + text;
  return message;
}

void recordError(const std::string &message) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.failed)
    return;
  s.failed = true;
  s.firstError = message;
}

/// Records a failed driver call; true when `result` is success.
bool check(CUresult result, const char *call, const std::string &detail = "") {
  if (result == kSuccess)
    return true;
  recordError(std::string(call) + " failed: " + describe(result) +
              (detail.empty() ? "" : "\n" + detail));
  return false;
}

/// Every runtime function starts here: false (do nothing) when the driver
/// was never initialized or an earlier call failed; otherwise the primary
/// context is current on this thread.
bool enter(const char *function) {
  State &s = state();
  if (!s.initialized) {
    recordError(std::string(function) +
                " was called before the CUDA driver was initialized "
                "(remat::cuda::initialize)");
    return false;
  }
  if (s.failed)
    return false;
  if (currentContext != s.context) {
    if (!check(s.driver.cuCtxSetCurrent(s.context), "cuCtxSetCurrent"))
      return false;
    currentContext = s.context;
  }
  return true;
}

const Driver &api() { return state().driver; }

CUdeviceptr devicePointer(void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

//===----------------------------------------------------------------------===//
// The mgpu* functions (signatures as MLIR 22's host code calls them)
//===----------------------------------------------------------------------===//

CUmodule loadModule(const void *data, int optLevel, bool jit) {
  // The error log says why a cubin or PTX was rejected (wrong chip, PTX
  // version newer than the driver, ...).
  char log[8192] = {0};
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes,
                   kJitOptimizationLevel};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUmodule module = nullptr;
  CUresult result =
      api().cuModuleLoadDataEx(&module, data, jit ? 3 : 2, options, values);
  check(result,
        jit ? "cuModuleLoadDataEx (PTX, JIT-compiled by the driver)"
            : "cuModuleLoadDataEx (cubin)",
        log[0] ? std::string("driver log: ") + log : "");
  return result == kSuccess ? module : nullptr;
}

void *mgpuModuleLoad(void *data, size_t /*size*/) {
  if (!enter("mgpuModuleLoad"))
    return nullptr;
  return loadModule(data, /*optLevel=*/0, /*jit=*/false);
}

void *mgpuModuleLoadJIT(void *data, int optLevel) {
  if (!enter("mgpuModuleLoadJIT"))
    return nullptr;
  return loadModule(data, optLevel, /*jit=*/true);
}

void mgpuModuleUnload(void *module) {
  // Global destructors unload every module, also when the constructors
  // never ran (nothing loaded, no driver): nothing to do then.
  if (!module || !enter("mgpuModuleUnload"))
    return;
  check(api().cuModuleUnload(static_cast<CUmodule>(module)), "cuModuleUnload");
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (!enter("mgpuModuleGetFunction"))
    return nullptr;
  CUfunction function = nullptr;
  check(
      api().cuModuleGetFunction(&function, static_cast<CUmodule>(module), name),
      "cuModuleGetFunction", std::string("kernel: ") + name);
  return function;
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t sharedMemory, void *stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  if (!enter("mgpuLaunchKernel"))
    return;
  if (!function) {
    recordError("mgpuLaunchKernel: no kernel (its module did not load)");
    return;
  }
  if (sharedMemory > kMaxStaticSharedMemory) {
    recordError("mgpuLaunchKernel: " + std::to_string(sharedMemory) +
                " bytes of dynamic shared memory requested; this runtime "
                "supports at most 48 KiB (remat's kernels use none)");
    return;
  }
  check(api().cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY,
                             gridZ, blockX, blockY, blockZ, sharedMemory,
                             static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel",
        "grid " + std::to_string(gridX) + "x" + std::to_string(gridY) + "x" +
            std::to_string(gridZ) + ", block " + std::to_string(blockX) + "x" +
            std::to_string(blockY) + "x" + std::to_string(blockZ));
}

void *mgpuStreamCreate() {
  if (!enter("mgpuStreamCreate"))
    return nullptr;
  CUstream stream = nullptr;
  check(api().cuStreamCreate(&stream, kStreamNonBlocking), "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  if (!stream || !enter("mgpuStreamDestroy"))
    return;
  check(api().cuStreamDestroy(static_cast<CUstream>(stream)),
        "cuStreamDestroy_v2");
}

void mgpuStreamSynchronize(void *stream) {
  // A kernel's own faults (illegal address, ...) surface here.
  if (!enter("mgpuStreamSynchronize"))
    return;
  check(api().cuStreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize (a kernel failed)");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  if (!enter("mgpuStreamWaitEvent"))
    return;
  check(api().cuStreamWaitEvent(static_cast<CUstream>(stream),
                                static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  if (!enter("mgpuEventCreate"))
    return nullptr;
  CUevent event = nullptr;
  check(api().cuEventCreate(&event, kEventDisableTiming), "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  if (!event || !enter("mgpuEventDestroy"))
    return;
  check(api().cuEventDestroy(static_cast<CUevent>(event)), "cuEventDestroy_v2");
}

void mgpuEventSynchronize(void *event) {
  if (!enter("mgpuEventSynchronize"))
    return;
  check(api().cuEventSynchronize(static_cast<CUevent>(event)),
        "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  if (!enter("mgpuEventRecord"))
    return;
  check(api().cuEventRecord(static_cast<CUevent>(event),
                            static_cast<CUstream>(stream)),
        "cuEventRecord");
}

void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/, uint8_t hostShared) {
  if (!enter("mgpuMemAlloc") || bytes == 0)
    return nullptr;
  CUdeviceptr pointer = 0;
  if (hostShared)
    check(api().cuMemAllocManaged(&pointer, bytes, kMemAttachGlobal),
          "cuMemAllocManaged", std::to_string(bytes) + " bytes");
  else
    check(api().cuMemAlloc(&pointer, bytes), "cuMemAlloc_v2",
          std::to_string(bytes) + " bytes");
  return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer));
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (!pointer || !enter("mgpuMemFree"))
    return;
  check(api().cuMemFree(devicePointer(pointer)), "cuMemFree_v2");
}

void mgpuMemcpy(void *destination, void *source, size_t bytes, void *stream) {
  if (!enter("mgpuMemcpy"))
    return;
  check(api().cuMemcpyAsync(devicePointer(destination), devicePointer(source),
                            bytes, static_cast<CUstream>(stream)),
        "cuMemcpyAsync");
}

void mgpuMemset16(void *destination, unsigned short value, size_t count,
                  void *stream) {
  if (!enter("mgpuMemset16"))
    return;
  check(api().cuMemsetD16Async(devicePointer(destination), value, count,
                               static_cast<CUstream>(stream)),
        "cuMemsetD16Async");
}

void mgpuMemset32(void *destination, unsigned value, size_t count,
                  void *stream) {
  if (!enter("mgpuMemset32"))
    return;
  check(api().cuMemsetD32Async(devicePointer(destination), value, count,
                               static_cast<CUstream>(stream)),
        "cuMemsetD32Async");
}

void mgpuSetDefaultDevice(int32_t device) {
  if (device != 0)
    recordError("mgpuSetDefaultDevice(" + std::to_string(device) +
                "): this runtime uses device 0 only");
}

template <typename Function> void *address(Function *function) {
  return reinterpret_cast<void *>(function);
}

const RuntimeSymbol kSymbols[] = {
    {"mgpuModuleLoad", address(mgpuModuleLoad)},
    {"mgpuModuleLoadJIT", address(mgpuModuleLoadJIT)},
    {"mgpuModuleUnload", address(mgpuModuleUnload)},
    {"mgpuModuleGetFunction", address(mgpuModuleGetFunction)},
    {"mgpuLaunchKernel", address(mgpuLaunchKernel)},
    {"mgpuStreamCreate", address(mgpuStreamCreate)},
    {"mgpuStreamDestroy", address(mgpuStreamDestroy)},
    {"mgpuStreamSynchronize", address(mgpuStreamSynchronize)},
    {"mgpuStreamWaitEvent", address(mgpuStreamWaitEvent)},
    {"mgpuEventCreate", address(mgpuEventCreate)},
    {"mgpuEventDestroy", address(mgpuEventDestroy)},
    {"mgpuEventSynchronize", address(mgpuEventSynchronize)},
    {"mgpuEventRecord", address(mgpuEventRecord)},
    {"mgpuMemAlloc", address(mgpuMemAlloc)},
    {"mgpuMemFree", address(mgpuMemFree)},
    {"mgpuMemcpy", address(mgpuMemcpy)},
    {"mgpuMemset16", address(mgpuMemset16)},
    {"mgpuMemset32", address(mgpuMemset32)},
    {"mgpuSetDefaultDevice", address(mgpuSetDefaultDevice)},
};

//===----------------------------------------------------------------------===//
// Initialization
//===----------------------------------------------------------------------===//

/// Opens the driver and resolves every entry point; the error text says
/// which step failed.
llvm::Error loadDriver(Driver &driver) {
  std::string library = getDriverLibraryName();
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    return llvm::createStringError("needs the NVIDIA driver (" + library +
                                   "): " + (reason ? reason : "dlopen failed"));
  }
  // Deliberately never dlclose'd: kernels and contexts outlive any scope.
  bool missing = false;
  std::string missingNames;
  auto resolve = [&](auto &slot, const char *name) {
    void *symbol = dlsym(handle, name);
    if (!symbol) {
      missing = true;
      missingNames += (missingNames.empty() ? "" : ", ") + std::string(name);
      return;
    }
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(symbol);
  };
  resolve(driver.cuInit, "cuInit");
  resolve(driver.cuDriverGetVersion, "cuDriverGetVersion");
  resolve(driver.cuGetErrorName, "cuGetErrorName");
  resolve(driver.cuGetErrorString, "cuGetErrorString");
  resolve(driver.cuDeviceGetCount, "cuDeviceGetCount");
  resolve(driver.cuDeviceGet, "cuDeviceGet");
  resolve(driver.cuDeviceGetName, "cuDeviceGetName");
  resolve(driver.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  resolve(driver.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  resolve(driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  resolve(driver.cuCtxSetCurrent, "cuCtxSetCurrent");
  resolve(driver.cuModuleLoadDataEx, "cuModuleLoadDataEx");
  resolve(driver.cuModuleUnload, "cuModuleUnload");
  resolve(driver.cuModuleGetFunction, "cuModuleGetFunction");
  resolve(driver.cuLaunchKernel, "cuLaunchKernel");
  resolve(driver.cuStreamCreate, "cuStreamCreate");
  resolve(driver.cuStreamDestroy, "cuStreamDestroy_v2");
  resolve(driver.cuStreamSynchronize, "cuStreamSynchronize");
  resolve(driver.cuStreamWaitEvent, "cuStreamWaitEvent");
  resolve(driver.cuEventCreate, "cuEventCreate");
  resolve(driver.cuEventDestroy, "cuEventDestroy_v2");
  resolve(driver.cuEventRecord, "cuEventRecord");
  resolve(driver.cuEventSynchronize, "cuEventSynchronize");
  resolve(driver.cuMemAllocManaged, "cuMemAllocManaged");
  resolve(driver.cuMemAlloc, "cuMemAlloc_v2");
  resolve(driver.cuMemFree, "cuMemFree_v2");
  resolve(driver.cuMemcpyAsync, "cuMemcpyAsync");
  resolve(driver.cuMemsetD16Async, "cuMemsetD16Async");
  resolve(driver.cuMemsetD32Async, "cuMemsetD32Async");
  if (missing)
    return llvm::createStringError(
        "needs a newer NVIDIA driver (" + library +
        " lacks entry points it calls: " + missingNames + ")");
  return llvm::Error::success();
}

/// cuInit, device 0, its primary context and a description of it.
llvm::Error openDevice(State &s) {
  const Driver &driver = s.driver;
  auto fail = [&](CUresult result, const char *call) {
    return llvm::createStringError(std::string("found no usable GPU: ") + call +
                                   " failed: " + describe(result));
  };
  if (CUresult result = driver.cuInit(0))
    return fail(result, "cuInit");
  int count = 0;
  if (CUresult result = driver.cuDeviceGetCount(&count))
    return fail(result, "cuDeviceGetCount");
  if (count == 0)
    return llvm::createStringError(
        "found no usable GPU: the NVIDIA driver reports no device");
  CUdevice device = 0;
  if (CUresult result = driver.cuDeviceGet(&device, 0))
    return fail(result, "cuDeviceGet");
  int managed = 0, major = 0, minor = 0, version = 0;
  char name[256] = {0};
  size_t memory = 0;
  if (CUresult result = driver.cuDeviceGetAttribute(
          &managed, kAttributeManagedMemory, device))
    return fail(result, "cuDeviceGetAttribute");
  if (!managed)
    return llvm::createStringError(
        "found no usable GPU: device 0 cannot allocate managed memory, which "
        "the "
        "host code of remat-lower-to-nvvm uses for every buffer");
  driver.cuDeviceGetAttribute(&major, kAttributeComputeMajor, device);
  driver.cuDeviceGetAttribute(&minor, kAttributeComputeMinor, device);
  driver.cuDeviceGetName(name, sizeof(name) - 1, device);
  driver.cuDeviceTotalMem(&memory, device);
  driver.cuDriverGetVersion(&version);
  if (CUresult result = driver.cuDevicePrimaryCtxRetain(&s.context, device))
    return fail(result, "cuDevicePrimaryCtxRetain");
  s.chip = "sm_" + std::to_string(major) + std::to_string(minor);
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << name << " (" << s.chip << ", "
         << llvm::format("%.0f", memory / double(1ull << 30)) << " GiB, driver "
         << version / 1000 << "." << (version % 1000) / 10 << ")";
  s.description = text;
  return llvm::Error::success();
}

} // namespace

llvm::ArrayRef<RuntimeSymbol> getRuntimeSymbols() { return kSymbols; }

bool isRuntimeSymbol(llvm::StringRef name) {
  for (const RuntimeSymbol &symbol : kSymbols)
    if (name == symbol.name)
      return true;
  return false;
}

std::string getDriverLibraryName() {
  if (const char *override = std::getenv("REMAT_CUDA_DRIVER"))
    if (*override)
      return override;
  return "libcuda.so.1";
}

llvm::Error initialize() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.initialized)
    return llvm::Error::success();
  if (!s.initializationError.empty())
    return llvm::createStringError(s.initializationError);
  llvm::Error error = loadDriver(s.driver);
  if (!error)
    error = openDevice(s);
  if (error) {
    s.initializationError = llvm::toString(std::move(error));
    return llvm::createStringError(s.initializationError);
  }
  s.initialized = true;
  return llvm::Error::success();
}

std::string getDeviceDescription() { return state().description; }
std::string getDeviceChip() { return state().chip; }

llvm::Error getFirstError() {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.failed)
    return llvm::Error::success();
  return llvm::createStringError("CUDA runtime: " + s.firstError);
}

void *allocateManaged(size_t bytes) {
  return mgpuMemAlloc(bytes, /*stream=*/nullptr, /*hostShared=*/1);
}

void freeManaged(void *pointer) { mgpuMemFree(pointer, /*stream=*/nullptr); }

} // namespace cuda
} // namespace remat
