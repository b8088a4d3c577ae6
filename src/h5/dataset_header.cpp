#include "h5ad_sizer/h5/dataset_header.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/h5/datatype_message.hpp"
#include "h5ad_sizer/h5/little_endian.hpp"

namespace h5ad_sizer::h5 {
namespace {

// The message types a dataset's header may hold and still be described
// here: nil (free space), dataspace, datatype, the two fill values, layout,
// filter pipeline, attribute, comment, the two modification times,
// continuation, attribute info and the reference count. Anything else (an
// external file list, say) is HDF5's.
bool listed(std::uint16_t type) {
  switch (type) {
    case 0x00: case 0x01: case 0x03: case 0x04: case 0x05: case 0x08: case 0x0b:
    case 0x0c: case 0x0d: case 0x0e: case 0x10: case 0x12: case 0x15: case 0x16:
      return true;
    default:
      return false;
  }
}

// Fill value messages are not needed, only known to be whole: HDF5 decodes
// them when it opens the dataset and refuses a damaged one (H5O__fill_*).
// The old message: a size and the value. The new one: a version; versions 1
// and 2 the allocation time, the fill time and whether a value is defined,
// then if it is its size (signed) and the value; version 3 flags (bit 4
// undefined, bit 5 a value follows: not both), then a size and the value.
bool fill_value_readable(const Message& message) {
  const ByteView body = message.body;
  const auto value_fits = [&](std::size_t at, bool is_signed) {
    if (body.size < at + 4) return false;
    const std::uint64_t size = little_endian(body.data + at, 4);
    if (is_signed && (size & 0x80000000u) != 0) return true;  // negative: no value
    return size <= body.size - at - 4;
  };
  if (message.is(MessageType::fill_value_old)) return value_fits(0, false);
  if (body.size < 1 || body.data[0] < 1 || body.data[0] > 3) return false;
  if (body.data[0] < 3) return body.size >= 4 && (body.data[3] == 0 || value_fits(4, true));
  if (body.size < 2) return false;
  const unsigned flags = body.data[1];
  if ((flags & ~0x3fu) != 0 || ((flags & 0x10) != 0 && (flags & 0x20) != 0)) return false;
  return (flags & 0x20) == 0 || value_fits(2, false);
}

std::optional<DescribedDataset> describe(const ObjectHeader& header, const Geometry& geometry, StorageDetail storage,
                                         std::uint64_t file_bytes) {
  const Message* datatype = nullptr;
  const Message* dataspace = nullptr;
  const Message* layout_at = nullptr;
  const Message* pipeline = nullptr;
  for (const Message& message : header.messages) {
    if (!listed(message.type) || message.shared()) return std::nullopt;
    const Message** slot = message.is(MessageType::datatype)          ? &datatype
                           : message.is(MessageType::dataspace)       ? &dataspace
                           : message.is(MessageType::layout)          ? &layout_at
                           : message.is(MessageType::filter_pipeline) ? &pipeline
                                                                      : nullptr;
    if (slot != nullptr) {
      if (*slot != nullptr) return std::nullopt;  // twice: not a header HDF5 writes
      *slot = &message;
    }
    if ((message.is(MessageType::fill_value_old) || message.is(MessageType::fill_value)) &&
        !fill_value_readable(message)) {
      return std::nullopt;
    }
  }
  if (datatype == nullptr || dataspace == nullptr || layout_at == nullptr) return std::nullopt;
  DescribedDataset out;
  const auto type = datatype_info(datatype->body, geometry, out.records);
  const auto space = dataspace_message(dataspace->body, geometry);
  const auto layout = layout_message(*layout_at, geometry);
  if (!type || !space || !layout) return std::nullopt;
  DatasetInfo& info = out.info;
  info.type = *type;
  info.null_space = space->null;
  info.dims = space->dims;
  info.elements = space->null ? 0 : space->elements;

  // What HDF5 checks as it opens a dataset: its data is where it says and
  // as large as its elements.
  const std::uint64_t data_bytes = checked_mul(space->elements, type->stored_size);
  const bool written = layout->address != UINT64_MAX;
  switch (layout->kind) {
    case DataLayout::Kind::compact:
      if (layout->size != data_bytes) return std::nullopt;
      break;
    case DataLayout::Kind::contiguous:
      if (written && (layout->size != data_bytes || layout->address > UINT64_MAX - geometry.base ||
                      geometry.base + layout->address > file_bytes ||
                      layout->size > file_bytes - geometry.base - layout->address)) {
        return std::nullopt;
      }
      break;
    case DataLayout::Kind::chunked:
      if (layout->chunk.size() != space->dims.size() || layout->chunk_element_bytes != type->stored_size) {
        return std::nullopt;
      }
      break;
  }
  // H5Dget_storage_size: the contiguous data written, the compact data.
  const std::uint64_t storage_size = layout->kind == DataLayout::Kind::compact ? layout->size
                                     : layout->kind == DataLayout::Kind::contiguous && written ? layout->size
                                                                                               : 0;
  if (layout->kind == DataLayout::Kind::contiguous && written) out.data_address = layout->address;
  if (info.dims.empty()) {  // scalar or null: never chunked, never filtered
    if (layout->kind == DataLayout::Kind::chunked) return std::nullopt;
    info.stored_bytes = storage_size;
    return out;
  }
  if (layout->kind == DataLayout::Kind::contiguous && written) {
    info.stored_bytes = storage_size;
    return out;
  }
  info.chunked = layout->kind == DataLayout::Kind::chunked;
  std::uint64_t chunk_elements = 1;
  if (info.chunked) {
    info.chunks = 1;
    for (std::size_t d = 0; d < info.dims.size(); ++d) {  // (layout_message refuses a chunk dimension of 0)
      info.chunks = checked_mul(info.chunks, (info.dims[d] + layout->chunk[d] - 1) / layout->chunk[d]);
      chunk_elements = checked_mul(chunk_elements, layout->chunk[d]);
    }
    // A chunk index is walked by HDF5 (H5Dget_storage_size).
    if (storage != StorageDetail::object_header) return std::nullopt;
    info.stored_bytes = checked_mul(checked_mul(info.chunks, chunk_elements), info.type.stored_size);
    info.stored_bytes_exact = false;
  } else {
    info.stored_bytes = storage_size;
  }
  if (pipeline != nullptr) {
    const auto filters = filter_ids(*pipeline);
    if (!filters) return std::nullopt;
    info.compressed = !filters->empty();
    for (const int id : *filters) {
      if (H5Zfilter_avail(static_cast<H5Z_filter_t>(id)) <= 0) info.unavailable_filters.push_back(id);
    }
    H5Eclear2(H5E_DEFAULT);  // a failed plugin search leaves frames behind
  }
  return out;
}

}  // namespace

std::optional<DescribedDataset> describe_from_header(const ObjectHeader& header, const Geometry& geometry,
                                                     StorageDetail storage, std::uint64_t file_bytes) {
  try {
    return describe(header, geometry, storage, file_bytes);
  } catch (const std::overflow_error&) {
    return std::nullopt;  // HDF5's description fails the same way, naming the element
  }
}

bool is_group_header(const ObjectHeader& header) {
  for (const Message& message : header.messages) {
    if (message.is(MessageType::symbol_table) || message.is(MessageType::link_info) || message.is(MessageType::link)) {
      return true;
    }
  }
  return false;
}

}  // namespace h5ad_sizer::h5
