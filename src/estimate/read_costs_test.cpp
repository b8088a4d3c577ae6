#include "h5ad_sizer/estimate/read_costs.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer::read_costs {
namespace {

h5::StringSample lengths(std::vector<std::uint64_t> values) {
  h5::StringSample sample;
  sample.lengths = std::move(values);
  return sample;
}

TEST(ReadCosts, OverheadIsStartupPlusPerDataset) {
  // Start-up, HDF5's accumulator and sieve buffer, the run-to-run spread.
  EXPECT_EQ(read_overhead(0), (2750 + 1024 + 64 + 1536) * kKiB);
  EXPECT_EQ(read_overhead(100), (2750 + 1024 + 64 + 1536) * kKiB + 100 * 8704);
}

TEST(ReadCosts, StringReadsLeaveLessHeldThanOthers) {
  // Rounded up, as every scaled byte count is.
  EXPECT_EQ(held_after_strings(1000), checked_scale(1000, 0.4));
  EXPECT_EQ(held_after(1000), checked_scale(1000, 0.6));
  EXPECT_LT(held_after_strings(1u << 30), held_after(1u << 30));
}

TEST(ReadCosts, ChunkedReadsCostPerChunkPlusCaches) {
  EXPECT_EQ(chunked_dataset(0, false), 1126 * kKiB);
  EXPECT_EQ(chunked_dataset(1000, false), 1000 * 4200 + 1126 * kKiB);
  EXPECT_EQ(chunked_dataset(1000, true), 1000 * 4200 + (1126 + 1434) * kKiB);
  h5::DatasetInfo contiguous;
  EXPECT_EQ(dataset(contiguous), 0u);
  h5::DatasetInfo chunked;
  chunked.chunked = true;
  chunked.chunks = 10;
  EXPECT_EQ(dataset(chunked), chunked_dataset(10, false));
}

TEST(ReadCosts, ArrayStringsCostBytesObjectCStringAndSlots) {
  // 19 bytes: bytes object roundup16(52) = 64, C string max(32, roundup16(28)) = 32, slots 16.
  EXPECT_EQ(string_objects(1000, lengths({19, 19})), 1000u * 112);
  // 100 bytes: 144 + roundup16(109) = 112 + 16.
  EXPECT_EQ(string_objects(10, lengths({100})), 10u * 272);
  EXPECT_EQ(string_objects(0, lengths({19})), 0u);
}

TEST(ReadCosts, RecordStringsCostOnlyTheirBytesObjects) {
  EXPECT_EQ(record_strings(1000, lengths({8})), 1000u * 48);
  EXPECT_EQ(record_strings(1000, lengths({30})), 1000u * 64);
}

TEST(ReadCosts, ConversionBatchIsCappedAt65536Strings) {
  EXPECT_EQ(string_array_conversion(1000), 1000u * 115 + 1280 * kKiB);
  EXPECT_EQ(string_array_conversion(10000000), 65536u * 115 + 1280 * kKiB);
  EXPECT_EQ(record_conversion(), 1280 * kKiB);
}

}  // namespace
}  // namespace h5ad_sizer::read_costs
