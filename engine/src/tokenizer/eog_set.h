// The tokens that end generation, for every vocab kind, as llama.cpp decides
// them: the eos token, the tokenizer.ggml.eot_token_id and eom_token_id tokens,
// and every CONTROL or USER_DEFINED token whose text is a known end-of-turn
// marker (<|eot_id|>, <|im_end|>, <|end|>, <end_of_turn>, <|endoftext|>, ...) or
// a fill-in-the-middle pad/repository/file-separator token (<|fim_pad|>, <|file_sep|>, ...).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "kvchat/tokenizer.h"
#include "tokenizer/token_type.h"

namespace kvchat {

// True when `text` is one of the end-of-turn marker texts.
bool is_end_of_turn_marker(std::string_view text);

// The sorted, distinct end-of-generation ids. eos, eot and eom are -1 when absent;
// ids out of range are ignored. As llama.cpp: when the vocab has both <|return|>
// and <|call|> (gpt-oss), <|end|> ends a message, not the generation, and is left out.
std::vector<TokenId> build_eog_ids(std::span<const std::string> tokens,
                                   std::span<const PieceType> types, TokenId eos, TokenId eot,
                                   TokenId eom);

}  // namespace kvchat
