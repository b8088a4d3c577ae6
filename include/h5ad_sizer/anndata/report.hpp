#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace h5ad_sizer {

// Which generation of the on-disk format a file uses (see docs/format.md).
enum class Layout {
  modern,  // anndata >= 0.8: every element carries encoding-type/-version
  v0_7,    // anndata 0.7: encoded dataframes and sparse groups, bare root
  legacy,  // anndata <= 0.6: compound obs/var datasets, h5sparse groups
};
const char* layout_name(Layout layout);  // "0.8+", "0.7", "legacy"

// One element of the AnnData tree: what the file holds for it and what it
// will cost in memory once anndata has read it. A parent's byte counts are
// exactly the sums of its children's; costs that belong to no HDF5 object
// (a hash table, say) are children of their own, named in brackets.
struct Element {
  std::string path;      // HDF5 path, or "[what]" for a cost with no object
  std::string encoding;  // anndata's encoding-type, or what the layout implies
  std::string dtype;     // numpy's spelling; empty for groups of mixed types
  std::vector<std::uint64_t> shape;
  std::uint64_t nnz = 0;  // stored values: len(data) for sparse, elements for dense
  std::uint64_t stored_bytes = 0;  // bytes the file allocates (compressed)
  std::uint64_t loaded_bytes = 0;  // bytes in memory after read_h5ad
  std::string note;                // how a figure was obtained, when not obvious
  std::vector<Element> children;

  // Sets stored/loaded bytes to the children's sums.
  void sum_children();
};

// What one file holds, as anndata will see it. Knows nothing of buckets,
// profiles or output formats.
struct Report {
  std::string source;  // path or (redacted) URL
  std::uint64_t file_bytes = 0;
  Layout layout = Layout::modern;
  std::uint64_t n_obs = 0;
  std::uint64_t n_vars = 0;
  // Top-level elements (/X, /layers/<k>, /obs, /uns/<k>, ...) in the order
  // anndata reads them.
  std::vector<Element> elements;
  // The names anndata shows: "layers", "obsm", "varm", "obsp", "varp",
  // "obs_columns", "var_columns".
  std::map<std::string, std::vector<std::string>> keys;

  const Element* find(std::string_view path) const;
  std::uint64_t stored_total() const;
  std::uint64_t loaded_total() const;
  // File bytes not in any dataset: object headers, B-trees, heaps holding
  // string text, attributes and free space.
  std::uint64_t unattributed_bytes() const;
};

}  // namespace h5ad_sizer
