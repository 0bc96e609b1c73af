/*===- fake_cuda_driver.c - a CUDA driver without a GPU, for tests -------===//
//
// Part of remat. Built by test/Conversion/remat-run-fake-driver.mlir into
// a libcuda.so.1 that remat-run --device=cuda loads through
// $REMAT_CUDA_DRIVER. It implements the driver entry points that
// lib/Runner/CudaRuntime.cpp resolves, on the CPU: managed memory is
// calloc'd host memory, streams and events are tokens, and kernels are
// looked up in the loaded image but never executed (launches are checked
// and counted). So the whole --device=cuda path (driver initialization,
// kernel loading in global constructors, launches with their parameters,
// allocation and freeing, result copies) runs on machines without a GPU;
// the numbers computed are not the kernels' (results stay zero).
//
// Checks made here print "fake-cuda: error: ..." and fail the call. At
// exit it prints what happened; FAKE_CUDA_FAIL=launch makes every launch
// fail with CUDA_ERROR_LAUNCH_FAILED (719).
//
//===----------------------------------------------------------------------===*/

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

enum {
  kSuccess = 0,
  kInvalidValue = 1,
  kInvalidImage = 200,
  kNotFound = 500,
  kLaunchFailed = 719,
};

struct Module {
  const char *image;
  size_t size;
  int isCubin;
};

static int modulesLoaded, modulesUnloaded, functionsFound, launches;
static int cubins, ptxs;
static long allocations, frees, liveAllocations;
static int streamsCreated, streamsDestroyed;
static int context;
static int currentSet;

static void report(void) {
  fprintf(stderr,
          "fake-cuda: %d modules loaded (%d cubin, %d PTX), %d unloaded, "
          "%d kernels found, %d launches, %ld allocations, %ld frees, "
          "%ld live, streams %s\n",
          modulesLoaded, cubins, ptxs, modulesUnloaded, functionsFound,
          launches, allocations, frees, liveAllocations,
          streamsCreated == streamsDestroyed ? "balanced" : "leaked");
}

static CUresult fail(CUresult result, const char *what) {
  fprintf(stderr, "fake-cuda: error: %s\n", what);
  return result;
}

CUresult cuInit(unsigned flags) {
  atexit(report);
  return flags == 0 ? kSuccess : kInvalidValue;
}
CUresult cuDriverGetVersion(int *version) {
  *version = 13000;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult result, const char **name) {
  *name = result == kLaunchFailed ? "CUDA_ERROR_LAUNCH_FAILED"
                                  : "CUDA_ERROR_FAKE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  *text = result == kLaunchFailed ? "unspecified launch failure"
                                  : "an error of the fake driver";
  return kSuccess;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kSuccess : kInvalidValue;
}
CUresult cuDeviceGetName(char *name, int length, int device) {
  snprintf(name, length, "Fake GPU");
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int device) {
  switch (attribute) {
  case 75: /* compute capability major */
    *value = 9;
    return kSuccess;
  case 76: /* minor */
    *value = 0;
    return kSuccess;
  case 83: /* managed memory */
    *value = 1;
    return kSuccess;
  }
  return fail(kInvalidValue, "cuDeviceGetAttribute: unexpected attribute");
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int device) {
  *bytes = (size_t)1 << 30;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **result, int device) {
  *result = &context;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void *ctx) {
  if (ctx != &context)
    return fail(kInvalidValue, "cuCtxSetCurrent: not the primary context");
  currentSet = 1;
  return kSuccess;
}

/* A cubin's size from its ELF64 header (section headers come last). */
static size_t elfSize(const unsigned char *image) {
  uint64_t sectionOffset;
  uint16_t entrySize, entries;
  memcpy(&sectionOffset, image + 0x28, 8);
  memcpy(&entrySize, image + 0x3A, 2);
  memcpy(&entries, image + 0x3C, 2);
  return sectionOffset + (size_t)entrySize * entries;
}

