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
  // False when some chunked dataset's stored bytes come from its object
  // header, not its chunk index (h5::StorageDetail).
  bool stored_bytes_exact = true;
  std::uint64_t loaded_bytes = 0;  // bytes it holds in memory after read_h5ad
  // The most memory that reading it needs at one moment beyond loaded_bytes,
  // in three pools that do not share freed memory (docs/memory-model.md):
  // Python objects and numpy temporaries (bytes objects, copies), which
  // pymalloc keeps for later Python objects ...
  std::uint64_t transient_bytes = 0;
  // ... HDF5's small allocations (a record per chunk read), which glibc keeps
  // in its heap for later HDF5 reads ...
  std::uint64_t io_transient_bytes = 0;
  // ... and HDF5's large buffers (type conversion of strings), which glibc
  // maps and unmaps around each read.
  // Children's transients do not add up: they are read one at a time.
  std::uint64_t buffer_transient_bytes = 0;
  std::string note;                // how a figure was obtained, when not obvious
  std::vector<Element> children;

  // Sets stored/loaded bytes to the children's sums and each transient to the
  // largest of the children's and the element's own.
  void sum_children(std::uint64_t own_transient = 0, std::uint64_t own_io_transient = 0,
                    std::uint64_t own_buffer_transient = 0);
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

  // Memory the reading process itself takes beyond the elements (set by
  // the reader: the modules read_h5ad imports on first use, HDF5's per-file
  // structures). See docs/memory-model.md.
  std::uint64_t read_overhead_bytes = 0;

  const Element* find(std::string_view path) const;
  std::uint64_t stored_total() const;
  // Whether every element's stored bytes are exact (see Element).
  bool stored_bytes_exact() const;
  // Memory after the read: every element's loaded_bytes.
  std::uint64_t final_total() const;
  // The top-level element whose read needs the most transient memory of
  // each pool, or nullptr when none needs any.
  const Element* peak_element() const;
  const Element* io_peak_element() const;
  const Element* buffer_peak_element() const;
  // The peak during the read: all elements' final bytes, the largest
  // transient of each of the three pools, and the read overhead. Elements are read one
  // after another, so at most one transient of each pool is alive; counting
  // every final as already present makes this an upper bound.
  std::uint64_t loaded_total() const;
  // File bytes not in any dataset: object headers, B-trees, heaps holding
  // string text, attributes and free space.
  std::uint64_t unattributed_bytes() const;
};

}  // namespace h5ad_sizer
