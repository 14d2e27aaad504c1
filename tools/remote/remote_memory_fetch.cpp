// RemoteClient::memory: the pages an engine publishes, each tried in turn with short
// timeouts and no retries (the panel polls again soon).
#include <nlohmann/json.hpp>

#include "kvchat/remote_client.h"
#include "remote_client_impl.h"

namespace kvchat {

namespace {

// A page of the origin's root, or why not (a note).
std::optional<std::string> page(remote::RemoteHttp& http, const std::string& path,
                                std::vector<std::string>& notes) {
  remote::Exchange ex;
  ex.path = path;
  ex.retry = false;
  auto a = http.fetch(ex);
  if (!a) {
    notes.push_back(path + ": " + remote::without_key(a.message(), http.key()));
    return std::nullopt;
  }
  if (a->status != 200) {
    notes.push_back(path + ": HTTP " + std::to_string(a->status) +
                    (a->status == 404 || a->status == 501 ? " (not offered)" : ""));
    return std::nullopt;
  }
  return std::move(a->body);
}

}  // namespace

RemoteMemory RemoteClient::memory(const std::string& model) {
  RemoteLimits quick = impl_->http.limits();
  quick.connect_timeout_ms = std::min(quick.connect_timeout_ms, 3000);
  quick.read_timeout_ms = 5000;
  remote::RemoteHttp http(impl_->http.url(), impl_->http.key(), quick);
  RemoteMemory m;
  if (auto body = page(http, "/metrics", m.notes)) {
    auto metrics = parse_prometheus_text(*body);
    if (!metrics) {
      m.notes.push_back("/metrics: " + metrics.message());
    } else if (!read_vllm_metrics(*metrics, model, m) && !read_llamacpp_metrics(*metrics, m)) {
      m.notes.push_back("/metrics: neither vLLM's nor llama.cpp's metrics");
    }
  }
  if (m.source == "vllm") return m;
  if (auto body = page(http, "/slots", m.notes)) {
    if (auto slots = parse_llamacpp_slots(*body)) {
      m.server_slots = std::move(*slots);
      if (m.source == "none") {
        m.source = "llama.cpp";
        m.engine_version = "llama.cpp";
      }
    } else {
      m.notes.push_back(slots.message());
    }
  }
  if (m.source != "none") return m;
  if (auto body = page(http, "/health", m.notes)) {
    if (!read_kvchat_health(*body, m))
      m.notes.push_back(
          "/health: liveness only (kvchat's own server gives its sessions to a "
          "caller with its key)");
  }
  return m;
}

}  // namespace kvchat
