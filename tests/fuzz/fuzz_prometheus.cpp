// Fuzz target: the Prometheus text exposition parser (kvchat/prometheus_text.h), which reads
// what a remote engine publishes on /metrics. Input: the page. A crash, a leak or a hang is
// a defect; so is a page that yields more samples plus problems than it has lines.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kvchat/prometheus_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view page(reinterpret_cast<const char*>(data), size);
  auto m = kvchat::parse_prometheus_text(page, 1u << 20);
  if (!m) return 0;
  size_t lines = 1;
  for (char c : page) lines += c == '\n';
  if (m->samples.size() + m->problems.size() > lines) __builtin_trap();
  for (const kvchat::PromSample& s : m->samples) (void)m->value(s.name, s.labels);
  return 0;
}
