#pragma once

#include <cstdint>
#include <optional>

#include "h5ad_sizer/h5/header_reader.hpp"
#include "h5ad_sizer/h5/types.hpp"
#include "h5ad_sizer/h5/vlen_lengths.hpp"

namespace h5ad_sizer::h5 {

// A dataset described from its object header alone, as describe_dataset
// (types.hpp) describes it once HDF5 has opened it. Opening a dataset
// through HDF5 copies two property lists and closing it frees them again:
// for a file of 600 uns results of 7 small datasets each, opening, closing
// and describing took about 40 % of the read (docs/remote.md).
struct DescribedDataset {
  DatasetInfo info;
  // Where its data lies (in the file's address space) when it is contiguous
  // and written: what H5Dget_offset gives, less the user block.
  std::optional<std::uint64_t> data_address;
  // A record array's records as stored: their stride and where each string
  // member's heap reference lies in one.
  RecordLayout records;
};

// nullopt unless the header is a dataset's whose every part is one read
// here: a datatype h5py writes for arrays (integers, floats, fixed and
// variable-length strings, h5py's boolean enum, and compounds of those
// without array members), a dataspace, a layout of
// version 3, filters listed, nothing shared, no external storage, no
// message of a kind not listed here. Anything else is left to HDF5, which
// describes it and judges the file. `storage` as describe_dataset takes it;
// only the object-header figure is given here (a chunk index is HDF5's).
// `file_bytes`: the file's size, which contiguous data must lie within.
std::optional<DescribedDataset> describe_from_header(const ObjectHeader& header, const Geometry& geometry,
                                                     StorageDetail storage, std::uint64_t file_bytes);

// Whether the header is a group's (it lists links: a symbol table, or link
// messages and link info of the newer format).
bool is_group_header(const ObjectHeader& header);

}  // namespace h5ad_sizer::h5
