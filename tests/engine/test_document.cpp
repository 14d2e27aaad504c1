// Documents: encodings read from a file's first block (BOM, UTF-8, Latin-1 with a
// notice), refusals (binary, PDF, empty, missing), block boundaries that split a
// character or a \r\n, files deleted / truncated / replaced while read, and the Chunker:
// never inside a UTF-8 sequence, never inside a sentence when a sentence end fits, every
// chunk within the budget, the chunks adding up to the text, streaming == one shot.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include "support/document_text.h"

namespace kvchat {
namespace {

using test::TempDir;
using test::write_file;
constexpr size_t kBlock = DocumentReader::kReadBlockBytes;

const Tokenizer& tokenizer() { return test::demo_model()->tokenizer(); }

// The whole text of a reader, or the error.
Result<std::string> read_all(DocumentReader& r) {
  std::string text;
  while (true) {
    auto more = r.next(text);
    if (!more) return more.error();
    if (!*more) return text;
  }
}

Result<std::string> read_path(const std::string& path, TextEncoding* enc = nullptr) {
  return read_document_text(path, enc);
}

std::string utf16(std::u16string_view s, bool le) {
  std::string out = le ? "\xFF\xFE" : "\xFE\xFF";
  for (const char16_t u : s) {
    const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xFF);
    out += le ? std::string{lo, hi} : std::string{hi, lo};
  }
  return out;
}

std::vector<TextChunk> chunk_all(const std::string& text, int32_t max) {
  Chunker c(tokenizer(), max);
  std::vector<TextChunk> out = c.feed(text);
  for (TextChunk& t : c.finish()) out.push_back(std::move(t));
  return out;
}

// Greek, CJK and emoji with no spaces or sentence ends at all, then mixed with them.
std::string multibyte_text() {
  std::string s;
  for (int i = 0; i < 300; ++i) s += "αβγδεζηθικλμνξοπρστυφχψω";
  for (int i = 0; i < 300; ++i) s += "漢字仮名交じり文中文日本語";
  for (int i = 0; i < 200; ++i) s += "😀🎉👍🏽🚀";
  for (int i = 0; i < 100; ++i) s += "Ἐν ἀρχῇ ἦν ὁ λόγος. 太初有道。 🎉 And God said! ";
  return s;
}

// ---- DocumentReader --------------------------------------------------------------

TEST(DocumentReader, Utf8BomIsSkippedAndLineEndsBecomeNewlines) {
  TempDir dir;
  write_file(dir.file("a.txt"), "\xEF\xBB\xBFline one\r\nline two\rline three\n\xC3\xA9");
  TextEncoding enc;
  auto text = read_path(dir.file("a.txt"), &enc);
  ASSERT_TRUE(text) << text.message();
  EXPECT_EQ(*text, "line one\nline two\nline three\n\xC3\xA9");
  EXPECT_EQ(enc.name, "utf-8");
  EXPECT_EQ(enc.notice, "");
}

TEST(DocumentReader, Utf16WithBomBothByteOrders) {
  const std::u16string s = u"Hello, κόσμε\r\n漢字 \U0001F600!";
  for (const bool le : {true, false}) {
    auto r = DocumentReader::from_bytes(utf16(s, le), "u16.txt");
    ASSERT_TRUE(r) << r.message();
    EXPECT_EQ((*r)->encoding().name, le ? "utf-16le" : "utf-16be");
    auto text = read_all(**r);
    ASSERT_TRUE(text) << text.message();
    EXPECT_EQ(*text, "Hello, κόσμε\n漢字 😀!");
    EXPECT_EQ((*r)->encoding().notice, "");
  }
}

TEST(DocumentReader, InvalidUtf8IsReadAsLatin1WithANotice) {
  TempDir dir;
  write_file(dir.file("l1.txt"),
             "caf\xE9 cr\xE8"
             "me br\xFB"
             "l\xE9"
             "e\n");
  TextEncoding enc;
  auto text = read_path(dir.file("l1.txt"), &enc);
  ASSERT_TRUE(text) << text.message();
  EXPECT_EQ(*text, "café crème brûlée\n");
  EXPECT_EQ(enc.name, "latin-1");
  EXPECT_NE(enc.notice.find("not valid UTF-8"), std::string::npos) << enc.notice;
}

TEST(DocumentReader, RefusesBinaryPdfEmptyMissingAndDirectories) {
  TempDir dir;
  write_file(dir.file("nul.bin"), std::string("text\0more", 9));
  std::string controls(1000, 'a');
  for (size_t i = 0; i < controls.size(); i += 5) controls[i] = '\x01';
  write_file(dir.file("ctl.bin"), controls);
  write_file(dir.file("doc.pdf"), "%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj");
  write_file(dir.file("empty.txt"), "");
  write_file(dir.file("bom.txt"), "\xEF\xBB\xBF");
  const std::pair<std::string, std::string> cases[] = {
      {"nul.bin", "binary"},  {"ctl.bin", "binary"},     {"doc.pdf", "pdftotext"},
      {"empty.txt", "empty"}, {"bom.txt", "byte-order"}, {"missing.txt", "cannot open"},
      {".", "directory"},
  };
  for (const auto& [name, why] : cases) {
    auto r = DocumentReader::open(dir.file(name));
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.message().find(dir.file(name)), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(why), std::string::npos) << r.message();
  }
  EXPECT_FALSE(DocumentReader::from_bytes("", "pasted"));
}

