#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::h5 {

// Fetches a file's group structure ahead of HDF5, level by level, for
// sources that fetch ahead (io::ByteSource::fetches_ahead: remote ones).
//
// HDF5 lists a group by reading its B-tree one node at a time and then each
// symbol node, and only then opens the members one at a time: over a
// network that is one round trip per node, and a group of 600 members has
// about 100 of them spread through the file (docs/remote.md). Their
// addresses are in the nodes already read, so this reads the structure
// itself from the first group B-tree node HDF5 reads: each level's nodes
// (B-tree nodes, symbol nodes, object headers and their continuation
// blocks, local heaps) are prefetched together, then parsed for the next
// level's addresses. Only old-style groups (symbol tables, what h5py and
// anndata write by default) and version-1 object headers are followed; it
// reads no dataset's data and no chunk index.
//
// It only ever hints: what it cannot parse it stops at, and whatever it did
// not bring HDF5 reads as before. Bounded by kMaxObjects and kMaxBytes, so
// that a hostile file cannot make it loop or fetch without end.
class MetadataPrefetch {
 public:
  explicit MetadataPrefetch(io::ByteSource& source);

  // HDF5 has read a B-tree node at `address`: if it is a group's and not
  // yet walked, walk what lies below it.
  void on_btree_read(std::uint64_t address);

  // For tests: the addresses walked.
  const std::unordered_set<std::uint64_t>& visited() const { return m_seen; }

  // Objects visited at most (a 600-member uns of nested dicts has 5 400),
  // and bytes prefetched at most (that file's metadata takes 18 MiB).
  static constexpr std::size_t kMaxObjects = 200'000;
  static constexpr std::uint64_t kMaxBytes = 24ull * 1024 * 1024;

  enum class Kind {
    btree,
    symbol_node,
    object_header,
    continuation,
    local_heap,
    global_heap,
    string_references,
    heap_data,  // prefetched, not parsed
  };
  struct Item {
    std::uint64_t address = 0;
    Kind kind = Kind::btree;
    std::uint64_t length = 0;  // known for continuation blocks and heap data
  };

 private:
  void walk(std::vector<Item> level);
  void parse(const Item& item, std::vector<Item>& next);
  void parse_btree(std::uint64_t address, std::vector<Item>& next);
  void parse_symbol_node(std::uint64_t address, std::vector<Item>& next);
  void parse_object_header(std::uint64_t address, std::vector<Item>& next);
  void parse_messages(std::uint64_t start, std::uint64_t length, std::uint32_t count, std::vector<Item>& next);
  void parse_local_heap(std::uint64_t address, std::vector<Item>& next);
  void add_attribute_strings(const AttributeMessage& attribute, std::vector<Item>& next);
  void parse_global_heap(std::uint64_t address, std::vector<Item>& next);
  void add_string_samples(const io::ByteRange& data, std::vector<Item>& next);
  void parse_string_references(std::uint64_t address, std::uint64_t length, std::vector<Item>& next);
  void add(std::uint64_t address, Kind kind, std::uint64_t length, std::vector<Item>& next);
  std::vector<unsigned char> bytes(std::uint64_t address, std::uint64_t length);
  std::uint64_t offset_at(const unsigned char* p) const;
  std::uint64_t length_at(const unsigned char* p) const;

  io::ByteSource& m_source;
  bool m_enabled = false;
  Geometry m_geometry;  // from the superblock (a file with a user block is not walked)
  std::uint64_t m_size = 0;
  std::unordered_set<std::uint64_t> m_seen;
  std::uint64_t m_prefetched = 0;
};

}  // namespace h5ad_sizer::h5
