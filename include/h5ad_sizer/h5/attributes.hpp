#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/header_reader.hpp"
#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/h5/vlen_lengths.hpp"

namespace h5ad_sizer::h5 {

// The string attributes anndata tags every element with (encoding-type,
// encoding-version, column-order, ...), read from the object's header and
// the global heap directly where the header is what h5py writes by default:
// version 1, its attributes inside it, none shared. Anything else (a
// version-2 header, attributes in dense storage, a shared part, a heap that
// does not hold what the header says) goes through HDF5 (node.hpp), which
// then answers and judges the file. The answers are the same either way.
//
// Why: HDF5 opens, type-converts and closes a string attribute at about
// 33 000 instructions, parsing its heap collection again; a file of 600 uns
// results has 5 400 such attributes, and they took a fifth of its read
// (docs/remote.md).
class AttributeReader {
 public:
  // `heap` and `headers`: the file's.
  AttributeReader(StringHeap& heap, HeaderReader& headers) : m_heap(heap), m_headers(headers) {}
  AttributeReader(const AttributeReader&) = delete;
  AttributeReader& operator=(const AttributeReader&) = delete;

  // As has_attribute, string_attribute and string_list_attribute
  // (node.hpp) answer.
  bool has(hid_t object, const char* name);
  std::optional<std::string> string(hid_t object, const char* name);
  std::optional<std::vector<std::string>> string_list(hid_t object, const char* name);

  // The same of the object whose header lies at `address`, from the header
  // alone: false, with `out` untouched, when HDF5 must answer.
  bool string_list_at(std::uint64_t address, const char* name, std::optional<std::vector<std::string>>& out);

  // For tests: the questions answered from the headers, not by HDF5.
  std::uint64_t answered_directly() const { return m_answered_directly; }

 private:
  enum class Found { no, yes, unknown };
  // The first attribute called `name` in the header at `address`; unknown
  // when the header is not read here or cannot say (an attribute it cannot
  // read comes first, or attributes may be stored outside it).
  Found find(std::uint64_t address, const char* name, AttributeMessage& out);
  std::optional<std::uint64_t> address_of(hid_t object);
  bool decodable(const AttributeMessage& attribute) const;
  // The strings of `attribute`; false when HDF5 must read them.
  bool strings_of(const AttributeMessage& attribute, std::optional<std::vector<std::string>>& out);

  StringHeap& m_heap;
  HeaderReader& m_headers;
  // The object asked about last and its address (HDF5 does not reuse an
  // identifier within a process): a group is asked two or three questions.
  hid_t m_last_object = H5I_INVALID_HID;
  std::optional<std::uint64_t> m_last_address;
  std::uint64_t m_answered_directly = 0;
};

}  // namespace h5ad_sizer::h5
