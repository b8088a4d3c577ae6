#include "h5ad_sizer/h5/vlen_lengths.hpp"

#include "h5ad_sizer/h5/little_endian.hpp"

#include <lzf.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include "h5ad_sizer/checked.hpp"
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

Geometry geometry_of(hid_t object) {
  Handle file(check(H5Iget_file_id(object), "finding the file"));
  Handle creation(check(H5Fget_create_plist(file.get()), "reading file properties"));
  Geometry geometry;
  check(H5Pget_sizes(creation.get(), &geometry.sizeof_addr, &geometry.sizeof_size), "reading file properties");
  hsize_t user_block = 0;
  check(H5Pget_userblock(creation.get(), &user_block), "reading file properties");
  geometry.base = user_block;
  return geometry;
}

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
std::optional<RecordLayout> record_layout(hid_t dataset, const Geometry& geometry) {
  const std::size_t reference = geometry.heap_reference_bytes();
  Handle type(check(H5Dget_type(dataset), "reading the datatype"));
  if (H5Tget_class(type.get()) != H5T_COMPOUND) return std::nullopt;
  const int count = check(H5Tget_nmembers(type.get()), "reading the compound members");
  struct Member {
    std::size_t memory_offset;
    std::size_t memory_size;
    bool string;
    std::string name;
  };
  std::vector<Member> members;
  for (int i = 0; i < count; ++i) {
    const auto index = static_cast<unsigned>(i);
    Handle member_type(check(H5Tget_member_type(type.get(), index), "reading a compound member"));
    const H5T_class_t type_class = H5Tget_class(member_type.get());
    if (type_class == H5T_COMPOUND || type_class == H5T_ARRAY || type_class == H5T_VLEN) return std::nullopt;
    char* name = H5Tget_member_name(type.get(), index);
    if (name == nullptr) fail("reading a compound member name");
    std::string owned(name);
    H5free_memory(name);
    members.push_back({H5Tget_member_offset(type.get(), index), H5Tget_size(member_type.get()),
                       is_vlen_string(member_type.get()), std::move(owned)});
  }
  std::sort(members.begin(), members.end(),
            [](const Member& a, const Member& b) { return a.memory_offset < b.memory_offset; });
  RecordLayout layout;
  std::size_t grown = 0;  // what the string members before this one added
  for (const Member& m : members) {
    if (!m.string) continue;
    if (m.memory_size > reference) return std::nullopt;
    layout.string_offsets.emplace(m.name, m.memory_offset + grown);
    grown += reference - m.memory_size;
  }
  layout.stride = H5Tget_size(type.get()) + grown;
  return layout;
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

// The stored bytes of the elements at `flat` of a one-dimensional chunked
// dataset, one after another (`stride` bytes each); each chunk they lie in
// read and decoded once.
std::optional<Bytes> chunked_elements(hid_t dataset, hid_t creation, std::size_t stride,
                                      const std::vector<std::uint64_t>& flat) {
  hsize_t chunk_elements = 0;
  if (check(H5Pget_chunk(creation, 1, &chunk_elements), "reading the chunk shape") != 1 ||
      chunk_elements == 0) {
    return std::nullopt;
  }
  const std::vector<Filter> filters = filters_of(creation);
  std::map<std::uint64_t, Bytes> chunks;  // by chunk number
  Bytes elements(checked_mul(flat.size(), stride));
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const std::uint64_t number = flat[i] / chunk_elements;
    auto it = chunks.find(number);
    if (it == chunks.end()) {
      auto chunk = read_chunk(dataset, filters, number * chunk_elements, checked_mul(chunk_elements, stride));
      if (!chunk) return std::nullopt;
      it = chunks.emplace(number, std::move(*chunk)).first;
    }
    std::memcpy(&elements[i * stride], it->second.data() + (flat[i] % chunk_elements) * stride, stride);
  }
  return elements;
}

