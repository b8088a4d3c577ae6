#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace h5ad_sizer {

// 1024-based sizes for people: "512 B", "1.5 KiB", "12.3 MiB", "2.01 GiB"
// (three significant digits from KiB up).
std::string human_bytes(std::uint64_t bytes);
// "12.3%", or "0.0%" when the whole is zero.
std::string percent(std::uint64_t part, std::uint64_t whole);
// "700 x 765", "" for a scalar.
std::string shape_text(const std::vector<std::uint64_t>& shape);
// A price to the cent: "0.80".
std::string price_text(double price);
// Text for XML or HTML: & < > " ' escaped.
std::string markup_escape(const std::string& text);
// Rows of cells as aligned columns two spaces apart, numbers (where
// `right_aligned[column]`) to the right; no trailing spaces. Every row has
// right_aligned.size() cells.
std::string format_columns(const std::vector<std::vector<std::string>>& rows,
                           const std::vector<bool>& right_aligned);

}  // namespace h5ad_sizer
