#include "h5ad_sizer/h5/strings.hpp"

#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/vlen_lengths.hpp"

namespace h5ad_sizer::h5 {
namespace {

// HDF5 allocates each variable-length string through this, so we can refuse
// what would break the memory bound while still learning the requested size,
// and free everything ourselves even after a failed read.
struct BoundedAllocator {
  std::size_t max_each = 0;
  std::size_t max_total = 0;
  std::size_t used = 0;
  std::unordered_set<void*> live;
  std::vector<std::uint64_t> refused;

  ~BoundedAllocator() { release_all(); }
  void release_all() {
    for (void* p : live) std::free(p);
    live.clear();
    used = 0;
  }
};

void* bounded_alloc(std::size_t size, void* data) {
  auto* a = static_cast<BoundedAllocator*>(data);
  if (size > a->max_each || a->used + size > a->max_total) {
    a->refused.push_back(size);
    return nullptr;
  }
  void* p = std::malloc(size);
  if (p == nullptr) return nullptr;
  try {
    a->live.insert(p);
  } catch (...) {
    std::free(p);
    return nullptr;
  }
  a->used += size;
  return p;
}

void bounded_free(void* p, void* data) {
  auto* a = static_cast<BoundedAllocator*>(data);
  if (a->live.erase(p) > 0) std::free(p);
}

Handle select_points(hid_t dataset, const std::vector<std::uint64_t>& flat,
                     const std::vector<std::uint64_t>& dims) {
  Handle space(check(H5Dget_space(dataset), "reading the dataspace"));
  const std::size_t rank = dims.empty() ? 1 : dims.size();
  std::vector<hsize_t> coords(flat.size() * rank, 0);
  for (std::size_t i = 0; i < flat.size(); ++i) {
    std::uint64_t rest = flat[i];
    for (std::size_t d = dims.size(); d-- > 0;) {
      coords[i * rank + d] = rest % dims[d];
      rest /= dims[d];
    }
  }
  if (!dims.empty()) {
    check(H5Sselect_elements(space.get(), H5S_SELECT_SET, flat.size(), coords.data()),
          "selecting string samples");
  }
  return space;
}

// Transfer properties sized for a sample. HDF5's default type-conversion
// buffer is 1 MiB, allocated and zeroed on every read that converts, which
// costs more than reading a few dozen strings.
Handle small_transfer(std::size_t elements, std::size_t element_size) {
  Handle transfer(check(H5Pcreate(H5P_DATASET_XFER), "creating transfer properties"));
  const std::size_t bytes = std::max<std::size_t>(elements * std::max<std::size_t>(element_size, 16), 4096);
  check(H5Pset_buffer(transfer.get(), bytes, nullptr, nullptr), "sizing the conversion buffer");
  return transfer;
}

Handle memory_string_type(const TypeInfo& type, const std::string& member) {
  Handle text(check(H5Tcopy(H5T_C_S1), "creating a string type"));
  if (type.type_class == TypeClass::vlen_string) {
    check(H5Tset_size(text.get(), H5T_VARIABLE), "creating a string type");
  } else {
    check(H5Tset_size(text.get(), type.size), "creating a string type");
  }
  check(H5Tset_cset(text.get(), type.ascii ? H5T_CSET_ASCII : H5T_CSET_UTF8),
        "creating a string type");
  if (member.empty()) return text;
  // Reading one member of a compound: a one-member compound memory type.
  Handle record(check(H5Tcreate(H5T_COMPOUND, H5Tget_size(text.get())), "creating a type"));
  check(H5Tinsert(record.get(), member.c_str(), 0, text.get()), "creating a type");
  return record;
}

const TypeInfo& string_type_of(const DatasetInfo& info, const std::string& member) {
  if (member.empty()) return info.type;
  for (std::size_t i = 0; i < info.type.member_names.size(); ++i) {
    if (info.type.member_names[i] == member) return info.type.members[i];
  }
  throw Failure("no compound member '" + member + "'");
}

// Reads the variable-length strings at `flat` in one call. Returns false when
// the allocator refused a string (the limits were hit); throws on real errors.
bool read_vlen(hid_t dataset, hid_t memory_type, const DatasetInfo& info,
               const std::vector<std::uint64_t>& flat, BoundedAllocator& allocator,
               std::vector<std::string>& out) {
  Handle file_space = select_points(dataset, flat, info.dims);
  hsize_t count = flat.size();
  Handle memory_space(check(H5Screate_simple(1, &count, nullptr), "creating a dataspace"));
  Handle transfer = small_transfer(flat.size(), H5Tget_size(memory_type));
  check(H5Pset_vlen_mem_manager(transfer.get(), bounded_alloc, &allocator, bounded_free,
                                &allocator),
        "setting the string allocator");
  std::vector<char*> pointers(flat.size(), nullptr);
  allocator.refused.clear();
  herr_t status = H5Dread(dataset, memory_type, memory_space.get(), file_space.get(),
                          transfer.get(), pointers.data());
  if (status < 0) {
    allocator.release_all();
    if (!allocator.refused.empty()) {
      H5Eclear2(H5E_DEFAULT);
      return false;
    }
    fail("reading strings from the global heap");
  }
  for (char* p : pointers) out.emplace_back(p ? p : "");
  allocator.release_all();
  return true;
}

void read_fixed(hid_t dataset, hid_t memory_type, const DatasetInfo& info,
                const std::vector<std::uint64_t>& flat, std::vector<std::string>& out) {
  const std::size_t width = H5Tget_size(memory_type);
  Handle file_space = select_points(dataset, flat, info.dims);
  hsize_t count = flat.size();
  Handle memory_space(check(H5Screate_simple(1, &count, nullptr), "creating a dataspace"));
  std::vector<char> buffer(width * flat.size(), '\0');
  Handle transfer = small_transfer(flat.size(), width);
  check(H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), transfer.get(),
                buffer.data()),
        "reading fixed-length strings");
  for (std::size_t i = 0; i < flat.size(); ++i) {
    const char* start = buffer.data() + i * width;
    out.emplace_back(start, strnlen(start, width));
  }
}

