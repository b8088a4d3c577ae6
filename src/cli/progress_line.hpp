#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace h5ad_sizer::cli {

// "[#########...........]  450/1000  3 failed  15.2/s  about 36 s left": what
// `plan` and `check` show on stderr while they size a corpus. `width` is
// the bar's, in characters.
std::string progress_text(std::size_t done, std::size_t total, std::size_t failed, double seconds, std::size_t width);

// Shows it: on a terminal, redrawn in place at most 10 times a second and
// cleared at the end; elsewhere (a CI log) a plain line every 10 s, so a
// short run prints nothing. Never on stdout.
class ProgressLine {
 public:
  ProgressLine(std::size_t total, bool terminal);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(std::size_t done, std::size_t failed);

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t m_total;
  bool m_terminal;
  bool m_drawn = false;
  Clock::time_point m_start = Clock::now();
  Clock::time_point m_last = Clock::now();
};

}  // namespace h5ad_sizer::cli
