// bench: prefill and decode throughput, weight bytes read per decoded token, and
// decode's share of the memory-bandwidth roofline measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "kvchat/sampler.h"
#include "memory_bandwidth.h"
#include "model/llama_weights.h"

namespace kvchat::cli {

namespace {

// Bytes of weights one decoded token reads: every matrix and norm once, plus one
// embedding row (the tied output matrix counts as a full read of token_embd).
uint64_t weight_bytes_per_token(const Model& model) {
  const LlamaWeights& w = model.weights();
  auto bytes = [](const WeightView& v) { return v.row_bytes * v.rows; };
  uint64_t total = w.token_embd.row_bytes + bytes(w.output_norm) + bytes(w.output);
  for (const LlamaLayerWeights& L : w.layers) {
    total += bytes(L.attn_norm) + bytes(L.wq) + bytes(L.wk) + bytes(L.wv) + bytes(L.wo) +
             bytes(L.ffn_norm) + bytes(L.w_gate) + bytes(L.w_up) + bytes(L.w_down);
  }
  return total;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int cmd_bench(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--pp", "--tg", "--bw-mib", "--contexts"}),
                          {"--json", "--compare-no-cache"});
  if (!args) return fail(args.message());
  if (args->has("--compare-no-cache")) return bench_compare_no_cache(*args);
  auto pp = args->get_int("--pp", 512);
  auto tg = args->get_int("--tg", 128);
  auto bw_mib = args->get_int("--bw-mib", 1024);
  if (!pp || !tg || !bw_mib) return fail("--pp, --tg and --bw-mib take integers");
  if (*pp < 1 || *tg < 1 || *bw_mib < 1) return fail("--pp, --tg and --bw-mib must be positive");
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  const ModelInfo& info = (*model)->info();
  // Without --ctx, enough context for the run (throughput only; may pass the trained length).
  auto session = make_session(*args, *model, {static_cast<int32_t>(*pp + *tg)});
  if (!session) return fail(session.message());
  if (*pp + *tg > (*session)->n_ctx()) {
    return fail("--pp + --tg = " + std::to_string(*pp + *tg) + " exceeds --ctx " +
                std::to_string((*session)->n_ctx()));
  }
  int threads = static_cast<int>(*args->get_int("--threads", 0));
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::mt19937 rng(1234);
  std::uniform_int_distribution<TokenId> pick(3, info.n_vocab - 1);
  std::vector<TokenId> prompt(*pp);
  for (TokenId& t : prompt) t = pick(rng);

  // Warm-up: touch every weight page once.
  {
    const TokenId one[1] = {prompt[0]};
    if (auto s = (*session)->eval(one); !s) return fail(s.message());
    (*session)->truncate(0);
  }
  double t0 = now_seconds();
  if (auto s = (*session)->eval(prompt); !s) return fail(s.message());
  const double prefill_s = now_seconds() - t0;

  TokenId next = argmax((*session)->last_logits());
  t0 = now_seconds();
  for (int64_t i = 0; i < *tg; ++i) {
    const TokenId one[1] = {next};
    if (auto s = (*session)->eval(one); !s) return fail(s.message());
    next = argmax((*session)->last_logits());
  }
  const double decode_s = now_seconds() - t0;

  const Bandwidth bw = measure_bandwidth(threads, static_cast<uint64_t>(*bw_mib) << 20, 5);
  const uint64_t wbytes = weight_bytes_per_token(**model);
  const MemoryReport mem = (*session)->memory_report();
  // Average K and V bytes read per decoded token over the decode phase.
  const double kv_read = mem.kv_bytes_per_token * (*pp + *tg / 2.0);
  const double pp_tps = *pp / prefill_s, tg_tps = *tg / decode_s;
  const double achieved = tg_tps * (wbytes + kv_read);
  const double share_copy = achieved / bw.copy_bytes_per_second;
  const double share_read = achieved / bw.read_bytes_per_second;

  if (args->has("--json")) {
    nlohmann::json j = {
        {"model", info.path},
        {"backend", std::string((*session)->backend_name())},
        {"threads", threads},
        {"pp", *pp},
        {"tg", *tg},
        {"prefill_tokens_per_second", pp_tps},
        {"decode_tokens_per_second", tg_tps},
        {"weight_bytes_per_token", wbytes},
        {"kv_bytes_read_per_token_avg", kv_read},
        {"decode_bytes_per_second", achieved},
        {"copy_bandwidth_bytes_per_second", bw.copy_bytes_per_second},
        {"read_bandwidth_bytes_per_second", bw.read_bytes_per_second},
        {"decode_share_of_copy_bandwidth", share_copy},
        {"decode_share_of_read_bandwidth", share_read},
        {"kv_allocated_bytes", mem.kv_allocated_bytes},
        {"scratch_bytes", mem.scratch_bytes},
    };
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("model            %s (%s, %llu weight bytes)\n", info.name.c_str(), info.path.c_str(),
              static_cast<unsigned long long>(info.weight_bytes()));
  std::printf("backend          %s, %d threads\n", std::string((*session)->backend_name()).c_str(), threads);
  std::printf("prefill          %lld tokens: %.1f tok/s\n", *pp, pp_tps);
  std::printf("decode           %lld tokens: %.2f tok/s\n", *tg, tg_tps);
  std::printf("bytes per token  %.1f MB weights + %.2f MB KV (avg)\n", wbytes / 1e6, kv_read / 1e6);
  std::printf("decode traffic   %.2f GB/s\n", achieved / 1e9);
  std::printf("memory bandwidth copy %.2f GB/s, read %.2f GB/s (%llu MiB buffers, same run)\n",
              bw.copy_bytes_per_second / 1e9, bw.read_bytes_per_second / 1e9,
              static_cast<unsigned long long>(bw.buffer_bytes >> 20));
  std::printf("roofline share   %.1f%% of copy, %.1f%% of read bandwidth\n", 100 * share_copy,
              100 * share_read);
  return 0;
}

}  // namespace kvchat::cli
