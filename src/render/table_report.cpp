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
// "/obs" reads "louvain". A field of a compound dataset ("/obs[louvain]",
// "/obsm[X_pca]") reads "louvain (field)": brackets are kept for rows that
// have no HDF5 object behind them ("[index hash table]").
std::string label(const ElementCost& cost, const std::string& parent_path) {
  const std::string& path = cost.path;
  // A 0.7 categorical column is itself the codes dataset.
  if (path == parent_path) return "codes";
  if (cost.element == nullptr) return path;
  std::string rest = path;
  if (!parent_path.empty() && path.size() > parent_path.size() &&
      path.compare(0, parent_path.size(), parent_path) == 0) {
    rest = path.substr(parent_path.size());
    if (rest.front() == '/') rest.erase(0, 1);
  }
  const auto open = rest.rfind('[');
  if (!rest.empty() && rest.back() == ']' && open != std::string::npos) {
    const std::string field = rest.substr(open + 1, rest.size() - open - 2);
    const std::string owner = rest.substr(0, open);
    return (owner.empty() ? "" : owner + " ") + field + " (field)";
  }
  return rest;
}

// numpy's spelling, with a long structured dtype cut to its first field
// (its fields have rows of their own).
std::string dtype_text(const std::string& dtype) {
  constexpr std::size_t kWidest = 32;
  if (dtype.size() <= kWidest || dtype.rfind("[(", 0) != 0) return dtype;
  std::size_t fields = 1;
  for (std::size_t at = dtype.find("), ("); at != std::string::npos; at = dtype.find("), (", at + 1)) ++fields;
  const std::size_t first_end = dtype.find("), (");
  return dtype.substr(0, first_end + 1) + ", ... " + std::to_string(fields) + " fields]";
}

// A transient is shown on the row whose own read needs it: every dataset,
// and a group only for what it needs beyond its children's (a frame's
// construction, for instance), not for the largest of theirs it carries.
std::string own_transient(const ElementCost& cost, std::uint64_t ElementCost::*field) {
  const std::uint64_t value = cost.*field;
  std::uint64_t children = 0;
  for (const ElementCost& child : cost.children) children = std::max(children, child.*field);
  if (value == 0 || (!cost.children.empty() && value <= children)) return "";
  return human_bytes(value);
}

void add_rows(const ElementCost& cost, const std::string& parent_path, std::size_t depth,
              std::uint64_t peak, std::vector<Row>& rows) {
  static const Element kNoObject;  // a bracketed cost: no HDF5 object behind it
  const Element& element = cost.element ? *cost.element : kNoObject;
  rows.push_back({std::string(depth * 2, ' ') + printable(label(cost, parent_path)), printable(element.encoding),
                  printable(dtype_text(element.dtype)), shape_text(element.shape),
                  element.nnz ? std::to_string(element.nnz) : "",
                  human_bytes(element.stored_bytes), human_bytes(cost.final_bytes),
                  percent(cost.final_bytes, peak),
                  own_transient(cost, &ElementCost::python_transient_bytes),
                  own_transient(cost, &ElementCost::io_transient_bytes),
                  own_transient(cost, &ElementCost::buffer_transient_bytes)});
  for (const ElementCost& child : cost.children) add_rows(child, cost.path, depth + 1, peak, rows);
}

}  // namespace

std::string render_table(const Report& report, const MemoryEstimate& memory) {
  const std::uint64_t loaded_total = memory.peak_bytes();
  std::vector<Row> rows;
  // The transient columns carry the names of the peak rows below them.
  rows.push_back({"ELEMENT", "ENCODING", "DTYPE", "SHAPE", "NNZ", "STORED", "LOADED", "LOADED%",
                  "PYTHON TEMPORARIES", "HDF5 CHUNK RECORDS", "HDF5 CONVERSION BUFFERS"});
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
      << format_columns(rows, kRightAligned) << "\n"
      << "LOADED: what each element holds once read_h5ad returns. The last three columns: what its own read\n"
      << "needs beyond that at one time (not additive; TOTAL counts the peak rows above it).\n"
      << "Memory for runtime " << memory.runtime.name << " (--runtime), profile load: read_h5ad alone; "
      << "`size --profile NAME` adds a job's copies and the interpreter.\n";
  return out.str();
}

}  // namespace h5ad_sizer
