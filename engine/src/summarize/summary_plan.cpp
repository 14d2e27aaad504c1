// plan_summary and SummaryPlan::describe: what a summary will cost, from token counts.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "kvchat/summarize.h"
#include "summarize/merge_tree.h"

namespace kvchat {

Result<SummaryPlan> plan_summary(int64_t document_tokens, int32_t n_ctx, const std::string& kv_type,
                                 uint64_t kv_bytes_per_token, int32_t prompt_overhead_tokens,
                                 const SummarizeOptions& options, double prefill_tps,
                                 double decode_tps, int32_t measured_chunks) {
  using summarize::chunk_budget;
  const int32_t summary = options.summary_tokens;
  if (summary < 1) return Error{"summaries need at least 1 token"};
  if (options.margin_tokens < 0) return Error{"the margin cannot be negative"};
  if (document_tokens < 0) return Error{"a document cannot have a negative number of tokens"};
  const int32_t per_summary = summarize::merged_summary_tokens(options);
  const int32_t chunk = chunk_budget(n_ctx, prompt_overhead_tokens, options);
  if (chunk < 2 * per_summary) {
    const int64_t need =
        int64_t{prompt_overhead_tokens} + 2 * per_summary + summary + options.margin_tokens;
    return Error{"context " + std::to_string(n_ctx) +
                 " is too small to summarize with summaries of " + std::to_string(summary) +
                 " tokens: a step needs " + std::to_string(need) + " (instructions " +
                 std::to_string(prompt_overhead_tokens) + ", two summaries to merge " +
                 std::to_string(2 * per_summary) + ", the new summary " + std::to_string(summary) +
                 ", margin " + std::to_string(options.margin_tokens) +
                 "); use a larger context or fewer summary tokens"};
  }

  SummaryPlan p;
  p.document_tokens = document_tokens;
  p.n_ctx = n_ctx;
  p.kv_type = kv_type;
  p.kv_bytes_per_token = kv_bytes_per_token;
  p.prompt_overhead_tokens = prompt_overhead_tokens;
  p.summary_tokens = summary;
  p.document_kv_bytes = static_cast<uint64_t>(document_tokens) * kv_bytes_per_token;
  p.chunk_tokens = chunk;
  p.fits_whole = document_tokens <= chunk;
  if (p.fits_whole) {
    p.n_chunks = 1;
  } else if (measured_chunks > 0) {
    p.n_chunks = measured_chunks;
  } else {
    p.n_chunks =
        static_cast<int32_t>(std::ceil(static_cast<double>(document_tokens) / (0.9 * chunk)));
  }
  p.merge_fan_in = summarize::merge_fan_in(chunk, options);
  const int64_t text_in_cache = p.fits_whole ? document_tokens : chunk;
  p.peak_kv_bytes = static_cast<uint64_t>(std::min<int64_t>(
                        n_ctx, prompt_overhead_tokens + text_in_cache + summary)) *
                    kv_bytes_per_token;

  // Level 0: every chunk with its prompt, then a summary; each merge level: its inputs
  // (at most per_summary tokens each) with a prompt, then a summary per group.
  int64_t prefill = document_tokens + int64_t{p.n_chunks} * prompt_overhead_tokens;
  int64_t steps = p.n_chunks;
  for (int32_t n = p.n_chunks; n > 1;) {
    const int32_t groups = summarize::merge_group_count(n, p.merge_fan_in);
    prefill += int64_t{n} * per_summary + int64_t{groups} * prompt_overhead_tokens;
    steps += groups;
    n = groups;
    ++p.n_levels;
  }
  const int64_t generated = steps * summary;
  p.n_steps = static_cast<int32_t>(steps);
  p.tokens_to_process = prefill + generated;
  if (prefill_tps > 0 && decode_tps > 0) {
    p.estimated_seconds =
        static_cast<double>(prefill) / prefill_tps + static_cast<double>(generated) / decode_tps;
  }
  return p;
}

std::string SummaryPlan::describe() const {
  if (fits_whole) return "fits — sent whole";
  const auto per_chunk =
      static_cast<long long>(std::llround(static_cast<double>(document_tokens) / n_chunks));
  char buf[256];
  std::snprintf(
      buf, sizeof buf,
      "%d chunks of about %lld tokens, %d level%s of merging, about %lld tokens to process",
      n_chunks, per_chunk, n_levels, n_levels == 1 ? "" : "s",
      static_cast<long long>(tokens_to_process));
  std::string s = buf;
  if (estimated_seconds > 0) {
    std::snprintf(buf, sizeof buf, ", about %.0f s at the measured speed",
                  std::ceil(estimated_seconds));
    s += buf;
  }
  return s;
}

}  // namespace kvchat