// The same from contiguous storage at `address` (where the file says the
// dataset's data starts): one read per run of consecutive indices.
std::optional<Bytes> contiguous_elements(haddr_t address, io::ByteSource* source, std::size_t stride,
                                         const std::vector<std::uint64_t>& flat) {
  if (source == nullptr) return std::nullopt;
  Bytes elements(checked_mul(flat.size(), stride));
  for (std::size_t start = 0; start < flat.size();) {
    std::size_t end = start + 1;
    while (end < flat.size() && flat[end] == flat[end - 1] + 1) ++end;
    const std::uint64_t offset = checked_add(address, checked_mul(flat[start], stride));
    const std::uint64_t length = (end - start) * stride;
    if (offset > source->size() || length > source->size() - offset) {
      throw Failure("string references past the end of the file");
    }
    source->read(offset, length, &elements[start * stride]);
    start = end;
  }
  return elements;
}

}  // namespace

HeapReference ReferenceLayout::at(const unsigned char* element) const {
  const unsigned char* reference = element + offset;
  HeapReference out;
  out.length = little_endian(reference, 4);
  out.collection = little_endian(reference + 4, sizeof_addr);
  out.object = static_cast<std::uint32_t>(little_endian(reference + 4 + sizeof_addr, 4));
  return out;
}

StringHeap::StringHeap(hid_t object) : m_geometry(geometry_of(object)) {
  Handle file(check(H5Iget_file_id(object), "finding the file"));
  m_source = byte_source_of(file.get());
}

StringHeap::~StringHeap() = default;

std::optional<ReferenceLayout> StringHeap::reference_layout(hid_t dataset, const std::string& member) {
  if (member.empty()) return ReferenceLayout{m_geometry.heap_reference_bytes(), 0, m_geometry.sizeof_addr};
  // A record array's string members are asked for one after another: its
  // type is walked once (HDF5 does not hand out an identifier again).
  if (m_records_of != dataset) {
    m_records = record_layout(dataset, m_geometry);
    m_records_of = dataset;
  }
  if (!m_records) return std::nullopt;
  const auto found = m_records->string_offsets.find(member);
  if (found == m_records->string_offsets.end()) return std::nullopt;
  return ReferenceLayout{m_records->stride, found->second, m_geometry.sizeof_addr};
}

std::optional<std::vector<HeapReference>> StringHeap::references(hid_t dataset,
                                                                 const std::vector<std::uint64_t>& flat,
                                                                 const std::string& member) {
  if (flat.empty()) return std::vector<HeapReference>{};
  const auto layout = reference_layout(dataset, member);
  if (!layout) return std::nullopt;
  // A record array's string members are asked for one after another, over
  // the same sample: its records are read once.
  const bool records = !member.empty();
  std::optional<Bytes> read;
  const Bytes* elements = &m_records_read;
  if (!records || m_records_read_of != dataset || m_records_read_flat != flat) {
    // Only contiguous storage has an offset; knowing that spares a copy of
    // the creation properties, which costs more than reading the references.
    if (const haddr_t address = H5Dget_offset(dataset); address != HADDR_UNDEF) {
      read = contiguous_elements(address, m_source, layout->stride, flat);
    } else {
      Handle creation(check(H5Dget_create_plist(dataset), "reading the creation properties"));
      if (H5Pget_layout(creation.get()) != H5D_CHUNKED) return std::nullopt;  // compact: tiny, read the text
      read = chunked_elements(dataset, creation.get(), layout->stride, flat);
    }
    if (!read) return std::nullopt;
    if (records) {
      m_records_read = std::move(*read);
      m_records_read_of = dataset;
      m_records_read_at = UINT64_MAX;
      m_records_read_flat = flat;
    } else {
      elements = &*read;
    }
  }
  return checked_references(*elements, *layout, flat.size());
}

std::optional<std::vector<HeapReference>> StringHeap::references_at(std::uint64_t data_address,
                                                                    const std::vector<std::uint64_t>& flat,
                                                                    const ReferenceLayout& layout) {
  if (flat.empty()) return std::vector<HeapReference>{};
  if (m_source == nullptr || data_address > UINT64_MAX - m_geometry.base) return std::nullopt;
  // As references(): a record array's records are read once for all its
  // string members.
  const bool records = layout.stride != m_geometry.heap_reference_bytes();
  if (records && m_records_read_of == H5I_INVALID_HID && m_records_read_at == data_address &&
      m_records_read_flat == flat) {
    return checked_references(m_records_read, layout, flat.size());
  }
  auto elements = contiguous_elements(m_geometry.base + data_address, m_source, layout.stride, flat);
  if (!elements) return std::nullopt;
  if (!records) return checked_references(*elements, layout, flat.size());
  m_records_read = std::move(*elements);
  m_records_read_of = H5I_INVALID_HID;
  m_records_read_at = data_address;
  m_records_read_flat = flat;
  return checked_references(m_records_read, layout, flat.size());
}

