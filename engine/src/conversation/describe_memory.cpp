// describe_memory: the memory panel's figures as text, from the same MemoryReport the
// app's panel draws (kvchat-cli chat's /memory).
#include <algorithm>
#include <cstdio>
#include <string>

#include "kvchat/conversation.h"
#include "kvchat/kv_types.h"
#include "kvchat/memory_report.h"

namespace kvchat {

namespace {

std::string bytes_text(uint64_t bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1000 && u < 4) {
    v /= 1000;
    ++u;
  }
  char buf[64];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.*f %s", v < 10 ? 2 : (v < 100 ? 1 : 0), v, units[u]);
  }
  return buf;
}

std::string line(const char* label, uint64_t bytes) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "  %-14s %12s (%llu bytes)\n", label, bytes_text(bytes).c_str(),
                static_cast<unsigned long long>(bytes));
  return buf;
}

}  // namespace

std::string describe_memory(const Session& session) {
  const MemoryReport r = session.memory_report();
  const ModelInfo& info = session.model().info();
  std::string out = "memory (" + r.backend + " backend, KV type " + r.kv_type + ")\n";
  out += line("weights", r.weights_bytes);
  out += line("KV used", r.kv_used_bytes);
  out += line("KV allocated", r.kv_allocated_bytes);
  out += line("KV empty", r.kv_fragmentation_bytes());
  out += line("scratch", r.scratch_bytes);
  out += line("total", r.total_bytes());
  if (r.gpu_layers > 0) {
    out += "  GPU: " + std::to_string(r.gpu_layers) + " of " + std::to_string(r.n_layers) +
           " layers" + (r.device_name.empty() ? "" : " on " + r.device_name) + "\n";
    out += line("GPU weights", r.device_weights_bytes);
    out += line("GPU KV", r.device_kv_bytes);
    out += line("GPU scratch", r.device_scratch_bytes);
    out += line("CPU weights", r.host_weights_bytes);
    out += line("CPU KV", r.host_kv_bytes);
  }

  // KV bytes = 2 (K and V) x layers x tokens x kv_heads x head_dim x bytes/element.
  uint32_t num = 0, den = 1;
  for (const KvTypeCost& c : kv_type_costs()) {
    if (c.name == r.kv_type) num = c.bytes_num, den = c.bytes_den;
  }
  const std::string per_element =
      den == 1 ? std::to_string(num) : std::to_string(num) + "/" + std::to_string(den);
  out += "  formula: 2 x " + std::to_string(info.n_layers) + " layers x " +
         std::to_string(r.kv_tokens) + " tokens x " + std::to_string(info.n_kv_heads) +
         " KV heads x " + std::to_string(info.head_dim) + " head dim x " + per_element +
         " bytes = " + std::to_string(r.kv_bytes_without_window()) + " bytes\n";
  out += "  per layer: " + bytes_text(r.kv_used_bytes_per_layer()) + " used, " +
         bytes_text(r.kv_allocated_bytes_per_layer()) + " allocated; " +
         std::to_string(r.kv_blocks) + " blocks of " + std::to_string(r.kv_block_tokens) +
         " tokens held, " + std::to_string(r.kv_free_blocks) + " free in the pool\n";
  out += "  context: " + std::to_string(session.n_past()) + " of " +
         std::to_string(session.n_ctx()) + " tokens, policy " +
         std::string(context_policy_name(session.options().context_policy)) + " (" +
         std::to_string(session.n_keep()) + " kept)\n";

  // What each KV type would cost, and how much context would fit in the free memory.
  const uint64_t available =
      r.device_free_bytes > 0 ? r.device_free_bytes : r.system_available_bytes;
  out += "  KV types (bytes/token, max context in " + bytes_text(available) + " free):\n";
  for (const KvTypeCost& c : kv_type_costs()) {
    const uint64_t bpt = info.kv_elements_per_token() * c.bytes_num / c.bytes_den;
    const uint64_t fit =
        bpt > 0 ? std::min<uint64_t>(available / bpt, static_cast<uint64_t>(info.n_ctx_train)) : 0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "    %-5s %s %8llu bytes/token  %8llu tokens\n", c.name.c_str(),
                  c.name == r.kv_type ? "*" : " ", static_cast<unsigned long long>(bpt),
                  static_cast<unsigned long long>(fit));
    out += buf;
  }
  if (r.kv_tokens > 0 && r.kv_allocated_bytes > 0) {
    out += "  conversations of this length that would fit in the free memory: " +
           std::to_string(available / r.kv_allocated_bytes) + "\n";
  }
  return out;
}

}  // namespace kvchat
