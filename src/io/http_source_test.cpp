#include "h5ad_sizer/io/http_source.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"
#include "nginx_server.hpp"

namespace h5ad_sizer::io {
namespace {


// nginx serving one 4 MiB file whose byte i is i % 251.
class HttpSourceTest : public ::testing::Test {
 protected:
  HttpSourceTest() {
    std::vector<char> bytes(4 * kMiB);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i % 251);
    std::ofstream(m_root.file("blob.bin"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    m_server = std::make_unique<testing::NginxServer>(m_root.file(""));
  }
  std::unique_ptr<ByteSource> open() { return open_http(m_server->http("/blob.bin"), "blob"); }
  static void expect_pattern(const std::vector<unsigned char>& data, std::uint64_t offset) {
    for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], (offset + i) % 251) << i;
  }

  testing::ScopedTempDir m_root;
  std::unique_ptr<testing::NginxServer> m_server;
};

const std::size_t kFirst = HttpOptions{}.first_read_bytes;  // 256 KiB

TEST_F(HttpSourceTest, FirstRequestGivesSizeAndTheFirstBytes) {
  auto source = open();
  EXPECT_EQ(source->size(), 4 * kMiB);
  EXPECT_EQ(source->stats().requests, 1u);
  EXPECT_EQ(source->stats().bytes_read, kFirst);
  std::vector<unsigned char> data(1000);
  source->read(5000, data.size(), data.data());
  expect_pattern(data, 5000);
  EXPECT_EQ(source->stats().requests, 1u);  // served from the cache
}

TEST_F(HttpSourceTest, SequentialReadsDoubleTheReadAhead) {
  auto source = open();
  std::vector<unsigned char> data(64 * kKiB);
  source->read(kFirst, data.size(), data.data());  // continues the first request
  expect_pattern(data, kFirst);
  EXPECT_EQ(source->stats().bytes_read, kFirst + 128 * kKiB);
  source->read(kFirst + 128 * kKiB, data.size(), data.data());
  expect_pattern(data, kFirst + 128 * kKiB);
  EXPECT_EQ(source->stats().bytes_read, kFirst + 128 * kKiB + 256 * kKiB);
  EXPECT_EQ(source->stats().requests, 3u);
}

TEST_F(HttpSourceTest, AFarReadFetchesItsBlocksAndTheNextInOneRequest) {
  auto source = open();
  std::vector<unsigned char> data(100 * kKiB);  // spans two 64 KiB blocks
  source->read(3 * kMiB + 10, data.size(), data.data());
  expect_pattern(data, 3 * kMiB + 10);
  EXPECT_EQ(source->stats().requests, 2u);
  EXPECT_EQ(source->stats().bytes_read, kFirst + 192 * kKiB);
  // The last partial block of the file is fine too.
  std::vector<unsigned char> tail(10);
  source->read(4 * kMiB - 10, tail.size(), tail.data());
  expect_pattern(tail, 4 * kMiB - 10);
}

TEST_F(HttpSourceTest, AReadInPiecesCostsOneRequest) {
  // How HDF5 reads a global heap collection: its first 4 KiB, then the rest.
  // The first piece ends 1 KiB before a block boundary; the rest crosses it.
  auto source = open();
  const std::uint64_t start = 2 * kMiB - 5 * kKiB;
  std::vector<unsigned char> head(4 * kKiB);
  source->read(start, head.size(), head.data());
  std::vector<unsigned char> rest(60 * kKiB);
  source->read(start + head.size(), rest.size(), rest.data());
  expect_pattern(rest, start + head.size());
  EXPECT_EQ(source->stats().requests, 2u);  // the first request and this one
}

TEST_F(HttpSourceTest, MissesCloseTogetherFetchMoreEachTime) {
  // Metadata scattered through a region: each miss near the last fetch
  // doubles what is fetched, up to the cap; a far miss starts over.
  HttpOptions options;
  options.first_read_bytes = 64 * kKiB;
  options.dense_gap_bytes = 256 * kKiB;
  options.max_dense_ahead_bytes = 512 * kKiB;
  auto source = open_http(m_server->http("/blob.bin"), "blob", options);
  std::vector<unsigned char> data(4 * kKiB);
  std::uint64_t before = source->stats().bytes_read;
  auto fetched_at = [&](std::uint64_t offset) {
    source->read(offset, data.size(), data.data());
    expect_pattern(data, offset);
    const std::uint64_t fetched = source->stats().bytes_read - before;
    before = source->stats().bytes_read;
    return fetched;
  };
  EXPECT_EQ(fetched_at(512 * kKiB), 128 * kKiB);   // far from the first: the block and the next
  EXPECT_EQ(fetched_at(768 * kKiB), 128 * kKiB);   // near: 2 x 64 KiB, no more than the miss takes
  EXPECT_EQ(fetched_at(1024 * kKiB), 256 * kKiB);  // near again: doubled
  EXPECT_EQ(fetched_at(1536 * kKiB), 512 * kKiB);
  EXPECT_EQ(fetched_at(2304 * kKiB), 512 * kKiB);  // the cap
  EXPECT_EQ(fetched_at(3840 * kKiB), 128 * kKiB);  // far: back to the miss's own
  EXPECT_EQ(source->stats().requests, 7u);
}

TEST(RedactUrl, HidesTheQueryString) {
  EXPECT_EQ(redact_url("https://b.s3.amazonaws.com/k.h5ad?X-Amz-Signature=abc"),
            "https://b.s3.amazonaws.com/k.h5ad?<redacted>");
  EXPECT_EQ(redact_url("https://host/k.h5ad"), "https://host/k.h5ad");
}

}  // namespace
}  // namespace h5ad_sizer::io
