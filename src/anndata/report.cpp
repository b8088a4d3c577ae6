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

void Element::sum_children(std::uint64_t own_transient, std::uint64_t own_io_transient,
                           std::uint64_t own_buffer_transient) {
  stored_bytes = 0;
  stored_bytes_exact = true;
  loaded_bytes = 0;
  transient_bytes = own_transient;
  io_transient_bytes = own_io_transient;
  buffer_transient_bytes = own_buffer_transient;
  for (const Element& child : children) {
    transient_bytes = std::max(transient_bytes, child.transient_bytes);
    io_transient_bytes = std::max(io_transient_bytes, child.io_transient_bytes);
    buffer_transient_bytes = std::max(buffer_transient_bytes, child.buffer_transient_bytes);
    stored_bytes = checked_add(stored_bytes, child.stored_bytes);
    stored_bytes_exact = stored_bytes_exact && child.stored_bytes_exact;
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

bool Report::stored_bytes_exact() const {
  return std::all_of(elements.begin(), elements.end(),
                     [](const Element& element) { return element.stored_bytes_exact; });
}

std::uint64_t Report::final_total() const {
  std::uint64_t total = 0;
  for (const Element& element : elements) total = checked_add(total, element.loaded_bytes);
  return total;
}

namespace {

const Element* largest(const std::vector<Element>& elements, std::uint64_t Element::*field) {
  const Element* peak = nullptr;
  for (const Element& element : elements) {
    if (element.*field > 0 && (!peak || element.*field > (*peak).*field)) peak = &element;
  }
  return peak;
}

}  // namespace

const Element* Report::peak_element() const { return largest(elements, &Element::transient_bytes); }

const Element* Report::io_peak_element() const {
  return largest(elements, &Element::io_transient_bytes);
}

const Element* Report::buffer_peak_element() const {
  return largest(elements, &Element::buffer_transient_bytes);
}

std::uint64_t Report::loaded_total() const {
  const Element* peak = peak_element();
  const Element* io_peak = io_peak_element();
  const Element* buffer_peak = buffer_peak_element();
  std::uint64_t total = checked_add(final_total(), read_overhead_bytes);
  if (peak) total = checked_add(total, peak->transient_bytes);
  if (io_peak) total = checked_add(total, io_peak->io_transient_bytes);
  if (buffer_peak) total = checked_add(total, buffer_peak->buffer_transient_bytes);
  return total;
}

std::uint64_t Report::unattributed_bytes() const {
  const std::uint64_t stored = stored_total();
  return file_bytes > stored ? file_bytes - stored : 0;
}

}  // namespace h5ad_sizer
