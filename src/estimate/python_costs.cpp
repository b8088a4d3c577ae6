#include "h5ad_sizer/estimate/python_costs.hpp"

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer::python {
namespace {

// pymalloc serves objects up to 512 bytes from 16-byte size classes; larger
// ones come from malloc, whose chunk header and alignment add about 16.
std::uint64_t allocation(std::uint64_t object_bytes) {
  return object_bytes <= 512 ? roundup16(object_bytes) : roundup16(object_bytes + 16);
}

// Decodes enough UTF-8 to know the widest code point; CPython stores a str
// in 1, 2 or 4 bytes per character accordingly (PEP 393).
struct Shape {
  std::uint64_t characters = 0;
  std::uint32_t widest = 0;
};

Shape shape_of(std::string_view utf8) {
  Shape shape;
  for (std::size_t i = 0; i < utf8.size();) {
    const auto lead = static_cast<unsigned char>(utf8[i]);
    std::uint32_t code = lead;
    std::size_t length = 1;
    if (lead >= 0xF0) {
      code = lead & 0x07u;
      length = 4;
    } else if (lead >= 0xE0) {
      code = lead & 0x0Fu;
      length = 3;
    } else if (lead >= 0xC0) {
      code = lead & 0x1Fu;
      length = 2;
    }
    for (std::size_t k = 1; k < length && i + k < utf8.size(); ++k) {
      code = (code << 6) | (static_cast<unsigned char>(utf8[i + k]) & 0x3Fu);
    }
    if (code > shape.widest) shape.widest = code;
    ++shape.characters;
    i += length;
  }
  return shape;
}

}  // namespace

std::uint64_t str_object_bytes(std::string_view utf8, const StrHeaders& headers) {
  // Most strings are ASCII (barcodes, gene ids, encoding names): a byte a
  // character, nothing to decode.
  bool ascii = true;
  for (const char c : utf8) ascii &= static_cast<unsigned char>(c) < 0x80;
  if (ascii) return allocation(headers.ascii + utf8.size() + 1);
  const Shape shape = shape_of(utf8);
  if (shape.widest < 0x80) return allocation(headers.ascii + shape.characters + 1);
  const std::uint64_t width = shape.widest < 0x100 ? 1 : shape.widest < 0x10000 ? 2 : 4;
  return allocation(headers.wide + (shape.characters + 1) * width);
}

std::uint64_t str_object_bytes_bound(std::uint64_t utf8_length, const StrHeaders& headers) {
  // Every UTF-8 byte becomes at most one byte of CPython storage (a 4-byte
  // sequence becomes one 4-byte UCS-4 character, a 2-byte one at most 2).
  return allocation(checked_add(headers.wide + 4, utf8_length));
}

std::uint64_t ascii_str_object_bytes(std::uint64_t length, const StrHeaders& headers) {
  return allocation(checked_add(headers.ascii + 1, length));
}

std::uint64_t string_array_bytes(std::uint64_t count, const h5::StringSample& sample, const StrHeaders& headers) {
  if (count == 0) return 0;
  std::uint64_t texts = 0;         // exact cost of the strings whose text we read
  std::uint64_t texts_as_ascii = 0;  // what they would cost were they ASCII
  for (const auto& text : sample.texts) {
    texts = checked_add(texts, str_object_bytes(text, headers));
    texts_as_ascii = checked_add(texts_as_ascii, ascii_str_object_bytes(text.size(), headers));
  }
  for (auto length : sample.oversized_lengths) {
    texts = checked_add(texts, str_object_bytes_bound(length, headers));
    texts_as_ascii = checked_add(texts_as_ascii, ascii_str_object_bytes(length, headers));
  }
  const std::uint64_t read = sample.texts.size() + sample.oversized_lengths.size();
  std::uint64_t mean = 0;
  if (!sample.lengths.empty()) {
    // The many lengths give the ASCII cost; the few texts tell how much more
    // wider characters (Latin-1, UCS-2, UCS-4 storage) add on top.
    std::uint64_t as_ascii = 0;
    for (auto length : sample.lengths) as_ascii = checked_add(as_ascii, ascii_str_object_bytes(length, headers));
    const std::uint64_t n = sample.lengths.size();
    mean = (as_ascii + n - 1) / n;
    if (read > 0) mean += (texts - texts_as_ascii + read - 1) / read;
  } else {
    mean = read == 0 ? ascii_str_object_bytes(0, headers) : (texts + read - 1) / read;
  }
  return checked_mul(count, kPointer + mean);
}

std::uint64_t string_text_bytes(std::uint64_t count, const h5::StringSample& sample) {
  return h5::scaled_mean(count, sample, [](std::uint64_t length) { return length; });
}

std::uint64_t arrow_string_array_bytes(std::uint64_t count, const h5::StringSample& sample) {
  if (count == 0) return 0;
  const std::uint64_t text = string_text_bytes(count, sample);
  const std::uint64_t offsets = checked_mul(count + 1, 8);
  const std::uint64_t bitmap = (count + 7) / 8;
  return checked_add(checked_add(offsets, text), bitmap);
}

std::uint64_t string_dtype_array_bytes(std::uint64_t count, const h5::StringSample& sample) {
  constexpr std::uint64_t kElement = 16;
  constexpr std::uint64_t kInline = 15;
  constexpr std::uint64_t kArenaHeader = 8;
  constexpr double kArenaGrowth = 1.25;
  return h5::scaled_mean(count, sample, [](std::uint64_t length) {
    if (length <= kInline) return kElement;
    return checked_add(kElement, checked_scale(checked_add(length, kArenaHeader), kArenaGrowth));
  });
}

std::uint64_t unicode_array_bytes(std::uint64_t count, std::uint64_t width) {
  return checked_mul(checked_mul(count, width), 4);
}

std::uint64_t categorical_code_itemsize(std::uint64_t n_categories) {
  if (n_categories < 127) return 1;
  if (n_categories < 32767) return 2;
  if (n_categories < 2147483647) return 4;
  return 8;
}

std::uint64_t hash_table_bytes(std::uint64_t n) {
  if (n == 0) return 0;
  std::uint64_t buckets = 4;  // khash's minimum
  while (buckets * 77 < n * 100) buckets *= 2;
  return checked_mul(buckets, 16);
}

}  // namespace h5ad_sizer::python
