// bench --compare-no-cache: what the KV cache saves. At several context lengths L,
// decode the same greedy tokens twice: with the cache (each step evaluates 1 token)
// and without it (each step re-evaluates all L + i tokens). Prints both speeds, their
// ratio, the tokens each mode evaluated, and whether the outputs are identical.
#include <chrono>
#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/sampler.h"

namespace kvchat::cli {

namespace {

struct DecodeRun {
  std::vector<TokenId> ids;
  double seconds = 0;
  uint64_t evaluated = 0;  // tokens run through the forward pass while decoding
};

Result<DecodeRun> decode(const Args& args, std::shared_ptr<const Model> model, bool no_cache,
                         const std::vector<TokenId>& prompt, int n) {
  SessionDefaults d;
  d.n_ctx = static_cast<int32_t>(prompt.size()) + n;
  d.no_kv_cache = no_cache;
  auto session = make_session(args, std::move(model), d);
  if (!session) return session.error();
  if (auto s = (*session)->eval(prompt); !s) return Error{s.message()};
  DecodeRun run;
  const uint64_t before = (*session)->tokens_evaluated();
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    const TokenId next = argmax((*session)->last_logits());
    run.ids.push_back(next);
    if (auto s = (*session)->eval(std::span<const TokenId>(&next, 1)); !s)
      return Error{s.message()};
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.evaluated = (*session)->tokens_evaluated() - before;
  return run;
}

}  // namespace

int bench_compare_no_cache(const Args& args) {
  auto tg = args.get_int("--tg", 16);
  if (!tg || *tg < 1) return fail("--tg must be a positive integer");
  auto parsed = args.get_positive_ints("--contexts", "32,64,128,256,448");
  if (!parsed) return fail(parsed.message());
  const std::vector<int>& contexts = *parsed;
  auto model = load_model(args);
  if (!model) return fail(model.message());
  const int32_t n_vocab = (*model)->info().n_vocab;

  nlohmann::json rows = nlohmann::json::array();
  if (!args.has("--json")) {
    std::printf("%8s %14s %16s %8s %12s %12s %10s\n", "context", "cached tok/s", "no-cache tok/s",
                "ratio", "evaluated", "evaluated", "identical");
    std::printf("%8s %14s %16s %8s %12s %12s %10s\n", "", "", "", "", "(cached)", "(no cache)", "");
  }
  for (int L : contexts) {
    std::mt19937 rng(L);
    std::uniform_int_distribution<TokenId> pick(3, n_vocab - 1);
    std::vector<TokenId> prompt(L);
    for (TokenId& t : prompt) t = pick(rng);
    prompt[0] = (*model)->tokenizer().bos();
    auto cached = decode(args, *model, false, prompt, static_cast<int>(*tg));
    if (!cached) return fail(cached.message());
    auto uncached = decode(args, *model, true, prompt, static_cast<int>(*tg));
    if (!uncached) return fail(uncached.message());
    const double c_tps = *tg / cached->seconds, u_tps = *tg / uncached->seconds;
    const bool same = cached->ids == uncached->ids;
    rows.push_back({{"context", L},
                    {"decode_tokens", *tg},
                    {"cached_tokens_per_second", c_tps},
                    {"no_cache_tokens_per_second", u_tps},
                    {"speedup", c_tps / u_tps},
                    {"cached_tokens_evaluated", cached->evaluated},
                    {"no_cache_tokens_evaluated", uncached->evaluated},
                    {"identical_output", same}});
    if (!args.has("--json")) {
      std::printf("%8d %14.1f %16.1f %7.1fx %12llu %12llu %10s\n", L, c_tps, u_tps, c_tps / u_tps,
                  static_cast<unsigned long long>(cached->evaluated),
                  static_cast<unsigned long long>(uncached->evaluated), same ? "yes" : "NO");
    }
  }
  if (args.has("--json"))
    std::printf("%s\n", json_text(nlohmann::json{{"compare_no_cache", rows}}, 2).c_str());
  return 0;
}

}  // namespace kvchat::cli
