// The Prometheus text exposition format (kvchat/prometheus_text.h) against the format's own
// cases (HELP and TYPE, escapes in label values and in HELP, blanks and tabs, a trailing
// comma, NaN / +Inf / -Inf, timestamps before the epoch, histograms and summaries), the
// lines it refuses (each said, the rest kept), and the /metrics pages of vLLM (V0 and V1)
// and llama.cpp's server recorded in tests/data/metrics (README.md there: their sources).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "kvchat/prometheus_text.h"

namespace kvchat {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream f(std::string(KVCHAT_SOURCE_DIR "/tests/data/metrics/") + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(PrometheusText, TheFormatsCases) {
  const std::string page =
      "# HELP api_requests_total Requests served, by method and code.\n"
      "# TYPE api_requests_total counter\n"
      "api_requests_total{method=\"post\",code=\"200\"} 1027 1395066363000\n"
      "api_requests_total{method=\"post\",code=\"400\"}    3 1395066363000\n"
      "\n"
      "# A comment that is neither HELP nor TYPE.\n"
      "file_seen_seconds{path=\"C:\\\\DIR\\\\A.TXT\",error=\"No file:\\n\\\"A.TXT\\\"\"} 1.5e9\n"
      "bare_metric 12.47\n"
      "odd_value{problem=\"division by zero\"} +Inf -3982045\n"
      "\t spaced_metric \t { a = \"1\" , b=\"2\", } \t -Inf\r\n"
      "not_a_number NaN\n"
      "# HELP latency_seconds A histogram\\nof latencies, \\\\ escaped.\n"
      "# TYPE latency_seconds histogram\n"
      "latency_seconds_bucket{le=\"0.05\"} 24054\n"
      "latency_seconds_bucket{le=\"+Inf\"} 144320\n"
      "latency_seconds_sum 53423\n"
      "latency_seconds_count 144320\n"
      "# TYPE rpc_seconds summary\n"
      "rpc_seconds{quantile=\"0.5\"} 4773\n"
      "rpc_seconds_sum 1.7560473e+07\n"
      "rpc_seconds_count 2693\n";
  auto m = parse_prometheus_text(page);
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->problems.empty()) << m->problems.front();
  ASSERT_EQ(m->samples.size(), 14u);
  EXPECT_EQ(m->family("api_requests_total")->type, "counter");
  EXPECT_EQ(m->family("api_requests_total")->help, "Requests served, by method and code.");
  EXPECT_EQ(m->value("api_requests_total", {{"code", "400"}}), 3.0);
  EXPECT_EQ(m->samples[0].timestamp_ms, 1395066363000);
  EXPECT_EQ(m->sum("api_requests_total"), 1030.0);
  const PromSample& file = m->samples[2];
  EXPECT_EQ(file.label("path"), "C:\\DIR\\A.TXT");
  EXPECT_EQ(file.label("error"), "No file:\n\"A.TXT\"");
  EXPECT_EQ(file.value, 1.5e9);
  EXPECT_EQ(m->value("bare_metric"), 12.47);
  EXPECT_EQ(m->samples[4].value, INFINITY);
  EXPECT_EQ(m->samples[4].timestamp_ms, -3982045);
  EXPECT_EQ(m->samples[5].name, "spaced_metric");
  EXPECT_EQ(m->samples[5].labels, (std::vector<PromLabel>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(m->samples[5].value, -INFINITY);
  EXPECT_TRUE(std::isnan(m->samples[6].value));
  EXPECT_EQ(m->family("latency_seconds")->type, "histogram");
  EXPECT_EQ(m->family("latency_seconds")->help, "A histogram\nof latencies, \\ escaped.");
  EXPECT_EQ(m->value("latency_seconds_bucket", {{"le", "+Inf"}}), 144320.0);
  EXPECT_EQ(m->family("rpc_seconds")->type, "summary");
  EXPECT_EQ(m->value("rpc_seconds_sum"), 1.7560473e+07);
  EXPECT_EQ(m->family("bare_metric"), nullptr);  // no HELP or TYPE: untyped, not a family
}

TEST(PrometheusText, BrokenLinesAreSaidAndSkipped) {
  const std::string page =
      "good 1\n"
      "bad{a=\"1\" 2\n"           // no '}'
      "bad{a=1} 2\n"              // value not quoted
      "bad{a=\"\\x\"} 2\n"        // invalid escape
      "bad{a=\"1\",a=\"2\"} 2\n"  // label twice
      "bad\n"                     // no value
      "bad twelve\n"              // value not a number
      "bad 1 12.5\n"              // timestamp not an integer
      "bad 1 2 3\n"               // more after the timestamp
      "1bad 2\n"                  // not a name
      "bad-name 2\n"              // '-' is not a name character
      "# TYPE good gauges\n"      // unknown type
      "# HELP 0x no name\n"       // HELP of no valid name
      "also_good{x=\"y\"} 2\n";
  auto m = parse_prometheus_text(page);
  ASSERT_TRUE(m) << m.message();
  ASSERT_EQ(m->samples.size(), 2u);
  EXPECT_EQ(m->value("good"), 1.0);
  EXPECT_EQ(m->value("also_good", {{"x", "y"}}), 2.0);
  ASSERT_EQ(m->problems.size(), 12u);
  EXPECT_EQ(m->problems[0], "line 2: ',' or '}' expected after label a");
  EXPECT_EQ(m->problems[1], "line 3: label a's value is not quoted");
  EXPECT_EQ(m->problems[2], "line 4: invalid escape '\\x' in a label value");
  EXPECT_EQ(m->problems[3], "line 5: label a twice");
  EXPECT_EQ(m->problems[4], "line 6: bad has no value");
  EXPECT_EQ(m->problems[5], "line 7: bad's value 'twelve' is not a number");
  EXPECT_EQ(m->problems[6], "line 8: bad's timestamp '12.5' is not an integer");
  EXPECT_EQ(m->problems[7], "line 9: bad has more after its timestamp");
  EXPECT_EQ(m->problems[8], "line 10: not a sample: '1bad 2'");
  EXPECT_EQ(m->problems[9], "line 11: 'bad-...' is not a metric name");
  EXPECT_EQ(m->problems[10], "line 12: unknown metric type 'gauges' for good");
  EXPECT_EQ(m->problems[11], "line 13: # HELP names no valid metric: '0x'");
  // A runaway page is refused whole.
  auto big = parse_prometheus_text(std::string(2u << 20, 'x'), 1u << 20);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.message(), "the metrics page is 2 MiB, over the 1 MiB kvchat reads");
}

TEST(PrometheusText, VllmV1) {
  auto m = parse_prometheus_text(fixture("vllm-v1.prom"));
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->problems.empty());
  EXPECT_EQ(m->value("vllm:kv_cache_usage_perc"), 0.4321);
  EXPECT_EQ(m->sum("vllm:num_requests_running"), 2.0);
  EXPECT_EQ(m->sum("vllm:num_requests_waiting"), 1.0);
  // The prefix cache's hit rate: hits over queries (both in tokens).
  EXPECT_DOUBLE_EQ(
      *m->sum("vllm:prefix_cache_hits_total") / *m->sum("vllm:prefix_cache_queries_total"), 0.75);
  EXPECT_EQ(m->samples.front().label("model_name"), "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(m->family("vllm:time_to_first_token_seconds")->type, "histogram");
  EXPECT_EQ(m->value("vllm:time_to_first_token_seconds_bucket", {{"le", "+Inf"}}), 9.0);
}

TEST(PrometheusText, VllmV0) {
  auto m = parse_prometheus_text(fixture("vllm-v0.prom"));
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->problems.empty());
  EXPECT_FALSE(m->value("vllm:kv_cache_usage_perc"));  // V0's name is another
  EXPECT_EQ(m->value("vllm:gpu_cache_usage_perc"), 0.875);
  EXPECT_EQ(m->value("vllm:gpu_prefix_cache_hit_rate"), 0.25);
  EXPECT_EQ(m->sum("vllm:num_requests_running"), 3.0);
}

TEST(PrometheusText, LlamaCppServer) {
  auto m = parse_prometheus_text(fixture("llamacpp-server.prom"));
  ASSERT_TRUE(m) << m.message();
  EXPECT_TRUE(m->problems.empty());
  EXPECT_EQ(m->samples.size(), 12u);
  EXPECT_EQ(m->value("llamacpp:kv_cache_usage_ratio"), 0.125);
  EXPECT_EQ(m->value("llamacpp:kv_cache_tokens"), 1024.0);
  EXPECT_EQ(m->value("llamacpp:requests_processing"), 1.0);
  EXPECT_EQ(m->value("llamacpp:requests_deferred"), 0.0);
  EXPECT_EQ(m->family("llamacpp:prompt_tokens_total")->type, "counter");
  EXPECT_EQ(m->family("llamacpp:predicted_tokens_seconds")->help,
            "Average generation throughput in tokens/s.");
}

}  // namespace
}  // namespace kvchat
