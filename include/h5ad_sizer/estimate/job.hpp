#pragma once

#include <cstdint>
#include <string>

#include "h5ad_sizer/anndata/report.hpp"
#include "h5ad_sizer/estimate/memory.hpp"
#include "h5ad_sizer/estimate/profile.hpp"

// What the job needs: the read's peak with a job profile applied. Pure.
namespace h5ad_sizer {

struct Estimate {
  RuntimeModel runtime;
  std::uint64_t peak_bytes = 0;      // the peak of anndata.read_h5ad (JSON: loaded_bytes)
  std::uint64_t after_read_bytes = 0;  // what is left once it returns
  std::uint64_t required_bytes = 0;    // the profile applied to both
  JobProfile profile;
  // The seed issue's approaches, kept for comparison.
  std::uint64_t n_obs_x_n_vars = 0;
  std::uint64_t x_and_raw_x_nbytes = 0;
};

// Throws std::overflow_error when the profile's arithmetic overflows.
Estimate estimate_job(const Report& report, const MemoryEstimate& memory, const JobProfile& profile);

// X as the process profile's copies of it cost: float32 data.
XShape x_shape(const Report& report);

}  // namespace h5ad_sizer
