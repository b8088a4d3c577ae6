#include "h5ad_sizer/h5/object_header.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace h5ad_sizer::h5 {
namespace {

using Bytes = std::vector<unsigned char>;

void put(Bytes& bytes, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) bytes.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

void put_text(Bytes& bytes, const std::string& text, std::size_t padded_to) {
  bytes.insert(bytes.end(), text.begin(), text.end());
  bytes.resize(bytes.size() + (padded_to - text.size()), 0);
}

Bytes message(std::uint16_t type, const Bytes& body, std::uint8_t flags = 0) {
  Bytes out;
  put(out, type, 2);
  put(out, body.size(), 2);
  out.push_back(flags);
  put(out, 0, 3);
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

// A variable-length string datatype (class 9, string, UTF-8) as h5py writes
// it: 16 bytes a reference, then its base type (a one-byte string).
Bytes vlen_string_type() {
  Bytes type = {0x19, 0x01, 0x01, 0x00};
  put(type, 16, 4);
  const Bytes base = {0x13, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
  type.insert(type.end(), base.begin(), base.end());
  return type;
}

Bytes scalar_space_v1() { return {1, 0, 0, 0, 0, 0, 0, 0}; }

// Version 1: name, datatype and dataspace each padded to 8 bytes.
Bytes attribute_v1(const std::string& name, const Bytes& type, const Bytes& space, const Bytes& value) {
  Bytes body = {1, 0};
  put(body, name.size() + 1, 2);
  put(body, type.size(), 2);
  put(body, space.size(), 2);
  put_text(body, name, (name.size() + 1 + 7) / 8 * 8);
  Bytes padded_type = type;
  padded_type.resize((type.size() + 7) / 8 * 8, 0);
  body.insert(body.end(), padded_type.begin(), padded_type.end());
  Bytes padded_space = space;
  padded_space.resize((space.size() + 7) / 8 * 8, 0);
  body.insert(body.end(), padded_space.begin(), padded_space.end());
  body.insert(body.end(), value.begin(), value.end());
  return body;
}

TEST(ObjectHeader, CutsAVersion1AttributeIntoItsParts) {
  Bytes reference;
  put(reference, 4, 4);
  put(reference, 0x1234, 8);
  put(reference, 1, 4);
  const Bytes body = attribute_v1("encoding-type", vlen_string_type(), scalar_space_v1(), reference);
  const Bytes block = message(0x0c, body);
  std::vector<Message> seen;
  EXPECT_EQ(for_each_message_v1(ByteView{block.data(), block.size()}, 10, [&](const Message& m) { seen.push_back(m); }),
            1u);
  ASSERT_EQ(seen.size(), 1u);
  const auto attribute = attribute_message(seen[0]);
  ASSERT_TRUE(attribute);
  EXPECT_EQ(attribute->name, "encoding-type");
  const auto type = string_datatype(attribute->datatype);
  ASSERT_TRUE(type);
  EXPECT_TRUE(type->variable);
  EXPECT_EQ(type->size, 16u);
  const auto space = dataspace_message(attribute->dataspace, Geometry{});
  ASSERT_TRUE(space);
  EXPECT_TRUE(space->dims.empty());
  EXPECT_EQ(space->elements, 1u);
  ASSERT_GE(attribute->value.size, 16u);
  EXPECT_EQ(std::memcmp(attribute->value.data, reference.data(), 16), 0);
}

TEST(ObjectHeader, RefusesAttributesItCannotRead) {
  const Bytes body = attribute_v1("a", vlen_string_type(), scalar_space_v1(), Bytes(16, 0));
  // Shared: the body is a reference to the message, not the message.
  EXPECT_FALSE(attribute_message(Message{0x0c, 0x02, {body.data(), body.size()}}));
  // Another version.
  Bytes v4 = body;
  v4[0] = 4;
  EXPECT_FALSE(attribute_message(Message{0x0c, 0, {v4.data(), v4.size()}}));
  // Version 2 with a shared datatype.
  Bytes shared_type = body;
  shared_type[0] = 2;
  shared_type[1] = 1;
  EXPECT_FALSE(attribute_message(Message{0x0c, 0, {shared_type.data(), shared_type.size()}}));
  // A name shorter than its stored length says (HDF5: "attribute name has
  // different length than stored length").
  Bytes short_name = body;
  short_name[2] = 5;
  EXPECT_FALSE(attribute_message(Message{0x0c, 0, {short_name.data(), short_name.size()}}));
  // Parts claiming more than the body holds.
  Bytes cut(body.begin(), body.begin() + 20);
  EXPECT_FALSE(attribute_message(Message{0x0c, 0, {cut.data(), cut.size()}}));
  // Not an attribute at all.
  EXPECT_FALSE(attribute_message(Message{0x03, 0, {body.data(), body.size()}}));
}

TEST(ObjectHeader, StopsAtAMessageThatRunsPastItsBlockAndAtTheCount) {
  Bytes block = message(0x01, scalar_space_v1());
  const Bytes second = message(0x01, scalar_space_v1());
  block.insert(block.end(), second.begin(), second.end());
  int seen = 0;
  EXPECT_EQ(for_each_message_v1(ByteView{block.data(), block.size()}, 1, [&](const Message&) { ++seen; }), 1u);
  EXPECT_EQ(for_each_message_v1(ByteView{block.data(), block.size() - 1}, 5, [&](const Message&) { ++seen; }), 1u);
  EXPECT_EQ(for_each_message_v1(ByteView{block.data(), 7}, 5, [&](const Message&) { ++seen; }), 0u);
  EXPECT_EQ(seen, 2);
}

TEST(ObjectHeader, ReadsDataspacesOfBothVersions) {
  const Geometry geometry;
  Bytes simple_v1 = {1, 2, 0, 0, 0, 0, 0, 0};
  put(simple_v1, 3, 8);
  put(simple_v1, 5, 8);
  auto space = dataspace_message({simple_v1.data(), simple_v1.size()}, geometry);
  ASSERT_TRUE(space);
  EXPECT_EQ(space->dims, (std::vector<std::uint64_t>{3, 5}));
  EXPECT_EQ(space->elements, 15u);

  const Bytes null_v2 = {2, 0, 0, 2};
  space = dataspace_message({null_v2.data(), null_v2.size()}, geometry);
  ASSERT_TRUE(space);
  EXPECT_TRUE(space->null);
  EXPECT_EQ(space->elements, 0u);

  const Bytes scalar_v2 = {2, 0, 0, 0};
  space = dataspace_message({scalar_v2.data(), scalar_v2.size()}, geometry);
  ASSERT_TRUE(space);
  EXPECT_EQ(space->elements, 1u);

  Bytes overflowing = {2, 2, 0, 1};
  put(overflowing, std::uint64_t{1} << 40, 8);
  put(overflowing, std::uint64_t{1} << 40, 8);
  EXPECT_FALSE(dataspace_message({overflowing.data(), overflowing.size()}, geometry));

  Bytes short_dims = {2, 3, 0, 1};
  put(short_dims, 1, 8);
  EXPECT_FALSE(dataspace_message({short_dims.data(), short_dims.size()}, geometry));

  const Bytes too_many = {2, 33, 0, 1};
  EXPECT_FALSE(dataspace_message({too_many.data(), too_many.size()}, geometry));

  // As HDF5 refuses them: a scalar with dimensions; a dimension over its
  // maximum (flag bit 0: maximum dimensions follow); another version.
  Bytes scalar_with_rank = {2, 1, 0, 0};
  put(scalar_with_rank, 4, 8);
  EXPECT_FALSE(dataspace_message({scalar_with_rank.data(), scalar_with_rank.size()}, geometry));
  Bytes over_max = {2, 1, 1, 1};
  put(over_max, 10, 8);
  put(over_max, 5, 8);
  EXPECT_FALSE(dataspace_message({over_max.data(), over_max.size()}, geometry));
  Bytes unlimited = {2, 1, 1, 1};
  put(unlimited, 10, 8);
  put(unlimited, UINT64_MAX, 8);
  EXPECT_TRUE(dataspace_message({unlimited.data(), unlimited.size()}, geometry));
  const Bytes version3 = {3, 0, 0, 0};
  EXPECT_FALSE(dataspace_message({version3.data(), version3.size()}, geometry));
}

TEST(ObjectHeader, TellsStringTypesFromOthers) {
  const Bytes fixed = {0x13, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00};
  auto type = string_datatype({fixed.data(), fixed.size()});
  ASSERT_TRUE(type);
  EXPECT_FALSE(type->variable);
  EXPECT_EQ(type->size, 6u);
  const Bytes vlen = vlen_string_type();
  EXPECT_TRUE(string_datatype({vlen.data(), vlen.size()}));
  Bytes sequence = vlen;
  sequence[1] = 0x00;  // a variable-length sequence, not a string
  EXPECT_FALSE(string_datatype({sequence.data(), sequence.size()}));
  const Bytes integer = {0x10, 0x08, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00};
  EXPECT_FALSE(string_datatype({integer.data(), integer.size()}));
  EXPECT_FALSE(string_datatype({fixed.data(), 7}));
}

TEST(ObjectHeader, ReadsThePrefixContinuationsSymbolTablesAndLayouts) {
  unsigned char prefix[16] = {1, 0, 5, 0, 1, 0, 0, 0, 0x20, 0x01, 0, 0, 0, 0, 0, 0};
  const auto parsed = header_prefix_v1(prefix);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->messages, 5u);
  EXPECT_EQ(parsed->first_block_bytes, 0x120u);
  const unsigned char v2[16] = {'O', 'H', 'D', 'R', 2};
  EXPECT_FALSE(header_prefix_v1(v2));

  const Geometry geometry;
  Bytes pair;
  put(pair, 4096, 8);
  put(pair, 512, 8);
  const auto block = continuation_block(Message{0x10, 0, {pair.data(), pair.size()}}, geometry);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->offset, 4096u);
  EXPECT_EQ(block->length, 512u);
  EXPECT_FALSE(continuation_block(Message{0x10, 0, {pair.data(), 15}}, geometry));
  const auto table = symbol_table(Message{0x11, 0, {pair.data(), pair.size()}}, geometry);
  ASSERT_TRUE(table);
  EXPECT_EQ(table->btree, 4096u);
  EXPECT_EQ(table->local_heap, 512u);

}

TEST(ObjectHeader, ReadsLayoutsOfVersion3) {
  const Geometry geometry;
  Bytes contiguous = {3, 1};
  put(contiguous, 800, 8);
  put(contiguous, 1600, 8);
  auto layout = layout_message(Message{0x08, 0, {contiguous.data(), contiguous.size()}}, geometry);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->kind, DataLayout::Kind::contiguous);
  EXPECT_EQ(layout->address, 800u);
  EXPECT_EQ(layout->size, 1600u);

