#pragma once

#include <functional>
#include <string>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/h5/strings.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer {

// Which layout the root group uses; throws invalid_h5ad for an HDF5 file
// that is not AnnData at all.
Layout detect_layout(hid_t root, const std::string& source);

struct ReadOptions {
  h5::SampleLimits strings;
  // Exact by default; `size` settles for object headers so that a remote
  // read costs the same few requests however large the data.
  h5::StorageDetail storage = h5::StorageDetail::chunk_index;
  // Called with each element's path before it is opened, so that a reader
  // that dies inside HDF5 can still be told where (cli/isolation.hpp).
  std::function<void(const std::string& path)> on_element;
};

// Reads the whole AnnData tree of an open file into a Report, from metadata
// and a bounded sample of string lengths. Throws Error (invalid_h5ad) naming
// the file and element for anything anndata itself could not read.
Report read_anndata(const OpenedSource& source, const ReadOptions& options = {});

}  // namespace h5ad_sizer
