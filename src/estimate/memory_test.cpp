// The model over real fixtures: what each read path costs.
#include "h5ad_sizer/estimate/memory.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/estimate/python_costs.hpp"
#include "h5ad_sizer/estimate/read_costs.hpp"
#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

// The costs point into the report: keep both alive together.
struct Costed {
  Report report;
  MemoryEstimate memory;
};

Costed cost_fixture(const std::string& name) {
  Costed costed{read_anndata(open_source(testing::data_file(name))), {}};
  costed.memory = estimate_memory(costed.report, *find_runtime("anndata-0.8"));
  return costed;
}

const ElementCost& top(const MemoryEstimate& memory, const std::string& path) {
  const ElementCost* found = memory.find(path);
  if (found == nullptr) throw std::runtime_error("no element " + path);
  return *found;
}

const ElementCost* child(const ElementCost& parent, const std::string& path) {
  for (const ElementCost& c : parent.children) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

// A parent's final bytes are exactly its children's.
void expect_children_add_up(const ElementCost& cost) {
  if (cost.children.empty()) return;
  std::uint64_t final_bytes = 0;
  for (const ElementCost& c : cost.children) {
    final_bytes += c.final_bytes;
    expect_children_add_up(c);
  }
  EXPECT_EQ(cost.final_bytes, final_bytes) << cost.path;
}

TEST(Memory, NumericArraysAreElementsTimesItemsize) {
  const Costed dense = cost_fixture("dense.h5ad");
  EXPECT_EQ(top(dense.memory, "/X").final_bytes, 40u * 30 * 4);
  const Costed example = cost_fixture("example.h5ad");
  EXPECT_EQ(top(example.memory, "/X").final_bytes, 2000u * 4 + 2000u * 4 + 201u * 4);
  EXPECT_EQ(top(example.memory, "/obsm/X_umap").final_bytes, 200u * 2 * 8);
}

TEST(Memory, StringsCategoricalsNullablesAndTheIndexHash) {
  const Costed costed = cost_fixture("strings.h5ad");
  const ElementCost& obs = top(costed.memory, "/obs");
  const ElementCost* index = child(obs, "/obs/_index");
  ASSERT_NE(index, nullptr);
  // "cell-000123": 11 ASCII characters -> getsizeof 60 -> 64, plus a pointer.
  EXPECT_EQ(index->final_bytes, 500u * (8 + 64));
  const ElementCost* cluster = child(obs, "/obs/cluster");
  ASSERT_NE(cluster, nullptr);
  EXPECT_EQ(child(*cluster, "/obs/cluster/codes")->final_bytes, 500u * 2);  // 300 categories: int16
  EXPECT_NE(child(*cluster, "[categories hash table]"), nullptr);
  EXPECT_EQ(child(obs, "/obs/count")->final_bytes, 500u * 8 + 500u * 1);  // int64 values + bool mask
  const ElementCost* hash = child(obs, "[index hash table]");
  ASSERT_NE(hash, nullptr);
  EXPECT_EQ(hash->element, nullptr);
  EXPECT_EQ(hash->final_bytes, python::hash_table_bytes(500));
}

TEST(Memory, LegacyRecordMembersAndLinksNotFollowed) {
  const Costed legacy = cost_fixture("legacy.h5ad");
  EXPECT_EQ(top(legacy.memory, "/obsm[X_pca]").final_bytes, 20u * 5 * 4);
  const Costed links = cost_fixture("links.h5ad");
  EXPECT_EQ(top(links.memory, "/uns/elsewhere").final_bytes, 0u);
}

TEST(Memory, EveryParentIsTheSumOfItsChildren) {
  for (const char* name : {"dense.h5ad", "example.h5ad", "csc.h5ad", "no_x.h5ad", "strings.h5ad",
                           "lzf.h5ad", "legacy.h5ad", "links.h5ad"}) {
    SCOPED_TRACE(name);
    const Costed costed = cost_fixture(name);
    ASSERT_EQ(costed.memory.elements.size(), costed.report.elements.size());
    for (const ElementCost& cost : costed.memory.elements) expect_children_add_up(cost);
  }
}

TEST(MemoryPeak, ContiguousNumericReadsNeedNothingExtra) {
  const Costed costed = cost_fixture("dense.h5ad");
  const ElementCost& x = top(costed.memory, "/X");
  EXPECT_EQ(x.python_transient_bytes, 0u);
  EXPECT_EQ(x.io_transient_bytes, 0u);
  EXPECT_EQ(x.buffer_transient_bytes, 0u);
}

TEST(MemoryPeak, ChunkedReadsCostTheirChunkRecords) {
  const Costed costed = cost_fixture("example.h5ad");
  const ElementCost& x = top(costed.memory, "/X");
  // gzip-compressed, chunked by h5py: the largest part's chunk records.
  std::uint64_t largest = 0;
  for (const ElementCost& part : x.children) largest = std::max(largest, part.io_transient_bytes);
  EXPECT_EQ(x.io_transient_bytes, largest);
  EXPECT_GE(largest, read_costs::chunked_dataset(1, /*compressed=*/true));
  EXPECT_EQ(x.python_transient_bytes, 0u);
}

TEST(MemoryPeak, StringArraysCostObjectsAndConversionBuffers) {
  const Costed costed = cost_fixture("strings.h5ad");
  const ElementCost* index = child(top(costed.memory, "/obs"), "/obs/_index");
  ASSERT_NE(index, nullptr);
  // "cell-000123": 11 bytes -> bytes object 48, C string 32, slots 16.
  EXPECT_EQ(index->python_transient_bytes, 500u * (48 + 32 + 16));
  EXPECT_EQ(index->buffer_transient_bytes, read_costs::string_array_conversion(500));
}

TEST(MemoryPeak, CategoricalCodesOfTheRightTypeAreNotCopied) {
  const Costed costed = cost_fixture("strings.h5ad");
  const ElementCost* cluster = child(top(costed.memory, "/obs"), "/obs/cluster");
  ASSERT_NE(cluster, nullptr);
  // 300 categories: pandas wrote int16 codes and keeps int16, so the only
  // transient is reading the category strings.
  const ElementCost* categories = child(*cluster, "/obs/cluster/categories");
  ASSERT_NE(categories, nullptr);
  EXPECT_EQ(cluster->python_transient_bytes, categories->python_transient_bytes);
}

TEST(MemoryPeak, PeakIsFinalPlusEachPoolsLargestTransientPlusOverhead) {
  const Costed costed = cost_fixture("example.h5ad");
  std::uint64_t final_bytes = 0;
  std::uint64_t py = 0, io = 0, buffers = 0;
  for (const ElementCost& e : costed.memory.elements) {
    final_bytes += e.final_bytes;
    py = std::max(py, e.python_transient_bytes);
    io = std::max(io, e.io_transient_bytes);
    buffers = std::max(buffers, e.buffer_transient_bytes);
  }
  EXPECT_EQ(costed.memory.final_bytes(), final_bytes);
  EXPECT_EQ(costed.memory.peak_bytes(), final_bytes + py + io + buffers + costed.memory.read_overhead_bytes);
  EXPECT_EQ(costed.memory.read_overhead_bytes, read_costs::read_overhead(costed.report.datasets_read));
  EXPECT_GT(costed.report.datasets_read, 0u);
}

// The model needs no HDF5 file: a report made by hand is enough.
TEST(MemoryModel, IsAFunctionOfTheReportAlone) {
  Report report;
  report.source = "made-by-hand";
  Element column;
  column.path = "/obs/n_genes";
  column.encoding = "array";
  column.form = Form::numbers;
  column.shape = {1000};
  column.nnz = 1000;
  column.itemsize = 8;
  Element index;
  index.path = "/obs/_index";
  index.encoding = "string-array";
  index.form = Form::str_objects;
  index.shape = {1000};
  index.nnz = 1000;
  index.strings = h5::StringSample{};
  index.strings->lengths.assign(100, 11);
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.shape = {1000, 1};
  obs.children = {column, index};
  report.elements = {obs};
  report.datasets_read = 2;

  const MemoryEstimate memory = estimate_memory(report, *find_runtime("anndata-0.11"));
  const ElementCost& frame = memory.elements.at(0);
  EXPECT_EQ(frame.children.at(0).final_bytes, 8000u);
  EXPECT_EQ(frame.children.at(1).final_bytes, 1000u * (8 + 64));
  EXPECT_EQ(memory.runtime.name, "anndata-0.11");
  EXPECT_EQ(memory.peak_bytes(), memory.final_bytes() + frame.python_transient_bytes +
                                     frame.buffer_transient_bytes + memory.read_overhead_bytes);
}

}  // namespace
}  // namespace h5ad_sizer
