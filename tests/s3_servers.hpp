#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace h5ad_sizer::testing {

// tests/s3/servers.mjs on loopback: s3rver holding `files` in "test-bucket",
// behind a proxy that verifies every signature with AWS's own signer. Needs
// `npm ci --prefix tests/s3` (the README's install command runs it).
class S3Servers {
 public:
  explicit S3Servers(const std::vector<std::string>& files) {
    const std::string port_file = m_dir.file("port");
    std::vector<std::string> args = {"node", std::string(H5AD_SIZER_SOURCE_DIR) + "/tests/s3/servers.mjs",
                                     port_file};
    args.insert(args.end(), files.begin(), files.end());
    m_pid = ::fork();
    if (m_pid == 0) {
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execvp("node", argv.data());
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (read_text(port_file).empty()) {
      int status = 0;
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) throw std::runtime_error("test S3 servers exited");
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("test S3 servers did not start");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    m_endpoint = "http://127.0.0.1:" + read_text(port_file);
  }
  ~S3Servers() {
    ::kill(m_pid, SIGTERM);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
  }
  S3Servers(const S3Servers&) = delete;
  S3Servers& operator=(const S3Servers&) = delete;

  // AWS_ENDPOINT_URL for the tool.
  const std::string& endpoint() const { return m_endpoint; }

 private:
  ScopedTempDir m_dir;
  pid_t m_pid = -1;
  std::string m_endpoint;
};

}  // namespace h5ad_sizer::testing
