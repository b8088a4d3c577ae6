#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace h5ad_sizer {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

// Allocators hand out 16-byte granules (pymalloc's size classes, glibc's
// chunks): `n` rounded up to the next multiple of 16. No overflow check:
// callers pass object sizes, never file-derived totals.
inline constexpr std::uint64_t roundup16(std::uint64_t n) { return (n + 15) / 16 * 16; }

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

// ceil(bytes x factor), for a factor >= 0 (a multiplier, copies).
inline std::uint64_t checked_scale(std::uint64_t bytes, double factor) {
  const long double value = std::ceil(static_cast<long double>(bytes) * factor);
  if (!(value >= 0) || value >= 18446744073709551615.0L) throw std::overflow_error("size overflows 64 bits");
  return static_cast<std::uint64_t>(value);
}

// The smallest power of two >= n (1 for 0): the capacity of a buffer grown
// by doubling.
inline std::uint64_t pow2_at_least(std::uint64_t n) {
  std::uint64_t p = 1;
  while (p < n) {
    if (p > (UINT64_MAX >> 1)) throw std::overflow_error("size overflows 64 bits");
    p <<= 1;
  }
  return p;
}

}  // namespace h5ad_sizer
