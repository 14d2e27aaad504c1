// TextStream: what a streaming reply may show at each step.
#include <gtest/gtest.h>

#include "session/text_stream.h"

namespace kvchat {
namespace {

TEST(TextStream, HoldsBackIncompleteUtf8) {
  TextStream s({});
  // "é" = C3 A9, "🦙" = F0 9F A6 99 arriving byte by byte (byte-fallback tokens).
  EXPECT_EQ(s.push("caf"), "caf");
  EXPECT_EQ(s.push("\xC3"), "");
  EXPECT_EQ(s.push("\xA9"), "\xC3\xA9");
  EXPECT_EQ(s.push(" \xF0\x9F"), " ");
  EXPECT_EQ(s.push("\xA6"), "");
  EXPECT_EQ(s.push("\x99!"), "\xF0\x9F\xA6\x99!");
  EXPECT_EQ(s.text(), "caf\xC3\xA9 \xF0\x9F\xA6\x99!");
}

TEST(TextStream, DropsATruncatedCharacterAtTheEnd) {
  TextStream s({});
  EXPECT_EQ(s.push("ab\xE2\x96"), "ab");
  EXPECT_EQ(s.finish(), "");
  EXPECT_EQ(s.text(), "ab");
}

TEST(TextStream, StopStringSplitAcrossPiecesIsNeverShown) {
  TextStream s({"\nUser:"});
  EXPECT_EQ(s.push("Hello"), "Hello");
  EXPECT_EQ(s.push("!\nUs"), "!");  // "\nUs" could start the stop string
  EXPECT_FALSE(s.stopped());
  EXPECT_EQ(s.push("er: more"), "");
  EXPECT_TRUE(s.stopped());
  EXPECT_EQ(s.text(), "Hello!");
  EXPECT_EQ(s.push("ignored"), "");
}

TEST(TextStream, HeldBackPrefixIsReleasedWhenItDoesNotComplete) {
  TextStream s({"STOP"});
  EXPECT_EQ(s.push("ST"), "");
  EXPECT_EQ(s.push("AR"), "STAR");
  EXPECT_EQ(s.push("ST"), "");
  EXPECT_EQ(s.finish(), "ST");
  EXPECT_EQ(s.text(), "STARST");
}

TEST(TextStream, EarliestOfSeveralStopStringsWins) {
  TextStream s({"bb", "a"});
  EXPECT_EQ(s.push("xxbbya"), "xx");
  EXPECT_EQ(s.text(), "xx");
}

}  // namespace
}  // namespace kvchat
