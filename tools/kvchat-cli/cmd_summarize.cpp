// summarize: the long-document pipeline of kvchat/summarize.h from the command line. The
// plan and progress go to stderr, the final summary to stdout (or, with --json, one
// object with the plan, every partial summary, tokens evaluated and peak KV bytes).
// SIGINT cancels between tokens; with --resume FILE every partial summary is saved as it
// is written and a later run with the same FILE continues where this one stopped.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/document.h"
#include "kvchat/summarize.h"
#include "summary_resume.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

// The first SIGINT cancels the pipeline; the handler resets, so a second one kills.
void on_sigint(int) { g_interrupted = 1; }

void install_sigint() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sa.sa_flags = static_cast<int>(SA_RESETHAND);
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// Prefill and decode speed of `session` on a short prompt (then forgotten), for the
// plan's time estimate: 64 tokens evaluated at once, then 8 one at a time.
void measure_speed(Session& session, SummarizeOptions& options) {
  const Tokenizer& tok = session.model().tokenizer();
  std::vector<TokenId> ids = tok.encode(options.instruction, true);
  const size_t n = std::min<size_t>(64, static_cast<size_t>(session.n_ctx() / 4));
  const std::vector<TokenId> text(ids.begin() + (ids.empty() ? 0 : 1), ids.end());
  while (!text.empty() && ids.size() < n) ids.insert(ids.end(), text.begin(), text.end());
  ids.resize(std::min(ids.size(), n));
  if (ids.size() < 2) return;
  session.truncate(0);
  auto t = std::chrono::steady_clock::now();
  if (!session.eval(ids)) return;
  options.prefill_tokens_per_second = static_cast<double>(ids.size()) / seconds_since(t);
  t = std::chrono::steady_clock::now();
  const int decode = 8;
  for (int i = 0; i < decode; ++i) {
    const TokenId one[1] = {argmax(session.last_logits())};
    if (!session.eval(one)) return;
  }
  options.decode_tokens_per_second = decode / seconds_since(t);
  session.truncate(0);
}

nlohmann::json plan_to_json(const SummaryPlan& p) {
  return {{"document_tokens", p.document_tokens},
          {"n_ctx", p.n_ctx},
          {"kv_type", p.kv_type},
          {"kv_bytes_per_token", p.kv_bytes_per_token},
          {"prompt_overhead_tokens", p.prompt_overhead_tokens},
          {"summary_tokens", p.summary_tokens},
          {"document_kv_bytes", p.document_kv_bytes},
          {"peak_kv_bytes", p.peak_kv_bytes},
          {"fits_whole", p.fits_whole},
          {"chunk_tokens", p.chunk_tokens},
          {"n_chunks", p.n_chunks},
          {"n_levels", p.n_levels},
          {"merge_fan_in", p.merge_fan_in},
          {"n_steps", p.n_steps},
          {"tokens_to_process", p.tokens_to_process},
          {"estimated_seconds", p.estimated_seconds},
          {"description", p.describe()}};
}

void print_plan(const SummaryPlan& p, const DocumentReader& doc) {
  std::fprintf(stderr, "[summarize] %s: %llu bytes (%s), %lld tokens, %llu KV bytes at %s\n",
               printable(doc.name()).c_str(), static_cast<unsigned long long>(doc.size_bytes()),
               printable(doc.encoding().name).c_str(), static_cast<long long>(p.document_tokens),
               static_cast<unsigned long long>(p.document_kv_bytes), p.kv_type.c_str());
  std::fprintf(stderr,
               "[summarize] plan at context %d: chunks of up to %d tokens, summaries of up to %d: "
               "%s; peak KV at most %llu bytes\n",
               p.n_ctx, p.chunk_tokens, p.summary_tokens, p.describe().c_str(),
               static_cast<unsigned long long>(p.peak_kv_bytes));
}

void print_progress(const SummaryProgress& p) {
  if (p.steps_total == 0) {
    std::fprintf(stderr, "[summarize] %s\n", terminal_lines(p.stage).c_str());
    return;
  }
  std::fprintf(stderr, "[summarize] %s (%d of about %d summaries, %.0f s, about %.0f s left)\n",
               terminal_lines(p.stage).c_str(), p.steps_done, p.steps_total, p.seconds_elapsed,
               p.seconds_left);
}

}  // namespace

