// Summary prompts (see summary_prompt.h) and summary_prompt_overhead.
#include "summarize/summary_prompt.h"

#include <algorithm>

#include "kvchat/summarize.h"

namespace kvchat {
namespace summarize {

PromptParts make_prompt_parts(const Tokenizer& tokenizer, const std::string& instruction) {
  PromptParts p;
  p.prefix = tokenizer.encode(instruction + "\n\n", tokenizer.add_bos_by_default());
  p.suffix = tokenizer.encode_continuation("\n\nSummary:");
  p.line_break = tokenizer.encode_continuation("\n");
  return p;
}

std::vector<TokenId> join_prompt(const PromptParts& parts, const std::vector<TokenId>& text) {
  std::vector<TokenId> ids;
  ids.reserve(parts.prefix.size() + text.size() + parts.suffix.size());
  ids.insert(ids.end(), parts.prefix.begin(), parts.prefix.end());
  ids.insert(ids.end(), text.begin(), text.end());
  ids.insert(ids.end(), parts.suffix.begin(), parts.suffix.end());
  return ids;
}

}  // namespace summarize

int32_t summary_prompt_overhead(const Tokenizer& tokenizer, const SummarizeOptions& options) {
  const auto chunk = summarize::make_prompt_parts(tokenizer, options.instruction);
  const auto merge = summarize::make_prompt_parts(tokenizer, options.merge_instruction);
  return static_cast<int32_t>(std::max(chunk.prefix.size(), merge.prefix.size()) +
                              chunk.suffix.size());
}

}  // namespace kvchat
