// The arithmetic shared by the plan and the pipeline: the chunk budget of one step and
// how summaries are grouped into merges, level by level.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "kvchat/summarize.h"

namespace kvchat::summarize {

// Tokens one step leaves for its text: n_ctx - prompt overhead - summary - margin.
int32_t chunk_budget(int32_t n_ctx, int32_t prompt_overhead_tokens,
                     const SummarizeOptions& options);
// The most tokens one summary takes in a merge prompt (summary_tokens + slack).
int32_t merged_summary_tokens(const SummarizeOptions& options);
// How many summaries one merge takes: as many as fit in chunk_tokens (>= 2 when the
// budget is valid).
int32_t merge_fan_in(int32_t chunk_tokens, const SummarizeOptions& options);
// How many merges n summaries make at the next level: ceil(n / fan_in), 0 when n <= 1.
int32_t merge_group_count(int32_t n, int32_t fan_in);
// The merges of n summaries: ceil(n / fan_in) consecutive [begin, end) ranges whose sizes
// differ by at most one. Empty when n <= 1 (nothing to merge).
std::vector<std::pair<int32_t, int32_t>> merge_groups(int32_t n, int32_t fan_in);

}  // namespace kvchat::summarize
