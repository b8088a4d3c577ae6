#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/estimate/profile.hpp"

namespace h5ad_sizer {

// One AWS Batch job definition and the resources it provides.
struct Bucket {
  std::string name;
  std::string job_definition;  // ARN
  std::uint32_t vcpus = 0;
  std::uint64_t memory_mib = 0;  // what a job may use, not the instance's nominal size
  // What an hour of a job in it costs, in whatever currency the table's
  // author chose; given for every bucket of a table or for none.
  std::optional<double> price_per_hour;
};

// Buckets in strictly ascending memory, and the job profile sizing uses.
struct BucketTable {
  std::string origin;  // file path, "PATH (from H5AD_SIZER_BUCKETS)", "H5AD_SIZER_BUCKETS_JSON" or "built-in"
  // The job profile; a built-in one (by name) holds the runtime's
  // interpreter, so it is resolved again for the runtime in effect.
  JobProfile profile;
  bool profile_is_builtin = false;
  // The anndata stack the jobs run ("runtime"), when the table names one.
  std::optional<std::string> runtime;
  std::vector<Bucket> buckets;

  bool priced() const { return !buckets.empty() && buckets.front().price_per_hour.has_value(); }
  // The profile for `model`: a built-in resolved for it, else the table's.
  JobProfile profile_for(const RuntimeModel& model) const;
};

// "Machines 1-5", sized to what EC2 instances of 8 to 128 GiB leave for jobs.
BucketTable default_bucket_table();

// Parses and validates a bucket file's text. Throws Error(usage_error) with
// one line naming `origin` and the offending field.
BucketTable parse_bucket_table(const std::string& text, const std::string& origin);

// The table from `path` if given, else from the file $H5AD_SIZER_BUCKETS
// names, else from the JSON text in $H5AD_SIZER_BUCKETS_JSON, else built in.
BucketTable load_bucket_table(const std::optional<std::string>& path);

struct BucketChoice {
  std::size_t index = 0;  // 0-based into BucketTable::buckets
  bool overflow = false;  // nothing is large enough; index is the largest
};

// The smallest bucket, at or above `min_bucket` (1-based), whose memory covers
// `required_bytes`. Pure: no I/O, no logging.
BucketChoice choose_bucket(const BucketTable& table, std::uint64_t required_bytes,
                           std::size_t min_bucket = 1);

}  // namespace h5ad_sizer
