#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

// Reading runs in a child process. HDF5 parses whatever was uploaded, and
// its C code can crash, spin or allocate without bound on a corrupt file
// (docs/robustness.md); none of that may take the tool down with an
// unclassified failure, hold a machine, or leave half a result on stdout.
// The parent sets the limits, waits, and alone writes results and hands
// them to Step Functions or Lambda.
namespace h5ad_sizer::cli {

struct Limits {
  // The child's address space (RLIMIT_AS); 0 for none.
  std::uint64_t memory_bytes = 0;
  // Wall-clock time and CPU time of the child; zero for none.
  std::chrono::milliseconds time{0};
  // What the time limit is called in messages ("30 s").
  std::string time_text;
  std::string memory_text;
};

// Where the child is: the element it is reading, kept in memory the parent
// can read after the child died. Written by the child only.
class Progress {
 public:
  virtual ~Progress() = default;
  virtual void reading(std::string_view element) noexcept = 0;
};

// Runs `work` in a child process under `limits` and returns the text it
// returned. An Error thrown in the child is rethrown here unchanged. A child
// that is killed (a signal, the CPU or wall-clock limit) or runs out of
// memory becomes Error(invalid_h5ad) with one line naming `source` and the
// last element it was reading: "SOURCE: HDF5 crashed (SIGSEGV) reading
// /obs/_index: the file is corrupt". The child's stdout goes nowhere.
// H5AD_SIZER_IN_PROCESS=1 runs `work` in this process instead, unprotected
// (for a debugger, and to measure what the child costs).
std::string run_isolated(const Limits& limits, const std::string& source,
                         const std::function<std::string(Progress&)>& work);

}  // namespace h5ad_sizer::cli
