#include "h5ad_sizer/io/read_footprint.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace h5ad_sizer::io {
namespace {

TEST(ReadFootprint, CountsEachByteOnce) {
  ReadFootprint footprint;
  footprint.add(100, 50);
  footprint.add(100, 50);  // the same read again
  footprint.add(120, 10);  // inside it
  EXPECT_EQ(footprint.bytes(), 50u);
  EXPECT_EQ(footprint.ranges(), 1u);
  footprint.add(0, 0);
  EXPECT_EQ(footprint.bytes(), 50u);
}

TEST(ReadFootprint, JoinsOverlappingAndAdjoiningRanges) {
  ReadFootprint footprint;
  footprint.add(0, 10);
  footprint.add(20, 10);
  footprint.add(40, 10);
  EXPECT_EQ(footprint.bytes(), 30u);
  EXPECT_EQ(footprint.ranges(), 3u);
  footprint.add(10, 10);  // fills the hole between the first two exactly
  EXPECT_EQ(footprint.bytes(), 40u);
  EXPECT_EQ(footprint.ranges(), 2u);
  footprint.add(5, 100);  // covers everything and more
  EXPECT_EQ(footprint.bytes(), 105u);
  EXPECT_EQ(footprint.ranges(), 1u);
}

TEST(ReadFootprint, ExtendsARangeItStartsInside) {
  ReadFootprint footprint;
  footprint.add(10, 10);
  footprint.add(15, 20);  // [15, 35) reaches past [10, 20)
  EXPECT_EQ(footprint.bytes(), 25u);
  EXPECT_EQ(footprint.ranges(), 1u);
}

TEST(ReadFootprint, ClampsARangePastTheEndOfTheOffsets) {
  ReadFootprint footprint;
  footprint.add(UINT64_MAX - 5, 100);
  EXPECT_EQ(footprint.bytes(), 5u);
}

// Against a byte map, on random reads of a small file.
TEST(ReadFootprint, MatchesAByteMap) {
  std::mt19937 random(11);
  for (int round = 0; round < 50; ++round) {
    ReadFootprint footprint;
    std::vector<bool> read(4096, false);
    for (int i = 0; i < 200; ++i) {
      const std::uint64_t offset = random() % 4000;
      const std::uint64_t length = random() % 96;
      footprint.add(offset, length);
      for (std::uint64_t b = offset; b < offset + length; ++b) read[b] = true;
    }
    std::uint64_t bytes = 0;
    std::size_t ranges = 0;
    for (std::size_t b = 0; b < read.size(); ++b) {
      bytes += read[b];
      ranges += read[b] && (b == 0 || !read[b - 1]);
    }
    ASSERT_EQ(footprint.bytes(), bytes) << "round " << round;
    ASSERT_EQ(footprint.ranges(), ranges) << "round " << round;
  }
}

}  // namespace
}  // namespace h5ad_sizer::io
