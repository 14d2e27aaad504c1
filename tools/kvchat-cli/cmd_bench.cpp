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
#include "bench_stats.h"
#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kv/kv_type.h"
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
             bytes(L.ffn_norm) + bytes(L.w_gate) + bytes(L.w_up) + bytes(L.w_down) + bytes(L.bq) +
             bytes(L.bk) + bytes(L.bv) + bytes(L.q_norm) + bytes(L.k_norm) +
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

// What one prefill + decode of one (kv type, context) measured.
struct BenchSample {
  double prefill_tps = 0, decode_tps = 0;  // 0 prefill when the context is 0
  uint64_t resident_bytes = 0;             // the process's resident memory right after decoding
  uint64_t kv_allocated_bytes = 0;         // KV blocks held then
};

// One (kv type, context) over --repeat samples. The rates derived from a sample (bytes/s,
// FLOP/s) are fixed multiples of its tok/s, so their spread is the tok/s spread scaled.
struct BenchRun {
  std::string kv_type;
  int context = 0;                                      // prompt tokens evaluated before decoding
  std::vector<double> prefill_samples, decode_samples;  // tok/s of each repeat, in run order
  Spread prefill_tps, decode_tps;
  double kv_read = 0;  // average K/V bytes read per decoded token
  Spread decode_bytes_per_second, prefill_flops_per_second;
  uint64_t resident_bytes = 0;      // of the repeat with the most resident memory
  uint64_t kv_allocated_bytes = 0;  // KV blocks held in that repeat
};

// From an empty cache: a prefill of `context` tokens of `prompt`, then `tg` greedy decode steps.
Result<BenchSample> measure_once(Session& sess, const std::vector<TokenId>& prompt, int context,
                                 int64_t tg) {
  sess.truncate(0);
  double t0 = now_seconds();
  if (context > 0) {
    if (auto s = sess.eval(std::span<const TokenId>(prompt.data(), context)); !s)
      return Error{s.message()};
  }
  const double prefill_s = now_seconds() - t0;
  TokenId next = context > 0 ? argmax(sess.last_logits()) : prompt[0];
  t0 = now_seconds();
  for (int64_t i = 0; i < tg; ++i) {
    const TokenId one[1] = {next};
    if (auto s = sess.eval(one); !s) return Error{s.message()};
    next = argmax(sess.last_logits());
  }
  const double decode_s = now_seconds() - t0;
  BenchSample sample;
  sample.prefill_tps = context > 0 ? context / prefill_s : 0;
  sample.decode_tps = tg / decode_s;
  sample.resident_bytes =
      read_process_memory().resident_bytes;  // before the ceilings' buffers exist
  sample.kv_allocated_bytes = sess.memory_report().kv_allocated_bytes;
  return sample;
}

// Terminal columns of UTF-8 text without wide characters: continuation bytes take none.
size_t columns(const std::string& s) {
  return std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
}

