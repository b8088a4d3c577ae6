#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "h5ad_sizer/h5/strings.hpp"
#include "h5ad_sizer/h5/types.hpp"

// The report: what one .h5ad file holds, as anndata will read it. It is the
// one thing the cost model (estimate/), the renderers (render/) and the
// commands share. It describes structure only: encodings, dtypes, shapes,
// value counts, storage and filters, stored bytes, sampled string lengths,
// and how anndata turns each dataset into Python objects. It knows nothing
// of CPython, numpy, pandas or allocators: their costs are the runtime
// model's (estimate/memory.hpp), a pure function of this report.
namespace h5ad_sizer {

// Which generation of the on-disk format a file uses.
enum class Layout {
  modern,  // anndata >= 0.8: every element carries encoding-type/-version
  v0_7,    // anndata 0.7: encoded dataframes and sparse groups, bare root
  legacy,  // anndata <= 0.6: compound obs/var datasets, h5sparse groups
};
const char* layout_name(Layout layout);  // "0.8+", "0.7", "legacy"

// What anndata makes of a dataset, or of one member of a compound dataset.
// This is the format's semantics (which read path anndata takes), not a cost.
enum class Form {
  none,           // a group (its children say it all), a null, a link not followed
  numbers,        // a numpy array of `nnz` values of `itemsize` bytes
  number_object,  // a 0-d numeric dataset: one Python scalar
  str_objects,    // variable-length strings: a numpy object array of str (one str if 0-d)
  str_field,      // a string member of a compound dataset, decoded to str field by field
  unicode,        // fixed-width bytes turned into numpy unicode by astype(str)
  unicode_field,  // a fixed-width string member kept as numpy unicode in a record array
  records,        // a compound dataset read whole; its members are the children
  references,     // object references: a pointer each
};

// One element of the AnnData tree. A parent's stored bytes are exactly the
// sum of its children's.
struct Element {
  std::string path;      // HDF5 path; a compound member is "path[member]"
  std::string encoding;  // anndata's encoding-type, or what the layout implies
  std::string dtype;     // numpy's spelling; empty for groups of mixed types
  std::vector<std::uint64_t> shape;
  std::uint64_t nnz = 0;       // stored values: len(data) for sparse, elements for dense
  std::uint64_t itemsize = 0;  // bytes per stored value (a fixed-width string's width)
  std::uint64_t stored_bytes = 0;  // bytes the file allocates (compressed)
  // False when some chunked dataset's stored bytes come from its object
  // header, not its chunk index (h5::StorageDetail).
  bool stored_bytes_exact = true;
  Form form = Form::none;
  // The dataset behind the element (storage, chunks, filters, member types);
  // absent for groups, members and what was not followed.
  std::optional<h5::DatasetInfo> dataset;
  // Variable-length strings: the bounded sample of their lengths and texts.
  std::optional<h5::StringSample> strings;
  // A dataframe whose index anndata checks for uniqueness (obs_names,
  // var_names): pandas then builds a hash table over it.
  bool checks_unique_index = false;
  std::string note;  // how a figure was obtained, when not obvious
  std::vector<Element> children;

  // Sets stored bytes (and their exactness) to the children's sums.
  void sum_children();
  // Rows of a column or an index: the first dimension, else the value count.
  std::uint64_t length() const;
};

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
  // Datasets anndata opens and reads: each costs the read some memory.
  std::uint64_t datasets_read = 0;

  const Element* find(std::string_view path) const;
  // raw.X wherever the layout keeps it (/raw/X, or /raw.X before 0.7).
  const Element* raw_x() const;
  std::uint64_t stored_total() const;
  // Whether every element's stored bytes are exact (see Element).
  bool stored_bytes_exact() const;
  // File bytes not in any dataset: object headers, B-trees, heaps holding
  // string text, attributes and free space.
  std::uint64_t unattributed_bytes() const;
};

}  // namespace h5ad_sizer
