#include "h5ad_sizer/estimate/profile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {
namespace {


// Writing a compressed copy: at most 10.7 MiB above the read's peak on the
// calibration corpus (the chunk records and compression buffers of HDF5's
// writer), rounded up.
constexpr std::uint64_t kCompressedWriteBytes = 12 * kMiB;

}  // namespace

std::vector<JobProfile> builtin_profiles(const RuntimeModel& runtime) {
  // Measured with bench/measure_peak.py --job load|migrate|process on the
  // calibration corpus; docs/memory-model.md has the table.
  //   load:    read_h5ad only.
  //   migrate: read, edit obs/var/uns, write a gzip copy: the peak rose by
  //            0-10.7 MiB over the read's, whatever the data size; and each
  //            array rewritten through HDF5's chunked writer keeps a ~4 KiB
  //            record per <= 1 MiB chunk (0.4 %), hence 1.01.
  //   process: X to float32, normalised per cell into a new matrix, log1p,
  //            a CSC copy for per-gene statistics: 3.2-4.0 copies of sparse X
  //            and 1.0 of dense X (as float32) above the read's peak.
  //   Each also holds the runtime's interpreter.
  const std::uint64_t interpreter = runtime.interpreter_bytes;
  return {
      {"load", 1.0, 0.0, 0.0, interpreter},
      {"migrate", 1.01, 0.0, 0.0, interpreter + kCompressedWriteBytes},
      {"process", 1.0, 4.0, 1.0, interpreter},
  };
}

std::optional<JobProfile> find_builtin_profile(const std::string& name, const RuntimeModel& runtime) {
  for (const JobProfile& profile : builtin_profiles(runtime)) {
    if (profile.name == name) return profile;
  }
  return std::nullopt;
}

std::string builtin_profile_names() {
  std::string names;
  for (const JobProfile& profile : builtin_profiles(RuntimeModel{})) {
    if (!names.empty()) names += ", ";
    names += profile.name;
  }
  return names;
}

std::uint64_t required_bytes(const JobProfile& profile, std::uint64_t loaded_bytes,
                             const XShape& x) {
  const double copies = x.sparse ? profile.sparse_x_copies : profile.dense_x_copies;
  const std::uint64_t x_copies = checked_add(checked_scale(x.float32_bytes, std::min(copies, 1.0)),
                                             checked_scale(x.compact_bytes, std::max(copies - 1.0, 0.0)));
  return checked_add(checked_add(checked_scale(loaded_bytes, profile.multiplier), x_copies),
                     profile.overhead_bytes);
}

}  // namespace h5ad_sizer
