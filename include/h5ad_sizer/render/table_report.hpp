#pragma once

#include <string>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/estimate/memory.hpp"

namespace h5ad_sizer {

// The `inspect` table: one row per element, children indented under their
// parent, and a TOTAL whose stored bytes are the file's size:
//
//   ELEMENT              ENCODING     DTYPE    SHAPE       NNZ   STORED  LOADED  LOADED%
//   /X                   csr_matrix   float32  700 x 765  174400  1.3 MiB 1.3 MiB  41.0%
//     data               array        float32  174400     174400  681 KiB 681 KiB  21.0%
//   ...
//   [HDF5 metadata, string text, free space]                      96 KiB      0
//   TOTAL                                                        1.7 MiB 3.2 MiB 100.0%
std::string render_table(const Report& report, const MemoryEstimate& memory);

}  // namespace h5ad_sizer
