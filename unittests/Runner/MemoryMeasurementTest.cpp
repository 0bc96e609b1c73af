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
/// %d is the result (allocated by the function, freed by the runner).
/// @backward is a remat-partition backward whose first argument is a saved
/// value; @identity returns its argument, @twice one buffer twice.
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
func.func @backward(%s: tensor<256xf32>, %x: tensor<256xf32>)
    -> tensor<256xf32>
    attributes {remat.stage = "backward", remat.saved_values = ["s"]} {
  %a = remat.exp %s : tensor<256xf32>
  %b = remat.exp %a : tensor<256xf32>
  %c = remat.add %b, %x : tensor<256xf32>
  return %c : tensor<256xf32>
}
func.func @identity(%x: tensor<256xf32>) -> tensor<256xf32> {
  return %x : tensor<256xf32>
}
func.func @twice(%x: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %a = remat.exp %x : tensor<256xf32>
  return %a, %a : tensor<256xf32>, tensor<256xf32>
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
  EXPECT_EQ(memory.ownedArgumentBytes, 0);
  EXPECT_EQ(memory.resultBytes, 1024);
  EXPECT_EQ(memory.resultAllocationBytes, std::vector<int64_t>{1024});
  EXPECT_EQ(memory.heapAllocations, 4);
  EXPECT_EQ(memory.heapAllocatedBytes, 4 * 1024);
  // Each intermediate is freed after its last read
  // (remat-dealloc-at-last-use) and the result is allocated when computed:
  // at most two buffers are live at once (freeing at the end of the block,
  // as ownership-based deallocation alone does, peaks at 4 KiB; a result
  // out-parameter would add 1 KiB for the whole call).
  EXPECT_EQ(memory.heapPeakBytes, 2 * 1024);
  EXPECT_EQ(memory.heapLiveAtReturnBytes, 0);
  EXPECT_EQ(memory.stackBytes, 0);
  EXPECT_EQ(memory.getPeak(), 2 * 1024);

  // A second call measures from zero again; the one-op function allocates
  // its result only.
  auto copy = runner->run("copy", inputs, &memory);
  ASSERT_TRUE(static_cast<bool>(copy)) << messageOf(copy.takeError());
  EXPECT_EQ(memory.heapAllocations, 1);
  EXPECT_EQ(memory.heapPeakBytes, 1024);
  EXPECT_EQ(memory.getPeak(), 1024);
}

TEST_F(MemoryMeasurementTest, BackwardFreesSavedValueAfterItsLastRead) {
  ASSERT_TRUE(module);
  remat::RunnerOptions options;
  options.measureMemory = true;
  options.backwardOwnsSavedValues = true;
  std::unique_ptr<remat::Runner> owning = create(options);
  options.backwardOwnsSavedValues = false;
  std::unique_ptr<remat::Runner> holding = create(options);
  ASSERT_TRUE(owning && holding);
  const remat::FunctionSignature *signature = owning->lookup("backward");
  ASSERT_NE(signature, nullptr);
  EXPECT_TRUE(signature->inputs[0].owned);
  EXPECT_FALSE(signature->inputs[1].owned);
  EXPECT_FALSE(holding->lookup("backward")->inputs[0].owned);
  std::vector<remat::HostTensor> inputs =
      remat::makeSeededInputs(*signature, 3);

  remat::MemoryMeasurement owned, held;
  auto a = owning->run("backward", inputs, &owned);
  auto b = holding->run("backward", inputs, &held);
  ASSERT_TRUE(a && b);
  EXPECT_EQ((*a)[0].bytes, (*b)[0].bytes);
  // %s (1 KiB) is live from the start and freed once %a is computed, so
  // the peak is two buffers (%s + %a, then %a + %b, then %b + %c), not
  // three (%s held to the end).
  EXPECT_EQ(owned.ownedArgumentBytes, 1024);
  EXPECT_EQ(owned.heapAllocations, 3);
  EXPECT_EQ(owned.heapPeakBytes, 2 * 1024);
  EXPECT_EQ(owned.heapLiveAtReturnBytes, 0);
  // Held by the caller: not in the heap, not freed by the function.
  EXPECT_EQ(held.ownedArgumentBytes, 0);
  EXPECT_EQ(held.heapPeakBytes, 2 * 1024);
  EXPECT_EQ(held.heapLiveAtReturnBytes, 0);
  // Functions that are not a partitioned backward own nothing.
  EXPECT_FALSE(owning->lookup("chain")->inputs[0].owned);
}

TEST_F(MemoryMeasurementTest, ReturnedArgumentAndSharedResultBuffers) {
  ASSERT_TRUE(module);
  remat::RunnerOptions options;
  options.measureMemory = true;
  std::unique_ptr<remat::Runner> runner = create(options);
  std::unique_ptr<remat::Runner> plain = create(remat::RunnerOptions());
  ASSERT_TRUE(runner && plain);
  std::vector<remat::HostTensor> inputs =
      remat::makeSeededInputs(*runner->lookup("identity"), 5);
  for (remat::Runner *r : {runner.get(), plain.get()}) {
    remat::MemoryMeasurement memory;
    auto identity =
        r->run("identity", inputs, r == runner.get() ? &memory : nullptr);
    ASSERT_TRUE(static_cast<bool>(identity))
        << messageOf(identity.takeError());
    // The caller's buffer is not the function's to return: it is copied.
    EXPECT_EQ((*identity)[0].bytes, inputs[0].bytes);
    auto twice =
        r->run("twice", inputs, r == runner.get() ? &memory : nullptr);
    ASSERT_TRUE(static_cast<bool>(twice)) << messageOf(twice.takeError());
    EXPECT_EQ((*twice)[0].bytes, (*twice)[1].bytes);
    if (r == runner.get()) {
      EXPECT_EQ(memory.heapLiveAtReturnBytes, 0);
      ASSERT_EQ(memory.resultAllocationBytes.size(), 2u);
      EXPECT_EQ(memory.resultBytes, memory.resultAllocationBytes[0] +
                                        memory.resultAllocationBytes[1]);
      EXPECT_EQ(memory.resultBytes, memory.heapPeakBytes);
    }
  }
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

TEST_F(MemoryMeasurementTest, OwnedSavedValuesRejectedOnCuda) {
  ASSERT_TRUE(module);
  remat::RunnerOptions options;
  options.device = remat::Device::CUDA;
  options.backwardOwnsSavedValues = true;
  auto runner = remat::Runner::create(*module, options);
  ASSERT_FALSE(static_cast<bool>(runner));
  EXPECT_EQ(messageOf(runner.takeError()),
            "handing the saved values to the backward function works on the "
            "CPU only: the cuda lowering does not free owned arguments");
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
