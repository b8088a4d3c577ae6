#pragma once

#include <cstdint>
#include <string_view>

#include "h5ad_sizer/h5/strings.hpp"

// What Python objects cost in the process that runs anndata.read_h5ad. The
// figures are for 64-bit CPython 3.11 (Debian bookworm's, the reference
// environment); docs/memory-model.md gives the derivation of each.
namespace h5ad_sizer::python {

// sys.getsizeof of an empty ASCII str, and of an empty non-ASCII str
// (CPython <= 3.11 keep the legacy wstr fields; 3.12 is 8 and 16 bytes less).
inline constexpr std::uint64_t kAsciiStrHeader = 48;
inline constexpr std::uint64_t kWideStrHeader = 72;
// A pointer slot in a numpy object array or a Python list.
inline constexpr std::uint64_t kPointer = 8;
// A numeric scalar (int/float object) read from a 0-d dataset.
inline constexpr std::uint64_t kScalarObject = 32;

// Bytes one str object holds, including pymalloc's 16-byte rounding,
// for the UTF-8 text `utf8`.
std::uint64_t str_object_bytes(std::string_view utf8);
// The same for `length` ASCII characters.
std::uint64_t ascii_str_object_bytes(std::uint64_t length);
// An upper bound for a str of `utf8_length` bytes whose text we did not read.
std::uint64_t str_object_bytes_bound(std::uint64_t utf8_length);

// Memory of a numpy object array of `count` str objects whose text looks like
// `sample`: pointer slots plus the mean sampled object, scaled to `count`.
// With sampled lengths, the mean is their ASCII cost plus the surcharge that
// the sampled texts show for wider characters.
std::uint64_t string_array_bytes(std::uint64_t count, const h5::StringSample& sample);

// An Arrow large_string array of `count` strings whose lengths look like
// `sample`: int64 offsets, the UTF-8 bytes, and a validity bitmap.
std::uint64_t arrow_string_array_bytes(std::uint64_t count, const h5::StringSample& sample);

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
