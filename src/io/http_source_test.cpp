#include "h5ad_sizer/io/http_source.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/errors.hpp"
#include "nginx_server.hpp"

namespace h5ad_sizer::io {
namespace {


// nginx serving one 4 MiB file whose byte i is i % 251, started once for
// the suite.
class HttpSourceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root = new testing::ScopedTempDir;
    std::vector<char> bytes(4 * kMiB);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i % 251);
    std::ofstream(root->file("blob.bin"), std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    server = new testing::NginxServer(root->file(""));
  }
  static void TearDownTestSuite() {
    delete server;
    server = nullptr;
    delete root;
    root = nullptr;
  }
  static std::string url() { return server->http("/blob.bin"); }
  std::unique_ptr<ByteSource> open() { return open_http(url(), "blob"); }
  static void expect_pattern(const std::vector<unsigned char>& data, std::uint64_t offset) {
    for (std::size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], (offset + i) % 251) << i;
  }

  static testing::ScopedTempDir* root;
  static testing::NginxServer* server;
};

testing::ScopedTempDir* HttpSourceTest::root = nullptr;
testing::NginxServer* HttpSourceTest::server = nullptr;

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

TEST_F(HttpSourceTest, AMissFetchesAWindowAroundIt) {
  // 512 KiB: a quarter before the miss, the rest after it. From 128 KiB
  // before byte 3 MiB + 10 to 384 KiB after it: the nine blocks 46-54.
  auto source = open();
  std::vector<unsigned char> data(100 * kKiB);  // spans two 64 KiB blocks
  source->read(3 * kMiB + 10, data.size(), data.data());
  expect_pattern(data, 3 * kMiB + 10);
  EXPECT_EQ(source->stats().requests, 2u);
  EXPECT_EQ(source->stats().bytes_read, kFirst + 9 * 64 * kKiB);
  std::vector<unsigned char> behind(1000);
  source->read(3 * kMiB - 100 * kKiB, behind.size(), behind.data());
  expect_pattern(behind, 3 * kMiB - 100 * kKiB);
  EXPECT_EQ(source->stats().requests, 2u);
  // The last partial block of the file is fine too.
  std::vector<unsigned char> tail(10);
  source->read(4 * kMiB - 10, tail.size(), tail.data());
  expect_pattern(tail, 4 * kMiB - 10);
}

TEST_F(HttpSourceTest, TheWindowGrowsWhileWhatItBringsIsRead) {
  auto source = open();
  std::vector<unsigned char> data(4 * kKiB);
  std::uint64_t before = source->stats().bytes_read;
  auto fetched_at = [&](std::uint64_t offset) {
    source->read(offset, data.size(), data.data());
    expect_pattern(data, offset);
    const std::uint64_t fetched = source->stats().bytes_read - before;
    before = source->stats().bytes_read;
    return fetched;
  };
  // Nothing past the first read's first block was read: the smallest
  // window, its part behind the miss already held.
  EXPECT_EQ(fetched_at(kFirst), 384 * kKiB);
  EXPECT_EQ(fetched_at(kFirst + 64 * kKiB), 0u);  // read from what the window brought
  // So the next window is twice as large (1 MiB, from 256 KiB behind).
  EXPECT_EQ(fetched_at(640 * kKiB), 768 * kKiB);
  // Its extra blocks went unread: back to 512 KiB.
  EXPECT_EQ(fetched_at(3 * kMiB), 512 * kKiB);
  EXPECT_EQ(source->stats().requests, 4u);
}

TEST_F(HttpSourceTest, AFirstRequestThatPaysGrowsTheFirstWindow) {
  auto source = open();
  std::vector<unsigned char> data(4 * kKiB);
  source->read(64 * kKiB, data.size(), data.data());  // a block the first request brought
  const std::uint64_t before = source->stats().bytes_read;
  source->read(kFirst, data.size(), data.data());
  expect_pattern(data, kFirst);
  // Twice the smallest window, 1 MiB: from 256 KiB behind (all held) to
  // 768 KiB ahead.
  EXPECT_EQ(source->stats().bytes_read - before, 768 * kKiB);
}

TEST_F(HttpSourceTest, TheWindowStopsGrowingAtItsMaximum) {
  HttpOptions options;
  options.first_read_bytes = 64 * kKiB;
  options.initial_window_bytes = 128 * kKiB;
  options.max_window_bytes = 256 * kKiB;
  auto source = open_http(url(), "blob", options);
  std::vector<unsigned char> data(4 * kKiB);
  std::vector<std::uint64_t> fetched;
  std::uint64_t before = source->stats().bytes_read;
  // A scan that reads every block: each window pays.
  for (std::uint64_t offset = 64 * kKiB; offset < 2 * kMiB; offset += 64 * kKiB) {
    source->read(offset, data.size(), data.data());
    expect_pattern(data, offset);
    if (source->stats().bytes_read != before) fetched.push_back(source->stats().bytes_read - before);
    before = source->stats().bytes_read;
  }
  ASSERT_GE(fetched.size(), 3u);
  EXPECT_EQ(fetched[0], 128 * kKiB);  // the first read's block 0 was the only one it held
  EXPECT_EQ(fetched[1], 192 * kKiB);  // 256 KiB, its first quarter held
  for (std::size_t i = 2; i < fetched.size(); ++i) EXPECT_EQ(fetched[i], 192 * kKiB) << i;
}