// `s` padded with spaces to `width` terminal columns.
std::string padded(const std::string& s, size_t width, bool left_aligned) {
  const std::string fill(width > columns(s) ? width - columns(s) : 0, ' ');
  return left_aligned ? s + fill : fill + s;
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "12.34" for one sample, "12.34 (11.90–12.80)" (median, min–max) for several.
std::string spread_cell(const Spread& s, int decimals, bool with_range) {
  std::string cell = fixed(s.median, decimals);
  if (with_range) cell += " (" + fixed(s.min, decimals) + "\u2013" + fixed(s.max, decimals) + ")";
  return cell;
}

// figure `name` = the median, `name`_min, `name`_max.
void put_spread(nlohmann::json& row, const std::string& name, const Spread& s) {
  row[name] = s.median;
  row[name + "_min"] = s.min;
  row[name + "_max"] = s.max;
}

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

// The throughput bench's options (--compare-no-cache and --snapshot aside).
struct BenchOptions {
  long long tg = 0, bw_mib = 0;
  long long repeat = 1;       // every (kv type, context) measured this many times
  std::vector<int> contexts;  // prefill depths, each followed by --tg decoded tokens
  std::vector<std::string> kv_types;
};

// --pp --tg --bw-mib --repeat --contexts --kv-types, checked.
Result<BenchOptions> parse_bench_options(const Args& args) {
  BenchOptions o;
  auto pp = args.get_int("--pp", 512);
  auto tg = args.get_int("--tg", 128);
  auto bw_mib = args.get_int("--bw-mib", 1024);
  if (!pp || !tg || !bw_mib) return Error{"--pp, --tg and --bw-mib take integers"};
  if (*pp < 1 || *tg < 1 || *bw_mib < 1) return Error{"--pp, --tg and --bw-mib must be positive"};
  o.tg = *tg;
  o.bw_mib = *bw_mib;
  // Every (kv type, context) measured this many times; figures are the median (min–max).
  auto repeat = args.get_int("--repeat", 1);
  if (!repeat) return Error{repeat.message()};
  if (*repeat < 1 || *repeat > 100)
    return Error{"--repeat must be between 1 and 100, got " + std::to_string(*repeat)};
  o.repeat = *repeat;
  // Each context: a prefill of that many tokens, then --tg decoded tokens after it
  // (0: decoding from an empty cache, no prefill measured).
  auto parsed = parse_contexts(args.get("--contexts", std::to_string(*pp)));
  if (!parsed) return Error{parsed.message()};
  o.contexts = std::move(*parsed);
  {
    std::istringstream in(args.get("--kv-types", args.get("--kv-type", "f16")));
    for (std::string t; std::getline(in, t, ',');) {
      if (!parse_kv_types(t)) return Error{"--kv-types: unknown KV type '" + t + "'"};
      o.kv_types.push_back(t);
    }
  }
  if (o.kv_types.empty()) {
    return Error{"--kv-types expects comma-separated KV types (" + kv_type_choices() + ")"};
  }
  return o;
}

// `n` random token ids in [3, n_vocab) from a fixed seed.
std::vector<TokenId> random_prompt(int32_t n_vocab, int n) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<TokenId> pick(3, n_vocab - 1);
  std::vector<TokenId> prompt(n);
  for (TokenId& t : prompt) t = pick(rng);
  return prompt;
}

// Warm-up: touch every weight page once (and, on a GPU, load the kernels).
Status warm_up(Session& sess, TokenId token) {
  const TokenId one[1] = {token};
  if (auto s = sess.eval(one); !s) return s;
  if (auto s = sess.eval(one); !s) return s;
  sess.truncate(0);
  return Status::Ok();
}

// One (kv type, context) in the session's current KV type: --repeat samples, their spread and
// the rates derived from it (`wbytes`: weight bytes per decoded token).
Result<BenchRun> measure_run(Session& sess, const ModelHParams& hp,
                             const std::vector<TokenId>& prompt, const BenchOptions& o,
                             const std::string& kv_type, int context, uint64_t wbytes) {
  BenchRun run;
  run.kv_type = kv_type;
  run.context = context;
  for (int64_t i = 0; i < o.repeat; ++i) {
    auto sample = measure_once(sess, prompt, context, o.tg);
    if (!sample) return Error{sample.message()};
    run.prefill_samples.push_back(sample->prefill_tps);
    run.decode_samples.push_back(sample->decode_tps);
    if (sample->resident_bytes >= run.resident_bytes) {
      run.resident_bytes = sample->resident_bytes;
      run.kv_allocated_bytes = sample->kv_allocated_bytes;
    }
  }
  run.prefill_tps = spread_of(run.prefill_samples);
  run.decode_tps = spread_of(run.decode_samples);
  run.kv_read = sess.memory_report().kv_bytes_per_token * (context + o.tg / 2.0);
  run.decode_bytes_per_second = run.decode_tps.scaled(static_cast<double>(wbytes) + run.kv_read);
  // FLOP/s = FLOPs of the prefill / its seconds = tok/s x FLOPs per prompt token.
  run.prefill_flops_per_second =
      context > 0
          ? run.prefill_tps.scaled(
                (matmul_flops_per_token(hp) * context + attention_flops(hp, context)) / context)
          : Spread{};
  return run;
}

// Every (kv type, context), kv types outermost, in option order.
Result<std::vector<BenchRun>> measure_runs(Session& sess, const ModelHParams& hp,
                                           const std::vector<TokenId>& prompt,
                                           const BenchOptions& o, uint64_t wbytes) {
  std::vector<BenchRun> runs;
  for (const std::string& kv_type : o.kv_types) {
    sess.truncate(0);
    if (auto s = sess.set_kv_type(kv_type); !s) return Error{s.message()};
    for (int context : o.contexts) {
      auto run = measure_run(sess, hp, prompt, o, kv_type, context, wbytes);
      if (!run) return Error{run.message()};
      runs.push_back(std::move(*run));
    }
  }
  return runs;
}

