// kvchat-cli's contract, exercised as a script would: output formats, exit codes, and
// the numbers against independent truth (the float64 references, the model's shape).
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>
#include <sstream>

#include "backend/cuda_capabilities.h"
#include "kvchat/model.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::run_cli;
using test::sh_quote;
using test::shared_path;

std::string model_f32() { return sh_quote(shared_path("models/kjv-demo-f32.gguf")); }
std::string model_f16() { return sh_quote(shared_path("models/kjv-demo-f16.gguf")); }

std::string join_ids(const std::vector<int>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
  return s;
}

TEST(Cli, LogitsAllMatchTheFloat64Reference) {
  for (const auto& [name, tol] : {std::pair<std::string, double>{"f32", 1e-4}, {"f16", 1e-3}}) {
    const auto ref =
        test::load_json(shared_path("reference/kjv-demo/kjv-demo-" + name + ".ref.json"));
    for (const auto& c : ref["cases"]) {
      const auto ids = c["ids"].get<std::vector<int>>();
      auto r =
          run_cli("logits --model " + sh_quote(shared_path("models/kjv-demo-" + name + ".gguf")) +
                  " --ids " + sh_quote(join_ids(ids)) + " --all");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const auto out = nlohmann::json::parse(r.out);
      ASSERT_EQ(out["n_vocab"].get<int>(), 2048);
      ASSERT_EQ(out["logits"].size(), ids.size());
      for (size_t k = 0; k < c["positions"].size(); ++k) {
        const int pos = c["positions"][k].get<int>();
        const auto got = out["logits"][pos].get<std::vector<double>>();
        const auto want = c["logits"][k].get<std::vector<double>>();
        EXPECT_LE(test::max_rel_error(got, want, want.size()), tol) << name << " pos " << pos;
      }
    }
  }
}

TEST(Cli, LogitsWithoutAllGivesTheLastPosition) {
  const auto ref = test::load_json(shared_path("reference/kjv-demo/kjv-demo-f32.ref.json"));
  const auto& c = ref["cases"][2];
  auto r = run_cli("logits --model " + model_f32() + " --ids " +
                   sh_quote(join_ids(c["ids"].get<std::vector<int>>())));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  ASSERT_EQ(out["logits"].size(), 1u);
  const auto want = c["logits"].back().get<std::vector<double>>();
  ASSERT_EQ(c["positions"].back().get<size_t>(), c["ids"].size() - 1);
  EXPECT_LE(test::max_rel_error(out["logits"][0].get<std::vector<double>>(), want, want.size()),
            1e-4);
}

TEST(Cli, GreedyGenerateReproducesTheReferenceContinuation) {
  const auto ref = test::load_json(shared_path("reference/kjv-demo/kjv-demo-f32.ref.json"));
  for (const auto& c : ref["cases"]) {
    auto r = run_cli("generate --model " + model_f32() + " --prompt " +
                     sh_quote(c["prompt"].get<std::string>()) + " -n " +
                     std::to_string(c["greedy_n"].get<int>()) + " --temp 0 --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto out = nlohmann::json::parse(r.out);
    EXPECT_EQ(out["ids"].get<std::vector<int>>(), c["greedy_ids"].get<std::vector<int>>());
    const auto& st = out["stats"];
    EXPECT_EQ(st["prompt_tokens"].get<size_t>(), c["ids"].size());
    EXPECT_EQ(st["generated_tokens"].get<size_t>(), c["greedy_ids"].size());
    EXPECT_GT(st["prefill_tokens_per_second"].get<double>(), 0);
    EXPECT_GT(st["decode_tokens_per_second"].get<double>(), 0);
  }
}

TEST(Cli, SeededSamplingIsReproducibleAndSeedsDiffer) {
  const std::string base = "generate --model " + model_f16() +
                           " --prompt 'And God said' -n 40 --temp 1.0 --top-k 0 --top-p 1 "
                           "--min-p 0 --json --seed ";
  auto a = run_cli(base + "7"), b = run_cli(base + "7"), c = run_cli(base + "8");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto ia = nlohmann::json::parse(a.out)["ids"], ib = nlohmann::json::parse(b.out)["ids"],
             ic = nlohmann::json::parse(c.out)["ids"];
  EXPECT_EQ(ia, ib);
  EXPECT_NE(ia, ic);
}

TEST(Cli, StopStringEndsTheReplyBeforeIt) {
  auto r = run_cli("generate --model " + model_f32() +
                   " --prompt 'Genesis 1\n1 In the beginning' -n 48 --temp 0 --stop LORD --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  // The greedy continuation is " of the earth is the LORD, ..." (reference).
  EXPECT_EQ(out["text"].get<std::string>(), " of the earth is the ");
  EXPECT_EQ(out["stop_reason"].get<std::string>(), "stop-string");
}

TEST(Cli, TokenizeAndDetokenizeRoundTrip) {
  const std::string text =
      "In the beginning God created the heaven and the earth. 42 émigré 🦙";
  auto t = run_cli("tokenize --model " + model_f16() + " --text " + sh_quote(text));
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::istringstream in(t.out);
  std::vector<int> ids;
  for (int id; in >> id;) ids.push_back(id);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], 1);  // BOS
  auto nb = run_cli("tokenize --no-bos --model " + model_f16() + " --text " + sh_quote(text));
  EXPECT_EQ(nb.out, t.out.substr(2));  // the same ids without "1 "
  auto d = run_cli("detokenize --model " + model_f16() + " --ids " + sh_quote(join_ids(ids)));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  EXPECT_EQ(d.out, text + "\n");
}

