// Files written by other projects and anndata versions (../shared/corpus/real)
// against what anndata itself reports for them (TRUTH.json).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "h5ad_sizer/anndata/reader.hpp"
#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;

json matrix_truth(const Element* matrix) {
  if (matrix == nullptr) return nullptr;
  return {{"dtype", matrix->dtype},
          {"encoding", matrix->encoding},
          {"nnz", matrix->nnz},
          {"shape", matrix->shape}};
}

TEST(Corpus, EveryFileAgreesWithAnndata) {
  const std::filesystem::path corpus = H5AD_SIZER_CORPUS_DIR;
  if (!std::filesystem::exists(corpus / "TRUTH.json")) {
    if (std::getenv("CI") != nullptr) FAIL() << "corpus missing: " << corpus;
    GTEST_SKIP() << "no ../shared/corpus/real beside this checkout";
  }
  const json truth = json::parse(testing::read_text((corpus / "TRUTH.json").string()));
  ASSERT_GE(truth.size(), 8u);
  for (const auto& [name, expected] : truth.items()) {
    SCOPED_TRACE(name);
    const Report report = read_anndata(open_source((corpus / name).string()));
    EXPECT_EQ(report.n_obs, expected["n_obs"].get<std::uint64_t>());
    EXPECT_EQ(report.n_vars, expected["n_vars"].get<std::uint64_t>());
    EXPECT_EQ(matrix_truth(report.find("/X")), expected["X"]);
    EXPECT_EQ(matrix_truth(report.raw_x()), expected["raw_X"]);
    for (const char* keys : {"layers", "obsm", "varm", "obsp", "varp"}) {
      // anndata's mappings are unordered; compare as sets.
      auto got = report.keys.at(keys);
      auto want = expected[keys].get<std::vector<std::string>>();
      std::sort(got.begin(), got.end());
      std::sort(want.begin(), want.end());
      EXPECT_EQ(got, want) << keys;
    }
    for (const char* columns : {"obs_columns", "var_columns"}) {
      EXPECT_EQ(report.keys.at(columns), expected[columns].get<std::vector<std::string>>())
          << columns;
    }
    EXPECT_EQ(report.stored_total() + report.unattributed_bytes(), report.file_bytes);
  }
}

}  // namespace
}  // namespace h5ad_sizer
