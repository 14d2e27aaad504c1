// What a remote engine publishes of its memory, read from whichever of its pages it offers
// (metric names per engine version: tests/data/metrics/README.md):
//  - vLLM's Prometheus /metrics: KV cache use (V1 vllm:kv_cache_usage_perc, V0
//    vllm:gpu_cache_usage_perc, both 0..1), running and waiting requests, the prefix
//    cache's hit rate (V1: hits_total / queries_total; V0: vllm:gpu_prefix_cache_hit_rate);
//  - llama.cpp's server: /slots (each slot's context and whether it is busy, the tokens it
//    decoded) and /metrics (requests processing / deferred, tokens evaluated and predicted;
//    older builds also kv_cache_usage_ratio and kv_cache_tokens);
//  - kvchat's /health (sessions, KV allocated and shared bytes, the KV budget, its RAM tier);
//  - nothing: the conversation's own tokens and, when the model's shape is known, the KV
//    they take by the formula (2 x layers x tokens x kv_heads x head_dim x bytes),
//    labelled an estimate.
// The parse_* functions are pure (tests feed them recorded pages); RemoteClient::memory
// fetches the pages. No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/prometheus_text.h"
#include "kvchat/result.h"

namespace kvchat {

// One llama.cpp server slot (/slots).
struct RemoteSlot {
  int64_t id = 0;
  int64_t n_ctx = 0;
  bool busy = false;
  int64_t decoded = 0;  // next_token.n_decoded: tokens generated for its current task
};

struct RemoteMemory {
  // What the figures came from: "vllm", "llama.cpp", "kvchat", or "none" (nothing
  // published: only the estimate below, when the shape is known).
  std::string source = "none";
  std::string engine_version;  // e.g. "vLLM V1", "vLLM V0", "llama.cpp (with KV metrics)"
  // The engine's KV cache in use, 0..1, across every request it serves.
  std::optional<double> kv_usage;
  std::optional<int64_t> kv_tokens;         // llama.cpp's older kv_cache_tokens
  std::optional<int64_t> running, waiting;  // requests (llama.cpp: processing / deferred)
  std::optional<double> prefix_hit_rate;    // 0..1 since the engine started
  std::optional<int64_t> prompt_tokens_total, generated_tokens_total;
  std::vector<RemoteSlot> server_slots;  // llama.cpp
  // kvchat's /health (with the key): its sessions and their KV.
  std::optional<int64_t> sessions_busy, sessions_idle;
  std::optional<int64_t> kv_allocated_bytes, kv_shared_bytes, kv_budget_bytes;
  std::optional<int64_t> ram_tier_used_bytes, ram_tier_budget_bytes;
  std::string kv_type;  // kvchat's ("q8_0", "q8_0/q4_0")
  // Which pages were read or why not, in words ("/metrics: HTTP 404", ...).
  std::vector<std::string> notes;
  bool has_figures() const { return source != "none"; }
};

// vLLM (V1 or V0) or llama.cpp from a /metrics page; false when the page holds neither
// engine's metrics. `model` picks vLLM's model_name label when it serves several.
bool read_vllm_metrics(const PromMetrics& metrics, std::string_view model, RemoteMemory& out);
bool read_llamacpp_metrics(const PromMetrics& metrics, RemoteMemory& out);
// llama.cpp's /slots body (a JSON array); an error names what is wrong with it.
Result<std::vector<RemoteSlot>> parse_llamacpp_slots(std::string_view body);
// kvchat's /health body; false when it is not kvchat's (or holds liveness only).
bool read_kvchat_health(std::string_view body, RemoteMemory& out);

// The model's shape for the estimate: from a GGUF header the user points to. The engine's
// KV type is not published: f16 (2 bytes an element, what vLLM and llama.cpp default to).
struct RemoteModelShape {
  int64_t n_layers = 0, n_kv_heads = 0, head_dim = 0;
  bool known() const { return n_layers > 0 && n_kv_heads > 0 && head_dim > 0; }
  int64_t kv_bytes(int64_t tokens) const {
    return 2 * n_layers * tokens * n_kv_heads * head_dim * 2;
  }
};

// The figures as one JSON object (text), each field only when the engine published it: source,
// engine, kv_usage, kv_tokens, running, waiting, prefix_hit_rate, prompt_tokens_total,
// generated_tokens_total, sessions_busy, sessions_idle, kv_allocated_bytes, kv_shared_bytes,
// kv_budget_bytes, ram_tier_used_bytes, ram_tier_budget_bytes, kv_type, slots, slots_busy,
// slot_ctx; notes; text (describe_remote_memory without the conversation). The one mapping
// kvchat-cli's /memory event and the window's panel both read.
std::string remote_memory_json(const RemoteMemory& memory);

// The figures in lines, as kvchat-cli's /memory prints them and the panel says them;
// `conversation_tokens` (< 0: unknown) and `shape` give the estimate line.
std::string describe_remote_memory(const RemoteMemory& memory, int64_t conversation_tokens,
                                   const RemoteModelShape& shape = {});

}  // namespace kvchat
