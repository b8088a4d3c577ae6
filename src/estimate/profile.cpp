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

// Processing's own working memory, and its peak's spread between fresh
// processes: dense_f16 under anndata-0.11 peaked at 474.6-475.9 MiB over 8
// (bench/measure_peak.py --job process --runs 1, 2026-12-01), 0.3 MiB above
// the read's leftovers and X's copy; 2 MiB.
constexpr std::uint64_t kProcessWorkingBytes = 2 * kMiB;

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
  //            a CSC copy for per-gene statistics: 4.0 copies of sparse X
  //            with int32 indices (31.3-31.7 bytes a stored value, float32)
  //            and 1.0 of dense X as float32 above what the read leaves.
  //   Each also holds the runtime's interpreter.
  const std::uint64_t interpreter = runtime.interpreter_bytes;
  return {
      {"load", 1.0, 0.0, 0.0, interpreter},
      {"migrate", 1.01, 0.0, 0.0, interpreter + kCompressedWriteBytes},
      {"process", 1.0, 4.0, 1.0, interpreter + kProcessWorkingBytes},
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

std::uint64_t required_bytes(const JobProfile& profile, std::uint64_t peak_bytes, std::uint64_t base_bytes,
                             const XShape& x) {
  const double copies = x.sparse ? profile.sparse_x_copies : profile.dense_x_copies;
  // The most copies stand together at the end (the column-major copy and the
  // one its mean makes), when every matrix scipy built has int32 indices;
  // the astype copy keeps X's, but stands only beside the product.
  std::uint64_t x_copies = checked_scale(x.float32_bytes, std::min(copies, 1.0));
  if (copies > 1.0) {
    x_copies = std::max(checked_scale(x.compact_bytes, copies), checked_add(x.float32_bytes, x.compact_bytes));
  }
  // The copies are made once the read has returned and its temporaries are
  // gone: they stand on what it leaves, and the read's own peak may still be
  // the higher of the two.
  const std::uint64_t read = checked_scale(peak_bytes, profile.multiplier);
  const std::uint64_t copying =
      checked_add(checked_scale(std::min(base_bytes, peak_bytes), profile.multiplier), x_copies);
  return checked_add(std::max(read, copying), profile.overhead_bytes);
}

}  // namespace h5ad_sizer
