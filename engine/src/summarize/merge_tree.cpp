// Chunk budget and merge grouping (see merge_tree.h).
#include "summarize/merge_tree.h"

#include <algorithm>

namespace kvchat::summarize {

int32_t chunk_budget(int32_t n_ctx, int32_t prompt_overhead_tokens,
                     const SummarizeOptions& options) {
  return n_ctx - prompt_overhead_tokens - options.summary_tokens - options.margin_tokens;
}

int32_t merged_summary_tokens(const SummarizeOptions& options) {
  return options.summary_tokens + kSummarySlackTokens;
}

int32_t merge_fan_in(int32_t chunk_tokens, const SummarizeOptions& options) {
  return std::max(2, chunk_tokens / merged_summary_tokens(options));
}

int32_t merge_group_count(int32_t n, int32_t fan_in) {
  return n <= 1 ? 0 : (n + fan_in - 1) / fan_in;
}

std::vector<std::pair<int32_t, int32_t>> merge_groups(int32_t n, int32_t fan_in) {
  std::vector<std::pair<int32_t, int32_t>> groups;
  const int32_t k = merge_group_count(n, fan_in);
  int32_t begin = 0;
  for (int32_t g = 0; g < k; ++g) {
    const int32_t size = n / k + (g < n % k ? 1 : 0);
    groups.emplace_back(begin, begin + size);
    begin += size;
  }
  return groups;
}

}  // namespace kvchat::summarize
