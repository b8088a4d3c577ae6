#include "h5ad_sizer/h5/handle.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "h5ad_sizer/h5/error.hpp"
#include "test_support.hpp"

namespace h5ad_sizer::h5 {
namespace {

int open_identifiers() { return static_cast<int>(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL)); }

TEST(Handle, ReleasesOnDestructionAndMovesOwnership) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string path = dir.file("f.h5");
  const int before = open_identifiers();
  {
    Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(file);
    EXPECT_EQ(open_identifiers(), before + 1);
    Handle moved(std::move(file));
    EXPECT_FALSE(file);  // NOLINT(bugprone-use-after-move): checking the moved-from state
    EXPECT_TRUE(moved);
    Handle assigned;
    assigned = std::move(moved);
    EXPECT_TRUE(assigned);
    EXPECT_EQ(open_identifiers(), before + 1);
  }
  EXPECT_EQ(open_identifiers(), before);
}

TEST(Handle, ReleaseGivesUpOwnership) {
  Handle space(H5Screate(H5S_SCALAR));
  const hid_t id = space.release();
  EXPECT_FALSE(space);
  EXPECT_GT(H5Iis_valid(id), 0);
  H5Sclose(id);
}

// HDF5's default is to print its whole error stack to stderr; we want one
// line in an exception instead, and silence on stderr.
TEST(Error, FailureCarriesTheInnermostMessageAndStderrStaysQuiet) {
  initialize();
  testing::ScopedTempDir dir;
  const std::string capture = dir.file("stderr");
  std::fflush(stderr);
  const int saved = dup(fileno(stderr));
  ASSERT_NE(std::freopen(capture.c_str(), "w", stderr), nullptr);
  std::string message;
  try {
    check(H5Fopen(dir.file("missing.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "opening");
  } catch (const Failure& failure) {
    message = failure.what();
  }
  std::fflush(stderr);
  dup2(saved, fileno(stderr));
  close(saved);
  EXPECT_EQ(message.rfind("opening: ", 0), 0u) << message;
  EXPECT_NE(message.find("unable to open file"), std::string::npos) << message;
  EXPECT_EQ(testing::read_text(capture), "");
}

}  // namespace
}  // namespace h5ad_sizer::h5
