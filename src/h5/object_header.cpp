#include "h5ad_sizer/h5/object_header.hpp"

#include <cstring>

#include "h5ad_sizer/h5/little_endian.hpp"

namespace h5ad_sizer::h5 {
namespace {

std::uint64_t u16(const unsigned char* p) { return little_endian(p, 2); }
std::uint64_t u32(const unsigned char* p) { return little_endian(p, 4); }

// Dimensions past this are not HDF5's (H5S_MAX_RANK).
constexpr std::size_t kMaxRank = 32;

}  // namespace

std::optional<HeaderPrefixV1> header_prefix_v1(const unsigned char* prefix) {
  if (prefix[0] != 1) return std::nullopt;
  HeaderPrefixV1 out;
  out.messages = static_cast<std::uint32_t>(u16(prefix + 2));
  out.first_block_bytes = u32(prefix + 8);
  return out;
}

std::optional<io::ByteRange> continuation_block(const Message& message, const Geometry& geometry) {
  if (!message.is(MessageType::continuation) || message.body.size < geometry.sizeof_addr + geometry.sizeof_size) {
    return std::nullopt;
  }
  const unsigned char* p = message.body.data;
  return io::ByteRange{little_endian(p, geometry.sizeof_addr),
                       little_endian(p + geometry.sizeof_addr, geometry.sizeof_size)};
}

std::optional<SymbolTable> symbol_table(const Message& message, const Geometry& geometry) {
  if (!message.is(MessageType::symbol_table) || message.body.size < 2 * geometry.sizeof_addr) return std::nullopt;
  const unsigned char* p = message.body.data;
  return SymbolTable{little_endian(p, geometry.sizeof_addr), little_endian(p + geometry.sizeof_addr, geometry.sizeof_addr)};
}

// Version, then (version 1) a reserved byte or (2, 3) flags saying whether
// the datatype and dataspace are shared; the sizes of the name, datatype and
// dataspace (2 bytes each); version 3 an encoding byte for the name; then
// the three, each padded to 8 bytes in version 1, and the value. As HDF5
// decodes it (H5O__attr_decode): a known version and flags, a name exactly
// as long as its size says, every part inside the message.
std::optional<AttributeMessage> attribute_message(const Message& message) {
  const ByteView body = message.body;
  if (!message.is(MessageType::attribute) || message.shared() || body.size < 8) return std::nullopt;
  const unsigned version = body.data[0];
  if (version < 1 || version > 3) return std::nullopt;
  if (version >= 2 && body.data[1] != 0) return std::nullopt;  // shared parts (bits 0, 1), or unknown flags
  const auto padded = [&](std::uint64_t n) { return version == 1 ? (n + 7) / 8 * 8 : n; };
  const std::uint64_t name_bytes = u16(body.data + 2);
  const std::uint64_t datatype_bytes = u16(body.data + 4);
  const std::uint64_t dataspace_bytes = u16(body.data + 6);
  const std::uint64_t name_at = version == 3 ? 9 : 8;
  const std::uint64_t datatype_at = name_at + padded(name_bytes);
  const std::uint64_t dataspace_at = datatype_at + padded(datatype_bytes);
  const std::uint64_t value_at = dataspace_at + padded(dataspace_bytes);
  if (name_bytes == 0 || value_at > body.size) return std::nullopt;
  const auto* name = reinterpret_cast<const char*>(body.data + name_at);
  if (strnlen(name, name_bytes) + 1 != name_bytes) return std::nullopt;  // "different length than stored"
  AttributeMessage out;
  out.name = std::string_view(name, name_bytes - 1);
  out.datatype = {body.data + datatype_at, datatype_bytes};
  out.dataspace = {body.data + dataspace_at, dataspace_bytes};
  out.value = {body.data + value_at, body.size - value_at};
  return out;
}

// Version 1: version, rank, flags, 5 reserved bytes, then the dimensions
// (a rank of 0 is a scalar). Version 2: version, rank, flags, a type (0
// scalar, 1 simple, 2 null), then the dimensions. Maximum dimensions follow
// when flag bit 0 is set. As HDF5 decodes it (H5O__sdspace_decode): a known
// version, at most 32 dimensions, none for a scalar or null one, none
// larger than its maximum.
std::optional<Dataspace> dataspace_message(ByteView body, const Geometry& geometry) {
  if (body.size < 4) return std::nullopt;
  const unsigned version = body.data[0];
  const std::size_t rank = body.data[1];
  const unsigned flags = body.data[2];
  if ((version != 1 && version != 2) || rank > kMaxRank) return std::nullopt;
  const std::size_t dims_at = version == 1 ? 8 : 4;
  const std::size_t lists = (flags & 0x01) != 0 ? 2 : 1;
  if (body.size < dims_at || (body.size - dims_at) / geometry.sizeof_size < rank * lists) return std::nullopt;
  Dataspace out;
  if (version == 2) {
    const unsigned type = body.data[3];
    if (type > 2 || (type != 1 && rank > 0)) return std::nullopt;
    if (type == 2) {
      out.null = true;
      out.elements = 0;
      return out;
    }
    if (type == 0) return out;
  }
  const std::size_t max_at = dims_at + rank * geometry.sizeof_size;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::uint64_t dim = little_endian(body.data + dims_at + i * geometry.sizeof_size, geometry.sizeof_size);
    if (lists == 2) {
      const std::uint64_t max = little_endian(body.data + max_at + i * geometry.sizeof_size, geometry.sizeof_size);
      const bool unlimited = geometry.sizeof_size < 8 ? max == (std::uint64_t{1} << (8 * geometry.sizeof_size)) - 1
                                                      : max == UINT64_MAX;
      if (!unlimited && dim > max) return std::nullopt;
    }
    if (dim != 0 && out.elements > UINT64_MAX / dim) return std::nullopt;
    out.elements *= dim;
    out.dims.push_back(dim);
  }
  return out;
}

