#include "h5ad_sizer/estimate/profile.hpp"

#include <cmath>
#include <stdexcept>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;

// A fresh /usr/bin/python3 that has imported anndata holds 86 MiB resident
// (measured: VmRSS after `import anndata`, Debian bookworm); 96 MiB rounds
// that up for the shared libraries HDF5 maps on first use.
constexpr std::uint64_t kInterpreterBytes = 96 * kMiB;

}  // namespace

const std::vector<JobProfile>& builtin_profiles() {
  // load: read_h5ad and nothing else.
  // migrate: read, edit obs/var/uns, write a compressed copy. Writing streams
  //   each array through HDF5's chunk buffers, but edits copy the dataframes
  //   and anndata's writer makes transient copies of sparse index arrays.
  // process: read and convert: copies of X (to CSC, to float, a subset) are
  //   routine; scipy's tocsc peaks at 1.5x X and a copied AnnData is 2x.
  static const std::vector<JobProfile> profiles = {
      {"load", 1.0, kInterpreterBytes},
      {"migrate", 1.5, kInterpreterBytes},
      {"process", 2.5, kInterpreterBytes},
  };
  return profiles;
}

std::optional<JobProfile> find_builtin_profile(const std::string& name) {
  for (const JobProfile& profile : builtin_profiles()) {
    if (profile.name == name) return profile;
  }
  return std::nullopt;
}

std::string builtin_profile_names() {
  std::string names;
  for (const JobProfile& profile : builtin_profiles()) {
    if (!names.empty()) names += ", ";
    names += profile.name;
  }
  return names;
}

std::uint64_t required_bytes(const JobProfile& profile, std::uint64_t loaded_bytes) {
  const long double scaled = std::ceil(static_cast<long double>(loaded_bytes) * profile.multiplier);
  if (!(scaled >= 0) || scaled >= 18446744073709551615.0L) {
    throw std::overflow_error("required memory overflows 64 bits");
  }
  return checked_add(static_cast<std::uint64_t>(scaled), profile.overhead_bytes);
}

}  // namespace h5ad_sizer