// The strings read in full (or measured) add up to what the references
// say of them: a cheap proof that the references were found where they lie
// (a compound's member offsets are worked out, not read).
bool lengths_agree(const std::vector<std::uint64_t>& lengths, const StringSample& read) {
  const std::size_t count = read.texts.size() + read.oversized_lengths.size();
  if (count > lengths.size()) return false;
  std::uint64_t said = 0;
  for (std::size_t i = 0; i < count; ++i) said += lengths[i];
  std::uint64_t found = 0;
  for (const std::string& text : read.texts) found += text.size();
  for (std::uint64_t length : read.oversized_lengths) found += length;
  return said == found;
}

}  // namespace

std::vector<std::uint64_t> sample_indices(std::uint64_t population, const SampleLimits& limits) {
  std::vector<std::uint64_t> out;
  if (population <= limits.max_strings) {
    for (std::uint64_t i = 0; i < population; ++i) out.push_back(i);
    return out;
  }
  const std::uint64_t runs = std::max<std::size_t>(limits.runs, 1);
  const std::uint64_t run_length = limits.max_strings / runs;
  for (std::uint64_t r = 0; r < runs; ++r) {
    // Runs spread from the first to the last element.
    const std::uint64_t start =
        runs == 1 ? 0 : r * (population - run_length) / (runs - 1);
    for (std::uint64_t i = 0; i < run_length; ++i) out.push_back(start + i);
  }
  return out;
}

namespace {

// The sample's first strings, whose text is read besides their lengths.
std::vector<HeapReference> first_references(const std::vector<HeapReference>& references,
                                            const SampleLimits& limits) {
  const std::size_t with_text = std::min(references.size(), limits.texts_with_lengths);
  return std::vector<HeapReference>(references.begin(), references.begin() + static_cast<std::ptrdiff_t>(with_text));
}

// With the texts of the first references read: the lengths of the whole
// sample from the references, when they agree with those texts. False when
// the references say something the strings do not (then the texts alone
// carry the sample).
bool take_lengths(const std::vector<HeapReference>& references, StringSample& sample) {
  std::vector<std::uint64_t> lengths = lengths_of(references);
  if (!lengths_agree(lengths, sample)) return false;
  sample.lengths = std::move(lengths);
  return true;
}

}  // namespace

