#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/estimate/profile.hpp"
#include "h5ad_sizer/io/byte_source.hpp"
#include "h5ad_sizer/source.hpp"

namespace h5ad_sizer {

// The anndata stack whose memory the model predicts (its constants were
// measured with Debian's anndata 0.8.0, pandas 1.5: docs/memory-model.md).
inline constexpr const char* kModelledRuntime = "anndata-0.8";

struct Estimate {
  std::string runtime = kModelledRuntime;
  std::uint64_t loaded_bytes = 0;    // memory after anndata.read_h5ad
  std::uint64_t required_bytes = 0;  // the profile applied to loaded_bytes
  JobProfile profile;
  // The seed issue's approaches, kept for comparison.
  std::uint64_t n_obs_x_n_vars = 0;
  std::uint64_t x_and_raw_x_nbytes = 0;
};

Estimate estimate_memory(const Report& report, const JobProfile& profile);

// X as the process profile's copies of it cost: float32 data.
XShape x_shape(const Report& report);

// raw.X wherever the layout keeps it (/raw/X, or /raw.X before 0.7).
const Element* find_raw_x(const Report& report);

// Everything `h5ad-sizer size` decides, before rendering.
struct Sizing {
  Report report;
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
