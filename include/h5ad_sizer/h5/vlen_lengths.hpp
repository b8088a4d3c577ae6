#pragma once

#include <hdf5.h>

#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace h5ad_sizer::h5 {

// Byte lengths of the variable-length strings at the flat indices `flat` of a
// scalar or one-dimensional string dataset, or of its string member `member`
// when it is a compound, read from the dataset's own storage. Each string is a
// heap reference {uint32 length, address, uint32 index},
// so the lengths cost 16 bytes per string and no global-heap access (which
// is what makes reading the text itself slow: a collection is loaded and
// parsed for every few hundred strings).
//
// nullopt when the storage cannot be read raw: compact layout, a driver we
// cannot read through, a filter we cannot undo, a member inside a nested
// type. Callers then read the text.
// Throws Failure on a corrupt chunk.
// Where a variable-length string's bytes lie: an object of a global heap
// collection.
struct HeapReference {
  std::uint64_t length = 0;      // bytes of the string
  std::uint64_t collection = 0;  // the collection's address
  std::uint32_t object = 0;      // the object's index in it
};

// The strings' lengths, in the references' order.
std::vector<std::uint64_t> lengths_of(const std::vector<HeapReference>& references);

struct TextLimits {
  std::size_t max_string_bytes = 0;  // a longer string is measured, not copied
  std::size_t max_total_bytes = 0;   // memory for all the strings copied
};

// A file's variable-length strings read without HDF5's type conversion
// (which, per call, costs more than reading a few dozen strings): their
// heap references from the datasets' storage, their bytes from the global
// heap collections through the file's byte source. One per file read: it
// keeps what every call would otherwise ask HDF5 again (the address width,
// the user block) and the collections already parsed.
// Where each element's heap reference lies in a dataset's stored bytes:
// {uint32 length, collection address (sizeof_addr bytes), uint32 object}.
struct ReferenceLayout {
  std::size_t stride = 0;  // bytes an element takes on disk
  std::size_t offset = 0;  // where in it the reference starts
  std::size_t sizeof_addr = 8;
  HeapReference at(const unsigned char* element) const;
};

// A compound dataset's records on disk: their stride, and where the
// reference of each variable-length string member starts.
struct RecordLayout {
  std::size_t stride = 0;
  std::map<std::string, std::size_t> string_offsets;
};

class StringHeap {
 public:
  // `object`: the file or anything in it.
  explicit StringHeap(hid_t object);
  ~StringHeap();
  StringHeap(const StringHeap&) = delete;
  StringHeap& operator=(const StringHeap&) = delete;

  // The references at the flat indices `flat` of a scalar or one-dimensional
  // string dataset, or of its string member `member` when it is a compound;
  // nullopt as read_vlen_lengths says. Throws Failure when a reference
  // cannot be right: a string longer than the file, or in a collection past
  // its end.
  std::optional<std::vector<HeapReference>> references(hid_t dataset, const std::vector<std::uint64_t>& flat,
                                                       const std::string& member = "");
  // The same of a contiguous dataset not opened through HDF5, whose data
  // lies at `data_address` (in the file's address space), each element's
  // reference where `layout` says.
  std::optional<std::vector<HeapReference>> references_at(std::uint64_t data_address,
                                                          const std::vector<std::uint64_t>& flat,
                                                          const ReferenceLayout& layout);

  // The strings `references` point at, appended to `texts`; those over the
  // limits only measured, into `oversized`. False, with nothing appended,
  // when the file has no byte source or the heap does not hold what the
  // references say (then HDF5 reads them, and judges the file).
  bool texts(const std::vector<HeapReference>& references, const TextLimits& limits,
             std::vector<std::string>& texts, std::vector<std::uint64_t>& oversized);

  const Geometry& geometry() const { return m_geometry; }
  // The file's bytes; nullptr when the file was not opened through our
  // driver (then every text is left to HDF5).
  io::ByteSource* source() const { return m_source; }

 private:
  class Collection;
  const Collection* collection_at(std::uint64_t address);
  std::optional<ReferenceLayout> reference_layout(hid_t dataset, const std::string& member);
  // The references in `elements` (`count` of them, laid out as `layout`
  // says), each checked against the file: Failure for a string longer than
  // the file or in a collection past its end.
  std::vector<HeapReference> checked_references(const std::vector<unsigned char>& elements,
                                                const ReferenceLayout& layout, std::size_t count) const;

  static constexpr std::size_t kMaxCachedBytes = std::size_t{8} << 20;
  io::ByteSource* m_source = nullptr;
  Geometry m_geometry;
  std::map<std::uint64_t, std::unique_ptr<Collection>> m_collections;
  std::size_t m_cached_bytes = 0;
  std::uint64_t m_last_address = 0;  // the collection asked for last, in m_collections
  const Collection* m_last = nullptr;
  // The last record array whose layout was asked for (HDF5 identifiers are
  // not reused within a process) and that layout.
  hid_t m_records_of = H5I_INVALID_HID;
  std::optional<RecordLayout> m_records;
  // The stored records of the last record array sampled, and which: the
  // dataset, or (one read from its header) where its data lies.
  hid_t m_records_read_of = H5I_INVALID_HID;
  std::uint64_t m_records_read_at = UINT64_MAX;
  std::vector<std::uint64_t> m_records_read_flat;
  std::vector<unsigned char> m_records_read;
};

std::optional<std::vector<std::uint64_t>> read_vlen_lengths(hid_t dataset,
                                                            const std::vector<std::uint64_t>& flat,
                                                            const std::string& member = "");

}  // namespace h5ad_sizer::h5
