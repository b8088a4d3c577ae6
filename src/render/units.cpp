#include "h5ad_sizer/render/units.hpp"

#include <algorithm>
#include <cstdio>

namespace h5ad_sizer {

std::string human_bytes(std::uint64_t bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  const int decimals = value < 10 ? 2 : value < 100 ? 1 : 0;
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, kUnits[unit]);
  return text;
}

std::string percent(std::uint64_t part, std::uint64_t whole) {
  char text[16];
  const double share = whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
  std::snprintf(text, sizeof text, "%.1f%%", share);
  return text;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string text;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) text += " x ";
    text += std::to_string(shape[i]);
  }
  return text;
}

std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right_aligned) {
  std::vector<std::size_t> widths(right_aligned.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < widths.size(); ++c) widths[c] = std::max(widths[c], row.at(c).size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += right_aligned[c] ? pad + row[c] : row[c] + pad;
      if (c + 1 < widths.size()) line += "  ";
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + '\n';
  }
  return out;
}

std::string price_text(double price) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", price);
  return text;
}

std::string markup_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace h5ad_sizer
