#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace h5ad_sizer::testing {

// A `size` document minus what legitimately differs between a local and a
// remote read of the same file: its source and the I/O statistics.
inline nlohmann::json without_source(nlohmann::json doc) {
  doc["dataset"].erase("source");
  doc.erase("io");
  return doc;
}

inline std::string data_file(const std::string& name) {
  return std::string(H5AD_SIZER_DATA_DIR) + "/" + name;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh directory under $TMPDIR, removed with everything in it when the
// test ends, pass or fail.
class ScopedTempDir {
 public:
  ScopedTempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "h5ad-sizer-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~ScopedTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  std::string file(const std::string& name) const { return (m_path / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(file(name)) << text;
    return file(name);
  }

 private:
  std::filesystem::path m_path;
};

// A server the test starts: `args` run with execvp, stopped with SIGTERM
// (and reaped) when the object goes.
class ChildProcess {
 public:
  explicit ChildProcess(std::vector<std::string> args) {
    m_pid = ::fork();
    if (m_pid < 0) throw std::runtime_error("fork failed");
    if (m_pid == 0) {
      std::vector<char*> argv;
      for (auto& arg : args) argv.push_back(arg.data());
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~ChildProcess() {
    ::kill(m_pid, SIGTERM);
    int status = 0;
    ::waitpid(m_pid, &status, 0);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Polls `ready` until it holds; throws `describe_exit()` if the process
  // ends first, or "NAME did not start" after `timeout`.
  template <typename Ready, typename DescribeExit>
  void wait_until(Ready ready, std::chrono::milliseconds timeout, const std::string& name,
                  DescribeExit describe_exit) const {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!ready()) {
      int status = 0;
      if (::waitpid(m_pid, &status, WNOHANG) == m_pid) throw std::runtime_error(describe_exit());
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error(name + " did not start");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

 private:
  pid_t m_pid = -1;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Runs the built h5ad-sizer with `args`, capturing stdout, stderr and the
// exit status. `env` words go between `env` and the binary: "NAME=value"
// settings, or a command to run it through (setpriv ...). Standard input is
// `input`, else empty.
inline CommandResult run_tool(const std::vector<std::string>& args,
                              const std::vector<std::string>& env = {}, const std::string& input = "") {
  ScopedTempDir dir;
  dir.write("in", input);
  std::string command = "env -u H5AD_SIZER_BUCKETS";
  for (const auto& word : env) command += " " + shell_quote(word);
  command += " " + shell_quote(H5AD_SIZER_BINARY);
  for (const auto& word : args) command += " " + shell_quote(word);
  command += " >" + shell_quote(dir.file("out")) + " 2>" + shell_quote(dir.file("err")) + " <" +
             shell_quote(dir.file("in"));
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(dir.file("out"));
  result.err = read_text(dir.file("err"));
  return result;
}

}  // namespace h5ad_sizer::testing
