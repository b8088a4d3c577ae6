#include "h5ad_sizer/h5/strings.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "string_dataset.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

void write_strings(const std::string& path, const std::vector<std::string>& strings) {
  testing::write_string_dataset(path, strings);
}

StringSample sample_file(const std::string& path, const SampleLimits& limits) {
  Handle file(check(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open"));
  Handle dataset(check(H5Dopen2(file.get(), "s", H5P_DEFAULT), "open dataset"));
  return sample_strings(dataset.get(), describe_dataset(dataset.get(), StorageDetail::chunk_index), "", limits);
}

TEST(SampleIndices, ReadsEverythingWhenSmallAndSpreadRunsWhenLarge) {
  SampleLimits limits;
  limits.max_strings = 8;
  limits.runs = 2;
  EXPECT_EQ(sample_indices(3, limits), (std::vector<std::uint64_t>{0, 1, 2}));
  // Two runs of four: one at the start, one ending at the last element.
  EXPECT_EQ(sample_indices(100, limits),
            (std::vector<std::uint64_t>{0, 1, 2, 3, 96, 97, 98, 99}));
}

TEST(SampleStrings, ReadsTheSampledText) {
  testing::ScopedTempDir dir;
  const std::string path = dir.file("s.h5");
  write_strings(path, {"alpha", "", "Z\xC3\xBCrich"});
  const StringSample sample = sample_file(path, {});
  EXPECT_EQ(sample.population, 3u);
  EXPECT_EQ(sample.texts, (std::vector<std::string>{"alpha", "", "Z\xC3\xBCrich"}));
  EXPECT_TRUE(sample.oversized_lengths.empty());
}

TEST(SampleStrings, MeasuresHugeStringsWithoutCopyingThem) {
  testing::ScopedTempDir dir;
  const std::string path = dir.file("huge.h5");
  std::vector<std::string> strings(20, "short");
  strings[1] = std::string(5000, 'h');
  strings[3] = std::string(7000, 'u');
  write_strings(path, strings);
  SampleLimits limits;
  limits.max_string_bytes = 1024;
  limits.max_total_bytes = 4096;
  const StringSample sample = sample_file(path, limits);
  EXPECT_EQ(sample.size(), 20u);
  EXPECT_EQ(sample.texts.size(), 18u);
  EXPECT_EQ(sample.oversized_lengths, (std::vector<std::uint64_t>{5000, 7000}));
}

TEST(SampleStrings, StaysWithinTheTotalBudget) {
  testing::ScopedTempDir dir;
  const std::string path = dir.file("many.h5");
  write_strings(path, std::vector<std::string>(50, std::string(900, 'm')));
  SampleLimits limits;
  limits.max_string_bytes = 1024;
  limits.max_total_bytes = 4096;  // fewer than five strings fit at once
  const StringSample sample = sample_file(path, limits);
  EXPECT_EQ(sample.texts.size(), 50u);  // read one at a time instead
  EXPECT_TRUE(sample.oversized_lengths.empty());
}

TEST(SampleStrings, ACorruptHeapIsAFailureNotACrash) {
  testing::ScopedTempDir dir;
  const std::string path = dir.file("corrupt.h5");
  write_strings(path, {"one", "two", "three"});
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto heap = bytes.find("GCOL");  // the global heap collection's signature
  ASSERT_NE(heap, std::string::npos);
  bytes.replace(heap, 4, "XXXX");
  std::ofstream(path, std::ios::binary) << bytes;
  EXPECT_THROW(sample_file(path, {}), Failure);
}

}  // namespace
}  // namespace h5ad_sizer::h5
