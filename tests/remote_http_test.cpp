// Sizing files behind HTTP(S): real nginx on loopback, started here.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <hdf5.h>
#include <utility>
#include <nlohmann/json.hpp>
#include <sstream>

#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5ad_sizer/io/http_source.hpp"
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

TEST_F(RemoteHttp, AGroupStructurePastTheFirstRequestIsWalkedAhead) {
  // wide_uns.h5ad's 120 uns results lie past the first 256 KiB: the walk
  // of its groups (h5::MetadataPrefetch) fetches them before HDF5 asks,
  // and the answer is the local one.
  const auto remote = run_tool({"size", server->http("/wide_uns.h5ad"), "--stats"});
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  const json doc = json::parse(remote.out);
  EXPECT_EQ(testing::without_source(doc),
            testing::without_source(json::parse(run_tool({"size", data_file("wide_uns.h5ad")}).out)));
  EXPECT_LE(doc["io"]["round_trips"].get<std::size_t>(), doc["io"]["requests"].get<std::size_t>());
  // What was fetched covers what was read, and fetching ahead brought more.
  EXPECT_GT(doc["io"]["bytes_wanted"].get<std::uint64_t>(), 0u);
  EXPECT_LT(doc["io"]["bytes_wanted"].get<std::uint64_t>(), doc["io"]["bytes_read"].get<std::uint64_t>());
}

// `inner` with prefetching hidden: HDF5 then reads as it would without the
// walk, one miss at a time.
class NoPrefetch final : public io::ByteSource {
 public:
  explicit NoPrefetch(io::ByteSource& inner) : m_inner(inner) {}
  std::uint64_t size() override { return m_inner.size(); }
  void read(std::uint64_t offset, std::size_t length, void* out) override { m_inner.read(offset, length, out); }
  const io::IoStats& stats() const override { return m_inner.stats(); }

 private:
  io::ByteSource& m_inner;
};

// Every object of the file opened (its header read), as a walk of the
// whole file does; the source's round trips and requests after it.
std::pair<std::uint64_t, std::uint64_t> visit_all(io::ByteSource& source, const io::ByteSource& counted) {
  h5::Handle file = h5::open_file(source, "wide_uns.h5ad");
#if H5_VERSION_GE(1, 12, 0)
  const auto each = [](hid_t, const char*, const H5O_info2_t*, void*) -> herr_t { return 0; };
  EXPECT_GE(H5Ovisit3(file.get(), H5_INDEX_NAME, H5_ITER_INC, each, nullptr, H5O_INFO_BASIC), 0);
#else
  const auto each = [](hid_t, const char*, const H5O_info_t*, void*) -> herr_t { return 0; };
  EXPECT_GE(H5Ovisit2(file.get(), H5_INDEX_NAME, H5_ITER_INC, each, nullptr, H5O_INFO_BASIC), 0);
#endif
  return {counted.stats().round_trips, counted.stats().requests};
}

TEST_F(RemoteHttp, TheGroupWalkTurnsMissesIntoConcurrentRounds) {
  // Small requests and no reading through holes, so that the file's
  // structure takes many requests either way: with the walk they come a
  // level at a time, several at once; without it, one after another.
  io::HttpOptions options;
  options.first_read_bytes = 64 * 1024;
  options.initial_window_bytes = 64 * 1024;
  options.max_window_bytes = 64 * 1024;
  options.prefetch_gap_bytes = 0;
  const std::string url = server->http("/wide_uns.h5ad");
  auto walked = io::open_http(url, "wide_uns", options);
  const auto [walked_rounds, walked_requests] = visit_all(*walked, *walked);
  auto plain = io::open_http(url, "wide_uns", options);
  NoPrefetch hidden(*plain);
  const auto [plain_rounds, plain_requests] = visit_all(hidden, *plain);
  EXPECT_EQ(plain_rounds, plain_requests);
  EXPECT_LT(walked_rounds, walked_requests);
  EXPECT_LT(walked_rounds * 2, plain_rounds) << walked_rounds << " rounds with the walk, " << plain_rounds
                                             << " without";
}

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
  for (const char* path : {"/bad_not_hdf5.h5ad", "/empty.h5ad"}) {
    const auto result = run_tool({"size", server->http(path)});
    EXPECT_EQ(result.exit_code, 4) << path << result.err;
    EXPECT_NE(result.err.find("not an HDF5 file"), std::string::npos) << result.err;
  }
  // As locally.
  const auto local = run_tool({"size", "/dev/null"});
  EXPECT_EQ(local.exit_code, 3) << local.err;  // not a regular file
}

