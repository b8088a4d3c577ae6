#include "h5ad_sizer/estimate/python_costs.hpp"

#include <gtest/gtest.h>

namespace h5ad_sizer::python {
namespace {

// sys.getsizeof on Debian bookworm's CPython 3.11, rounded up to pymalloc's
// 16-byte size classes (objects over 512 bytes: malloc, +16 then rounded).
TEST(StrObjectBytes, MatchesCPython311) {
  EXPECT_EQ(str_object_bytes(""), 64u);                    // getsizeof 49
  EXPECT_EQ(str_object_bytes("AAACCTGAGAAACCAT-1"), 80u);  // 67: a 10x barcode
  EXPECT_EQ(str_object_bytes("Z\xC3\xBCrich"), 80u);       // "Zürich", Latin-1: 79
  EXPECT_EQ(str_object_bytes("\xCE\x91\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1"), 96u);  // "Αθήνα", UCS-2: 84
  EXPECT_EQ(str_object_bytes("\xF0\x9F\x98\x80"), 80u);    // one emoji, UCS-4: 80
  EXPECT_EQ(str_object_bytes(std::string(600, 'x')), 672u);  // 649 + 16 -> 672
}

// The same strings under CPython 3.13 (bench/runtimes' 3.13.5), whose str
// objects dropped the wstr fields.
TEST(StrObjectBytes, MatchesCPython313) {
  EXPECT_EQ(str_object_bytes("", kCPython313), 48u);                    // getsizeof 41
  EXPECT_EQ(str_object_bytes("AAACCTGAGAAACCAT-1", kCPython313), 64u);  // 59
  EXPECT_EQ(str_object_bytes("Z\xC3\xBCrich", kCPython313), 64u);       // 63
  EXPECT_EQ(str_object_bytes("\xCE\x91\xCE\xB8\xCE\xAE\xCE\xBD\xCE\xB1", kCPython313), 80u);  // 68
  EXPECT_EQ(ascii_str_object_bytes(18, kCPython313), 64u);
  for (const std::string& text : {std::string("plain ascii"), std::string("Z\xC3\xBCrich"), std::string(5000, 'y')}) {
    EXPECT_GE(str_object_bytes_bound(text.size(), kCPython313), str_object_bytes(text, kCPython313));
  }
}

TEST(StrObjectBytes, BoundIsNeverBelowTheExactCost) {
  for (const std::string& text : {std::string("plain ascii"), std::string("Z\xC3\xBCrich"),
                                 std::string("\xCE\x91\xCE\xB8"), std::string("\xF0\x9F\x98\x80"),
                                 std::string(5000, 'y')}) {
    EXPECT_GE(str_object_bytes_bound(text.size()), str_object_bytes(text)) << text.size();
  }
}

TEST(StringArrayBytes, IsPointerPlusMeanObjectTimesCount) {
  h5::StringSample sample;
  sample.texts = {"AAACCTGAGAAACCAT-1", "AAACCTGAGAAACCAT-2"};  // 80 each
  EXPECT_EQ(string_array_bytes(1000, sample), 1000u * (8 + 80));
  EXPECT_EQ(string_array_bytes(0, sample), 0u);
  sample.texts = {"a", "AAACCTGAGAAACCAT-1"};  // 64 and 80: mean 72
  EXPECT_EQ(string_array_bytes(10, sample), 10u * (8 + 72));
}

TEST(StringArrayBytes, CountsOversizedStringsByTheirBound) {
  h5::StringSample sample;
  sample.oversized_lengths = {10u << 20};
  EXPECT_EQ(string_array_bytes(2, sample), 2 * (8 + str_object_bytes_bound(10u << 20)));
}

TEST(UnicodeArrayBytes, IsFourBytesPerCharacter) {
  EXPECT_EQ(unicode_array_bytes(100, 200), 80000u);
}

TEST(CategoricalCodes, FollowPandasCoercion) {
  EXPECT_EQ(categorical_code_itemsize(0), 1u);
  EXPECT_EQ(categorical_code_itemsize(126), 1u);
  EXPECT_EQ(categorical_code_itemsize(127), 2u);
  EXPECT_EQ(categorical_code_itemsize(32766), 2u);
  EXPECT_EQ(categorical_code_itemsize(32767), 4u);
  EXPECT_EQ(categorical_code_itemsize(3000000000u), 8u);
}

TEST(HashTableBytes, IsPowerOfTwoBucketsAtMost77PercentFull) {
  EXPECT_EQ(hash_table_bytes(0), 0u);
  EXPECT_EQ(hash_table_bytes(3), 64u);  // 4 buckets
  // 1 M names: 2^21 buckets = 32 MiB, the 33.8 MB measured for pandas.
  EXPECT_EQ(hash_table_bytes(1000000), (1u << 21) * 16u);
}

}  // namespace
}  // namespace h5ad_sizer::python
