#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "h5ad_sizer/io/byte_source.hpp"

// Version-1 object headers decoded from a file's bytes (HDF5's file format,
// "Version 1 Data Object Header Prefix" and the messages it names): what
// h5py and anndata write unless asked for the latest format. Decoding only,
// from bytes the caller read, every length checked against them. Two users:
// the metadata prefetch, which walks a file's structure ahead of HDF5 over a
// network, and the attribute reader, which takes anndata's string attributes
// from the header and the global heap without HDF5's type conversion.
namespace h5ad_sizer::h5 {

// How wide the file writes addresses and lengths (its superblock says), and
// where its address 0 lies in the file (past a user block).
struct Geometry {
  std::size_t sizeof_addr = 8;
  std::size_t sizeof_size = 8;
  std::uint64_t base = 0;

  // A variable-length string or sequence in the file: {uint32 length,
  // global heap collection address, uint32 object index}.
  std::size_t heap_reference_bytes() const { return 4 + sizeof_addr + 4; }
};

// The message types read here.
enum class MessageType : std::uint16_t {
  dataspace = 0x01,
  link_info = 0x02,
  datatype = 0x03,
  fill_value_old = 0x04,
  fill_value = 0x05,
  link = 0x06,
  layout = 0x08,
  attribute = 0x0c,
  filter_pipeline = 0x0b,
  continuation = 0x10,
  symbol_table = 0x11,
  attribute_info = 0x15,
};

// Bytes inside a block the caller holds.
struct ByteView {
  const unsigned char* data = nullptr;
  std::size_t size = 0;
};

struct Message {
  std::uint16_t type = 0;
  std::uint8_t flags = 0;
  ByteView body;

  bool is(MessageType kind) const { return type == static_cast<std::uint16_t>(kind); }
  // The body is a reference to a message stored elsewhere (a shared
  // datatype, say), not the message itself.
  bool shared() const { return (flags & 0x02) != 0; }
};

// The prefix of a version-1 header: version 1, a reserved byte, the number
// of messages, the reference count, the size of the first block of
// messages, padding to 16 bytes; the messages follow it.
constexpr std::size_t kHeaderPrefixV1Bytes = 16;
struct HeaderPrefixV1 {
  std::uint32_t messages = 0;
  std::uint64_t first_block_bytes = 0;
};
// nullopt unless the 16 bytes at `prefix` are a version-1 prefix (a
// version-2 header starts "OHDR").
std::optional<HeaderPrefixV1> header_prefix_v1(const unsigned char* prefix);

// A version-1 message's 8-byte head at `p`: a type (2 bytes), a body size
// (2), flags (1), 3 reserved bytes; the body follows. Sets the type and
// flags of `message` and returns the body's size (the caller checks that it
// fits before setting `message.body`).
inline std::size_t message_head_v1(const unsigned char* p, Message& message) {
  message.type = static_cast<std::uint16_t>(p[0] | p[1] << 8);
  message.flags = p[4];
  return static_cast<std::size_t>(p[2] | p[3] << 8);
}

// The messages of one block of a version-1 header (the one after the prefix,
// or a continuation block), in order. At most `count`; it stops at one that
// would run past the block. Returns how many it passed to `visit`.
template <typename Visit>
std::uint32_t for_each_message_v1(ByteView block, std::uint32_t count, Visit&& visit) {
  std::uint32_t seen = 0;
  std::size_t at = 0;
  while (seen < count && block.size >= 8 && at <= block.size - 8) {
    const unsigned char* p = block.data + at;
    Message message;
    const std::size_t size = message_head_v1(p, message);
    if (size > block.size - at - 8) break;
    message.body = {p + 8, size};
    ++seen;
    visit(message);
    at += 8 + size;
  }
  return seen;
}

// The block a continuation message names: its address (in the file's
// address space) and length.
std::optional<io::ByteRange> continuation_block(const Message& message, const Geometry& geometry);

// A symbol table message: a group's B-tree and its local heap (names).
struct SymbolTable {
  std::uint64_t btree = 0;
  std::uint64_t local_heap = 0;
};
std::optional<SymbolTable> symbol_table(const Message& message, const Geometry& geometry);

// An attribute message (versions 1 to 3), cut into its parts. nullopt for
// another version, for a datatype or dataspace shared from elsewhere, and
// for parts that run past the body.
struct AttributeMessage {
  std::string_view name;  // up to its terminator
  ByteView datatype;      // a datatype message
  ByteView dataspace;     // a dataspace message
  ByteView value;         // the raw value, possibly followed by padding
};
std::optional<AttributeMessage> attribute_message(const Message& message);

// A dataspace message (versions 1 and 2): its dimensions and how many
// elements they hold (1 for a scalar, 0 for a null dataspace). nullopt when
// the message is not one or its element count overflows.
struct Dataspace {
  bool null = false;
  std::vector<std::uint64_t> dims;  // empty for a scalar
  std::uint64_t elements = 1;
};
std::optional<Dataspace> dataspace_message(ByteView body, const Geometry& geometry);

// Whether a datatype message is a string's: a fixed-width string (class 3)
// or a variable-length one (class 9 of string type).
bool is_string_datatype(ByteView body);
// What a datatype message says of strings: fixed-width (`size` bytes each)
// or variable-length (a heap reference each), and the character set (0
// ASCII, 1 UTF-8). nullopt for any other type, or a size of 0.
struct StringDatatype {
  bool variable = false;
  std::size_t size = 0;  // bytes an element takes in the file
  unsigned cset = 0;
};
std::optional<StringDatatype> string_datatype(ByteView body);

// A layout message of version 3 (what HDF5 writes unless asked for the
// latest format): where a dataset's data lies. nullopt for another version,
// or one that does not add up.
struct DataLayout {
  enum class Kind { compact, contiguous, chunked };
  Kind kind = Kind::contiguous;
  // Contiguous: the data's address (all ones when never written) and size.
  // Compact: the size of the data held in the message. Chunked: the address
  // of the chunk index.
  std::uint64_t address = UINT64_MAX;
  std::uint64_t size = 0;
  std::vector<std::uint64_t> chunk;  // chunked: elements along each dimension
  std::uint64_t chunk_element_bytes = 0;  // chunked: the bytes of an element, as it says
};
std::optional<DataLayout> layout_message(const Message& message, const Geometry& geometry);

// The filters of a filter pipeline message (versions 1 and 2), in order.
std::optional<std::vector<int>> filter_ids(const Message& message);

}  // namespace h5ad_sizer::h5
