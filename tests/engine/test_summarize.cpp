// Summaries beyond the context window: the plan's arithmetic by hand, the merge tree
// terminating for any length, and the pipeline on the demo model at context 512: every
// step fits, peak KV within the budget, the shared prefix reused (counted in evaluated
// tokens), and a cancelled run resumed without redoing finished summaries.
#include <gtest/gtest.h>

#include <cmath>

#include "kvchat/summarize.h"
#include "summarize/merge_tree.h"
#include "support/document_text.h"

namespace kvchat {
namespace {

constexpr uint64_t kBytesPerToken = 1536;  // the demo model at f16: 2 x 6 x 2 x 32 x 2

// ---- the plan ----------------------------------------------------------------------

TEST(SummaryPlan, ArithmeticByHand) {
  const SummarizeOptions o;  // summaries of 96 tokens, margin 16
  auto p = plan_summary(5000, 512, "f16", kBytesPerToken, 20, o);
  ASSERT_TRUE(p) << p.message();
  EXPECT_FALSE(p->fits_whole);
  EXPECT_EQ(p->chunk_tokens, 512 - 20 - 96 - 16);  // 380
  EXPECT_EQ(p->n_chunks, 15);                      // ceil(5000 / (0.9 x 380))
  EXPECT_EQ(p->merge_fan_in, 3);                   // 380 / (96 + 4)
  EXPECT_EQ(p->n_levels, 3);                       // 15 -> 5 -> 2 -> 1
  EXPECT_EQ(p->n_steps, 15 + 5 + 2 + 1);
  // prefill: 5000 + 15 x 20, then per level n x 100 + groups x 20; generated 23 x 96.
  EXPECT_EQ(p->tokens_to_process, 5000 + 300 + (1500 + 100) + (500 + 40) + (200 + 20) + 23 * 96);
  EXPECT_EQ(p->document_kv_bytes, 5000 * kBytesPerToken);
  EXPECT_EQ(p->peak_kv_bytes, (20 + 380 + 96) * kBytesPerToken);
  EXPECT_LE(p->peak_kv_bytes, 512 * kBytesPerToken);
  EXPECT_EQ(p->estimated_seconds, 0);
  EXPECT_EQ(p->describe(),
            "15 chunks of about 333 tokens, 3 levels of merging, about 9868 tokens to process");

  auto timed = plan_summary(5000, 512, "f16", kBytesPerToken, 20, o, 1000, 100);
  ASSERT_TRUE(timed);
  EXPECT_NEAR(timed->estimated_seconds, 7660 / 1000.0 + 2208 / 100.0, 1e-9);
  EXPECT_EQ(timed->describe(),
            "15 chunks of about 333 tokens, 3 levels of merging, about 9868 tokens "
            "to process, about 30 s at the measured speed");

  auto measured = plan_summary(5000, 512, "f16", kBytesPerToken, 20, o, 0, 0, 17);
  ASSERT_TRUE(measured);
  EXPECT_EQ(measured->n_chunks, 17);
  EXPECT_EQ(measured->n_levels, 3);  // 17 -> 6 -> 2 -> 1
}

TEST(SummaryPlan, FitsWholeAtTheBudgetAndNotOneTokenMore) {
  const SummarizeOptions o;
  auto fits = plan_summary(380, 512, "f16", kBytesPerToken, 20, o);
  ASSERT_TRUE(fits);
  EXPECT_TRUE(fits->fits_whole);
  EXPECT_EQ(fits->describe(), "fits — sent whole");
  EXPECT_EQ(fits->n_chunks, 1);
  EXPECT_EQ(fits->n_levels, 0);
  EXPECT_EQ(fits->tokens_to_process, 380 + 20 + 96);
  auto over = plan_summary(381, 512, "f16", kBytesPerToken, 20, o);
  ASSERT_TRUE(over);
  EXPECT_FALSE(over->fits_whole);
  EXPECT_EQ(over->n_chunks, 2);
  EXPECT_EQ(over->n_levels, 1);
}

TEST(SummaryPlan, TooSmallAContextIsAClearError) {
  const SummarizeOptions o;
  // The smallest context: 20 + 2 x (96 + 4) + 96 + 16 = 332.
  EXPECT_TRUE(plan_summary(1000, 332, "f16", kBytesPerToken, 20, o));
  auto small = plan_summary(1000, 331, "f16", kBytesPerToken, 20, o);
  ASSERT_FALSE(small);
  EXPECT_NE(
      small.message().find("context 331 is too small to summarize with summaries of 96 tokens"),
      std::string::npos)
      << small.message();
  EXPECT_NE(small.message().find("needs 332"), std::string::npos) << small.message();
}

TEST(SummaryPlan, MergeTreeTerminatesForAnyLength) {
  struct Case {
    int32_t n_ctx, summary;
  };
  for (const Case c :
       {Case{512, 96}, Case{332, 96}, Case{4096, 256}, Case{2048, 8}, Case{128, 20}}) {
    SummarizeOptions o;
    o.summary_tokens = c.summary;
    for (double len = 1; len <= 1e7; len = std::max(len + 1, std::floor(len * 1.37))) {
      const auto n = static_cast<int64_t>(len);
      auto p = plan_summary(n * 100, c.n_ctx, "f16", kBytesPerToken, 20, o);
      ASSERT_TRUE(p) << p.message();
      const double fan = p->merge_fan_in;
      ASSERT_GE(fan, 2);
      const int bound =
          p->n_chunks <= 1
              ? 0
              : static_cast<int>(std::ceil(std::log(p->n_chunks) / std::log(fan) - 1e-9));
      EXPECT_LE(p->n_levels, bound) << "ctx " << c.n_ctx << " chunks " << p->n_chunks;
      EXPECT_EQ(p->n_levels == 0, p->n_chunks == 1);
      // The groups of every level cover it, in order, each of 1..fan_in summaries.
      int32_t level = p->n_chunks, levels = 0;
      while (level > 1) {
        const auto groups = summarize::merge_groups(level, p->merge_fan_in);
        ASSERT_FALSE(groups.empty());
        int32_t at = 0;
        for (const auto& [b, e] : groups) {
          ASSERT_EQ(b, at);
          ASSERT_GE(e - b, 1);
          ASSERT_LE(e - b, p->merge_fan_in);
          at = e;
        }
        ASSERT_EQ(at, level);
        ASSERT_LT(static_cast<int32_t>(groups.size()), level);
        level = static_cast<int32_t>(groups.size());
        ++levels;
      }
      EXPECT_EQ(levels, p->n_levels);
    }
  }
}

// ---- the pipeline on the demo model --------------------------------------------------

struct PipelineRun {
  Result<SummaryResult> result = Error{"not run"};
  std::vector<PartialSummary> reported;
  std::unique_ptr<Session> session;
};

// Summarizes `text` on a fresh session of the demo model.
PipelineRun summarize_text(const std::string& text, int32_t n_ctx = 512,
                           const std::vector<PartialSummary>& done = {}, int cancel_after = -1) {
  PipelineRun run;
  SessionOptions so;
  so.n_ctx = n_ctx;
  auto s = Session::create(test::demo_model(), so);
  EXPECT_TRUE(s) << s.message();
  if (!s) return run;
  run.session = std::move(*s);
  auto reader = DocumentReader::from_bytes(text, "text");
  EXPECT_TRUE(reader) << reader.message();
  if (!reader) return run;
  SummarizeCallbacks cb;
  cb.on_summary = [&](const PartialSummary& p) { run.reported.push_back(p); };
  cb.cancelled = [&] {
    return cancel_after >= 0 && static_cast<int>(run.reported.size()) >= cancel_after;
  };
  run.result = summarize_document(*run.session, **reader, SummarizeOptions{}, done, cb);
  return run;
}

int32_t prefix_tokens(const std::string& instruction) {
  return static_cast<int32_t>(
      test::demo_model()->tokenizer().encode(instruction + "\n\n", true).size());
}

// Long enough for several chunks and two merge levels at context 512.
const std::string& long_text() {
  static const std::string text = test::revelation(3);
  return text;
}

// The uninterrupted run, shared by the tests that compare with it.
const PipelineRun& full_run() {
  static const PipelineRun run = summarize_text(long_text());
  return run;
}

TEST(Summarize, LongDocumentCompletesAndEveryStepFitsTheContext) {
  const PipelineRun& run = full_run();
  ASSERT_TRUE(run.result) << run.result.message();
  const SummaryResult& r = *run.result;
  const SummaryPlan& plan = r.plan;
  EXPECT_FALSE(r.cancelled);
  EXPECT_GE(plan.document_tokens, 4500);
  EXPECT_FALSE(plan.fits_whole);
  EXPECT_GE(plan.n_levels, 1);
  ASSERT_EQ(r.partials.size(), run.reported.size());

  // Level 0 covers the document's tokens in order, each chunk + prompt + summary fitting.
  int64_t token = 0;
  int32_t level0 = 0;
  for (const PartialSummary& p : r.partials) {
    if (p.level != 0) continue;
    EXPECT_EQ(p.index, level0++);
    EXPECT_EQ(p.token_begin, token);
    EXPECT_LE(p.token_end - p.token_begin, plan.chunk_tokens);
    EXPECT_LE(plan.prompt_overhead_tokens + (p.token_end - p.token_begin) + plan.summary_tokens +
                  SummarizeOptions{}.margin_tokens,
              512);
    token = p.token_end;
  }
  EXPECT_EQ(level0, plan.n_chunks);
  EXPECT_EQ(token, plan.document_tokens);

  // Each merge level covers the level below in order; the last has one summary.
  int32_t below = level0, levels = 0;
  for (int32_t level = 1; below > 1; ++level, ++levels) {
    int32_t at = 0, n = 0;
    for (const PartialSummary& p : r.partials) {
      if (p.level != level) continue;
      EXPECT_EQ(p.index, n++);
      EXPECT_EQ(p.source_begin, at);
      EXPECT_LE(p.source_end - p.source_begin, plan.merge_fan_in);
      at = p.source_end;
    }
    EXPECT_EQ(at, below);
    below = n;
  }
  EXPECT_EQ(levels, plan.n_levels);
  EXPECT_EQ(r.partials.back().level, plan.n_levels);
  EXPECT_EQ(r.summary, r.partials.back().text);

  // The KV cache never held more than the context, nor more than the plan said.
  const MemoryReport m = run.session->memory_report();
  EXPECT_EQ(m.kv_bytes_per_token, kBytesPerToken);
  EXPECT_LE(m.kv_peak_used_bytes, m.kv_bytes_per_token * 512);
  EXPECT_GT(r.peak_kv_bytes, 0u);
  EXPECT_LE(r.peak_kv_bytes, plan.peak_kv_bytes);
  EXPECT_LE(m.kv_peak_used_bytes, plan.peak_kv_bytes);
}

TEST(Summarize, SharedPrefixIsEvaluatedOnceNotPerChunk) {
  const PipelineRun& run = full_run();
  ASSERT_TRUE(run.result) << run.result.message();
  const SummaryResult& r = *run.result;
  const SummarizeOptions o;
  // Steps run: every chunk, and every merge of more than one summary.
  int32_t chunks = 0, merges = 0;
  for (const PartialSummary& p : r.partials) {
    if (p.level == 0) ++chunks;
    if (p.level > 0 && p.source_end - p.source_begin > 1) ++merges;
  }
  // The session's own count: each step's prompt minus what the cache held, plus the
  // sampled tokens but the last of each step.
  EXPECT_EQ(run.session->tokens_evaluated(), r.tokens_evaluated);
  EXPECT_EQ(r.tokens_evaluated,
            r.prompt_tokens - r.prompt_tokens_reused + r.tokens_generated - chunks - merges);
  // What the cache held: the instruction prefix, for every step but the first of a kind.
  const uint64_t reused = uint64_t(chunks - 1) * prefix_tokens(o.instruction) +
                          uint64_t(merges - 1) * prefix_tokens(o.merge_instruction);
  EXPECT_EQ(r.prompt_tokens_reused, reused);
  // Re-evaluating the prefix in every step would cost exactly that much more.
  const uint64_t without_reuse = r.prompt_tokens + r.tokens_generated - chunks - merges;
  EXPECT_LT(r.tokens_evaluated, without_reuse);
  EXPECT_EQ(without_reuse - r.tokens_evaluated, reused);
  EXPECT_GE(reused, uint64_t(chunks - 1) * 10);
}

TEST(Summarize, ResumeAfterCancelRedoesNoFinishedSummary) {
  const PipelineRun& full = full_run();
  ASSERT_TRUE(full.result) << full.result.message();
  const PipelineRun cancelled = summarize_text(long_text(), 512, {}, 2);
  ASSERT_TRUE(cancelled.result) << cancelled.result.message();
  EXPECT_TRUE(cancelled.result->cancelled);
  ASSERT_EQ(cancelled.reported.size(), 2u);
  EXPECT_EQ(cancelled.result->summary, "");

  const PipelineRun resumed = summarize_text(long_text(), 512, cancelled.reported);
  ASSERT_TRUE(resumed.result) << resumed.result.message();
  const SummaryResult& r = *resumed.result;
  EXPECT_FALSE(r.cancelled);
  for (const PartialSummary& p : resumed.reported) {
    EXPECT_FALSE(p.level == 0 && p.index < 2) << "chunk " << p.index << " was redone";
  }
  EXPECT_EQ(resumed.reported.size() + 2, full.reported.size());
  EXPECT_LT(r.tokens_evaluated, full.result->tokens_evaluated);
  EXPECT_LT(r.tokens_evaluated + cancelled.result->tokens_evaluated,
            full.result->tokens_evaluated + prefix_tokens(SummarizeOptions{}.instruction) + 1);
  // Greedy sampling: the same summaries as the uninterrupted run.
  ASSERT_EQ(r.partials.size(), full.result->partials.size());
  for (size_t i = 0; i < r.partials.size(); ++i)
    EXPECT_EQ(r.partials[i].text, full.result->partials[i].text) << i;
  EXPECT_EQ(r.summary, full.result->summary);
}

TEST(Summarize, ShortDocumentIsSummarizedWholeWithoutMerging) {
  const std::string text = test::revelation().substr(0, 600);
  const PipelineRun run = summarize_text(text);
  ASSERT_TRUE(run.result) << run.result.message();
  const SummaryResult& r = *run.result;
  EXPECT_TRUE(r.plan.fits_whole);
  EXPECT_EQ(r.plan.describe(), "fits — sent whole");
  ASSERT_EQ(r.partials.size(), 1u);
  EXPECT_EQ(r.partials[0].token_end, r.plan.document_tokens);
  EXPECT_EQ(r.summary, r.partials[0].text);
  EXPECT_LE(run.session->memory_report().kv_peak_used_bytes, r.plan.peak_kv_bytes);
}

TEST(Summarize, SavedSummariesOfAnotherDocumentAreRefused) {
  PartialSummary wrong;
  wrong.token_end = 5;
  wrong.text = "from elsewhere";
  const PipelineRun run = summarize_text(test::revelation(), 512, {wrong});
  ASSERT_FALSE(run.result);
  EXPECT_NE(run.result.message().find("does not match"), std::string::npos) << run.result.message();
}

TEST(Summarize, TooSmallAContextFailsBeforeEvaluating) {
  const PipelineRun run = summarize_text(test::revelation(), 160);
  ASSERT_FALSE(run.result);
  EXPECT_NE(run.result.message().find("context 160 is too small"), std::string::npos)
      << run.result.message();
  EXPECT_EQ(run.session->tokens_evaluated(), 0u);
}

TEST(Summarize, PlanForTheAppCountsTheDocumentWithoutEvaluating) {
  SessionOptions so;
  so.n_ctx = 512;
  auto s = Session::create(test::demo_model(), so);
  ASSERT_TRUE(s) << s.message();
  auto reader = DocumentReader::from_bytes(long_text(), "text");
  ASSERT_TRUE(reader);
  auto plan = plan_document_summary(**s, **reader, SummarizeOptions{});
  ASSERT_TRUE(plan) << plan.message();
  EXPECT_EQ((*s)->tokens_evaluated(), 0u);
  ASSERT_TRUE(full_run().result);
  EXPECT_EQ(plan->document_tokens, full_run().result->plan.document_tokens);
  EXPECT_EQ(plan->n_chunks, full_run().result->plan.n_chunks);
  EXPECT_EQ(plan->kv_bytes_per_token, kBytesPerToken);
  // The reader was rewound: it reads the whole text again.
  std::string again;
  while (true) {
    auto more = (*reader)->next(again);
    ASSERT_TRUE(more);
    if (!*more) break;
  }
  EXPECT_EQ(again.size(), long_text().size());
}

}  // namespace
}  // namespace kvchat
