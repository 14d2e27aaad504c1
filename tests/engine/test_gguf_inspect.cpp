// inspect_gguf_prefix: the header of a GGUF read from its first bytes only. Checked
// against the whole file (every prefix of the demo model's header either asks for more
// or answers as the whole file does), against `kvchat-cli memory` (the same figures),
// against the loader (Model::load's verdict on unsupported files) and against hostile
// headers.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

#include "gguf/gguf_writer.h"
#include "kvchat/gguf_inspect.h"
#include "kvchat/model.h"
#include "model/synthetic_model.h"
#include "support/run_command.h"
#include "support/gguf_patch.h"
#include "support/test_paths.h"

namespace kvchat {
namespace {

using test::read_bytes;
using test::run_cli;
using test::sh_quote;
using test::shared_path;

std::string demo_path() { return shared_path("models/kjv-demo-f16.gguf"); }

// Every field an inspection reports, for comparing two.
std::string describe(const GgufInspection& in) {
  nlohmann::json types = nlohmann::json::array();
  for (const GgufTensorTypeCount& t : in.tensor_types) {
    types.push_back({t.type, t.count, t.bytes, t.supported});
  }
  return nlohmann::json({{"file_size", in.file_size},
                         {"header_bytes", in.header_bytes},
                         {"version", in.gguf_version},
                         {"name", in.name},
                         {"architecture", in.architecture},
                         {"shape_known", in.shape_known},
                         {"n_layers", in.n_layers},
                         {"n_embd", in.n_embd},
                         {"n_heads", in.n_heads},
                         {"n_kv_heads", in.n_kv_heads},
                         {"head_dim", in.head_dim},
                         {"n_ff", in.n_ff},
                         {"n_vocab", in.n_vocab},
                         {"n_ctx_train", in.n_ctx_train},
                         {"sliding_window", in.sliding_window},
                         {"n_windowed_layers", in.n_windowed_layers},
                         {"n_tensors", in.n_tensors},
                         {"n_params", in.n_params},
                         {"weight_bytes", in.weight_bytes},
                         {"types", types},
                         {"runnable", in.runnable},
                         {"why_not", in.why_not}})
      .dump();
}

// The answer for a prefix: the inspection, or the error message.
std::string answer(std::span<const uint8_t> prefix, uint64_t file_size, uint64_t* bytes_needed) {
  auto in = inspect_gguf_prefix(prefix, file_size);
  *bytes_needed = in ? in->bytes_needed : 0;
  return in ? describe(*in) : "error: " + in.message();
}

TEST(GgufInspect, EveryPrefixOfTheDemoHeaderAsksForMoreOrAnswersAsTheWholeFile) {
  const std::vector<uint8_t> file = read_bytes(demo_path());
  ASSERT_GT(file.size(), 1000u);
  auto full = inspect_gguf_prefix(file, file.size());
  ASSERT_TRUE(full) << full.message();
  ASSERT_EQ(full->bytes_needed, 0u);
  ASSERT_TRUE(full->runnable) << full->why_not;
  const std::string whole = describe(*full);
  const uint64_t header = full->header_bytes;
  ASSERT_GT(header, 1000u);
  ASSERT_LT(header, file.size());
  uint64_t complete_from = 0;  // the shortest prefix that answers
  for (uint64_t len = 0; len <= header + 64; ++len) {
    uint64_t needed = 0;
    const std::string got = answer(std::span(file).first(len), file.size(), &needed);
    if (needed > 0) {
      ASSERT_GT(needed, len) << "prefix " << len;
      ASSERT_LE(needed, file.size());
      ASSERT_EQ(complete_from, 0u)
          << "prefix " << len << " asks for more after a shorter one answered";
      continue;
    }
    ASSERT_EQ(got, whole) << "prefix " << len;
    if (complete_from == 0) complete_from = len;
  }
  // The header ends at the last tensor info; the padding up to the data is not needed.
  EXPECT_GT(complete_from, 0u);
  EXPECT_LE(complete_from, header);
  EXPECT_GT(complete_from + 32, header);
  // Longer prefixes, up to the whole file, answer the same.
  for (uint64_t len : {header + 4096, file.size() / 2, file.size() - 1}) {
    uint64_t needed = 0;
    EXPECT_EQ(answer(std::span(file).first(len), file.size(), &needed), whole) << len;
  }
}

TEST(GgufInspect, FollowingBytesNeededConvergesInAFewRounds) {
  const std::vector<uint8_t> file = read_bytes(demo_path());
  uint64_t have = 0;
  int rounds = 0;
  for (;; ++rounds) {
    ASSERT_LT(rounds, 20);
    auto in = inspect_gguf_prefix(std::span(file).first(have), file.size());
    ASSERT_TRUE(in) << in.message();
    if (in->bytes_needed == 0) break;
    have = in->bytes_needed;
  }
  EXPECT_LE(rounds, 8);
}

TEST(GgufInspect, AgreesWithTheLoaderAndTheWholeFile) {
  auto model = Model::load(demo_path());
  ASSERT_TRUE(model) << model.message();
  const ModelInfo& m = (*model)->info();
  auto in = inspect_gguf_file(demo_path());
  ASSERT_TRUE(in) << in.message();
  EXPECT_TRUE(in->runnable);
  EXPECT_EQ(in->architecture, m.architecture);
  EXPECT_EQ(in->name, m.name);
  EXPECT_EQ(in->n_layers, m.n_layers);
  EXPECT_EQ(in->n_kv_heads, m.n_kv_heads);
  EXPECT_EQ(in->head_dim, m.head_dim);
  EXPECT_EQ(in->n_vocab, m.n_vocab);
  EXPECT_EQ(in->n_ctx_train, m.n_ctx_train);
  EXPECT_EQ(in->weight_bytes, m.weight_bytes());
  EXPECT_EQ(in->n_params, m.n_params);
  EXPECT_EQ(in->file_size, m.file_bytes);
  uint64_t type_bytes = 0;
  for (const GgufTensorTypeCount& t : in->tensor_types) {
    EXPECT_EQ(m.tensor_count_by_type.at(t.type), static_cast<int32_t>(t.count)) << t.type;
    EXPECT_EQ(m.weight_bytes_by_type.at(t.type), t.bytes) << t.type;
    type_bytes += t.bytes;
  }
  EXPECT_EQ(type_bytes, in->weight_bytes);
  const std::vector<uint8_t> file = read_bytes(demo_path());
  auto prefix = inspect_gguf_prefix(std::span(file).first(in->header_bytes), file.size());
  ASSERT_TRUE(prefix) << prefix.message();
  EXPECT_EQ(describe(*prefix), describe(*in));
}

// The fit equals `kvchat-cli memory --json` on the same file, for every KV type, with a
// budget that fits and one that fits only the weights.
TEST(GgufInspect, FitEqualsKvchatCliMemory) {
  for (const char* model : {"models/kjv-demo-f16.gguf", "models/stories260K.gguf"}) {
    const std::string path = shared_path(model);
    const std::vector<uint8_t> file = read_bytes(path);
    auto probe = inspect_gguf_prefix(std::span(file).first(0), file.size());
    ASSERT_TRUE(probe);
    uint64_t have = probe->bytes_needed;
    GgufInspection in;
    for (;;) {
      auto r = inspect_gguf_prefix(std::span(file).first(have), file.size());
      ASSERT_TRUE(r) << r.message();
      if (r->bytes_needed == 0) {
        in = *r;
        break;
      }
      have = r->bytes_needed;
    }
    ASSERT_LT(have, file.size());  // the weights were not needed
    for (const char* kv : {"f32", "f16", "q8_0", "q4_0"}) {
      for (int64_t ctx : {int64_t{0}, int64_t{100}, int64_t{4096}}) {
        const uint64_t budget = in.weight_bytes + 3'000'000;
        auto fit = in.fit(ctx, kv, budget);
        if (!fit) {  // the CLI refuses the same (a KV type the shape cannot store)
          const auto cli = run_cli("memory --model " + sh_quote(path) + " --kv-type " + kv +
                                   " --json" + (ctx ? " --ctx " + std::to_string(ctx) : ""));
          EXPECT_NE(cli.exit_code, 0) << model << " " << kv << ": " << fit.message();
          continue;
        }
        const auto cli = run_cli("memory --model " + sh_quote(path) + " --kv-type " + kv +
                                 " --budget-bytes " + std::to_string(budget) + " --json" +
                                 (ctx ? " --ctx " + std::to_string(ctx) : ""));
        ASSERT_EQ(cli.exit_code, 0) << cli.err;
        const nlohmann::json j = nlohmann::json::parse(cli.out);
        SCOPED_TRACE(std::string(model) + " " + kv + " ctx " + std::to_string(ctx));
        EXPECT_EQ(j["ctx"].get<int64_t>(), fit->n_ctx);
        EXPECT_EQ(j["kv_type"].get<std::string>(), fit->kv_type);
        EXPECT_EQ(j["weights_bytes"].get<uint64_t>(), fit->weights_bytes);
        EXPECT_EQ(j["kv_bytes"].get<uint64_t>(), fit->kv_bytes);
        EXPECT_EQ(j["kv_allocated_bytes"].get<uint64_t>(), fit->kv_allocated_bytes);
        EXPECT_EQ(j["total_bytes"].get<uint64_t>(), fit->total_bytes);
        EXPECT_EQ(j["max_ctx"].get<uint64_t>(), fit->max_ctx);
        EXPECT_EQ(j["max_ctx_capped"].get<uint64_t>(), fit->max_ctx_capped);
        EXPECT_EQ(j["concurrent_conversations"].get<uint64_t>(), fit->concurrent_conversations);
        EXPECT_EQ(j["n_layers"].get<int32_t>(), in.n_layers);
        EXPECT_EQ(j["n_kv_heads"].get<int32_t>(), in.n_kv_heads);
        EXPECT_EQ(j["head_dim"].get<int32_t>(), in.head_dim);
        EXPECT_EQ(j["n_ctx_train"].get<int32_t>(), in.n_ctx_train);
        EXPECT_EQ(fit->fits, fit->total_bytes <= budget);
        EXPECT_GT(fit->max_ctx, 0u);
      }
    }
    // Less memory than the weights: does not fit, nothing fits beside them.
    auto small = in.fit(256, "f16", in.weight_bytes - 1);
    ASSERT_TRUE(small) << small.message();
    EXPECT_FALSE(small->fits);
    EXPECT_EQ(small->max_ctx, 0u);
    EXPECT_EQ(small->concurrent_conversations, 0u);
    EXPECT_FALSE(in.fit(256, "q3_k", 1 << 30));
  }
}

// The bytes of a small llama model written by the synthetic model writer.
std::vector<uint8_t> synthetic_llama() {
  test::TempDir dir;
  auto spec = synthetic_arch_spec("llama");
  EXPECT_TRUE(spec);
  EXPECT_TRUE(write_synthetic_model(dir.file("m.gguf"), *spec));
  return read_bytes(dir.file("m.gguf"));
}

using test::set_tensor_type;

TEST(GgufInspect, UnsupportedTensorTypeIsReportedAsTheLoaderDoes) {
  std::vector<uint8_t> bytes = synthetic_llama();
  set_tensor_type(bytes, "blk.0.ffn_down.weight", 16);  // IQ2_XXS
  test::TempDir dir;
  test::write_bytes(dir.file("m.gguf"), bytes);
  auto loaded = Model::load(dir.file("m.gguf"));
  ASSERT_FALSE(loaded);
  auto in = inspect_gguf_prefix(bytes, bytes.size());
  ASSERT_TRUE(in) << in.message();
  EXPECT_FALSE(in->runnable);
  EXPECT_NE(in->why_not.find("blk.0.ffn_down.weight"), std::string::npos) << in->why_not;
  EXPECT_NE(in->why_not.find("IQ2_XXS"), std::string::npos) << in->why_not;
  EXPECT_NE(loaded.message().find(in->why_not), std::string::npos) << loaded.message() << "\nvs\n"
                                                                   << in->why_not;
  bool listed = false;
  for (const GgufTensorTypeCount& t : in->tensor_types) {
    if (t.type == "IQ2_XXS") listed = !t.supported && t.count == 1;
  }
  EXPECT_TRUE(listed);
  EXPECT_TRUE(in->shape_known);  // the memory can still be predicted
  EXPECT_TRUE(in->fit(128, "f16", 1ull << 30));
}

TEST(GgufInspect, UnsupportedArchitectureIsReportedWithWhy) {
  gguf::GgufWriter w;
  w.set_string("general.architecture", "mamba");
  w.set_u32("mamba.block_count", 2);
  w.add_tensor("token_embd.weight", {64, 4}, gguf::TensorType::F32,
               [](uint8_t* dst, uint64_t n) { std::memset(dst, 0, n); });
  const std::vector<uint8_t> bytes = w.to_bytes();
  auto in = inspect_gguf_prefix(bytes, bytes.size());
  ASSERT_TRUE(in) << in.message();
  EXPECT_EQ(in->architecture, "mamba");
  EXPECT_FALSE(in->runnable);
  EXPECT_NE(in->why_not.find("architecture 'mamba' is not supported"), std::string::npos)
      << in->why_not;
  EXPECT_FALSE(in->shape_known);
  EXPECT_EQ(in->n_tensors, 1u);
  auto fit = in->fit(128, "f16", 1ull << 30);
  ASSERT_FALSE(fit);
  EXPECT_NE(fit.message().find("mamba"), std::string::npos) << fit.message();
}

// A header of `n_kv` metadata entries and `n_tensors` tensors, without their contents.
std::vector<uint8_t> header_with_counts(uint64_t n_tensors, uint64_t n_kv) {
  std::vector<uint8_t> b(24);
  const uint32_t magic = 0x46554747, version = 3;
  std::memcpy(b.data(), &magic, 4);
  std::memcpy(b.data() + 4, &version, 4);
  std::memcpy(b.data() + 8, &n_tensors, 8);
  std::memcpy(b.data() + 16, &n_kv, 8);
  return b;
}

TEST(GgufInspect, HostileHeadersAreClearErrors) {
  // Counts no file of the declared size could hold.
  auto kv = inspect_gguf_prefix(header_with_counts(1, 1ull << 60), 1 << 20);
  ASSERT_FALSE(kv);
  EXPECT_NE(kv.message().find("absurd metadata count"), std::string::npos) << kv.message();
  auto tensors = inspect_gguf_prefix(header_with_counts(1ull << 59, 0), 1 << 20);
  ASSERT_FALSE(tensors);
  EXPECT_NE(tensors.message().find("absurd tensor count"), std::string::npos) << tensors.message();
  // A huge declared file makes big counts plausible: the parse asks for bytes, holding
  // memory only for what it read.
  auto big = inspect_gguf_prefix(header_with_counts(1ull << 30, 1ull << 30), 1ull << 50);
  ASSERT_TRUE(big) << big.message();
  EXPECT_GT(big->bytes_needed, 24u);
  // A key length past the file's end.
  std::vector<uint8_t> b = header_with_counts(0, 1);
  const uint64_t huge = 1ull << 40;
  b.resize(32);
  std::memcpy(b.data() + 24, &huge, 8);
  auto key = inspect_gguf_prefix(b, 4096);
  ASSERT_FALSE(key);
  EXPECT_NE(key.message().find("absurd length"), std::string::npos) << key.message();
  // Not a GGUF; a prefix longer than the file; a file cut inside its header.
  const std::vector<uint8_t> junk(64, 'x');
  auto bad_magic = inspect_gguf_prefix(junk, junk.size());
  ASSERT_FALSE(bad_magic);
  EXPECT_NE(bad_magic.message().find("not a GGUF file"), std::string::npos);
  EXPECT_FALSE(inspect_gguf_prefix(junk, 10));
  const std::vector<uint8_t> demo = read_bytes(demo_path());
  auto cut = inspect_gguf_prefix(std::span(demo).first(5000), 5000);
  ASSERT_FALSE(cut);
  EXPECT_NE(cut.message().find("remaining bytes"), std::string::npos) << cut.message();
  auto whole = inspect_gguf_file(demo_path());
  ASSERT_TRUE(whole);
  const uint64_t in_tensor_infos = whole->header_bytes - 40;
  auto cut_later = inspect_gguf_prefix(std::span(demo).first(in_tensor_infos), in_tensor_infos);
  ASSERT_FALSE(cut_later);
  EXPECT_NE(cut_later.message().find("truncated"), std::string::npos) << cut_later.message();
}

}  // namespace
}  // namespace kvchat
