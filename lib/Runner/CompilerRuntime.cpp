//===- CompilerRuntime.cpp - libcalls LLVM's code generator may emit ------===//
//
// Part of remat. See include/remat/Runner/CompilerRuntime.h.
//
//===----------------------------------------------------------------------===//

#include "remat/Runner/CompilerRuntime.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

namespace remat {
namespace compiler_rt {

uint16_t truncateToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) // NaN: keep sign, set quiet bit
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);
  // Round to nearest, ties to even: add 0x7fff plus the lowest kept bit.
  // A carry into the exponent rounds up to the next binade or to infinity.
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

uint16_t truncateToBF16(double value) {
  llvm::APFloat converted(value);
  bool losesInfo = false;
  converted.convert(llvm::APFloat::BFloat(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  if (converted.isNaN()) // APFloat keeps a signaling NaN's payload as is
    return static_cast<uint16_t>(
        converted.bitcastToAPInt().getZExtValue() | 0x0040u);
  return static_cast<uint16_t>(converted.bitcastToAPInt().getZExtValue());
}

namespace {

/// The bf16 result goes back in the low 16 bits of the floating-point
/// return register: a float whose bit pattern is the zero-extended bf16.
float asReturnRegister(uint16_t bf16) {
  uint32_t bits = bf16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

float truncsfbf2(float value) {
  return asReturnRegister(truncateToBF16(value));
}

float truncdfbf2(double value) {
  return asReturnRegister(truncateToBF16(value));
}

} // namespace

llvm::ArrayRef<Symbol> getSymbols() {
  static const Symbol symbols[] = {
      {"__truncsfbf2", reinterpret_cast<void *>(&truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&truncdfbf2)},
  };
  return symbols;
}

} // namespace compiler_rt
} // namespace remat
