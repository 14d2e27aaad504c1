// build_eog_ids (see eog_set.h).
#include "tokenizer/eog_set.h"

#include <algorithm>
#include <string_view>

namespace kvchat {
namespace {

// llama.cpp's list (llama-vocab.cpp, special_eog_ids).
constexpr std::string_view kMarkers[] = {
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<\xEF\xBD\x9C"
    "end\xE2\x96\x81"
    "of\xE2\x96\x81"
    "sentence\xEF\xBD\x9C>",  // <｜end▁of▁sentence｜>
};

// Fill-in-the-middle padding, repository and file-separator tokens: llama.cpp ends
// generation at them too (a code model's document is over).
constexpr std::string_view kFimMarkers[] = {
    "<|fim_pad|>",   "<fim-pad>",  "<fim_pad>", "<PAD>",      "[PAD]",        "<|fim_repo|>",
    "<|repo_name|>", "<fim-repo>", "<REPO>",    "<reponame>", "<|file_sep|>",
};

bool is_fim_end_marker(std::string_view text) {
  return std::find(std::begin(kFimMarkers), std::end(kFimMarkers), text) != std::end(kFimMarkers);
}

}  // namespace

bool is_end_of_turn_marker(std::string_view text) {
  return std::find(std::begin(kMarkers), std::end(kMarkers), text) != std::end(kMarkers);
}

std::vector<TokenId> build_eog_ids(std::span<const std::string> tokens,
                                   std::span<const PieceType> types, TokenId eos, TokenId eot,
                                   TokenId eom) {
  const auto n = static_cast<TokenId>(tokens.size());
  std::vector<TokenId> ids;
  for (const TokenId id : {eos, eot, eom}) {
    if (id >= 0 && id < n) ids.push_back(id);
  }
  TokenId end_id = -1;
  bool has_return = false;
  bool has_call = false;
  for (TokenId id = 0; id < n && static_cast<size_t>(id) < types.size(); ++id) {
    const PieceType t = types[id];
    if (t != PieceType::CONTROL && t != PieceType::USER_DEFINED) continue;
    const std::string& text = tokens[id];
    if (!is_end_of_turn_marker(text) && !is_fim_end_marker(text)) continue;
    ids.push_back(id);
    if (text == "<|end|>") end_id = id;
    if (text == "<|return|>") has_return = true;
    if (text == "<|call|>") has_call = true;
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (has_return && has_call && end_id >= 0 && end_id != eos) {
    ids.erase(std::find(ids.begin(), ids.end(), end_id));
  }
  return ids;
}

}  // namespace kvchat
