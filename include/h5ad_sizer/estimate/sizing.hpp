#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/estimate/profile.hpp"
#include "h5ad_sizer/io/byte_source.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer {

struct Estimate {
  std::string runtime = kModelledRuntime;
  std::uint64_t peak_bytes = 0;      // the peak of anndata.read_h5ad (JSON: loaded_bytes)
  std::uint64_t required_bytes = 0;  // the profile applied to peak_bytes
  JobProfile profile;
  // The seed issue's approaches, kept for comparison.
  std::uint64_t n_obs_x_n_vars = 0;
  std::uint64_t x_and_raw_x_nbytes = 0;
};

// The job's needs: the read's peak with the profile applied.
Estimate estimate_job(const Report& report, const MemoryEstimate& memory, const JobProfile& profile);

// X as the process profile's copies of it cost: float32 data.
XShape x_shape(const Report& report);

// raw.X wherever the layout keeps it (/raw/X, or /raw.X before 0.7).
const Element* find_raw_x(const Report& report);

// Everything `h5ad-sizer size` decides, before rendering.
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

struct SizeRequest {
  std::string location;
  std::optional<std::string> buckets_path;
  std::optional<std::string> profile;  // overrides the table's
  std::size_t min_bucket = 1;
  std::optional<std::string> runtime;  // must name a modelled runtime
  SourceOptions source;
};

// Reads the file, estimates, and picks a bucket. Throws Error.
Sizing size_dataset(const SizeRequest& request);

}  // namespace h5ad_sizer
