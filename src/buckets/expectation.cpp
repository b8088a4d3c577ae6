#include "h5ad_sizer/buckets/expectation.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace h5ad_sizer {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& origin, const std::string& what) {
  throw_usage(origin + ": " + what + " (expected what `plan --write-expect` writes)");
}

Expected actual_of(const BucketTable& table, const PlanOutcome& outcome) {
  Expected actual;
  if (outcome.failure) {
    actual.error = error_name(*outcome.failure);
  } else {
    actual.bucket = table.buckets.at(std::min(outcome.bucket, table.buckets.size() - 1)).name;
    actual.required_bytes = outcome.required_bytes;
  }
  return actual;
}

bool beyond(std::uint64_t expected, std::uint64_t actual, double tolerance) {
  const double was = static_cast<double>(expected);
  return std::fabs(static_cast<double>(actual) - was) > tolerance * was;
}

}  // namespace

Expectation parse_expectation(const std::string& text, const std::string& origin) {
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) bad(origin, "not a JSON object");
  if (doc.value("h5ad_sizer_expect", 0) != 1) bad(origin, "\"h5ad_sizer_expect\": 1 missing");
  const auto datasets = doc.find("datasets");
  if (datasets == doc.end() || !datasets->is_object()) bad(origin, "\"datasets\" is not an object");
  Expectation expectation;
  expectation.origin = origin;
  for (const auto& [source, entry] : datasets->items()) {
    const std::string where = "datasets[\"" + source + "\"]";
    if (!entry.is_object()) bad(origin, where + " is not an object");
    Expected expected;
    if (entry.contains("error")) {
      if (!entry["error"].is_string()) bad(origin, where + ".error is not a string");
      expected.error = entry["error"].get<std::string>();
    } else {
      if (!entry.contains("bucket") || !entry["bucket"].is_string()) bad(origin, where + ".bucket is not a string");
      if (!entry.contains("required_bytes") || !entry["required_bytes"].is_number_unsigned()) {
        bad(origin, where + ".required_bytes is not a whole number");
      }
      expected.bucket = entry["bucket"].get<std::string>();
      expected.required_bytes = entry["required_bytes"].get<std::uint64_t>();
    }
    expectation.datasets.emplace(source, std::move(expected));
  }
  return expectation;
}

std::vector<CheckResult> compare_expectation(const Expectation& expected, const BucketTable& table,
                                             const std::vector<PlanOutcome>& outcomes,
                                             std::optional<double> tolerance) {
  std::map<std::string, CheckResult> results;
  for (const auto& [source, entry] : expected.datasets) {
    CheckResult& result = results[source];
    result.source = source;
    result.kind = CheckResult::Kind::went;
    result.expected = entry;
  }
  for (const PlanOutcome& outcome : outcomes) {
    CheckResult& result = results[outcome.source];
    const bool known = result.kind == CheckResult::Kind::went;
    result.source = outcome.source;
    result.actual = actual_of(table, outcome);
    result.message = outcome.message;
    using Kind = CheckResult::Kind;
    const Expected& was = result.expected;
    const Expected& now = result.actual;
    if (!known) {
      result.kind = Kind::appeared;
    } else if (!now.error.empty()) {
      result.kind = now.error == was.error ? Kind::same : Kind::failed;
    } else if (!was.error.empty()) {
      result.kind = Kind::recovered;
    } else if (now.bucket != was.bucket) {
      result.kind = Kind::bucket_moved;
    } else if (tolerance && beyond(was.required_bytes, now.required_bytes, *tolerance)) {
      result.kind = Kind::required_moved;
    } else {
      result.kind = Kind::same;
    }
  }
  std::vector<CheckResult> ordered;
  for (auto& [source, result] : results) ordered.push_back(std::move(result));
  return ordered;
}

}  // namespace h5ad_sizer