TEST_F(HttpSourceTest, TheCacheStaysWithinItsBound) {
  HttpOptions options;
  options.first_read_bytes = 64 * kKiB;
  options.initial_window_bytes = 128 * kKiB;
  options.max_window_bytes = 128 * kKiB;
  options.max_cache_bytes = 256 * kKiB;
  auto source = open_http(url(), "blob", options);
  std::vector<unsigned char> data(4 * kKiB);
  for (std::uint64_t offset = 0; offset < 4 * kMiB; offset += 256 * kKiB) {
    source->read(offset, data.size(), data.data());
    expect_pattern(data, offset);
  }
  // The first blocks were given up for later ones: reading them again is a
  // request again, and right.
  const auto requests = source->stats().requests;
  source->read(100, data.size(), data.data());
  expect_pattern(data, 100);
  EXPECT_EQ(source->stats().requests, requests + 1);
  // A read larger than the bound still works.
  std::vector<unsigned char> large(1 * kMiB);
  source->read(2 * kMiB + 7, large.size(), large.data());
  expect_pattern(large, 2 * kMiB + 7);
  source->read(3 * kMiB, data.size(), data.data());
  expect_pattern(data, 3 * kMiB);
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

TEST_F(HttpSourceTest, PrefetchBringsRangesThatReadsThenFindHeld) {
  auto source = open();
  ASSERT_TRUE(source->fetches_ahead());
  // Blocks 20 and 22 (with block 21 between them: one request), block 40
  // (another), and block 1, which the first request holds already.
  const std::uint64_t asked = source->prefetch({{20 * 64 * kKiB + 5, 100}, {22 * 64 * kKiB, 10},
                                                {40 * 64 * kKiB + 7, 64 * kKiB}, {64 * kKiB, 10}});
  EXPECT_EQ(asked, 5 * 64 * kKiB);  // blocks 20-22, 40 and 41
  EXPECT_EQ(source->stats().requests, 3u);
  EXPECT_EQ(source->stats().bytes_read, kFirst + 5 * 64 * kKiB);
  std::vector<unsigned char> data(3 * 64 * kKiB);
  source->read(20 * 64 * kKiB, data.size(), data.data());
  expect_pattern(data, 20 * 64 * kKiB);
  source->read(40 * 64 * kKiB + 3, 1000, data.data());
  data.resize(1000);
  expect_pattern(data, 40 * 64 * kKiB + 3);
  EXPECT_EQ(source->stats().requests, 3u);  // all held
  // What is held is not asked for again.
  EXPECT_EQ(source->prefetch({{21 * 64 * kKiB, 64 * kKiB}}), 0u);
  EXPECT_EQ(source->stats().requests, 3u);
}

TEST_F(HttpSourceTest, PrefetchSplitsFarRangesAndBoundsItsRequests) {
  HttpOptions options;
  options.max_window_bytes = 128 * kKiB;  // two blocks a request
  options.max_concurrent_requests = 2;
  auto source = open_http(url(), "blob", options);
  // Blocks 8-15 in one range: four requests of two blocks, two at a time.
  // A range past the end of the file and an empty one are nothing.
  EXPECT_EQ(source->prefetch({{8 * 64 * kKiB, 8 * 64 * kKiB}, {8 * kMiB, 10}, {100, 0}}), 8 * 64 * kKiB);
  EXPECT_EQ(source->stats().requests, 5u);
  std::vector<unsigned char> data(8 * 64 * kKiB);
  source->read(8 * 64 * kKiB, data.size(), data.data());
  expect_pattern(data, 8 * 64 * kKiB);
  EXPECT_EQ(source->stats().requests, 5u);
}

TEST_F(HttpSourceTest, APrefetchThatFailsIsLeftToTheReads) {
  // The file goes away after the first request: the prefetch's 404 is
  // passed over quietly, and the read that wants the bytes reports it.
  const std::string path = root->file("gone.bin");
  std::vector<char> bytes(4 * kMiB, 'x');
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto source = open_http(server->http("/gone.bin"), "gone");
  std::remove(path.c_str());
  EXPECT_EQ(source->prefetch({{2 * kMiB, 100}}), 64 * kKiB);
  EXPECT_EQ(source->stats().requests, 2u);
  std::vector<unsigned char> data(100);
  try {
    source->read(2 * kMiB, data.size(), data.data());
    ADD_FAILURE() << "the read found bytes the prefetch could not fetch";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), "gone: not found (HTTP 404)");
  }
}

TEST(RedactUrl, HidesTheQueryString) {
  EXPECT_EQ(redact_url("https://b.s3.amazonaws.com/k.h5ad?X-Amz-Signature=abc"),
            "https://b.s3.amazonaws.com/k.h5ad?<redacted>");
  EXPECT_EQ(redact_url("https://host/k.h5ad"), "https://host/k.h5ad");
}

}  // namespace
}  // namespace h5ad_sizer::io
