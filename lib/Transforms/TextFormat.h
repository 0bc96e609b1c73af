//===- TextFormat.h - Numbers as the passes print them ----------*- C++ -*-===//
//
// Part of remat. Private to lib/Transforms: one spelling of byte counts for
// the text report and the progress line.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TRANSFORMS_TEXTFORMAT_H
#define REMAT_LIB_TRANSFORMS_TEXTFORMAT_H

#include <cstdint>
#include <string>

namespace remat {

/// "512 B", "64.0 MiB": one decimal, binary units, so columns stay readable.
std::string humanBytes(int64_t bytes);

} // namespace remat

#endif // REMAT_LIB_TRANSFORMS_TEXTFORMAT_H
