#include "h5ad_sizer/anndata/reader.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

Report read_fixture(const std::string& name) {
  return read_anndata(open_source(testing::data_file(name)));
}

const Element& element(const Report& report, const std::string& path) {
  const Element* found = report.find(path);
  if (found == nullptr) throw std::runtime_error("no element " + path);
  return *found;
}

const Element* child(const Element& parent, const std::string& path) {
  for (const Element& c : parent.children) {
    if (c.path == path) return &c;
  }
  return nullptr;
}

// A parent's stored bytes are exactly its children's (bloaty's invariant).
void expect_children_add_up(const Element& e) {
  if (e.children.empty()) return;
  std::uint64_t stored = 0;
  for (const Element& c : e.children) {
    stored += c.stored_bytes;
    expect_children_add_up(c);
  }
  EXPECT_EQ(e.stored_bytes, stored) << e.path;
}

TEST(Reader, DenseXIsElementsTimesItemsize) {
  const Report report = read_fixture("dense.h5ad");
  EXPECT_EQ(report.layout, Layout::modern);
  EXPECT_EQ(report.n_obs, 40u);
  EXPECT_EQ(report.n_vars, 30u);
  const Element& x = element(report, "/X");
  EXPECT_EQ(x.encoding, "array");
  EXPECT_EQ(x.dtype, "float32");
  EXPECT_EQ(x.shape, (std::vector<std::uint64_t>{40, 30}));
  EXPECT_EQ(x.nnz, 1200u);
  EXPECT_EQ(x.form, Form::numbers);
  EXPECT_EQ(x.itemsize, 4u);
  EXPECT_EQ(x.stored_bytes, 40u * 30 * 4);  // uncompressed, contiguous
}

Report read_fixture_headers_only(const std::string& name) {
  ReadOptions options;
  options.storage = h5::StorageDetail::object_header;
  return read_anndata(open_source(testing::data_file(name)), options);
}

TEST(Reader, ObjectHeadersGiveChunkedStorageBeforeCompression) {
  const Report exact = read_fixture("example.h5ad");  // gzip-compressed chunks
  const Report headers = read_fixture_headers_only("example.h5ad");
  const Element& x_exact = element(exact, "/X");
  const Element& x_headers = element(headers, "/X");
  EXPECT_TRUE(x_exact.stored_bytes_exact);
  EXPECT_FALSE(x_headers.stored_bytes_exact);
  EXPECT_FALSE(headers.stored_bytes_exact());
  EXPECT_TRUE(exact.stored_bytes_exact());
  // One chunk per array here: its full size, as the header declares it.
  EXPECT_EQ(x_headers.stored_bytes, 2000u * 4 + 2000u * 4 + 201u * 4);
  EXPECT_LT(x_exact.stored_bytes, x_headers.stored_bytes);
}

TEST(Reader, ObjectHeadersHoldContiguousSizes) {
  const Report report = read_fixture_headers_only("dense.h5ad");
  const Element& x = element(report, "/X");
  EXPECT_TRUE(x.stored_bytes_exact);
  EXPECT_EQ(x.stored_bytes, 40u * 30 * 4);
}

TEST(Reader, ObjectHeadersAgreeWithTheIndexForUncompressedChunks) {
  const Report exact = read_fixture("legacy.h5ad");  // chunked, no filters
  const Report headers = read_fixture_headers_only("legacy.h5ad");
  for (const char* path : {"/X", "/raw.X"}) {
    EXPECT_EQ(element(headers, path).stored_bytes, element(exact, path).stored_bytes) << path;
  }
}

TEST(Reader, SparseIsDataPlusIndicesPlusIndptrInTheirOwnDtypes) {
  const Report report = read_fixture("example.h5ad");
  const Element& x = element(report, "/X");
  EXPECT_EQ(x.encoding, "csr_matrix");
  EXPECT_EQ(x.dtype, "float32");
  EXPECT_EQ(x.shape, (std::vector<std::uint64_t>{200, 50}));
  EXPECT_EQ(x.nnz, 2000u);  // 200 x 50 at density 0.2
  EXPECT_LT(x.stored_bytes, 2000u * 4 + 2000u * 4 + 201u * 4);  // gzip

  const Element& raw = element(report, "/raw/X");
  EXPECT_EQ(raw.shape, (std::vector<std::uint64_t>{200, 80}));  // raw keeps more genes
  const Element& counts = element(report, "/layers/counts");
  EXPECT_EQ(counts.dtype, "int32");
  EXPECT_EQ(element(report, "/obsm/X_umap").itemsize, 8u);
  EXPECT_EQ(element(report, "/obsp/connectivities").encoding, "csr_matrix");
  EXPECT_EQ(report.keys.at("layers"), (std::vector<std::string>{"counts"}));
  EXPECT_EQ(report.keys.at("obsm"), (std::vector<std::string>{"X_pca", "X_umap"}));
  EXPECT_EQ(report.keys.at("obs_columns"),
            (std::vector<std::string>{"cell_type", "n_genes", "percent_mito", "donor"}));
}

TEST(Reader, CscUsesTheColumnCountForIndptr) {
  const Report report = read_fixture("csc.h5ad");
  const Element& x = element(report, "/X");
  EXPECT_EQ(x.encoding, "csc_matrix");
  EXPECT_EQ(x.dtype, "float64");
  const Element* indptr = child(x, "/X/indptr");
  ASSERT_NE(indptr, nullptr);
  EXPECT_EQ(indptr->nnz, 26u);  // 25 columns + 1
}

