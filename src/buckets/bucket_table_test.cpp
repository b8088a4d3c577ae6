#include "h5ad_sizer/buckets/bucket_table.hpp"

#include "h5ad_sizer/checked.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer {
namespace {

const char* kValidTable = R"({
  "profile": "load",
  "buckets": [
    {"name": "small", "job_definition": "arn:aws:batch:eu-west-1:123456789012:job-definition/small:3",
     "vcpus": 1, "memory_mib": 1000},
    {"name": "large", "job_definition": "arn:aws:batch:eu-west-1:123456789012:job-definition/large",
     "vcpus": 4, "memory_mib": 4000}
  ]})";

// The one-line message a bad table produces, or "" when it parses.
std::string error_for(const std::string& text) {
  try {
    parse_bucket_table(text, "table.json");
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::usage_error);
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
    return error.what();
  }
  return "";
}

std::string with_bucket(const std::string& bucket_fields) {
  return R"({"profile": "load", "buckets": [{)" + bucket_fields + "}]}";
}

TEST(BucketTable, DefaultHasFiveAscendingBucketsBelowNominalInstanceMemory) {
  const BucketTable table = default_bucket_table();
  ASSERT_EQ(table.buckets.size(), 5u);
  const std::uint64_t nominal_gib[] = {8, 16, 32, 64, 128};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_LT(table.buckets[i].memory_mib, nominal_gib[i] * 1024);
    EXPECT_GT(table.buckets[i].memory_mib, nominal_gib[i] * 1024 * 95 / 100);
    if (i > 0) {
      EXPECT_GT(table.buckets[i].memory_mib, table.buckets[i - 1].memory_mib);
    }
  }
  // AWS documents 7985 MiB available on an 8 GiB m4.large; ECS keeps 32.
  EXPECT_EQ(table.buckets[0].memory_mib, 7953u);
  EXPECT_EQ(table.profile.name, "migrate");
}

TEST(BucketTable, DefaultRoundTripsThroughTheFileFormat) {
  const BucketTable table = default_bucket_table();
  std::string text = R"({"profile": "migrate", "buckets": [)";
  for (std::size_t i = 0; i < table.buckets.size(); ++i) {
    const Bucket& b = table.buckets[i];
    text += (i ? "," : "") + std::string(R"({"name": ")") + b.name + R"(", "job_definition": ")" +
            b.job_definition + R"(", "vcpus": )" + std::to_string(b.vcpus) +
            R"(, "memory_mib": )" + std::to_string(b.memory_mib) + "}";
  }
  text += "]}";
  const BucketTable parsed = parse_bucket_table(text, "round-trip");
  ASSERT_EQ(parsed.buckets.size(), table.buckets.size());
  EXPECT_EQ(parsed.buckets[4].job_definition, table.buckets[4].job_definition);
}

TEST(BucketTable, ParsesAValidTable) {
  const BucketTable table = parse_bucket_table(kValidTable, "table.json");
  ASSERT_EQ(table.buckets.size(), 2u);
  EXPECT_EQ(table.buckets[0].name, "small");
  EXPECT_EQ(table.buckets[1].vcpus, 4u);
  EXPECT_EQ(table.buckets[1].memory_mib, 4000u);
  EXPECT_EQ(table.profile.name, "load");
  EXPECT_EQ(table.origin, "table.json");
}

TEST(BucketTable, AcceptsACustomProfile) {
  const BucketTable table = parse_bucket_table(
      R"({"profile": {"name": "mine", "multiplier": 3.5, "overhead_mib": 200},
          "buckets": [{"name": "a", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/a:1",
                       "vcpus": 1, "memory_mib": 10}]})",
      "custom");
  EXPECT_EQ(table.profile.name, "mine");
  EXPECT_DOUBLE_EQ(table.profile.multiplier, 3.5);
  EXPECT_EQ(table.profile.overhead_bytes, 200 * kMiB);
}

