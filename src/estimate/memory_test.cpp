// The model over real fixtures: what each read path costs.
#include "h5ad_sizer/estimate/memory.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/anndata/reader.hpp"
#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/estimate/profile.hpp"
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

TEST(MemoryPeak, PeakIsFinalPlusPythonAtThePeakPlusEachHdf5PoolsLargestPlusOverhead) {
  const Costed costed = cost_fixture("example.h5ad");
  std::uint64_t final_bytes = 0;
  std::uint64_t py = 0, held = 0, io = 0, buffers = 0;
  for (const ElementCost& e : costed.memory.elements) {
    final_bytes += e.final_bytes;
    py = std::max(py, e.python_transient_bytes);
    held = std::max(held, e.python_held_bytes);
    io = std::max(io, e.io_transient_bytes);
    buffers = std::max(buffers, e.buffer_transient_bytes);
  }
  const MemoryEstimate::PythonPeak python = costed.memory.python_peak();
  EXPECT_EQ(costed.memory.final_bytes(), final_bytes);
  EXPECT_GT(python.bytes, 0u);
  // Never more than all finals with the largest read on top, which is what
  // the model counted before reads had an order.
  EXPECT_LE(python.bytes, checked_add(py, held));
  EXPECT_EQ(costed.memory.peak_bytes(),
            final_bytes + python.bytes + io + buffers + costed.memory.read_overhead_bytes);
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
  // One element, read last: its temporaries on top of everything.
  EXPECT_EQ(memory.python_peak().element, &frame);
  EXPECT_EQ(memory.peak_bytes(), memory.final_bytes() + frame.python_transient_bytes +
                                     frame.buffer_transient_bytes + memory.read_overhead_bytes);
}

// Small structural reports made by hand: one obs frame with a numeric
// column, a nullable integer column, a string column and a string index.
Element column(const std::string& path, const char* encoding, Form form, std::uint64_t rows) {
  Element e;
  e.path = path;
  e.encoding = encoding;
  e.form = form;
  e.shape = {rows};
  e.nnz = rows;
  return e;
}

Element strings(const std::string& path, std::uint64_t rows, std::uint64_t length) {
  Element e = column(path, "string-array", Form::str_objects, rows);
  e.strings = h5::StringSample{};
  e.strings->lengths.assign(100, length);
  e.strings->population = rows;
  return e;
}

Element numbers(const std::string& path, std::uint64_t rows, std::uint64_t itemsize) {
  Element e = column(path, "array", Form::numbers, rows);
  e.itemsize = itemsize;
  return e;
}

Element nullable_integer(const std::string& path, std::uint64_t rows) {
  Element e;
  e.path = path;
  e.encoding = "nullable-integer";
  e.children = {numbers(path + "/values", rows, 8), numbers(path + "/mask", rows, 1)};
  return e;
}

// An obs frame: a numeric column, `nullables` nullable integer columns, a
// 40-byte string column when `note`, and an 11-byte string index.
Report obs_report(std::uint64_t rows, std::size_t nullables, bool note) {
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.checks_unique_index = true;
  obs.children.push_back(numbers("/obs/n_genes", rows, 8));
  for (std::size_t i = 0; i < nullables; ++i) {
    obs.children.push_back(nullable_integer("/obs/count_" + std::to_string(i), rows));
  }
  if (note) obs.children.push_back(strings("/obs/note", rows, 40));
  obs.shape = {rows, obs.children.size()};
  obs.children.push_back(strings("/obs/_index", rows, 11));
  Report report;
  report.elements = {obs};
  report.datasets_read = 2 * nullables + 3;
  return report;
}

MemoryEstimate estimate_for(const Report& report, const char* runtime) {
  return estimate_memory(report, *find_runtime(runtime));
}

const ElementCost* bracket(const ElementCost& parent, const std::string& what) {
  for (const ElementCost& c : parent.children) {
    if (c.element == nullptr && c.path == what) return &c;
  }
  return nullptr;
}

// Three top-level elements by hand, read in name order: X, obs, obsm.
Report ordered_report(std::uint64_t obsm_rows) {
  Element x = numbers("/X", 1000, 4);
  x.shape = {1000};
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.children = {strings("/obs/_index", 100000, 11)};
  obs.shape = {100000, 0};
  Element embedding = numbers("/obsm/X_big", obsm_rows, 8);
  Report report;
  report.elements = {embedding, obs, x};  // not in read order: the model sorts them
  report.datasets_read = 3;
  return report;
}