TEST(Reader, WithoutXTheDimensionsComeFromObsAndVar) {
  const Report report = read_fixture("no_x.h5ad");
  EXPECT_EQ(report.find("/X"), nullptr);
  EXPECT_EQ(report.n_obs, 30u);
  EXPECT_EQ(report.n_vars, 20u);
  EXPECT_EQ(report.keys.at("layers"), (std::vector<std::string>{"counts"}));
}

TEST(Reader, StringsAreSampledAndCostPythonObjects) {
  const Report report = read_fixture("strings.h5ad");
  const Element& obs = element(report, "/obs");
  const Element* index = child(obs, "/obs/_index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->encoding, "string-array");
  EXPECT_EQ(index->form, Form::str_objects);
  ASSERT_TRUE(index->strings.has_value());
  EXPECT_EQ(index->strings->population, 500u);
  EXPECT_NE(index->note.find("sampled 500 of 500"), std::string::npos) << index->note;

  const Element* city = child(obs, "/obs/city");
  ASSERT_NE(city, nullptr);
  EXPECT_EQ(city->encoding, "categorical");  // anndata writes repeated strings as categories

  const Element* cluster = child(obs, "/obs/cluster");
  ASSERT_NE(cluster, nullptr);
  const Element* codes = child(*cluster, "/obs/cluster/codes");
  ASSERT_NE(codes, nullptr);
  EXPECT_EQ(codes->dtype, "int16");

  const Element* count = child(obs, "/obs/count");
  ASSERT_NE(count, nullptr);
  EXPECT_EQ(count->encoding, "nullable-integer");
  EXPECT_EQ(count->children.size(), 2u);  // values and mask

  EXPECT_TRUE(obs.checks_unique_index);  // anndata checks obs_names
}

TEST(Reader, LzfCompressedStringsAreReadWithOurFilter) {
  const Report report = read_fixture("lzf.h5ad");
  const Element* index = child(element(report, "/obs"), "/obs/_index");
  ASSERT_NE(index, nullptr);
  EXPECT_NE(index->note.find("sampled 40 of 40"), std::string::npos) << index->note;
}

TEST(Reader, LegacyLayoutWithCompoundFramesAndH5sparse) {
  const Report report = read_fixture("legacy.h5ad");
  EXPECT_EQ(report.layout, Layout::legacy);
  EXPECT_EQ(report.n_obs, 20u);
  EXPECT_EQ(report.n_vars, 8u);
  EXPECT_EQ(element(report, "/X").encoding, "csr_matrix");
  EXPECT_EQ(element(report, "/raw.X").encoding, "csr_matrix");
  EXPECT_EQ(report.keys.at("obs_columns"), (std::vector<std::string>{"louvain", "n_counts"}));
  EXPECT_EQ(report.keys.at("obsm"), (std::vector<std::string>{"X_pca"}));
  EXPECT_EQ(element(report, "/obsm[X_pca]").itemsize, 5u * 4);  // float32[5] per record
  // uns/louvain_categories belongs to the obs column now, not to uns.
  EXPECT_EQ(report.find("/uns/louvain_categories"), nullptr);
  const Element* louvain = child(element(report, "/obs"), "/obs[louvain]");
  ASSERT_NE(louvain, nullptr);
  EXPECT_EQ(louvain->encoding, "categorical");
}

TEST(Reader, LinksAreNeverFollowedIntoOtherFilesOrRoundInCircles) {
  const Report report = read_fixture("links.h5ad");
  EXPECT_EQ(element(report, "/uns/loop").encoding, "link-cycle");
  EXPECT_EQ(element(report, "/uns/elsewhere").encoding, "external-link");
  EXPECT_EQ(element(report, "/uns/elsewhere").form, Form::none);
}

TEST(Reader, EveryParentIsTheSumOfItsChildren) {
  for (const char* name : {"dense.h5ad", "example.h5ad", "csc.h5ad", "no_x.h5ad", "strings.h5ad",
                           "lzf.h5ad", "legacy.h5ad", "links.h5ad"}) {
    SCOPED_TRACE(name);
    const Report report = read_fixture(name);
    for (const Element& e : report.elements) expect_children_add_up(e);
    EXPECT_LE(report.stored_total(), report.file_bytes);
    EXPECT_EQ(report.stored_total() + report.unattributed_bytes(), report.file_bytes);
  }
}

// Each broken fixture is an invalid-h5ad error naming the file and element.
TEST(Reader, BrokenFilesAreInvalidWithTheElementNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"bad_indptr_length.h5ad", ": /X/indptr: has 10 entries, expected 200 + 1"},
      {"bad_data_indices_length.h5ad", ": /X: data has 2000 values but indices has 1999"},
      {"bad_no_shape.h5ad", ": /X: sparse matrix has no integer shape attribute"},
      {"bad_negative_shape.h5ad", ": /X: sparse matrix shape is negative"},
      {"bad_obs_rows.h5ad", ": /obs: has 2 rows but X's first dimension (n_obs) is 200"},
      {"bad_overflow.h5ad", ": /X: size overflows 64 bits"},
      {"bad_not_anndata.h5ad", ": /: not an AnnData file"},
      {"bad_not_hdf5.h5ad", ": not an HDF5 file"},
      {"bad_truncated.h5ad", ": truncated: 4096 of 176496 bytes present"},
      {"bad_string_heap.h5ad", ": /obs/_index: "},
  };
  for (const auto& [name, message] : cases) {
    SCOPED_TRACE(name);
    try {
      estimate_memory(read_fixture(name), *find_runtime(kDefaultRuntime));  // some sizes overflow only when costed
      ADD_FAILURE() << "no error";
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), ExitStatus::invalid_h5ad);
      const std::string what = error.what();
      EXPECT_EQ(what.rfind(testing::data_file(name), 0), 0u) << what;
      EXPECT_NE(what.find(message), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace h5ad_sizer
