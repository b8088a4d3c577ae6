#include "cli/progress_line.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>

namespace h5ad_sizer::cli {
namespace {

// A terminal is redrawn at most this often; a log gets a line this often.
constexpr auto kRedraw = std::chrono::milliseconds(100);
constexpr auto kLogLine = std::chrono::seconds(10);
constexpr std::size_t kBarWidth = 30;

std::string duration_text(double seconds) {
  const long s = std::lround(seconds);
  if (s < 120) return std::to_string(s) + " s";
  if (s < 7200) return std::to_string((s + 30) / 60) + " min";
  return std::to_string((s + 1800) / 3600) + " h";
}

}  // namespace

std::string progress_text(std::size_t done, std::size_t total, std::size_t failed, double seconds, std::size_t width) {
  std::string text;
  if (width > 0) {
    const std::size_t filled = total == 0 ? width : done * width / total;
    text = "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]  ";
  }
  text += std::to_string(done) + "/" + std::to_string(total);
  if (failed > 0) text += "  " + std::to_string(failed) + " failed";
  if (done > 0 && seconds > 0) {
    const double rate = static_cast<double>(done) / seconds;
    char rate_text[32];
    std::snprintf(rate_text, sizeof rate_text, "  %.1f/s", rate);
    text += rate_text;
    if (done < total) text += "  about " + duration_text(static_cast<double>(total - done) / rate) + " left";
  }
  return text;
}

ProgressLine::ProgressLine(std::size_t total, bool terminal) : m_total(total), m_terminal(terminal) {}

ProgressLine::~ProgressLine() {
  if (m_drawn && m_terminal) std::cerr << "\r\033[K" << std::flush;
}

void ProgressLine::update(std::size_t done, std::size_t failed) {
  const auto now = Clock::now();
  const bool last = done == m_total;
  if (now - m_last < (m_terminal ? kRedraw : kLogLine) && !(last && m_drawn)) return;
  m_last = now;
  const double seconds = std::chrono::duration<double>(now - m_start).count();
  if (m_terminal) {
    std::cerr << "\r\033[K" << progress_text(done, m_total, failed, seconds, kBarWidth) << std::flush;
  } else {
    std::cerr << "h5ad-sizer: " << progress_text(done, m_total, failed, seconds, 0) << "\n" << std::flush;
  }
  m_drawn = true;
}

}  // namespace h5ad_sizer::cli
