#pragma once

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace h5ad_sizer::testing {

// tests/s3/servers.mjs on loopback: s3rver holding `files` in "test-bucket"
// (each FILE, FILE=KEY or --filler=PREFIX:COUNT, as servers.mjs takes them),
// behind a proxy that verifies every signature with AWS's own signer. Needs
// `npm ci --prefix tests/s3` (the README's install command runs it).
class S3Servers {
 public:
  explicit S3Servers(const std::vector<std::string>& files) {
    const std::string port_file = m_dir.file("port");
    // s3rver enciphers ListObjectsV2 continuation tokens with DES, which
    // OpenSSL 3 keeps in its legacy provider: without it every truncated
    // listing is an InternalError.
    std::vector<std::string> args = {"node", "--openssl-legacy-provider",
                                     std::string(H5AD_SIZER_SOURCE_DIR) + "/tests/s3/servers.mjs", port_file};
    args.insert(args.end(), files.begin(), files.end());
    m_process = std::make_unique<ChildProcess>(std::move(args));
    m_process->wait_until([&] { return !read_text(port_file).empty(); }, std::chrono::seconds(30),
                          "test S3 servers", [] { return std::string("test S3 servers exited"); });
    m_endpoint = "http://127.0.0.1:" + read_text(port_file);
  }
  S3Servers(const S3Servers&) = delete;
  S3Servers& operator=(const S3Servers&) = delete;

  // AWS_ENDPOINT_URL for the tool.
  const std::string& endpoint() const { return m_endpoint; }

 private:
  ScopedTempDir m_dir;
  std::unique_ptr<ChildProcess> m_process;  // after m_dir: stopped before it is removed
  std::string m_endpoint;
};

}  // namespace h5ad_sizer::testing
