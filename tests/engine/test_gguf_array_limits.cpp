// How the GGUF reader refuses a huge metadata array (issue 24 point 10): by its true
// reason. A count the remaining bytes cannot hold (each string takes at least its 8-byte
// length) says so; a count that fits but passes kvchat's cap on items per array (which
// bounds what a parse allocates) names that cap, not the bytes. A real-size vocabulary
// parses. The files are built byte by byte in memory (fast: no tokenizer, no disk).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"

namespace kvchat {
namespace {

using gguf::GgufFile;

template <class T>
void put(std::vector<uint8_t>& b, T v) {
  const size_t at = b.size();
  b.resize(at + sizeof(T));
  std::memcpy(b.data() + at, &v, sizeof(T));  // GGUF is little-endian, as is x86/ARM
}

void put_string(std::vector<uint8_t>& b, const std::string& s) {
  put<uint64_t>(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

// A GGUF v3 file without tensors whose one key is tokenizer.ggml.tokens, an array of
// `count` strings declared; the strings that follow are up to the caller.
std::vector<uint8_t> tokens_header(uint64_t count) {
  std::vector<uint8_t> b;
  put<uint32_t>(b, 0x46554747u);  // "GGUF"
  put<uint32_t>(b, 3);
  put<uint64_t>(b, 0);  // tensors
  put<uint64_t>(b, 1);  // metadata keys
  put_string(b, "tokenizer.ggml.tokens");
  put<uint32_t>(b, 9);  // ARRAY
  put<uint32_t>(b, 8);  // of STRING
  put<uint64_t>(b, count);
  return b;
}

TEST(GgufArrayLimits, TenMillionTokensThatFitAreRefusedByTheItemLimit) {
  constexpr uint64_t kCount = 10'000'000;
  std::vector<uint8_t> b = tokens_header(kCount);
  b.resize(b.size() + kCount * 8, 0);  // ten million empty strings: the array is whole
  auto f = GgufFile::parse(b, "ten-million.gguf");
  ASSERT_FALSE(f);
  const std::string& m = f.message();
  EXPECT_NE(
      m.find("ten-million.gguf: key 'tokenizer.ggml.tokens': array declares 10000000 string items, "
             "more than kvchat's limit of 4194304 items per array"),
      std::string::npos)
      << m;
  EXPECT_EQ(m.find("remaining bytes"), std::string::npos) << "a false reason: " << m;
}

TEST(GgufArrayLimits, ACountTheRemainingBytesCannotHoldSaysSo) {
  std::vector<uint8_t> b = tokens_header(10'000'000);
  b.resize(b.size() + 1000, 0);
  auto f = GgufFile::parse(b, "short.gguf");
  ASSERT_FALSE(f);
  EXPECT_NE(
      f.message().find(
          "array declares 10000000 string items, more than the 1000 remaining bytes can hold"),
      std::string::npos)
      << f.message();
  // One item more than the bytes hold, under the item limit: still the bytes.
  b = tokens_header(126);
  b.resize(b.size() + 125 * 8, 0);
  f = GgufFile::parse(b, "one-short.gguf");
  ASSERT_FALSE(f);
  EXPECT_NE(f.message().find(
                "array declares 126 string items, more than the 1000 remaining bytes can hold"),
            std::string::npos)
      << f.message();
  b = tokens_header(125);
  b.resize(b.size() + 125 * 8, 0);
  EXPECT_TRUE(GgufFile::parse(b, "exact.gguf"));
}

TEST(GgufArrayLimits, ARealSizeVocabularyParses) {
  constexpr uint64_t kCount = 300'000;  // above the largest real vocabularies (~262k)
  std::vector<uint8_t> b = tokens_header(kCount);
  for (uint64_t k = 0; k < kCount; ++k) put_string(b, "t" + std::to_string(k));
  auto f = GgufFile::parse(b, "vocab.gguf");
  ASSERT_TRUE(f) << f.message();
  const gguf::Value* v = (*f)->find("tokenizer.ggml.tokens");
  ASSERT_NE(v, nullptr);
  ASSERT_NE(v->as_array(), nullptr);
  ASSERT_EQ(v->as_array()->size(), kCount);
  EXPECT_EQ(v->as_array()->back().s, "t299999");
}

}  // namespace
}  // namespace kvchat