TEST_F(RemoteHttp, RedirectsAreFollowedWithinTheHostOnly) {
  const auto same = run_tool({"size", server->http("/moved/same-host.h5ad")});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(testing::without_source(json::parse(same.out)),
            testing::without_source(json::parse(run_tool({"size", data_file("example.h5ad")}).out)));
  server->clear_access_log();
  const auto other = run_tool({"size", server->http("/moved/other-host.h5ad")});
  EXPECT_EQ(other.exit_code, 3);
  EXPECT_NE(other.err.find("redirected to another host (http://localhost:"), std::string::npos) << other.err;
  EXPECT_EQ(count_lines(server->access_log(), "GET /example.h5ad"), 0u) << server->access_log();
}

TEST_F(RemoteHttp, CredentialsInTheUrlAreNeverShown) {
  const std::string url = "http://reader:s3cret@" + server->http("/example.h5ad").substr(7);
  const auto result = run_tool({"size", url, "-v", "--stats"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.find("s3cret"), std::string::npos);
  EXPECT_EQ(result.err.find("s3cret"), std::string::npos) << result.err;
  EXPECT_EQ(json::parse(result.out)["dataset"]["source"],
            "http://<redacted>@" + server->http("/example.h5ad").substr(7));
  const auto inspect = run_tool({"inspect", url});
  ASSERT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_EQ(inspect.out.find("s3cret"), std::string::npos);
  const auto missing = run_tool({"size", "http://reader:s3cret@" + server->http("/missing.h5ad").substr(7)});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err.find("s3cret"), std::string::npos) << missing.err;
}

TEST_F(RemoteHttp, SchemesAreCaseInsensitiveAndOthersRefused) {
  const auto upper = run_tool({"size", "HTTP://" + server->http("/example.h5ad").substr(7)});
  EXPECT_EQ(upper.exit_code, 0) << upper.err;
  for (const char* url : {"ftp://example.org/a.h5ad", "file:///tmp/a.h5ad", "FILE:///tmp/a.h5ad"}) {
    const auto result = run_tool({"size", url});
    EXPECT_EQ(result.exit_code, 2) << url;
    EXPECT_NE(result.err.find("unsupported scheme"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");
  }
}

// Instance metadata and container credentials live on link-local addresses:
// a URL from an event or a manifest must not reach them.
TEST(RemoteLinkLocal, AddressesAreRefusedBeforeConnecting) {
  for (const char* url : {"http://169.254.169.254/latest/meta-data/x.h5ad", "http://169.254.170.2/v2/credentials",
                          "http://[fd00:ec2::254]/x.h5ad", "http://[fe80::1]/x.h5ad"}) {
    const auto result = run_tool({"size", url, "--time-limit", "5"});
    EXPECT_EQ(result.exit_code, 3) << url;
    EXPECT_NE(result.err.find("refusing to connect to the link-local address"), std::string::npos) << result.err;
  }
}

// A server that accepts the connection and never answers: exit 3 at the
// time limit, not a process that waits for ever.
TEST(RemoteSilentServer, EndsAtTheTimeLimitWithExitThree) {
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string url = "http://127.0.0.1:" + std::to_string(ntohs(address.sin_port)) + "/stuck.h5ad";
  const auto started = std::chrono::steady_clock::now();
  const auto result = run_tool({"size", url, "--time-limit", "2"});
  const auto elapsed = std::chrono::steady_clock::now() - started;
  ::close(listener);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("time limit"), std::string::npos) << result.err;
  EXPECT_LT(elapsed, std::chrono::seconds(5));
  EXPECT_EQ(result.out, "");
}

}  // namespace
}  // namespace h5ad_sizer