TEST(Cli, InfoJsonDescribesTheDemoModel) {
  auto r = run_cli("info --json --model " + model_f16());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["architecture"], "llama");
  EXPECT_EQ(j["n_layers"], 6);
  EXPECT_EQ(j["n_embd"], 192);
  EXPECT_EQ(j["n_heads"], 6);
  EXPECT_EQ(j["n_kv_heads"], 2);
  EXPECT_EQ(j["head_dim"], 32);
  EXPECT_EQ(j["n_ff"], 512);
  EXPECT_EQ(j["n_vocab"], 2048);
  EXPECT_EQ(j["n_ctx_train"], 512);
  EXPECT_EQ(j["tied_embeddings"], true);
  // 2048*192 + 6*(2*192 + 192*192 + 2*64*192 + 192*192 + 3*192*512) + 192
  EXPECT_EQ(j["n_params"],
            2048 * 192 + 6 * (2 * 192 + 2 * 192 * 192 + 2 * 64 * 192 + 3 * 192 * 512) + 192);
  EXPECT_EQ(j["weight_bytes_by_type"]["F32"], (6 * 2 * 192 + 192) * 4);
  EXPECT_EQ(j["kv_elements_per_token"], 2 * 6 * 2 * 32);
  // Every KV type, rotated ones named as such, with its bytes per token (768 values).
  std::map<std::string, int> bytes;
  for (const auto& t : j["kv_types"]) {
    EXPECT_TRUE(t["usable"].get<bool>()) << t.dump();
    EXPECT_EQ(t["rotated"].get<bool>(), t["name"].get<std::string>().back() == 'r') << t.dump();
    bytes[t["name"]] = t["bytes_per_token"];
  }
  EXPECT_EQ(bytes, (std::map<std::string, int>{{"f32", 3072},
                                               {"f16", 1536},
                                               {"q8_0", 816},
                                               {"q4_0", 432},
                                               {"q8_0r", 816},
                                               {"q4_0r", 432}}));
}

