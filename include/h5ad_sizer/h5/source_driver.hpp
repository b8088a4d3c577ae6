#pragma once

#include <hdf5.h>

#include <exception>
#include <string>

#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

namespace h5ad_sizer::h5 {

// Opens `source` read-only as an HDF5 file through our file driver, which
// forwards every read HDF5 makes to the source. `name` only labels the file.
// The source must outlive the returned handle.
Handle open_file(io::ByteSource& source, const std::string& name);

// The source an open file reads from, or nullptr when the file was opened
// some other way.
io::ByteSource* byte_source_of(hid_t file);

// A read of the source failed inside an HDF5 call. The driver cannot let the
// exception cross HDF5's C frames, so it keeps it here and fails the call;
// h5::fail() rethrows it in place of the generic HDF5 error, keeping its
// message and exit status ("access denied" stays exit 3).
std::exception_ptr take_pending_source_error();

}  // namespace h5ad_sizer::h5