TEST(BucketTable, RejectsMalformedTablesWithOneLineNamingTheField) {
  const std::string arn = R"("job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/a:1")";
  EXPECT_NE(error_for("{not json").find("table.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_for("[]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_for(R"({"buckets": []})").find("missing field \"profile\""), std::string::npos);
  EXPECT_NE(error_for(R"({"profile": "load"})").find("missing field \"buckets\""), std::string::npos);
  EXPECT_NE(error_for(R"({"profile": "load", "buckets": []})").find("at least one bucket"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"profile": "load", "buckets": {}})").find("buckets: must be an array"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"profile": "huge", "buckets": []})").find("unknown profile \"huge\""),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(arn + R"(, "vcpus": 1, "memory_mib": 10)"))
                .find("buckets[0]: missing field \"name\""),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", "vcpus": 1, "memory_mib": 10)"))
                .find("missing field \"job_definition\""),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", "job_definition": "my-job", "vcpus": 1, "memory_mib": 10)"))
                .find("buckets[0].job_definition: not a job definition ARN"),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-queue/q", "vcpus": 1, "memory_mib": 10)"))
                .find("not a job definition ARN"),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", )" + arn + R"(, "vcpus": "2", "memory_mib": 10)"))
                .find("buckets[0].vcpus: must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", )" + arn + R"(, "vcpus": 2, "memory_mib": 1.5)"))
                .find("buckets[0].memory_mib: must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_for(with_bucket(R"("name": "a", )" + arn + R"(, "vcpus": 0, "memory_mib": 10)"))
                .find("vcpus: must be a positive integer"),
            std::string::npos);
  EXPECT_NE(error_for(R"({"profile": {"name": "x", "multiplier": 0.5, "overhead_mib": 0},
                          "buckets": []})")
                .find("profile.multiplier"),
            std::string::npos);
  const std::string arn2 = R"("job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/b:1")";
  const std::string descending = R"({"profile": "load", "buckets": [
      {"name": "a", )" + arn + R"(, "vcpus": 1, "memory_mib": 2000},
      {"name": "b", )" + arn2 + R"(, "vcpus": 1, "memory_mib": 2000}]})";
  EXPECT_NE(error_for(descending).find("buckets[1].memory_mib: must be larger"), std::string::npos);
  EXPECT_EQ(error_for(kValidTable), "");
}

// A typo or a copy-paste slip must not size jobs silently wrong.
TEST(BucketTable, RejectsUnknownFieldsDuplicatesAndAbsurdNumbers) {
  auto error_for = [](const std::string& text) {
    try {
      parse_bucket_table(text, "t.json");
    } catch (const Error& error) {
      EXPECT_EQ(error.status(), ExitStatus::usage_error);
      return std::string(error.what());
    }
    return std::string();
  };
  const std::string a = R"({"name": "a", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/a:1", "vcpus": 1, "memory_mib": 1000})";
  const std::string b = R"({"name": "b", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/b:1", "vcpus": 2, "memory_mib": 2000})";
  auto table = [&](const std::string& profile, const std::string& buckets, const std::string& extra = "") {
    return R"({"profile": )" + profile + R"(, "buckets": [)" + buckets + "]" + extra + "}";
  };
  EXPECT_EQ(error_for(table(R"({"name": "p", "multplier": 4, "multiplier": 1, "overhead_mib": 0})", a)),
            "t.json: profile: unknown field \"multplier\" (known: name, multiplier, overhead_mib, "
            "sparse_x_copies, dense_x_copies)");
  EXPECT_EQ(error_for(table(R"("load")", a, R"(, "bukets": [])")),
            "t.json: top level: unknown field \"bukets\" (known: runtime, profile, buckets, bucket_table)");
  EXPECT_EQ(error_for(table(R"("load")", R"({"name": "a", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/a:1", "vcpus": 1, "memory_mib": 1000, "memory": 4})")),
            "t.json: buckets[0]: unknown field \"memory\" (known: name, job_definition, vcpus, memory_mib, price_per_hour)");
  EXPECT_EQ(error_for(R"({"profile": "load", "profile": "process", "buckets": [)" + a + "]}"),
            "t.json: \"profile\": appears twice in one object");
  EXPECT_EQ(error_for(table(R"("load")", R"({"name": "a", "name": "b", "job_definition": "arn:aws:batch:us-east-1:123456789012:job-definition/a:1", "vcpus": 1, "memory_mib": 1000})")),
            "t.json: \"name\": appears twice in one object");
  // A number beyond a double is a configuration error, not an internal one.
  EXPECT_NE(error_for(R"({"profile": {"name": "p", "multiplier": 2345E789011, "overhead_mib": 0}, "buckets": [])")
                .find("t.json: not valid JSON: number overflow"),
            std::string::npos);
  // The same key in two different objects is fine.
  EXPECT_EQ(error_for(table(R"("load")", a + ", " + b)), "");
  std::string b_named_a = b;
  b_named_a.replace(b_named_a.find(R"("b")"), 3, R"("a")");
  EXPECT_EQ(error_for(table(R"("load")", a + ", " + b_named_a)),
            "t.json: buckets[1].name: \"a\" is also buckets[0]'s");
  std::string b_with_as_arn = b;
  b_with_as_arn.replace(b_with_as_arn.find("definition/b:1"), 14, "definition/a:1");
  EXPECT_EQ(error_for(table(R"("load")", a + ", " + b_with_as_arn)),
            "t.json: buckets[1].job_definition: also buckets[0]'s");
  // A configuration typo is a configuration error (exit 2), not a dataset
  // that overflows (exit 4).
  EXPECT_EQ(error_for(table(R"({"name": "p", "multiplier": 1e20, "overhead_mib": 0})", a)),
            "t.json: profile.multiplier: must be at most 1000");
  EXPECT_EQ(error_for(table(R"({"name": "p", "multiplier": 1, "overhead_mib": 0, "sparse_x_copies": 1e300})", a)),
            "t.json: profile.sparse_x_copies: must be at most 1000");
  EXPECT_EQ(error_for(table(R"({"name": "p", "multiplier": 1, "overhead_mib": 18446744073709551615})", a)),
            "t.json: profile.overhead_mib: must be at most 1073741824");
}

