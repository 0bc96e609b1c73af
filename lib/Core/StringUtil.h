//===- StringUtil.h - Abseil string helpers for the core --------*- C++ -*-===//
//
// Part of remat. Debian's Abseil is built with its own absl::string_view (not
// an alias of std::string_view), so the core's std::string_view spellings are
// bridged here before they reach absl::StrCat/StrJoin.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_CORE_STRINGUTIL_H
#define REMAT_LIB_CORE_STRINGUTIL_H

#include "absl/strings/string_view.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace remat {

inline absl::string_view asAbsl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}
inline std::string_view asStd(absl::string_view text) {
  return std::string_view(text.data(), text.size());
}

/// "64 MiB", "1.5 GiB", "512 B": byte counts in reasons and errors.
std::string formatBytes(int64_t bytes);

} // namespace remat

#endif // REMAT_LIB_CORE_STRINGUTIL_H
