#pragma once

#include <cstdint>
#include <string_view>

#include "h5ad_sizer/h5/strings.hpp"

// What Python objects cost in the process that runs anndata.read_h5ad. The
// figures are for 64-bit CPython 3.11 (Debian bookworm's, the reference
// environment); docs/memory-model.md gives the derivation of each.
namespace h5ad_sizer::python {

// A str object's bytes before its characters: an ASCII one (sys.getsizeof
// of "" less its terminator), and one stored at 1, 2 or 4 bytes a character
// beyond ASCII. CPython <= 3.11 keep the legacy wstr fields; 3.12 dropped
// them. Measured with sys.getsizeof of "a" * n (n = 0..20), "\u00e9" * n
// (n = 2..20; one such character is a cached singleton that also holds its
// UTF-8) and "\u4e2d" * n (n = 1..20): Debian's 3.11.2 gave 49 + n,
// 72 + (n + 1) and 72 + 2 (n + 1); the 3.13.5 of bench/runtimes 41 + n,
// 56 + (n + 1) and 56 + 2 (n + 1).
struct StrHeaders {
  std::uint64_t ascii = 0;
  std::uint64_t wide = 0;
};
inline constexpr StrHeaders kCPython311{48, 72};
inline constexpr StrHeaders kCPython313{40, 56};
// A pointer slot in a numpy object array or a Python list.
inline constexpr std::uint64_t kPointer = 8;
// A numeric scalar (int/float object) read from a 0-d dataset.
inline constexpr std::uint64_t kScalarObject = 32;

// Bytes one str object holds, including pymalloc's 16-byte rounding,
// for the UTF-8 text `utf8`.
std::uint64_t str_object_bytes(std::string_view utf8, const StrHeaders& headers = kCPython311);
// The same for `length` ASCII characters.
std::uint64_t ascii_str_object_bytes(std::uint64_t length, const StrHeaders& headers = kCPython311);
// An upper bound for a str of `utf8_length` bytes whose text we did not read.
std::uint64_t str_object_bytes_bound(std::uint64_t utf8_length, const StrHeaders& headers = kCPython311);

// Memory of a numpy object array of `count` str objects whose text looks like
// `sample`: pointer slots plus the mean sampled object, scaled to `count`.
// With sampled lengths, the mean is their ASCII cost plus the surcharge that
// the sampled texts show for wider characters.
std::uint64_t string_array_bytes(std::uint64_t count, const h5::StringSample& sample,
                                 const StrHeaders& headers = kCPython311);

// The UTF-8 bytes of `count` strings whose lengths look like `sample`.
std::uint64_t string_text_bytes(std::uint64_t count, const h5::StringSample& sample);

// An Arrow large_string array of `count` strings whose lengths look like
// `sample`: int64 offsets, the UTF-8 bytes, and a validity bitmap.
std::uint64_t arrow_string_array_bytes(std::uint64_t count, const h5::StringSample& sample);

// A numpy StringDType array of `count` such strings: 16 bytes an element,
// which holds a string of up to 15 bytes itself; a longer one goes to the
// array's arena with a size header. Measured with VmRSS around
// `objects.astype(StringDType())`, 400 000 strings of one length, a fresh
// process each (numpy 2.3.5; bench/accuracy/string_buffers.py): 16.0 bytes
// a string up to 15 bytes, then 16 + 0.98-1.18 x (L + 8) from 16 to 300
// bytes over two runs: 1.25 bounds it.
std::uint64_t string_dtype_array_bytes(std::uint64_t count, const h5::StringSample& sample);

// numpy bytes of a fixed-width 'S' array turned into unicode 'U' by
// astype(str): four bytes per character.
std::uint64_t unicode_array_bytes(std::uint64_t count, std::uint64_t width);

// pandas stores categorical codes in the smallest signed type that holds the
// number of categories (pandas.core.dtypes.cast.coerce_indexer_dtype).
std::uint64_t categorical_code_itemsize(std::uint64_t n_categories);

// A pandas hash table (khash) over `n` keys: 16-byte buckets, power-of-two
// count, at most 77 % full. pandas builds one for an Index whose uniqueness
// is checked, and keeps it.
std::uint64_t hash_table_bytes(std::uint64_t n);

}  // namespace h5ad_sizer::python
