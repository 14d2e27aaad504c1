// The Prometheus text exposition format (version 0.0.4: what vLLM, llama.cpp's server, SGLang
// and TGI publish on /metrics), parsed by the book: `# HELP` and `# TYPE` lines, samples
// `name{label="value",...} value [timestamp]` with blanks or tabs between tokens, label
// values with their escapes (\\, \", \n), a trailing comma in the label set, the values
// NaN, +Inf and -Inf, a millisecond timestamp. Histograms and summaries are their samples
// (_bucket{le=...}, _sum, _count; {quantile=...}) under the family's TYPE. Lenient where a
// scraper must be: a line that breaks the format is skipped and said (problems), so one odd
// line of a server costs that line, not the page. No Qt; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

struct PromLabel {
  std::string name, value;
  bool operator==(const PromLabel&) const = default;
};

struct PromSample {
  std::string name;               // as written: a histogram's name_bucket, name_sum, name_count
  std::vector<PromLabel> labels;  // in the order written
  double value = 0;               // NaN, +Inf and -Inf as such
  std::optional<int64_t> timestamp_ms;
  std::string label(std::string_view label_name) const;  // "" when absent
};

// A metric family as its # TYPE and # HELP lines say.
struct PromFamily {
  std::string name;
  std::string type = "untyped";  // counter, gauge, histogram, summary, untyped
  std::string help;              // unescaped
};

struct PromMetrics {
  std::vector<PromSample> samples;    // in the order written
  std::vector<PromFamily> families;   // in the order first named
  std::vector<std::string> problems;  // "line N: why", one per line skipped
  // The value of the first sample named `name` whose labels include every one of `with`.
  std::optional<double> value(std::string_view name, const std::vector<PromLabel>& with = {}) const;
  // The sum of every sample named `name` (one per model, per engine...); nullopt: none.
  std::optional<double> sum(std::string_view name) const;
  const PromFamily* family(std::string_view name) const;
};

// An Error only for a page over max_bytes (a hostile or runaway server); everything else is
// parsed line by line.
Result<PromMetrics> parse_prometheus_text(std::string_view text, size_t max_bytes = 8u << 20);

}  // namespace kvchat