TEST(MemoryPeak, WhatIsReadAfterTheLargestTemporariesIsNotThereDuringThem) {
  const Report report = ordered_report(2000000);  // 16 MB read after obs
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& obs = top(memory, "/obs");
  const ElementCost& later = top(memory, "/obsm/X_big");
  ASSERT_GT(later.final_bytes, obs.python_transient_bytes);
  std::vector<std::string> order;
  for (const ElementCost* e : memory.read_order()) order.push_back(e->path);
  EXPECT_EQ(order, (std::vector<std::string>{"/X", "/obs", "/obsm/X_big"}));
  // obs's temporaries are gone before X_big arrives; what is held of them
  // is still there at the end.
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  EXPECT_EQ(python.element, nullptr);
  EXPECT_EQ(python.held_from, &obs);
  EXPECT_EQ(python.bytes, obs.python_held_bytes);
  // Its temporaries are its index's strings: 0.4 of them stay held.
  EXPECT_EQ(obs.python_held_bytes, read_costs::held_after_strings(obs.python_temporaries_bytes));
  EXPECT_LT(memory.peak_bytes(), memory.final_bytes() + obs.python_transient_bytes +
                                     obs.buffer_transient_bytes + memory.read_overhead_bytes);
}

TEST(MemoryPeak, ASmallElementReadAfterIsThereWithTheTemporaries) {
  const Report report = ordered_report(1000);  // 8 KB read after obs
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& obs = top(memory, "/obs");
  const ElementCost& later = top(memory, "/obsm/X_big");
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  EXPECT_EQ(python.element, &obs);
  EXPECT_EQ(python.held_from, nullptr);
  EXPECT_EQ(python.bytes, obs.python_transient_bytes - later.final_bytes);
}

TEST(MemoryPeak, LeftoversOfAnEarlierReadAddToALaterOne) {
  Report report;
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.children = {strings("/obs/_index", 100000, 11)};
  obs.shape = {100000, 0};
  Element var = obs;
  var.path = "/var";
  var.children = {strings("/var/_index", 80000, 11)};
  var.shape = {80000, 0};
  report.elements = {obs, var};
  report.datasets_read = 2;
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& first = top(memory, "/obs");
  const ElementCost& second = top(memory, "/var");
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  EXPECT_EQ(python.element, &second);
  EXPECT_EQ(python.held_from, &first);
  EXPECT_EQ(python.bytes, second.python_transient_bytes + first.python_held_bytes);
}

// A frame whose largest read comes first: 100-byte strings, then two
// columns and an index of 11-byte strings.
Report first_column_largest(std::uint64_t rows) {
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.children = {strings("/obs/long", rows, 100), strings("/obs/b", rows, 11), strings("/obs/c", rows, 11)};
  obs.shape = {rows, obs.children.size()};
  obs.children.push_back(strings("/obs/_index", rows, 11));
  Report report;
  report.elements = {obs};
  report.datasets_read = 4;
  return report;
}

TEST(MemoryPeak, AFrameIsReadColumnByColumn) {
  const Report report = first_column_largest(100000);
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& frame = memory.elements.at(0);
  const ElementCost& first = frame.children.at(0);
  const ElementCost& index = frame.children.at(3);
  // The largest read's temporaries are what the frame leaves behind ...
  EXPECT_EQ(frame.python_temporaries_bytes, first.python_transient_bytes);
  // ... but while they are there, the columns after it are not yet.
  EXPECT_LT(frame.python_transient_bytes, first.python_transient_bytes);
  // Here the index, read last over every column, is the frame's peak, with
  // 0.12 of the three columns' temporaries not reused.
  std::uint64_t columns = 0;
  std::uint64_t earlier = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    columns += frame.children.at(i).final_bytes;
    earlier += frame.children.at(i).python_temporaries_bytes;
  }
  EXPECT_EQ(read_costs::kFrameTemporariesHeld, 0.12);
  const std::uint64_t at_index =
      columns + index.final_bytes + index.python_transient_bytes + checked_scale(earlier, 0.12);
  EXPECT_EQ(frame.python_transient_bytes, at_index - frame.final_bytes);
}

