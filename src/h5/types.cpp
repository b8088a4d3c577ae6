#include "h5ad_sizer/h5/types.hpp"

#include "h5ad_sizer/checked.hpp"

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"

namespace h5ad_sizer::h5 {
namespace {

std::string sized_name(const char* stem, std::uint64_t bytes) {
  return stem + std::to_string(bytes * 8);
}

bool is_h5py_bool(hid_t type) {
  if (H5Tget_nmembers(type) != 2) return false;
  char* first = H5Tget_member_name(type, 0);
  char* second = H5Tget_member_name(type, 1);
  bool match = first && second && std::string(first) == "FALSE" && std::string(second) == "TRUE";
  H5free_memory(first);
  H5free_memory(second);
  return match;
}

TypeInfo describe_integer(hid_t type, std::uint64_t size) {
  TypeInfo info;
  info.size = size;
  if (check(H5Tget_sign(type), "reading integer sign") == H5T_SGN_NONE) {
    info.type_class = TypeClass::unsigned_integer;
    info.numpy_name = sized_name("uint", size);
  } else {
    info.type_class = TypeClass::signed_integer;
    info.numpy_name = sized_name("int", size);
  }
  return info;
}

TypeInfo describe_compound(hid_t type, std::uint64_t size) {
  TypeInfo info;
  info.size = size;
  int count = check(H5Tget_nmembers(type), "counting compound members");
  for (int i = 0; i < count; ++i) {
    auto index = static_cast<unsigned>(i);
    char* name = H5Tget_member_name(type, index);
    if (name == nullptr) fail("reading a compound member name");
    info.member_names.emplace_back(name);
    H5free_memory(name);
    Handle member(check(H5Tget_member_type(type, index), "reading a compound member type"));
    info.members.push_back(describe_type(member.get()));
  }
  classify_compound(info);
  return info;
}

}  // namespace

namespace {
TypeInfo describe_layout(hid_t type);
}  // namespace

void classify_compound(TypeInfo& info) {
  // h5py writes complex numbers as {r, i}; numpy sees one complex value.
  if (info.members.size() == 2 && info.member_names[0] == "r" && info.member_names[1] == "i" &&
      info.members[0].type_class == TypeClass::floating && info.members[1].type_class == TypeClass::floating) {
    info.type_class = TypeClass::complex;
    info.numpy_name = sized_name("complex", info.size);
    info.member_names.clear();
    info.members.clear();
    return;
  }
  info.type_class = TypeClass::compound;
  // As numpy writes a structured dtype: [('name', 'dtype'), ...].
  info.numpy_name = "[";
  for (std::size_t i = 0; i < info.members.size(); ++i) {
    if (i > 0) info.numpy_name += ", ";
    info.numpy_name += "('" + info.member_names[i] + "', '" + info.members[i].numpy_name + "')";
  }
  info.numpy_name += "]";
}

// A variable-length string is a global heap reference in the file: its
// length (4 bytes), the heap collection's address (8, the size of addresses
// in every file h5py writes) and the object's index (4).
constexpr std::uint64_t kHeapReferenceBytes = 16;

TypeInfo describe_type(hid_t type) {
  TypeInfo info = describe_layout(type);
  // H5Dget_type hands the type in its memory layout, where such a string is
  // a char*: count its file size instead.
  info.stored_size = info.size;
  if (info.type_class == TypeClass::vlen_string) info.stored_size = kHeapReferenceBytes;
  for (const TypeInfo& member : info.members) {
    if (info.type_class == TypeClass::compound) info.stored_size += member.stored_size - member.size;
  }
  return info;
}

namespace {

TypeInfo describe_layout(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  if (type_class == H5T_NO_CLASS) fail("reading a datatype class");
  const std::uint64_t size = H5Tget_size(type);
  if (size == 0) fail("reading a datatype size");

  TypeInfo info;
  info.size = size;
  switch (type_class) {
    case H5T_INTEGER:
      return describe_integer(type, size);
    case H5T_FLOAT:
      info.type_class = TypeClass::floating;
      info.numpy_name = sized_name("float", size);
      return info;
    case H5T_ENUM:
      if (is_h5py_bool(type)) {
        info.type_class = TypeClass::boolean;
        info.numpy_name = "bool";
        return info;
      } else {
        // numpy has no enum: h5py hands back the base integer type.
        Handle base(check(H5Tget_super(type), "reading an enum base type"));
        return describe_integer(base.get(), size);
      }
    case H5T_STRING: {
      info.ascii = H5Tget_cset(type) == H5T_CSET_ASCII;
      htri_t variable = check(H5Tis_variable_str(type), "reading a string type");
      if (variable) {
        info.type_class = TypeClass::vlen_string;
        info.numpy_name = "object";
        info.size = sizeof(char*);
      } else {
        info.type_class = TypeClass::fixed_string;
        info.numpy_name = "S" + std::to_string(size);  // as numpy's dtype repr spells it
      }
      return info;
    }
    case H5T_COMPOUND:
      return describe_compound(type, size);
    case H5T_ARRAY: {
      int rank = check(H5Tget_array_ndims(type), "reading an array type rank");
      std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
      check(H5Tget_array_dims2(type, dims.data()), "reading array type dims");
      Handle base(check(H5Tget_super(type), "reading an array base type"));
      info.type_class = TypeClass::array;
      info.members.push_back(describe_type(base.get()));
      info.array_dims.assign(dims.begin(), dims.end());
      info.numpy_name = info.members.front().numpy_name;
      return info;
    }
    case H5T_REFERENCE:
      info.type_class = TypeClass::reference;
      info.numpy_name = "object";
      return info;
    default:
      info.type_class = TypeClass::other;
      info.numpy_name = "V" + std::to_string(size);  // raw bytes, as numpy reads opaque data
      return info;
  }
}

}  // namespace

DatasetInfo describe_dataset(hid_t dataset, StorageDetail storage) {
  DatasetInfo info;
  Handle type(check(H5Dget_type(dataset), "reading the datatype"));
  info.type = describe_type(type.get());

  Handle space(check(H5Dget_space(dataset), "reading the dataspace"));
  H5S_class_t space_class = H5Sget_simple_extent_type(space.get());
  if (space_class == H5S_NO_CLASS) fail("reading the dataspace class");
  if (space_class == H5S_NULL) {
    info.null_space = true;
  } else {
    int rank = check(H5Sget_simple_extent_ndims(space.get()), "reading the rank");
    std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
    check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "reading the dims");
    info.dims.assign(dims.begin(), dims.end());
    info.elements = 1;
    for (auto d : info.dims) info.elements = checked_mul(info.elements, d);
  }
  if (info.dims.empty()) {
    // A scalar (or empty) dataspace cannot be chunked, so it has no filters
    // either: skip the creation property list, whose copy costs more than
    // the rest of the description (uns can hold 100 000 scalars).
    info.stored_bytes = H5Dget_storage_size(dataset);
    return info;
  }
  if (H5Dget_offset(dataset) != HADDR_UNDEF) {
    // Contiguous, its data written: no chunks and no filters, and the same
    // saving (a dataset of uns is as likely contiguous as scalar).
    info.stored_bytes = H5Dget_storage_size(dataset);
    return info;
  }
  Handle plist(check(H5Dget_create_plist(dataset), "reading the creation properties"));
  info.chunked = H5Pget_layout(plist.get()) == H5D_CHUNKED;
  std::uint64_t chunk_elements = 1;
  if (info.chunked && !info.dims.empty()) {
    std::vector<hsize_t> chunk(info.dims.size());
    const int rank = check(H5Pget_chunk(plist.get(), static_cast<int>(chunk.size()), chunk.data()),
                           "reading the chunk shape");
    info.chunks = 1;
    for (std::size_t d = 0; d < info.dims.size() && d < static_cast<std::size_t>(rank); ++d) {
      if (chunk[d] == 0) fail("chunk dimension 0");
      info.chunks = checked_mul(info.chunks, (info.dims[d] + chunk[d] - 1) / chunk[d]);
      chunk_elements = checked_mul(chunk_elements, chunk[d]);
    }
  }
  if (info.chunked && storage == StorageDetail::object_header) {
    // In the file's layout: a variable-length string is a 16-byte heap
    // reference there, not numpy's 8-byte pointer.
    info.stored_bytes = checked_mul(checked_mul(info.chunks, chunk_elements), info.type.stored_size);
    info.stored_bytes_exact = false;
  } else {
    // Storage size is 0 both for "nothing written" and for an error; HDF5
    // gives no way to tell them apart, and both mean no bytes in the file.
    // Contiguous and compact layouts keep it in the header: no extra read.
    info.stored_bytes = H5Dget_storage_size(dataset);
  }
  const int filters = check(H5Pget_nfilters(plist.get()), "reading the filters");
  info.compressed = filters > 0;
  for (int i = 0; i < filters; ++i) {
    unsigned flags = 0;
    std::size_t n_values = 0;
    unsigned config = 0;
    const H5Z_filter_t id = H5Pget_filter2(plist.get(), static_cast<unsigned>(i), &flags,
                                           &n_values, nullptr, 0, nullptr, &config);
    if (id < 0) fail("reading a filter");
    if (H5Zfilter_avail(id) <= 0) info.unavailable_filters.push_back(static_cast<int>(id));
  }
  H5Eclear2(H5E_DEFAULT);  // a failed plugin search leaves frames behind
  return info;
}

}  // namespace h5ad_sizer::h5
