#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/estimate/runtime.hpp"

namespace h5ad_sizer {

// What the job does with the dataset beyond loading it. Each built-in
// profile's numbers were measured by a reference job on the calibration
// corpus (bench/measure_peak.py, docs/memory-model.md "Job profiles").
struct JobProfile {
  std::string name;
  // Applied to the read's peak: work in proportion to everything loaded
  // (rewriting every array, for instance).
  double multiplier = 1.0;
  // Extra copies of X the job makes, in units of X converted to float32:
  // processing copies X to float, normalises it into a new matrix and
  // transposes it. Sparse and dense X take different numbers of copies.
  double sparse_x_copies = 0.0;
  double dense_x_copies = 0.0;
  // The process itself: the interpreter with anndata imported, and any
  // fixed working memory of the job.
  std::uint64_t overhead_bytes = 0;
};

// The built-in profiles (load, migrate, process) for a runtime, whose
// interpreter each profile's overhead holds.
std::vector<JobProfile> builtin_profiles(const RuntimeModel& runtime);
std::optional<JobProfile> find_builtin_profile(const std::string& name, const RuntimeModel& runtime);
// "load, migrate, process": for error messages and --help.
std::string builtin_profile_names();

// What copies of X cost with float32 values. A job's first copy (astype)
// keeps X's index dtypes; scipy builds every later matrix with int32 indices
// when they fit (get_index_dtype), so those cost `compact_bytes`. Sparse
// copies beyond one cost the larger of that many at compact_bytes and the
// first beside one compact (the astype copy is gone before the most stand).
struct XShape {
  std::uint64_t float32_bytes = 0;
  std::uint64_t compact_bytes = 0;
  bool sparse = false;
};

// The memory the job needs: the larger of ceil(peak x multiplier) and
// ceil(base x multiplier) + the copies of X (see XShape), plus overhead.
// peak_bytes is the read's peak, base_bytes what the copies stand on once it
// returns (MemoryEstimate::job_base_bytes; taken as at most the peak).
std::uint64_t required_bytes(const JobProfile& profile, std::uint64_t peak_bytes, std::uint64_t base_bytes,
                             const XShape& x = {});

}  // namespace h5ad_sizer
