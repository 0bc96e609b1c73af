//===- CudaRuntimeTest.cpp - the mgpu* runtime without a driver -----------===//
//
// Part of remat. The runtime must never abort: without a driver it reports
// why, and runtime calls made before the driver is initialized do nothing
// and leave an error for the runner to report. These tests point the
// runtime at a driver library that cannot exist, so they hold on machines
// with a GPU too. (Each test runs in its own process under ctest; within
// one process the runtime's state is shared, and the tests do not depend
// on their order.)
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/CudaRuntime.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>

namespace {

using remat::cuda::RuntimeSymbol;

constexpr const char *kMissingDriver = "/nonexistent/remat-test/libcuda.so.1";

/// The message of `error`, "" for success.
std::string messageOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

void *findSymbol(llvm::StringRef name) {
  for (const RuntimeSymbol &symbol : remat::cuda::getRuntimeSymbols())
    if (name == symbol.name)
      return symbol.address;
  return nullptr;
}

TEST(CudaRuntimeTest, ProvidesWhatTheHostCodeOfRematLowerToNVVMCalls) {
  // The functions gpu-to-llvm and the gpu.binary translation of MLIR 22
  // emit for synchronous launches and managed buffers.
  for (const char *name :
       {"mgpuModuleLoad", "mgpuModuleLoadJIT", "mgpuModuleUnload",
        "mgpuModuleGetFunction", "mgpuLaunchKernel", "mgpuStreamCreate",
        "mgpuStreamSynchronize", "mgpuStreamDestroy", "mgpuMemAlloc",
        "mgpuMemFree"}) {
    EXPECT_TRUE(remat::cuda::isRuntimeSymbol(name)) << name;
    EXPECT_NE(findSymbol(name), nullptr) << name;
  }
  EXPECT_FALSE(remat::cuda::isRuntimeSymbol("malloc"));
  EXPECT_FALSE(remat::cuda::isRuntimeSymbol("mgpuCreateSparseEnv"));
}

TEST(CudaRuntimeTest, InitializeWithoutDriverNamesTheLibraryAndStaysFailed) {
  ASSERT_EQ(setenv("REMAT_CUDA_DRIVER", kMissingDriver, /*overwrite=*/1), 0);
  EXPECT_EQ(remat::cuda::getDriverLibraryName(), kMissingDriver);
  std::string message = messageOf(remat::cuda::initialize());
  EXPECT_NE(message.find(std::string("needs the NVIDIA driver (") +
                         kMissingDriver + "): "),
            std::string::npos)
      << message;
  // The dlerror text follows.
  EXPECT_NE(message.find("No such file"), std::string::npos) << message;
  EXPECT_EQ(messageOf(remat::cuda::initialize()), message);
  EXPECT_EQ(remat::cuda::getDeviceDescription(), "");
}

TEST(CudaRuntimeTest, CallsBeforeInitializeDoNothingAndRecordTheFirstError) {
  ASSERT_EQ(setenv("REMAT_CUDA_DRIVER", kMissingDriver, 1), 0);
  auto streamCreate =
      reinterpret_cast<void *(*)()>(findSymbol("mgpuStreamCreate"));
  auto memAlloc = reinterpret_cast<void *(*)(uint64_t, void *, uint8_t)>(
      findSymbol("mgpuMemAlloc"));
  auto moduleUnload =
      reinterpret_cast<void (*)(void *)>(findSymbol("mgpuModuleUnload"));
  ASSERT_TRUE(streamCreate && memAlloc && moduleUnload);
  // What global destructors do when the constructors never ran: no error.
  moduleUnload(nullptr);
  EXPECT_EQ(messageOf(remat::cuda::getFirstError()), "");

  EXPECT_EQ(streamCreate(), nullptr);
  EXPECT_EQ(memAlloc(64, nullptr, 1), nullptr);
  EXPECT_EQ(remat::cuda::allocateManaged(64), nullptr);
  std::string message = messageOf(remat::cuda::getFirstError());
  // The first failure is kept, not the later ones.
  EXPECT_NE(message.find("mgpuStreamCreate was called before the CUDA driver "
                         "was initialized"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("mgpuMemAlloc"), std::string::npos) << message;
}

} // namespace
