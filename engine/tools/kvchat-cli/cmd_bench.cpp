// bench: prefill and decode throughput at one or more contexts and KV types, bytes read
// per decoded token, and shares of the ceilings measured in the same run: memory
// bandwidth (host, or the GPU's device-to-device copy) and, on a GPU, a cuBLAS GEMM.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>
#include <thread>

#include <nlohmann/json.hpp>

#include "backend/cuda_plugin.h"
#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/sampler.h"
#include "memory_bandwidth.h"
#include "model/model_hparams.h"
#include "model/model_weights.h"
#include "util/cpu_topology.h"
#include "util/process_memory.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

// Bytes of weights one decoded token reads: every matrix and norm once, plus one
// embedding row (the tied output matrix counts as a full read of token_embd).
uint64_t weight_bytes_per_token(const Model& model) {
  const ModelWeights& w = model.weights();
  auto bytes = [](const WeightView& v) { return v.row_bytes * v.rows; };
  uint64_t total = w.token_embd.row_bytes + bytes(w.output_norm) + bytes(w.output);
  for (const ModelLayerWeights& L : w.layers) {
    total += bytes(L.attn_norm) + bytes(L.wq) + bytes(L.wk) + bytes(L.wv) + bytes(L.wo) +
             bytes(L.ffn_norm) + bytes(L.w_gate) + bytes(L.w_up) + bytes(L.w_down) +
             bytes(L.bq) + bytes(L.bk) + bytes(L.bv) + bytes(L.q_norm) + bytes(L.k_norm) +
             bytes(L.post_attn_norm) + bytes(L.post_ffw_norm);
  }
  return total;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}


// Matmul FLOPs of one token through every layer (2 per weight), without the output.
double matmul_flops_per_token(const ModelHParams& hp) {
  const double per_layer = static_cast<double>(hp.n_embd) * (2.0 * hp.q_dim() + 2.0 * hp.kv_dim()) +
                           3.0 * hp.n_embd * hp.n_ff;
  return 2.0 * per_layer * hp.n_layers;
}

// Attention FLOPs of a causal prefill of n tokens from position 0: q.k and p.v for each
// (query, key) pair, per head and layer: n(n+1)/2 pairs, or on a layer with a sliding
// window W < n, W(W+1)/2 + (n-W)W.
double attention_flops(const ModelHParams& hp, double n) {
  double pairs = 0;
  for (int32_t l = 0; l < hp.n_layers; ++l) {
    const double w = hp.window(l);
    pairs += w > 0 && w < n ? w * (w + 1) / 2 + (n - w) * w : n * (n + 1) / 2;
  }
  return 4.0 * hp.q_dim() * pairs;
}

struct BenchRun {
  std::string kv_type;
  int context = 0;  // prompt tokens evaluated before decoding
  double prefill_tps = 0, decode_tps = 0;
  double kv_read = 0;          // average K/V bytes read per decoded token
  double decode_bytes_per_second = 0;
  double prefill_flops_per_second = 0;
  uint64_t resident_bytes = 0;     // the process's resident memory right after decoding
  uint64_t kv_allocated_bytes = 0; // KV blocks held then
};

// "--contexts 0,4096": comma-separated depths >= 0.
Result<std::vector<int>> parse_contexts(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end || v < 0 || v > (1 << 30)) {
      return Error{"option --contexts expects comma-separated integers >= 0, got '" + item + "'"};
    }
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) return Error{"option --contexts expects comma-separated integers >= 0"};
  return out;
}

}  // namespace

