#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
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
// settings, or a command to run it through (setpriv ...).
inline CommandResult run_tool(const std::vector<std::string>& args,
                              const std::vector<std::string>& env = {}) {
  ScopedTempDir dir;
  std::string command = "env -u H5AD_SIZER_BUCKETS";
  for (const auto& word : env) command += " " + shell_quote(word);
  command += " " + shell_quote(H5AD_SIZER_BINARY);
  for (const auto& word : args) command += " " + shell_quote(word);
  command += " >" + shell_quote(dir.file("out")) + " 2>" + shell_quote(dir.file("err")) +
             " </dev/null";
  const int status = std::system(command.c_str());
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = read_text(dir.file("out"));
  result.err = read_text(dir.file("err"));
  return result;
}

}  // namespace h5ad_sizer::testing