TEST(DocumentReader, CharactersAndLineEndsSplitByBlockBoundariesSurvive) {
  TempDir dir;
  // A 3-byte character straddling the first boundary, a \r\n straddling the second.
  std::string s(kBlock - 1, 'a');
  s += "€";
  s += std::string(kBlock - s.size() % kBlock - 1 + kBlock, 'b');
  s += "\r\nend";
  ASSERT_EQ((s.find("\r\n") + 1) % kBlock, 0u);
  write_file(dir.file("big.txt"), s);
  auto r = DocumentReader::open(dir.file("big.txt"));
  ASSERT_TRUE(r) << r.message();
  std::string text;
  int pieces = 0;
  while (true) {
    const size_t before = text.size();
    auto more = (*r)->next(text);
    ASSERT_TRUE(more) << more.message();
    if (!*more) break;
    EXPECT_TRUE(test::is_valid_utf8(std::string_view(text).substr(before))) << "piece " << pieces;
    EXPECT_LE((*r)->bytes_read(), (*r)->size_bytes());
    ++pieces;
  }
  EXPECT_EQ(pieces, 4);  // three whole blocks and the 4 bytes after
  std::string want = s;
  want.replace(want.find("\r\n"), 2, "\n");
  EXPECT_TRUE(text == want);
  EXPECT_EQ((*r)->encoding().notice, "");

  // Rewinding reads the same text again.
  ASSERT_TRUE((*r)->rewind());
  auto again = read_all(**r);
  ASSERT_TRUE(again) << again.message();
  EXPECT_TRUE(*again == want);
}

TEST(DocumentReader, Utf16SurrogatePairSplitByABlockBoundary) {
  std::u16string s(kBlock / 2 - 2, u'x');  // BOM + these = one block minus 2 bytes
  s += u"\U0001F600 end";
  auto r = DocumentReader::from_bytes(utf16(s, true), "pair.txt");
  ASSERT_TRUE(r) << r.message();
  auto text = read_all(**r);
  ASSERT_TRUE(text) << text.message();
  EXPECT_TRUE(text->ends_with("x😀 end"));
  EXPECT_EQ(text->size(), kBlock / 2 - 2 + std::string("😀 end").size());
  EXPECT_EQ((*r)->encoding().notice, "");
}

TEST(DocumentReader, InvalidUtf8AfterTheFirstBlockIsReplacedWithANotice) {
  std::string s(kBlock + 10, 'a');
  s[kBlock + 5] = '\xFF';
  auto r = DocumentReader::from_bytes(s, "late.txt");
  ASSERT_TRUE(r) << r.message();
  auto text = read_all(**r);
  ASSERT_TRUE(text) << text.message();
  EXPECT_EQ((*r)->encoding().name, "utf-8");
  EXPECT_NE(text->find("\xEF\xBF\xBD"), std::string::npos);
  EXPECT_NE((*r)->encoding().notice.find("byte " + std::to_string(kBlock + 5)), std::string::npos)
      << (*r)->encoding().notice;
}

