#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/isolation.hpp"
#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::cli {

// What reading one file may take (--memory-limit, --time-limit): the reader
// runs in a child process held to them (cli/isolation.hpp).
struct ReadLimits {
  // Address space of the reader process. Every file of the calibration
  // corpus, the 3 GB benchmark file and 100 000 objects in uns are read
  // within 128 MiB (bench/robustness, docs/robustness.md); damaged files
  // reached 555 MiB under a 1 GiB limit before being refused.
  std::uint64_t memory_mib = 256;
  // Seconds; default 30 for a local file, 60 for a URL (round trips).
  std::optional<double> time_seconds;
};

// The limits for reading `path`, in the form the child process takes.
Limits limits_for(const ReadLimits& limits, const std::string& path);

// For a URL, when its reads must stop on their own (exit 3, a network
// problem): a little before the child is killed for the time limit.
std::optional<io::Deadline> remote_deadline(const ReadLimits& limits, const std::string& path);

// The runtime and job profile a table sizes with: --runtime, else the
// table's, else the default; --profile (built in), else the table's for that
// runtime. Throws Error(usage_error) for an unknown name.
struct ResolvedJob {
  RuntimeModel runtime;
  JobProfile profile;
};
ResolvedJob resolve_job(const BucketTable& table, const std::optional<std::string>& runtime,
                        const std::optional<std::string>& profile);

// What `size` is asked, from flags or from a Lambda event.
struct SizeOptions {
  std::string path;
  std::optional<std::string> buckets;
  std::optional<std::string> profile;
  std::optional<std::string> runtime;
  std::size_t min_bucket = 1;
  bool strict = false;
  bool stats = false;
  bool no_sign_request = false;
  bool allow_link_local = false;  // never from a Lambda event
  std::optional<io::Deadline> deadline;
  ReadLimits limits;
};

// Sizes the dataset and returns the `size` document. A dataset larger than
// every bucket is a warning on stderr, or Error(overflow) with `strict`.
// Throws Error.
nlohmann::ordered_json size_document(const SizeOptions& options);

}  // namespace h5ad_sizer::cli