// "cuda" in info --json: whether the CUDA kernels implement the model (its operations and
// weight types), whatever this machine has. The demo model (plain llama, F16) runs; for
// every synthetic architecture the answer is what cuda_can_run / cuda_can_read_weights
// say of the loaded model (runs == no error, why_not == the first error's message), and
// the human-readable output has the same in one line.
TEST(Cli, InfoSaysWhetherTheCudaKernelsRunTheModel) {
  auto demo = run_cli("info --json --model " + model_f16());
  ASSERT_EQ(demo.exit_code, 0) << demo.err;
  const auto dj = nlohmann::json::parse(demo.out);
  ASSERT_TRUE(dj.contains("cuda")) << demo.out;
  EXPECT_EQ(dj["cuda"]["runs"], true);
  EXPECT_EQ(dj["cuda"]["why_not"], "");
  auto demo_text = run_cli("info --model " + model_f16());
  ASSERT_EQ(demo_text.exit_code, 0) << demo_text.err;
  EXPECT_NE(demo_text.out.find("\nCUDA: runs\n"), std::string::npos) << demo_text.out;

  test::TempDir dir;
  int refused = 0;
  for (const std::string& arch : synthetic_arch_names()) {
    SCOPED_TRACE(arch);
    auto spec = synthetic_arch_spec(arch);
    ASSERT_TRUE(spec) << spec.message();
    const std::string path = dir.file(arch + ".gguf");
    ASSERT_TRUE(write_synthetic_model(path, *spec));
    auto model = Model::load(path);
    ASSERT_TRUE(model) << model.message();
    Status expected = cuda_can_run((*model)->hparams());
    if (expected) expected = cuda_can_read_weights((*model)->weights());

    auto r = run_cli("info --json --model " + sh_quote(path));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_TRUE(j["cuda"]["runs"].is_boolean()) << r.out;
    ASSERT_TRUE(j["cuda"]["why_not"].is_string()) << r.out;
    const bool runs = j["cuda"]["runs"].get<bool>();
    const std::string why_not = j["cuda"]["why_not"].get<std::string>();
    EXPECT_EQ(runs, why_not.empty()) << why_not;
    EXPECT_EQ(runs, static_cast<bool>(expected));
    EXPECT_EQ(why_not, expected ? "" : expected.message());
    refused += runs ? 0 : 1;

    auto text = run_cli("info --model " + sh_quote(path));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const std::string line = runs ? "\nCUDA: runs\n" : "\nCUDA: no — " + why_not.substr(0, 40);
    EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
  }
  // Not asserted (the CUDA kernels are being extended to every architecture): how many
  // of them the check refuses today.
  std::printf("the CUDA check refuses %d of %zu synthetic architectures\n", refused,
              synthetic_arch_names().size());
}

// Without --model, a model command takes the demo model beside the executable
// (build/share/kvchat/models here, <prefix>/share/kvchat/models when installed) and says so.
TEST(Cli, ModelDefaultsToTheDemoModelBesideTheBinary) {
  auto r = run_cli("info --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("using the demo model"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("share/kvchat/models/kjv-demo-f16.gguf"), std::string::npos) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["n_layers"], 6);
}

TEST(Cli, ErrorsGoToStderrWithNonZeroExit) {
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"", "usage"},
      {"frobnicate", "unknown command"},
      {"info --model /nonexistent/model.gguf", "/nonexistent/model.gguf: cannot open"},
      {"info --model " + sh_quote(shared_path("models/kjv-tok.model")), "not a GGUF file"},
      {"tokenize --model " + model_f16(), "exactly one of --text or --file"},
      {"logits --model " + model_f16() + " --ids '1 99999'", "outside the vocabulary"},
      {"logits --model " + model_f16() + " --ids 'a b'", "not a token id"},
      {"generate --model " + model_f16() + " --prompt x -n nope", "-n expects an integer"},
      {"generate --model " + model_f16() + " --prompt x --bogus 1", "unknown option '--bogus'"},
      {"generate --model " + model_f16() + " --prompt x --backend tpu", "unknown backend 'tpu'"},
      {"generate --model " + model_f16() + " --prompt 'x y z' --ctx 2 --temp 0", "context is full"},
      {"mkmodel --preset nope --out /tmp/x.gguf", "unknown preset 'nope'"},
  };
  for (const Case& c : cases) {
    auto r = run_cli(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.args << " -> " << r.err;
  }
}

// --gpu-layers: auto or a number of layers (more than the model has means all); anything
// else is refused before the model runs, naming the value. The CPU ignores it.
TEST(Cli, GpuLayersTakesANumberOrAuto) {
  const std::string args =
      "generate --model " + model_f16() + " --prompt 'In the beginning' -n 4 --temp 0";
  for (const std::string bad : {"abc", "-1", "3x", "''"}) {
    auto r = run_cli(args + " --gpu-layers " + bad);
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_NE(r.err.find("--gpu-layers takes a number of layers (0 or more) or auto"),
              std::string::npos)
        << bad << " -> " << r.err;
  }
  auto plain = run_cli(args);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  for (const std::string good : {"auto", "0", "3", "99"}) {
    auto r = run_cli(args + " --gpu-layers " + good);
    EXPECT_EQ(r.exit_code, 0) << good << " -> " << r.err;
    EXPECT_EQ(r.out, plain.out) << good;
  }
  auto help = run_cli("--help");
  EXPECT_NE(help.out.find("--gpu-layers N|auto"), std::string::npos);
}

