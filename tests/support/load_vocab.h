// Loading a SentencePiece vocab from a GGUF file, and reading whole files (tests only).
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "gguf/gguf_file.h"
#include "tokenizer/sentencepiece_vocab.h"

namespace kvchat::test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The vocab inside a GGUF file; nullptr (and a test failure) when it does not load.
inline std::unique_ptr<SentencePieceVocab> load_vocab(const std::string& path) {
  auto file = gguf::GgufFile::open(path);
  if (!file.ok()) {
    ADD_FAILURE() << file.message();
    return nullptr;
  }
  auto vocab = SentencePieceVocab::from_gguf(**file);
  if (!vocab.ok()) {
    ADD_FAILURE() << vocab.message();
    return nullptr;
  }
  return std::move(vocab).value();
}

}  // namespace kvchat::test
