#include "kvchat/remote_memory.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "util/printable.h"

namespace kvchat {

namespace {

using nlohmann::json;

std::optional<int64_t> as_count(std::optional<double> v) {
  if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
  return static_cast<int64_t>(std::llround(*v));
}

std::optional<double> as_ratio(std::optional<double> v) {
  if (!v || !std::isfinite(*v) || *v < 0 || *v > 1) return std::nullopt;
  return v;
}

// A vLLM metric for `model` (its model_name label) or, without one, the sum over models.
std::optional<double> vllm_value(const PromMetrics& m, std::string_view name,
                                 std::string_view model) {
  if (!model.empty()) {
    if (auto v = m.value(name, {{"model_name", std::string(model)}})) return v;
  }
  return m.sum(name);
}

// 38 KiB, 1.5 MiB, 12,288 MiB: what a panel line needs to tell small from large.
std::string mib(int64_t bytes) {
  char buf[48];
  if (bytes < (1 << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
  } else if (bytes < (int64_t{100} << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
  } else {
    return with_commas(std::llround(bytes / 1048576.0)) + " MiB";
  }
  return buf;
}

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", ratio * 100);
  return buf;
}

int64_t int_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

bool read_vllm_metrics(const PromMetrics& m, std::string_view model, RemoteMemory& out) {
  const auto v1_usage = vllm_value(m, "vllm:kv_cache_usage_perc", model);
  const auto v0_usage = vllm_value(m, "vllm:gpu_cache_usage_perc", model);
  if (!v1_usage && !v0_usage && !m.family("vllm:num_requests_running")) return false;
  out.source = "vllm";
  out.engine_version = v1_usage ? "vLLM V1" : v0_usage ? "vLLM V0" : "vLLM";
  out.kv_usage = as_ratio(v1_usage ? v1_usage : v0_usage);
  out.running = as_count(vllm_value(m, "vllm:num_requests_running", model));
  out.waiting = as_count(vllm_value(m, "vllm:num_requests_waiting", model));
  const auto queries = vllm_value(m, "vllm:prefix_cache_queries_total", model);
  const auto hits = vllm_value(m, "vllm:prefix_cache_hits_total", model);
  if (queries && hits && *queries > 0) {
    out.prefix_hit_rate = as_ratio(*hits / *queries);
  } else {
    out.prefix_hit_rate = as_ratio(vllm_value(m, "vllm:gpu_prefix_cache_hit_rate", model));
  }
  out.prompt_tokens_total = as_count(vllm_value(m, "vllm:prompt_tokens_total", model));
  out.generated_tokens_total = as_count(vllm_value(m, "vllm:generation_tokens_total", model));
  return true;
}

bool read_llamacpp_metrics(const PromMetrics& m, RemoteMemory& out) {
  if (!m.value("llamacpp:requests_processing") && !m.value("llamacpp:prompt_tokens_total"))
    return false;
  out.source = "llama.cpp";
  out.kv_usage = as_ratio(m.value("llamacpp:kv_cache_usage_ratio"));
  out.kv_tokens = as_count(m.value("llamacpp:kv_cache_tokens"));
  out.engine_version = out.kv_usage ? "llama.cpp (with KV metrics)" : "llama.cpp";
  out.running = as_count(m.value("llamacpp:requests_processing"));
  out.waiting = as_count(m.value("llamacpp:requests_deferred"));
  out.prompt_tokens_total = as_count(m.value("llamacpp:prompt_tokens_total"));
  out.generated_tokens_total = as_count(m.value("llamacpp:tokens_predicted_total"));
  return true;
}

Result<std::vector<RemoteSlot>> parse_llamacpp_slots(std::string_view body) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) return Error{"/slots is not JSON"};
  if (!j.is_array()) return Error{"/slots is not a JSON array of slots"};
  std::vector<RemoteSlot> slots;
  for (const json& s : j) {
    if (!s.is_object()) return Error{"a slot of /slots is not a JSON object"};
    RemoteSlot slot;
    slot.id = int_field(s, "id");
    slot.n_ctx = int_field(s, "n_ctx");
    if (auto b = s.find("is_processing"); b != s.end() && b->is_boolean()) slot.busy = *b;
    // Builds before is_processing said "state": 0 idle, else busy.
    else if (auto st = s.find("state"); st != s.end() && st->is_number_integer())
      slot.busy = st->get<int>() != 0;
    if (auto nt = s.find("next_token"); nt != s.end()) {
      // An object in current builds, an array of one in some.
      const json& t = nt->is_array() && !nt->empty() ? (*nt)[0] : *nt;
      if (t.is_object()) slot.decoded = int_field(t, "n_decoded");
    }
    slots.push_back(slot);
  }
  return slots;
}

bool read_kvchat_health(std::string_view body, RemoteMemory& out) {
  const json j = json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("kv_allocated_bytes") || !j.contains("sessions")) return false;
  out.source = "kvchat";
  out.engine_version = "kvchat";
  out.kv_allocated_bytes = int_field(j, "kv_allocated_bytes");
  out.kv_shared_bytes = int_field(j, "kv_shared_bytes");
  if (int64_t b = int_field(j, "kv_budget_bytes"); b > 0) out.kv_budget_bytes = b;
  if (const json& s = j["sessions"]; s.is_object()) {
    out.sessions_busy = int_field(s, "busy");
    out.sessions_idle = int_field(s, "idle");
  }
  if (auto k = j.find("kv_type"); k != j.end() && k->is_string()) out.kv_type = *k;
  if (auto t = j.find("kv_ram_tier"); t != j.end() && t->is_object()) {
    out.ram_tier_used_bytes = int_field(*t, "used_bytes");
    out.ram_tier_budget_bytes = int_field(*t, "budget_bytes");
  }
  out.prompt_tokens_total = int_field(j, "prompt_tokens_evaluated");
  return true;
}

