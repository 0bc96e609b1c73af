//===- StringUtil.cpp - Abseil string helpers for the core ----------------===//
//
// Part of remat.
//
//===----------------------------------------------------------------------===//

#include "StringUtil.h"

#include "absl/strings/str_format.h"

#include <array>
#include <cmath>

namespace remat {

std::string formatBytes(int64_t bytes) {
  static constexpr std::array<const char *, 6> kUnits = {"B",   "KiB", "MiB",
                                                         "GiB", "TiB", "PiB"};
  double amount = static_cast<double>(bytes);
  size_t unit = 0;
  while (std::fabs(amount) >= 1024 && unit + 1 < kUnits.size()) {
    amount /= 1024;
    ++unit;
  }
  if (amount == std::floor(amount))
    return absl::StrFormat("%.0f %s", amount, kUnits[unit]);
  return absl::StrFormat("%.3g %s", amount, kUnits[unit]);
}

} // namespace remat
