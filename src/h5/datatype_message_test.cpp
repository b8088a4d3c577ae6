#include "h5ad_sizer/h5/datatype_message.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace h5ad_sizer::h5 {
namespace {

using Bytes = std::vector<unsigned char>;

void put(Bytes& bytes, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) bytes.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

// A datatype message's first 8 bytes: version and class, 24 class bits, size.
Bytes head(unsigned version, unsigned type_class, std::uint32_t bits, std::uint32_t size) {
  Bytes out = {static_cast<unsigned char>(version << 4 | type_class)};
  put(out, bits, 3);
  put(out, size, 4);
  return out;
}

Bytes integer(std::uint32_t size, unsigned offset, unsigned precision, bool is_signed = true) {
  Bytes out = head(1, 0, is_signed ? 0x08 : 0, size);
  put(out, offset, 2);
  put(out, precision, 2);
  return out;
}

// IEEE binary64 as HDF5 writes it: sign bit 63, implied normalization,
// exponent at 52 (11 bits, bias 1023), mantissa at 0 (52 bits).
Bytes float64() {
  Bytes out = head(1, 1, 0x20 | 63 << 8, 8);
  put(out, 0, 2);
  put(out, 64, 2);
  out.insert(out.end(), {52, 11, 0, 52});
  put(out, 1023, 4);
  return out;
}

void name(Bytes& out, const std::string& text, bool padded) {
  out.insert(out.end(), text.begin(), text.end());
  out.push_back(0);
  if (padded) out.resize(out.size() + (8 - (text.size() + 1) % 8) % 8, 0);
}

// h5py's boolean: enum {FALSE, TRUE} over int8.
Bytes h5py_bool(const std::string& first = "FALSE") {
  Bytes out = head(1, 8, 2, 1);
  const Bytes base = integer(1, 0, 8);
  out.insert(out.end(), base.begin(), base.end());
  name(out, first, true);
  name(out, "TRUE", true);
  out.insert(out.end(), {0, 1});
  return out;
}

Bytes vlen_string() {
  Bytes out = head(1, 9, 0x01 | 1 << 8, 16);  // string, UTF-8
  const Bytes base = integer(1, 0, 8, false);
  out.insert(out.end(), base.begin(), base.end());
  return out;
}

// Version 1 compound members: name (padded), offset, 28 bytes of array
// description (none), the member's type.
void member(Bytes& out, const std::string& text, std::uint32_t offset, const Bytes& type) {
  name(out, text, true);
  put(out, offset, 4);
  out.resize(out.size() + 28, 0);
  out.insert(out.end(), type.begin(), type.end());
}

std::size_t checked(const Bytes& bytes) { return checked_datatype({bytes.data(), bytes.size()}).value_or(0); }

TEST(DatatypeMessage, AcceptsWhatH5pyWrites) {
  EXPECT_EQ(checked(integer(8, 0, 64)), 12u);
  EXPECT_EQ(checked(float64()), 20u);
  EXPECT_EQ(checked(head(1, 3, 0x10, 6)), 8u);  // S6, UTF-8
  EXPECT_EQ(checked(vlen_string()), 20u);
  const Bytes boolean = h5py_bool();
  EXPECT_EQ(checked(boolean), boolean.size());
  RecordLayout records;
  const auto info = datatype_info({boolean.data(), boolean.size()}, Geometry{}, records);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->numpy_name, "bool");
}

TEST(DatatypeMessage, RefusesWhatHdf5Refuses) {
  EXPECT_EQ(checked(integer(8, 64, 8)), 0u);   // offset past the size
  EXPECT_EQ(checked(integer(8, 0, 0)), 0u);    // no precision
  EXPECT_EQ(checked(integer(8, 60, 8)), 0u);   // offset + precision past the size
  EXPECT_EQ(checked(integer(8, 0, 16)), 0u);   // 48 of 64 bits unused: "unusually large"
  EXPECT_EQ(checked(integer(2, 0, 16)), 12u);
  Bytes version5 = integer(8, 0, 64);
  version5[0] = 5 << 4;
  EXPECT_EQ(checked(version5), 0u);
  Bytes no_size = integer(8, 0, 64);
  no_size[4] = 0;
  EXPECT_EQ(checked(no_size), 0u);
  Bytes cut = integer(8, 0, 64);
  cut.resize(10);
  EXPECT_EQ(checked(cut), 0u);  // cut short

  Bytes no_exponent = float64();
  no_exponent[13] = 0;
  EXPECT_EQ(checked(no_exponent), 0u);
  Bytes overlapping = float64();
  overlapping[14] = 40;  // the mantissa reaches into the exponent
  EXPECT_EQ(checked(overlapping), 0u);
  Bytes sign_in_exponent = float64();
  sign_in_exponent[2] = 55;
  EXPECT_EQ(checked(sign_in_exponent), 0u);

  EXPECT_EQ(checked(h5py_bool("")), 0u);  // an empty enum name
  Bytes wider_base = h5py_bool();
  wider_base[4] = 2;  // the enum 2 bytes, its base 1
  EXPECT_EQ(checked(wider_base), 0u);
}

TEST(DatatypeMessage, ChecksCompoundMembersAsHdf5Does) {
  const auto compound = [](const std::vector<std::pair<std::string, std::uint32_t>>& members, std::uint32_t size) {
    Bytes out = head(1, 6, static_cast<std::uint32_t>(members.size()), size);
    for (const auto& [text, offset] : members) member(out, text, offset, integer(4, 0, 32));
    return out;
  };
  const Bytes good = compound({{"a", 0}, {"b", 4}}, 8);
  EXPECT_EQ(checked(good), good.size());
  EXPECT_EQ(checked(compound({{"a", 0}, {"a", 4}}, 8)), 0u);  // a name twice
  EXPECT_EQ(checked(compound({{"a", 0}, {"b", 2}}, 8)), 0u);  // overlapping members
  EXPECT_EQ(checked(compound({{"a", 0}, {"b", 6}}, 8)), 0u);  // past the record's end
  EXPECT_EQ(checked(compound({}, 8)), 0u);                     // no members

  // Members out of offset order: listed by offset, as HDF5 lists them; a
  // string member shrinks the record in memory by 8 bytes.
  Bytes records = head(1, 6, 2, 24);
  member(records, "score", 16, float64());
  member(records, "name", 0, vlen_string());
  RecordLayout layout;
  const auto info = datatype_info({records.data(), records.size()}, Geometry{}, layout);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->numpy_name, "[('name', 'object'), ('score', 'float64')]");
  EXPECT_EQ(info->size, 16u);
  EXPECT_EQ(info->stored_size, 24u);
  EXPECT_EQ(layout.stride, 24u);
  EXPECT_EQ(layout.string_offsets.at("name"), 0u);
}

TEST(DatatypeMessage, LeavesOtherClassesToHdf5) {
  Bytes sequence = vlen_string();
  sequence[1] = 0x00;  // a variable-length sequence of bytes
  EXPECT_EQ(checked(sequence), 0u);
  EXPECT_EQ(checked(head(1, 7, 0, 8)), 0u);   // reference
  EXPECT_EQ(checked(head(1, 5, 0, 16)), 0u);  // opaque
}

}  // namespace
}  // namespace h5ad_sizer::h5
