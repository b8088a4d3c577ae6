#include "h5ad_sizer/h5/dataset_header.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <sstream>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/node.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5ad_sizer/h5/strings.hpp"
#include "h5_objects.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

// Everything a description holds, as text (a difference then reads well).
void print(std::ostream& out, const TypeInfo& type) {
  out << static_cast<int>(type.type_class) << ' ' << type.size << ' ' << type.stored_size << ' ' << type.numpy_name
      << ' ' << type.ascii << " [";
  for (std::size_t i = 0; i < type.members.size(); ++i) {
    out << type.member_names[i] << ':';
    print(out, type.members[i]);
  }
  out << ']';
  for (auto d : type.array_dims) out << ' ' << d;
}

std::string text(const DatasetInfo& info) {
  std::ostringstream out;
  print(out, info.type);
  out << " null " << info.null_space << " dims";
  for (auto d : info.dims) out << ' ' << d;
  out << " elements " << info.elements << " stored " << info.stored_bytes << " exact " << info.stored_bytes_exact
      << " chunked " << info.chunked << " chunks " << info.chunks << " compressed " << info.compressed
      << " unavailable";
  for (int id : info.unavailable_filters) out << ' ' << id;
  return out.str();
}

std::string text(const StringSample& sample) {
  std::ostringstream out;
  out << sample.population << " texts";
  for (const auto& t : sample.texts) out << ' ' << t.size() << ':' << t;
  out << " oversized";
  for (auto l : sample.oversized_lengths) out << ' ' << l;
  out << " lengths";
  for (auto l : sample.lengths) out << ' ' << l;
  return out.str();
}

struct Compared {
  std::size_t datasets = 0;
  std::size_t described = 0;  // from the header
  std::size_t sampled = 0;    // strings sampled without HDF5
};

// Every dataset of the file at `path` described by HDF5 and from its
// header, and the strings of each sampled both ways: where the header
// reading answers, it answers the same. A file HDF5 cannot open is skipped.
Compared compare_every_dataset(const std::string& path) {
  Compared compared;
  const testing::OpenedFile opened(path);
  const hid_t file = opened.file.get();
  if (!opened.file) return compared;
  StringHeap heap(file);
  HeaderReader headers(heap.source(), heap.geometry());
  for (const std::string& name : testing::object_names(file, /*datasets_only=*/true)) {
    ++compared.datasets;
    Handle dataset(H5Oopen(file, name.c_str(), H5P_DEFAULT));
    const auto address = object_address(dataset.get());
    if (!address) continue;
    const ObjectHeader* header = headers.at(*address);
    if (header == nullptr) continue;
    EXPECT_FALSE(is_group_header(*header)) << path << " " << name;
    const auto direct =
        describe_from_header(*header, heap.geometry(), StorageDetail::object_header, opened.source->size());
    DatasetInfo info;
    try {
      info = describe_dataset(dataset.get(), StorageDetail::object_header);
    } catch (const std::exception& error) {
      EXPECT_FALSE(direct) << path << " " << name << ": HDF5 says " << error.what();
      continue;
    }
    if (!direct) continue;
    ++compared.described;
    EXPECT_EQ(text(direct->info), text(info)) << path << " " << name;
    const haddr_t offset = H5Dget_offset(dataset.get());
    EXPECT_EQ(direct->data_address.value_or(HADDR_UNDEF), offset == HADDR_UNDEF ? offset : offset - heap.geometry().base)
        << path << " " << name;
    if (!direct->data_address) continue;
    // The strings: of the dataset, or of each string member of a record.
    std::vector<std::string> members;
    if (info.type.type_class == TypeClass::vlen_string) members.emplace_back();
    for (std::size_t i = 0; i < info.type.members.size(); ++i) {
      if (info.type.members[i].type_class == TypeClass::vlen_string) members.push_back(info.type.member_names[i]);
    }
    for (const std::string& member : members) {
      std::string by_hdf5;
      try {
        by_hdf5 = text(sample_strings(dataset.get(), info, member));
      } catch (const std::exception& error) {
        by_hdf5 = error.what();
      }
      try {
        const auto sample = sample_strings_at(heap, direct->info, *direct->data_address, member, direct->records);
        if (!sample) continue;
        ++compared.sampled;
        EXPECT_EQ(text(*sample), by_hdf5) << path << " " << name << " " << member;
      } catch (const std::exception& error) {
        EXPECT_EQ(error.what(), by_hdf5) << path << " " << name << " " << member;
      }
    }
  }
  return compared;
}

TEST(DatasetHeader, DescribesAsHdf5DoesEveryDatasetOfTheFixturesAndTheRealCorpus) {
  Compared all;
  for (const std::string& folder : {std::string(H5AD_SIZER_DATA_DIR), std::string(H5AD_SIZER_CORPUS_DIR)}) {
    for (const std::string& path : testing::h5ad_files(folder)) {
      const Compared file = compare_every_dataset(path);
      all.datasets += file.datasets;
      all.described += file.described;
      all.sampled += file.sampled;
    }
  }
  EXPECT_GT(all.datasets, 300u);
  // What h5py writes is nearly all read from the headers.
  EXPECT_GT(all.described, all.datasets * 3 / 4);
  EXPECT_GT(all.sampled, 20u);
}

