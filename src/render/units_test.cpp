#include "h5ad_sizer/render/units.hpp"

#include <gtest/gtest.h>

namespace h5ad_sizer {
namespace {

TEST(HumanBytes, UsesBinaryUnitsAndThreeSignificantDigits) {
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.00 KiB");
  EXPECT_EQ(human_bytes(1536), "1.50 KiB");
  EXPECT_EQ(human_bytes(12u << 20), "12.0 MiB");
  EXPECT_EQ(human_bytes(std::uint64_t{700} << 30), "700 GiB");
  EXPECT_EQ(human_bytes(UINT64_MAX), "16.0 EiB");
}

TEST(Percent, OfZeroIsZero) {
  EXPECT_EQ(percent(1, 8), "12.5%");
  EXPECT_EQ(percent(0, 0), "0.0%");
}

TEST(ShapeText, JoinsWithTimes) {
  EXPECT_EQ(shape_text({700, 765}), "700 x 765");
  EXPECT_EQ(shape_text({}), "");
}

}  // namespace
}  // namespace h5ad_sizer
