#pragma once

#include <cstddef>
#include <optional>

#include "h5ad_sizer/h5/object_header.hpp"
#include "h5ad_sizer/h5/types.hpp"
#include "h5ad_sizer/h5/vlen_lengths.hpp"

// Datatype messages decoded from a file's bytes, with the checks HDF5 1.14
// makes as it decodes one (H5O__dtype_decode_helper): a message read here is
// one HDF5 would have accepted, so reading it here never sizes a file that
// HDF5 (and h5py, and anndata) would refuse.
namespace h5ad_sizer::h5 {

// The length of the datatype message at the start of `body` when HDF5
// would decode it without error; nullopt when it would refuse it, and for
// the classes not decoded here (time, bitfield, opaque, reference, array,
// a variable-length sequence): HDF5 is then asked.
std::optional<std::size_t> checked_datatype(ByteView body);

// The type as describe_type (types.hpp) gives it once HDF5 has opened the
// dataset and moved the type to memory: integers, floats, fixed and
// variable-length strings, h5py's boolean enum, and compounds of those
// (members in the order of their offsets, as HDF5 sorts them; h5py's
// {r, i} as complex). For a compound, `records` gets the stored record's
// stride and where each string member's heap reference lies. nullopt for
// anything else, or a message checked_datatype refuses.
std::optional<TypeInfo> datatype_info(ByteView body, const Geometry& geometry, RecordLayout& records);

}  // namespace h5ad_sizer::h5
