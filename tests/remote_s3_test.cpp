// Sizing s3:// objects against an S3-compatible server whose every request
// is signature-checked by AWS's own signer (tests/s3/servers.mjs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "h5ad_sizer/io/s3.hpp"
#include "nginx_server.hpp"
#include "s3_servers.hpp"
#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;
using testing::data_file;
using testing::run_tool;

class RemoteS3 : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    servers = new testing::S3Servers(
        {data_file("example.h5ad"), data_file("strings.h5ad"), data_file("wide_uns.h5ad") + "=private/wide_uns.h5ad"});
  }
  static void TearDownTestSuite() {
    delete servers;
    servers = nullptr;
  }
  static std::vector<std::string> env(std::vector<std::string> more) {
    more.push_back("AWS_ENDPOINT_URL=" + servers->endpoint());
    more.push_back("AWS_REGION=us-east-1");
    return more;
  }
  static testing::S3Servers* servers;
};

testing::S3Servers* RemoteS3::servers = nullptr;

const std::vector<std::string> kStaticKeys = {"AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=S3RVER"};

TEST_F(RemoteS3, SignedReadsGiveTheLocalResult) {
  for (const char* name : {"example.h5ad", "strings.h5ad"}) {
    const std::string url = std::string("s3://test-bucket/") + name;
    const auto result = run_tool({"size", url, "--stats"}, env(kStaticKeys));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const json doc = json::parse(result.out);
    EXPECT_EQ(doc["dataset"]["source"], url);
    EXPECT_EQ(testing::without_source(doc), testing::without_source(json::parse(run_tool({"size", data_file(name)}).out)));
  }
}

TEST_F(RemoteS3, PrefetchedRangesAreSignedToo) {
  // wide_uns.h5ad's groups lie past the first request: the walk fetches
  // them with concurrent requests, each signed like the others. Under
  // private/ the test server refuses unsigned requests: a prefetch sent
  // unsigned would be refused, left to the reads, and logged.
  const auto result =
      run_tool({"size", "s3://test-bucket/private/wide_uns.h5ad", "--stats", "-v"}, env(kStaticKeys));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("(prefetch)"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("prefetch of bytes"), std::string::npos) << result.err;
  json remote = testing::without_source(json::parse(result.out));
  remote.erase("io");
  EXPECT_EQ(remote, testing::without_source(json::parse(run_tool({"size", data_file("wide_uns.h5ad")}).out)));
}

TEST_F(RemoteS3, SessionTokensAreSentAndSigned) {
  auto with_token = kStaticKeys;
  with_token.push_back("AWS_SESSION_TOKEN=FwoGZXIvYXdzEXAMPLE");
  const auto result = run_tool({"size", "s3://test-bucket/example.h5ad", "-v"}, env(with_token));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err.find("FwoGZXIvYXdzEXAMPLE"), std::string::npos);
  EXPECT_EQ(result.out.find("FwoGZXIvYXdzEXAMPLE"), std::string::npos);
}

TEST_F(RemoteS3, WrongSecretMissingObjectAndNoCredentials) {
  const auto wrong = run_tool({"size", "s3://test-bucket/example.h5ad"},
                              env({"AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=not-the-secret"}));
  EXPECT_EQ(wrong.exit_code, 3);
  EXPECT_NE(wrong.err.find("access denied"), std::string::npos) << wrong.err;
  EXPECT_EQ(wrong.err.find("not-the-secret"), std::string::npos);

  const auto missing = run_tool({"size", "s3://test-bucket/missing.h5ad"}, env(kStaticKeys));
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("not found"), std::string::npos) << missing.err;

  const auto no_credentials = run_tool({"size", "s3://test-bucket/example.h5ad"}, env({}));
  EXPECT_EQ(no_credentials.exit_code, 2);
  EXPECT_NE(no_credentials.err.find("--no-sign-request"), std::string::npos);
}

