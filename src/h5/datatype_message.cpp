#include "h5ad_sizer/h5/datatype_message.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/little_endian.hpp"

namespace h5ad_sizer::h5 {
namespace {

// Datatype message versions HDF5 1.14 decodes (H5O_DTYPE_VERSION_LATEST).
constexpr unsigned kLatestVersion = 4;

enum Class : unsigned { kInteger = 0, kFloat = 1, kString = 3, kCompound = 6, kEnum = 8, kVlen = 9 };

struct Head {
  unsigned version = 0;
  unsigned type_class = 0;
  std::uint32_t bits = 0;  // the 24 class bits
  std::uint64_t size = 0;
};

std::optional<Head> head_of(ByteView body) {
  if (body.size < 8) return std::nullopt;
  Head head;
  head.version = body.data[0] >> 4;
  head.type_class = body.data[0] & 0x0f;
  head.bits = static_cast<std::uint32_t>(little_endian(body.data + 1, 3));
  head.size = little_endian(body.data + 4, 4);
  if (head.version < 1 || head.version > kLatestVersion || head.size == 0) return std::nullopt;
  return head;
}

// H5T_is_numeric_with_unusual_unused_bits: HDF5 refuses a number using
// less than half its bits (outside checksummed headers).
bool unusual_unused_bits(std::uint64_t size, std::uint64_t precision, std::uint64_t offset) {
  return size > 1 && precision < size * 8 && size * 8 > 2 * (precision + offset);
}

bool overlap(unsigned low1, unsigned high1, unsigned low2, unsigned high2) { return !(low1 > high2 || low2 > high1); }

// A name ending in a NUL at `body.data + at`, as HDF5 bounds it: its length,
// nullopt when no NUL comes before the end.
std::optional<std::size_t> name_at(ByteView body, std::size_t at) {
  if (at >= body.size) return std::nullopt;
  const std::size_t max = body.size - at;
  const std::size_t length = strnlen(reinterpret_cast<const char*>(body.data + at), max);
  if (length == max) return std::nullopt;
  return length;
}

// Where a name padded as the version says ends (before version 3, to a
// multiple of 8 bytes with its NUL); nullopt past the body.
std::optional<std::size_t> after_name(ByteView body, std::size_t at, std::size_t length, unsigned version) {
  const std::size_t advance = version >= 3 ? length + 1 : (length + 8) / 8 * 8;
  if (advance > body.size - at) return std::nullopt;
  return at + advance;
}

std::optional<std::size_t> checked_compound(ByteView body, const Head& head);

}  // namespace

std::optional<std::size_t> checked_datatype(ByteView body) {
  const auto head = head_of(body);
  if (!head) return std::nullopt;
  const std::uint64_t bits_in = head->size * 8;
  switch (head->type_class) {
    case kInteger: {
      if (body.size < 12) return std::nullopt;
      const std::uint64_t offset = little_endian(body.data + 8, 2);
      const std::uint64_t precision = little_endian(body.data + 10, 2);
      if (offset >= bits_in || precision == 0 || offset + precision - 1 >= bits_in ||
          unusual_unused_bits(head->size, precision, offset)) {
        return std::nullopt;
      }
      return 12;
    }
    case kFloat: {
      if (body.size < 20) return std::nullopt;
      const std::uint32_t bits = head->bits;
      if (head->version >= 3 && (bits & 0x40) != 0 && (bits & 0x1) == 0) return std::nullopt;  // byte order
      if (((bits >> 4) & 0x03) == 3) return std::nullopt;                                      // normalization
      const unsigned sign = (bits >> 8) & 0xff;
      const std::uint64_t offset = little_endian(body.data + 8, 2);
      const std::uint64_t precision = little_endian(body.data + 10, 2);
      const unsigned exponent = body.data[12], exponent_bits = body.data[13];
      const unsigned mantissa = body.data[14], mantissa_bits = body.data[15];
      if (sign >= bits_in || exponent_bits == 0 || exponent >= bits_in || exponent + exponent_bits - 1 >= bits_in ||
          mantissa_bits == 0 || mantissa >= bits_in || mantissa + mantissa_bits - 1 >= bits_in) {
        return std::nullopt;
      }
      if (overlap(sign, sign, exponent, exponent + exponent_bits - 1) ||
          overlap(sign, sign, mantissa, mantissa + mantissa_bits - 1) ||
          overlap(exponent, exponent + exponent_bits - 1, mantissa, mantissa + mantissa_bits - 1) ||
          unusual_unused_bits(head->size, precision, offset)) {
        return std::nullopt;
      }
      return 20;
    }
    case kString:
      return 8;
    case kVlen: {
      if ((head->bits & 0x0f) != 1) return std::nullopt;  // a sequence: not decoded here
      const auto base = checked_datatype({body.data + 8, body.size - 8});
      if (!base) return std::nullopt;
      return 8 + *base;
    }
    case kEnum: {
      const auto base = checked_datatype({body.data + 8, body.size - 8});
      if (!base || little_endian(body.data + 8 + 4, 4) != head->size) return std::nullopt;
      const std::size_t members = head->bits & 0xffff;
      std::size_t at = 8 + *base;
      for (std::size_t i = 0; i < members; ++i) {
        const auto length = name_at(body, at);
        if (!length || *length == 0) return std::nullopt;
        const auto next = after_name(body, at, *length, head->version);
        if (!next) return std::nullopt;
        at = *next;
      }
      if (members * head->size > body.size - at) return std::nullopt;
      return at + members * head->size;
    }
    case kCompound:
      return checked_compound(body, *head);
    default:
      return std::nullopt;
  }
}

namespace {

// The members of a compound: a name; an offset (4 bytes, or from version 3
// as few as the compound's size needs); in version 1, a dimensionality (an
// array member when not 0: left to HDF5) and 27 more bytes; the member's
// datatype. HDF5 refuses none of them, a duplicated name, a member past the
// compound's end or overlapping another.
struct Member {
  std::string name;
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
  ByteView type;
};

std::optional<std::vector<Member>> compound_members(ByteView body, const Head& head) {
  const std::size_t count = head.bits & 0xffff;
  if (count == 0) return std::nullopt;
  const std::size_t offset_bytes =
      head.size < (1u << 8) ? 1 : head.size < (1u << 16) ? 2 : head.size < (1u << 24) ? 3 : 4;
  std::vector<Member> members;
  std::uint64_t covered = 0;  // the furthest byte a member so far reaches
  std::size_t at = 8;
  for (std::size_t i = 0; i < count; ++i) {
    const auto length = name_at(body, at);
    if (!length) return std::nullopt;
    Member member;
    member.name.assign(reinterpret_cast<const char*>(body.data + at), *length);
    for (const Member& before : members) {
      if (before.name == member.name) return std::nullopt;
    }
    const auto next = after_name(body, at, *length, head.version);
    if (!next) return std::nullopt;
    at = *next;
    const std::size_t offset_size = head.version >= 3 ? offset_bytes : 4;
    if (body.size - at < offset_size) return std::nullopt;
    member.offset = little_endian(body.data + at, offset_size);
    at += offset_size;
    if (head.version == 1) {
      if (body.size - at < 28 || body.data[at] > 4) return std::nullopt;
      if (body.data[at] != 0) return std::nullopt;  // an array member: HDF5's
      at += 28;
    }
    const ByteView rest{body.data + at, body.size - at};
    const auto bytes = checked_datatype(rest);
    if (!bytes) return std::nullopt;
    member.size = little_endian(rest.data + 4, 4);
    member.type = {rest.data, *bytes};
    if (member.offset + member.size > head.size) return std::nullopt;
    if (!members.empty() && member.offset < covered) {
      for (const Member& before : members) {
        if ((member.offset >= before.offset && member.offset < before.offset + before.size) ||
            (member.offset < before.offset && member.offset + member.size > before.offset)) {
          return std::nullopt;
        }
      }
    }
    covered = std::max(covered, member.offset + member.size);
    at += *bytes;
    members.push_back(std::move(member));
  }
  return members;
}

std::optional<std::size_t> checked_compound(ByteView body, const Head& head) {
  // The members' walk checks them; where it ends is the message's length.
  const std::size_t count = head.bits & 0xffff;
  const auto members = compound_members(body, head);
  if (!members || members->size() != count) return std::nullopt;
  const Member& last = members->back();
  return static_cast<std::size_t>(last.type.data - body.data) + last.type.size;
}

// h5py's boolean: an enum of two members, FALSE and TRUE, over an integer
// (checked_datatype has checked the message).
bool is_h5py_bool(ByteView body, const Head& head) {
  if ((head.bits & 0xffff) != 2 || (body.data[8] & 0x0f) != kInteger) return false;
  std::size_t at = 8 + 12;
  for (const char* expected : {"FALSE", "TRUE"}) {
    const auto length = name_at(body, at);
    if (!length || *length != std::strlen(expected) || std::memcmp(body.data + at, expected, *length) != 0) {
      return false;
    }
    at = *after_name(body, at, *length, head.version);
  }
  return true;
}

// Integers, floats, strings and h5py's boolean as describe_type gives them.
std::optional<TypeInfo> simple_type(ByteView body, const Geometry& geometry) {
  const auto head = head_of(body);
  if (!head) return std::nullopt;
  const std::uint64_t size = head->size;
  TypeInfo info;
  info.size = size;
  switch (head->type_class) {
    case kInteger:  // bit 3: signed
      info.type_class = (head->bits & 0x08) != 0 ? TypeClass::signed_integer : TypeClass::unsigned_integer;
      info.numpy_name = std::string((head->bits & 0x08) != 0 ? "int" : "uint") + std::to_string(size * 8);
      break;
    case kFloat:
      info.type_class = TypeClass::floating;
      info.numpy_name = "float" + std::to_string(size * 8);
      break;
    case kString:  // bits 4-7: the character set (0 ASCII)
      info.type_class = TypeClass::fixed_string;
      info.ascii = ((head->bits >> 4) & 0x0f) == 0;
      info.numpy_name = "S" + std::to_string(size);
      break;
    case kEnum:
      if (!is_h5py_bool(body, *head)) return std::nullopt;
      info.type_class = TypeClass::boolean;
      info.numpy_name = "bool";
      break;
    case kVlen:  // a string (checked_datatype takes no sequence); bits 8-11: the character set
      if (size != geometry.heap_reference_bytes()) return std::nullopt;
      info.type_class = TypeClass::vlen_string;
      info.ascii = ((head->bits >> 8) & 0x0f) == 0;
      info.numpy_name = "object";
      info.size = sizeof(char*);  // as numpy holds it
      break;
    default:
      return std::nullopt;
  }
  info.stored_size = size;
  return info;
}

// A compound as describe_type gives it once HDF5 has moved it to memory:
// members in the order of their offsets (HDF5 sorts them so), each string a
// pointer there, so the record shrinks by what they save; h5py's complex
// numbers ({r, i} of two floats) as one value.
std::optional<TypeInfo> compound_type(ByteView body, const Head& head, const Geometry& geometry,
                                      RecordLayout& records) {
  auto members = compound_members(body, head);
  if (!members) return std::nullopt;
  std::stable_sort(members->begin(), members->end(),
                   [](const Member& a, const Member& b) { return a.offset < b.offset; });
  TypeInfo info;
  info.stored_size = head.size;
  info.size = head.size;
  records.stride = head.size;
  for (const Member& member : *members) {
    const auto type = simple_type(member.type, geometry);
    if (!type) return std::nullopt;
    info.size -= type->stored_size - type->size;
    info.member_names.push_back(member.name);
    info.members.push_back(*type);
    if (type->type_class == TypeClass::vlen_string) records.string_offsets.emplace(member.name, member.offset);
  }
  classify_compound(info);
  return info;
}

}  // namespace

std::optional<TypeInfo> datatype_info(ByteView body, const Geometry& geometry, RecordLayout& records) {
  const auto length = checked_datatype(body);
  if (!length) return std::nullopt;
  const ByteView message{body.data, *length};
  const auto head = head_of(message);
  if (head->type_class == kCompound) return compound_type(message, *head, geometry, records);
  return simple_type(message, geometry);
}

}  // namespace h5ad_sizer::h5
