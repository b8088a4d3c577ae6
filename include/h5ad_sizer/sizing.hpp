#pragma once

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/estimate/job.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer {

// Everything `h5ad-sizer size` decides, as the renderers receive it: the
// report, its memory estimate, the job's needs and the bucket chosen. Plain
// data; the command line fills it (cli/size_command.cpp).
// Move-only: `memory` points into `report` (a move keeps the elements in
// place, a copy would not).
struct Sizing {
  Sizing() = default;
  Sizing(Sizing&&) = default;
  Sizing& operator=(Sizing&&) = default;
  Sizing(const Sizing&) = delete;
  Sizing& operator=(const Sizing&) = delete;

  Report report;
  MemoryEstimate memory;
  Estimate estimate;
  BucketTable table;
  BucketChoice choice;
  io::IoStats io;  // what reading the file cost
};

}  // namespace h5ad_sizer
