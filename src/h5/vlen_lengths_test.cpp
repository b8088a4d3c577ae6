#include "h5ad_sizer/h5/vlen_lengths.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
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

// A record array as numpy lays one out in memory, padded and aligned, with
// string members before, between and after numbers (so their file offsets
// differ from their memory ones): {int32 a, str s, float64 f, str t, int8 b}.
struct Record {
  std::int32_t a;
  const char* s;
  double f;
  const char* t;
  std::int8_t b;
};

struct CompoundFixture {
  testing::ScopedTempDir dir;
  std::unique_ptr<io::ByteSource> bytes;
  Handle file;
  Handle dataset;
  std::vector<std::string> s_values;
  std::vector<std::string> t_values;

  CompoundFixture(Storage storage, bool nested = false) {
    for (int i = 0; i < 300; ++i) {
      s_values.push_back(std::string(static_cast<std::size_t>(i % 41), 's'));
      t_values.push_back(std::string(static_cast<std::size_t>((i * 7) % 23), 't'));
    }
    const std::string path = dir.file("r.h5");
    Handle string_type(H5Tcopy(H5T_C_S1));
    H5Tset_size(string_type.get(), H5T_VARIABLE);
    Handle type(H5Tcreate(H5T_COMPOUND, sizeof(Record)));
    H5Tinsert(type.get(), "a", HOFFSET(Record, a), H5T_NATIVE_INT32);
    H5Tinsert(type.get(), "s", HOFFSET(Record, s), string_type.get());
    H5Tinsert(type.get(), "f", HOFFSET(Record, f), H5T_NATIVE_DOUBLE);
    H5Tinsert(type.get(), "t", HOFFSET(Record, t), string_type.get());
    H5Tinsert(type.get(), "b", HOFFSET(Record, b), H5T_NATIVE_INT8);
    std::vector<Record> records;
    for (std::size_t i = 0; i < s_values.size(); ++i) {
      records.push_back({static_cast<std::int32_t>(i), s_values[i].c_str(), 0.5, t_values[i].c_str(), 1});
    }
    Handle stored(H5Tcopy(type.get()));
    if (nested) {
      // The record inside another compound: not followed.
      stored = Handle(H5Tcreate(H5T_COMPOUND, sizeof(Record)));
      H5Tinsert(stored.get(), "inner", 0, type.get());
    }
    Handle create(H5Pcreate(H5P_DATASET_CREATE));
    hsize_t chunk = 64;
    if (storage == Storage::chunked_filtered) {
      H5Pset_chunk(create.get(), 1, &chunk);
      H5Pset_shuffle(create.get());
      H5Pset_deflate(create.get(), 6);
    }
    {
      Handle out(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
      hsize_t count = records.size();
      Handle space(H5Screate_simple(1, &count, nullptr));
      Handle written(H5Dcreate2(out.get(), "r", stored.get(), space.get(), H5P_DEFAULT, create.get(), H5P_DEFAULT));
      EXPECT_GE(H5Dwrite(written.get(), stored.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, records.data()), 0);
    }
    bytes = io::open_local_file(path);
    file = open_file(*bytes, path);
    dataset = Handle(check(H5Dopen2(file.get(), "r", H5P_DEFAULT), "open"));
  }
};

TEST(VlenLengths, ReadForTheStringMembersOfARecordArray) {
  for (Storage storage : {Storage::contiguous, Storage::chunked_filtered}) {
    CompoundFixture f(storage);
    EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample, "s"), expected_lengths(f.s_values, kSample));
    EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample, "t"), expected_lengths(f.t_values, kSample));
  }
}

TEST(VlenLengths, NumberMembersAndNestedRecordsAreLeftToTheTextReader) {
  CompoundFixture f(Storage::contiguous);
  EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample, "f"), std::nullopt);
  EXPECT_EQ(read_vlen_lengths(f.dataset.get(), kSample, "missing"), std::nullopt);
  CompoundFixture nested(Storage::contiguous, /*nested=*/true);
  EXPECT_EQ(read_vlen_lengths(nested.dataset.get(), kSample, "inner"), std::nullopt);
}

TEST(StringHeap, ReadsTheTextsTheReferencesPointAt) {
  auto strings = test_strings();
  strings[7] = "";
  Fixture f(Storage::contiguous, strings);
  StringHeap heap(f.dataset.get());
  const auto references = heap.references(f.dataset.get(), kSample);
  ASSERT_TRUE(references);
  std::vector<std::string> texts;
  std::vector<std::uint64_t> oversized;
  ASSERT_TRUE(heap.texts(*references, {1u << 20, 16u << 20}, texts, oversized));
  std::vector<std::string> expected;
  for (auto i : kSample) expected.push_back(strings[i]);
  EXPECT_EQ(texts, expected);  // Zürich's UTF-8 bytes included
  EXPECT_TRUE(oversized.empty());
  // The same again, from the collections already parsed.
  texts.clear();
  ASSERT_TRUE(heap.texts(*references, {1u << 20, 16u << 20}, texts, oversized));
  EXPECT_EQ(texts, expected);
}