TEST(MemoryPeak, WhatAFrameLeavesIsAShareOfItsTemporariesNotOfItsPeak) {
  Report report = first_column_largest(100000);
  Element embedding = numbers("/obsm/X_big", 4000000, 8);  // 32 MB read after obs
  report.elements.push_back(embedding);
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& obs = top(memory, "/obs");
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  EXPECT_EQ(python.element, nullptr);
  EXPECT_EQ(python.held_from, &obs);
  EXPECT_EQ(python.bytes, obs.python_held_bytes);
  EXPECT_EQ(obs.python_held_bytes,
            read_costs::held_after_strings(obs.children.at(0).python_temporaries_bytes));
}

TEST(MemoryPeak, TheConstructionStandsOverTheWholeFrame) {
  // Many nullable columns: four copies of them (up to anndata 0.11) outweigh
  // any column's read, and come after every read, the index's leftovers
  // among them.
  const Report report = obs_report(100000, 6, false);
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& frame = memory.elements.at(0);
  const ElementCost& index = frame.children.at(7);
  ASSERT_EQ(index.path, "/obs/_index");
  const std::uint64_t construction = 100000u * 8 + 4 * 6 * 100000u * (8 + 1);
  EXPECT_EQ(frame.python_temporaries_bytes, construction);
  // Only the index read made temporaries before it.
  EXPECT_EQ(frame.python_transient_bytes, construction + checked_scale(index.python_temporaries_bytes, 0.12));
  // Copies of numbers are not strings: 0.6 of them stay held.
  EXPECT_EQ(frame.python_held_bytes, read_costs::held_after(construction));
}

TEST(MemoryPeak, Anndata08ReadsRawLast) {
  Report report;
  report.elements = {numbers("/uns/a", 10, 8), numbers("/raw/X", 10, 8), numbers("/X", 10, 8),
                     numbers("/raw.var", 10, 8)};
  auto order = [&](const char* runtime) {
    const MemoryEstimate memory = estimate_for(report, runtime);
    std::vector<std::string> paths;
    for (const ElementCost* e : memory.read_order()) paths.push_back(e->path);
    return paths;
  };
  EXPECT_EQ(order("anndata-0.8"), (std::vector<std::string>{"/X", "/uns/a", "/raw.var", "/raw/X"}));
  EXPECT_EQ(order("anndata-0.11"), (std::vector<std::string>{"/X", "/raw/X", "/uns/a", "/raw.var"}));
}

TEST(RuntimeArithmetic, TheSameReadUpTo011) {
  const Report report = obs_report(1000, 2, true);
  const MemoryEstimate v08 = estimate_for(report, "anndata-0.8");
  for (const char* runtime : {"anndata-0.10", "anndata-0.11"}) {
    const MemoryEstimate other = estimate_for(report, runtime);
    EXPECT_EQ(other.peak_bytes(), v08.peak_bytes()) << runtime;
    EXPECT_EQ(other.runtime.name, runtime);
  }
}

TEST(RuntimeArithmetic, Anndata013PricesStrAtCPython313Sizes) {
  // The same read as 0.12 with pandas 3 but for the str objects: an index
  // of 1000 six-byte names, 64 bytes each under 3.11 (getsizeof 55) and 48
  // under 3.13 (47).
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.children.push_back(numbers("/obs/n_genes", 1000, 8));
  obs.shape = {1000, 1};
  obs.children.push_back(strings("/obs/_index", 1000, 6));
  Report report;
  report.elements = {obs};
  report.datasets_read = 2;
  const auto index_of = [](const MemoryEstimate& estimate) {
    for (const ElementCost& child : estimate.elements.at(0).children) {
      if (child.path == "/obs/_index") return child.final_bytes;
    }
    ADD_FAILURE() << "no /obs/_index";
    return std::uint64_t{0};
  };
  const std::uint64_t v012 = index_of(estimate_for(report, "anndata-0.12-pandas3"));
  const std::uint64_t v013 = index_of(estimate_for(report, "anndata-0.13"));
  EXPECT_EQ(v012 - v013, 1000u * 16);
}