// Without a CUDA device (CI), --backend cuda says so and fails; auto says why it runs on
// the CPU and gives the CPU's output. With a device, both run on it.
TEST(Cli, CudaBackendWithoutADeviceFallsBackUnderAuto) {
  const std::string args =
      "generate --model " + model_f16() + " --prompt 'In the beginning' -n 8 --temp 0";
  auto cpu = run_cli(args + " --backend cpu");
  auto cuda = run_cli(args + " --backend cuda");
  auto automatic = run_cli(args + " --backend auto");
  ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  EXPECT_EQ(automatic.out, cpu.out);
  if (cuda.exit_code != 0) {
    EXPECT_TRUE(cuda.err.find("no CUDA device") != std::string::npos ||
                cuda.err.find("no CUDA backend") != std::string::npos)
        << cuda.err;
    EXPECT_NE(automatic.err.find("using the CPU backend"), std::string::npos) << automatic.err;
  }
}

TEST(Cli, BenchReportsThroughputAndARooflineShare) {
  auto r = run_cli("bench --json --model " + model_f16() + " --pp 32 --tg 16 --bw-mib 64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["prefill_tokens_per_second"].get<double>(), 0);
  EXPECT_GT(j["decode_tokens_per_second"].get<double>(), 0);
  // Decode reads every weight once (the tied output matrix is the whole embedding) plus
  // the one embedding row of the input token: 5505024 F16 + 9984 F32 + 192 x 2 bytes.
  EXPECT_EQ(j["weight_bytes_per_token"].get<uint64_t>(), 5505024u + 9984u + 192u * 2u);
  const double share = j["decode_share_of_copy_bandwidth"].get<double>();
  EXPECT_NEAR(share,
              j["decode_tokens_per_second"].get<double>() *
                  (j["weight_bytes_per_token"].get<double>() +
                   j["kv_bytes_read_per_token_avg"].get<double>()) /
                  j["copy_bandwidth_bytes_per_second"].get<double>(),
              1e-9 * share + 1e-12);
}

// `figure` of one bench run: the median and _min / _max of its samples, whatever their order
// (the median of an even count is the mean of the middle two). Returns the samples.
std::vector<double> expect_spread_of_samples(const nlohmann::json& run, const std::string& figure,
                                             size_t n) {
  std::vector<double> sorted = run["samples"][figure].get<std::vector<double>>();
  EXPECT_EQ(sorted.size(), n) << figure;
  if (sorted.size() != n || n == 0) return sorted;
  const std::vector<double> in_run_order = sorted;
  std::sort(sorted.begin(), sorted.end());
  const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  EXPECT_DOUBLE_EQ(run[figure].get<double>(), median) << figure;
  EXPECT_DOUBLE_EQ(run[figure + "_min"].get<double>(), sorted.front()) << figure;
  EXPECT_DOUBLE_EQ(run[figure + "_max"].get<double>(), sorted.back()) << figure;
  EXPECT_LE(run[figure + "_min"].get<double>(), run[figure].get<double>()) << figure;
  EXPECT_LE(run[figure].get<double>(), run[figure + "_max"].get<double>()) << figure;
  return in_run_order;
}

TEST(Cli, BenchRepeatReportsTheMedianAndRangeOfItsSamples) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r =
      run_cli("bench --json --repeat 3 --model " + model_f16() + " --pp 16 --tg 8 --bw-mib 16");
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["repeat"].get<int>(), 3);
  ASSERT_EQ(j["runs"].size(), 1u);
  const auto& run = j["runs"][0];
  const auto prefill = expect_spread_of_samples(run, "prefill_tokens_per_second", 3);
  const auto decode = expect_spread_of_samples(run, "decode_tokens_per_second", 3);
  ASSERT_EQ(prefill.size(), 3u);
  ASSERT_EQ(decode.size(), 3u);
  // The top level keeps the first run's figures (medians), as before --repeat existed.
  for (const char* f :
       {"prefill_tokens_per_second", "decode_tokens_per_second", "decode_bytes_per_second"}) {
    EXPECT_EQ(j[f], run[f]) << f;
  }
  // Derived rates are the sampled tok/s times a fixed amount: bytes per decoded token, FLOPs
  // per prompt token (taken from the medians, so each range must be the samples' range scaled).
  const double bytes_per_token =
      j["weight_bytes_per_token"].get<double>() + j["kv_bytes_read_per_token_avg"].get<double>();
  const double flops_per_token =
      j["prefill_flops_per_second"].get<double>() / j["prefill_tokens_per_second"].get<double>();
  for (const char* end : {"", "_min", "_max"}) {
    const std::string s = end;
    const double bytes = j["decode_bytes_per_second" + s].get<double>();
    EXPECT_NEAR(bytes, j["decode_tokens_per_second" + s].get<double>() * bytes_per_token,
                1e-9 * bytes)
        << s;
    const double flops = j["prefill_flops_per_second" + s].get<double>();
    EXPECT_NEAR(flops, j["prefill_tokens_per_second" + s].get<double>() * flops_per_token,
                1e-9 * flops)
        << s;
  }
  // Every sample is a real timing, and the timed parts fit in the process's wall time.
  double timed_s = 0;
  for (int i = 0; i < 3; ++i) {
    EXPECT_GT(prefill[i], 0);
    EXPECT_GT(decode[i], 0);
    timed_s += 16 / prefill[i] + 8 / decode[i];
  }
  for (const char* f : {"model_load_seconds", "session_create_seconds", "warmup_seconds"}) {
    ASSERT_TRUE(j.contains(f)) << f;
    EXPECT_GT(j[f].get<double>(), 0) << f;
    timed_s += j[f].get<double>();
  }
  EXPECT_LT(timed_s, wall_s);

  // An even count: the median is the mean of the middle two.
  auto two =
      run_cli("bench --json --repeat 2 --model " + model_f16() + " --pp 8 --tg 2 --bw-mib 16");
  ASSERT_EQ(two.exit_code, 0) << two.err;
  const auto j2 = nlohmann::json::parse(two.out);
  expect_spread_of_samples(j2["runs"][0], "prefill_tokens_per_second", 2);
  expect_spread_of_samples(j2["runs"][0], "decode_tokens_per_second", 2);
}