// The ceilings the runs are compared with, measured in the same process.
struct Ceilings {
  double copy_bw = 0, read_bw = 0, gemm_rate = 0, fma_peak = 0;  // bytes/s, FLOP/s
  uint64_t bw_buffer = 0;                                        // bytes of each copy buffer
  std::string device = "cpu";
};

// On a GPU its device-to-device copy and a cuBLAS GEMM; on the CPU the host's copy and read
// bandwidth on `threads` threads and their f32 FMA peak.
Result<Ceilings> measure_ceilings(bool gpu, int threads, long long bw_mib) {
  Ceilings c;
  if (gpu) {
    auto roof = measure_cuda_roofline(static_cast<uint64_t>(bw_mib) << 20, 8192, 2048, 8192);
    if (!roof) return Error{roof.message()};
    c.copy_bw = roof->copy_bytes_per_second;
    c.gemm_rate = roof->gemm_flops_per_second;
    c.bw_buffer = roof->copy_buffer_bytes;
    c.device = roof->device;
  } else {
    const Bandwidth bw = measure_bandwidth(threads, static_cast<uint64_t>(bw_mib) << 20, 5);
    c.copy_bw = bw.copy_bytes_per_second;
    c.read_bw = bw.read_bytes_per_second;
    c.bw_buffer = bw.buffer_bytes;
    c.fma_peak = measure_fma_peak(threads, 3);
  }
  return c;
}

// What the bench measured, for its report.
struct BenchReport {
  bool gpu = false;
  int threads = 0;  // --threads, or the CPU backend's default for this model
  double model_load_s = 0, session_create_s = 0, warmup_s = 0;
  uint64_t wbytes = 0;  // weight bytes per decoded token
  std::vector<BenchRun> runs;
  Ceilings ceilings;
};

// One run's JSON row: each figure is the median over the repeats, with its _min and _max
// beside it.
nlohmann::json json_row(const BenchRun& r, const Ceilings& c, const ModelInfo& info) {
  nlohmann::json row = {
      {"kv_type", r.kv_type},
      {"context", r.context},
      {"kv_bytes_read_per_token_avg", r.kv_read},
      {"samples",
       {{"prefill_tokens_per_second", r.prefill_samples},
        {"decode_tokens_per_second", r.decode_samples}}},
  };
  put_spread(row, "prefill_tokens_per_second", r.prefill_tps);
  put_spread(row, "prefill_flops_per_second", r.prefill_flops_per_second);
  put_spread(row, "decode_tokens_per_second", r.decode_tps);
  put_spread(row, "decode_bytes_per_second", r.decode_bytes_per_second);
  put_spread(row, "decode_share_of_copy_bandwidth",
             r.decode_bytes_per_second.scaled(1 / c.copy_bw));
  if (c.read_bw > 0) {
    put_spread(row, "decode_share_of_read_bandwidth",
               r.decode_bytes_per_second.scaled(1 / c.read_bw));
  }
  if (c.gemm_rate > 0) {
    put_spread(row, "prefill_share_of_gemm_rate",
               r.prefill_flops_per_second.scaled(1 / c.gemm_rate));
  }
  if (c.fma_peak > 0)
    put_spread(row, "prefill_share_of_fma_peak", r.prefill_flops_per_second.scaled(1 / c.fma_peak));
  // Resident memory beyond the (mapped) weights and the KV blocks: buffers, code, heap.
  row["resident_bytes"] = r.resident_bytes;
  row["resident_over_weights_and_kv_bytes"] =
      static_cast<int64_t>(r.resident_bytes) -
      static_cast<int64_t>(info.weight_bytes() + r.kv_allocated_bytes);
  return row;
}

