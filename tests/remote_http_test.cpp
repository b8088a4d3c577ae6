// Sizing files behind HTTP(S): real nginx on loopback, started here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "nginx_server.hpp"
#include "test_support.hpp"

namespace h5ad_sizer {
namespace {

using nlohmann::json;
using testing::data_file;
using testing::run_tool;

std::size_t count_lines(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::size_t count = 0;
  for (std::string line; std::getline(in, line);) count += line.rfind(prefix, 0) == 0;
  return count;
}

class RemoteHttp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server = new testing::NginxServer(H5AD_SIZER_DATA_DIR); }
  static void TearDownTestSuite() {
    delete server;
    server = nullptr;
  }
  static testing::NginxServer* server;
};

testing::NginxServer* RemoteHttp::server = nullptr;

TEST_F(RemoteHttp, SameResultAsTheLocalFileWithFewRangedGets) {
  const auto local = run_tool({"size", data_file("example.h5ad")});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  for (const char* name : {"example.h5ad", "strings.h5ad", "legacy.h5ad", "lzf.h5ad"}) {
    server->clear_access_log();
    const std::string url = server->http(std::string("/") + name);
    const auto remote = run_tool({"size", url, "--stats"});
    ASSERT_EQ(remote.exit_code, 0) << name << remote.err;
    const json doc = json::parse(remote.out);
    EXPECT_EQ(doc["dataset"]["source"], url);
    EXPECT_EQ(testing::without_source(doc), testing::without_source(json::parse(run_tool({"size", data_file(name)}).out))) << name;
    const std::string log = server->access_log();
    EXPECT_EQ(count_lines(log, "HEAD "), 0u) << log;
    EXPECT_EQ(count_lines(log, "GET "), doc["io"]["requests"].get<std::size_t>()) << log;
    // Every fixture is smaller than the first request, which reads it whole.
    EXPECT_EQ(doc["io"]["requests"].get<std::size_t>(), 1u) << name << "\n" << log;
  }
}

TEST_F(RemoteHttp, InspectIsExactRemotelyToo) {
  for (const char* name : {"example.h5ad", "lzf.h5ad"}) {
    const auto remote = run_tool({"inspect", server->http(std::string("/") + name), "--json"});
    ASSERT_EQ(remote.exit_code, 0) << name << remote.err;
    json remote_doc = json::parse(remote.out);
    json local_doc = json::parse(run_tool({"inspect", data_file(name), "--json"}).out);
    EXPECT_EQ(remote_doc["stored_bytes_exact"], true);
    remote_doc.erase("source");
    local_doc.erase("source");
    EXPECT_EQ(remote_doc, local_doc) << name;
  }
}

TEST_F(RemoteHttp, PresignedUrlsWorkAndTheirSignatureIsNeverShown) {
  const std::string url = server->http("/example.h5ad?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=s3cr3t");
  const auto result = run_tool({"size", url, "-v"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(json::parse(result.out)["dataset"]["source"], server->http("/example.h5ad?<redacted>"));
  EXPECT_EQ(result.out.find("s3cr3t"), std::string::npos);
  EXPECT_EQ(result.err.find("s3cr3t"), std::string::npos);
  const auto missing = run_tool({"size", server->http("/missing.h5ad?X-Amz-Signature=s3cr3t")});
  EXPECT_EQ(missing.err.find("s3cr3t"), std::string::npos) << missing.err;
}

TEST_F(RemoteHttp, HttpsWithAPrivateCertificate) {
  const auto untrusted = run_tool({"size", server->https("/example.h5ad")});
  EXPECT_EQ(untrusted.exit_code, 3) << untrusted.err;
  const auto trusted = run_tool({"size", server->https("/example.h5ad")},
                                {"AWS_CA_BUNDLE=" + server->certificate()});
  ASSERT_EQ(trusted.exit_code, 0) << trusted.err;
  EXPECT_EQ(testing::without_source(json::parse(trusted.out)),
            testing::without_source(json::parse(run_tool({"size", data_file("example.h5ad")}).out)));
}

TEST_F(RemoteHttp, FailuresAreOneLineAndExitThree) {
  const std::pair<std::string, std::string> cases[] = {
      {"/missing.h5ad", "not found (HTTP 404)"},
      {"/forbidden/example.h5ad", "access denied (HTTP 403)"},
      {"/norange/example.h5ad", "ignores Range requests"},
  };
  for (const auto& [path, message] : cases) {
    server->clear_access_log();
    const auto result = run_tool({"size", server->http(path)});
    EXPECT_EQ(result.exit_code, 3) << path;
    EXPECT_EQ(result.out, "");
    EXPECT_NE(result.err.find(message), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    // 403 and 404 are final: asked once.
    EXPECT_EQ(count_lines(server->access_log(), "GET "), 1u) << path;
  }
}

TEST_F(RemoteHttp, ServerErrorsAreRetriedThenGivenUp) {
  server->clear_access_log();
  const auto result = run_tool({"size", server->http("/unavailable/example.h5ad")});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("HTTP 503"), std::string::npos) << result.err;
  EXPECT_EQ(count_lines(server->access_log(), "GET "), 5u);  // HttpOptions::max_attempts
}

TEST_F(RemoteHttp, NotHdf5BehindAUrlIsExitFour) {
  const auto result = run_tool({"size", server->http("/bad_not_hdf5.h5ad")});
  EXPECT_EQ(result.exit_code, 4) << result.err;
  EXPECT_NE(result.err.find("not an HDF5 file"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace h5ad_sizer
