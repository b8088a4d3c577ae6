#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/handle.hpp"

// Navigation and attribute reading on open HDF5 objects. Every raw H5 call of
// the tool lives in src/h5; the layers above speak in these terms.
namespace h5ad_sizer::h5 {

enum class ObjectType { group, dataset, other };
enum class LinkKind { missing, hard, soft, external, other };

ObjectType object_type(hid_t object);
std::uint64_t file_size(hid_t file);

// What the link `name` in `group` is, without following it.
LinkKind link_kind(hid_t group, const std::string& name);
// Where the hard link `name` in `group` leads, found by name as HDF5 finds
// an object it opens (a search of the group's B-tree, names from its heap);
// nullopt when it is not found that way or is not a hard link.
std::optional<std::uint64_t> hard_link_address(hid_t group, const std::string& name);
// Opens `name` in `group`, following soft links (never external ones: the
// caller checks link_kind first).
Handle open_child(hid_t group, const std::string& name);
// A group's link: its name and kind, as iterating the group gives them.
struct Link {
  std::string name;
  LinkKind kind = LinkKind::missing;
  // A hard link's object: where its header lies (the file's address space).
  std::optional<std::uint64_t> address;
};
// A group's links in name order, which is the order h5py (and so anndata)
// iterates them for files written without creation-order tracking. Their
// kinds come with the iteration: no lookup by name per child (a group of
// thousands of small uns entries costs a B-tree search each otherwise).
std::vector<Link> links(hid_t group);
// Just the names of links().
std::vector<std::string> child_names(hid_t group);
// Identifies an object within the open file, to detect link cycles.
std::string object_identity(hid_t object);
// Where the object's header lies (in the file's address space, which starts
// after any user block); nullopt when HDF5 cannot say.
std::optional<std::uint64_t> object_address(hid_t object);

bool has_attribute(hid_t object, const char* name);
// A string attribute stored as a scalar or one-element array, variable- or
// fixed-length. nullopt when absent or not a string.
std::optional<std::string> string_attribute(hid_t object, const char* name);
// All strings of a string-array attribute (e.g. dataframe `column-order`).
// nullopt when absent or not strings (an empty array written as float64 by
// h5py counts as an empty list).
std::optional<std::vector<std::string>> string_list_attribute(hid_t object, const char* name);
// An integer attribute (scalar or array), converted to int64.
std::optional<std::vector<std::int64_t>> integer_list_attribute(hid_t object, const char* name);

}  // namespace h5ad_sizer::h5
