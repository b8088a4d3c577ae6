#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "h5ad_sizer/buckets/plan.hpp"

// What `plan` prints for a corpus: the datasets per bucket, those that fit
// no bucket or could not be sized, and the memory the buckets reserve.
//
//   BUCKET     MEMORY    DATASETS   SHARE  REQUIRED, TOTAL  LARGEST
//   machine-1  7.77 GiB         3   60.0%         1.52 GiB  578 MiB
//   ...
//   5 of 6 datasets sized; 0 need more than the largest bucket; 1 failed
namespace h5ad_sizer {

std::string render_plan_table(const PlanSummary& summary);
nlohmann::ordered_json plan_json(const PlanSummary& summary);

// Several bucket tables over the same corpus, a line each: how many
// buckets, datasets sized and overflowing, the memory reserved against
// every job on the largest bucket, and prices when the tables give them.
std::string render_plan_comparison(const std::vector<PlanSummary>& summaries);

}  // namespace h5ad_sizer
