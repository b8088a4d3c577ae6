#include "h5ad_sizer/h5/header_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace h5ad_sizer::h5 {
namespace {

using Bytes = std::vector<unsigned char>;

void put(Bytes& bytes, std::uint64_t value, std::size_t width) {
  for (std::size_t i = 0; i < width; ++i) bytes.push_back(static_cast<unsigned char>(value >> (8 * i)));
}

Bytes message(std::uint16_t type, std::size_t size, std::uint8_t flags = 0) {
  Bytes out;
  put(out, type, 2);
  put(out, size, 2);
  out.push_back(flags);
  put(out, 0, 3);
  out.resize(out.size() + size, 0);
  return out;
}

// A file image with a version-1 header at 64 of `count` messages: `first`
// as its first block, and `continuation` at 512 when a continuation message
// (written into `first` by the test) names it.
std::string image(std::uint32_t count, const Bytes& first, const Bytes& continuation = {}) {
  std::string bytes(1024, '\0');
  Bytes prefix = {1, 0};
  put(prefix, count, 2);
  put(prefix, 1, 4);
  put(prefix, first.size(), 4);
  put(prefix, 0, 4);
  std::copy(prefix.begin(), prefix.end(), bytes.begin() + 64);
  std::copy(first.begin(), first.end(), bytes.begin() + 80);
  std::copy(continuation.begin(), continuation.end(), bytes.begin() + 512);
  return bytes;
}

// The header at 64 of a file image.
struct Read {
  explicit Read(const std::string& bytes) : source(io::open_memory(bytes)), reader(source.get(), Geometry{}) {}
  const ObjectHeader* header() { return reader.at(64); }
  std::unique_ptr<io::ByteSource> source;
  HeaderReader reader;
};

TEST(HeaderReader, ReadsEveryBlockInTheOrderItIsNamed) {
  Bytes first = message(0x01, 16);
  Bytes continuation = message(0x10, 16);
  continuation[8] = 0x00;
  continuation[9] = 0x02;  // at 512
  continuation[16] = 24;  // the block's length
  first.insert(first.end(), continuation.begin(), continuation.end());
  const Bytes second = message(0x03, 16);
  Read file(image(3, first, second));
  const ObjectHeader* header = file.header();
  ASSERT_NE(header, nullptr);
  ASSERT_EQ(header->messages.size(), 3u);
  EXPECT_EQ(header->messages[0].type, 0x01);
  EXPECT_EQ(header->messages[1].type, 0x10);
  EXPECT_EQ(header->messages[2].type, 0x03);
  EXPECT_EQ(header->blocks.size(), 2u);
}

TEST(HeaderReader, RefusesWhatHdf5RefusesToLoad) {
  EXPECT_NE(Read(image(1, message(0x01, 16))).header(), nullptr);
  // A message not a multiple of 8 bytes.
  Bytes unaligned = message(0x01, 12);
  unaligned.resize(unaligned.size() + 4, 0);
  EXPECT_EQ(Read(image(1, unaligned)).header(), nullptr);
  // More messages than the prefix counts, or fewer.
  Bytes two = message(0x01, 8);
  const Bytes more = message(0x00, 8);
  two.insert(two.end(), more.begin(), more.end());
  EXPECT_EQ(Read(image(1, two)).header(), nullptr);
  EXPECT_EQ(Read(image(3, two)).header(), nullptr);
  // Shared and not to be shared; "was unknown" without "mark if unknown".
  EXPECT_EQ(Read(image(1, message(0x01, 16, 0x06))).header(), nullptr);
  EXPECT_EQ(Read(image(1, message(0x01, 16, 0x20))).header(), nullptr);
  // A message past its block; bytes too few for another message.
  Bytes past = message(0x01, 16);
  past[2] = 24;
  EXPECT_EQ(Read(image(1, past)).header(), nullptr);
  Bytes tail = message(0x01, 16);
  tail.resize(tail.size() + 4, 0);
  EXPECT_EQ(Read(image(1, tail)).header(), nullptr);
  // Messages counted in an empty first block; a version-2 header.
  EXPECT_EQ(Read(image(1, {})).header(), nullptr);
  std::string v2 = image(1, message(0x01, 16));
  v2.replace(64, 4, "OHDR");
  EXPECT_EQ(Read(v2).header(), nullptr);
}

}  // namespace
}  // namespace h5ad_sizer::h5
