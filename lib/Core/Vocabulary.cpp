//===- Vocabulary.cpp - Names of the core enums ---------------------------===//
//
// Part of remat. Spellings shared by the dialect, the reports and the CLI.
//
//===----------------------------------------------------------------------===//

#include "remat/Core/Graph.h"

#include <array>
#include <utility>

namespace remat {

namespace {
constexpr std::array<std::pair<DType, std::string_view>, 10> kDTypeNames = {{
    {DType::F64, "f64"},
    {DType::F32, "f32"},
    {DType::F16, "f16"},
    {DType::BF16, "bf16"},
    {DType::I64, "i64"},
    {DType::I32, "i32"},
    {DType::I8, "i8"},
    {DType::I1, "i1"},
    {DType::C64, "complex<f32>"},
    {DType::C128, "complex<f64>"},
}};

constexpr std::array<std::pair<ComputeClass, std::string_view>, 10>
    kComputeClassNames = {{
        {ComputeClass::Pointwise, "pointwise"},
        {ComputeClass::Reduction, "reduction"},
        {ComputeClass::Normalization, "normalization"},
        {ComputeClass::Matmul, "matmul"},
        {ComputeClass::Conv, "conv"},
        {ComputeClass::Attention, "attention"},
        {ComputeClass::Random, "random"},
        {ComputeClass::View, "view"},
        {ComputeClass::Collective, "collective"},
        {ComputeClass::Other, "other"},
    }};
} // namespace

int64_t dtypeBytes(DType type) {
  switch (type) {
  case DType::C128:
    return 16;
  case DType::F64:
  case DType::C64:
  case DType::I64:
    return 8;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I8:
  case DType::I1:
    return 1;
  }
  return 0;
}

std::string_view toString(DType type) {
  for (const auto &[value, name] : kDTypeNames)
    if (value == type)
      return name;
  return "?";
}

std::optional<DType> parseDType(std::string_view text) {
  for (const auto &[value, name] : kDTypeNames)
    if (name == text)
      return value;
  return std::nullopt;
}

std::string_view toString(ComputeClass computeClass) {
  for (const auto &[value, name] : kComputeClassNames)
    if (value == computeClass)
      return name;
  return "?";
}

std::optional<ComputeClass> parseComputeClass(std::string_view text) {
  for (const auto &[value, name] : kComputeClassNames)
    if (name == text)
      return value;
  return std::nullopt;
}

std::string_view allComputeClassNames() {
  return "pointwise, reduction, normalization, matmul, conv, attention, "
         "random, view, collective, other";
}

std::string_view toString(InverseKind kind) {
  switch (kind) {
  case InverseKind::SubtractOther:
    return "subtract-other";
  case InverseKind::AddOther:
    return "add-other";
  case InverseKind::SubtractFromOther:
    return "subtract-from-other";
  case InverseKind::DivideByOther:
    return "divide-by-other";
  case InverseKind::MultiplyByOther:
    return "multiply-by-other";
  case InverseKind::DivideOtherBy:
    return "divide-other-by";
  case InverseKind::Negate:
    return "negate";
  case InverseKind::Log:
    return "log";
  case InverseKind::Exp:
    return "exp";
  case InverseKind::Reshape:
    return "reshape";
  case InverseKind::Transpose:
    return "transpose";
  case InverseKind::LeakyReluInverse:
    return "leaky-relu-inverse";
  case InverseKind::Cast:
    return "cast";
  }
  return "?";
}

std::string_view toString(InputRole role) {
  switch (role) {
  case InputRole::Input:
    return "input";
  case InputRole::Parameter:
    return "param";
  case InputRole::Tangent:
    return "tangent";
  case InputRole::RngState:
    return "rng";
  }
  return "?";
}

} // namespace remat