std::vector<HeapReference> StringHeap::checked_references(const std::vector<unsigned char>& elements,
                                                          const ReferenceLayout& layout, std::size_t count) const {
  std::vector<HeapReference> found;
  found.reserve(count);
  for (std::size_t i = 0; i < count; ++i) found.push_back(layout.at(elements.data() + i * layout.stride));
  if (m_source != nullptr) {
    // A reference's length is the dataset's own bytes, which the heap's
    // objects are not checked against here: a damaged one claimed a 1.7 GB
    // string in a 176 KB file (a fuzzer's input, sized at 10 GB).
    const std::uint64_t file_bytes = m_source->size();
    for (const HeapReference& reference : found) {
      if (reference.length > file_bytes) {
        throw Failure("a string of " + std::to_string(reference.length) + " bytes in a file of " +
                      std::to_string(file_bytes) + " bytes: the file is corrupt");
      }
      if (reference.collection >= file_bytes) throw Failure("string references past the end of the file");
    }
  }
  return found;
}

std::optional<std::vector<std::uint64_t>> read_vlen_lengths(hid_t dataset,
                                                            const std::vector<std::uint64_t>& flat,
                                                            const std::string& member) {
  auto references = StringHeap(dataset).references(dataset, flat, member);
  if (!references) return std::nullopt;
  return lengths_of(*references);
}

std::vector<std::uint64_t> lengths_of(const std::vector<HeapReference>& references) {
  std::vector<std::uint64_t> lengths;
  lengths.reserve(references.size());
  for (const HeapReference& reference : references) lengths.push_back(reference.length);
  return lengths;
}

// A global heap collection (HDF5's file format, "Global Heap"): "GCOL",
// version 1, three reserved bytes, the collection's size; then objects, each
// {uint16 index, uint16 reference count, 4 reserved bytes, size, the data
// padded to 8 bytes}, until index 0 (the free space).
class StringHeap::Collection {
 public:
  // nullopt when the bytes at `address` are not a collection.
  static std::optional<Collection> read(io::ByteSource& source, std::uint64_t address,
                                        const Geometry& geometry) {
    const std::size_t header = 8 + geometry.sizeof_size;
    if (address > source.size() || source.size() - address < header) return std::nullopt;
    unsigned char head[8 + 8];
    source.read(address, header, head);
    if (std::memcmp(head, "GCOL", 4) != 0 || head[4] != 1) return std::nullopt;
    const std::uint64_t size = little_endian(&head[8], geometry.sizeof_size);
    // HDF5 makes collections of 4 KiB and more; one that claims more than
    // the file holds past it, or over 64 MiB, is left to HDF5.
    if (size < header || size > source.size() - address || size > kMaxCollectionBytes) return std::nullopt;
    Collection collection;
    // Not zeroed first: the read fills it.
    collection.m_bytes.reset(new unsigned char[static_cast<std::size_t>(size)]);
    collection.m_size = static_cast<std::size_t>(size);
    collection.m_sizeof_size = geometry.sizeof_size;
    source.read(address, size, collection.m_bytes.get());
    // Every object to the end, as HDF5 parses a collection
    // (H5HG__cache_heap_deserialize), refusing what it refuses: an object
    // runs past the end; the free space (object 0) is smaller than its own
    // header (our patch to HDF5), given twice, or not a multiple of 8.
    const std::size_t object_header = 8 + geometry.sizeof_size;
    const unsigned char* bytes = collection.m_bytes.get();
    std::optional<std::uint64_t> free_space;
    for (std::size_t at = header; at < size;) {
      if (size - at < object_header) {  // too small for an object: free space
        if (free_space) return std::nullopt;
        free_space = size - at;
        break;
      }
      const auto index = static_cast<std::uint16_t>(little_endian(bytes + at, 2));
      const std::uint64_t length = little_endian(bytes + at + 8, geometry.sizeof_size);
      if (length > size) return std::nullopt;
      const std::uint64_t need = index > 0 ? object_header + (length + 7) / 8 * 8 : length;
      if ((index == 0 && need < object_header) || need > size - at) return std::nullopt;
      if (index == 0) {
        free_space = length;
      } else {
        // A number given twice names the later object, as in HDF5.
        if (index >= collection.m_object_at.size()) collection.m_object_at.resize(index + std::size_t{1}, 0);
        collection.m_object_at[index] = static_cast<std::uint32_t>(at);
      }
      at += static_cast<std::size_t>(need);
    }
    if (free_space && *free_space % 8 != 0) return std::nullopt;
    return collection;
  }