  Bytes compact = {3, 0, 4, 0, 'a', 'b', 'c', 'd'};
  layout = layout_message(Message{0x08, 0, {compact.data(), compact.size()}}, geometry);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->kind, DataLayout::Kind::compact);
  EXPECT_EQ(layout->size, 4u);
  EXPECT_FALSE(layout_message(Message{0x08, 0, {compact.data(), 7}}, geometry));  // data cut short

  Bytes chunked = {3, 2, 3};
  put(chunked, 4096, 8);
  put(chunked, 100, 4);
  put(chunked, 7, 4);
  put(chunked, 8, 4);  // the element size
  layout = layout_message(Message{0x08, 0, {chunked.data(), chunked.size()}}, geometry);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->kind, DataLayout::Kind::chunked);
  EXPECT_EQ(layout->chunk, (std::vector<std::uint64_t>{100, 7}));
  EXPECT_EQ(layout->chunk_element_bytes, 8u);
  EXPECT_FALSE(layout_message(Message{0x08, 0, {chunked.data(), chunked.size() - 1}}, geometry));

  Bytes version4 = contiguous;
  version4[0] = 4;
  EXPECT_FALSE(layout_message(Message{0x08, 0, {version4.data(), version4.size()}}, geometry));
}

TEST(ObjectHeader, ListsTheFiltersOfAPipeline) {
  // Version 1: deflate (level 4: one value, padded) and shuffle (one value).
  Bytes v1 = {1, 2, 0, 0, 0, 0, 0, 0};
  put(v1, 1, 2);
  put(v1, 8, 2);
  put(v1, 0, 2);
  put(v1, 1, 2);
  put_text(v1, "deflate", 8);
  put(v1, 4, 4);
  put(v1, 0, 4);
  put(v1, 2, 2);
  put(v1, 0, 2);
  put(v1, 0, 2);
  put(v1, 1, 2);
  put(v1, 4, 4);
  put(v1, 0, 4);
  auto ids = filter_ids(Message{0x0b, 0, {v1.data(), v1.size()}});
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<int>{1, 2}));
  EXPECT_FALSE(filter_ids(Message{0x0b, 0, {v1.data(), v1.size() - 4}}));
  // Version 2: lzf (32000, named) then deflate (unnamed, no padding).
  Bytes v2 = {2, 2};
  put(v2, 32000, 2);
  put(v2, 4, 2);
  put(v2, 0, 2);
  put(v2, 0, 2);
  put_text(v2, "lzf", 4);
  put(v2, 1, 2);
  put(v2, 0, 2);
  put(v2, 1, 2);
  put(v2, 6, 4);
  ids = filter_ids(Message{0x0b, 0, {v2.data(), v2.size()}});
  ASSERT_TRUE(ids);
  EXPECT_EQ(*ids, (std::vector<int>{32000, 1}));
}

}  // namespace
}  // namespace h5ad_sizer::h5
