#include "h5ad_sizer/h5/dataset_header.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/h5/little_endian.hpp"

namespace h5ad_sizer::h5 {
namespace {

// The message types a dataset's header may hold and still be described
// here: nil (free space), dataspace, datatype, the two fill values, layout,
// filter pipeline, attribute, comment, the two modification times,
// continuation, attribute info and the reference count. Anything else (an
// external file list, say) is HDF5's.
bool listed(std::uint16_t type) {
  switch (type) {
    case 0x00: case 0x01: case 0x03: case 0x04: case 0x05: case 0x08: case 0x0b:
    case 0x0c: case 0x0d: case 0x0e: case 0x10: case 0x12: case 0x15: case 0x16:
      return true;
    default:
      return false;
  }
}

// h5py's boolean: an enum of two members, FALSE and TRUE, over an integer.
// Its properties: the base type (an integer's message is 12 bytes), then the
// names, each ending in a NUL (padded to 8 bytes before version 3), then the
// values.
bool is_h5py_bool(ByteView body, unsigned version, std::uint32_t bits) {
  if ((bits & 0xffff) != 2 || body.size < 8 + 12 || (body.data[8] & 0x0f) != 0) return false;
  std::size_t at = 8 + 12;
  for (const char* expected : {"FALSE", "TRUE"}) {
    const std::size_t length = std::strlen(expected);
    if (body.size - at < length + 1 || std::memcmp(body.data + at, expected, length + 1) != 0) return false;
    at += version >= 3 ? length + 1 : (length + 1 + 7) / 8 * 8;
    if (at > body.size) return false;
  }
  return true;
}

// The bytes of a datatype message of the classes read here (a member of a
// compound, the base of a variable-length or enum type): 8 of header and the
// class's properties. nullopt for another class.
std::optional<std::size_t> datatype_bytes(ByteView body) {
  if (body.size < 8) return std::nullopt;
  const unsigned type_class = body.data[0] & 0x0f;
  std::size_t bytes = 0;
  switch (type_class) {
    case 0: bytes = 8 + 4; break;   // fixed-point: bit offset, precision
    case 1: bytes = 8 + 12; break;  // floating point: offsets, sizes, bias
    case 3: bytes = 8; break;       // string: none
    case 9: {                       // variable-length: its base type
      const auto base = datatype_bytes({body.data + 8, body.size - 8});
      if (!base) return std::nullopt;
      bytes = 8 + *base;
      break;
    }
    case 8: {  // enum: the base type, the names, the values (read whole by is_h5py_bool)
      const auto base = datatype_bytes({body.data + 8, body.size - 8});
      if (!base || (body.data[8] & 0x0f) != 0) return std::nullopt;
      const unsigned version = body.data[0] >> 4;
      const std::size_t members = little_endian(body.data + 1, 2);
      std::size_t at = 8 + *base;
      for (std::size_t i = 0; i < members; ++i) {
        const auto* name = reinterpret_cast<const char*>(body.data + at);
        const std::size_t length = strnlen(name, body.size - at);
        if (length == body.size - at) return std::nullopt;  // no terminator
        at += version >= 3 ? length + 1 : (length + 1 + 7) / 8 * 8;
        if (at > body.size) return std::nullopt;
      }
      bytes = at + members * little_endian(body.data + 8 + 4, 4);
      break;
    }
    default:
      return std::nullopt;
  }
  if (bytes > body.size) return std::nullopt;
  return bytes;
}

// A datatype message as describe_type gives it, for integers, floats,
// strings and h5py's boolean; nullopt for any other class.
std::optional<TypeInfo> simple_type(ByteView body, const Geometry& geometry) {
  if (body.size < 8) return std::nullopt;
  const unsigned version = body.data[0] >> 4;
  const unsigned type_class = body.data[0] & 0x0f;
  const auto bits = static_cast<std::uint32_t>(little_endian(body.data + 1, 3));
  const std::uint64_t size = little_endian(body.data + 4, 4);
  if (version < 1 || version > 5 || size == 0) return std::nullopt;
  TypeInfo info;
  info.size = size;
  switch (type_class) {
    case 0:  // fixed-point: bit 3 says signed
      info.type_class = (bits & 0x08) != 0 ? TypeClass::signed_integer : TypeClass::unsigned_integer;
      info.numpy_name = std::string((bits & 0x08) != 0 ? "int" : "uint") + std::to_string(size * 8);
      break;
    case 1:
      info.type_class = TypeClass::floating;
      info.numpy_name = "float" + std::to_string(size * 8);
      break;
    case 3:  // fixed-length string: bits 4-7 the character set (0 ASCII)
      info.type_class = TypeClass::fixed_string;
      info.ascii = ((bits >> 4) & 0x0f) == 0;
      info.numpy_name = "S" + std::to_string(size);
      break;
    case 8:
      if (!is_h5py_bool(body, version, bits)) return std::nullopt;
      info.type_class = TypeClass::boolean;
      info.numpy_name = "bool";
      break;
    case 9:  // variable-length: bits 0-3 sequence (0) or string (1), bits 8-11 the character set
      if ((bits & 0x0f) != 1 || size != geometry.heap_reference_bytes()) return std::nullopt;
      info.type_class = TypeClass::vlen_string;
      info.ascii = ((bits >> 8) & 0x0f) == 0;
      info.numpy_name = "object";
      info.size = sizeof(char*);  // as numpy holds it
      break;
    default:
      return std::nullopt;
  }
  info.stored_size = size;
  return info;
}

// A compound's members in the file: name, byte offset, then (version 1) a
// dimensionality and 24 bytes of array dimensions, then the member's
// datatype. Names are padded to 8 bytes before version 3; version 3 writes
// an offset of as few bytes as the compound's size needs.
struct Member {
  std::string name;
  std::uint64_t offset = 0;
  TypeInfo type;
};

std::optional<std::vector<Member>> compound_members(ByteView body, const Geometry& geometry) {
  const unsigned version = body.data[0] >> 4;
  const std::size_t count = little_endian(body.data + 1, 2);
  const std::uint64_t size = little_endian(body.data + 4, 4);
  const std::size_t offset_bytes = size < (1u << 8) ? 1 : size < (1u << 16) ? 2 : size < (1u << 24) ? 3 : 4;
  if (version < 1 || version > 3 || count == 0) return std::nullopt;
  std::vector<Member> members;
  std::size_t at = 8;
  for (std::size_t i = 0; i < count; ++i) {
    if (at >= body.size) return std::nullopt;
    const auto* name = reinterpret_cast<const char*>(body.data + at);
    const std::size_t length = strnlen(name, body.size - at);
    if (length == body.size - at) return std::nullopt;
    Member member;
    member.name.assign(name, length);
    at += version >= 3 ? length + 1 : (length + 1 + 7) / 8 * 8;
    const std::size_t offset_size = version >= 3 ? offset_bytes : 4;
    if (at > body.size || body.size - at < offset_size) return std::nullopt;
    member.offset = little_endian(body.data + at, offset_size);
    at += offset_size;
    if (version == 1) {
      if (body.size - at < 28 || body.data[at] != 0) return std::nullopt;  // an array member: HDF5's
      at += 28;
    }
    const ByteView type{body.data + at, body.size - at};
    const auto bytes = datatype_bytes(type);
    const auto described = bytes ? simple_type({type.data, *bytes}, geometry) : std::nullopt;
    if (!described || member.offset > size || described->stored_size > size - member.offset) return std::nullopt;
    member.type = *described;
    members.push_back(std::move(member));
    at += *bytes;
  }
  return members;
}

// A compound as describe_type gives it once HDF5 has moved it to memory: its
// members in the order of their offsets (HDF5 sorts them so), each string a
// pointer there, so the record shrinks by what they save; h5py's complex
// numbers ({r, i} of two floats) as one value. Also where each string
// member's reference lies in the stored record.
std::optional<TypeInfo> compound_type(ByteView body, const Geometry& geometry, RecordLayout& records) {
  auto members = compound_members(body, geometry);
  if (!members) return std::nullopt;
  std::stable_sort(members->begin(), members->end(),
                   [](const Member& a, const Member& b) { return a.offset < b.offset; });
  TypeInfo info;
  info.stored_size = little_endian(body.data + 4, 4);
  info.size = info.stored_size;
  records.stride = info.stored_size;
  for (const Member& member : *members) {
    info.size -= member.type.stored_size - member.type.size;
    info.member_names.push_back(member.name);
    info.members.push_back(member.type);
    if (member.type.type_class == TypeClass::vlen_string) records.string_offsets.emplace(member.name, member.offset);
  }
  if (members->size() == 2 && info.member_names[0] == "r" && info.member_names[1] == "i" &&
      info.members[0].type_class == TypeClass::floating && info.members[1].type_class == TypeClass::floating) {
    info.type_class = TypeClass::complex;
    info.numpy_name = "complex" + std::to_string(info.size * 8);
    info.member_names.clear();
    info.members.clear();
    return info;
  }
  info.type_class = TypeClass::compound;
  info.numpy_name = "[";
  for (std::size_t i = 0; i < info.members.size(); ++i) {
    if (i > 0) info.numpy_name += ", ";
    info.numpy_name += "('" + info.member_names[i] + "', '" + info.members[i].numpy_name + "')";
  }
  info.numpy_name += "]";
  return info;
}

// Any datatype read here: a simple one, or a compound of simple members.
std::optional<TypeInfo> dataset_type(ByteView body, const Geometry& geometry, RecordLayout& records) {
  if (body.size >= 8 && (body.data[0] & 0x0f) == 6) return compound_type(body, geometry, records);
  return simple_type(body, geometry);
}

// Fill value messages are not needed, only known to be whole: HDF5 decodes
// them when it opens the dataset and refuses a damaged one.
bool fill_value_readable(const Message& message) {
  const ByteView body = message.body;
  if (message.is(MessageType::fill_value_old)) {
    return body.size >= 4 && little_endian(body.data, 4) <= body.size - 4;
  }
  return body.size >= 1 && body.data[0] >= 1 && body.data[0] <= 3;
}

std::optional<DescribedDataset> describe(const ObjectHeader& header, const Geometry& geometry, StorageDetail storage,
                                         std::uint64_t file_bytes) {
  const Message* datatype = nullptr;
  const Message* dataspace = nullptr;
  const Message* layout_at = nullptr;
  const Message* pipeline = nullptr;
  for (const Message& message : header.messages) {
    if (!listed(message.type) || message.shared()) return std::nullopt;
    const Message** slot = message.is(MessageType::datatype)          ? &datatype
                           : message.is(MessageType::dataspace)       ? &dataspace
                           : message.is(MessageType::layout)          ? &layout_at
                           : message.is(MessageType::filter_pipeline) ? &pipeline
                                                                      : nullptr;
    if (slot != nullptr) {
      if (*slot != nullptr) return std::nullopt;  // twice: not a header HDF5 writes
      *slot = &message;
    }
    if ((message.is(MessageType::fill_value_old) || message.is(MessageType::fill_value)) &&
        !fill_value_readable(message)) {
      return std::nullopt;
    }
  }
  if (datatype == nullptr || dataspace == nullptr || layout_at == nullptr) return std::nullopt;
  DescribedDataset out;
  const auto type = dataset_type(datatype->body, geometry, out.records);
  const auto space = dataspace_message(dataspace->body, geometry);
  const auto layout = layout_message(*layout_at, geometry);
  if (!type || !space || !layout) return std::nullopt;
  DatasetInfo& info = out.info;
  info.type = *type;
  info.null_space = space->null;
  info.dims = space->dims;
  info.elements = space->null ? 0 : space->elements;

  // What HDF5 checks as it opens a dataset: its data is where it says and
  // as large as its elements.
  const std::uint64_t data_bytes = checked_mul(space->elements, type->stored_size);
  const bool written = layout->address != UINT64_MAX;
  switch (layout->kind) {
    case DataLayout::Kind::compact:
      if (layout->size != data_bytes) return std::nullopt;
      break;
    case DataLayout::Kind::contiguous:
      if (written && (layout->size != data_bytes || layout->address > UINT64_MAX - geometry.base ||
                      geometry.base + layout->address > file_bytes ||
                      layout->size > file_bytes - geometry.base - layout->address)) {
        return std::nullopt;
      }
      break;
    case DataLayout::Kind::chunked:
      if (layout->chunk.size() != space->dims.size() || layout->chunk_element_bytes != type->stored_size) {
        return std::nullopt;
      }
      break;
  }
  // H5Dget_storage_size: the contiguous data written, the compact data.
  const std::uint64_t storage_size = layout->kind == DataLayout::Kind::compact ? layout->size
                                     : layout->kind == DataLayout::Kind::contiguous && written ? layout->size
                                                                                               : 0;
  if (layout->kind == DataLayout::Kind::contiguous && written) out.data_address = layout->address;
  if (info.dims.empty()) {  // scalar or null: never chunked, never filtered
    if (layout->kind == DataLayout::Kind::chunked) return std::nullopt;
    info.stored_bytes = storage_size;
    return out;
  }
  if (layout->kind == DataLayout::Kind::contiguous && written) {
    info.stored_bytes = storage_size;
    return out;
  }
  info.chunked = layout->kind == DataLayout::Kind::chunked;
  std::uint64_t chunk_elements = 1;
  if (info.chunked) {
    info.chunks = 1;
    for (std::size_t d = 0; d < info.dims.size(); ++d) {
      if (layout->chunk[d] == 0) return std::nullopt;
      info.chunks = checked_mul(info.chunks, (info.dims[d] + layout->chunk[d] - 1) / layout->chunk[d]);
      chunk_elements = checked_mul(chunk_elements, layout->chunk[d]);
    }
    // A chunk index is walked by HDF5 (H5Dget_storage_size).
    if (storage != StorageDetail::object_header) return std::nullopt;
    info.stored_bytes = checked_mul(checked_mul(info.chunks, chunk_elements), info.type.stored_size);
    info.stored_bytes_exact = false;
  } else {
    info.stored_bytes = storage_size;
  }
  if (pipeline != nullptr) {
    const auto filters = filter_ids(*pipeline);
    if (!filters) return std::nullopt;
    info.compressed = !filters->empty();
    for (const int id : *filters) {
      if (H5Zfilter_avail(static_cast<H5Z_filter_t>(id)) <= 0) info.unavailable_filters.push_back(id);
    }
    H5Eclear2(H5E_DEFAULT);  // a failed plugin search leaves frames behind
  }
  return out;
}

}  // namespace

std::optional<DescribedDataset> describe_from_header(const ObjectHeader& header, const Geometry& geometry,
                                                     StorageDetail storage, std::uint64_t file_bytes) {
  try {
    return describe(header, geometry, storage, file_bytes);
  } catch (const std::overflow_error&) {
    return std::nullopt;  // HDF5's description fails the same way, naming the element
  }
}

bool is_group_header(const ObjectHeader& header) {
  for (const Message& message : header.messages) {
    if (message.is(MessageType::symbol_table) || message.is(MessageType::link_info) || message.is(MessageType::link)) {
      return true;
    }
  }
  return false;
}

}  // namespace h5ad_sizer::h5
