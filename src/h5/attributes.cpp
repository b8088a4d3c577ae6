#include "h5ad_sizer/h5/attributes.hpp"

#include <cstdint>
#include <cstring>
#include <deque>
#include <utility>

#include "h5ad_sizer/h5/little_endian.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer::h5 {
namespace {

// h5py's headers are a few hundred bytes, their continuation blocks as
// small; past these a header is left to HDF5 rather than copied here.
constexpr std::uint64_t kMaxBlockBytes = 1024 * 1024;
constexpr std::size_t kMaxBlocks = 64;

// What HDF5 hands out for a variable-length string is a C string: the text
// up to its first NUL.
std::string c_string(const std::string& text) { return text.substr(0, std::strlen(text.c_str())); }

}  // namespace

const AttributeReader::Header& AttributeReader::header_of(hid_t object) {
  if (m_header.object == object) return m_header;
  Header header;
  header.object = object;
  header.direct = read_header(object, header);
  m_header = std::move(header);
  return m_header;
}

// The prefix, its first block of messages, and the continuation blocks in
// the order their messages name them (as HDF5 loads them): every attribute
// message on the way, or false at anything this does not read.
bool AttributeReader::read_header(hid_t object, Header& header) {
  io::ByteSource* source = m_heap.source();
  if (source == nullptr) return false;
  const auto address = object_address(object);
  const Geometry& geometry = m_heap.geometry();
  const std::uint64_t size = source->size();
  const auto readable = [&](std::uint64_t at, std::uint64_t length) {
    return at <= UINT64_MAX - geometry.base && geometry.base + at <= size && length <= size - geometry.base - at &&
           length <= kMaxBlockBytes;
  };
  if (!address || !readable(*address, kHeaderPrefixV1Bytes)) return false;
  unsigned char prefix_bytes[kHeaderPrefixV1Bytes];
  source->read(geometry.base + *address, kHeaderPrefixV1Bytes, prefix_bytes);
  const auto prefix = header_prefix_v1(prefix_bytes);
  if (!prefix) return false;

  std::deque<io::ByteRange> blocks{{*address + kHeaderPrefixV1Bytes, prefix->first_block_bytes}};
  std::uint32_t left = prefix->messages;
  bool readable_here = true;
  while (!blocks.empty() && left > 0 && readable_here) {
    const io::ByteRange block = blocks.front();
    blocks.pop_front();
    if (header.blocks.size() >= kMaxBlocks || !readable(block.offset, block.length)) return false;
    std::vector<unsigned char>& bytes = header.blocks.emplace_back(static_cast<std::size_t>(block.length));
    if (!bytes.empty()) source->read(geometry.base + block.offset, bytes.size(), bytes.data());
    left -= for_each_message_v1(ByteView{bytes.data(), bytes.size()}, left, [&](const Message& message) {
      if (message.is(MessageType::attribute)) {
        // A shared attribute hides its name elsewhere: then it cannot be
        // said which attributes the object lacks.
        const auto attribute = attribute_message(message);
        if (attribute) header.attributes.push_back(*attribute);
        else readable_here = false;
      } else if (message.is(MessageType::attribute_info)) {
        readable_here = false;  // attributes may live in dense storage
      } else if (message.is(MessageType::continuation)) {
        const auto next = continuation_block(message, geometry);
        if (next) blocks.push_back(*next);
        else readable_here = false;
      }
    });
  }
  return readable_here;
}

bool AttributeReader::strings_of(const AttributeMessage& attribute, std::optional<std::vector<std::string>>& out) {
  const Geometry& geometry = m_heap.geometry();
  const auto space = dataspace_message(attribute.dataspace, geometry);
  if (!space) return false;
  // h5py writes [] as float64, and an empty bytes array as S1: no strings.
  if (space->elements == 0) {
    out = std::vector<std::string>{};
    return true;
  }
  if (attribute.datatype.size < 8) return false;
  const unsigned type_class = attribute.datatype.data[0] & 0x0f;
  const bool string_class = type_class == 3 || (type_class == 9 && (attribute.datatype.data[1] & 0x0f) == 1);
  if (!string_class) {
    out = std::nullopt;  // not a string: as HDF5's class check says
    return true;
  }
  const auto type = string_datatype(attribute.datatype);
  if (!type || space->elements > attribute.value.size / type->size) return false;
  const auto count = static_cast<std::size_t>(space->elements);
  std::vector<std::string> strings;
  strings.reserve(count);
  if (!type->variable) {
    for (std::size_t i = 0; i < count; ++i) {
      const auto* start = reinterpret_cast<const char*>(attribute.value.data + i * type->size);
      strings.emplace_back(start, strnlen(start, type->size));
    }
    out = std::move(strings);
    return true;
  }
  if (type->size != geometry.heap_reference_bytes()) return false;
  const ReferenceLayout layout{type->size, 0, geometry.sizeof_addr};
  std::vector<HeapReference> references;
  references.reserve(count);
  for (std::size_t i = 0; i < count; ++i) references.push_back(layout.at(attribute.value.data + i * type->size));
  std::vector<std::uint64_t> oversized;
  if (!m_heap.texts(references, {SIZE_MAX, SIZE_MAX}, strings, oversized) || !oversized.empty()) return false;
  for (std::string& text : strings) {
    if (text.find('\0') != std::string::npos) text = c_string(text);
  }
  out = std::move(strings);
  return true;
}

bool AttributeReader::has(hid_t object, const char* name) {
  const Header& header = header_of(object);
  if (!header.direct) return has_attribute(object, name);
  ++m_answered_directly;
  for (const AttributeMessage& attribute : header.attributes) {
    if (attribute.name == name) return true;
  }
  return false;
}

std::optional<std::vector<std::string>> AttributeReader::string_list(hid_t object, const char* name) {
  const Header& header = header_of(object);
  if (!header.direct) return string_list_attribute(object, name);
  for (const AttributeMessage& attribute : header.attributes) {
    if (attribute.name != name) continue;
    std::optional<std::vector<std::string>> out;
    if (!strings_of(attribute, out)) return string_list_attribute(object, name);
    ++m_answered_directly;
    return out;
  }
  ++m_answered_directly;
  return std::nullopt;
}

std::optional<std::string> AttributeReader::string(hid_t object, const char* name) {
  auto list = string_list(object, name);
  if (!list || list->size() != 1) return std::nullopt;
  return std::move(list->front());
}

}  // namespace h5ad_sizer::h5
