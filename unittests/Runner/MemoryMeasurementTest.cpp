//===- MemoryMeasurementTest.cpp - Runner's counting allocation hooks -----===//
//
// Part of remat. A Runner created with RunnerOptions::measureMemory lowers
// with remat-lower-to-cpu{generic-alloc-functions} and counts the heap
// buffers of each call; the figures of small functions are known exactly.
//
//===----------------------------------------------------------------------===//

#include "remat/Dialect/Remat/IR/RematDialect.h"
#include "remat/Runner/Runner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlir;

namespace {

/// Four exps in a chain: %a, %b and %c are intermediates of 1 KiB each,
/// %d is the result (an out-parameter the runner allocates).
constexpr const char *kChain = R"mlir(
func.func @chain(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = remat.exp %x : tensor<256xf32>
  %b = remat.exp %a : tensor<256xf32>
  %c = remat.exp %b : tensor<256xf32>
  %d = remat.exp %c : tensor<256xf32>
  return %d : tensor<256xf32>
}
func.func @copy(%x: tensor<256xf32>) -> tensor<256xf32> {
  %a = remat.exp %x : tensor<256xf32>
  return %a : tensor<256xf32>
}
)mlir";

class MemoryMeasurementTest : public ::testing::Test {
protected:
  MemoryMeasurementTest() {
    context.getOrLoadDialect<remat::RematDialect>();
    context.getOrLoadDialect<func::FuncDialect>();
    module = parseSourceString<ModuleOp>(kChain, &context);
  }
  std::unique_ptr<remat::Runner> create(const remat::RunnerOptions &options) {
    auto runner = remat::Runner::create(*module, options);
    if (!runner) {
      ADD_FAILURE() << llvm::toString(runner.takeError());
      return nullptr;
    }
    return std::move(*runner);
  }
  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// The message of `error`, "" for success.
std::string messageOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

TEST_F(MemoryMeasurementTest, CountsIntermediatesSeparatelyFromCallerBuffers) {
  ASSERT_TRUE(module);
  remat::RunnerOptions options;
  options.measureMemory = true;
  std::unique_ptr<remat::Runner> runner = create(options);
  ASSERT_TRUE(runner);
  const remat::FunctionSignature *signature = runner->lookup("chain");
  ASSERT_NE(signature, nullptr);
  std::vector<remat::HostTensor> inputs =
      remat::makeSeededInputs(*signature, 1);
  remat::MemoryMeasurement memory;
  auto results = runner->run("chain", inputs, &memory);
  ASSERT_TRUE(static_cast<bool>(results)) << messageOf(results.takeError());
  EXPECT_EQ(memory.argumentBytes, 1024);
  EXPECT_EQ(memory.resultBytes, 1024);
  EXPECT_EQ(memory.heapAllocations, 3);
  EXPECT_EQ(memory.heapAllocatedBytes, 3 * 1024);
  // Each intermediate is freed after its last read
  // (remat-dealloc-at-last-use): at most two are live at once (freeing at
  // the end of the block, as ownership-based deallocation alone does, peaks
  // at 3 KiB).
  EXPECT_EQ(memory.heapPeakBytes, 2 * 1024);
  EXPECT_EQ(memory.heapLiveAtReturnBytes, 0);
  EXPECT_EQ(memory.stackBytes, 0);
  EXPECT_EQ(memory.getPeakWithoutArguments(), 3 * 1024);

  // A second call measures from zero again; the result is written into the
  // out-parameter, so the one-op function allocates nothing.
  auto copy = runner->run("copy", inputs, &memory);
  ASSERT_TRUE(static_cast<bool>(copy)) << messageOf(copy.takeError());
  EXPECT_EQ(memory.heapAllocations, 0);
  EXPECT_EQ(memory.heapPeakBytes, 0);
  EXPECT_EQ(memory.getPeakWithoutArguments(), 1024);
}

TEST_F(MemoryMeasurementTest, MeasuredResultsEqualUnmeasuredOnes) {
  ASSERT_TRUE(module);
  remat::RunnerOptions measuring;
  measuring.measureMemory = true;
  std::unique_ptr<remat::Runner> counted = create(measuring);
  std::unique_ptr<remat::Runner> plain = create(remat::RunnerOptions());
  ASSERT_TRUE(counted && plain);
  std::vector<remat::HostTensor> inputs =
      remat::makeSeededInputs(*plain->lookup("chain"), 7);
  remat::MemoryMeasurement memory;
  auto a = counted->run("chain", inputs, &memory);
  auto b = plain->run("chain", inputs);
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a)[0].bytes, (*b)[0].bytes);
}

TEST_F(MemoryMeasurementTest, NeedsAMeasuringRunner) {
  ASSERT_TRUE(module);
  std::unique_ptr<remat::Runner> runner = create(remat::RunnerOptions());
  ASSERT_TRUE(runner);
  EXPECT_FALSE(runner->isMeasuringMemory());
  std::vector<remat::HostTensor> inputs =
      remat::makeSeededInputs(*runner->lookup("chain"), 1);
  remat::MemoryMeasurement memory;
  auto results = runner->run("chain", inputs, &memory);
  ASSERT_FALSE(static_cast<bool>(results));
  EXPECT_EQ(messageOf(results.takeError()),
            "measuring the memory of @chain needs a runner created with "
            "RunnerOptions::measureMemory");
}

TEST_F(MemoryMeasurementTest, RejectedOnCuda) {
  ASSERT_TRUE(module);
  remat::RunnerOptions options;
  options.device = remat::Device::CUDA;
  options.measureMemory = true;
  auto runner = remat::Runner::create(*module, options);
  ASSERT_FALSE(static_cast<bool>(runner));
  EXPECT_NE(messageOf(runner.takeError())
                .find("measuring memory works on the CPU only"),
            std::string::npos);
}

} // namespace
