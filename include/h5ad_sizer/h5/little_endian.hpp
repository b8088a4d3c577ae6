#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace h5ad_sizer::h5 {

// The unsigned integer of `width` bytes (at most 8) stored little-endian at
// `bytes`, as HDF5 writes every address, length and count in its format.
// The common widths load in one move on little-endian hosts: a file's
// string references are decoded this way by the hundred thousand.
inline std::uint64_t little_endian(const unsigned char* bytes, std::size_t width) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (width == 8) {
    std::uint64_t value;
    std::memcpy(&value, bytes, 8);
    return value;
  }
  if (width == 4) {
    std::uint32_t value;
    std::memcpy(&value, bytes, 4);
    return value;
  }
#endif
  std::uint64_t value = 0;
  for (std::size_t i = width; i-- > 0;) value = value << 8 | bytes[i];
  return value;
}

}  // namespace h5ad_sizer::h5
