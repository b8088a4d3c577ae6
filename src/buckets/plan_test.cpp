#include "h5ad_sizer/buckets/plan.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {
namespace {

PlanOutcome sized(const char* source, std::uint64_t required, std::size_t bucket, bool overflow = false) {
  PlanOutcome outcome;
  outcome.source = source;
  outcome.required_bytes = required;
  outcome.bucket = bucket;
  outcome.overflow = overflow;
  return outcome;
}

TEST(Plan, CountsAndSumsPerBucket) {
  const BucketTable table = default_bucket_table();
  PlanOutcome missing;
  missing.source = "gone.h5ad";
  missing.failure = ExitStatus::input_unreadable;
  missing.message = "gone.h5ad: cannot open";
  const std::vector<PlanOutcome> outcomes = {sized("a", 3 * kGiB, 0), sized("b", 5 * kGiB, 0), missing,
                                             sized("c", 20 * kGiB, 2), sized("d", 900 * kGiB, 4, true)};
  const PlanSummary summary = summarize_plan(table, outcomes, /*baseline=*/1);
  EXPECT_EQ(summary.sized, 4u);
  ASSERT_EQ(summary.buckets.size(), table.buckets.size());
  EXPECT_EQ(summary.buckets[0].count, 2u);
  EXPECT_EQ(summary.buckets[0].required_total, 8 * kGiB);
  EXPECT_EQ(summary.buckets[0].required_largest, 5 * kGiB);
  EXPECT_EQ(summary.buckets[1].count, 0u);
  EXPECT_EQ(summary.buckets[2].count, 1u);
  EXPECT_EQ(summary.buckets[4].count, 1u);
  ASSERT_EQ(summary.overflow.size(), 1u);
  EXPECT_EQ(summary.overflow[0]->source, "d");
  ASSERT_EQ(summary.failed.size(), 1u);
  EXPECT_EQ(*summary.failed[0]->failure, ExitStatus::input_unreadable);
  // Reserved: each dataset's bucket; against every job on the largest, and
  // on at least bucket 2 (bucket 3 and 5 keep theirs).
  const auto mib = [&](std::size_t i) { return table.buckets[i].memory_mib; };
  EXPECT_EQ(summary.reserved_mib, 2 * mib(0) + mib(2) + mib(4));
  EXPECT_EQ(summary.all_largest_mib, 4 * mib(4));
  EXPECT_EQ(summary.baseline_mib, 2 * mib(1) + mib(2) + mib(4));
}

TEST(Plan, ABaselineOutsideTheTableIsAUsageError) {
  try {
    summarize_plan(default_bucket_table(), {}, 5);
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::usage_error);
    EXPECT_NE(std::string(error.what()).find("--baseline-bucket"), std::string::npos);
  }
}

}  // namespace
}  // namespace h5ad_sizer
