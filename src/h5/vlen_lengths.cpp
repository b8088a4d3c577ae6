#include "h5ad_sizer/h5/vlen_lengths.hpp"

#include <lzf.h>
#include <zlib.h>

#include <algorithm>
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

// Where each element's heap reference lies in the stored bytes.
struct ReferenceLayout {
  std::size_t stride = 0;  // bytes an element takes on disk
  std::size_t offset = 0;  // where in it the reference starts
};

bool is_vlen_string(hid_t type) {
  return H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0;
}

// A string dataset's elements are references. A compound's member offsets,
// as HDF5 hands the type out, are those of memory, where a string is a
// pointer; on disk each string member is a reference and every later member
// moves by the difference (HDF5 lays the type out again that way when it
// moves it between memory and file: H5T__set_loc). Members that could hold
// strings further down (nested compounds, arrays, sequences) are not
// followed: nullopt, and the text is read instead.
std::optional<ReferenceLayout> reference_layout(hid_t dataset, const std::string& member) {
  const std::size_t reference = reference_size(dataset);
  if (member.empty()) return ReferenceLayout{reference, 0};
  Handle type(check(H5Dget_type(dataset), "reading the datatype"));
  if (H5Tget_class(type.get()) != H5T_COMPOUND) return std::nullopt;
  const int count = check(H5Tget_nmembers(type.get()), "reading the compound members");
  struct Member {
    std::size_t memory_offset;
    std::size_t memory_size;
    bool string;
    bool wanted;
  };
  std::vector<Member> members;
  for (int i = 0; i < count; ++i) {
    const auto index = static_cast<unsigned>(i);
    Handle member_type(check(H5Tget_member_type(type.get(), index), "reading a compound member"));
    const H5T_class_t type_class = H5Tget_class(member_type.get());
    if (type_class == H5T_COMPOUND || type_class == H5T_ARRAY || type_class == H5T_VLEN) return std::nullopt;
    char* name = H5Tget_member_name(type.get(), index);
    if (name == nullptr) fail("reading a compound member name");
    const bool wanted = member == name;
    H5free_memory(name);
    members.push_back({H5Tget_member_offset(type.get(), index), H5Tget_size(member_type.get()),
                       is_vlen_string(member_type.get()), wanted});
  }
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.memory_offset < b.memory_offset; });
  std::size_t grown = 0;  // what the string members before this one added
  std::optional<std::size_t> offset;
  for (const Member& m : members) {
    if (m.wanted) {
      if (!m.string) return std::nullopt;
      offset = m.memory_offset + grown;
    }
    if (m.string) {
      if (m.memory_size > reference) return std::nullopt;
      grown += reference - m.memory_size;
    }
  }
  if (!offset) return std::nullopt;
  return ReferenceLayout{H5Tget_size(type.get()) + grown, *offset};
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
                                                          const ReferenceLayout& layout,
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
      auto chunk = read_chunk(dataset, filters, number * chunk_elements, chunk_elements * layout.stride);
      if (!chunk) return std::nullopt;
      it = chunks.emplace(number, std::move(*chunk)).first;
    }
    lengths.push_back(length_at(it->second.data() + (index % chunk_elements) * layout.stride + layout.offset));
  }
  return lengths;
}

std::optional<std::vector<std::uint64_t>> contiguous_lengths(hid_t dataset, const ReferenceLayout& layout,
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
    buffer.resize((end - start) * layout.stride);
    const std::uint64_t offset = address + flat[start] * layout.stride;
    if (offset + buffer.size() > source->size()) {
      throw Failure("string references past the end of the file");
    }
    source->read(offset, buffer.size(), buffer.data());
    for (std::size_t i = 0; i < end - start; ++i) {
      lengths.push_back(length_at(&buffer[i * layout.stride + layout.offset]));
    }
    start = end;
  }
  return lengths;
}

}  // namespace

std::optional<std::vector<std::uint64_t>> read_vlen_lengths(hid_t dataset,
                                                            const std::vector<std::uint64_t>& flat,
                                                            const std::string& member) {
  if (flat.empty()) return std::vector<std::uint64_t>{};
  const auto layout = reference_layout(dataset, member);
  if (!layout) return std::nullopt;
  Handle creation(check(H5Dget_create_plist(dataset), "reading the creation properties"));
  switch (H5Pget_layout(creation.get())) {
    case H5D_CONTIGUOUS:
      return contiguous_lengths(dataset, *layout, flat);
    case H5D_CHUNKED:
      return chunked_lengths(dataset, creation.get(), *layout, flat);
    default:
      return std::nullopt;  // compact: tiny, read the text
  }
}

}  // namespace h5ad_sizer::h5
