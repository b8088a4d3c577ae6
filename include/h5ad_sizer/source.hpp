#pragma once

#include <cstdint>
#include <string>

#include "h5ad_sizer/h5/handle.hpp"

namespace h5ad_sizer {

// An HDF5 file opened read-only, whatever it lives on. This is the one place
// that decides how bytes are fetched (the HDF5 file driver).
struct OpenedSource {
  h5::Handle file;
  std::string display_name;  // what errors and reports call it
  std::uint64_t file_bytes = 0;
};

// Opens `location` (a local path). Throws Error with input_unreadable for a
// missing, unreadable or non-regular file, invalid_h5ad for one that is not
// HDF5 or cannot be opened as such.
OpenedSource open_source(const std::string& location);

}  // namespace h5ad_sizer
