#include "h5ad_sizer/text.hpp"

#include <gtest/gtest.h>

namespace h5ad_sizer {
namespace {

TEST(Printable, KeepsTextAndUtf8) {
  EXPECT_EQ(printable("data/pbmc 3k.h5ad"), "data/pbmc 3k.h5ad");
  EXPECT_EQ(printable("Zürich/细胞/🧬"), "Zürich/细胞/🧬");
  EXPECT_EQ(printable(""), "");
}

TEST(Printable, EscapesControlCharacters) {
  EXPECT_EQ(printable("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(printable("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(printable(std::string_view("nul\0here", 8)), "nul\\x00here");
  EXPECT_EQ(printable("del\x7f"), "del\\x7f");
  EXPECT_EQ(printable("csi\xc2\x9b" "2J"), "csi\\xc2\\x9b2J");  // U+009B, the 8-bit CSI
}

TEST(Printable, EscapesBytesThatAreNotUtf8) {
  EXPECT_EQ(printable("obs/\xff\xfe"), "obs/\\xff\\xfe");
  EXPECT_EQ(printable("latin1 caf\xe9"), "latin1 caf\\xe9");
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("cut \xe2\x82"), "cut \\xe2\\x82");    // truncated sequence
}

TEST(Printable, IsIdempotent) {
  for (const char* text : {"a\nb", "\x1b[0m", "\xff", "plain", "back\\slash"}) {
    EXPECT_EQ(printable(printable(text)), printable(text)) << text;
  }
}

}  // namespace
}  // namespace h5ad_sizer
