// summarize_document: the chunk summaries, streamed, then the merges (see summarize.h).
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "kvchat/generate.h"
#include "kvchat/summarize.h"
#include "summarize/document_plan.h"
#include "summarize/merge_tree.h"
#include "summarize/summary_prompt.h"

namespace kvchat {
namespace summarize {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\t'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// One run of the pipeline on a session, after its plan.
class Pipeline {
 public:
  Pipeline(Session& session, const SummarizeOptions& options, SummaryPlan plan,
           const std::vector<PartialSummary>& done, const SummarizeCallbacks& callbacks)
      : session_(session),
        tok_(session.model().tokenizer()),
        options_(options),
        callbacks_(callbacks),
        chunk_parts_(make_prompt_parts(tok_, options.instruction)),
        merge_parts_(make_prompt_parts(tok_, options.merge_instruction)),
        t0_(Clock::now()),
        evaluated0_(session.tokens_evaluated()) {
    for (const PartialSummary& p : done) done_[{p.level, p.index}] = &p;
    result_.plan = std::move(plan);
  }

  // Level 0: a summary of every chunk of the document, streamed from `reader`.
  Status chunk_summaries(DocumentReader& reader) {
    Chunker chunker(tok_, result_.plan.chunk_tokens);
    std::string text;
    while (!stopped_) {
      text.clear();
      auto more = reader.next(text);
      if (!more) return Error{more.message()};
      if (!*more) break;
      for (const TextChunk& c : chunker.feed(text)) {
        if (auto s = chunk_summary(c); !s || stopped_) return s;
      }
    }
    for (const TextChunk& c : chunker.finish()) {
      if (auto s = chunk_summary(c); !s || stopped_) return s;
    }
    return {};
  }

  // Levels 1, 2, ...: merges of the level below until one summary remains.
  Status merges() {
    for (int32_t level = 1; !stopped_ && level_.size() > 1; ++level) {
      const auto groups =
          merge_groups(static_cast<int32_t>(level_.size()), result_.plan.merge_fan_in);
      std::vector<size_t> next;
      for (size_t j = 0; j < groups.size() && !stopped_; ++j) {
        const auto [b, e] = groups[j];
        PartialSummary p{
            level, static_cast<int32_t>(j), at(b).token_begin, at(e - 1).token_end, b, e, {}};
        stage_ = "merge level " + std::to_string(level) + ": " + std::to_string(j + 1) + " of " +
                 std::to_string(groups.size());
        if (auto s = write_summary(p, merge_body(b, e), next); !s) return s;
      }
      level_ = std::move(next);
    }
    return {};
  }

  SummaryResult finish() {
    result_.cancelled = stopped_;
    if (!stopped_ && !level_.empty()) result_.summary = at(0).text;
    result_.tokens_evaluated = session_.tokens_evaluated() - evaluated0_;
    return std::move(result_);
  }

 private:
  Status chunk_summary(const TextChunk& c) {
    PartialSummary p{0, static_cast<int32_t>(level_.size()), c.token_begin, c.token_end, 0, 0, {}};
    stage_ =
        "chunk " + std::to_string(p.index + 1) + " of " + std::to_string(result_.plan.n_chunks);
    return write_summary(
        p, [&] { return tok_.encode(c.text, false); }, level_);
  }

  // The text of a merge of level_[b, e): each summary's tokens (cut to fit its share)
  // and a line break.
  std::function<std::vector<TokenId>()> merge_body(int32_t b, int32_t e) {
    return [this, b, e] {
      const size_t cap =
          static_cast<size_t>(merged_summary_tokens(options_)) - merge_parts_.line_break.size();
      std::vector<TokenId> body;
      for (int32_t k = b; k < e; ++k) {
        std::vector<TokenId> ids = tok_.encode(at(k).text, false);
        ids.resize(std::min(ids.size(), cap));
        body.insert(body.end(), ids.begin(), ids.end());
        body.insert(body.end(), merge_parts_.line_break.begin(), merge_parts_.line_break.end());
      }
      return body;
    };
  }

  // Fills p.text: from `done` when an earlier run wrote it, carried up when p merges a
  // single summary, else by a step over the text `body` makes. Then records it in `into`.
  Status write_summary(PartialSummary p, const std::function<std::vector<TokenId>()>& body,
                       std::vector<size_t>& into) {
    if (auto it = done_.find({p.level, p.index}); it != done_.end()) {
      const PartialSummary& d = *it->second;
      if (d.token_begin != p.token_begin || d.token_end != p.token_end ||
          d.source_begin != p.source_begin || d.source_end != p.source_end) {
        return Error{"the saved summary " + std::to_string(p.level) + ":" +
                     std::to_string(p.index) +
                     " does not match this document and these settings (it covers tokens [" +
                     std::to_string(d.token_begin) + ", " + std::to_string(d.token_end) +
                     "), now [" + std::to_string(p.token_begin) + ", " +
                     std::to_string(p.token_end) + ")); start over without them"};
      }
      p.text = d.text;
      record(std::move(p), into, false, 0);
      return {};
    }
    if (p.level > 0 && p.source_end - p.source_begin == 1) {
      p.text = at(p.source_begin).text;
      record(std::move(p), into, true, 0);
      return {};
    }
    const auto t = Clock::now();
    auto text = step(p.level == 0 ? chunk_parts_ : merge_parts_, body());
    if (!text) return Error{text.message()};
    if (!*text) return {};  // cancelled
    p.text = std::move(**text);
    record(std::move(p), into, true, seconds_since(t));
    return {};
  }

