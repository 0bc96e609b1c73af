//===- CudaRuntime.h - mgpu* functions over the CUDA driver -----*- C++ -*-===//
//
// Part of remat. The host code of remat-lower-to-nvvm calls the `mgpu*`
// functions of MLIR's CUDA runtime wrappers (module load, kernel launch,
// streams, managed allocation), which Debian does not ship. This is remat's
// implementation of them on the CUDA driver API. The driver is opened with
// dlopen("libcuda.so.1") on first use, so remat builds, and a module that
// calls these functions links, on machines without CUDA or a GPU.
//
// Errors never abort: the first failing driver call is recorded (its name,
// CUresult and the driver's description) and every later call does nothing,
// so the runner can report the error after the JIT'd code returns.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_RUNNER_CUDARUNTIME_H
#define REMAT_RUNNER_CUDARUNTIME_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>

namespace remat {
namespace cuda {

/// A runtime function the lowered host code may call, by its C name.
struct RuntimeSymbol {
  const char *name;
  void *address;
};

/// Every mgpu* function implemented here (what ExecutionEngine needs in
/// registerSymbols). Calling them before `initialize` records an error.
llvm::ArrayRef<RuntimeSymbol> getRuntimeSymbols();

/// Whether the lowered host code may call `name` (an mgpu* function this
/// runtime implements).
bool isRuntimeSymbol(llvm::StringRef name);

/// The driver library opened by `initialize`: $REMAT_CUDA_DRIVER when set,
/// else "libcuda.so.1".
std::string getDriverLibraryName();

/// Opens the driver, initializes it and makes device 0's primary context
/// current. Idempotent; fails with the dlopen/dlsym text or the driver's
/// error (no device, ...) when the driver cannot be used.
llvm::Error initialize();

/// "NVIDIA H200 (sm_90, 139 GiB, driver 13.0)"; empty before `initialize`.
std::string getDeviceDescription();
/// "sm_90"; empty before `initialize`.
std::string getDeviceChip();

/// The first error any runtime call recorded (a failure that a JIT'd call
/// could not return), or success. Sticky: once a driver call failed the
/// context may be unusable, so later calls are no-ops and this keeps
/// reporting the first error.
llvm::Error getFirstError();

/// Managed memory (cuMemAllocManaged), readable and writable by the host
/// and every kernel. Returns null and records an error on failure.
void *allocateManaged(size_t bytes);
void freeManaged(void *pointer);

} // namespace cuda
} // namespace remat

#endif // REMAT_RUNNER_CUDARUNTIME_H
