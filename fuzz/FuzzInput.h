//===- FuzzInput.h - Decode fuzzer bytes into choices -----------*- C++ -*-===//
//
// Part of remat. A small reader over the fuzzer's bytes, so that the targets
// build with g++ too (the replay drivers in ctest) and do not depend on
// clang's FuzzedDataProvider. Past the end of the input every read returns
// zero: a short input still decodes to a complete (small) case.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_FUZZ_FUZZINPUT_H
#define REMAT_FUZZ_FUZZINPUT_H

#include <cstddef>
#include <cstdint>

namespace remat::fuzz {

class FuzzInput {
public:
  FuzzInput(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  /// A value in [0, bound); bound must be positive.
  uint32_t below(uint32_t bound) {
    uint32_t raw = byte();
    if (bound > 256)
      raw = raw << 8 | byte();
    return raw % bound;
  }

  bool flag() { return byte() & 1; }

  /// Eight bytes, little endian.
  uint64_t word() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value |= static_cast<uint64_t>(byte()) << (8 * i);
    return value;
  }

  bool exhausted() const { return pos_ >= size_; }

private:
  const uint8_t *data_;
  size_t size_;
  size_t pos_ = 0;
};

} // namespace remat::fuzz

#endif // REMAT_FUZZ_FUZZINPUT_H