TEST_F(RemoteS3, PublicBucketsWithNoSignRequest) {
  const auto result = run_tool({"size", "s3://test-bucket/example.h5ad", "--no-sign-request"}, env({}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
}

TEST_F(RemoteS3, CredentialsFromTheContainerEndpoint) {
  testing::NginxServer credentials(H5AD_SIZER_DATA_DIR);
  const auto result = run_tool(
      {"size", "s3://test-bucket/example.h5ad"},
      env({"AWS_CONTAINER_CREDENTIALS_FULL_URI=" + credentials.http("/credentials"),
           "AWS_CONTAINER_AUTHORIZATION_TOKEN=Bearer test-token"}));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(credentials.access_log().find("GET /credentials 200"), std::string::npos);
}


// plan over s3://BUCKET/PREFIX/: ListObjectsV2 page by page, then each object
// sized as any s3:// URL.
class RemoteS3Listing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    servers = new testing::S3Servers({data_file("example.h5ad") + "=corpus/example.h5ad",
                                      data_file("strings.h5ad") + "=corpus/more/strings & co.h5ad",
                                      data_file("bad_truncated.h5ad") + "=corpus/bad_truncated.h5ad",
                                      data_file("README.md") + "=corpus/README.md",
                                      data_file("dense.h5ad") + "=elsewhere/dense.h5ad",
                                      "--filler=many/f:1005"});
  }
  static void TearDownTestSuite() {
    delete servers;
    servers = nullptr;
  }
  static io::Environment env(std::vector<std::pair<std::string, std::string>> more = {
                                 {"AWS_ACCESS_KEY_ID", "S3RVER"}, {"AWS_SECRET_ACCESS_KEY", "S3RVER"}}) {
    more.emplace_back("AWS_ENDPOINT_URL", servers->endpoint());
    more.emplace_back("AWS_REGION", "us-east-1");
    return [more](const std::string& name) -> std::optional<std::string> {
      for (const auto& [key, value] : more) {
        if (key == name) return value;
      }
      return std::nullopt;
    };
  }
  static std::vector<std::string> tool_env() {
    return {"AWS_ENDPOINT_URL=" + servers->endpoint(), "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=S3RVER",
            "AWS_SECRET_ACCESS_KEY=S3RVER"};
  }
  static testing::S3Servers* servers;
};

testing::S3Servers* RemoteS3Listing::servers = nullptr;

TEST_F(RemoteS3Listing, EveryPageIsFollowedAndSigned) {
  // 1005 keys: S3 (and s3rver) answer 1000 a page.
  const std::vector<std::string> urls = io::list_h5ad_objects("s3://test-bucket/many/", true, env());
  ASSERT_EQ(urls.size(), 1005u);
  EXPECT_EQ(urls.front(), "s3://test-bucket/many/f00000.h5ad");
  EXPECT_EQ(urls.back(), "s3://test-bucket/many/f01004.h5ad");
  EXPECT_TRUE(std::is_sorted(urls.begin(), urls.end()));
  // The prefix is a prefix of keys, not a directory: only .h5ad objects, nested too.
  EXPECT_EQ(io::list_h5ad_objects("s3://test-bucket/corpus/", true, env()),
            (std::vector<std::string>{"s3://test-bucket/corpus/bad_truncated.h5ad",
                                      "s3://test-bucket/corpus/example.h5ad",
                                      "s3://test-bucket/corpus/more/strings & co.h5ad"}));
  EXPECT_TRUE(io::list_h5ad_objects("s3://test-bucket/nothing-here/", true, env()).empty());
  // A bucket's root lists everything.
  EXPECT_EQ(io::list_h5ad_objects("s3://test-bucket/", true, env()).size(), 1005u + 4);
}

TEST_F(RemoteS3Listing, PlanSizesWhatThePrefixHolds) {
  const auto result = run_tool({"plan", "s3://test-bucket/corpus/", "--json", "-j", "2"}, tool_env());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json summary = json::parse(result.out);
  EXPECT_EQ(summary["datasets"], 3);
  EXPECT_EQ(summary["sized"], 2);
  ASSERT_EQ(summary["failed"].size(), 1u);
  EXPECT_EQ(summary["failed"][0]["source"], "s3://test-bucket/corpus/bad_truncated.h5ad");
  EXPECT_EQ(summary["failed"][0]["exit_status"], 4);
  // The key with a space and '&' was read: same sizes as the local file.
  const auto one = run_tool({"size", "s3://test-bucket/corpus/more/strings & co.h5ad"}, tool_env());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(testing::without_source(json::parse(one.out)),
            testing::without_source(json::parse(run_tool({"size", data_file("strings.h5ad")}).out)));
}

TEST_F(RemoteS3Listing, AListingThatFailsStopsThePlanWithOneLine) {
  auto wrong = tool_env();
  wrong.back() = "AWS_SECRET_ACCESS_KEY=not-the-secret";
  const auto denied = run_tool({"plan", "s3://test-bucket/corpus/"}, wrong);
  EXPECT_EQ(denied.exit_code, 3);
  EXPECT_TRUE(denied.out.empty());
  EXPECT_NE(denied.err.find("s3://test-bucket/corpus/: listing page 1 failed: access denied"), std::string::npos)
      << denied.err;
  EXPECT_EQ(denied.err.find("not-the-secret"), std::string::npos);

  const auto missing = run_tool({"plan", "s3://no-such-bucket/corpus/"}, tool_env());
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("not found (HTTP 404: NoSuchBucket)"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace h5ad_sizer
