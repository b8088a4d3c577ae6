#pragma once

#include <cstdint>
#include <vector>

#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::h5 {

// A version-1 object header as the file holds it: its blocks of messages
// (the first, then each continuation block in the order the header names
// them, as HDF5 loads them) and the messages in them, in that order.
struct ObjectHeader {
  std::uint64_t address = UINT64_MAX;
  std::vector<std::vector<unsigned char>> blocks;
  std::vector<Message> messages;  // into `blocks`
};

// Reads object headers through a file's byte source. The last one read is
// kept: an object is asked about several times in a row (its description,
// then each attribute).
class HeaderReader {
 public:
  // `source`: the file's bytes; nullptr when the file was not opened
  // through our driver (then no header is read here).
  HeaderReader(io::ByteSource* source, const Geometry& geometry) : m_source(source), m_geometry(geometry) {}
  HeaderReader(const HeaderReader&) = delete;
  HeaderReader& operator=(const HeaderReader&) = delete;

  // The header at `address` (in the file's address space); nullptr when it
  // is not a version-1 header, there is no source, or it or a block of it runs past the file,
  // or it takes more than kMaxBlocks blocks or kMaxBlockBytes a block
  // (such a header is left to HDF5).
  const ObjectHeader* at(std::uint64_t address);

  const Geometry& geometry() const { return m_geometry; }
  io::ByteSource* source() const { return m_source; }

  // h5py's headers are a few hundred bytes, their continuation blocks as
  // small; a header of 10 000 attributes takes about 40 blocks.
  static constexpr std::uint64_t kMaxBlockBytes = 1024 * 1024;
  static constexpr std::size_t kMaxBlocks = 256;

 private:
  bool read(std::uint64_t address, ObjectHeader& header);

  io::ByteSource* m_source;
  Geometry m_geometry;
  ObjectHeader m_last;
  bool m_last_readable = false;
};

}  // namespace h5ad_sizer::h5
