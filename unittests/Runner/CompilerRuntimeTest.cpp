//===- CompilerRuntimeTest.cpp - the bf16 libcalls the runner binds -------===//
//
// Part of remat. `truncateToBF16` against LLVM's APFloat conversion (the
// reference: IEEE round to nearest, ties to even), on edge cases and a
// seeded sweep, and the bound functions through the pointers the JIT gets.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/CompilerRuntime.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringRef.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using remat::compiler_rt::getSymbols;
using remat::compiler_rt::truncateToBF16;

namespace {

uint16_t referenceBF16(double value) {
  llvm::APFloat converted(value);
  bool losesInfo = false;
  converted.convert(llvm::APFloat::BFloat(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
}

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

bool isBF16NaN(uint16_t bits) {
  return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu) != 0;
}

TEST(CompilerRuntimeTest, EdgeCasesRoundToNearestEven) {
  EXPECT_EQ(truncateToBF16(1.0f), 0x3f80u);
  EXPECT_EQ(truncateToBF16(-2.0f), 0xc000u);
  EXPECT_EQ(truncateToBF16(0.0f), 0x0000u);
  EXPECT_EQ(truncateToBF16(-0.0f), 0x8000u);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to the even 1.
  EXPECT_EQ(truncateToBF16(floatFromBits(0x3f808000u)), 0x3f80u);
  // 1 + 3 * 2^-8 is halfway between two odd/even neighbours: up to even.
  EXPECT_EQ(truncateToBF16(floatFromBits(0x3f818000u)), 0x3f82u);
  // Just above the halfway point rounds up.
  EXPECT_EQ(truncateToBF16(floatFromBits(0x3f808001u)), 0x3f81u);
  // The largest float rounds to infinity; infinities stay.
  EXPECT_EQ(truncateToBF16(std::numeric_limits<float>::max()), 0x7f80u);
  EXPECT_EQ(truncateToBF16(std::numeric_limits<float>::infinity()), 0x7f80u);
  EXPECT_EQ(truncateToBF16(-std::numeric_limits<float>::infinity()), 0xff80u);
  // Subnormals round like any other value.
  EXPECT_EQ(truncateToBF16(std::numeric_limits<float>::denorm_min()), 0u);
  // A NaN whose payload lies only in the dropped bits stays a NaN.
  uint16_t nan = truncateToBF16(floatFromBits(0x7f800001u));
  EXPECT_TRUE(isBF16NaN(nan)) << std::hex << nan;
  uint16_t negativeNaN = truncateToBF16(floatFromBits(0xffc00000u));
  EXPECT_TRUE(isBF16NaN(negativeNaN));
  EXPECT_EQ(negativeNaN & 0x8000u, 0x8000u);
  EXPECT_TRUE(isBF16NaN(truncateToBF16(std::nan(""))));
}

TEST(CompilerRuntimeTest, FloatMatchesAPFloatOnASeededSweep) {
  std::mt19937 random(17);
  for (int i = 0; i < 1'000'000; ++i) {
    float value = floatFromBits(static_cast<uint32_t>(random()));
    if (std::isnan(value))
      continue;
    ASSERT_EQ(truncateToBF16(value), referenceBF16(value))
        << "bits 0x" << std::hex << bitsOf(value);
  }
  // Every tie: the dropped half is exactly 0x8000.
  for (uint32_t high = 0; high < 0x10000u; ++high) {
    float value = floatFromBits((high << 16) | 0x8000u);
    if (std::isnan(value))
      continue;
    ASSERT_EQ(truncateToBF16(value), referenceBF16(value))
        << "bits 0x" << std::hex << bitsOf(value);
  }
}

TEST(CompilerRuntimeTest, DoubleIsRoundedOnce) {
  // 1 + 2^-8 + 2^-30 is above the bf16 halfway point, so it rounds up; via
  // float it would first become the tie 1 + 2^-8 and then round down to 1.
  double value = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(truncateToBF16(value), 0x3f81u);
  EXPECT_EQ(truncateToBF16(static_cast<float>(value)), 0x3f80u);
  EXPECT_EQ(truncateToBF16(1e300), 0x7f80u);
  EXPECT_TRUE(isBF16NaN(truncateToBF16(std::nan(""))));
}

TEST(CompilerRuntimeTest, BoundFunctionsReturnTheBitsInTheLowHalf) {
  bool sawFloat = false, sawDouble = false;
  for (const auto &symbol : getSymbols()) {
    uint32_t bits = 0;
    if (llvm::StringRef(symbol.name) == "__truncsfbf2") {
      auto *function = reinterpret_cast<float (*)(float)>(symbol.address);
      bits = bitsOf(function(1.5f));
      sawFloat = true;
    } else if (llvm::StringRef(symbol.name) == "__truncdfbf2") {
      auto *function = reinterpret_cast<float (*)(double)>(symbol.address);
      bits = bitsOf(function(1.5));
      sawDouble = true;
    } else {
      ADD_FAILURE() << "unexpected symbol " << symbol.name;
    }
    EXPECT_EQ(bits, 0x3fc0u) << symbol.name;
  }
  EXPECT_TRUE(sawFloat);
  EXPECT_TRUE(sawDouble);
}

} // namespace