// Class and version in the first byte, 3 bytes of class bits, the element
// size (4 bytes), then the class's properties. A variable-length type's
// class bits 0-3 say sequence (0) or string (1), bits 8-11 the character
// set; a fixed-width string's bits 4-7 are its character set.
bool is_string_datatype(ByteView body) {
  if (body.size < 8) return false;
  const unsigned type_class = body.data[0] & 0x0f;
  return type_class == 3 || (type_class == 9 && (body.data[1] & 0x0f) == 1);
}

std::optional<StringDatatype> string_datatype(ByteView body) {
  if (!is_string_datatype(body)) return std::nullopt;
  const std::size_t size = u32(body.data + 4);
  if (size == 0) return std::nullopt;
  const bool variable = (body.data[0] & 0x0f) == 9;
  return StringDatatype{variable, size, variable ? body.data[2] & 0x0fu : body.data[1] >> 4u};
}

// Version 3, then the class: 0 compact (the data's size, 2 bytes, and the
// data), 1 contiguous (address and size), 2 chunked (the number of
// dimensions plus one, the chunk index's address, then 4 bytes a dimension,
// the last one the element size).
std::optional<DataLayout> layout_message(const Message& message, const Geometry& geometry) {
  const ByteView body = message.body;
  if (!message.is(MessageType::layout) || message.shared() || body.size < 2 || body.data[0] != 3) return std::nullopt;
  DataLayout out;
  const unsigned char* p = body.data + 2;
  const std::size_t left = body.size - 2;
  switch (body.data[1]) {
    case 0:
      if (left < 2) return std::nullopt;
      out.kind = DataLayout::Kind::compact;
      out.size = u16(p);
      if (out.size > left - 2) return std::nullopt;
      return out;
    case 1:
      if (left < geometry.sizeof_addr + geometry.sizeof_size) return std::nullopt;
      out.kind = DataLayout::Kind::contiguous;
      out.address = little_endian(p, geometry.sizeof_addr);
      if (geometry.sizeof_addr < 8 && out.address == (std::uint64_t{1} << (8 * geometry.sizeof_addr)) - 1) {
        out.address = UINT64_MAX;  // all ones: undefined, whatever the width
      }
      out.size = little_endian(p + geometry.sizeof_addr, geometry.sizeof_size);
      return out;
    case 2: {
      if (left < 1 + geometry.sizeof_addr) return std::nullopt;
      const std::size_t dimensions = p[0];
      if (dimensions < 2 || dimensions > kMaxRank + 1 || (left - 1 - geometry.sizeof_addr) / 4 < dimensions) {
        return std::nullopt;
      }
      out.kind = DataLayout::Kind::chunked;
      out.address = little_endian(p + 1, geometry.sizeof_addr);
      for (std::size_t d = 0; d + 1 < dimensions; ++d) out.chunk.push_back(u32(p + 1 + geometry.sizeof_addr + 4 * d));
      out.chunk_element_bytes = u32(p + 1 + geometry.sizeof_addr + 4 * (dimensions - 1));
      // HDF5 refuses a chunk dimension of 0 (H5O__layout_decode).
      if (out.chunk_element_bytes == 0) return std::nullopt;
      for (const std::uint64_t d : out.chunk) {
        if (d == 0) return std::nullopt;
      }
      return out;
    }
    default:
      return std::nullopt;
  }
}

// Version, the number of filters, (version 1) 6 reserved bytes; then each
// filter: its id, (version 1, or an id of 256 and over) the length of its
// name, flags, the number of client values, the name (version 1: padded to
// 8 bytes), the values (4 bytes each; version 1 pads an odd count).
std::optional<std::vector<int>> filter_ids(const Message& message) {
  const ByteView body = message.body;
  if (!message.is(MessageType::filter_pipeline) || message.shared() || body.size < 2) return std::nullopt;
  const unsigned version = body.data[0];
  const std::size_t count = body.data[1];
  if ((version != 1 && version != 2) || count > 32) return std::nullopt;
  std::size_t at = version == 1 ? 8 : 2;
  std::vector<int> ids;
  for (std::size_t i = 0; i < count; ++i) {
    if (body.size < at + 2) return std::nullopt;
    const auto id = static_cast<int>(u16(body.data + at));
    at += 2;
    std::uint64_t name_bytes = 0;
    if (version == 1 || id >= 256) {
      if (body.size < at + 2) return std::nullopt;
      name_bytes = u16(body.data + at);
      at += 2;
    }
    if (body.size < at + 4) return std::nullopt;
    const std::uint64_t values = u16(body.data + at + 2);
    at += 4;
    const std::uint64_t skip = (version == 1 ? (name_bytes + 7) / 8 * 8 : name_bytes) +
                               4 * (version == 1 ? (values + 1) / 2 * 2 : values);
    if (skip > body.size - at) return std::nullopt;
    at += skip;
    ids.push_back(id);
  }
  return ids;
}

}  // namespace h5ad_sizer::h5