int cmd_summarize(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--file", "--summary-tokens", "--resume"}),
                          {"--json"});
  if (!args) return fail(args.message());
  auto file = args->require("--file");
  if (!file) return fail(file.message());
  auto summary_tokens = args->get_int("--summary-tokens", SummarizeOptions{}.summary_tokens);
  if (!summary_tokens) return fail(summary_tokens.message());
  if (*summary_tokens < 1 || *summary_tokens > (1 << 20))
    return fail("--summary-tokens must be between 1 and 1048576");
  auto reader = DocumentReader::open(*file);
  if (!reader) return fail(reader.message());
  DocumentReader& doc = **reader;
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  auto session = make_session(*args, *model);
  if (!session) return fail(session.message());
  Session& sess = **session;
  quiet_warnings(sess);  // every step fills the context up to the margin, by design

  SummarizeOptions options;
  options.summary_tokens = static_cast<int32_t>(*summary_tokens);
  measure_speed(sess, options);

  std::vector<PartialSummary> done;
  std::optional<ResumeLog> log;
  if (args->has("--resume")) {
    const nlohmann::json header = {{"file", doc.name()},
                                   {"bytes", doc.size_bytes()},
                                   {"model", (*model)->info().path},
                                   {"ctx", sess.n_ctx()},
                                   {"kv_type", sess.options().kv_type},
                                   {"summary_tokens", options.summary_tokens}};
    auto opened = ResumeLog::open(args->get("--resume"), header, done);
    if (!opened) return fail(opened.message());
    log.emplace(std::move(*opened));
    if (!done.empty())
      std::fprintf(stderr, "[summarize] resuming: %zu summaries already written\n", done.size());
  }

  Status log_status;
  SummarizeCallbacks callbacks;
  callbacks.on_plan = [&](const SummaryPlan& p) { print_plan(p, doc); };
  callbacks.on_progress = print_progress;
  callbacks.on_summary = [&](const PartialSummary& p) {
    if (log && log_status) log_status = log->append(p);
  };
  callbacks.cancelled = [&] { return g_interrupted != 0 || !log_status; };
  install_sigint();
  auto result = summarize_document(sess, doc, options, done, callbacks);
  if (!log_status) return fail(log_status.message());
  if (!result) return fail(result.message());
  if (!doc.encoding().notice.empty())
    std::fprintf(stderr, "[summarize] note: %s\n", terminal_lines(doc.encoding().notice).c_str());
  if (result->cancelled) {
    return fail(
        "cancelled after " + std::to_string(result->partials.size()) + " summaries" +
            (log ? "; run again with --resume " + args->get("--resume") + " to continue" : ""),
        130);
  }

  if (args->has("--json")) {
    nlohmann::json chunks = nlohmann::json::array();
    for (const PartialSummary& p : result->partials) chunks.push_back(partial_to_json(p));
    const nlohmann::json j = {
        {"summary", result->summary},
        {"plan", plan_to_json(result->plan)},
        {"chunks", chunks},
        {"tokens_evaluated", result->tokens_evaluated},
        {"prompt_tokens", result->prompt_tokens},
        {"prompt_tokens_reused", result->prompt_tokens_reused},
        {"tokens_generated", result->tokens_generated},
        {"peak_kv_bytes", result->peak_kv_bytes},
        {"document",
         {{"name", doc.name()},
          {"bytes", doc.size_bytes()},
          {"encoding", doc.encoding().name},
          {"notice", doc.encoding().notice}}},
    };
    std::printf("%s\n", json_text(j, 2).c_str());
  } else {
    std::printf("%s\n", result->summary.c_str());
  }
  std::fprintf(stderr, "[summarize] %zu summaries, %llu tokens evaluated, peak KV %llu bytes\n",
               result->partials.size(), static_cast<unsigned long long>(result->tokens_evaluated),
               static_cast<unsigned long long>(result->peak_kv_bytes));
  return 0;
}

}  // namespace kvchat::cli