// --json: the first run's figures at the top level, every run under "runs".
void print_json(const BenchReport& rep, const BenchOptions& o, const ModelInfo& info,
                const Session& sess, const MemoryReport& mem) {
  const Ceilings& c = rep.ceilings;
  nlohmann::json rows = nlohmann::json::array();
  for (const BenchRun& r : rep.runs) rows.push_back(json_row(r, c, info));
  nlohmann::json j = rows[0];
  j["model"] = info.path;
  j["backend"] = std::string(sess.backend_name());
  j["device"] = c.device;
  j["threads"] = rep.threads;
  j["decode_threads"] = sess.decode_threads();
  j["pp"] = rep.runs[0].context;
  j["tg"] = o.tg;
  j["repeat"] = o.repeat;
  j["model_load_seconds"] = rep.model_load_s;
  j["session_create_seconds"] = rep.session_create_s;
  j["warmup_seconds"] = rep.warmup_s;
  j["weight_bytes_per_token"] = rep.wbytes;
  j["copy_bandwidth_bytes_per_second"] = c.copy_bw;
  if (c.read_bw > 0) j["read_bandwidth_bytes_per_second"] = c.read_bw;
  if (c.gemm_rate > 0) j["gemm_flops_per_second"] = c.gemm_rate;
  if (c.fma_peak > 0) j["fma_peak_flops_per_second"] = c.fma_peak;
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
}

// The text report's lines above the table: model, backend, load times, ceilings.
void print_text_header(const BenchReport& rep, const BenchOptions& o, const ModelInfo& info,
                       const Session& sess) {
  const Ceilings& c = rep.ceilings;
  const int threads = rep.threads;
  std::printf("model            %s (%s, %llu weight bytes)\n", printable(info.name).c_str(),
              info.path.c_str(), static_cast<unsigned long long>(info.weight_bytes()));
  std::printf("backend          %s, %s\n", std::string(sess.backend_name()).c_str(),
              rep.gpu ? c.device.c_str()
                      : (std::to_string(threads) + " threads" +
                         (sess.decode_threads() != threads
                              ? " (decode on " + std::to_string(sess.decode_threads()) + ")"
                              : ""))
                            .c_str());
  std::printf(
      "load             model %.2f s, session (backend, weight repacking) %.2f s, warm-up (2 "
      "evals) %.2f s\n",
      rep.model_load_s, rep.session_create_s, rep.warmup_s);
  std::printf("weights/token    %.1f MB\n", rep.wbytes / 1e6);
  if (rep.gpu) {
    std::printf(
        "ceilings         copy %.1f GB/s (read+write, %llu MiB), cuBLAS f16 GEMM %.1f TFLOP/s "
        "(same run)\n",
        c.copy_bw / 1e9, static_cast<unsigned long long>(c.bw_buffer >> 20), c.gemm_rate / 1e12);
  } else {
    std::printf("memory bandwidth copy %.2f GB/s, read %.2f GB/s (%llu MiB buffers, same run)\n",
                c.copy_bw / 1e9, c.read_bw / 1e9,
                static_cast<unsigned long long>(c.bw_buffer >> 20));
    // The share of the first run with a prefill (context 0 has none).
    const auto prefilled = std::find_if(rep.runs.begin(), rep.runs.end(),
                                        [](const BenchRun& r) { return r.context > 0; });
    std::printf(
        "f32 FMA peak     %.1f GFLOP/s (%d threads, same run); prefill below at %s of it\n",
        c.fma_peak / 1e9, threads,
        prefilled == rep.runs.end()
            ? "-"
            : (fixed(100 * prefilled->prefill_flops_per_second.median / c.fma_peak, 0) + "%")
                  .c_str());
  }
  if (o.repeat > 1) {
    std::printf(
        "repeats          %lld per row: median (min\u2013max); TFLOP/s, GB/s and roofline of the "
        "median\n",
        static_cast<long long>(o.repeat));
  }
}