TEST(StringHeap, MeasuresStringsOverTheLimitsWithoutCopyingThem) {
  const auto strings = test_strings();
  Fixture f(Storage::chunked_filtered, strings);
  StringHeap heap(f.dataset.get());
  const auto references = heap.references(f.dataset.get(), {35, 36, 37});  // 35, 36 and 0 bytes
  ASSERT_TRUE(references);
  std::vector<std::string> texts;
  std::vector<std::uint64_t> oversized;
  ASSERT_TRUE(heap.texts(*references, {36, 16u << 20}, texts, oversized));  // 36 bytes with the terminator
  EXPECT_EQ(texts, (std::vector<std::string>{std::string(35, 'a'), ""}));
  EXPECT_EQ(oversized, (std::vector<std::uint64_t>{36}));
}

TEST(StringHeap, AReferenceTheHeapDoesNotHoldIsLeftToHDF5) {
  const auto strings = test_strings();
  Fixture f(Storage::contiguous, strings);
  StringHeap heap(f.dataset.get());
  auto references = heap.references(f.dataset.get(), {1, 2});
  ASSERT_TRUE(references);
  std::vector<std::string> texts;
  std::vector<std::uint64_t> oversized;
  auto wrong = *references;
  wrong[1].object += 1000;  // no such object
  EXPECT_FALSE(heap.texts(wrong, {1u << 20, 16u << 20}, texts, oversized));
  wrong = *references;
  wrong[1].length += 1;  // an object of another length
  EXPECT_FALSE(heap.texts(wrong, {1u << 20, 16u << 20}, texts, oversized));
  wrong = *references;
  wrong[1].collection += 8;  // not a collection
  EXPECT_FALSE(heap.texts(wrong, {1u << 20, 16u << 20}, texts, oversized));
  EXPECT_TRUE(texts.empty());
  EXPECT_TRUE(oversized.empty());
}

// The strings' file with its first global heap collection damaged by
// `damage` (given the bytes and where the collection starts), reopened from
// memory: the texts are then left to HDF5 where HDF5 would refuse the
// collection.
bool texts_after(const std::function<void(std::string&, std::size_t)>& damage) {
  testing::ScopedTempDir dir;
  const std::string path = dir.file("s.h5");
  testing::write_string_dataset(path, {"alpha", "beta", "gamma"});
  std::string bytes = testing::read_text(path);
  const std::size_t collection = bytes.find("GCOL");
  EXPECT_NE(collection, std::string::npos);
  damage(bytes, collection);
  auto source = io::open_memory(bytes);
  Handle file = open_file(*source, path);
  Handle dataset(check(H5Dopen2(file.get(), "s", H5P_DEFAULT), "open"));
  StringHeap heap(dataset.get());
  const auto references = heap.references(dataset.get(), {0, 1, 2});
  EXPECT_TRUE(references);
  std::vector<std::string> texts;
  std::vector<std::uint64_t> oversized;
  return references && heap.texts(*references, {1u << 20, 16u << 20}, texts, oversized);
}

// The object at `at` (its header: number, references, 4 reserved, size).
std::uint64_t object_size(const std::string& bytes, std::size_t at) {
  std::uint64_t size = 0;
  std::memcpy(&size, bytes.data() + at + 8, 8);
  return size;
}

TEST(StringHeap, ACollectionHdf5RefusesIsLeftToHdf5) {
  EXPECT_TRUE(texts_after([](std::string&, std::size_t) {}));
  // The free space (object 0, after the three strings) smaller than its
  // own header: HDF5, as patched here, refuses the collection.
  EXPECT_FALSE(texts_after([](std::string& bytes, std::size_t collection) {
    std::size_t at = collection + 16;
    for (int i = 0; i < 3; ++i) at += 16 + (object_size(bytes, at) + 7) / 8 * 8;
    ASSERT_EQ(bytes[at], 0);  // object 0
    bytes[at + 8] = 8;
    std::memset(&bytes[at + 9], 0, 7);
  }));
  // An object running past the collection's end.
  EXPECT_FALSE(texts_after([](std::string& bytes, std::size_t collection) {
    bytes[collection + 16 + 8 + 3] = 0x7f;  // the first object: 2 GiB
  }));
}

}  // namespace
}  // namespace h5ad_sizer::h5
