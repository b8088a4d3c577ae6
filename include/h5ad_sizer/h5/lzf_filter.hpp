#pragma once

namespace h5ad_sizer::h5 {

// h5py's LZF filter (id 32000), which anndata files written with
// compression="lzf" use. HDF5 does not ship it and Debian's plugin package is
// under-linked, so we register our own decompress-only glue over liblzf.
// Only string datasets are ever decompressed: we sample their lengths.
inline constexpr int kLzfFilterId = 32000;
void register_lzf_filter();

}  // namespace h5ad_sizer::h5
