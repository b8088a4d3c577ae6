// Sizing s3:// objects against an S3-compatible server whose every request
// is signature-checked by AWS's own signer (tests/s3/servers.mjs).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
    servers = new testing::S3Servers({data_file("example.h5ad"), data_file("strings.h5ad")});
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

}  // namespace
}  // namespace h5ad_sizer
