#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/buckets/bucket_table.hpp"
#include "h5ad_sizer/errors.hpp"

// A corpus plan: how many datasets land in each bucket, which fit none and
// which could not be sized, and what the buckets reserve against one machine
// size for every job. A pure pass over the outcomes `size` gave, one per
// dataset (cli/plan_command.cpp collects them).
namespace h5ad_sizer {

// What sizing one dataset gave.
struct PlanOutcome {
  std::string source;  // as given (path or redacted URL)
  // Sized: what the job needs and the bucket chosen (0-based; the largest
  // when `overflow`).
  std::uint64_t required_bytes = 0;
  std::size_t bucket = 0;
  bool overflow = false;
  // Not sized: the exit status and its one-line message.
  std::optional<ExitStatus> failure;
  std::string message;
};

struct PlanBucket {
  std::size_t count = 0;
  std::uint64_t required_total = 0;     // bytes, summed over its datasets
  std::uint64_t required_largest = 0;   // the largest dataset's
};

struct PlanSummary {
  BucketTable table;
  std::vector<PlanBucket> buckets;  // as table.buckets
  std::size_t sized = 0;            // datasets with an estimate (overflow included)
  std::vector<const PlanOutcome*> overflow;  // need more than the largest bucket
  std::vector<const PlanOutcome*> failed;    // could not be sized
  // Memory the jobs reserve (MiB, one job a dataset, equally long): in the
  // buckets chosen, with every job on the largest bucket, and with every
  // job on `baseline` (0-based) where given; a dataset above the baseline's
  // memory keeps its own bucket (it would not run there).
  std::uint64_t reserved_mib = 0;
  std::uint64_t all_largest_mib = 0;
  std::optional<std::size_t> baseline;
  std::uint64_t baseline_mib = 0;
  // What an hour of every job costs the same three ways, when the table
  // gives each bucket a price_per_hour.
  std::optional<double> price_per_hour;
  std::optional<double> all_largest_price_per_hour;
  std::optional<double> baseline_price_per_hour;  // with `baseline`
};

// Where the buckets of `table` put outcomes sized against another table
// with the same job profile and runtime: each sized outcome's bucket and
// overflow chosen again for its required bytes.
std::vector<PlanOutcome> rebucket(const BucketTable& table, std::vector<PlanOutcome> outcomes);

// `outcomes` must outlive the summary (it points into them). Throws
// Error(usage_error) when `baseline` (0-based) is not a bucket of `table`.
PlanSummary summarize_plan(const BucketTable& table, const std::vector<PlanOutcome>& outcomes,
                           std::optional<std::size_t> baseline = std::nullopt);

}  // namespace h5ad_sizer
