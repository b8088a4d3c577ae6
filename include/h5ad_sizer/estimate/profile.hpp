#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace h5ad_sizer {

// What the job does with the dataset beyond loading it, as a multiplier on
// the loaded bytes plus a fixed overhead for the process itself.
// docs/memory-model.md explains each built-in profile's numbers.
struct JobProfile {
  std::string name;
  double multiplier = 1.0;
  std::uint64_t overhead_bytes = 0;
};

const std::vector<JobProfile>& builtin_profiles();
std::optional<JobProfile> find_builtin_profile(const std::string& name);
// "load, migrate, process": for error messages and --help.
std::string builtin_profile_names();

// The memory the job needs: ceil(loaded x multiplier) + overhead.
std::uint64_t required_bytes(const JobProfile& profile, std::uint64_t loaded_bytes);

}  // namespace h5ad_sizer
