#include "h5ad_sizer/h5/header_reader.hpp"

#include <deque>
#include <utility>

namespace h5ad_sizer::h5 {

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
  if (!prefix) return false;

  std::deque<io::ByteRange> blocks{{address + kHeaderPrefixV1Bytes, prefix->first_block_bytes}};
  std::uint32_t left = prefix->messages;
  bool whole = true;
  while (!blocks.empty() && left > 0) {
    const io::ByteRange block = blocks.front();
    blocks.pop_front();
    if (header.blocks.size() >= kMaxBlocks || !inside(block.offset, block.length)) return false;
    std::vector<unsigned char>& bytes = header.blocks.emplace_back(static_cast<std::size_t>(block.length));
    if (!bytes.empty()) m_source->read(base + block.offset, bytes.size(), bytes.data());
    left -= for_each_message_v1(ByteView{bytes.data(), bytes.size()}, left, [&](const Message& message) {
      header.messages.push_back(message);
      if (message.is(MessageType::continuation)) {
        const auto next = continuation_block(message, m_geometry);
        if (next) blocks.push_back(*next);
        else whole = false;
      }
    });
  }
  // As many messages as the prefix says, no more blocks than they name.
  return whole && left == 0 && blocks.empty();
}

}  // namespace h5ad_sizer::h5
