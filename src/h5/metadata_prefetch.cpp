#include "h5ad_sizer/h5/metadata_prefetch.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <optional>

#include "h5ad_sizer/h5/little_endian.hpp"
#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/h5/strings.hpp"

namespace h5ad_sizer::h5 {
namespace {

using io::ByteRange;

// What each object is asked for before it is parsed: a group B-tree node
// of h5py's files is 544 bytes, a symbol node 328, an object header
// usually under 1 KiB; a longer header is read on (a miss like any other).
constexpr std::uint64_t kFirstBytes = 4096;
// Longer object headers, continuation blocks and heaps are left to HDF5
// (h5py's are a few KiB at most): parsing garbage must not allocate much.
constexpr std::uint64_t kMaxParsedBytes = 1024 * 1024;
constexpr std::uint64_t kMaxHeapBytes = 4 * 1024 * 1024;

bool signature(const std::vector<unsigned char>& data, const char* text) {
  return data.size() >= 4 && std::memcmp(data.data(), text, 4) == 0;
}

std::uint32_t u16(const unsigned char* p) { return static_cast<std::uint32_t>(little_endian(p, 2)); }
std::uint32_t u32(const unsigned char* p) { return static_cast<std::uint32_t>(little_endian(p, 4)); }

}  // namespace

MetadataPrefetch::MetadataPrefetch(io::ByteSource& source) : m_source(source) {
  try {
    m_size = source.size();
    if (!source.fetches_ahead() || m_size < 32) return;
    const std::vector<unsigned char> super = bytes(0, 32);
    static const unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    if (std::memcmp(super.data(), kSignature, 8) != 0) return;  // a user block: not walked
    const unsigned version = super[8];
    if (version <= 1) {
      m_geometry.sizeof_addr = super[13];
      m_geometry.sizeof_size = super[14];
    } else if (version <= 3) {
      m_geometry.sizeof_addr = super[9];
      m_geometry.sizeof_size = super[10];
    } else {
      return;
    }
    const auto valid = [](std::size_t size) { return size == 2 || size == 4 || size == 8; };
    m_enabled = valid(m_geometry.sizeof_addr) && valid(m_geometry.sizeof_size);
  } catch (const std::exception& error) {
    spdlog::debug("metadata prefetch off: {}", error.what());
  }
}

void MetadataPrefetch::on_btree_read(std::uint64_t address) {
  if (!m_enabled || m_seen.count(address) > 0) return;
  try {
    m_seen.insert(address);
    std::vector<Item> first;
    parse({address, Kind::btree, 0}, first);
    walk(std::move(first));
  } catch (const std::exception& error) {
    // A structure we could not follow: HDF5 reads it, and judges it.
    spdlog::debug("metadata prefetch stopped: {}", error.what());
    m_enabled = false;
  } catch (...) {
    m_enabled = false;
  }
}

void MetadataPrefetch::walk(std::vector<Item> level) {
  while (!level.empty() && m_enabled) {
    std::vector<ByteRange> ranges;
    ranges.reserve(level.size());
    for (const Item& item : level) {
      const std::uint64_t wanted = item.length > 0 ? item.length : kFirstBytes;
      ranges.push_back({item.address, std::min(wanted, m_size - item.address)});
    }
    m_prefetched += m_source.prefetch(ranges);
    if (m_prefetched >= kMaxBytes) {
      m_enabled = false;  // this level is in; the rest is HDF5's to read
      return;
    }
    std::vector<Item> next;
    for (const Item& item : level) {
      if (item.kind != Kind::heap_data) parse(item, next);
    }
    level = std::move(next);
  }
}

void MetadataPrefetch::add(std::uint64_t address, Kind kind, std::uint64_t length, std::vector<Item>& next) {
  // HDF5's "undefined address" is all ones; 0 is the superblock.
  if (address == 0 || address >= m_size || length > m_size - address) return;
  if (m_seen.size() >= kMaxObjects) {
    m_enabled = false;
    return;
  }
  if (!m_seen.insert(address).second) return;
  next.push_back({address, kind, length});
}

void MetadataPrefetch::parse(const Item& item, std::vector<Item>& next) {
  switch (item.kind) {
    case Kind::btree: parse_btree(item.address, next); break;
    case Kind::symbol_node: parse_symbol_node(item.address, next); break;
    case Kind::object_header: parse_object_header(item.address, next); break;
    case Kind::local_heap: parse_local_heap(item.address, next); break;
    case Kind::continuation: parse_messages(item.address, item.length, UINT32_MAX, next); break;
    case Kind::global_heap: parse_global_heap(item.address, next); break;
    case Kind::string_references: parse_string_references(item.address, item.length, next); break;
    case Kind::heap_data: break;
  }
}

// "TREE", node type (0: group), level, entries used, two siblings, then
// key, child, key, ..., key. A group node's children are nodes one level
// down, or symbol nodes at level 0. Chunk indexes (type 1) are not walked.
void MetadataPrefetch::parse_btree(std::uint64_t address, std::vector<Item>& next) {
  const std::uint64_t head = 8 + 2 * m_geometry.sizeof_addr;
  std::vector<unsigned char> data = bytes(address, head);
  if (!signature(data, "TREE") || data[4] != 0) return;
  const unsigned level = data[5];
  const std::uint32_t entries = u16(&data[6]);
  const std::uint64_t pair = m_geometry.sizeof_size + m_geometry.sizeof_addr;
  data = bytes(address + head, entries * pair + m_geometry.sizeof_size);
  for (std::uint32_t i = 0; i < entries; ++i) {
    const std::uint64_t child = offset_at(&data[i * pair + m_geometry.sizeof_size]);
    add(child, level > 0 ? Kind::btree : Kind::symbol_node, 0, next);
  }
}

// "SNOD", version, reserved, symbols, then entries: name offset, object
// header address, cache type, reserved, 16 bytes of scratch (cache type
// 1: the member is a group, and the scratch holds its B-tree and heap).
void MetadataPrefetch::parse_symbol_node(std::uint64_t address, std::vector<Item>& next) {
  std::vector<unsigned char> data = bytes(address, 8);
  if (!signature(data, "SNOD")) return;
  const std::uint32_t symbols = u16(&data[6]);
  const std::uint64_t entry = m_geometry.sizeof_size + m_geometry.sizeof_addr + 8 + 16;
  data = bytes(address + 8, symbols * entry);
  for (std::uint32_t i = 0; i < symbols; ++i) {
    const unsigned char* p = &data[i * entry];
    add(offset_at(p + m_geometry.sizeof_size), Kind::object_header, 0, next);
    const unsigned char* cache = p + m_geometry.sizeof_size + m_geometry.sizeof_addr;
    if (u32(cache) == 1) {
      add(offset_at(cache + 8), Kind::btree, 0, next);
      add(offset_at(cache + 8 + m_geometry.sizeof_addr), Kind::local_heap, 0, next);
    }
  }
}

// A version-1 header: its prefix, then the messages. A group's symbol
// table message names its B-tree and heap; continuation messages name more
// messages.
void MetadataPrefetch::parse_object_header(std::uint64_t address, std::vector<Item>& next) {
  std::vector<unsigned char> data = bytes(address, kHeaderPrefixV1Bytes);
  const auto prefix = header_prefix_v1(data.data());
  if (!prefix) return;  // version 2 ("OHDR") belongs to new-style groups: not walked
  parse_messages(address + kHeaderPrefixV1Bytes, prefix->first_block_bytes, prefix->messages, next);
}

void MetadataPrefetch::parse_messages(std::uint64_t start, std::uint64_t length, std::uint32_t count,
                                      std::vector<Item>& next) {
  if (length > kMaxParsedBytes || start >= m_size || length > m_size - start) return;
  const std::vector<unsigned char> data = bytes(start, length);
  bool strings = false;  // a variable-length string dataset's
  std::optional<ByteRange> contiguous;
  for_each_message_v1(ByteView{data.data(), data.size()}, count, [&](const Message& message) {
    if (const auto table = symbol_table(message, m_geometry)) {
      add(table->btree, Kind::btree, 0, next);
      add(table->local_heap, Kind::local_heap, 0, next);
    } else if (message.is(MessageType::datatype)) {
      const auto type = string_datatype(message.body);
      strings = type && type->variable;
    } else if (const auto layout = layout_message(message, m_geometry)) {
      if (layout->kind == DataLayout::Kind::contiguous) contiguous = ByteRange{layout->address, layout->size};
    } else if (const auto attribute = attribute_message(message)) {
      add_attribute_strings(*attribute, next);
    } else if (const auto block = continuation_block(message, m_geometry)) {
      if (block->length <= kMaxParsedBytes) add(block->offset, Kind::continuation, block->length, next);
    }
  });
  if (strings && contiguous) add_string_samples(*contiguous, next);
}

// What h5::sample_strings reads of a string dataset: the references of
// its first and last runs, and the texts of its first strings, which lie
// in the collections the first references name.
void MetadataPrefetch::add_string_samples(const ByteRange& data, std::vector<Item>& next) {
  const SampleLimits limits;
  const std::uint64_t reference = m_geometry.heap_reference_bytes();
  const std::uint64_t run = limits.max_strings / std::max<std::size_t>(1, limits.runs) * reference;
  if (data.length < reference) return;
  add(data.offset, Kind::string_references, std::min(data.length, run), next);
  if (data.length > run) add(data.offset + data.length - run, Kind::heap_data, run, next);
}

void MetadataPrefetch::parse_string_references(std::uint64_t address, std::uint64_t length, std::vector<Item>& next) {
  const std::uint64_t reference = m_geometry.heap_reference_bytes();
  const std::uint64_t texts = std::min<std::uint64_t>(length / reference, SampleLimits{}.texts_with_lengths);
  const std::vector<unsigned char> data = bytes(address, texts * reference);
  for (std::uint64_t i = 0; i < texts; ++i) {
    const unsigned char* p = &data[i * reference];
    if (u32(p) > 0) add(offset_at(p + 4), Kind::global_heap, 0, next);
  }
}

// A variable-length string attribute's value is references into global
// heap collections, one a string: h5py keeps every string attribute
// (anndata's encoding-type among them) there, each object's in a
// collection of its own, which HDF5 reads next.
void MetadataPrefetch::add_attribute_strings(const AttributeMessage& attribute, std::vector<Item>& next) {
  const auto type = string_datatype(attribute.datatype);
  if (!type || !type->variable) return;
  const std::uint64_t reference = m_geometry.heap_reference_bytes();
  for (std::uint64_t at = 0; at + reference <= attribute.value.size; at += reference) {
    const unsigned char* p = attribute.value.data + at;
    if (u32(p) == 0) continue;  // an empty string has no heap object
    add(offset_at(p + 4), Kind::global_heap, 0, next);
  }
}

// "GCOL", version, reserved, collection size: its first 4 KiB were
// prefetched (a collection is at least that); HDF5 reads it whole.
void MetadataPrefetch::parse_global_heap(std::uint64_t address, std::vector<Item>& next) {
  const std::vector<unsigned char> data = bytes(address, 8 + m_geometry.sizeof_size);
  if (!signature(data, "GCOL")) return;
  const std::uint64_t size = length_at(&data[8]);
  if (size > kFirstBytes && size <= kMaxHeapBytes) add(address + kFirstBytes, Kind::heap_data, size - kFirstBytes, next);
}

// "HEAP", version, reserved, data segment size, free list offset, data
// segment address: the member names, which HDF5 reads next.
void MetadataPrefetch::parse_local_heap(std::uint64_t address, std::vector<Item>& next) {
  const std::vector<unsigned char> data = bytes(address, 8 + 2 * m_geometry.sizeof_size + m_geometry.sizeof_addr);
  if (!signature(data, "HEAP")) return;
  const std::uint64_t size = length_at(&data[8]);
  const std::uint64_t segment = offset_at(&data[8 + 2 * m_geometry.sizeof_size]);
  if (size > 0 && size <= kMaxHeapBytes) add(segment, Kind::heap_data, size, next);
}

std::vector<unsigned char> MetadataPrefetch::bytes(std::uint64_t address, std::uint64_t length) {
  if (address > m_size || length > m_size - address) {
    throw std::out_of_range("an address past the end of the file");
  }
  std::vector<unsigned char> data(length);
  if (length > 0) m_source.read(address, length, data.data());
  return data;
}

std::uint64_t MetadataPrefetch::offset_at(const unsigned char* p) const { return little_endian(p, m_geometry.sizeof_addr); }
std::uint64_t MetadataPrefetch::length_at(const unsigned char* p) const { return little_endian(p, m_geometry.sizeof_size); }

}  // namespace h5ad_sizer::h5
