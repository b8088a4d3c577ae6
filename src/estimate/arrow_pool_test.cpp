#include "h5ad_sizer/estimate/arrow_pool.hpp"

#include <gtest/gtest.h>

#include "h5ad_sizer/checked.hpp"
#include "h5ad_sizer/estimate/read_costs.hpp"

namespace h5ad_sizer {
namespace {

TEST(ArrowPool, ABuildOfTheSameBuffersReusesWhatTheLastLeft) {
  ArrowPool pool;
  EXPECT_EQ(pool.beside(20 * kMiB, 16 * kMiB), 0u);
  pool.add(20 * kMiB, 16 * kMiB);
  EXPECT_EQ(pool.beside(20 * kMiB, 16 * kMiB), 0u);
  EXPECT_EQ(pool.beside(12 * kMiB, 8 * kMiB), 8 * kMiB);  // a smaller build takes part of them
  // A read that builds nothing stands beside all of it.
  EXPECT_EQ(pool.beside(0, 0), 20 * kMiB);
}

TEST(ArrowPool, ABuildOfLargerBuffersStandsBesideThem) {
  ArrowPool pool;
  pool.add(20 * kMiB, 16 * kMiB);
  EXPECT_EQ(pool.beside(36 * kMiB, 32 * kMiB), 20 * kMiB);
  pool.add(36 * kMiB, 32 * kMiB);
  EXPECT_EQ(pool.beside(0, 0), 56 * kMiB);
  // The next 16 MiB build can reuse either: the pool does not grow.
  EXPECT_EQ(pool.beside(20 * kMiB, 16 * kMiB), 36 * kMiB);
  pool.add(20 * kMiB, 16 * kMiB);
  EXPECT_EQ(pool.beside(0, 0), 56 * kMiB);
}

TEST(ArrowPool, BuildsOfUnknownBuffersAreHeldAsAfterAnyRead) {
  ArrowPool pool;
  pool.add(10 * kMiB, 0);
  EXPECT_EQ(pool.beside(0, 0), read_costs::held_after(10 * kMiB));
  EXPECT_EQ(pool.beside(10 * kMiB, 16 * kMiB), read_costs::held_after(10 * kMiB));
}

}  // namespace
}  // namespace h5ad_sizer