TEST(BucketTable, PricesAreForEveryBucketOrNone) {
  const std::string arn = "arn:aws:batch:eu-west-1:123456789012:job-definition/";
  auto table = [&](const std::string& first, const std::string& second) {
    return R"({"profile": "load", "buckets": [{"name": "a", "job_definition": ")" + arn +
           R"(a", "vcpus": 1, "memory_mib": 1000)" + first + R"(}, {"name": "b", "job_definition": ")" + arn +
           R"(b", "vcpus": 2, "memory_mib": 2000)" + second + "}]}";
  };
  const BucketTable priced = parse_bucket_table(table(R"(, "price_per_hour": 0.0416)", R"(, "price_per_hour": 0.0832)"),
                                                "table.json");
  EXPECT_TRUE(priced.priced());
  EXPECT_EQ(*priced.buckets[1].price_per_hour, 0.0832);
  EXPECT_FALSE(parse_bucket_table(table("", ""), "table.json").priced());
  EXPECT_EQ(error_for(table(R"(, "price_per_hour": 1)", "")),
            "table.json: buckets[1].price_per_hour: give a price for every bucket or for none (buckets[0] has one)");
  EXPECT_EQ(error_for(table("", R"(, "price_per_hour": 1)")),
            "table.json: buckets[1].price_per_hour: give a price for every bucket or for none (buckets[0] has none)");
  for (const char* bad : {"-1", "\"1.00\"", "1e7", "null"}) {
    EXPECT_EQ(error_for(table(std::string(R"(, "price_per_hour": )") + bad, R"(, "price_per_hour": 1)")),
              "table.json: buckets[0].price_per_hour: must be a number from 0 to 1000000")
        << bad;
  }
}

TEST(BucketTable, AMissingFileSaysWhy) {
  try {
    load_bucket_table(std::string("/nonexistent/buckets.json"));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::usage_error);
    EXPECT_STREQ(error.what(), "/nonexistent/buckets.json: cannot read the bucket table: No such file or directory");
  }
  try {
    load_bucket_table(std::string("/tmp"));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "/tmp: cannot read the bucket table: is a directory");
  }
}

TEST(ChooseBucket, PicksTheSmallestThatCovers) {
  const BucketTable table = parse_bucket_table(kValidTable, "t");
  EXPECT_EQ(choose_bucket(table, 0).index, 0u);
  EXPECT_EQ(choose_bucket(table, 1).index, 0u);
  // Exactly at a bucket's limit still fits; one byte more does not.
  EXPECT_EQ(choose_bucket(table, 1000 * kMiB).index, 0u);
  EXPECT_FALSE(choose_bucket(table, 1000 * kMiB).overflow);
  EXPECT_EQ(choose_bucket(table, 1000 * kMiB + 1).index, 1u);
  EXPECT_EQ(choose_bucket(table, 4000 * kMiB).index, 1u);
  EXPECT_FALSE(choose_bucket(table, 4000 * kMiB).overflow);
}

TEST(ChooseBucket, AboveTheLargestChoosesItAndFlagsOverflow) {
  const BucketTable table = parse_bucket_table(kValidTable, "t");
  const BucketChoice choice = choose_bucket(table, 4000 * kMiB + 1);
  EXPECT_EQ(choice.index, 1u);
  EXPECT_TRUE(choice.overflow);
}

TEST(ChooseBucket, MinBucketRaisesTheFloor) {
  const BucketTable table = parse_bucket_table(kValidTable, "t");
  EXPECT_EQ(choose_bucket(table, 1, /*min_bucket=*/1).index, 0u);
  EXPECT_EQ(choose_bucket(table, 1, /*min_bucket=*/2).index, 1u);
  EXPECT_FALSE(choose_bucket(table, 1, /*min_bucket=*/2).overflow);
}

}  // namespace
}  // namespace h5ad_sizer