TEST(RuntimeArithmetic, NullableColumnsAreCopiedAsTheRuntimeDoes) {
  // Six nullable columns outweigh reading the index's strings.
  const std::uint64_t rows = 100'000;
  const Report report = obs_report(rows, 6, false);
  const std::uint64_t numeric = rows * 8;
  const std::uint64_t nullable = 6 * rows * (8 + 1);
  const MemoryEstimate estimate11 = estimate_for(report, "anndata-0.11");
  const ElementCost& v11 = estimate11.elements.at(0);
  EXPECT_EQ(v11.python_temporaries_bytes, numeric + 4 * nullable);  // four copies up to 0.11
  const MemoryEstimate estimate12 = estimate_for(report, "anndata-0.12");
  const ElementCost& v12 = estimate12.elements.at(0);
  // A quarter of a copy from 0.12: now reading the index is the larger part.
  const ElementCost& index = v12.children.at(7);
  EXPECT_EQ(index.path, "/obs/_index");
  EXPECT_GT(index.python_transient_bytes, numeric + nullable / 4);
  EXPECT_EQ(v12.python_temporaries_bytes, index.python_transient_bytes);
}

TEST(RuntimeArithmetic, Pandas3AddsArrowStringsAndOneConversion) {
  const std::uint64_t rows = 1000;
  const Report report = obs_report(rows, 0, true);
  const MemoryEstimate pandas2 = estimate_for(report, "anndata-0.12");
  const MemoryEstimate pandas3 = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost& frame = pandas3.elements.at(0);
  const ElementCost* arrow = bracket(frame, "[string columns as Arrow]");
  ASSERT_NE(arrow, nullptr);
  EXPECT_EQ(bracket(pandas2.elements.at(0), "[string columns as Arrow]"), nullptr);
  // Offsets (n + 1) x 8, the bytes, a validity bitmap: the column and the index.
  const std::uint64_t note = (rows + 1) * 8 + rows * 40 + rows / 8;
  const std::uint64_t index = (rows + 1) * 8 + rows * 11 + rows / 8;
  EXPECT_EQ(arrow->final_bytes, note + index);
  EXPECT_EQ(frame.final_bytes, pandas2.elements.at(0).final_bytes + note + index);
  // The frame's own transient: the construction copy (numbers, the column's
  // pointers) and the largest conversion (1.5 x its Arrow array and a copy
  // of its pointers), against the largest read of a column.
  const std::uint64_t own = rows * 8 + rows * 8 + (note * 3 + 1) / 2 + rows * 8;  // ceil(1.5 x)
  std::uint64_t reads = 0;
  for (const ElementCost& child : frame.children) reads = std::max(reads, child.python_transient_bytes);
  EXPECT_EQ(frame.python_temporaries_bytes, std::max(own, reads));
  // Read in order, the note (read first) no longer stands under the index.
  EXPECT_LT(frame.python_transient_bytes, frame.python_temporaries_bytes);
  // The first Arrow string array sets up pyarrow's kernels: 2 MiB.
  EXPECT_EQ(pandas3.read_overhead_bytes, pandas2.read_overhead_bytes + 2 * kMiB);
}

// An encoded group of `rows` elements (a column of a frame) and its parts.
Element group(const std::string& path, const char* encoding, std::uint64_t rows, std::vector<Element> parts) {
  Element e;
  e.path = path;
  e.encoding = encoding;
  e.shape = {rows};
  e.children = std::move(parts);
  return e;
}

// A report of one obs frame: its columns, then its index.
Report frame_report(std::uint64_t rows, std::vector<Element> columns, Element index) {
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.shape = {rows, columns.size()};
  obs.children = std::move(columns);
  obs.children.push_back(std::move(index));
  Report report;
  report.elements = {obs};
  return report;
}

// An obs frame of one column, /obs/barcode (`encoding`, its two parts as
// children), and an 11-byte string index.
Report one_column_frame(const char* encoding, std::uint64_t rows, Element first, Element second) {
  return frame_report(rows, {group("/obs/barcode", encoding, rows, {std::move(first), std::move(second)})},
                      strings("/obs/_index", rows, 11));
}

