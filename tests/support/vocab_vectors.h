// llama.cpp's tokenizer test vectors (shared/vocab/ggml-vocab-*.gguf.inp/.out)
// and loading any vocab GGUF through load_tokenizer (tests only).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "support/load_vocab.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat::test {

// Every case of a .inp file is followed by "\n__ggml_vocab_test__\n"; the newline
// before that line ends the case and is not part of it (an empty case is an empty line).
inline std::vector<std::string> parse_vocab_cases(const std::string& inp) {
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> cases;
  size_t pos = 0;
  while (pos < inp.size()) {
    const size_t hit = inp.find(sep, pos);
    if (hit == std::string::npos) break;
    cases.push_back(inp.substr(pos, hit - pos));
    pos = hit + sep.size();
  }
  EXPECT_EQ(pos, inp.size()) << "trailing text after the last separator";
  return cases;
}

// One line of space-separated ids per case (what test-tokenizer-0 checks:
// tokenize(text, add_special = false, parse_special = false), so no BOS).
inline std::vector<std::vector<TokenId>> parse_vocab_expected(const std::string& out) {
  std::vector<std::vector<TokenId>> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<TokenId> ids;
    std::istringstream fields(line);
    TokenId id;
    while (fields >> id) ids.push_back(id);
    lines.push_back(ids);
  }
  return lines;
}

// The tokenizer of a GGUF file; nullptr (and a test failure) when it does not load.
inline std::unique_ptr<Tokenizer> load_any_tokenizer(const std::string& path) {
  auto file = gguf::GgufFile::open(path);
  if (!file.ok()) {
    ADD_FAILURE() << file.message();
    return nullptr;
  }
  auto tok = load_tokenizer(**file);
  if (!tok.ok()) {
    ADD_FAILURE() << tok.message();
    return nullptr;
  }
  return std::move(tok).value();
}

}  // namespace kvchat::test
