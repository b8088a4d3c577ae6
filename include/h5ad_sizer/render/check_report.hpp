#pragma once

#include <string>
#include <vector>

#include "h5ad_sizer/buckets/expectation.hpp"
#include "h5ad_sizer/buckets/plan.hpp"

// What `plan --write-expect` writes and what `check` prints.
namespace h5ad_sizer {

// The expectation file for these outcomes (buckets/expectation.hpp has the
// format), sorted by source so that a change reads as a small diff.
std::string expectation_text(const BucketTable& table, const std::vector<PlanOutcome>& outcomes);

// One line per dataset that differs, as CI logs show them, then a summary:
//   data/big.h5ad: bucket machine-2 -> machine-3 (required 14.1 GiB -> 16.3 GiB)
//   check: 12 datasets, 1 differs from sizes.json
std::string render_check_lines(const std::vector<CheckResult>& results, const std::string& origin);
// The same as a JUnit XML report: a test case per dataset.
std::string render_check_junit(const std::vector<CheckResult>& results, const std::string& origin);

}  // namespace h5ad_sizer
