#include "h5ad_sizer/render/check_report.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

using Kind = CheckResult::Kind;

std::string sized_text(const Expected& e) {
  return "bucket " + printable(e.bucket) + ", required " + human_bytes(e.required_bytes);
}

std::string state_text(const Expected& e) { return e.error.empty() ? sized_text(e) : e.error; }

std::string signed_percent(std::uint64_t was, std::uint64_t now) {
  const double change = was == 0 ? 0 : (static_cast<double>(now) - static_cast<double>(was)) / static_cast<double>(was);
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", change * 100);
  return text;
}

// What changed, or "" for a match.
std::string difference(const CheckResult& r, const std::string& origin) {
  switch (r.kind) {
    case Kind::same: return "";
    case Kind::bucket_moved:
      return "bucket " + printable(r.expected.bucket) + " -> " + printable(r.actual.bucket) + " (required " +
             human_bytes(r.expected.required_bytes) + " -> " + human_bytes(r.actual.required_bytes) + ")";
    case Kind::required_moved:
      return "required " + human_bytes(r.expected.required_bytes) + " -> " + human_bytes(r.actual.required_bytes) +
             " (" + signed_percent(r.expected.required_bytes, r.actual.required_bytes) + "), bucket " +
             printable(r.actual.bucket);
    case Kind::failed:
      return r.actual.error + " (expected " + state_text(r.expected) + "): " + printable(r.message);
    case Kind::recovered: return sized_text(r.actual) + ", expected " + r.expected.error;
    case Kind::appeared: return "not in " + printable(origin) + " (" + state_text(r.actual) + ")";
    case Kind::went: return "in " + printable(origin) + " (" + state_text(r.expected) + ") but not among the inputs";
  }
  return "";
}

std::string xml_escaped(const std::string& text) { return markup_escape(printable(text)); }

std::size_t differing(const std::vector<CheckResult>& results) {
  std::size_t n = 0;
  for (const CheckResult& r : results) n += r.kind != Kind::same;
  return n;
}

}  // namespace

std::string expectation_text(const BucketTable& table, const std::vector<PlanOutcome>& outcomes) {
  nlohmann::json datasets = nlohmann::json::object();  // sorted by key
  for (const PlanOutcome& outcome : outcomes) {
    if (outcome.failure) {
      datasets[outcome.source] = {{"error", error_name(*outcome.failure)}};
    } else {
      const std::size_t index = std::min(outcome.bucket, table.buckets.size() - 1);
      datasets[outcome.source] = {{"bucket", table.buckets[index].name}, {"required_bytes", outcome.required_bytes}};
    }
  }
  const nlohmann::json doc = {{"h5ad_sizer_expect", 1}, {"datasets", datasets}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_check_lines(const std::vector<CheckResult>& results, const std::string& origin) {
  std::string out;
  for (const CheckResult& r : results) {
    const std::string what = difference(r, origin);
    if (!what.empty()) out += printable(r.source) + ": " + what + "\n";
  }
  const std::size_t n = differing(results);
  out += "check: " + std::to_string(results.size()) + (results.size() == 1 ? " dataset, " : " datasets, ") +
         (n == 0 ? "all match " : std::to_string(n) + (n == 1 ? " differs from " : " differ from ")) +
         printable(origin) + "\n";
  return out;
}

std::string render_check_junit(const std::vector<CheckResult>& results, const std::string& origin) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n";
  out += "  <testsuite name=\"h5ad-sizer check " + xml_escaped(origin) + "\" tests=\"" +
         std::to_string(results.size()) + "\" failures=\"" + std::to_string(differing(results)) + "\">\n";
  for (const CheckResult& r : results) {
    out += "    <testcase classname=\"h5ad-sizer\" name=\"" + xml_escaped(r.source) + "\"";
    const std::string what = difference(r, origin);
    if (what.empty()) {
      out += "/>\n";
    } else {
      out += ">\n      <failure message=\"" + xml_escaped(what) + "\"/>\n    </testcase>\n";
    }
  }
  return out + "  </testsuite>\n</testsuites>\n";
}

}  // namespace h5ad_sizer
