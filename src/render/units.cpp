#include "h5ad_sizer/render/units.hpp"

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

}  // namespace h5ad_sizer
