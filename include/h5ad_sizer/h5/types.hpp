#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace h5ad_sizer::h5 {

enum class TypeClass {
  signed_integer,
  unsigned_integer,
  floating,
  boolean,        // h5py's enum {FALSE, TRUE} over int8
  complex,        // h5py's compound {r, i} of two floats
  vlen_string,
  fixed_string,
  compound,
  array,          // a fixed-size array member, as in legacy obsm records
  reference,
  other,          // opaque, bitfield, time, non-string vlen
};

// What a dataset's element type is, in the terms numpy would use for it.
struct TypeInfo {
  TypeClass type_class = TypeClass::other;
  std::uint64_t size = 0;   // bytes per element as numpy holds it (a pointer for a vlen string)
  std::uint64_t stored_size = 0;  // bytes per element in the file (16 for a vlen string)
  std::string numpy_name;   // "float32", "int64", "bool", "object", "|S16", ...
  bool ascii = false;       // strings: declared ASCII (else UTF-8)
  // compound: one entry per member; array: the single element type.
  std::vector<std::string> member_names;
  std::vector<TypeInfo> members;
  std::vector<std::uint64_t> array_dims;  // array: the member's shape
};

struct DatasetInfo {
  TypeInfo type;
  bool null_space = false;      // h5py.Empty: anndata's `null` encoding
  std::vector<std::uint64_t> dims;  // empty for a scalar
  std::uint64_t elements = 0;   // product of dims (1 for a scalar), overflow-checked
  std::uint64_t stored_bytes = 0;   // bytes allocated in the file (compressed size)
  // False when stored_bytes is the header's figure for a chunked dataset
  // (all chunks at full size, before filters) rather than the chunk index's.
  bool stored_bytes_exact = true;
  bool chunked = false;
  std::uint64_t chunks = 0;  // chunks covering the dataspace (0 unless chunked)
  bool compressed = false;
  // Filters in the pipeline that this process cannot run (no plugin): the
  // data cannot be read, only sized.
  std::vector<int> unavailable_filters;
};

// How a chunked dataset's stored bytes are found. The exact figure sums the
// chunk index, whose nodes lie scattered through the data and grow with it:
// over HTTP that is a request per node. The object header alone gives the
// space of a fully written dataset before compression.
enum class StorageDetail {
  object_header,  // chunks x chunk bytes; stored_bytes_exact = false
  chunk_index,    // H5Dget_storage_size: walks the chunk index
};

TypeInfo describe_type(hid_t type);
// A compound's class and numpy name, its size, members and their names set:
// h5py's {r, i} pair of floats is numpy's complex, any other a structured
// dtype [('name', 'dtype'), ...].
void classify_compound(TypeInfo& info);
DatasetInfo describe_dataset(hid_t dataset, StorageDetail storage);

}  // namespace h5ad_sizer::h5
