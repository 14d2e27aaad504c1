// Every vocab in shared/vocab that has llama.cpp test vectors, loaded through
// load_tokenizer (SentencePiece or BPE by tokenizer.ggml.model), must give the
// expected ids for every case, id for id (the .out files were written by the
// models' own Hugging Face tokenizers), and decode them back to the text.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/vocab_vectors.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;
using test::load_any_tokenizer;
using test::parse_vocab_cases;
using test::parse_vocab_expected;
using test::read_file;

const std::string kVocabDir = std::string(KVCHAT_SHARED_DIR) + "/vocab";

// The vocab files that have .inp/.out vectors.
std::vector<std::string> vocab_files_with_vectors() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(kVocabDir)) {
    const std::string path = entry.path().string();
    if (path.ends_with(".gguf") && fs::exists(path + ".inp") && fs::exists(path + ".out")) {
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class VocabVectors : public testing::TestWithParam<std::string> {};

TEST_P(VocabVectors, EveryCaseMatchesIdForId) {
  const std::string path = kVocabDir + "/ggml-vocab-" + GetParam() + ".gguf";
  const auto cases = parse_vocab_cases(read_file(path + ".inp"));
  const auto expected = parse_vocab_expected(read_file(path + ".out"));
  ASSERT_FALSE(cases.empty());
  ASSERT_EQ(expected.size(), cases.size());
  const auto tok = load_any_tokenizer(path);
  ASSERT_TRUE(tok);
  size_t passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<TokenId> got = tok->encode(cases[i], false);
    EXPECT_EQ(got, expected[i]) << GetParam() << " case " << i << ": \"" << cases[i] << "\"";
    if (got == expected[i]) ++passed;
  }
  std::printf("%s: %zu/%zu cases\n", GetParam().c_str(), passed, cases.size());
  EXPECT_EQ(passed, cases.size());
}

TEST_P(VocabVectors, EveryCaseRoundTrips) {
  const std::string path = kVocabDir + "/ggml-vocab-" + GetParam() + ".gguf";
  const auto tok = load_any_tokenizer(path);
  ASSERT_TRUE(tok);
  for (const std::string& text : parse_vocab_cases(read_file(path + ".inp"))) {
    EXPECT_EQ(tok->decode(tok->encode(text, false)), text) << GetParam();
    EXPECT_EQ(tok->decode(tok->encode(text, tok->add_bos_by_default())), text) << GetParam();
  }
}

std::vector<std::string> vocab_names() {
  std::vector<std::string> names;
  for (const std::string& path : vocab_files_with_vectors()) {
    const std::string file = fs::path(path).filename().string();  // ggml-vocab-NAME.gguf
    names.push_back(file.substr(11, file.size() - 11 - 5));
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(All, VocabVectors, testing::ValuesIn(vocab_names()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// The vocabs the task names must all be there (a missing file must not pass silently).
TEST(VocabVectorsPresent, ExpectedFilesExist) {
  const std::vector<std::string> names = vocab_names();
  for (const char* want : {"gpt-2", "llama-bpe", "mpt", "starcoder", "refact", "deepseek-coder",
                           "llama-spm", "phi-3"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

}  // namespace
}  // namespace kvchat
