// Summaries of documents longer than the context window: a plan made before anything is
// evaluated, then chunk summaries (the shared instruction prefix evaluated once and
// reused from the KV cache), merged level by level until one summary remains. The KV
// cache never holds more than the context: each step truncates back to the prefix.
//
// Prompts (plain completion, no chat template): [BOS] instruction "\n\n" | text | "\n\n
// Summary:", the three parts tokenized separately so the first is a token-exact common
// prefix of every step. A chunk summary's text is a document chunk; a merge's text is the
// merged summaries, one per line. Generation stops at a blank line, EOS or summary_tokens.
// Merges: level k+1 groups the level-k summaries in order, into ceil(n / fan-in) groups
// of near-equal size (fan-in = how many summaries of summary_tokens + kSummarySlackTokens
// fit in a chunk budget, at least 2); a group of one is carried up unchanged.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kvchat/document.h"
#include "kvchat/result.h"
#include "kvchat/sampler.h"
#include "kvchat/session.h"

namespace kvchat {

// Room one summary takes in a merge prompt beyond summary_tokens: its line break and a
// retokenization that comes out a little longer than what was generated (cut there).
inline constexpr int32_t kSummarySlackTokens = 4;

struct SummarizeOptions {
  std::string instruction = "Summarize the following text in a few sentences.";
  std::string merge_instruction = "Combine these partial summaries into one summary.";
  int32_t summary_tokens = 96;  // the most tokens one summary may have
  int32_t margin_tokens = 16;   // kept free in every step
  // Greedy with a mild repetition penalty (deterministic: a resumed run writes the same
  // summaries) unless set.
  SamplingParams sampling{.temperature = 0, .repeat_penalty = 1.1f};
  // For the plan's time estimate only (the last reply's speeds, a benchmark); 0: unknown.
  double prefill_tokens_per_second = 0;
  double decode_tokens_per_second = 0;
};

// What will happen, computed from token counts alone (before any evaluation).
struct SummaryPlan {
  int64_t document_tokens = 0;
  int32_t n_ctx = 0;
  std::string kv_type;
  uint64_t kv_bytes_per_token = 0;
  int32_t prompt_overhead_tokens = 0;  // instruction prefix + "Summary:" suffix, per step
  int32_t summary_tokens = 0;
  uint64_t document_kv_bytes = 0;  // the KV the whole document would occupy
  uint64_t peak_kv_bytes = 0;      // the most the plan puts in the cache at once (<= n_ctx's)
  bool fits_whole = false;         // instructions + document + summary fit the context
  int32_t chunk_tokens = 0;        // the budget of one chunk
  int32_t n_chunks = 0;            // level-0 chunks (1 when it fits whole)
  int32_t n_levels = 0;            // merge levels after the chunk summaries
  int32_t merge_fan_in = 0;        // the most summaries one merge takes
  int32_t n_steps = 0;             // summaries to write: chunks + merges (upper bound)
  int64_t tokens_to_process = 0;   // tokens evaluated + generated, all steps (upper bound:
                                   // the instruction counted in every step, every summary
                                   // full length)
  double estimated_seconds = 0;    // at the given prefill / decode speeds (0 if unknown)
  std::string describe() const;    // "fits — sent whole" or "N chunks of about M tokens, ..."
};

// kv_bytes_per_token and speeds come from the live session (MemoryReport, last reply).
// measured_chunks: the level-0 chunk count from a Chunker pass (count_document); 0: an
// estimate from the tokens (chunks filled to about 90%). Fails, saying how much context
// it would need, when a chunk budget cannot hold two summaries to merge.
Result<SummaryPlan> plan_summary(int64_t document_tokens, int32_t n_ctx, const std::string& kv_type,
                                 uint64_t kv_bytes_per_token, int32_t prompt_overhead_tokens,
                                 const SummarizeOptions& options, double prefill_tps = 0,
                                 double decode_tps = 0, int32_t measured_chunks = 0);

// Tokens of one step's prompt besides its text: BOS, the longer of the two instructions
// with its blank line, and the "Summary:" suffix.
int32_t summary_prompt_overhead(const Tokenizer& tokenizer, const SummarizeOptions& options);

// One summary: level 0 = of document chunk `index`; level k > 0 = a merge of level k-1
// summaries [source_begin, source_end).
struct PartialSummary {
  int32_t level = 0;
  int32_t index = 0;
  int64_t token_begin = 0, token_end = 0;    // level 0: the document tokens it covers
  int32_t source_begin = 0, source_end = 0;  // level > 0: the summaries it merges
  std::string text;
};

struct SummaryProgress {
  int32_t steps_done = 0, steps_total = 0;  // summaries written / planned (estimate)
  double seconds_elapsed = 0, seconds_left = 0;
  std::string stage;  // "chunk 3 of 12", "merge level 1"
};

struct SummarizeCallbacks {
  // The plan, after the counting pass and before anything is evaluated.
  std::function<void(const SummaryPlan&)> on_plan;
  // Each finished summary, in order, as soon as it exists: persist it to resume later.
  std::function<void(const PartialSummary&)> on_summary;
  std::function<void(const SummaryProgress&)> on_progress;
  std::function<bool()> cancelled;  // checked between and during steps
};

struct SummaryResult {
  std::string summary;  // the final text
  SummaryPlan plan;
  std::vector<PartialSummary> partials;  // every summary, level by level
  uint64_t tokens_evaluated = 0;         // forward-pass tokens this run (not resumed ones)
  uint64_t prompt_tokens = 0;            // the prompts of the steps run, in full
  uint64_t prompt_tokens_reused = 0;     // of those, found in the cache (the shared prefix)
  uint64_t tokens_generated = 0;         // sampled, all steps run (the last of each is not
                                         // evaluated: tokens_evaluated = prompt_tokens -
                                         // reused + generated - steps run)
  uint64_t peak_kv_bytes = 0;            // the most KV this run held (measured each step)
  bool cancelled = false;                // stopped early; partials hold what was done
};

// The plan for summarizing `reader`'s document on `session` (its context, KV type and
// bytes per token, the speeds in options): a first pass streams the document through the
// Chunker to count its tokens and chunks exactly (on_progress reports it, cancelled stops
// it), then the reader is rewound. Nothing is evaluated. The app's cost preview.
Result<SummaryPlan> plan_document_summary(const Session& session, DocumentReader& reader,
                                          const SummarizeOptions& options,
                                          const SummarizeCallbacks& callbacks = {});
// The same for a context of n_ctx tokens of kv_type (kv_bytes_per_token) with no session:
// the very pass summarize_document plans with, so a preview made with it shows the chunks
// a job on such a session runs.
Result<SummaryPlan> plan_document_summary(const Tokenizer& tokenizer, DocumentReader& reader,
                                          int32_t n_ctx, const std::string& kv_type,
                                          uint64_t kv_bytes_per_token,
                                          const SummarizeOptions& options,
                                          const SummarizeCallbacks& callbacks = {});

// Runs the whole pipeline on `session` (it is truncated and reused; its conversation is
// not preserved): plan_document_summary (on_plan gets it), then the chunk summaries as
// the document is streamed from `reader` a second time, then the merges. `done` holds
// summaries from an earlier, interrupted run of the same document, session settings and
// options (what on_summary gave): they are not redone; one that does not match the
// chunk or group it claims to be is an error. Memory: the reader's block, the Chunker's
// pending text, and the summaries (about summary_tokens per chunk).
Result<SummaryResult> summarize_document(Session& session, DocumentReader& reader,
                                         const SummarizeOptions& options,
                                         const std::vector<PartialSummary>& done = {},
                                         const SummarizeCallbacks& callbacks = {});

}  // namespace kvchat
