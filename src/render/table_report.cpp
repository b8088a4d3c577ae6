#include "h5ad_sizer/render/table_report.hpp"

#include <algorithm>
#include <array>
#include <sstream>

#include "h5ad_sizer/render/units.hpp"

namespace h5ad_sizer {
namespace {

constexpr std::size_t kColumns = 11;
using Row = std::array<std::string, kColumns>;
// Text columns align left, numbers right.
constexpr std::array<bool, kColumns> kRightAligned = {false, false, false, false, true, true,
                                                       true,  true,  true,  true,  true};

// A child's label is its path below the parent's: "/obs/louvain" under
// "/obs" reads "louvain", "/obsm[X_pca]" under "/obsm" reads "[X_pca]".
std::string label(const Element& element, const std::string& parent_path) {
  // A 0.7 categorical column is itself the codes dataset.
  if (element.path == parent_path) return "codes";
  if (!parent_path.empty() && element.path.size() > parent_path.size() &&
      element.path.compare(0, parent_path.size(), parent_path) == 0) {
    std::string rest = element.path.substr(parent_path.size());
    if (rest.front() == '/') rest.erase(0, 1);
    return rest;
  }
  return element.path;
}

void add_rows(const Element& element, const std::string& parent_path, std::size_t depth,
              std::uint64_t loaded_total, std::vector<Row>& rows) {
  rows.push_back({std::string(depth * 2, ' ') + label(element, parent_path), element.encoding,
                  element.dtype, shape_text(element.shape),
                  element.nnz ? std::to_string(element.nnz) : "",
                  human_bytes(element.stored_bytes), human_bytes(element.loaded_bytes),
                  percent(element.loaded_bytes, loaded_total),
                  element.transient_bytes ? human_bytes(element.transient_bytes) : "",
                  element.io_transient_bytes ? human_bytes(element.io_transient_bytes) : "",
                  element.buffer_transient_bytes ? human_bytes(element.buffer_transient_bytes) : ""});
  for (const Element& child : element.children) {
    add_rows(child, element.path, depth + 1, loaded_total, rows);
  }
}

std::string format(const std::vector<Row>& rows) {
  std::array<std::size_t, kColumns> widths{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::ostringstream out;
  for (const Row& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += kRightAligned[c] ? pad + row[c] : row[c] + pad;
      if (c + 1 < kColumns) line += "  ";
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
  return out.str();
}

}  // namespace

std::string render_table(const Report& report) {
  const std::uint64_t loaded_total = report.loaded_total();
  std::vector<Row> rows;
  rows.push_back({"ELEMENT", "ENCODING", "DTYPE", "SHAPE", "NNZ", "STORED", "LOADED", "LOADED%",
                  "PY TEMP", "HDF5 HEAP", "HDF5 BUF"});
  for (const Element& element : report.elements) add_rows(element, "", 0, loaded_total, rows);
  rows.push_back({"[HDF5 metadata, string text, free space]", "", "", "", "",
                  human_bytes(report.unattributed_bytes()), human_bytes(0), percent(0, 1), "", "", ""});
  auto memory_row = [&](const std::string& label, std::uint64_t bytes) {
    rows.push_back({label, "", "", "", "", human_bytes(0), human_bytes(bytes),
                    percent(bytes, loaded_total), "", "", ""});
  };
  if (const Element* peak = report.peak_element()) {
    memory_row("[peak: Python temporaries of " + peak->path + "]", peak->transient_bytes);
  }
  if (const Element* peak = report.io_peak_element()) {
    memory_row("[peak: HDF5 chunk records of " + peak->path + "]", peak->io_transient_bytes);
  }
  if (const Element* peak = report.buffer_peak_element()) {
    memory_row("[peak: HDF5 conversion buffers of " + peak->path + "]",
               peak->buffer_transient_bytes);
  }
  memory_row("[read_h5ad start-up]", report.read_overhead_bytes);
  rows.push_back({"TOTAL", "", "", "", "",
                  human_bytes(report.stored_total() + report.unattributed_bytes()),
                  human_bytes(loaded_total), percent(loaded_total, loaded_total), "", "", ""});

  std::ostringstream out;
  out << report.source << ": AnnData " << layout_name(report.layout) << " layout, " << report.n_obs
      << " obs x " << report.n_vars << " vars, " << human_bytes(report.file_bytes)
      << " on disk, " << human_bytes(loaded_total) << " at the peak of read_h5ad\n\n"
      << format(rows);
  return out.str();
}

}  // namespace h5ad_sizer
