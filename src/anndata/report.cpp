#include "h5ad_sizer/anndata/report.hpp"

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
  loaded_bytes = 0;
  for (const Element& child : children) {
    stored_bytes = checked_add(stored_bytes, child.stored_bytes);
    loaded_bytes = checked_add(loaded_bytes, child.loaded_bytes);
  }
}

const Element* Report::find(std::string_view path) const {
  for (const Element& element : elements) {
    if (element.path == path) return &element;
  }
  return nullptr;
}

std::uint64_t Report::stored_total() const {
  std::uint64_t total = 0;
  for (const Element& element : elements) total = checked_add(total, element.stored_bytes);
  return total;
}

std::uint64_t Report::loaded_total() const {
  std::uint64_t total = 0;
  for (const Element& element : elements) total = checked_add(total, element.loaded_bytes);
  return total;
}

std::uint64_t Report::unattributed_bytes() const {
  const std::uint64_t stored = stored_total();
  return file_bytes > stored ? file_bytes - stored : 0;
}

}  // namespace h5ad_sizer
