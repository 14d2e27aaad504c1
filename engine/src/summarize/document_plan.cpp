// The counting pass and plan_document_summary (see document_plan.h, summarize.h).
#include "summarize/document_plan.h"

#include <chrono>
#include <cstdio>

namespace kvchat {
namespace summarize {
namespace {

// "counting tokens: 3.1 of 200.0 MB" (kB below 1 MB), with the time left at the rate so far.
SummaryProgress counting_progress(const DocumentReader& reader, double seconds) {
  SummaryProgress p;
  p.seconds_elapsed = seconds;
  const double done = static_cast<double>(reader.bytes_read());
  const double total = static_cast<double>(reader.size_bytes());
  if (done > 0) p.seconds_left = seconds * (total - done) / done;
  const bool mb = total >= 1e6;
  const double unit = mb ? 1e6 : 1e3;
  char buf[96];
  std::snprintf(buf, sizeof buf, "counting tokens: %.1f of %.1f %s", done / unit, total / unit,
                mb ? "MB" : "kB");
  p.stage = buf;
  return p;
}

}  // namespace

Result<std::optional<SummaryPlan>> plan_for_session(const Session& session, DocumentReader& reader,
                                                    const SummarizeOptions& options,
                                                    const SummarizeCallbacks& callbacks) {
  return plan_for_context(session.model().tokenizer(), reader, session.n_ctx(),
                          session.options().kv_type, session.memory_report().kv_bytes_per_token,
                          options, callbacks);
}

Result<std::optional<SummaryPlan>> plan_for_context(const Tokenizer& tok, DocumentReader& reader,
                                                    int32_t n_ctx, const std::string& kv_type,
                                                    uint64_t per_token,
                                                    const SummarizeOptions& options,
                                                    const SummarizeCallbacks& callbacks) {
  const int32_t overhead = summary_prompt_overhead(tok, options);
  auto budget = plan_summary(0, n_ctx, kv_type, per_token, overhead, options);
  if (!budget) return budget.error();

  if (auto s = reader.rewind(); !s) return Error{s.message()};
  const auto t0 = std::chrono::steady_clock::now();
  Chunker chunker(tok, budget->chunk_tokens);
  int64_t tokens = 0;
  int32_t chunks = 0;
  auto add = [&](const std::vector<TextChunk>& cut) {
    for (const TextChunk& c : cut) tokens += c.n_tokens();
    chunks += static_cast<int32_t>(cut.size());
  };
  std::string text;
  while (true) {
    if (callbacks.cancelled && callbacks.cancelled()) return std::optional<SummaryPlan>();
    text.clear();
    auto more = reader.next(text);
    if (!more) return more.error();
    if (!*more) break;
    add(chunker.feed(text));
    if (callbacks.on_progress) {
      const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
      callbacks.on_progress(counting_progress(reader, dt.count()));
    }
  }
  add(chunker.finish());
  if (auto s = reader.rewind(); !s) return Error{s.message()};
  auto plan =
      plan_summary(tokens, n_ctx, kv_type, per_token, overhead, options,
                   options.prefill_tokens_per_second, options.decode_tokens_per_second, chunks);
  if (!plan) return plan.error();
  return std::optional<SummaryPlan>(std::move(*plan));
}

}  // namespace summarize

Result<SummaryPlan> plan_document_summary(const Session& session, DocumentReader& reader,
                                          const SummarizeOptions& options,
                                          const SummarizeCallbacks& callbacks) {
  auto plan = summarize::plan_for_session(session, reader, options, callbacks);
  if (!plan) return plan.error();
  if (!*plan) return Error{"cancelled while counting the document's tokens"};
  return std::move(**plan);
}

Result<SummaryPlan> plan_document_summary(const Tokenizer& tokenizer, DocumentReader& reader,
                                          int32_t n_ctx, const std::string& kv_type,
                                          uint64_t kv_bytes_per_token,
                                          const SummarizeOptions& options,
                                          const SummarizeCallbacks& callbacks) {
  auto plan = summarize::plan_for_context(tokenizer, reader, n_ctx, kv_type, kv_bytes_per_token,
                                          options, callbacks);
  if (!plan) return plan.error();
  if (!*plan) return Error{"cancelled while counting the document's tokens"};
  return std::move(**plan);
}

}  // namespace kvchat