TEST(RuntimeArithmetic, Pandas3ConvertsNullableStringsToArrowAsTheyAreRead) {
  const std::uint64_t rows = 1000;
  const Report report = one_column_frame("nullable-string-array", rows, strings("/obs/barcode/values", rows, 20),
                                         numbers("/obs/barcode/mask", rows, 1));
  for (const char* runtime : {"anndata-0.12-pandas3", "anndata-0.13"}) {
    const MemoryEstimate estimate = estimate_for(report, runtime);
    const ElementCost& column = estimate.elements.at(0).children.at(0);
    const ElementCost& values = column.children.at(0);
    const std::uint64_t objects = python::string_array_bytes(rows, *report.elements[0].children[0].children[0].strings,
                                                             estimate.runtime.str_headers);
    // The values hold nothing once read: the column is its Arrow array and mask.
    EXPECT_EQ(values.final_bytes, 0u) << runtime;
    EXPECT_EQ(values.python_transient_bytes, objects + values.python_temporaries_bytes) << runtime;
    const ElementCost* arrow = bracket(column, "[values as Arrow strings]");
    ASSERT_NE(arrow, nullptr) << runtime;
    EXPECT_EQ(arrow->final_bytes, (rows + 1) * 8 + rows * 20 + rows / 8) << runtime;
    EXPECT_EQ(column.final_bytes, arrow->final_bytes + rows) << runtime;
    // At once above it: the objects twice, their StringDType copy (16 bytes
    // and 1.25 x (20 + 8) in the arena a string), the share of the values'
    // read temporaries, and the builder's doubled buffers (8 KiB of offsets,
    // 32 KiB of text for 20 000 bytes).
    const std::uint64_t builder = 8192 + 32768;
    EXPECT_EQ(column.arrow_temporaries_bytes, builder) << runtime;
    EXPECT_EQ(column.arrow_block_bytes, 32768u) << runtime;
    EXPECT_EQ(column.python_transient_bytes,
              2 * objects + rows * (16 + 35) +
                  checked_scale(values.python_temporaries_bytes, read_costs::kFrameTemporariesHeld) + builder)
        << runtime;
    // DataFrame() turns only the index into Arrow.
    const ElementCost* frame_arrow = bracket(estimate.elements.at(0), "[string columns as Arrow]");
    ASSERT_NE(frame_arrow, nullptr) << runtime;
    EXPECT_EQ(frame_arrow->final_bytes, (rows + 1) * 8 + rows * 11 + rows / 8) << runtime;
  }
  // Under pandas 2 the values stay Python strings, copied by pd.array: no Arrow.
  const MemoryEstimate estimate2 = estimate_for(report, "anndata-0.12");
  const ElementCost& pandas2 = estimate2.elements.at(0);
  EXPECT_GT(pandas2.children.at(0).children.at(0).final_bytes, 0u);
  EXPECT_GE(pandas2.python_temporaries_bytes, pandas2.children.at(0).children.at(0).final_bytes);
  EXPECT_EQ(bracket(pandas2, "[string columns as Arrow]"), nullptr);
  EXPECT_EQ(bracket(pandas2.children.at(0), "[values as Arrow strings]"), nullptr);
}

// A frame of two nullable-string columns and a numeric index.
Report two_string_columns(std::uint64_t rows, std::uint64_t first_length, std::uint64_t second_length) {
  auto column = [&](const std::string& path, std::uint64_t length) {
    return group(path, "nullable-string-array", rows,
                 {strings(path + "/values", rows, length), numbers(path + "/mask", rows, 1)});
  };
  return frame_report(rows, {column("/obs/a", first_length), column("/obs/b", second_length)},
                      numbers("/obs/_index", rows, 8));
}

