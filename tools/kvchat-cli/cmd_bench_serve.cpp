// bench-serve: batched decode across sessions (Session::decode_together). For each N of
// --parallel, N sessions each hold a distinct prompt of --prompt-tokens tokens, then decode
// --tg tokens together, one forward pass per step; reported: the aggregate tok/s (N x tg /
// time) and the per-session tok/s (tg / time), the best of --runs runs taken alternately
// over the N values (the machine may be shared: the least disturbed run).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "args.h"
#include "cli_common.h"
#include "commands.h"
#include "kvchat/session.h"

namespace kvchat::cli {
namespace {

// /proc/cpuinfo's first "model name", or "unknown".
std::string cpu_model_name() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) break;
    const size_t start = line.find_first_not_of(' ', colon + 1);
    return start == std::string::npos ? "unknown" : line.substr(start);
  }
  return "unknown";
}

// Session i's token at step t: distinct per session, spread over the vocabulary.
TokenId bench_token(int32_t session, int32_t t, int32_t n_vocab) {
  return static_cast<TokenId>((int64_t{session} * 7919 + int64_t{t} * 131 + 17) % n_vocab);
}

struct ParallelResult {
  int parallel = 0;
  std::vector<double> seconds;  // (runs) the decode time of each run
  double best() const { return *std::min_element(seconds.begin(), seconds.end()); }
};

}  // namespace

int cmd_bench_serve(const Argv& argv) {
  auto args = Args::parse(
      argv, with(kSessionOptions, {"--parallel", "--tg", "--prompt-tokens", "--runs"}), {"--json"});
  if (!args) return fail(args.message());
  auto parallel = args->get_positive_ints("--parallel", "1,2,4,8");
  if (!parallel) return fail(parallel.message());
  auto tg = args->get_int("--tg", 32);
  auto prompt_tokens = args->get_int("--prompt-tokens", 64);
  auto runs = args->get_int("--runs", 3);
  if (!tg || !prompt_tokens || !runs) return fail("--tg, --prompt-tokens and --runs take integers");
  if (*tg < 1 || *prompt_tokens < 1 || *runs < 1 || *runs > 100)
    return fail("--tg and --prompt-tokens must be positive, --runs 1..100");
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  const int32_t n_vocab = (*model)->info().n_vocab;
  const int max_parallel = *std::max_element(parallel->begin(), parallel->end());

  // max_parallel sessions, each prefilled once with its own prompt; every run truncates
  // the first N back to the prompt and decodes from there (the prompt's K/V kept).
  std::vector<std::unique_ptr<Session>> sessions;
  const auto p0 = std::chrono::steady_clock::now();
  for (int i = 0; i < max_parallel; ++i) {
    auto s = make_session(*args, *model);
    if (!s) return fail(s.message());
    std::vector<TokenId> prompt(static_cast<size_t>(*prompt_tokens));
    for (size_t t = 0; t < prompt.size(); ++t)
      prompt[t] = bench_token(i + max_parallel, static_cast<int32_t>(t), n_vocab);
    if (auto st = (*s)->eval(prompt); !st) return fail("prefill: " + st.message());
    sessions.push_back(std::move(*s));
  }
  const double prefill_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();

  std::vector<ParallelResult> results;
  for (int n : *parallel) results.push_back({n, {}});
  std::vector<Session*> active;
  std::vector<TokenId> tokens;
  for (int r = 0; r < *runs; ++r) {
    for (ParallelResult& res : results) {
      active.clear();
      for (int i = 0; i < res.parallel; ++i) {
        sessions[i]->truncate(static_cast<int32_t>(*prompt_tokens));
        active.push_back(sessions[i].get());
      }
      tokens.resize(res.parallel);
      const auto t0 = std::chrono::steady_clock::now();
      for (int32_t step = 0; step < *tg; ++step) {
        for (int i = 0; i < res.parallel; ++i) tokens[i] = bench_token(i, step, n_vocab);
        if (auto st = Session::decode_together(active, tokens); !st)
          return fail("decode: " + st.message());
      }
      res.seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }

  const Session& s0 = *sessions[0];
  const std::string cpu = cpu_model_name();
  auto aggregate = [&](const ParallelResult& r) { return r.parallel * *tg / r.best(); };
  const double one = results[0].parallel == 1 ? aggregate(results[0]) : 0;
  if (args->has("--json")) {
    nlohmann::json rows = nlohmann::json::array();
    for (const ParallelResult& r : results) {
      nlohmann::json row = {{"parallel", r.parallel},
                            {"aggregate_tok_s", aggregate(r)},
                            {"per_session_tok_s", *tg / r.best()},
                            {"decode_seconds", r.seconds}};
      if (one > 0) row["aggregate_vs_1"] = aggregate(r) / one;
      rows.push_back(row);
    }
    nlohmann::json j = {{"model", (*model)->info().name},
                        {"backend", std::string(s0.backend_name())},
                        {"cpu", cpu},
                        {"threads", s0.n_threads()},
                        {"decode_threads", s0.decode_threads()},
                        {"kv_type", s0.options().kv_type},
                        {"prompt_tokens", *prompt_tokens},
                        {"tg", *tg},
                        {"runs", *runs},
                        {"prefill_seconds", prefill_s},
                        {"results", rows}};
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("bench-serve: %s, backend %s, %d threads (decode %d), KV %s\n",
              (*model)->info().name.c_str(), std::string(s0.backend_name()).c_str(), s0.n_threads(),
              s0.decode_threads(), s0.options().kv_type.c_str());
  std::printf("cpu: %s\n", cpu.c_str());
  std::printf("%lld-token prompts, %lld decode steps, best of %lld runs\n",
              static_cast<long long>(*prompt_tokens), static_cast<long long>(*tg),
              static_cast<long long>(*runs));
  std::printf("%10s %16s %18s %10s\n", "sessions", "aggregate tok/s", "per-session tok/s", "vs 1");
  for (const ParallelResult& r : results) {
    std::printf("%10d %16.2f %18.2f", r.parallel, aggregate(r), *tg / r.best());
    if (one > 0) std::printf(" %9.2fx", aggregate(r) / one);
    std::printf("\n");
  }
  return 0;
}

}  // namespace kvchat::cli
