#include "h5ad_sizer/io/s3.hpp"

#include <gtest/gtest.h>

#include <map>

#include "h5ad_sizer/errors.hpp"
#include "nginx_server.hpp"

namespace h5ad_sizer::io {
namespace {

Environment fake(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

TEST(S3Url, SplitsBucketAndKey) {
  const S3Location location = parse_s3_url("s3://cellxgene-data/2024/a b/ds.h5ad");
  EXPECT_EQ(location.bucket, "cellxgene-data");
  EXPECT_EQ(location.key, "2024/a b/ds.h5ad");
  for (const char* bad : {"s3://", "s3://bucket", "s3://bucket/", "s3:///key", "http://x/y"}) {
    EXPECT_THROW(parse_s3_url(bad), Error) << bad;
  }
}

TEST(S3Url, KeysArePercentEncodedExceptSlashes) {
  EXPECT_EQ(uri_encode_path("a b/c+d/é.h5ad"), "a%20b/c%2Bd/%C3%A9.h5ad");
  EXPECT_EQ(uri_encode_path("plain-_.~/x"), "plain-_.~/x");
}

TEST(S3Prefix, OnlyATrailingSlashMakesAPrefix) {
  EXPECT_TRUE(is_s3_prefix("s3://bucket/"));
  EXPECT_TRUE(is_s3_prefix("s3://bucket/corpus/2024/"));
  EXPECT_FALSE(is_s3_prefix("s3://bucket/corpus/a.h5ad"));
  EXPECT_FALSE(is_s3_prefix("https://host/corpus/"));
  EXPECT_THROW(list_h5ad_objects("s3:///corpus/", false, fake({})), Error);
}

TEST(S3ListPage, KeysTokensAndEscapes) {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult><Name>b</Name><Prefix>c/</Prefix>"
      "<KeyCount>3</KeyCount><IsTruncated>true</IsTruncated>"
      "<Contents><Key>c/a&amp;b.h5ad</Key><Size>10</Size></Contents>"
      "<Contents><Key>c/&#233;t&#xE9;.h5ad</Key><Size>11</Size></Contents>"
      "<Contents><Key>c/notes.txt</Key></Contents>"
      "<Contents><Key>c/a&lt;/Key&gt;b.h5ad</Key></Contents>"
      "<NextContinuationToken>1/a+b=</NextContinuationToken></ListBucketResult>";
  const S3ListPage page = parse_list_objects(body);
  EXPECT_EQ(page.keys, (std::vector<std::string>{"c/a&b.h5ad", "c/\xC3\xA9t\xC3\xA9.h5ad", "c/notes.txt",
                                                 "c/a</Key>b.h5ad"}));
  EXPECT_TRUE(page.truncated);
  EXPECT_EQ(page.next_token, "1/a+b=");
  const S3ListPage last = parse_list_objects("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
  EXPECT_TRUE(last.keys.empty());
  EXPECT_FALSE(last.truncated);
}

TEST(S3Request, VirtualHostedOnAwsPathStyleOnAnEndpoint) {
  const S3Location location{"bucket", "dir/file.h5ad"};
  EXPECT_EQ(s3_request(location, false, fake({})).url,
            "https://bucket.s3.us-east-1.amazonaws.com/dir/file.h5ad");
  EXPECT_EQ(s3_request(location, false, fake({{"AWS_REGION", "eu-west-2"}})).url,
            "https://bucket.s3.eu-west-2.amazonaws.com/dir/file.h5ad");
  EXPECT_EQ(s3_request(location, false, fake({{"AWS_DEFAULT_REGION", "ap-south-1"}})).url,
            "https://bucket.s3.ap-south-1.amazonaws.com/dir/file.h5ad");
  EXPECT_EQ(s3_request(location, false, fake({{"AWS_ENDPOINT_URL", "http://127.0.0.1:9000/"}})).url,
            "http://127.0.0.1:9000/bucket/dir/file.h5ad");
  EXPECT_EQ(s3_request(location, false, fake({{"AWS_ENDPOINT_URL", "http://a:1"},
                                              {"AWS_ENDPOINT_URL_S3", "http://b:2"}}))
                .url,
            "http://b:2/bucket/dir/file.h5ad");
}

TEST(S3Request, UnsignedRequestsCarryNoCredentials) {
  const S3Request request = s3_request({"b", "k"}, false, fake({{"AWS_ACCESS_KEY_ID", "AKID"},
                                                               {"AWS_SECRET_ACCESS_KEY", "s"}}));
  EXPECT_TRUE(request.options.aws_sigv4.empty());
  EXPECT_FALSE(request.options.credentials);
}

TEST(S3Request, SignsWithEnvironmentKeysAndSessionToken) {
  const S3Request request =
      s3_request({"b", "k"}, true,
                 fake({{"AWS_ACCESS_KEY_ID", "AKID"}, {"AWS_SECRET_ACCESS_KEY", "secret"},
                       {"AWS_SESSION_TOKEN", "session"}, {"AWS_REGION", "us-west-2"}}));
  EXPECT_EQ(request.options.aws_sigv4, "aws:amz:us-west-2:s3");
  std::string user_password;
  std::vector<std::string> headers;
  request.options.credentials(user_password, headers);
  EXPECT_EQ(user_password, "AKID:secret");
  EXPECT_NE(std::find(headers.begin(), headers.end(), "x-amz-security-token: session"), headers.end());
}

TEST(S3Request, SigningWithoutCredentialsIsAConfigurationError) {
  try {
    s3_request({"b", "k"}, true, fake({}));
    FAIL() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.status(), ExitStatus::usage_error);
    EXPECT_NE(std::string(error.what()).find("--no-sign-request"), std::string::npos);
  }
}

TEST(S3Credentials, FromTheContainerEndpointWithItsToken) {
  testing::NginxServer server(H5AD_SIZER_DATA_DIR);
  auto provider = find_credentials(fake({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server.http("/credentials")},
                                         {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "Bearer test-token"}}));
  ASSERT_TRUE(provider.has_value());
  const AwsCredentials credentials = (*provider)();
  EXPECT_EQ(credentials.access_key_id, "AKIDCONTAINER");
  EXPECT_EQ(credentials.secret_access_key, "container-secret");
  EXPECT_EQ(credentials.session_token, "container-session");
  ASSERT_TRUE(credentials.expiration.has_value());

  auto refused = find_credentials(fake({{"AWS_CONTAINER_CREDENTIALS_FULL_URI", server.http("/credentials")},
                                        {"AWS_CONTAINER_AUTHORIZATION_TOKEN", "Bearer wrong"}}));
  ASSERT_TRUE(refused.has_value());
  EXPECT_THROW((*refused)(), Error);
}

TEST(S3Credentials, EnvironmentKeysComeFirstAndNothingMeansNone) {
  auto provider = find_credentials(fake({{"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "S"},
                                         {"AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://127.0.0.1:1/x"}}));
  ASSERT_TRUE(provider.has_value());
  EXPECT_EQ((*provider)().access_key_id, "A");
  EXPECT_FALSE(find_credentials(fake({})).has_value());
  EXPECT_FALSE(find_credentials(fake({{"AWS_ACCESS_KEY_ID", "A"}})).has_value());
}

}  // namespace
}  // namespace h5ad_sizer::io
