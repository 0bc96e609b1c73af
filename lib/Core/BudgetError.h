//===- BudgetError.h - Errors for a budget no plan meets --------*- C++ -*-===//
//
// Part of remat.
//
// A strategy that cannot meet a memory budget returns ResourceExhausted with
// a message in activation figures; the smallest activation peak it reaches
// (or proves needed) also travels as a payload, so that planRematerialization
// can restate it for a total budget without parsing the message.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CORE_BUDGETERROR_H
#define REMAT_LIB_CORE_BUDGETERROR_H

#include "StringUtil.h"

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/types/optional.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace remat {

inline constexpr std::string_view kSmallestPeakPayload =
    "remat/smallest-activation-peak-bytes";

/// ResourceExhausted with `message`, carrying `smallestPeak` (bytes).
inline absl::Status infeasibleBudgetError(std::string_view message,
                                          int64_t smallestPeak) {
  absl::Status status = absl::ResourceExhaustedError(asAbsl(message));
  status.SetPayload(asAbsl(kSmallestPeakPayload),
                    absl::Cord(std::to_string(smallestPeak)));
  return status;
}

/// The smallest activation peak an infeasible-budget error carries.
inline std::optional<int64_t> smallestPeakOf(const absl::Status &status) {
  auto payload =
      status.GetPayload(asAbsl(kSmallestPeakPayload));
  int64_t bytes = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &bytes))
    return std::nullopt;
  return bytes;
}

} // namespace remat

#endif // REMAT_LIB_CORE_BUDGETERROR_H
