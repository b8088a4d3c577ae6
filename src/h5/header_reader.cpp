#include "h5ad_sizer/h5/header_reader.hpp"

#include <deque>
#include <utility>


namespace h5ad_sizer::h5 {
namespace {

// Message flags HDF5 refuses together: shared and not to be shared; "was
// unknown" with "fail if unknown and open for writing", or without "mark
// if unknown".
bool flags_agree(unsigned flags) {
  constexpr unsigned kShared = 0x02, kDontShare = 0x04, kFailIfUnknownForWrite = 0x08, kMarkIfUnknown = 0x10,
                     kWasUnknown = 0x20;
  if ((flags & kShared) != 0 && (flags & kDontShare) != 0) return false;
  if ((flags & kWasUnknown) != 0 && ((flags & kFailIfUnknownForWrite) != 0 || (flags & kMarkIfUnknown) == 0)) {
    return false;
  }
  return true;
}

}  // namespace

const ObjectHeader* HeaderReader::at(std::uint64_t address) {
  if (m_last.address != address) {
    ObjectHeader header;
    header.address = address;
    m_last_readable = read(address, header);
    m_last = std::move(header);
  }
  return m_last_readable ? &m_last : nullptr;
}

bool HeaderReader::read(std::uint64_t address, ObjectHeader& header) {
  if (m_source == nullptr) return false;
  const std::uint64_t size = m_source->size();
  const std::uint64_t base = m_geometry.base;
  const auto inside = [&](std::uint64_t at, std::uint64_t length) {
    return at <= UINT64_MAX - base && base + at <= size && length <= size - base - at && length <= kMaxBlockBytes;
  };
  if (!inside(address, kHeaderPrefixV1Bytes)) return false;
  unsigned char prefix_bytes[kHeaderPrefixV1Bytes];
  m_source->read(base + address, kHeaderPrefixV1Bytes, prefix_bytes);
  const auto prefix = header_prefix_v1(prefix_bytes);
  // HDF5 refuses a first block too small for a message, or one with no
  // messages that is not empty (H5O__prefix_deserialize).
  if (!prefix || (prefix->messages > 0 && prefix->first_block_bytes < 8) ||
      (prefix->messages == 0 && prefix->first_block_bytes > 0)) {
    return false;
  }

  // Every message of every block, as HDF5 loads a version-1 header
  // (H5O__chunk_deserialize): a block is messages to its last byte, each a
  // multiple of 8 bytes with flags that agree with each other; the prefix
  // counts them all.
  std::deque<io::ByteRange> blocks{{address + kHeaderPrefixV1Bytes, prefix->first_block_bytes}};
  while (!blocks.empty()) {
    const io::ByteRange block = blocks.front();
    blocks.pop_front();
    if (header.blocks.size() >= kMaxBlocks || !inside(block.offset, block.length)) return false;
    std::vector<unsigned char>& bytes = header.blocks.emplace_back(static_cast<std::size_t>(block.length));
    if (!bytes.empty()) m_source->read(base + block.offset, bytes.size(), bytes.data());
    for (std::size_t at = 0; at < bytes.size();) {
      if (bytes.size() - at < 8) return false;
      const unsigned char* p = bytes.data() + at;
      Message message;
      const std::size_t body = message_head_v1(p, message);
      if (body % 8 != 0 || body > bytes.size() - at - 8 || !flags_agree(message.flags)) return false;
      message.body = {p + 8, body};
      header.messages.push_back(message);
      if (header.messages.size() > prefix->messages) return false;
      if (message.is(MessageType::continuation)) {
        const auto next = continuation_block(message, m_geometry);
        if (!next) return false;
        blocks.push_back(*next);
      }
      at += 8 + body;
    }
  }
  return header.messages.size() == prefix->messages;
}

}  // namespace h5ad_sizer::h5