TEST(RuntimeArithmetic, AConvertedColumnStandsOnWhatTheOneBeforeLeft) {
  const std::uint64_t rows = 100000;
  for (const char* runtime : {"anndata-0.12-pandas3", "anndata-0.13"}) {
    // 30 and 40 bytes a string: both texts grow to 4 MiB, the second reuses
    // the first's builder; 30 and 60: the second's grows to 8 MiB beside it.
    for (std::uint64_t second : {40u, 60u}) {
      const Report report = two_string_columns(rows, 30, second);
      const MemoryEstimate estimate = estimate_for(report, runtime);
      const ElementCost& frame = estimate.elements.at(0);
      const ElementCost& a = frame.children.at(0);
      const ElementCost& b = frame.children.at(1);
      ASSERT_EQ(a.arrow_block_bytes, 4 * kMiB);
      ASSERT_EQ(b.arrow_block_bytes, second == 40 ? 4 * kMiB : 8 * kMiB);
      const std::uint64_t left =
          checked_scale(a.python_temporaries_bytes - a.arrow_temporaries_bytes, estimate.runtime.conversion_temporaries_held);
      const std::uint64_t pool = second == 40 ? 0 : a.arrow_temporaries_bytes;
      const std::uint64_t at_b = a.final_bytes + b.final_bytes + b.python_transient_bytes + left + pool;
      // The second column's read is the frame's peak.
      EXPECT_EQ(frame.final_bytes + frame.python_transient_bytes, at_b) << runtime << " " << second;
      if (second == 40) {
        // The index after them builds nothing: the second's builder, which
        // took the first's memory, stands beside it, with the most either left.
        const ElementCost& index = frame.children.at(2);
        const std::uint64_t leaves = std::max(left, checked_scale(b.python_temporaries_bytes - b.arrow_temporaries_bytes,
                                                                   estimate.runtime.conversion_temporaries_held));
        EXPECT_GE(frame.final_bytes + frame.python_transient_bytes,
                  a.final_bytes + b.final_bytes + index.final_bytes + leaves + b.arrow_temporaries_bytes)
            << runtime;
      }
    }
  }
}

TEST(RuntimeArithmetic, Pandas3CategoriesLeaveTheirArrowBuildsHeldInTheFrame) {
  // A categorical of 50 000 40-byte categories, then an index.
  const std::uint64_t rows = 50000;
  const Report report = one_column_frame("categorical", rows, numbers("/obs/barcode/codes", rows, 4),
                                         strings("/obs/barcode/categories", rows, 40));
  const MemoryEstimate estimate3 = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost& frame = estimate3.elements.at(0);
  const ElementCost& first = frame.children.at(0);
  const ElementCost& index = frame.children.at(1);
  ASSERT_GT(first.arrow_temporaries_bytes, 0u);
  ASSERT_LT(first.arrow_temporaries_bytes, first.python_temporaries_bytes);
  // At the index's read: the categorical, a share of its object temporaries,
  // and what pyarrow's pool holds of its Arrow build.
  const std::uint64_t left =
      checked_scale(first.python_temporaries_bytes - first.arrow_temporaries_bytes, read_costs::kFrameTemporariesHeld) +
      read_costs::held_after(first.arrow_temporaries_bytes);
  const std::uint64_t at_index = first.final_bytes + index.final_bytes + index.python_transient_bytes + left;
  EXPECT_GE(frame.python_transient_bytes + frame.final_bytes, at_index);
  // Under pandas 2 nothing goes through pyarrow.
  const MemoryEstimate estimate2 = estimate_for(report, "anndata-0.12");
  EXPECT_EQ(estimate2.elements.at(0).children.at(0).arrow_temporaries_bytes, 0u);
}

TEST(RuntimeArithmetic, ANullableStringIndexIsCopiedUnderAnndata012) {
  // An index stored as nullable-string-array and one numeric column.
  const std::uint64_t rows = 100000;
  Element index;
  index.path = "/obs/_index";
  index.encoding = "nullable-string-array";
  index.shape = {rows};
  index.children = {strings("/obs/_index/values", rows, 20), numbers("/obs/_index/mask", rows, 1)};
  Element obs;
  obs.path = "/obs";
  obs.encoding = "dataframe";
  obs.children = {numbers("/obs/n_genes", rows, 8), index};
  obs.shape = {rows, 1};
  obs.checks_unique_index = true;
  Report report;
  report.elements = {obs};
  const std::uint64_t values = estimate_for(report, "anndata-0.11").elements.at(0).children.at(1).children.at(0).final_bytes;
  // anndata 0.12 under pandas 2 copies the strings; under pandas 3 the index
  // is converted as it is read (cost_nullable_strings_as_arrow), no copy.
  for (const char* runtime : {"anndata-0.11", "anndata-0.12", "anndata-0.12-pandas3", "anndata-0.13"}) {
    const MemoryEstimate estimate = estimate_for(report, runtime);
    const double copies = estimate.runtime.nullable_string_index_copies;
    EXPECT_EQ(copies, std::string(runtime) == "anndata-0.12" ? 1.0 : 0.0) << runtime;
    EXPECT_GE(estimate.elements.at(0).python_temporaries_bytes, rows * 8 + checked_scale(values, copies)) << runtime;
  }
  EXPECT_EQ(estimate_for(report, "anndata-0.11").elements.at(0).python_temporaries_bytes,
            std::max<std::uint64_t>(rows * 8, estimate_for(report, "anndata-0.11").elements.at(0).children.at(1).python_temporaries_bytes));
  // anndata 0.12.6 asks the index itself whether it is unique: its engine
  // hashes an object copy of the Arrow strings, which stays. 0.13 asks a copy.
  const MemoryEstimate kept = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost* copy = bracket(kept.elements.at(0), "[index engine's str objects]");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->final_bytes, values);
  EXPECT_EQ(bracket(estimate_for(report, "anndata-0.13").elements.at(0), "[index engine's str objects]"), nullptr);
}


