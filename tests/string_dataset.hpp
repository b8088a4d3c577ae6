#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "h5ad_sizer/h5/error.hpp"
#include "h5ad_sizer/h5/handle.hpp"

namespace h5ad_sizer::testing {

// Writes `strings` as a 1-D variable-length UTF-8 dataset "s" in a new file
// at `path`, with the creation properties `create` (layout, chunks, filters).
inline void write_string_dataset(const std::string& path, const std::vector<std::string>& strings,
                                 hid_t create = H5P_DEFAULT) {
  h5::initialize();
  h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
  h5::Handle type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), H5T_VARIABLE);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  hsize_t n = strings.size();
  h5::Handle space(H5Screate_simple(1, &n, nullptr));
  h5::Handle dataset(H5Dcreate2(file.get(), "s", type.get(), space.get(), H5P_DEFAULT, create,
                                H5P_DEFAULT));
  std::vector<const char*> pointers;
  for (const auto& s : strings) pointers.push_back(s.c_str());
  ASSERT_GE(H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()), 0);
}

}  // namespace h5ad_sizer::testing
