#include "h5ad_sizer/estimate/profile.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace h5ad_sizer {
namespace {

TEST(Profile, RequiredIsLoadedTimesMultiplierPlusOverhead) {
  const JobProfile profile{"test", 1.5, 100};
  EXPECT_EQ(required_bytes(profile, 1000), 1600u);
  EXPECT_EQ(required_bytes(profile, 1), 102u);  // ceil(1.5) + 100: never rounds down
  EXPECT_EQ(required_bytes(profile, 0), 100u);
}

TEST(Profile, OverflowIsAnErrorNotAWrap) {
  const JobProfile profile{"test", 4.0, 0};
  EXPECT_THROW(required_bytes(profile, UINT64_MAX / 2), std::overflow_error);
  const JobProfile overhead{"test", 1.0, UINT64_MAX};
  EXPECT_THROW(required_bytes(overhead, 1), std::overflow_error);
}

TEST(Profile, BuiltinsAreFoundByNameAndNeverShrink) {
  for (const JobProfile& profile : builtin_profiles()) {
    ASSERT_TRUE(find_builtin_profile(profile.name).has_value());
    EXPECT_GE(profile.multiplier, 1.0);
  }
  EXPECT_FALSE(find_builtin_profile("no-such-profile").has_value());
  EXPECT_EQ(builtin_profile_names(), "load, migrate, process");
}

}  // namespace
}  // namespace h5ad_sizer