// What is left once read_h5ad returns: what process's copies of X stand on.
std::uint64_t pools(const MemoryEstimate& memory) {
  std::uint64_t total = memory.read_overhead_bytes;
  if (const ElementCost* io = memory.io_peak()) total += io->io_transient_bytes;
  if (const ElementCost* buffer = memory.buffer_peak()) total += buffer->buffer_transient_bytes;
  return total;
}

TEST(AfterRead, NumpyCopiesOfTheConstructionAreGivenBack) {
  // Six nullable columns: the construction's copies are the frame's largest
  // temporaries, and 0.6 of them are held for later reads, but none of them
  // is resident once the read has returned; the index's strings are.
  const Report report = obs_report(100000, 6, false);
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& frame = memory.elements.at(0);
  const ElementCost& index = frame.children.at(7);
  EXPECT_GT(frame.python_held_bytes, index.python_held_bytes);
  EXPECT_EQ(frame.kept_bytes, index.kept_bytes);
  EXPECT_EQ(index.kept_bytes, read_costs::held_after_strings(index.python_temporaries_bytes));
  EXPECT_EQ(memory.after_read_bytes(), memory.final_bytes() + pools(memory) + frame.kept_bytes);
  EXPECT_LT(memory.after_read_bytes(), memory.peak_bytes());
}

TEST(AfterRead, ColumnsLeaveTheLargestsLeftoversAndAShareOfTheOthers) {
  const Report report = first_column_largest(100000);
  const MemoryEstimate memory = estimate_for(report, "anndata-0.11");
  const ElementCost& frame = memory.elements.at(0);
  const ElementCost& first = frame.children.at(0);
  std::uint64_t others = 0;
  for (std::size_t i = 1; i < frame.children.size(); ++i) others += frame.children[i].python_temporaries_bytes;
  EXPECT_EQ(frame.kept_bytes, first.kept_bytes + checked_scale(others, read_costs::kFrameTemporariesHeld));
}

TEST(AfterRead, Pandas3FreesTheObjectArraysItMadeArrowButTheCheckedIndexs) {
  const std::uint64_t rows = 100000;
  const Report report = obs_report(rows, 0, true);  // a string column, a checked index
  const MemoryEstimate memory = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost& frame = memory.elements.at(0);
  const ElementCost* note = child(frame, "/obs/note");
  const ElementCost* index = child(frame, "/obs/_index");
  ASSERT_NE(note, nullptr);
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(note->released_bytes, note->final_bytes);
  EXPECT_EQ(index->released_bytes, 0u);  // its hash engine keeps it
  EXPECT_EQ(frame.released_bytes, note->final_bytes);
  EXPECT_EQ(memory.after_read_bytes(), memory.final_bytes() - note->final_bytes +
                                           read_costs::held_after_release(note->final_bytes) + pools(memory) +
                                           frame.kept_bytes);
  // Under pandas 2 the object arrays are what the frame holds.
  EXPECT_EQ(estimate_for(report, "anndata-0.12").elements.at(0).released_bytes, 0u);
}

TEST(AfterRead, ANullableStringColumnsValuesAreReleasedUnderPandas3) {
  const std::uint64_t rows = 1000;
  const Report report = one_column_frame("nullable-string-array", rows, strings("/obs/barcode/values", rows, 20),
                                         numbers("/obs/barcode/mask", rows, 1));
  const MemoryEstimate memory = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost& column = memory.elements.at(0).children.at(0);
  EXPECT_EQ(column.released_bytes, column.children.at(0).final_bytes);
  // The index is not checked here: it goes too.
  EXPECT_EQ(memory.elements.at(0).released_bytes,
            column.children.at(0).final_bytes + memory.elements.at(0).children.at(1).final_bytes);
}