StringSample sample_strings(hid_t dataset, const DatasetInfo& info, const std::string& member,
                            const SampleLimits& limits, StringHeap* heap) {
  StringSample sample;
  sample.population = info.elements;
  const TypeInfo& type = string_type_of(info, member);
  if (info.null_space || info.elements == 0) return sample;
  // Made only for HDF5's reads: its copy costs more than the texts of a
  // small dataset read from the heap.
  Handle memory_type;
  const auto memory = [&] {
    if (!memory_type) memory_type = memory_string_type(type, member);
    return memory_type.get();
  };

  std::vector<std::uint64_t> flat = sample_indices(info.elements, limits);
  if (type.type_class == TypeClass::fixed_string) {
    // Fixed width: the bound is simply width x count.
    const std::size_t fit = std::max<std::size_t>(1, limits.max_total_bytes / type.size);
    if (flat.size() > fit) flat.resize(fit);
    read_fixed(dataset, memory(), info, flat, sample.texts);
    return sample;
  }

  BoundedAllocator allocator;
  allocator.max_each = limits.max_string_bytes;
  allocator.max_total = limits.max_total_bytes;
  const auto read_texts = [&](const std::vector<std::uint64_t>& indices) {
    if (indices.empty()) return;
    if (read_vlen(dataset, memory(), info, indices, allocator, sample.texts)) return;
    // Some string is too large (or all together are): go one at a time, so
    // a refused string costs us only its length.
    sample.texts.clear();
    for (std::uint64_t index : indices) {
      if (read_vlen(dataset, memory(), info, {index}, allocator, sample.texts)) continue;
      // HDF5 asks for length + 1 bytes (the terminator).
      const std::uint64_t asked = allocator.refused.front();
      sample.oversized_lengths.push_back(asked > 0 ? asked - 1 : 0);
    }
  };

  // References are read for scalars and one-dimensional datasets (a flat
  // index is then an element's place in contiguous storage, and a chunk
  // index has one dimension).
  const bool by_reference = info.dims.size() <= 1;
  std::optional<StringHeap> own_heap;
  if (by_reference && heap == nullptr) heap = &own_heap.emplace(dataset);
  if (by_reference) {
    if (auto references = heap->references(dataset, flat, member)) {
      // Text for the sample's first few strings, from the heap directly
      // when it can be (else through HDF5); lengths for all of it.
      const std::vector<HeapReference> first = first_references(*references, limits);
      if (!heap->texts(first, {limits.max_string_bytes, limits.max_total_bytes}, sample.texts,
                       sample.oversized_lengths)) {
        read_texts(std::vector<std::uint64_t>(flat.begin(), flat.begin() + static_cast<std::ptrdiff_t>(first.size())));
      }
      if (first.size() == flat.size() || take_lengths(*references, sample)) return sample;
      sample.texts.clear();
      sample.oversized_lengths.clear();
    }
  }
  read_texts(flat);
  return sample;
}

std::optional<StringSample> sample_strings_at(StringHeap& heap, const DatasetInfo& info, std::uint64_t data_address,
                                              const std::string& member, const RecordLayout& records,
                                              const SampleLimits& limits) {
  StringSample sample;
  sample.population = info.elements;
  if (info.null_space || info.elements == 0) return sample;
  if (string_type_of(info, member).type_class != TypeClass::vlen_string || info.dims.size() > 1) return std::nullopt;
  ReferenceLayout layout{heap.geometry().heap_reference_bytes(), 0, heap.geometry().sizeof_addr};
  if (!member.empty()) {
    const auto found = records.string_offsets.find(member);
    if (found == records.string_offsets.end()) return std::nullopt;
    layout.stride = records.stride;
    layout.offset = found->second;
  }
  const std::vector<std::uint64_t> flat = sample_indices(info.elements, limits);
  const auto references = heap.references_at(data_address, flat, layout);
  if (!references) return std::nullopt;
  const std::vector<HeapReference> first = first_references(*references, limits);
  if (!heap.texts(first, {limits.max_string_bytes, limits.max_total_bytes}, sample.texts, sample.oversized_lengths)) {
    return std::nullopt;
  }
  if (first.size() == flat.size() || take_lengths(*references, sample)) return sample;
  return std::nullopt;
}

}  // namespace h5ad_sizer::h5
