#include "h5ad_sizer/buckets/plan.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {

PlanSummary summarize_plan(const BucketTable& table, const std::vector<PlanOutcome>& outcomes,
                           std::optional<std::size_t> baseline) {
  if (baseline && *baseline >= table.buckets.size()) {
    throw_usage("--baseline-bucket: must be between 1 and " + std::to_string(table.buckets.size()) +
                " (the buckets in " + table.origin + ")");
  }
  PlanSummary summary;
  summary.table = table;
  summary.buckets.resize(table.buckets.size());
  summary.baseline = baseline;
  const std::uint64_t largest_mib = table.buckets.empty() ? 0 : table.buckets.back().memory_mib;
  if (table.priced()) {
    summary.price_per_hour = 0.0;
    summary.all_largest_price_per_hour = 0.0;
    if (baseline) summary.baseline_price_per_hour = 0.0;
  }
  for (const PlanOutcome& outcome : outcomes) {
    if (outcome.failure) {
      summary.failed.push_back(&outcome);
      continue;
    }
    ++summary.sized;
    if (outcome.overflow) summary.overflow.push_back(&outcome);
    const std::size_t index = std::min(outcome.bucket, table.buckets.size() - 1);
    PlanBucket& bucket = summary.buckets[index];
    ++bucket.count;
    bucket.required_total = checked_add(bucket.required_total, outcome.required_bytes);
    bucket.required_largest = std::max(bucket.required_largest, outcome.required_bytes);
    const std::uint64_t own_mib = table.buckets[index].memory_mib;
    summary.reserved_mib = checked_add(summary.reserved_mib, own_mib);
    summary.all_largest_mib = checked_add(summary.all_largest_mib, largest_mib);
    if (baseline) {
      summary.baseline_mib = checked_add(summary.baseline_mib, std::max(own_mib, table.buckets[*baseline].memory_mib));
    }
    if (table.priced()) {
      *summary.price_per_hour += *table.buckets[index].price_per_hour;
      *summary.all_largest_price_per_hour += *table.buckets.back().price_per_hour;
      // On the baseline, or its own bucket when it would not fit there.
      if (baseline) *summary.baseline_price_per_hour += *table.buckets[std::max(index, *baseline)].price_per_hour;
    }
  }
  return summary;
}

std::vector<PlanOutcome> rebucket(const BucketTable& table, std::vector<PlanOutcome> outcomes) {
  for (PlanOutcome& outcome : outcomes) {
    if (outcome.failure) continue;
    const BucketChoice choice = choose_bucket(table, outcome.required_bytes);
    outcome.bucket = choice.index;
    outcome.overflow = choice.overflow;
  }
  return outcomes;
}

}  // namespace h5ad_sizer
