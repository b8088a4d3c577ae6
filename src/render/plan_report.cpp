#include "h5ad_sizer/render/plan_report.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

std::string count_text(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::size_t datasets(const PlanSummary& summary) { return summary.sized + summary.failed.size(); }


}  // namespace

std::string render_plan_table(const PlanSummary& summary) {
  std::vector<std::vector<std::string>> rows = {
      {"BUCKET", "MEMORY", "DATASETS", "SHARE", "REQUIRED, TOTAL", "LARGEST"}};
  for (std::size_t i = 0; i < summary.buckets.size(); ++i) {
    const Bucket& bucket = summary.table.buckets[i];
    const PlanBucket& planned = summary.buckets[i];
    rows.push_back({printable(bucket.name), human_bytes(checked_mul(bucket.memory_mib, kMiB)),
                    std::to_string(planned.count), percent(planned.count, summary.sized),
                    human_bytes(planned.required_total), planned.count ? human_bytes(planned.required_largest) : ""});
  }
  std::string out = format_columns(rows, {false, true, true, true, true, true});
  out += "\n" + std::to_string(summary.sized) + " of " + count_text(datasets(summary), "dataset", "datasets") +
         " sized; " + std::to_string(summary.overflow.size()) + " need more than the largest bucket; " +
         std::to_string(summary.failed.size()) + " failed (bucket table: " + printable(summary.table.origin) + ")\n";
  if (summary.sized > 0) {
    const std::string largest = printable(summary.table.buckets.back().name);
    out += "memory reserved, one job a dataset: " + human_bytes(checked_mul(summary.reserved_mib, kMiB)) +
           " in the buckets chosen; " + human_bytes(checked_mul(summary.all_largest_mib, kMiB)) +
           " with every job on " + largest + " (the buckets reserve " +
           percent(summary.reserved_mib, summary.all_largest_mib) + " of it)";
    if (summary.baseline) {
      out += "; " + human_bytes(checked_mul(summary.baseline_mib, kMiB)) + " with every job on at least " +
             printable(summary.table.buckets[*summary.baseline].name) + " (" +
             percent(summary.reserved_mib, summary.baseline_mib) + ")";
    }
    out += "\n";
    if (summary.price_per_hour) {
      out += "price of an hour of every job: " + price_text(*summary.price_per_hour) + " in the buckets chosen; " +
             price_text(*summary.all_largest_price_per_hour) + " with every job on " + largest;
      if (summary.baseline_price_per_hour) {
        out += "; " + price_text(*summary.baseline_price_per_hour) + " with every job on at least " +
               printable(summary.table.buckets[*summary.baseline].name);
      }
      out += "\n";
    }
  }
  if (!summary.overflow.empty()) {
    out += "\nneed more than the largest bucket:\n";
    for (const PlanOutcome* outcome : summary.overflow) {
      out += "  " + printable(outcome->source) + ": requires " + human_bytes(outcome->required_bytes) + "\n";
    }
  }
  if (!summary.failed.empty()) {
    out += "\nfailed:\n";
    for (const PlanOutcome* outcome : summary.failed) {
      // The message names the file.
      out += "  " + std::string(error_name(*outcome->failure)) + ": " + printable(outcome->message) + "\n";
    }
  }
  return out;
}

nlohmann::ordered_json plan_json(const PlanSummary& summary) {
  using nlohmann::ordered_json;
  ordered_json buckets = ordered_json::array();
  for (std::size_t i = 0; i < summary.buckets.size(); ++i) {
    const Bucket& bucket = summary.table.buckets[i];
    const PlanBucket& planned = summary.buckets[i];
    ordered_json entry = {{"index", i + 1},
                          {"name", bucket.name},
                          {"job_definition", bucket.job_definition},
                          {"memory_mib", bucket.memory_mib},
                          {"datasets", planned.count},
                          {"required_total_bytes", planned.required_total},
                          {"required_largest_bytes", planned.required_largest}};
    if (bucket.price_per_hour) entry["price_per_hour"] = *bucket.price_per_hour;
    buckets.push_back(std::move(entry));
  }
  ordered_json overflow = ordered_json::array();
  for (const PlanOutcome* outcome : summary.overflow) {
    overflow.push_back({{"source", outcome->source}, {"required_bytes", outcome->required_bytes}});
  }
  ordered_json failed = ordered_json::array();
  for (const PlanOutcome* outcome : summary.failed) {
    failed.push_back({{"source", outcome->source},
                      {"exit_status", static_cast<int>(*outcome->failure)},
                      {"error", error_name(*outcome->failure)},
                      {"message", outcome->message}});
  }
  ordered_json baseline = nullptr;
  if (summary.baseline) {
    baseline = {{"index", *summary.baseline + 1},
                {"name", summary.table.buckets[*summary.baseline].name},
                {"reserved_mib", summary.baseline_mib}};
  }
  ordered_json out = {{"bucket_table", summary.table.origin},
                      {"datasets", datasets(summary)},
                      {"sized", summary.sized},
                      {"buckets", std::move(buckets)},
                      {"overflow", std::move(overflow)},
                      {"failed", std::move(failed)},
                      {"reserved_mib", summary.reserved_mib},
                      {"all_on_largest_mib", summary.all_largest_mib},
                      {"baseline", std::move(baseline)}};
  if (summary.price_per_hour) {
    out["price_per_hour"] = {{"buckets", *summary.price_per_hour},
                             {"all_on_largest", *summary.all_largest_price_per_hour},
                             {"baseline", summary.baseline_price_per_hour ? ordered_json(*summary.baseline_price_per_hour)
                                                                          : ordered_json(nullptr)}};
  }
  return out;
}

std::string render_plan_comparison(const std::vector<PlanSummary>& summaries) {
  const bool priced = std::any_of(summaries.begin(), summaries.end(),
                                  [](const PlanSummary& s) { return s.price_per_hour.has_value(); });
  std::vector<std::string> header = {"BUCKET TABLE", "BUCKETS", "SIZED", "OVERFLOW", "RESERVED", "ALL ON LARGEST",
                                     "SHARE"};
  if (priced) header.insert(header.end(), {"PRICE/HOUR", "PRICE, ALL ON LARGEST"});
  std::vector<std::vector<std::string>> rows = {header};
  for (const PlanSummary& summary : summaries) {
    std::vector<std::string> row = {printable(summary.table.origin), std::to_string(summary.table.buckets.size()),
                                    std::to_string(summary.sized), std::to_string(summary.overflow.size()),
                                    human_bytes(checked_mul(summary.reserved_mib, kMiB)),
                                    human_bytes(checked_mul(summary.all_largest_mib, kMiB)),
                                    percent(summary.reserved_mib, summary.all_largest_mib)};
    if (priced) {
      row.push_back(summary.price_per_hour ? price_text(*summary.price_per_hour) : "");
      row.push_back(summary.all_largest_price_per_hour ? price_text(*summary.all_largest_price_per_hour) : "");
    }
    rows.push_back(std::move(row));
  }
  std::vector<bool> right(rows.front().size(), true);
  right[0] = false;
  return "\ncompared, one job a dataset:\n" + format_columns(rows, right);
}

}  // namespace h5ad_sizer