int cmd_bench(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--pp", "--tg", "--bw-mib", "--contexts", "--kv-types", "--replies"}),
                          {"--json", "--compare-no-cache", "--snapshot"});
  if (!args) return fail(args.message());
  if (args->has("--compare-no-cache")) return bench_compare_no_cache(*args);
  if (args->has("--snapshot")) return bench_snapshot(*args);
  auto pp = args->get_int("--pp", 512);
  auto tg = args->get_int("--tg", 128);
  auto bw_mib = args->get_int("--bw-mib", 1024);
  if (!pp || !tg || !bw_mib) return fail("--pp, --tg and --bw-mib take integers");
  if (*pp < 1 || *tg < 1 || *bw_mib < 1) return fail("--pp, --tg and --bw-mib must be positive");
  // Each context: a prefill of that many tokens, then --tg decoded tokens after it
  // (0: decoding from an empty cache, no prefill measured).
  auto parsed = parse_contexts(args->get("--contexts", std::to_string(*pp)));
  if (!parsed) return fail(parsed.message());
  const std::vector<int>& contexts = *parsed;
  std::vector<std::string> kv_types;
  {
    std::istringstream in(args->get("--kv-types", args->get("--kv-type", "f16")));
    for (std::string t; std::getline(in, t, ',');) kv_types.push_back(t);
  }
  if (kv_types.empty()) return fail("--kv-types expects comma-separated KV types (f32, f16, q8_0, q4_0)");
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  const ModelInfo& info = (*model)->info();
  const int max_context = *std::max_element(contexts.begin(), contexts.end());
  // Without --ctx, enough context for the run (throughput only; may pass the trained length).
  auto session = make_session(*args, *model, {static_cast<int32_t>(max_context + *tg), kv_types[0]});
  if (!session) return fail(session.message());
  Session& sess = **session;
  if (max_context + *tg > sess.n_ctx()) {
    return fail("the largest context + --tg = " + std::to_string(max_context + *tg) + " exceeds --ctx " +
                std::to_string(sess.n_ctx()));
  }
  const bool gpu = sess.backend_name() == "cuda";
  int threads = static_cast<int>(*args->get_int("--threads", 0));
  if (threads <= 0) threads = physical_core_count();  // what the CPU backend uses by default

  std::mt19937 rng(1234);
  std::uniform_int_distribution<TokenId> pick(3, info.n_vocab - 1);
  std::vector<TokenId> prompt(std::max(max_context, 1));
  for (TokenId& t : prompt) t = pick(rng);

  // Warm-up: touch every weight page once (and, on a GPU, load the kernels).
  {
    const TokenId one[1] = {prompt[0]};
    if (auto s = sess.eval(one); !s) return fail(s.message());
    if (auto s = sess.eval(one); !s) return fail(s.message());
    sess.truncate(0);
  }
  const uint64_t wbytes = weight_bytes_per_token(**model);
  std::vector<BenchRun> runs;
  for (const std::string& kv_type : kv_types) {
    sess.truncate(0);
    if (auto s = sess.set_kv_type(kv_type); !s) return fail(s.message());
    for (int context : contexts) {
      sess.truncate(0);
      BenchRun run;
      run.kv_type = kv_type;
      run.context = context;
      double t0 = now_seconds();
      if (context > 0) {
        if (auto s = sess.eval(std::span<const TokenId>(prompt.data(), context)); !s) return fail(s.message());
      }
      const double prefill_s = now_seconds() - t0;
      TokenId next = context > 0 ? argmax(sess.last_logits()) : prompt[0];
      t0 = now_seconds();
      for (int64_t i = 0; i < *tg; ++i) {
        const TokenId one[1] = {next};
        if (auto s = sess.eval(one); !s) return fail(s.message());
        next = argmax(sess.last_logits());
      }
      const double decode_s = now_seconds() - t0;
      const MemoryReport mem = sess.memory_report();
      run.resident_bytes = read_process_memory().resident_bytes;  // before the ceilings' buffers exist
      run.kv_allocated_bytes = mem.kv_allocated_bytes;
      run.prefill_tps = context > 0 ? context / prefill_s : 0;
      run.decode_tps = *tg / decode_s;
      run.kv_read = mem.kv_bytes_per_token * (context + *tg / 2.0);
      run.decode_bytes_per_second = run.decode_tps * (wbytes + run.kv_read);
      run.prefill_flops_per_second =
          context > 0 ? (matmul_flops_per_token((*model)->hparams()) * context +
                         attention_flops((*model)->hparams(), context)) / prefill_s
                      : 0;
      runs.push_back(run);
    }
  }

  // The ceilings, measured after the runs in the same process.
  double copy_bw = 0, read_bw = 0, gemm_rate = 0, fma_peak = 0;
  uint64_t bw_buffer = 0;
  std::string device = "cpu";
  if (gpu) {
    auto roof = measure_cuda_roofline(static_cast<uint64_t>(*bw_mib) << 20, 8192, 2048, 8192);
    if (!roof) return fail(roof.message());
    copy_bw = roof->copy_bytes_per_second;
    gemm_rate = roof->gemm_flops_per_second;
    bw_buffer = roof->copy_buffer_bytes;
    device = roof->device;
  } else {
    const Bandwidth bw = measure_bandwidth(threads, static_cast<uint64_t>(*bw_mib) << 20, 5);
    copy_bw = bw.copy_bytes_per_second;
    read_bw = bw.read_bytes_per_second;
    bw_buffer = bw.buffer_bytes;
    fma_peak = measure_fma_peak(threads, 3);
  }
  const MemoryReport mem = sess.memory_report();

  if (args->has("--json")) {
    nlohmann::json rows = nlohmann::json::array();
    for (const BenchRun& r : runs) {
      nlohmann::json row = {
          {"kv_type", r.kv_type},
          {"context", r.context},
          {"prefill_tokens_per_second", r.prefill_tps},
          {"prefill_flops_per_second", r.prefill_flops_per_second},
          {"decode_tokens_per_second", r.decode_tps},
          {"kv_bytes_read_per_token_avg", r.kv_read},
          {"decode_bytes_per_second", r.decode_bytes_per_second},
          {"decode_share_of_copy_bandwidth", r.decode_bytes_per_second / copy_bw},
      };
      if (read_bw > 0) row["decode_share_of_read_bandwidth"] = r.decode_bytes_per_second / read_bw;
      if (gemm_rate > 0) row["prefill_share_of_gemm_rate"] = r.prefill_flops_per_second / gemm_rate;
      // Resident memory beyond the (mapped) weights and the KV blocks: buffers, code, heap.
      row["resident_bytes"] = r.resident_bytes;
      row["resident_over_weights_and_kv_bytes"] =
          static_cast<int64_t>(r.resident_bytes) - static_cast<int64_t>(info.weight_bytes() + r.kv_allocated_bytes);
      if (fma_peak > 0) row["prefill_share_of_fma_peak"] = r.prefill_flops_per_second / fma_peak;
      rows.push_back(row);
    }
    // The first run's figures at the top level, every run under "runs".
    nlohmann::json j = rows[0];
    j["model"] = info.path;
    j["backend"] = std::string(sess.backend_name());
    j["device"] = device;
    j["threads"] = threads;
    j["pp"] = runs[0].context;
    j["tg"] = *tg;
    j["weight_bytes_per_token"] = wbytes;
    j["copy_bandwidth_bytes_per_second"] = copy_bw;
    if (read_bw > 0) j["read_bandwidth_bytes_per_second"] = read_bw;
    if (gemm_rate > 0) j["gemm_flops_per_second"] = gemm_rate;
    if (fma_peak > 0) j["fma_peak_flops_per_second"] = fma_peak;
    j["kv_allocated_bytes"] = mem.kv_allocated_bytes;
    if (mem.kv_windowed_layers > 0) {  // sliding-window layers: what their window freed
      j["kv_windowed_allocated_bytes"] = mem.kv_windowed_allocated_bytes;
      j["kv_window_freed_bytes"] = mem.kv_window_freed_bytes;
      j["kv_bytes_without_window"] = mem.kv_bytes_without_window();
      j["kv_tokens"] = mem.kv_tokens;
    }
    j["scratch_bytes"] = mem.scratch_bytes;
    j["runs"] = rows;
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::printf("model            %s (%s, %llu weight bytes)\n", printable(info.name).c_str(), info.path.c_str(),
              static_cast<unsigned long long>(info.weight_bytes()));
  std::printf("backend          %s, %s\n", std::string(sess.backend_name()).c_str(),
              gpu ? device.c_str() : (std::to_string(threads) + " threads").c_str());
  std::printf("weights/token    %.1f MB\n", wbytes / 1e6);
  if (gpu) {
    std::printf("ceilings         copy %.1f GB/s (read+write, %llu MiB), cuBLAS f16 GEMM %.1f TFLOP/s (same run)\n",
                copy_bw / 1e9, static_cast<unsigned long long>(bw_buffer >> 20), gemm_rate / 1e12);
  } else {
    std::printf("memory bandwidth copy %.2f GB/s, read %.2f GB/s (%llu MiB buffers, same run)\n", copy_bw / 1e9,
                read_bw / 1e9, static_cast<unsigned long long>(bw_buffer >> 20));
    std::printf("f32 FMA peak     %.1f GFLOP/s (%d threads, same run); prefill below at %s of it\n", fma_peak / 1e9,
                threads, runs.empty() ? "-" : (std::to_string(static_cast<int>(100 * runs[0].prefill_flops_per_second / fma_peak + 0.5)) + "%").c_str());
  }
  std::printf("%-6s %8s %12s %10s %12s %12s %10s %10s %12s\n", "kv", "context", "prefill t/s", "TFLOP/s", "decode t/s",
              "KV MB/tok", "GB/s", "roofline", "RSS-W-KV MB");
  for (const BenchRun& r : runs) {
    const double over = (static_cast<double>(r.resident_bytes) - static_cast<double>(info.weight_bytes()) -
                         static_cast<double>(r.kv_allocated_bytes)) / 1e6;
    std::printf("%-6s %8d %12.1f %10.2f %12.2f %12.2f %10.2f %9.1f%% %12.1f\n", r.kv_type.c_str(), r.context, r.prefill_tps,
                r.prefill_flops_per_second / 1e12, r.decode_tps, r.kv_read / 1e6, r.decode_bytes_per_second / 1e9,
                100 * r.decode_bytes_per_second / (gpu ? copy_bw : read_bw), over);
  }
  return 0;
}

}  // namespace kvchat::cli