TEST(AfterRead, AnIndexCheckedOnACopyKeepsNoObjectCopy) {
  // anndata 0.13 checks a filtered copy of the index: the object array its
  // read made goes once DataFrame() has made it Arrow, like a column's; 0.12.6
  // asks the index itself, whose engine keeps one.
  const std::uint64_t rows = 100000;
  const Report report = obs_report(rows, 0, true);
  RuntimeModel keeps = *find_runtime("anndata-0.13");
  keeps.keeps_index_engine = true;
  const MemoryEstimate checked_itself = estimate_memory(report, keeps);
  const MemoryEstimate on_a_copy = estimate_for(report, "anndata-0.13");
  const ElementCost* index = child(on_a_copy.elements.at(0), "/obs/_index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->released_bytes, index->final_bytes);
  EXPECT_EQ(child(checked_itself.elements.at(0), "/obs/_index")->released_bytes, 0u);
  // The same peak; after it, the index's objects but what pymalloc keeps.
  EXPECT_EQ(on_a_copy.peak_bytes(), checked_itself.peak_bytes());
  // (Within a byte: what is released is scaled as one sum, the column's and the index's.)
  EXPECT_NEAR(static_cast<double>(on_a_copy.after_read_bytes()),
              static_cast<double>(checked_itself.after_read_bytes() - index->final_bytes +
                                  read_costs::held_after_release(index->final_bytes)),
              1.0);
  // The hash table stays counted after the read under either.
  EXPECT_NE(bracket(on_a_copy.elements.at(0), "[index hash table]"), nullptr);
}

TEST(AfterRead, TheHashTableOfACheckOnACopyIsReusedByTheJobUnderPandas2) {
  const std::uint64_t rows = 100000;
  const Report report = obs_report(rows, 0, true);
  // anndata 0.12.19 checks a copy: glibc keeps the freed table, the job's
  // copies reuse it.
  const MemoryEstimate copy = estimate_for(report, "anndata-0.12");
  EXPECT_EQ(copy.job_base_bytes(), copy.after_read_bytes() - python::hash_table_bytes(rows));
  // 0.11 keeps it with the index, 0.13 (pandas 3) gives its check's memory back.
  for (const char* runtime : {"anndata-0.11", "anndata-0.12-pandas3", "anndata-0.13"}) {
    const MemoryEstimate memory = estimate_for(report, runtime);
    EXPECT_EQ(memory.job_base_bytes(), memory.after_read_bytes()) << runtime;
  }
  // The process profile's copies stand on it.
  const JobProfile process = *find_builtin_profile("process", *find_runtime("anndata-0.12"));
  XShape x;
  x.float32_bytes = x.compact_bytes = 100 * kMiB;
  x.sparse = true;
  EXPECT_EQ(required_bytes(process, copy.peak_bytes(), copy.job_base_bytes(), x),
            required_bytes(process, copy.peak_bytes(), copy.after_read_bytes(), x) - python::hash_table_bytes(rows));
}

TEST(AfterRead, Pandas3CategoriesEngineCopyIsMadeOfWhatTheirReadLeft) {
  const std::uint64_t rows = 50000;
  const Report report = one_column_frame("categorical", rows, numbers("/obs/barcode/codes", rows, 4),
                                         strings("/obs/barcode/categories", rows, 40));
  const MemoryEstimate estimate3 = estimate_for(report, "anndata-0.12-pandas3");
  const ElementCost& pandas3 = estimate3.elements.at(0).children.at(0);
  const ElementCost& categories = pandas3.children.at(1);
  // What the conversion's temporaries leave, less the object copy the
  // categories' hash engine makes out of it.
  const std::uint64_t held = read_costs::held_after(pandas3.python_temporaries_bytes);
  EXPECT_EQ(pandas3.kept_bytes, held - std::min(held, categories.final_bytes));
  // Under pandas 2 the engine hashes the object array as read.
  const MemoryEstimate estimate2 = estimate_for(report, "anndata-0.12");
  const ElementCost& pandas2 = estimate2.elements.at(0).children.at(0);
  EXPECT_GE(pandas2.kept_bytes, read_costs::held_after_strings(pandas2.children.at(1).python_temporaries_bytes));
}

}  // namespace
}  // namespace h5ad_sizer