std::string remote_memory_json(const RemoteMemory& m) {
  json j = {{"source", m.source},
            {"engine", m.engine_version},
            {"notes", m.notes},
            {"text", describe_remote_memory(m, -1)}};
  auto put = [&j](const char* key, const auto& v) {
    if (v) j[key] = *v;
  };
  put("kv_usage", m.kv_usage);
  put("kv_tokens", m.kv_tokens);
  put("running", m.running);
  put("waiting", m.waiting);
  put("prefix_hit_rate", m.prefix_hit_rate);
  put("prompt_tokens_total", m.prompt_tokens_total);
  put("generated_tokens_total", m.generated_tokens_total);
  put("sessions_busy", m.sessions_busy);
  put("sessions_idle", m.sessions_idle);
  put("kv_allocated_bytes", m.kv_allocated_bytes);
  put("kv_shared_bytes", m.kv_shared_bytes);
  put("kv_budget_bytes", m.kv_budget_bytes);
  put("ram_tier_used_bytes", m.ram_tier_used_bytes);
  put("ram_tier_budget_bytes", m.ram_tier_budget_bytes);
  if (!m.kv_type.empty()) j["kv_type"] = m.kv_type;
  if (!m.server_slots.empty()) {
    int64_t busy = 0;
    for (const RemoteSlot& s : m.server_slots) busy += s.busy ? 1 : 0;
    j["slots"] = m.server_slots.size();
    j["slots_busy"] = busy;
    j["slot_ctx"] = m.server_slots.front().n_ctx;
  }
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string describe_remote_memory(const RemoteMemory& m, int64_t conversation_tokens,
                                   const RemoteModelShape& shape) {
  std::string s = "remote engine: " + (m.has_figures() ? m.engine_version : "publishes nothing");
  s += '\n';
  if (m.kv_usage) s += "  KV cache in use: " + percent(*m.kv_usage) + " (all its requests)\n";
  if (m.kv_tokens) s += "  KV cache tokens: " + with_commas(*m.kv_tokens) + '\n';
  if (m.kv_allocated_bytes) {
    s += "  KV allocated: " + mib(*m.kv_allocated_bytes) + ", shared " +
         mib(m.kv_shared_bytes.value_or(0));
    if (m.kv_budget_bytes) s += ", budget " + mib(*m.kv_budget_bytes);
    if (!m.kv_type.empty()) s += " (" + m.kv_type + ")";
    s += '\n';
  }
  if (m.sessions_busy)
    s += "  sessions: " + std::to_string(*m.sessions_busy) + " busy, " +
         std::to_string(m.sessions_idle.value_or(0)) + " idle\n";
  if (m.ram_tier_budget_bytes)
    s += "  RAM tier: " + mib(m.ram_tier_used_bytes.value_or(0)) + " of " +
         mib(*m.ram_tier_budget_bytes) + '\n';
  if (m.running)
    s += "  requests: " + std::to_string(*m.running) + " running, " +
         std::to_string(m.waiting.value_or(0)) + " waiting\n";
  if (m.prefix_hit_rate) s += "  prefix cache hit rate: " + percent(*m.prefix_hit_rate) + '\n';
  if (!m.server_slots.empty()) {
    int busy = 0;
    for (const RemoteSlot& sl : m.server_slots) busy += sl.busy ? 1 : 0;
    s += "  slots: " + std::to_string(m.server_slots.size()) + " of " +
         with_commas(m.server_slots.front().n_ctx) + " tokens each, " + std::to_string(busy) +
         " busy\n";
  }
  if (m.prompt_tokens_total)
    s += "  tokens evaluated since it started: " + with_commas(*m.prompt_tokens_total) + '\n';
  if (conversation_tokens >= 0) {
    s += "  this conversation: " + with_commas(conversation_tokens) + " tokens";
    if (shape.known())
      s += ", about " + mib(shape.kv_bytes(conversation_tokens)) +
           " of KV (an estimate: " + "2 x " + std::to_string(shape.n_layers) + " layers x " +
           with_commas(conversation_tokens) + " tokens x " + std::to_string(shape.n_kv_heads) +
           " KV heads x " + std::to_string(shape.head_dim) + " x 2 bytes)";
    s += '\n';
  }
  for (const std::string& note : m.notes) s += "  (" + note + ")\n";
  return s;
}

}  // namespace kvchat
