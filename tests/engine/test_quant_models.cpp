// Models in every GGUF weight type, end to end: `kvchat-cli mkmodel --type T` writes a
// file that `info` and `generate` read (the fast and the reference backend agreeing on the
// logits within the int8-activation tolerance, and on the greedy id where the reference's
// lead is clear), and llama.cpp-style mixed files load and run. (Which weight types the CUDA
// kernels read: tests/gpu/test_chunk_decode_host.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include <nlohmann/json.hpp>

#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/model_presets.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using gguf::TensorType;
using test::run_cli;
using test::sh_quote;

std::vector<int> greedy_ids(const std::string& model, const std::string& backend) {
  auto r = run_cli("generate --model " + sh_quote(model) +
                   " --prompt 'the word' -n 6 --temp 0 --json --backend " + backend);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(r.out.substr(0, r.out.find('\n')))["ids"].get<std::vector<int>>();
}

// The fast backend dots quantized weights with int8 activations (per 32 values, or per 256
// for the K- and XS-types), the reference with f32 ones: up to 1.6e-2 / 2.8e-2 relative
// measured in test_fast_vs_reference (8.1e-3 here on the Q4_0 + Q6_K file), hence 5e-2.
// The arg-max must agree where the reference's lead exceeds what that allows to move.
constexpr double kInt8Tolerance = 5e-2;

void expect_fast_matches_reference(const std::shared_ptr<const Model>& model,
                                   const std::string& what) {
  const std::vector<TokenId> prompt = {1, 17, 42, 99, 200, 383};
  SessionOptions fast_opts, ref_opts;
  ref_opts.backend = "cpu-reference";
  auto fast = Session::create(model, fast_opts);
  auto ref = Session::create(model, ref_opts);
  ASSERT_TRUE(fast && ref) << what;
  ASSERT_TRUE((*fast)->eval(prompt)) << what;
  ASSERT_TRUE((*ref)->eval(prompt)) << what;
  const auto got = (*fast)->last_logits(), want = (*ref)->last_logits();
  const size_t n = want.size();
  EXPECT_LE(test::max_rel_error(got, want, n), kInt8Tolerance) << what;
  std::vector<float> top(want.begin(), want.end());
  std::partial_sort(top.begin(), top.begin() + 2, top.end(), std::greater<>());
  double scale = 0;
  for (float v : want) scale = std::max(scale, std::fabs(double(v)));
  if (top[0] - top[1] > 2 * kInt8Tolerance * scale) {
    EXPECT_EQ(std::max_element(got.begin(), got.end()) - got.begin(),
              std::max_element(want.begin(), want.end()) - want.begin())
        << what;
  }
}

TEST(QuantModels, MkmodelWritesEveryTypeAndInfoAndGenerateReadIt) {
  test::TempDir dir;
  // Widths 256 / 512: every matrix is whole super-blocks, so the file is all of that type.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"q4_1", "Q4_1"},  {"q5_0", "Q5_0"},     {"q5_1", "Q5_1"},   {"iq4_nl", "IQ4_NL"},
      {"q2_k", "Q2_K"},  {"q3_k", "Q3_K"},     {"q4_k", "Q4_K"},   {"q5_k", "Q5_K"},
      {"q6_k", "Q6_K"},  {"iq4_xs", "IQ4_XS"}, {"q3_k_m", "Q3_K"}, {"q4_k_m", "Q4_K"},
      {"q5_k_m", "Q5_K"}};
  for (const auto& [arg, type] : cases) {
    const std::string path = dir.file(arg + ".gguf");
    auto mk = run_cli("mkmodel --arch llama --embd 256 --ff 512 --type " + arg + " --out " +
                      sh_quote(path));
    ASSERT_EQ(mk.exit_code, 0) << arg << ": " << mk.err;
    auto info = run_cli("info --json --model " + sh_quote(path));
    ASSERT_EQ(info.exit_code, 0) << arg << ": " << info.err;
    const auto j = nlohmann::json::parse(info.out);
    const auto& counts = j["tensor_count_by_type"];
    // llama --arch: 2 (embd, output) + 3 layers x 7 matrices; norms F32.
    int matrices = 0;
    for (const auto& [name, n] : counts.items()) matrices += name == "F32" ? 0 : n.get<int>();
    EXPECT_EQ(matrices, 23) << arg;
    ASSERT_TRUE(counts.contains(type)) << arg << ": " << counts.dump();
    if (arg.ends_with("_m")) {
      // The mixes: Q6_K at least for the output; the base type for most.
      EXPECT_GE(counts["Q6_K"].get<int>(), 1) << arg;
      EXPECT_GT(counts[type].get<int>(), 23 / 2) << arg;
    } else {
      EXPECT_EQ(counts[type].get<int>(), 23) << arg;
    }
    EXPECT_EQ(greedy_ids(path, "cpu").size(), 6u) << arg;
    EXPECT_EQ(greedy_ids(path, "cpu-reference").size(), 6u) << arg;
    auto model = Model::load(path);
    ASSERT_TRUE(model) << arg << ": " << model.message();
    expect_fast_matches_reference(*model, arg);
  }
}

