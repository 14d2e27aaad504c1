// perplexity: how well the model predicts a text with a given KV element type, and how
// far a non-f16 KV type moves the model's next-token distributions away from f16 KV.
//
// Method (docs/KV_CACHE.md, "Quantized KV: measured quality"):
//  - The file is tokenized as is, BOS first (invalid UTF-8 goes through the tokenizer's
//    byte fallback like any other text).
//  - The text tokens (everything after that BOS) are cut into consecutive chunks of
//    n_ctx - 1 tokens. Each chunk is one window: a fresh, empty context (truncate(0)),
//    then BOS + the chunk, evaluated in one eval() with all logits. Windows do not
//    overlap, so every text token is scored exactly once; the first token of each
//    window is predicted from BOS alone. `tokens` = the number of text tokens scored.
//  - At window position i the logits predict the token at i + 1. Log-probabilities are
//    a log-softmax in double (max subtracted first); NLL = -log p(next token).
//    perplexity = exp(mean NLL over all scored tokens).
//  - For --kv-type f32, q8_0 or q4_0 the same windows are also run with f16 K/V (the
//    app's default, the baseline) in a second session on the same backend, and at
//    every scored position: KL(p_f16 || p_type) = sum_i p_f16(i) (log p_f16(i) -
//    log p_type(i)) in double (rounding below zero is clamped to 0), and whether the
//    argmax (lowest id on ties) is the same. mean_kl / max_kl / top1_agreement are
//    over all scored positions.
//  - For --kv-type f16 (the default) the baseline is the run itself: mean_kl = max_kl
//    = 0 and top1_agreement = 1 by definition, no second pass is made.
//  - kv_bytes_per_token comes from the session's memory report (2 x layers x KV heads
//    x head_dim x bytes per element, block scales included); memory_saved_fraction =
//    1 - kv_bytes_per_token / kv_bytes_per_token_f16 (negative for f32: it costs more).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/sampler.h"
#include "numeric/log_softmax.h"

namespace kvchat::cli {

namespace {

std::string to_fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// The KV type a run is compared with.
constexpr char kBaselineKvType[] = "f16";

// The second session of a comparison: the same options with f16 K/V (a later option wins).
Result<std::unique_ptr<Session>> make_baseline(const Argv& argv,
                                               const std::shared_ptr<const Model>& model) {
  Argv base_argv;  // without --kv-type-k / --kv-type-v, which would override the baseline's
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--kv-type-k" || argv[i] == "--kv-type-v") {
      ++i;
      continue;
    }
    base_argv.push_back(argv[i]);
  }
  base_argv.push_back("--kv-type");
  base_argv.push_back(kBaselineKvType);
  auto base_args = Args::parse(base_argv, with(kSessionOptions, {"--file"}), {"--json"});
  if (!base_args) return Error{base_args.message()};
  auto b = make_session(*base_args, model);
  if (!b) return Error{b.message()};
  quiet_warnings(**b);
  return b;
}

// Sums over every scored position of every window.
struct Scores {
  double nll = 0, base_nll = 0, kl_sum = 0, kl_max = 0;
  uint64_t scored = 0, agree = 0;
  int32_t windows = 0;
};

// `ids` (BOS, then the text) in windows of BOS + up to n_ctx - 1 text tokens, each from an
// empty context in `sess` (and in `baseline` when comparing), every position scored.
Result<Scores> score_windows(Session& sess, Session* baseline, const std::vector<TokenId>& ids,
                             int32_t n_vocab) {
  const bool compare = baseline != nullptr;
  Scores sc;
  const TokenId bos = ids[0];
  const size_t n_text = ids.size() - 1;
  const size_t chunk = static_cast<size_t>(sess.n_ctx()) - 1;
  std::vector<TokenId> window;
  std::vector<float> logits, base_logits;  // [window.size(), n_vocab]
  std::vector<double> lp, lq;              // [n_vocab] log-probabilities: f16 KV, this KV type
  for (size_t start = 0; start < n_text; start += chunk) {
    const size_t len = std::min(chunk, n_text - start);
    window.assign(1, bos);
    window.insert(window.end(), ids.begin() + 1 + static_cast<std::ptrdiff_t>(start),
                  ids.begin() + 1 + static_cast<std::ptrdiff_t>(start + len));
    sess.truncate(0);
    if (auto s = sess.eval(window, &logits); !s) return Error{s.message()};
    if (compare) {
      baseline->truncate(0);
      if (auto s = baseline->eval(window, &base_logits); !s) return Error{s.message()};
    }
    for (size_t i = 0; i + 1 < window.size(); ++i) {
      const TokenId next = window[i + 1];
      const std::span<const float> row(logits.data() + i * n_vocab, static_cast<size_t>(n_vocab));
      log_softmax(row, lq);
      sc.nll -= lq[next];
      if (compare) {
        const std::span<const float> brow(base_logits.data() + i * n_vocab,
                                          static_cast<size_t>(n_vocab));
        log_softmax(brow, lp);
        sc.base_nll -= lp[next];
        const double kl = kl_divergence(lp, lq);
        sc.kl_sum += kl;
        sc.kl_max = std::max(sc.kl_max, kl);
        sc.agree += argmax(row) == argmax(brow);
      }
      ++sc.scored;
    }
    ++sc.windows;
  }
  return sc;
}

// The reported figures, from the scores and the sessions' memory reports.
struct Figures {
  double perplexity = 0, baseline_perplexity = 0, mean_kl = 0, top1 = 0;
  uint64_t bytes = 0, bytes_f16 = 0;  // K/V bytes per token: this KV type, f16
  double saved = 0;                   // the fraction of K/V memory saved against f16
};

