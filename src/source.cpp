#include "h5ad_sizer/source.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "h5ad_sizer/errors.hpp"
#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/node.hpp"

namespace h5ad_sizer {
namespace {

// Classifies problems HDF5 would only report as "unable to open file", so the
// user learns whether to fix a path, a permission or the file itself.
void require_readable_file(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    throw_unreadable(path + ": cannot open: " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) throw_unreadable(path + ": is a directory, not an .h5ad file");
  if (!S_ISREG(info.st_mode)) throw_unreadable(path + ": not a regular file");
  if (::access(path.c_str(), R_OK) != 0) {
    throw_unreadable(path + ": cannot open: " + std::strerror(errno));
  }
}

}  // namespace

OpenedSource open_source(const std::string& location) {
  h5::initialize();
  require_readable_file(location);
  OpenedSource source;
  source.display_name = location;
  try {
    source.file = h5::Handle(
        h5::check(H5Fopen(location.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open as HDF5"));
    source.file_bytes = h5::file_size(source.file.get());
  } catch (const h5::Failure& failure) {
    // Only now ask why: a second open just for the signature would cost
    // every successful run.
#if H5_VERSION_GE(1, 12, 0)
    const htri_t is_hdf5 = H5Fis_accessible(location.c_str(), H5P_DEFAULT);
#else
    const htri_t is_hdf5 = H5Fis_hdf5(location.c_str());
#endif
    H5Eclear2(H5E_DEFAULT);
    if (is_hdf5 <= 0) throw_invalid(location + ": not an HDF5 file (no HDF5 signature found)");
    throw_invalid(location + ": " + failure.what());
  }
  return source;
}

}  // namespace h5ad_sizer
