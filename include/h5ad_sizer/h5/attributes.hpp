#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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
  // `heap`: the file's; its byte source and geometry are read through.
  explicit AttributeReader(StringHeap& heap) : m_heap(heap) {}
  AttributeReader(const AttributeReader&) = delete;
  AttributeReader& operator=(const AttributeReader&) = delete;

  // As has_attribute, string_attribute and string_list_attribute
  // (node.hpp) answer.
  bool has(hid_t object, const char* name);
  std::optional<std::string> string(hid_t object, const char* name);
  std::optional<std::vector<std::string>> string_list(hid_t object, const char* name);

  // For tests: the questions answered from the headers, not by HDF5.
  std::uint64_t answered_directly() const { return m_answered_directly; }

 private:
  // An object's attribute messages as its header holds them; `direct` is
  // false when the header is not one read here.
  struct Header {
    hid_t object = H5I_INVALID_HID;
    bool direct = false;
    std::vector<std::vector<unsigned char>> blocks;  // the header's blocks of messages
    std::vector<AttributeMessage> attributes;        // into `blocks`, in the header's order
  };
  const Header& header_of(hid_t object);
  bool read_header(hid_t object, Header& header);
  // The strings of `attribute`; false when HDF5 must read them.
  bool strings_of(const AttributeMessage& attribute, std::optional<std::vector<std::string>>& out);

  StringHeap& m_heap;
  // The object asked about last (HDF5 does not reuse an identifier within
  // a process): a group is asked for two or three attributes in a row.
  Header m_header;
  std::uint64_t m_answered_directly = 0;
};

}  // namespace h5ad_sizer::h5
