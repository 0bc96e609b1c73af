//===- VocabularyTest.cpp - Spellings of the core enums -------------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Graph.h"

#include "gtest/gtest.h"

namespace remat {
namespace {

TEST(Vocabulary, DTypeRoundTripsAndSizes) {
  for (DType type : {DType::F64, DType::F32, DType::F16, DType::BF16,
                     DType::I64, DType::I32, DType::I8, DType::I1}) {
    std::optional<DType> parsed = parseDType(toString(type));
    ASSERT_TRUE(parsed.has_value()) << toString(type);
    EXPECT_EQ(*parsed, type);
  }
  EXPECT_EQ(dtypeBytes(DType::BF16), 2);
  EXPECT_EQ(dtypeBytes(DType::I1), 1);
  EXPECT_EQ(dtypeBytes(DType::I64), 8);
  EXPECT_FALSE(parseDType("f8").has_value());
}

TEST(Vocabulary, ComputeClassRoundTrips) {
  EXPECT_EQ(parseComputeClass("attention"), ComputeClass::Attention);
  EXPECT_EQ(toString(ComputeClass::Matmul), "matmul");
  EXPECT_FALSE(parseComputeClass("tensorcore").has_value());
  EXPECT_NE(allComputeClassNames().find("collective"), std::string_view::npos);
}

} // namespace
} // namespace remat