TEST(Cli, BenchRepeatTextShowsTheMedianAndRangeAndTheLoadTimes) {
  auto r = run_cli("bench --repeat 3 --model " + model_f16() + " --pp 16 --tg 8 --bw-mib 16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.out,
      std::regex(
          R"(\nload +model \d+\.\d\d s, session \(backend, weight repacking\) \d+\.\d\d s)")))
      << r.out;
  // The f16 row: "median (min–max)" for prefill and for decode t/s.
  std::smatch row;
  ASSERT_TRUE(std::regex_search(r.out, row, std::regex(R"(\nf16 +16 [^\n]*)"))) << r.out;
  const std::string line = row.str();
  const std::regex cell(R"(([0-9.]+) \(([0-9.]+)\xE2\x80\x93([0-9.]+)\))");
  int cells = 0;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), cell); it != std::sregex_iterator();
       ++it, ++cells) {
    const double median = std::stod((*it)[1]), lo = std::stod((*it)[2]), hi = std::stod((*it)[3]);
    EXPECT_LE(lo, median) << line;
    EXPECT_LE(median, hi) << line;
    EXPECT_GT(lo, 0) << line;
  }
  EXPECT_EQ(cells, 2) << line;
}

TEST(Cli, BenchRepeatOutsideOneToHundredIsRefused) {
  for (const char* bad : {"0", "x", "101", "-3", ""}) {
    auto r = run_cli(std::string("bench --repeat '") + bad + "' --model " + model_f16() +
                     " --pp 8 --tg 2");
    EXPECT_NE(r.exit_code, 0) << bad;
    EXPECT_NE(r.err.find("--repeat"), std::string::npos) << bad << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << bad;
  }
  auto snapshot = run_cli("bench --snapshot --repeat 3 --model " + model_f16());
  EXPECT_NE(snapshot.exit_code, 0);
  EXPECT_NE(snapshot.err.find("--repeat"), std::string::npos) << snapshot.err;
}

}  // namespace
}  // namespace kvchat