  // One forward step: the prompt (reusing the cached prefix), then the summary; the cache
  // is truncated back to the prefix after. nullopt when cancelled.
  Result<std::optional<std::string>> step(const PromptParts& parts,
                                          const std::vector<TokenId>& text) {
    if (cancelled()) return std::optional<std::string>();
    const std::vector<TokenId> prompt = join_prompt(parts, text);
    const int32_t summary = options_.summary_tokens;
    if (static_cast<int64_t>(prompt.size()) + summary > session_.n_ctx()) {
      return Error{"internal: a step of " + std::to_string(prompt.size()) + " prompt tokens and " +
                   std::to_string(summary) + " summary tokens exceeds the context of " +
                   std::to_string(session_.n_ctx())};
    }
    // The prefix is evaluated on its own from position 0 when the cache does not hold it,
    // so a step computes the same thing whatever ran before (a resumed run matches).
    const std::vector<TokenId>& held = session_.tokens();
    const bool cached = held.size() >= parts.prefix.size() &&
                        std::equal(parts.prefix.begin(), parts.prefix.end(), held.begin());
    const uint64_t before = session_.tokens_evaluated();
    if (!cached) {
      session_.truncate(0);
      if (auto s = session_.eval(parts.prefix); !s) return Error{s.message()};
    }
    session_.truncate(static_cast<int32_t>(parts.prefix.size()));
    if (auto ev = session_.eval_sequence(prompt); !ev) return ev.error();
    result_.prompt_tokens += prompt.size();
    result_.prompt_tokens_reused += prompt.size() - (session_.tokens_evaluated() - before);
    GenerateOptions go;
    go.max_tokens = summary;
    go.sampling = options_.sampling;
    go.stop_strings = {"\n\n"};
    auto gen = generate(session_, {}, go, [this](std::string_view) { return !cancelled(); });
    result_.peak_kv_bytes = std::max(result_.peak_kv_bytes, session_.memory_report().kv_used_bytes);
    session_.truncate(static_cast<int32_t>(parts.prefix.size()));
    if (!gen) return gen.error();
    result_.tokens_generated += gen->ids.size();
    if (gen->stop_reason == StopReason::Cancelled) return std::optional<std::string>();
    return std::optional<std::string>(trim(gen->text));
  }

  // Keeps a finished summary, reports it (unless it came from `done`) and the progress.
  void record(PartialSummary p, std::vector<size_t>& into, bool is_new, double seconds) {
    ++steps_done_;
    if (seconds > 0) {
      step_seconds_ += seconds;
      ++timed_steps_;
    }
    if (is_new && callbacks_.on_summary) callbacks_.on_summary(p);
    into.push_back(result_.partials.size());
    result_.partials.push_back(std::move(p));
    if (callbacks_.on_progress) {
      SummaryProgress pr;
      pr.steps_done = steps_done_;
      pr.steps_total = std::max(steps_done_, result_.plan.n_steps);
      pr.seconds_elapsed = seconds_since(t0_);
      if (timed_steps_ > 0)
        pr.seconds_left = step_seconds_ / timed_steps_ * (pr.steps_total - pr.steps_done);
      pr.stage = stage_;
      callbacks_.on_progress(pr);
    }
  }

  // Summary k of the current level.
  const PartialSummary& at(size_t k) const { return result_.partials[level_[k]]; }

  bool cancelled() {
    if (!stopped_ && callbacks_.cancelled && callbacks_.cancelled()) stopped_ = true;
    return stopped_;
  }

  Session& session_;
  const Tokenizer& tok_;
  const SummarizeOptions& options_;
  const SummarizeCallbacks& callbacks_;
  PromptParts chunk_parts_, merge_parts_;
  std::map<std::pair<int32_t, int32_t>, const PartialSummary*> done_;
  std::vector<size_t> level_;  // the level being written or merged: indices in partials
  SummaryResult result_;
  std::string stage_;
  Clock::time_point t0_;
  uint64_t evaluated0_;
  int32_t steps_done_ = 0, timed_steps_ = 0;
  double step_seconds_ = 0;
  bool stopped_ = false;
};

}  // namespace
}  // namespace summarize

Result<SummaryResult> summarize_document(Session& session, DocumentReader& reader,
                                         const SummarizeOptions& options,
                                         const std::vector<PartialSummary>& done,
                                         const SummarizeCallbacks& callbacks) {
  auto plan = summarize::plan_for_session(session, reader, options, callbacks);
  if (!plan) return plan.error();
  if (!*plan) {
    SummaryResult cancelled;
    cancelled.cancelled = true;
    return cancelled;
  }
  if (callbacks.on_plan) callbacks.on_plan(**plan);
  summarize::Pipeline pipeline(session, options, std::move(**plan), done, callbacks);
  if (auto s = pipeline.chunk_summaries(reader); !s) return Error{s.message()};
  if (auto s = pipeline.merges(); !s) return Error{s.message()};
  return pipeline.finish();
}

}  // namespace kvchat