TEST(QuantModels, RowsOfOtherLengthsFallBackWithANote) {
  test::TempDir dir;
  const std::string path = dir.file("k.gguf");
  // kjv-demo-shape: rows of 192 (not whole 256-blocks) except ffn_down's 512.
  auto mk = run_cli("mkmodel --preset kjv-demo-shape --type q4_k --out " + sh_quote(path));
  ASSERT_EQ(mk.exit_code, 0) << mk.err;
  EXPECT_NE(mk.err.find("blk.*.attn_q.weight: rows of 192 values are not whole Q4_K blocks, "
                        "written as Q5_0 (6 matrices)"),
            std::string::npos)
      << mk.err;
  EXPECT_EQ(mk.err.find("ffn_down"), std::string::npos) << mk.err;
  auto info = run_cli("info --json --model " + sh_quote(path));
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const auto j = nlohmann::json::parse(info.out);
  EXPECT_EQ(j["tensor_count_by_type"]["Q4_K"].get<int>(), 6);  // ffn_down of 6 layers
  EXPECT_EQ(j["tensor_count_by_type"]["Q5_0"].get<int>(), 1 + 6 * 6);
  // `memory` predicts the same bytes for the preset as the file holds.
  auto mem = run_cli("memory --preset kjv-demo-shape --weight-type q4_k --json");
  ASSERT_EQ(mem.exit_code, 0) << mem.err;
  EXPECT_NE(mem.out.find(std::to_string(j["weight_bytes"].get<uint64_t>())), std::string::npos)
      << mem.out << "\n"
      << j["weight_bytes"];
  EXPECT_EQ(greedy_ids(path, "cpu"), greedy_ids(path, "cpu-reference"));
}

// What llama.cpp's quantizer writes for a "Q4_0" file: Q4_0 matrices with a Q6_K output and
// embedding (get-rows from Q6_K), and norms in F32.
TEST(QuantModels, Q4_0WithQ6_KOutputAndEmbeddingRuns) {
  test::TempDir dir;
  SyntheticModelSpec spec = *synthetic_arch_spec("llama");
  spec.n_embd = 256;
  spec.n_ff = 512;
  spec.type = TensorType::Q4_0;
  spec.tensor_types = {{"output.weight", TensorType::Q6_K},
                       {"token_embd.weight", TensorType::Q6_K}};
  const std::string path = dir.file("q4_0.gguf");
  ASSERT_TRUE(write_synthetic_model(path, spec));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  EXPECT_EQ((*model)->info().weight_bytes_by_type.at("Q6_K"), 2u * 384 * 256 / 256 * 210);
  expect_fast_matches_reference(*model, "q4_0 + Q6_K output and embedding");
}

// Predicted bytes of a preset in the K-types and mixes (`kvchat-cli memory --weight-type`).
TEST(QuantModels, PresetWeightBytesCountTheMixAndTheFallbacks) {
  const ModelPreset p = *find_model_preset("llama-3-8b");
  const uint64_t matrix = preset_param_count(p).matrix, vector = preset_param_count(p).vector;
  EXPECT_EQ(*preset_weight_bytes(p, TensorType::Q4_K), matrix / 256 * 144 + vector * 4);
  EXPECT_EQ(*preset_weight_bytes(p, TensorType::IQ4_XS), matrix / 256 * 136 + vector * 4);
  // Q4_K_M: Q6_K for the output (128256 x 4096) and for attn_v (1024 x 4096) and ffn_down
  // (4096 x 14336) of 16 of the 32 layers (0-3, 28-31 and 6, 9, ..., 27).
  const uint64_t q6 = 128256ull * 4096 + 16ull * 1024 * 4096 + 16ull * 4096 * 14336;
  EXPECT_EQ(*preset_weight_bytes(p, TensorType::Q4_K, WeightMix::Q4_K_M),
            (matrix - q6) / 256 * 144 + q6 / 256 * 210 + vector * 4);
  // qwen2.5-0.5b: rows of 896 are not whole 256-blocks (Q5_0 instead of Q4_K), ffn_down's
  // rows of 4864 are (24 layers x 896 x 4864 values).
  const ModelPreset qwen = *find_model_preset("qwen2.5-0.5b");
  const uint64_t qm = preset_param_count(qwen).matrix, qv = preset_param_count(qwen).vector;
  const uint64_t down = 24ull * 896 * 4864;
  EXPECT_EQ(*preset_weight_bytes(qwen, TensorType::Q4_K),
            down / 256 * 144 + (qm - down) / 32 * 22 + qv * 4);
}

}  // namespace
}  // namespace kvchat
