#include "h5ad_sizer/estimate/profile.hpp"

#include "h5ad_sizer/checked.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace h5ad_sizer {
namespace {

JobProfile profile(double multiplier, double sparse_copies, double dense_copies,
                   std::uint64_t overhead) {
  JobProfile p;
  p.name = "test";
  p.multiplier = multiplier;
  p.sparse_x_copies = sparse_copies;
  p.dense_x_copies = dense_copies;
  p.overhead_bytes = overhead;
  return p;
}

TEST(Profile, RequiredIsLoadedTimesMultiplierPlusOverhead) {
  const JobProfile p = profile(1.5, 0, 0, 100);
  EXPECT_EQ(required_bytes(p, 1000, 1000), 1600u);
  EXPECT_EQ(required_bytes(p, 1, 1), 102u);  // ceil(1.5) + 100: never rounds down
  EXPECT_EQ(required_bytes(p, 0, 0), 100u);
}

TEST(Profile, CopiesOfXDependOnItsKind) {
  const JobProfile p = profile(1.0, 4.0, 1.0, 0);
  EXPECT_EQ(required_bytes(p, 1000, 1000, {250, 250, /*sparse=*/true}), 1000u + 4 * 250);
  EXPECT_EQ(required_bytes(p, 1000, 1000, {250, 250, /*sparse=*/false}), 1000u + 250);
  EXPECT_EQ(required_bytes(p, 1000, 1000, {}), 1000u);  // no X
  // int64 indices: the first copy keeps them, scipy rebuilds the rest int32,
  // and the four that stand together at the end are all int32.
  EXPECT_EQ(required_bytes(p, 1000, 1000, {300, 200, /*sparse=*/true}), 1000u + 4 * 200);
  // Unless the first and one more outweigh them.
  const JobProfile two = profile(1.0, 2.0, 1.0, 0);
  EXPECT_EQ(required_bytes(two, 1000, 1000, {300, 100, /*sparse=*/true}), 1000u + 300 + 100);
  EXPECT_EQ(required_bytes(two, 1000, 1000, {300, 200, /*sparse=*/true}), 1000u + 2 * 200 + 100);
}

TEST(Profile, CopiesStandOnWhatTheReadLeavesNotOnItsPeak) {
  const JobProfile p = profile(1.0, 4.0, 1.0, 10);
  // The read's transients are gone when X is copied: 400 left + 4 x 250.
  EXPECT_EQ(required_bytes(p, 1000, 400, {250, 250, /*sparse=*/true}), 400u + 1000 + 10);
  // The read's own peak is the higher one.
  EXPECT_EQ(required_bytes(p, 2000, 400, {250, 250, /*sparse=*/true}), 2000u + 10);
  EXPECT_EQ(required_bytes(p, 2000, 400, {}), 2000u + 10);
  // What is left is never taken as more than the peak.
  EXPECT_EQ(required_bytes(p, 1000, 5000, {250, 250, /*sparse=*/false}), 1000u + 250 + 10);
}

TEST(Profile, OverflowIsAnErrorNotAWrap) {
  EXPECT_THROW(required_bytes(profile(4.0, 0, 0, 0), UINT64_MAX / 2, 0), std::overflow_error);
  EXPECT_THROW(required_bytes(profile(1.0, 0, 0, UINT64_MAX), 1, 1), std::overflow_error);
}

TEST(Profile, BuiltinsAreFoundByNameAndNeverShrink) {
  const RuntimeModel runtime = *find_runtime(kDefaultRuntime);
  for (const JobProfile& p : builtin_profiles(runtime)) {
    ASSERT_TRUE(find_builtin_profile(p.name, runtime).has_value());
    EXPECT_GE(p.multiplier, 1.0);
  }
  EXPECT_FALSE(find_builtin_profile("no-such-profile", runtime).has_value());
  EXPECT_EQ(builtin_profile_names(), "load, migrate, process");
  EXPECT_EQ(find_builtin_profile("process", runtime)->sparse_x_copies, 4.0);
}

TEST(Profile, BuiltinsHoldTheRuntimesInterpreter) {
  // Measured baselines rounded up to 8 MiB, plus 8 (bench/runtimes/baselines.py).
  const std::pair<const char*, std::uint64_t> interpreters[] = {
      {"anndata-0.8", 96}, {"anndata-0.10", 104}, {"anndata-0.11", 160}, {"anndata-0.12", 152},
      {"anndata-0.12-pandas3", 152}, {"anndata-0.13", 184}};
  for (const auto& [name, mib] : interpreters) {
    const auto runtime = find_runtime(name);
    ASSERT_TRUE(runtime.has_value()) << name;
    EXPECT_EQ(find_builtin_profile("load", *runtime)->overhead_bytes, mib * kMiB) << name;
    // Processing adds its own 2 MiB of working memory.
    EXPECT_EQ(find_builtin_profile("process", *runtime)->overhead_bytes, (mib + 2) * kMiB) << name;
    EXPECT_EQ(find_builtin_profile("migrate", *runtime)->overhead_bytes, (mib + 12) * kMiB) << name;
  }
  EXPECT_FALSE(find_runtime("anndata-0.14").has_value());
  EXPECT_EQ(runtime_names(),
            "anndata-0.8, anndata-0.10, anndata-0.11, anndata-0.12, anndata-0.12-pandas3, anndata-0.13");
}

}  // namespace
}  // namespace h5ad_sizer
