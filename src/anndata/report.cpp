#include "h5ad_sizer/anndata/report.hpp"

#include <algorithm>

#include "h5ad_sizer/checked.hpp"

namespace h5ad_sizer {

const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::modern:
      return "0.8+";
    case Layout::v0_7:
      return "0.7";
    case Layout::legacy:
      return "legacy";
  }
  return "unknown";
}

void Element::sum_children() {
  stored_bytes = 0;
  stored_bytes_exact = true;
  for (const Element& child : children) {
    stored_bytes = checked_add(stored_bytes, child.stored_bytes);
    stored_bytes_exact = stored_bytes_exact && child.stored_bytes_exact;
  }
}

std::uint64_t Element::length() const { return shape.empty() ? nnz : shape.front(); }

const Element* Report::find(std::string_view path) const {
  for (const Element& element : elements) {
    if (element.path == path) return &element;
  }
  return nullptr;
}

const Element* Report::raw_x() const {
  if (const Element* x = find("/raw/X")) return x;
  return find("/raw.X");
}

std::uint64_t Report::stored_total() const {
  std::uint64_t total = 0;
  for (const Element& element : elements) total = checked_add(total, element.stored_bytes);
  return total;
}

bool Report::stored_bytes_exact() const {
  return std::all_of(elements.begin(), elements.end(),
                     [](const Element& element) { return element.stored_bytes_exact; });
}

std::uint64_t Report::unattributed_bytes() const {
  const std::uint64_t stored = stored_total();
  return file_bytes > stored ? file_bytes - stored : 0;
}

}  // namespace h5ad_sizer
