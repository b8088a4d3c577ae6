#include "h5ad_sizer/h5/attributes.hpp"

#include <cstdint>
#include <cstring>
#include <utility>

#include "h5ad_sizer/h5/datatype_message.hpp"
#include "h5ad_sizer/h5/little_endian.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer::h5 {
namespace {

// What HDF5 hands out for a variable-length string is a C string: the text
// up to its first NUL.
std::string c_string(const std::string& text) { return text.substr(0, std::strlen(text.c_str())); }

}  // namespace

std::optional<std::uint64_t> AttributeReader::address_of(hid_t object) {
  if (object != m_last_object) {
    m_last_object = object;
    m_last_address = m_heap.source() != nullptr ? object_address(object) : std::nullopt;
  }
  return m_last_address;
}

// Whether HDF5 decodes the attribute without error: its datatype and
// dataspace, and a value as large as they make it.
bool AttributeReader::decodable(const AttributeMessage& attribute) const {
  const auto type = checked_datatype(attribute.datatype);
  const auto space = dataspace_message(attribute.dataspace, m_heap.geometry());
  if (!type || !space) return false;
  const std::uint64_t element = little_endian(attribute.datatype.data + 4, 4);
  return space->elements <= attribute.value.size / element;
}

AttributeReader::Found AttributeReader::find(std::uint64_t address, const char* name, AttributeMessage& out) {
  const ObjectHeader* header = m_headers.at(address);
  if (header == nullptr) return Found::unknown;
  for (const Message& message : header->messages) {
    if (message.is(MessageType::attribute_info)) return Found::unknown;  // attributes may be in dense storage
    if (!message.is(MessageType::attribute)) continue;
    // HDF5 decodes each attribute up to the one asked for, and fails on
    // one it cannot decode; a shared attribute hides its name elsewhere.
    const auto attribute = attribute_message(message);
    if (!attribute || !decodable(*attribute)) return Found::unknown;
    if (attribute->name == name) {
      out = *attribute;
      return Found::yes;
    }
  }
  return Found::no;
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
  if (!is_string_datatype(attribute.datatype)) {
    out = std::nullopt;  // not a string: as HDF5's class check says
    return true;
  }
  const auto type = string_datatype(attribute.datatype);
  if (!type || space->elements > attribute.value.size / type->size) return false;
  // HDF5's read makes a memory type of the file's character set, and
  // refuses one that is neither ASCII (0) nor UTF-8 (1).
  if (type->cset > 1) return false;
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

bool AttributeReader::string_list_at(std::uint64_t address, const char* name,
                                     std::optional<std::vector<std::string>>& out) {
  AttributeMessage attribute;
  switch (find(address, name, attribute)) {
    case Found::unknown:
      return false;
    case Found::no:
      out = std::nullopt;
      break;
    case Found::yes:
      if (!strings_of(attribute, out)) return false;
      break;
  }
  ++m_answered_directly;
  return true;
}

bool AttributeReader::has(hid_t object, const char* name) {
  const auto address = address_of(object);
  AttributeMessage attribute;
  const Found found = address ? find(*address, name, attribute) : Found::unknown;
  if (found == Found::unknown) return has_attribute(object, name);
  ++m_answered_directly;
  return found == Found::yes;
}

std::optional<std::vector<std::string>> AttributeReader::string_list(hid_t object, const char* name) {
  std::optional<std::vector<std::string>> out;
  const auto address = address_of(object);
  if (address && string_list_at(*address, name, out)) return out;
  return string_list_attribute(object, name);
}

std::optional<std::string> AttributeReader::string(hid_t object, const char* name) {
  auto list = string_list(object, name);
  if (!list || list->size() != 1) return std::nullopt;
  return std::move(list->front());
}

}  // namespace h5ad_sizer::h5