// The text report's table, one row per run: columns as wide as their widest cell (ranges
// make t/s cells long).
void print_text_table(const BenchReport& rep, const BenchOptions& o, const ModelInfo& info) {
  const std::vector<std::string> header = {"kv",      "context",    "prefill t/s",
                                           "TFLOP/s", "decode t/s", "KV MB/tok",
                                           "GB/s",    "roofline",   "RSS-W-KV MB"};
  std::vector<size_t> width(header.size(), 0);
  std::vector<std::vector<std::string>> table = {header};
  for (const BenchRun& r : rep.runs) {
    const double over =
        (static_cast<double>(r.resident_bytes) - static_cast<double>(info.weight_bytes()) -
         static_cast<double>(r.kv_allocated_bytes)) /
        1e6;
    const bool prefilled = r.context > 0;
    table.push_back({r.kv_type, std::to_string(r.context),
                     prefilled ? spread_cell(r.prefill_tps, 1, o.repeat > 1) : "-",
                     prefilled ? fixed(r.prefill_flops_per_second.median / 1e12, 2) : "-",
                     spread_cell(r.decode_tps, 2, o.repeat > 1), fixed(r.kv_read / 1e6, 2),
                     fixed(r.decode_bytes_per_second.median / 1e9, 2),
                     fixed(100 * r.decode_bytes_per_second.median /
                               (rep.gpu ? rep.ceilings.copy_bw : rep.ceilings.read_bw),
                           1) +
                         "%",
                     fixed(over, 1)});
  }
  for (const auto& row : table) {
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], columns(row[c]));
  }
  for (const auto& row : table) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += (c ? "  " : "") + padded(row[c], width[c], c == 0);
    std::printf("%s\n", line.c_str());
  }
}

}  // namespace

int cmd_bench(const Argv& argv) {
  auto args =
      Args::parse(argv,
                  with(kSessionOptions, {"--pp", "--tg", "--bw-mib", "--contexts", "--kv-types",
                                         "--replies", "--repeat", "--json-schema", "--tools"}),
                  {"--json", "--compare-no-cache", "--snapshot"});
  if (!args) return fail(args.message());
  if (args->has("--repeat") && (args->has("--compare-no-cache") || args->has("--snapshot"))) {
    return fail(
        "--repeat applies to the throughput bench, not to --compare-no-cache or --snapshot");
  }
  if (args->has("--compare-no-cache")) return bench_compare_no_cache(*args);
  if (args->has("--snapshot")) return bench_snapshot(*args);
  if (args->has("--json-schema") || args->has("--tools")) return bench_grammar(*args);
  auto opts = parse_bench_options(*args);
  if (!opts) return fail(opts.message());
  const BenchOptions& o = *opts;
  BenchReport rep;
  double t_start = now_seconds();
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  rep.model_load_s =
      now_seconds() - t_start;  // a mapping: pages unread here come in at the warm-up
  const ModelInfo& info = (*model)->info();
  const int max_context = *std::max_element(o.contexts.begin(), o.contexts.end());
  // Without --ctx, enough context for the run (throughput only; may pass the trained length).
  // Session creation builds the backend: its weight preparation (repacking, a GPU upload
  // and self-check) is timed here.
  t_start = now_seconds();
  auto session =
      make_session(*args, *model, {static_cast<int32_t>(max_context + o.tg), o.kv_types[0]});
  if (!session) return fail(session.message());
  rep.session_create_s = now_seconds() - t_start;
  Session& sess = **session;
  if (max_context + o.tg > sess.n_ctx()) {
    return fail("the largest context + --tg = " + std::to_string(max_context + o.tg) +
                " exceeds --ctx " + std::to_string(sess.n_ctx()));
  }
  rep.gpu = sess.backend_name() == "cuda";
  rep.threads = sess.n_threads();
  const std::vector<TokenId> prompt = random_prompt(info.n_vocab, std::max(max_context, 1));
  const double t_warmup = now_seconds();
  if (auto s = warm_up(sess, prompt[0]); !s) return fail(s.message());
  rep.warmup_s = now_seconds() - t_warmup;
  rep.wbytes = weight_bytes_per_token(**model);
  auto runs = measure_runs(sess, (*model)->hparams(), prompt, o, rep.wbytes);
  if (!runs) return fail(runs.message());
  rep.runs = std::move(*runs);
  // The ceilings, measured once after all the runs in the same process.
  auto ceilings = measure_ceilings(rep.gpu, rep.threads, o.bw_mib);
  if (!ceilings) return fail(ceilings.message());
  rep.ceilings = std::move(*ceilings);
  const MemoryReport mem = sess.memory_report();
  if (args->has("--json")) {
    print_json(rep, o, info, sess, mem);
    return 0;
  }
  print_text_header(rep, o, info, sess);
  print_text_table(rep, o, info);
  return 0;
}

}  // namespace kvchat::cli
