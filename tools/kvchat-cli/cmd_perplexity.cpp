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

}  // namespace

int cmd_perplexity(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--file"}), {"--json"});
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
  const Tokenizer& tok = (*model)->tokenizer();
  const int32_t n_vocab = (*model)->info().n_vocab;

  const std::vector<TokenId> ids = tok.encode(*text, /*add_bos=*/true);
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
  const std::string kv_type = sess.options().kv_type;
  const std::string baseline_type = "f16";
  const bool compare = kv_type != baseline_type;

  std::unique_ptr<Session> baseline;
  if (compare) {
    Argv base_argv = argv;  // the same options with f16 K/V (a later option wins)
    base_argv.push_back("--kv-type");
    base_argv.push_back(baseline_type);
    auto base_args = Args::parse(base_argv, with(kSessionOptions, {"--file"}), {"--json"});
    if (!base_args) return fail(base_args.message());
    auto b = make_session(*base_args, *model);
    if (!b) return fail(b.message());
    baseline = std::move(*b);
    quiet_warnings(*baseline);
  }

  const TokenId bos = ids[0];
  const size_t n_text = ids.size() - 1;
  const size_t chunk = static_cast<size_t>(n_ctx) - 1;
  double nll = 0, base_nll = 0, kl_sum = 0, kl_max = 0;
  uint64_t scored = 0, agree = 0;
  int32_t windows = 0;
  std::vector<TokenId> window;
  std::vector<float> logits, base_logits;
  std::vector<double> lp, lq;
  for (size_t start = 0; start < n_text; start += chunk) {
    const size_t len = std::min(chunk, n_text - start);
    window.assign(1, bos);
    window.insert(window.end(), ids.begin() + 1 + static_cast<std::ptrdiff_t>(start),
                  ids.begin() + 1 + static_cast<std::ptrdiff_t>(start + len));
    sess.truncate(0);
    if (auto s = sess.eval(window, &logits); !s) return fail(s.message());
    if (compare) {
      baseline->truncate(0);
      if (auto s = baseline->eval(window, &base_logits); !s) return fail(s.message());
    }
    for (size_t i = 0; i + 1 < window.size(); ++i) {
      const TokenId next = window[i + 1];
      const std::span<const float> row(logits.data() + i * n_vocab, static_cast<size_t>(n_vocab));
      log_softmax(row, lq);
      nll -= lq[next];
      if (compare) {
        const std::span<const float> brow(base_logits.data() + i * n_vocab,
                                          static_cast<size_t>(n_vocab));
        log_softmax(brow, lp);
        base_nll -= lp[next];
        const double kl = kl_divergence(lp, lq);
        kl_sum += kl;
        kl_max = std::max(kl_max, kl);
        agree += argmax(row) == argmax(brow);
      }
      ++scored;
    }
    ++windows;
  }

  const double perplexity = std::exp(nll / static_cast<double>(scored));
  const double baseline_perplexity =
      compare ? std::exp(base_nll / static_cast<double>(scored)) : perplexity;
  const double mean_kl = compare ? kl_sum / static_cast<double>(scored) : 0.0;
  const double top1 = compare ? static_cast<double>(agree) / static_cast<double>(scored) : 1.0;
  const uint64_t bytes = sess.memory_report().kv_bytes_per_token;
  const uint64_t bytes_f16 = compare ? baseline->memory_report().kv_bytes_per_token : bytes;
  const double saved = 1.0 - static_cast<double>(bytes) / static_cast<double>(bytes_f16);

  if (args->has("--json")) {
    nlohmann::json j = {
        {"model", (*model)->info().path},
        {"file", *file},
        {"backend", std::string(sess.backend_name())},
        {"kv_type", kv_type},
        {"baseline_kv_type", baseline_type},
        {"ctx", n_ctx},
        {"windows", windows},
        {"tokens", scored},
        {"perplexity", perplexity},
        {"baseline_perplexity", baseline_perplexity},
        {"mean_kl", mean_kl},
        {"max_kl", kl_max},
        {"top1_agreement", top1},
        {"kv_bytes_per_token", bytes},
        {"kv_bytes_per_token_f16", bytes_f16},
        {"memory_saved_fraction", saved},
    };
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::printf("text             %s: %llu tokens scored in %d window%s of up to %d\n", file->c_str(),
              static_cast<unsigned long long>(scored), windows, windows == 1 ? "" : "s", n_ctx);
  std::printf("kv type          %s, %llu bytes/token (f16: %llu, %.1f%% saved)\n", kv_type.c_str(),
              static_cast<unsigned long long>(bytes), static_cast<unsigned long long>(bytes_f16),
              100 * saved);
  std::printf("perplexity       %s (f16 KV: %s)\n", to_fixed(perplexity, 6).c_str(),
              to_fixed(baseline_perplexity, 6).c_str());
  if (compare) {
    std::printf("KL vs f16 KV     mean %s, max %s\n", to_fixed(mean_kl, 4).c_str(),
                to_fixed(kl_max, 4).c_str());
    std::printf("top-1 agreement  %.2f%% (%llu of %llu)\n", 100 * top1,
                static_cast<unsigned long long>(agree), static_cast<unsigned long long>(scored));
  } else {
    std::printf("KL vs f16 KV     0 (f16 is the baseline itself)\n");
  }
  return 0;
}

}  // namespace kvchat::cli
