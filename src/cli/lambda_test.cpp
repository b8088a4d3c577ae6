#include "cli/lambda.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/errors.hpp"

namespace h5ad_sizer::cli {
namespace {

std::string usage_message(const std::string& event) {
  try {
    parse_event(event);
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::usage_error);
    return error.what();
  }
  ADD_FAILURE() << "accepted " << event;
  return "";
}

TEST(LambdaEvent, OnlyPathIsRequired) {
  const SizeOptions options = parse_event(R"({"path": "s3://b/k.h5ad"})");
  EXPECT_EQ(options.path, "s3://b/k.h5ad");
  EXPECT_EQ(options.min_bucket, 1u);
  EXPECT_FALSE(options.profile);
  EXPECT_FALSE(options.strict);
}

TEST(LambdaEvent, EveryField) {
  const SizeOptions options = parse_event(
      R"({"path": "s3://b/k.h5ad", "profile": "process", "min_bucket": 3, "runtime": "anndata-0.8", "strict": true})");
  EXPECT_EQ(*options.profile, "process");
  EXPECT_EQ(options.min_bucket, 3u);
  EXPECT_EQ(*options.runtime, "anndata-0.8");
  EXPECT_TRUE(options.strict);
}

TEST(LambdaEvent, MistakesNameTheField) {
  EXPECT_NE(usage_message("{}").find("missing \"path\""), std::string::npos);
  EXPECT_NE(usage_message("not json").find("not valid JSON"), std::string::npos);
  EXPECT_NE(usage_message(R"(["s3://b/k"])").find("JSON object"), std::string::npos);
  EXPECT_NE(usage_message(R"({"path": ""})").find("\"path\" must be"), std::string::npos);
  EXPECT_NE(usage_message(R"({"path": "x", "min_bucket": 0})").find("min_bucket"), std::string::npos);
  EXPECT_NE(usage_message(R"({"path": "x", "min_bucket": "2"})").find("min_bucket"), std::string::npos);
  EXPECT_NE(usage_message(R"({"path": "x", "min_buckets": 2})").find("unknown field \"min_buckets\""),
            std::string::npos);
  EXPECT_NE(usage_message(R"({"path": "x", "strict": "yes"})").find("strict"), std::string::npos);
}

}  // namespace
}  // namespace h5ad_sizer::cli
