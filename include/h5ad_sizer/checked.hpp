#pragma once

#include <cstdint>
#include <stdexcept>

namespace h5ad_sizer {

// Sizes come from files we do not trust: arithmetic on them throws
// std::overflow_error instead of wrapping around. The reader turns that into
// an "invalid h5ad" error naming the element.
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw std::overflow_error("size overflows 64 bits");
  return out;
}

inline std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) throw std::overflow_error("size overflows 64 bits");
  return out;
}

}  // namespace h5ad_sizer