// The figures of `sc` (`baseline`: the f16 KV session when comparing, else null).
Figures figures_of(const Scores& sc, const Session& sess, const Session* baseline) {
  const bool compare = baseline != nullptr;
  Figures f;
  f.perplexity = std::exp(sc.nll / static_cast<double>(sc.scored));
  f.baseline_perplexity =
      compare ? std::exp(sc.base_nll / static_cast<double>(sc.scored)) : f.perplexity;
  f.mean_kl = compare ? sc.kl_sum / static_cast<double>(sc.scored) : 0.0;
  f.top1 = compare ? static_cast<double>(sc.agree) / static_cast<double>(sc.scored) : 1.0;
  f.bytes = sess.memory_report().kv_bytes_per_token;
  f.bytes_f16 = compare ? baseline->memory_report().kv_bytes_per_token : f.bytes;
  f.saved = 1.0 - static_cast<double>(f.bytes) / static_cast<double>(f.bytes_f16);
  return f;
}

// --json: the run's settings and figures.
void print_json(const std::string& model_path, const std::string& file, const Session& sess,
                const std::string& kv_type, const Scores& sc, const Figures& f) {
  nlohmann::json j = {
      {"model", model_path},
      {"file", file},
      {"backend", std::string(sess.backend_name())},
      {"kv_type", kv_type},
      {"baseline_kv_type", kBaselineKvType},
      {"ctx", sess.n_ctx()},
      {"windows", sc.windows},
      {"tokens", sc.scored},
      {"perplexity", f.perplexity},
      {"baseline_perplexity", f.baseline_perplexity},
      {"mean_kl", f.mean_kl},
      {"max_kl", sc.kl_max},
      {"top1_agreement", f.top1},
      {"kv_bytes_per_token", f.bytes},
      {"kv_bytes_per_token_f16", f.bytes_f16},
      {"memory_saved_fraction", f.saved},
  };
  std::printf("%s\n", json_text(j, 2).c_str());
}

// The text report (`compare`: against a second, f16 KV session).
void print_text(const std::string& file, int32_t n_ctx, const std::string& kv_type, bool compare,
                const Scores& sc, const Figures& f) {
  std::printf("text             %s: %llu tokens scored in %d window%s of up to %d\n", file.c_str(),
              static_cast<unsigned long long>(sc.scored), sc.windows, sc.windows == 1 ? "" : "s",
              n_ctx);
  std::printf("kv type          %s, %llu bytes/token (f16: %llu, %.1f%% saved)\n", kv_type.c_str(),
              static_cast<unsigned long long>(f.bytes),
              static_cast<unsigned long long>(f.bytes_f16), 100 * f.saved);
  std::printf("perplexity       %s (f16 KV: %s)\n", to_fixed(f.perplexity, 6).c_str(),
              to_fixed(f.baseline_perplexity, 6).c_str());
  if (compare) {
    std::printf("KL vs f16 KV     mean %s, max %s\n", to_fixed(f.mean_kl, 4).c_str(),
                to_fixed(sc.kl_max, 4).c_str());
    std::printf("top-1 agreement  %.2f%% (%llu of %llu)\n", 100 * f.top1,
                static_cast<unsigned long long>(sc.agree),
                static_cast<unsigned long long>(sc.scored));
  } else {
    std::printf("KL vs f16 KV     0 (f16 is the baseline itself)\n");
  }
}

}  // namespace

int cmd_perplexity(const Argv& argv) {
  auto args =
      Args::parse(argv, with(kSessionOptions, {"--file", "--turn-tokens"}), {"--json", "--stream"});
  if (!args) return fail(args.message());
  auto file = args->require("--file");
  if (!file) return fail(file.message());
  std::error_code ec;
  if (std::filesystem::is_directory(*file, ec))
    return fail(*file + ": is a directory, not a text file");
  auto text = read_file(*file);
  if (!text) return fail(text.message());
  if (text->empty()) return fail(*file + ": the file is empty; perplexity needs some text");
  auto model = load_model(*args);
  if (!model) return fail(model.message());

  const std::vector<TokenId> ids = (*model)->tokenizer().encode(*text, /*add_bos=*/true);
  if (ids.size() < 2) {
    return fail(*file + ": " + std::to_string(ids.size()) +
                " token(s) with BOS; perplexity needs at least 2 (BOS and one token to predict)");
  }

  auto session = make_session(*args, *model);
  if (!session) return fail(session.message());
  Session& sess = **session;
  quiet_warnings(sess);
  const int32_t n_ctx = sess.n_ctx();
  if (n_ctx < 2) return fail("--ctx must be at least 2 (BOS and one token to predict)");
  if (args->has("--stream"))
    return perplexity_stream(*args, sess, (*model)->info().path, *file, ids);
  if (args->has("--turn-tokens")) return fail("--turn-tokens goes with --stream");
  const std::string kv_type = sess.options().kv_type;
  const bool compare = kv_type != kBaselineKvType;

  std::unique_ptr<Session> baseline;
  if (compare) {
    auto b = make_baseline(argv, *model);
    if (!b) return fail(b.message());
    baseline = std::move(*b);
  }

  auto scores = score_windows(sess, baseline.get(), ids, (*model)->info().n_vocab);
  if (!scores) return fail(scores.message());
  const Scores& sc = *scores;
  const Figures f = figures_of(sc, sess, baseline.get());
  if (args->has("--json")) {
    print_json((*model)->info().path, *file, sess, kv_type, sc, f);
    return 0;
  }
  print_text(*file, n_ctx, kv_type, compare, sc, f);
  return 0;
}

}  // namespace kvchat::cli
