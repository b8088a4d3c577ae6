#include "h5ad_sizer/h5/vlen_lengths.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "string_dataset.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

enum class Storage { contiguous, compact, chunked_plain, chunked_filtered };

std::vector<std::string> test_strings() {
  std::vector<std::string> strings;
  for (int i = 0; i < 300; ++i) strings.push_back(std::string(static_cast<std::size_t>(i % 37), 'a'));
  strings[5] = "Z\xC3\xBCrich";  // 7 bytes of UTF-8
  return strings;
}

// Writes the strings as dataset "s" with the given storage and reopens it.
struct Fixture {
  testing::ScopedTempDir dir;
  std::unique_ptr<io::ByteSource> bytes;
  Handle file;
  Handle dataset;

  Fixture(Storage storage, const std::vector<std::string>& strings) {
    const std::string path = dir.file("s.h5");
    Handle create(H5Pcreate(H5P_DATASET_CREATE));
    hsize_t chunk = 64;
    switch (storage) {
      case Storage::contiguous:
        break;
      case Storage::compact:
        H5Pset_layout(create.get(), H5D_COMPACT);
        break;
      case Storage::chunked_plain:
        H5Pset_chunk(create.get(), 1, &chunk);
        break;
      case Storage::chunked_filtered:
        H5Pset_chunk(create.get(), 1, &chunk);
        H5Pset_shuffle(create.get());
        H5Pset_deflate(create.get(), 6);
        break;
    }
    testing::write_string_dataset(path, strings, create.get());
    bytes = io::open_local_file(path);
    file = open_file(*bytes, path);
    dataset = Handle(check(H5Dopen2(file.get(), "s", H5P_DEFAULT), "open"));
  }
};

std::vector<std::uint64_t> expected_lengths(const std::vector<std::string>& strings,
                                            const std::vector<std::uint64_t>& flat) {
  std::vector<std::uint64_t> out;
  for (auto i : flat) out.push_back(strings[i].size());
  return out;
}

const std::vector<std::uint64_t> kSample = {0, 1, 2, 5, 63, 64, 65, 200, 201, 299};

TEST(VlenLengths, ReadFromContiguousStorage) {
  const auto strings = test_strings();
  Fixture f(Storage::contiguous, strings);
  EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample), expected_lengths(strings, kSample));
}

TEST(VlenLengths, ReadFromChunksWithAndWithoutFilters) {
  const auto strings = test_strings();
  for (Storage storage : {Storage::chunked_plain, Storage::chunked_filtered}) {
    Fixture f(storage, strings);
    EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample), expected_lengths(strings, kSample));
  }
}

TEST(VlenLengths, ReadFromLzfChunksWrittenByH5py) {
  initialize();
  Handle file(check(H5Fopen(testing::data_file("lzf.h5ad").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open"));
  Handle dataset(check(H5Dopen2(file.get(), "/obs/_index", H5P_DEFAULT), "open"));
  // make_fixtures.py names cells "cell-NNNNN-AACCGGTT": 19 bytes each.
  EXPECT_EQ(read_vlen_lengths(dataset.get(), {0, 1, 39}),
            (std::vector<std::uint64_t>{19, 19, 19}));
}

TEST(VlenLengths, FilesNotOpenedThroughAByteSourceAreLeftToTheTextReader) {
  const auto strings = test_strings();
  Fixture f(Storage::contiguous, strings);
  Handle file(check(H5Fopen(f.dir.file("s.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "open"));
  Handle dataset(check(H5Dopen2(file.get(), "s", H5P_DEFAULT), "open"));
  EXPECT_EQ(read_vlen_lengths(dataset.get(), kSample), std::nullopt);
}

TEST(VlenLengths, CompactStorageIsLeftToTheTextReader) {
  Fixture f(Storage::compact, {"a", "bb"});
  EXPECT_EQ(read_vlen_lengths(f.dataset.get(), {0, 1}), std::nullopt);
}

}  // namespace
}  // namespace h5ad_sizer::h5
