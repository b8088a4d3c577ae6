#include "cli/progress_line.hpp"

#include <gtest/gtest.h>

namespace h5ad_sizer::cli {
namespace {

TEST(ProgressText, BarCountFailuresRateAndWhatIsLeft) {
  EXPECT_EQ(progress_text(450, 1000, 3, 30, 20), "[#########...........]  450/1000  3 failed  15.0/s  about 37 s left");
  EXPECT_EQ(progress_text(0, 1000, 0, 0, 10), "[..........]  0/1000");
  EXPECT_EQ(progress_text(1000, 1000, 0, 10, 10), "[##########]  1000/1000  100.0/s");
  // Without a bar, as a log line; minutes and hours for long waits.
  EXPECT_EQ(progress_text(10, 1000, 0, 10, 0), "10/1000  1.0/s  about 17 min left");
  EXPECT_EQ(progress_text(1, 10000, 0, 10, 0), "1/10000  0.1/s  about 28 h left");
}

}  // namespace
}  // namespace h5ad_sizer::cli
