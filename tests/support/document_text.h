// Texts and checks shared by the document and summarize tests: the demo model's
// tokenizer, multi-byte texts, files, and the properties every chunking must have.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "document/text_breaks.h"
#include "kvchat/document.h"
#include "kvchat/model.h"
#include "support/load_vocab.h"
#include "support/test_paths.h"
#include "tokenizer/utf8.h"

namespace kvchat::test {

inline std::shared_ptr<const Model> demo_model() {
  static std::shared_ptr<const Model> model = [] {
    auto m = Model::load(shared_path("models/kjv-demo-f16.gguf"));
    EXPECT_TRUE(m) << m.message();
    return m ? *m : nullptr;
  }();
  return model;
}

// tests/data/kjv-revelation-21-22.txt (about 1,700 tokens), `copies` times.
inline std::string revelation(int copies = 1) {
  const std::string one =
      read_file(std::string(KVCHAT_SOURCE_DIR) + "/tests/data/kjv-revelation-21-22.txt");
  std::string s;
  for (int i = 0; i < copies; ++i) s += one;
  return s;
}

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

inline bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8::valid_char_length(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

// Every chunk: whole UTF-8 characters, at most `max` tokens (as counted alone) unless it
// is a single character, its ranges following the previous one; together exactly `text`.
// A cut that is not at a paragraph or sentence end has no sentence end before it in the
// chunk, and none after it that would still have fit the budget.
inline void expect_valid_chunks(const Tokenizer& tok, const std::string& text,
                                const std::vector<TextChunk>& chunks, int32_t max) {
  std::string joined;
  uint64_t byte = 0;
  int64_t token = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const TextChunk& c = chunks[i];
    SCOPED_TRACE("chunk " + std::to_string(i) + " of " + std::to_string(chunks.size()));
    ASSERT_FALSE(c.text.empty());
    EXPECT_TRUE(is_valid_utf8(c.text));
    EXPECT_EQ(c.byte_begin, byte);
    EXPECT_EQ(c.byte_end, byte + c.text.size());
    EXPECT_EQ(c.token_begin, token);
    EXPECT_EQ(c.n_tokens(), static_cast<int32_t>(tok.encode(c.text, false).size()));
    if (c.n_tokens() > max) {  // allowed only for a single character over the budget
      EXPECT_EQ(utf8::valid_char_length(c.text), c.text.size()) << c.n_tokens() << " tokens";
    }
    const bool last = i + 1 == chunks.size();
    using document::BreakKind;
    if (!last && !document::is_break(c.text, c.text.size(), BreakKind::Paragraph) &&
        !document::is_break(c.text, c.text.size(), BreakKind::Sentence)) {
      // A sentence end inside the chunk would have fit: the cut should have been there.
      EXPECT_EQ(document::last_break(c.text, 1, c.text.size() - 1, BreakKind::Sentence), 0u)
          << "cut inside a sentence although an earlier sentence end fits";
      const std::string_view from(text.data() + c.byte_begin, text.size() - c.byte_begin);
      // No token is longer than 64 bytes: a sentence end further on cannot fit.
      const size_t reach = c.text.size() + 64 * static_cast<size_t>(max);
      if (const size_t p =
              document::first_break(from, c.text.size() + 1, reach, BreakKind::Sentence)) {
        EXPECT_GT(static_cast<int32_t>(tok.encode(from.substr(0, p), false).size()), max)
            << "cut inside a sentence although the sentence end at +" << p << " fits";
      }
    }
    joined += c.text;
    byte = c.byte_end;
    token = c.token_end;
  }
  EXPECT_TRUE(joined == text) << "the chunks do not add up to the text";
}

}  // namespace kvchat::test