TEST(DatasetHeader, ReadsScalarsUnwrittenAndChunkedDatasetsAsHdf5Does) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("kinds.h5");
  {
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    Handle scalar(H5Screate(H5S_SCALAR));
    Handle one(H5Dcreate2(file.get(), "scalar", H5T_STD_I64LE, scalar.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const std::int64_t value = 7;
    ASSERT_GE(H5Dwrite(one.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &value), 0);
    hsize_t n = 1000;
    Handle space(H5Screate_simple(1, &n, nullptr));
    // Contiguous and never written: no address.
    Handle unwritten(H5Dcreate2(file.get(), "unwritten", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                H5P_DEFAULT));
    Handle create(H5Pcreate(H5P_DATASET_CREATE));
    hsize_t chunk = 64;
    H5Pset_chunk(create.get(), 1, &chunk);
    H5Pset_deflate(create.get(), 4);
    Handle chunked(H5Dcreate2(file.get(), "chunked", H5T_STD_U16LE, space.get(), H5P_DEFAULT, create.get(),
                              H5P_DEFAULT));
    Handle compact_create(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_layout(compact_create.get(), H5D_COMPACT);
    hsize_t few = 4;
    Handle few_space(H5Screate_simple(1, &few, nullptr));
    Handle compact(H5Dcreate2(file.get(), "compact", H5T_IEEE_F64LE, few_space.get(), H5P_DEFAULT,
                              compact_create.get(), H5P_DEFAULT));
    const double values[4] = {1, 2, 3, 4};
    ASSERT_GE(H5Dwrite(compact.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), 0);
    Handle null_space(H5Screate(H5S_NULL));
    Handle empty(H5Dcreate2(file.get(), "empty", H5T_STD_I8LE, null_space.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT));
  }
  const Compared compared = compare_every_dataset(path);
  EXPECT_EQ(compared.datasets, 5u);
  EXPECT_EQ(compared.described, 5u);
}

TEST(DatasetHeader, ReadsRecordArraysAsHdf5Does) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("records.h5");
  {
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    Handle text(H5Tcopy(H5T_C_S1));
    H5Tset_size(text.get(), H5T_VARIABLE);
    // Members written out of offset order: HDF5 lists them by offset.
    struct Row {
      double score;
      const char* name;
      std::int32_t rank;
      const char* group;
    };
    Handle row(H5Tcreate(H5T_COMPOUND, sizeof(Row)));
    H5Tinsert(row.get(), "group", HOFFSET(Row, group), text.get());
    H5Tinsert(row.get(), "score", HOFFSET(Row, score), H5T_NATIVE_DOUBLE);
    H5Tinsert(row.get(), "name", HOFFSET(Row, name), text.get());
    H5Tinsert(row.get(), "rank", HOFFSET(Row, rank), H5T_NATIVE_INT32);
    std::vector<Row> rows;
    std::vector<std::string> names;
    for (int i = 0; i < 300; ++i) names.push_back("GENE" + std::to_string(i * 37));
    for (int i = 0; i < 300; ++i) rows.push_back({i * 0.5, names[static_cast<std::size_t>(i)].c_str(), i, "g1"});
    hsize_t n = rows.size();
    Handle space(H5Screate_simple(1, &n, nullptr));
    Handle records(H5Dcreate2(file.get(), "ranked", row.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_GE(H5Dwrite(records.get(), row.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, rows.data()), 0);
    Handle pair(H5Tcreate(H5T_COMPOUND, 16));
    H5Tinsert(pair.get(), "r", 0, H5T_NATIVE_DOUBLE);
    H5Tinsert(pair.get(), "i", 8, H5T_NATIVE_DOUBLE);
    Handle complex(H5Dcreate2(file.get(), "complex", pair.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT));
    // An array member (legacy obsm records): left to HDF5.
    hsize_t fifty = 50;
    Handle vector(H5Tarray_create2(H5T_IEEE_F32LE, 1, &fifty));
    Handle with_array(H5Tcreate(H5T_COMPOUND, 4 + 200));
    H5Tinsert(with_array.get(), "a", 0, H5T_STD_I32LE);
    H5Tinsert(with_array.get(), "X_pca", 4, vector.get());
    Handle arrays(H5Dcreate2(file.get(), "arrays", with_array.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT));
  }
  const Compared compared = compare_every_dataset(path);
  EXPECT_EQ(compared.datasets, 3u);
  EXPECT_EQ(compared.described, 2u);
  EXPECT_EQ(compared.sampled, 2u);  // "group" and "name"
}

TEST(DatasetHeader, LeavesVersion2HeadersToHdf5) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("others.h5");
  {
    Handle access(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_libver_bounds(access.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()));
    hsize_t n = 10;
    Handle space(H5Screate_simple(1, &n, nullptr));
    Handle latest(H5Dcreate2(file.get(), "latest", H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                             H5P_DEFAULT));
    Handle text(H5Tcopy(H5T_C_S1));
    H5Tset_size(text.get(), H5T_VARIABLE);
    Handle strings(H5Dcreate2(file.get(), "strings", text.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT));
  }
  const Compared compared = compare_every_dataset(path);
  EXPECT_EQ(compared.datasets, 2u);
  EXPECT_EQ(compared.described, 0u);
}

}  // namespace
}  // namespace h5ad_sizer::h5