// A reader opened on a 3-block file, one block read, then `change` applied to the file.
void expect_error_after(const std::function<void(const std::string&)>& change,
                        const std::string& why) {
  TempDir dir;
  const std::string path = dir.file("doc.txt");
  write_file(path, std::string(3 * kBlock, 'w'));
  auto r = DocumentReader::open(path);
  ASSERT_TRUE(r) << r.message();
  std::string text;
  auto first = (*r)->next(text);
  ASSERT_TRUE(first && *first);
  change(path);
  auto rest = read_all(**r);
  ASSERT_FALSE(rest) << "read on after: " << why;
  EXPECT_NE(rest.message().find(path), std::string::npos) << rest.message();
  EXPECT_NE(rest.message().find(why), std::string::npos) << rest.message();
}

TEST(DocumentReader, FileDeletedTruncatedOrReplacedWhileReadIsAnError) {
  expect_error_after([](const std::string& p) { std::filesystem::remove(p); }, "deleted");
  expect_error_after([](const std::string& p) { std::filesystem::resize_file(p, 100); }, "shrank");
  expect_error_after(
      [](const std::string& p) {
        write_file(p + ".new", std::string(3 * kBlock, 'n'));
        std::filesystem::rename(p + ".new", p);
      },
      "replaced");
}

TEST(DocumentReader, SmallFileDeletedAfterOpeningIsAnError) {
  TempDir dir;
  write_file(dir.file("s.txt"), "short");
  auto r = DocumentReader::open(dir.file("s.txt"));
  ASSERT_TRUE(r) << r.message();
  std::filesystem::remove(dir.file("s.txt"));
  auto text = read_all(**r);
  ASSERT_FALSE(text);
  EXPECT_NE(text.message().find("deleted"), std::string::npos) << text.message();
}

// ---- Chunker -----------------------------------------------------------------------

TEST(Chunker, MultiByteTextWithoutSpacesIsNeverCutInsideACharacter) {
  const std::string text = multibyte_text();
  for (const int32_t max : {1, 3, 7, 16, 50, 200}) {
    SCOPED_TRACE("budget " + std::to_string(max));
    const auto chunks = chunk_all(text, max);
    ASSERT_GT(chunks.size(), 1u);
    test::expect_valid_chunks(tokenizer(), text, chunks, max);
  }
}

TEST(Chunker, CutsAtSentenceEndsWhenOneFitsAndAtParagraphsFirst) {
  const std::string text = test::revelation(2);
  for (const int32_t max : {20, 60, 150, 380}) {
    SCOPED_TRACE("budget " + std::to_string(max));
    const auto chunks = chunk_all(text, max);
    test::expect_valid_chunks(tokenizer(), text, chunks, max);
  }
  // Paragraphs of ~100 tokens and a budget of 250: every cut is at a blank line.
  std::string paras;
  for (int i = 0; i < 30; ++i) {
    paras +=
        "Paragraph " + std::to_string(i) +
        ". And the city had no need of the sun, neither of the "
        "moon, to shine in it. For the glory of God did lighten it! Is the Lamb the light thereof? "
        "And the nations of them which are saved shall walk in the light of it.\n\n";
  }
  const auto chunks = chunk_all(paras, 250);
  test::expect_valid_chunks(tokenizer(), paras, chunks, 250);
  for (size_t i = 0; i + 1 < chunks.size(); ++i) EXPECT_TRUE(chunks[i].text.ends_with("\n\n")) << i;
}

TEST(Chunker, StreamingInRandomPiecesEqualsOneShot) {
  const std::string text = test::revelation(2) + multibyte_text();
  const auto whole = chunk_all(text, 64);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 3; ++trial) {
    Chunker c(tokenizer(), 64);
    std::vector<TextChunk> got;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t n = std::uniform_int_distribution<size_t>(1, trial == 0 ? 8 : 3000)(rng);
      n = std::min(n, text.size() - pos);
      while (pos + n < text.size() && (static_cast<uint8_t>(text[pos + n]) & 0xC0) == 0x80) ++n;
      for (TextChunk& t : c.feed(std::string_view(text).substr(pos, n)))
        got.push_back(std::move(t));
      pos += n;
    }
    for (TextChunk& t : c.finish()) got.push_back(std::move(t));
    ASSERT_EQ(got.size(), whole.size()) << "trial " << trial;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_TRUE(got[i].text == whole[i].text) << "trial " << trial << " chunk " << i;
      EXPECT_EQ(got[i].token_end, whole[i].token_end);
    }
  }
}

TEST(Chunker, ShortTextIsOneChunkAndNothingIsLost) {
  const auto one = chunk_all("In the beginning.", 100);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].text, "In the beginning.");
  EXPECT_TRUE(chunk_all("", 100).empty());
}

}  // namespace
}  // namespace kvchat