  std::size_t bytes() const { return m_size; }

  // The object's bytes, or nullopt when the collection holds no such object
  // or one of another length.
  std::optional<std::string_view> object(std::uint32_t index, std::uint64_t length) const {
    if (index >= m_object_at.size() || m_object_at[index] == 0) return std::nullopt;
    const std::size_t at = m_object_at[index];
    if (little_endian(&m_bytes[at + 8], m_sizeof_size) != length) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(m_bytes.get() + at + 8 + m_sizeof_size), length);
  }

 private:
  static constexpr std::uint64_t kMaxCollectionBytes = std::uint64_t{64} << 20;
  std::unique_ptr<unsigned char[]> m_bytes;
  std::size_t m_size = 0;
  std::size_t m_sizeof_size = 8;
  // Where each object (by its 16-bit number) starts in m_bytes; 0 for none
  // (the collection's own header lies there). Offsets fit: a collection
  // read here is at most 64 MiB.
  std::vector<std::uint32_t> m_object_at;
};

bool StringHeap::texts(const std::vector<HeapReference>& references, const TextLimits& limits,
                       std::vector<std::string>& texts, std::vector<std::uint64_t>& oversized) {
  if (m_source == nullptr) return false;
  // Appended in place, and taken back when the heap does not hold what a
  // reference says.
  const std::size_t texts_before = texts.size();
  const std::size_t oversized_before = oversized.size();
  const auto take_back = [&] {
    texts.resize(texts_before);
    oversized.resize(oversized_before);
    return false;
  };
  texts.reserve(texts_before + references.size());
  std::uint64_t total = 0;
  for (const HeapReference& reference : references) {
    if (reference.length == 0) {
      texts.emplace_back();  // HDF5 writes no heap object for an empty string
      continue;
    }
    const Collection* collection = collection_at(reference.collection);
    if (collection == nullptr) return take_back();
    const auto text = collection->object(reference.object, reference.length);
    if (!text) return take_back();
    // As HDF5 would ask our allocator: the length and a terminator. A string
    // over the limits is measured (its object checked, not copied).
    if (reference.length + 1 > limits.max_string_bytes || total + reference.length + 1 > limits.max_total_bytes) {
      oversized.push_back(reference.length);
      continue;
    }
    texts.emplace_back(*text);
    total += reference.length + 1;
  }
  return true;
}

const StringHeap::Collection* StringHeap::collection_at(std::uint64_t address) {
  // A dataset's strings mostly sit in one collection: ask the map once.
  if (m_last != nullptr && m_last_address == address) return m_last;
  if (const auto it = m_collections.find(address); it != m_collections.end()) {
    m_last_address = address;
    m_last = it->second.get();
    return m_last;
  }
  if (address > UINT64_MAX - m_geometry.base) return nullptr;
  auto collection = Collection::read(*m_source, m_geometry.base + address, m_geometry);
  if (!collection) return nullptr;
  // Collections are shared by the strings of many datasets (h5py fills one
  // before it starts the next); the cache is emptied when it outgrows its
  // bound, not kept in order.
  if (m_cached_bytes + collection->bytes() > kMaxCachedBytes) {
    m_collections.clear();
    m_cached_bytes = 0;
  }
  m_cached_bytes += collection->bytes();
  m_last_address = address;
  m_last = m_collections.emplace(address, std::make_unique<Collection>(std::move(*collection))).first->second.get();
  return m_last;
}

}  // namespace h5ad_sizer::h5