CUresult cuModuleLoadDataEx(void **result, const void *image,
                            unsigned optionCount, int *options,
                            void **values) {
  if (!currentSet)
    return fail(kInvalidValue, "cuModuleLoadDataEx without a current context");
  struct Module *module = calloc(1, sizeof(struct Module));
  module->image = image;
  if (memcmp(image, "\x7f" "ELF", 4) == 0) {
    module->isCubin = 1;
    module->size = elfSize(image);
    ++cubins;
  } else if (strstr(image, ".entry ") && strstr(image, ".target sm_")) {
    module->size = strlen(image);
    ++ptxs;
  } else {
    free(module);
    return fail(kInvalidImage, "cuModuleLoadDataEx: neither cubin nor PTX");
  }
  ++modulesLoaded;
  *result = module;
  return kSuccess;
}

CUresult cuModuleUnload(void *module) {
  ++modulesUnloaded;
  free(module);
  return kSuccess;
}

CUresult cuModuleGetFunction(void **function, void *handle, const char *name) {
  struct Module *module = handle;
  size_t length = strlen(name);
  for (size_t i = 0; i + length <= module->size; ++i)
    if (memcmp(module->image + i, name, length) == 0) {
      ++functionsFound;
      *function = (void *)name;
      return kSuccess;
    }
  return fail(kNotFound, "cuModuleGetFunction: no such kernel in the image");
}

CUresult cuLaunchKernel(void *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedMemory, void *stream,
                        void **params, void **extra) {
  const char *failMode = getenv("FAKE_CUDA_FAIL");
  if (failMode && strcmp(failMode, "launch") == 0)
    return kLaunchFailed;
  if (!function || !stream || !params || extra)
    return fail(kInvalidValue, "cuLaunchKernel: missing kernel, stream or "
                               "parameters");
  if (!gridX || !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      blockX * blockY * blockZ > 1024)
    return fail(kInvalidValue, "cuLaunchKernel: bad grid or block shape");
  ++launches;
  return kSuccess;
}

CUresult cuStreamCreate(void **stream, unsigned flags) {
  ++streamsCreated;
  *stream = malloc(1);
  return kSuccess;
}
CUresult cuStreamDestroy_v2(void *stream) {
  ++streamsDestroyed;
  free(stream);
  return kSuccess;
}
CUresult cuStreamSynchronize(void *stream) { return kSuccess; }
CUresult cuStreamWaitEvent(void *stream, void *event, unsigned flags) {
  return kSuccess;
}
CUresult cuEventCreate(void **event, unsigned flags) {
  *event = malloc(1);
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  free(event);
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *stream) { return kSuccess; }
CUresult cuEventSynchronize(void *event) { return kSuccess; }

CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes,
                           unsigned flags) {
  if (bytes == 0 || flags != 1)
    return fail(kInvalidValue, "cuMemAllocManaged: zero bytes or not "
                               "CU_MEM_ATTACH_GLOBAL");
  *pointer = (CUdeviceptr)(uintptr_t)calloc(1, bytes);
  ++allocations;
  ++liveAllocations;
  return kSuccess;
}
CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  return cuMemAllocManaged(pointer, bytes, 1);
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  if (!pointer)
    return fail(kInvalidValue, "cuMemFree_v2: null");
  free((void *)(uintptr_t)pointer);
  ++frees;
  --liveAllocations;
  return kSuccess;
}
CUresult cuMemcpyAsync(CUdeviceptr destination, CUdeviceptr source,
                       size_t bytes, void *stream) {
  memcpy((void *)(uintptr_t)destination, (void *)(uintptr_t)source, bytes);
  return kSuccess;
}
CUresult cuMemsetD16Async(CUdeviceptr destination, unsigned short value,
                          size_t count, void *stream) {
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)destination + 2 * i, &value, 2);
  return kSuccess;
}
CUresult cuMemsetD32Async(CUdeviceptr destination, unsigned value,
                          size_t count, void *stream) {
  for (size_t i = 0; i < count; ++i)
    memcpy((char *)(uintptr_t)destination + 4 * i, &value, 4);
  return kSuccess;
}
