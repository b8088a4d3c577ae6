#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"
#include "h5ad_sizer/h5/source_driver.hpp"
#include "h5ad_sizer/io/byte_source.hpp"

// For the tests that read files beside HDF5 and compare: the files of a
// folder, a file opened through the byte-source driver, its objects.
namespace h5ad_sizer::testing {

// The .h5ad files of `folder`; none when it does not exist.
inline std::vector<std::string> h5ad_files(const std::string& folder) {
  std::vector<std::string> files;
  if (!std::filesystem::is_directory(folder)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".h5ad") files.push_back(entry.path().string());
  }
  return files;
}

// A local file opened through our driver; `file` invalid when HDF5 cannot
// open it (the broken fixtures).
struct OpenedFile {
  explicit OpenedFile(const std::string& path) : source(io::open_local_file(path)) {
    try {
      file = h5::open_file(*source, path);
    } catch (const h5::Failure&) {
    }
  }
  std::unique_ptr<io::ByteSource> source;
  h5::Handle file;
};

#if H5_VERSION_GE(1, 12, 0)
inline herr_t note_object(hid_t, const char* name, const H5O_info2_t* info, void* data) {
#else
inline herr_t note_object(hid_t, const char* name, const H5O_info_t* info, void* data) {
#endif
  auto* out = static_cast<std::pair<bool, std::vector<std::string>>*>(data);
  if (!out->first || info->type == H5O_TYPE_DATASET) out->second.emplace_back(name);
  return 0;
}

// The paths of every object of `file` (the root is "."), or of its
// datasets only.
inline std::vector<std::string> object_names(hid_t file, bool datasets_only = false) {
  std::pair<bool, std::vector<std::string>> out{datasets_only, {}};
#if H5_VERSION_GE(1, 12, 0)
  EXPECT_GE(H5Ovisit3(file, H5_INDEX_NAME, H5_ITER_INC, note_object, &out, H5O_INFO_BASIC), 0);
#else
  EXPECT_GE(H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, note_object, &out, H5O_INFO_BASIC), 0);
#endif
  return std::move(out.second);
}

}  // namespace h5ad_sizer::testing
