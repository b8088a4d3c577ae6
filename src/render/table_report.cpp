#include "h5ad_sizer/render/table_report.hpp"

#include <algorithm>
#include <sstream>

#include "h5ad_sizer/render/units.hpp"
#include "h5ad_sizer/text.hpp"

namespace h5ad_sizer {
namespace {

using Row = std::vector<std::string>;
// Text columns align left, numbers right.
const std::vector<bool> kRightAligned = {false, false, false, false, true, true, true, true, true, true, true};

// A child's label is its path below the parent's: "/obs/louvain" under
// "/obs" reads "louvain", "/obsm[X_pca]" under "/obsm" reads "[X_pca]".
std::string label(const std::string& path, const std::string& parent_path) {
  // A 0.7 categorical column is itself the codes dataset.
  if (path == parent_path) return "codes";
  if (!parent_path.empty() && path.size() > parent_path.size() &&
      path.compare(0, parent_path.size(), parent_path) == 0) {
    std::string rest = path.substr(parent_path.size());
    if (rest.front() == '/') rest.erase(0, 1);
    return rest;
  }
  return path;
}

void add_rows(const ElementCost& cost, const std::string& parent_path, std::size_t depth,
              std::uint64_t peak, std::vector<Row>& rows) {
  static const Element kNoObject;  // a bracketed cost: no HDF5 object behind it
  const Element& element = cost.element ? *cost.element : kNoObject;
  rows.push_back({std::string(depth * 2, ' ') + printable(label(cost.path, parent_path)), printable(element.encoding),
                  element.dtype, shape_text(element.shape),
                  element.nnz ? std::to_string(element.nnz) : "",
                  human_bytes(element.stored_bytes), human_bytes(cost.final_bytes),
                  percent(cost.final_bytes, peak),
                  cost.python_transient_bytes ? human_bytes(cost.python_transient_bytes) : "",
                  cost.io_transient_bytes ? human_bytes(cost.io_transient_bytes) : "",
                  cost.buffer_transient_bytes ? human_bytes(cost.buffer_transient_bytes) : ""});
  for (const ElementCost& child : cost.children) add_rows(child, cost.path, depth + 1, peak, rows);
}

}  // namespace

std::string render_table(const Report& report, const MemoryEstimate& memory) {
  const std::uint64_t loaded_total = memory.peak_bytes();
  std::vector<Row> rows;
  rows.push_back({"ELEMENT", "ENCODING", "DTYPE", "SHAPE", "NNZ", "STORED", "LOADED", "LOADED%",
                  "PY TEMP", "HDF5 HEAP", "HDF5 BUF"});
  for (const ElementCost& element : memory.elements) add_rows(element, "", 0, loaded_total, rows);
  rows.push_back({"[HDF5 metadata, string text, free space]", "", "", "", "",
                  human_bytes(report.unattributed_bytes()), human_bytes(0), percent(0, 1), "", "", ""});
  auto memory_row = [&](const std::string& label, std::uint64_t bytes) {
    rows.push_back({label, "", "", "", "", human_bytes(0), human_bytes(bytes),
                    percent(bytes, loaded_total), "", "", ""});
  };
  const MemoryEstimate::PythonPeak python = memory.python_peak();
  if (python.bytes > 0) {
    std::string label = "[peak: Python temporaries";
    if (python.element) label += " of " + printable(python.element->path);
    if (python.element && python.held_from) label += " and";
    if (python.held_from) label += " held from " + printable(python.held_from->path);
    memory_row(label + "]", python.bytes);
  }
  if (const ElementCost* peak = memory.io_peak()) {
    memory_row("[peak: HDF5 chunk records of " + printable(peak->path) + "]", peak->io_transient_bytes);
  }
  if (const ElementCost* peak = memory.buffer_peak()) {
    memory_row("[peak: HDF5 conversion buffers of " + printable(peak->path) + "]",
               peak->buffer_transient_bytes);
  }
  memory_row("[read_h5ad start-up]", memory.read_overhead_bytes);
  rows.push_back({"TOTAL", "", "", "", "",
                  human_bytes(report.stored_total() + report.unattributed_bytes()),
                  human_bytes(loaded_total), percent(loaded_total, loaded_total), "", "", ""});

  std::ostringstream out;
  out << report.source << ": AnnData " << layout_name(report.layout) << " layout, " << report.n_obs
      << " obs x " << report.n_vars << " vars, " << human_bytes(report.file_bytes)
      << " on disk, " << human_bytes(loaded_total) << " at the peak of read_h5ad (" << memory.runtime.name
      << ")\n\n"
      << format_columns(rows, kRightAligned);
  return out.str();
}

}  // namespace h5ad_sizer
