// The prompt of one summary step, as separately tokenized parts (see summarize.h):
// prefix = [BOS] instruction "\n\n", then the text, then suffix = "\n\nSummary:".
#pragma once

#include <string>
#include <vector>

#include "kvchat/tokenizer.h"

namespace kvchat::summarize {

struct PromptParts {
  std::vector<TokenId> prefix;  // shared by every step with this instruction
  std::vector<TokenId> suffix;
  std::vector<TokenId> line_break;  // between summaries in a merge
};

PromptParts make_prompt_parts(const Tokenizer& tokenizer, const std::string& instruction);

// prefix + text + suffix.
std::vector<TokenId> join_prompt(const PromptParts& parts, const std::vector<TokenId>& text);

}  // namespace kvchat::summarize
