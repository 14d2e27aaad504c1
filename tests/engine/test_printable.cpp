// printable(): what the CLI prints of a string from a file or a peer.
#include "util/printable.h"

#include <gtest/gtest.h>

#include <string>

namespace kvchat {
namespace {

TEST(Printable, PlainAndMultilingualTextPassesUnchanged) {
  EXPECT_EQ(printable("TinyLlama 1.1B Chat"), "TinyLlama 1.1B Chat");
  EXPECT_EQ(printable("\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xF0\x9F\x99\x82"),
            "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4 \xF0\x9F\x99\x82");  // 한국어 🙂
}

TEST(Printable, ControlCharactersAreEscaped) {
  // A terminal title change (OSC), a colour and a bell: nothing reaches the terminal raw.
  EXPECT_EQ(printable("a\x1b]0;pwned\x07z"), "a\\e]0;pwned\\x07z");
  EXPECT_EQ(printable("x\x1b[31mred"), "x\\e[31mred");
  EXPECT_EQ(printable("line1\nline2\ttab\rcr"), "line1\\nline2\\ttab\\rcr");
  EXPECT_EQ(printable(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7F");
  EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
  EXPECT_EQ(printable("\xC2\x9B"
                      "31m"),
            "\\u{9B}31m");  // C1 CSI
}

TEST(Printable, InvalidUtf8IsShownAsBytes) {
  EXPECT_EQ(printable("a\xFF\xC3"), "a\\xFF\\xC3");
  EXPECT_EQ(printable("\xC0\xAF"), "\\xC0\\xAF");           // overlong '/'
  EXPECT_EQ(printable("\xED\xA0\x80"), "\\xED\\xA0\\x80");  // a surrogate
}

TEST(Printable, LongValuesAreCutAtACharacterBoundaryWithTheirSize) {
  const std::string name(60'000'000, 'n');
  const std::string shown = printable(name);
  EXPECT_EQ(shown, std::string(kPrintableMaxBytes, 'n') + "\xE2\x80\xA6 (60000000 bytes)");
  // 3-byte characters: 10 fit in 31 bytes, the 11th is not split.
  std::string korean;
  for (int i = 0; i < 20; ++i) korean += "\xED\x95\x9C";
  EXPECT_EQ(printable(korean, 31).size(), 30u + std::string("\xE2\x80\xA6 (60 bytes)").size());
  // An escape is never split either.
  EXPECT_EQ(printable("ab\x1b", 3), "ab\xE2\x80\xA6 (3 bytes)");
  EXPECT_EQ(printable("abc", 3), "abc");
}

}  // namespace
}  // namespace kvchat

TEST(Printable, CountsHaveTheirThousandsApart) {
  EXPECT_EQ(kvchat::with_commas(0), "0");
  EXPECT_EQ(kvchat::with_commas(999), "999");
  EXPECT_EQ(kvchat::with_commas(1000), "1,000");
  EXPECT_EQ(kvchat::with_commas(21344), "21,344");
  EXPECT_EQ(kvchat::with_commas(1234567), "1,234,567");
  EXPECT_EQ(kvchat::with_commas(-1234), "-1,234");
  EXPECT_EQ(kvchat::with_commas(-123), "-123");
}
