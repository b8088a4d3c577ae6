#include "h5ad_sizer/buckets/expectation.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {
namespace {

using Kind = CheckResult::Kind;

PlanOutcome sized(const char* source, std::uint64_t required, std::size_t bucket) {
  PlanOutcome outcome;
  outcome.source = source;
  outcome.required_bytes = required;
  outcome.bucket = bucket;
  return outcome;
}

TEST(Expectation, ParsesWhatPlanWritesAndRefusesTheRest) {
  const Expectation e = parse_expectation(
      R"({"h5ad_sizer_expect": 1, "datasets": {"a.h5ad": {"bucket": "machine-1", "required_bytes": 5},
                                                "b.h5ad": {"error": "H5adSizer.InvalidFile"}}})",
      "sizes.json");
  ASSERT_EQ(e.datasets.size(), 2u);
  EXPECT_EQ(e.datasets.at("a.h5ad").bucket, "machine-1");
  EXPECT_EQ(e.datasets.at("a.h5ad").required_bytes, 5u);
  EXPECT_EQ(e.datasets.at("b.h5ad").error, "H5adSizer.InvalidFile");
  for (const char* text : {"[]", "{}", R"({"h5ad_sizer_expect": 1})",
                           R"({"h5ad_sizer_expect": 1, "datasets": {"a": {"bucket": "m"}}})",
                           R"({"h5ad_sizer_expect": 1, "datasets": {"a": {"bucket": "m", "required_bytes": -1}}})"}) {
    try {
      parse_expectation(text, "sizes.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), ExitStatus::usage_error);
      EXPECT_NE(std::string(error.what()).find("sizes.json"), std::string::npos);
    }
  }
}

TEST(Expectation, EveryKindOfDifference) {
  const BucketTable table = default_bucket_table();
  Expectation e;
  e.origin = "sizes.json";
  e.datasets["same"] = {"machine-1", 1 * kGiB, ""};
  e.datasets["moved"] = {"machine-1", 5 * kGiB, ""};
  e.datasets["grew"] = {"machine-2", 9 * kGiB, ""};
  e.datasets["broke"] = {"machine-1", 1 * kGiB, ""};
  e.datasets["still-broken"] = {"", 0, "H5adSizer.InvalidFile"};
  e.datasets["gone"] = {"machine-1", 1 * kGiB, ""};
  PlanOutcome broke;
  broke.source = "broke";
  broke.failure = ExitStatus::invalid_h5ad;
  broke.message = "broke: truncated";
  PlanOutcome still = broke;
  still.source = "still-broken";
  const std::vector<PlanOutcome> outcomes = {sized("same", 1 * kGiB + 1, 0), sized("moved", 9 * kGiB, 1),
                                             sized("grew", 12 * kGiB, 1), broke, still, sized("new", 1, 0)};
  auto kinds = [&](std::optional<double> tolerance) {
    std::map<std::string, Kind> out;
    for (const CheckResult& r : compare_expectation(e, table, outcomes, tolerance)) out[r.source] = r.kind;
    return out;
  };
  const auto exact = kinds(std::nullopt);
  EXPECT_EQ(exact.at("same"), Kind::same);
  EXPECT_EQ(exact.at("moved"), Kind::bucket_moved);
  EXPECT_EQ(exact.at("grew"), Kind::same);  // same bucket, no tolerance asked for
  EXPECT_EQ(exact.at("broke"), Kind::failed);
  EXPECT_EQ(exact.at("still-broken"), Kind::same);
  EXPECT_EQ(exact.at("gone"), Kind::went);
  EXPECT_EQ(exact.at("new"), Kind::appeared);
  const auto tolerant = kinds(0.10);
  EXPECT_EQ(tolerant.at("grew"), Kind::required_moved);  // +33 %
  EXPECT_EQ(tolerant.at("same"), Kind::same);
}

}  // namespace
}  // namespace h5ad_sizer
