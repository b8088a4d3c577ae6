#include "h5ad_sizer/h5/vlen_lengths.hpp"

#include <lzf.h>
#include <zlib.h>

#include <cstring>
#include <map>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/lzf_filter.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"

namespace h5ad_sizer::h5 {
namespace {

using Bytes = std::vector<unsigned char>;

struct Filter {
  H5Z_filter_t id = 0;
  std::vector<unsigned> values;
};

// {uint32 length, address (sizeof_addr bytes), uint32 collection index}
std::size_t reference_size(hid_t dataset) {
  Handle file(check(H5Iget_file_id(dataset), "finding the file"));
  Handle creation(check(H5Fget_create_plist(file.get()), "reading file properties"));
  std::size_t sizeof_addr = 0;
  std::size_t sizeof_size = 0;
  check(H5Pget_sizes(creation.get(), &sizeof_addr, &sizeof_size), "reading file properties");
  return 4 + sizeof_addr + 4;
}

std::uint64_t length_at(const unsigned char* reference) {
  return std::uint64_t{reference[0]} | std::uint64_t{reference[1]} << 8 |
         std::uint64_t{reference[2]} << 16 | std::uint64_t{reference[3]} << 24;
}

std::vector<Filter> filters_of(hid_t creation) {
  std::vector<Filter> filters;
  const int count = check(H5Pget_nfilters(creation), "reading the filters");
  for (int i = 0; i < count; ++i) {
    Filter filter;
    unsigned flags = 0;
    std::size_t n_values = 8;
    filter.values.resize(n_values);
    filter.id = H5Pget_filter2(creation, static_cast<unsigned>(i), &flags, &n_values,
                               filter.values.data(), 0, nullptr, nullptr);
    if (filter.id < 0) fail("reading a filter");
    filter.values.resize(std::min<std::size_t>(n_values, 8));
    filters.push_back(std::move(filter));
  }
  return filters;
}

// Undoes one filter of the pipeline on a chunk; false if we cannot.
bool undo(const Filter& filter, Bytes& chunk, std::size_t expected) {
  switch (filter.id) {
    case H5Z_FILTER_DEFLATE: {
      Bytes out(expected);
      uLongf produced = expected;
      if (uncompress(out.data(), &produced, chunk.data(), chunk.size()) != Z_OK) {
        throw Failure("corrupt deflate chunk");
      }
      out.resize(produced);
      chunk.swap(out);
      return true;
    }
    case H5Z_FILTER_SHUFFLE: {
      const std::size_t width = filter.values.empty() ? 1 : filter.values[0];
      if (width <= 1) return true;
      const std::size_t n = chunk.size() / width;
      Bytes out(chunk);  // a trailing partial element stays as it is
      for (std::size_t byte = 0; byte < width; ++byte) {
        for (std::size_t e = 0; e < n; ++e) out[e * width + byte] = chunk[byte * n + e];
      }
      chunk.swap(out);
      return true;
    }
    case kLzfFilterId: {
      Bytes out(expected);
      const unsigned produced = lzf_decompress(chunk.data(), static_cast<unsigned>(chunk.size()),
                                               out.data(), static_cast<unsigned>(out.size()));
      if (produced == 0) throw Failure("corrupt lzf chunk");
      out.resize(produced);
      chunk.swap(out);
      return true;
    }
    default:
      return false;
  }
}

std::optional<Bytes> read_chunk(hid_t dataset, const std::vector<Filter>& filters,
                                hsize_t offset, std::size_t expected) {
  hsize_t stored = 0;
  check(H5Dget_chunk_storage_size(dataset, &offset, &stored), "sizing a chunk");
  if (stored == 0 || stored > (std::uint64_t{1} << 30)) return std::nullopt;  // unwritten or absurd
  Bytes chunk(stored);
  std::uint32_t skipped = 0;
  check(H5Dread_chunk(dataset, H5P_DEFAULT, &offset, &skipped, chunk.data()), "reading a chunk");
  for (std::size_t i = filters.size(); i-- > 0;) {
    if (skipped & (1u << i)) continue;  // this filter was not applied to this chunk
    if (!undo(filters[i], chunk, expected)) return std::nullopt;
  }
  if (chunk.size() < expected) throw Failure("chunk shorter than its elements");
  return chunk;
}

std::optional<std::vector<std::uint64_t>> chunked_lengths(hid_t dataset, hid_t creation,
                                                          std::size_t reference,
                                                          const std::vector<std::uint64_t>& flat) {
  hsize_t chunk_elements = 0;
  if (check(H5Pget_chunk(creation, 1, &chunk_elements), "reading the chunk shape") != 1 ||
      chunk_elements == 0) {
    return std::nullopt;
  }
  const std::vector<Filter> filters = filters_of(creation);
  std::map<std::uint64_t, Bytes> chunks;  // by chunk number, read once each
  std::vector<std::uint64_t> lengths;
  lengths.reserve(flat.size());
  for (std::uint64_t index : flat) {
    const std::uint64_t number = index / chunk_elements;
    auto it = chunks.find(number);
    if (it == chunks.end()) {
      auto chunk = read_chunk(dataset, filters, number * chunk_elements, chunk_elements * reference);
      if (!chunk) return std::nullopt;
      it = chunks.emplace(number, std::move(*chunk)).first;
    }
    lengths.push_back(length_at(it->second.data() + (index % chunk_elements) * reference));
  }
  return lengths;
}

std::optional<std::vector<std::uint64_t>> contiguous_lengths(hid_t dataset, std::size_t reference,
                                                             const std::vector<std::uint64_t>& flat) {
  const haddr_t address = H5Dget_offset(dataset);
  if (address == HADDR_UNDEF) return std::nullopt;  // never written
  Handle file(check(H5Iget_file_id(dataset), "finding the file"));
  io::ByteSource* source = byte_source_of(file.get());
  if (source == nullptr) return std::nullopt;

  std::vector<std::uint64_t> lengths;
  lengths.reserve(flat.size());
  Bytes buffer;
  // The sample comes in runs of consecutive indices: one read per run.
  for (std::size_t start = 0; start < flat.size();) {
    std::size_t end = start + 1;
    while (end < flat.size() && flat[end] == flat[end - 1] + 1) ++end;
    buffer.resize((end - start) * reference);
    const std::uint64_t offset = address + flat[start] * reference;
    if (offset + buffer.size() > source->size()) {
      throw Failure("string references past the end of the file");
    }
    source->read(offset, buffer.size(), buffer.data());
    for (std::size_t i = 0; i < end - start; ++i) lengths.push_back(length_at(&buffer[i * reference]));
    start = end;
  }
  return lengths;
}

}  // namespace

std::optional<std::vector<std::uint64_t>> read_vlen_lengths(hid_t dataset,
                                                            const std::vector<std::uint64_t>& flat) {
  if (flat.empty()) return std::vector<std::uint64_t>{};
  const std::size_t reference = reference_size(dataset);
  Handle creation(check(H5Dget_create_plist(dataset), "reading the creation properties"));
  switch (H5Pget_layout(creation.get())) {
    case H5D_CONTIGUOUS:
      return contiguous_lengths(dataset, reference, flat);
    case H5D_CHUNKED:
      return chunked_lengths(dataset, creation.get(), reference, flat);
    default:
      return std::nullopt;  // compact: tiny, read the text
  }
}

}  // namespace h5ad_sizer::h5
