// The CPU backend's repacked weights (backend/cpu/repacked_weights.h) as a session sees
// them: built once per model, the file's pages they replace given back (resident memory
// stays the weights' size, read in or mapped), tied embeddings looked up in the copy, and
// a reference session on the same model still reading the original bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "backend/cpu/dot.h"
#include "backend/cpu/repacked_weights.h"
#include "gguf/gguf_file.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "model/model_weights.h"
#include "model/synthetic_model.h"
#include "support/test_paths.h"
#include "util/process_memory.h"

namespace kvchat {
namespace {

using gguf::TensorType;

SyntheticModelSpec spec_of(TensorType type, bool tied) {
  SyntheticModelSpec spec;
  spec.name = "repack";
  spec.n_layers = 2;
  spec.n_embd = 256;
  spec.n_heads = 4;
  spec.n_kv_heads = 2;
  spec.n_ff = 512;
  spec.n_vocab = 512;
  spec.n_ctx = 128;
  spec.tied = tied;
  spec.type = type;
  return spec;
}

std::vector<float> logits_of(const std::shared_ptr<const Model>& model, const std::string& backend,
                             const std::vector<TokenId>& ids) {
  SessionOptions o;
  o.backend = backend;
  o.n_threads = 2;
  o.kv_type = "f32";
  auto s = Session::create(model, o);
  EXPECT_TRUE(s) << s.message();
  if (!s) return {};
  std::vector<float> all;
  EXPECT_TRUE((*s)->eval(ids, &all));
  return all;
}

// Tied Q8_0 / Q4_K embeddings: the output matrix is repacked and its file pages given
// back, so the embedding rows are unpacked from the copy; tied F16 / BF16 ones are copied
// as they are and read there. The fast session then agrees with the reference (as
// test_fast_vs_reference's tolerances), and the reference, run again afterwards on the
// same model (reading the given-back pages from the file), gives exactly what it gave before.
TEST(RepackedWeights, TiedEmbeddingsAndTheReferenceAfterwards) {
  if (!cpu::use_avx2_kernels()) GTEST_SKIP() << "weights are repacked for the SIMD kernels only";
  for (TensorType type : {TensorType::Q8_0, TensorType::Q4_K, TensorType::F16, TensorType::BF16}) {
    const bool quantized = type == TensorType::Q8_0 || type == TensorType::Q4_K;
    test::TempDir dir;
    const std::string path = dir.file("m.gguf");
    ASSERT_TRUE(write_synthetic_model(path, spec_of(type, /*tied=*/true)));
    auto model = Model::load(path);
    ASSERT_TRUE(model) << model.message();
    std::vector<TokenId> ids(24);
    for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<TokenId>((i * 53 + 7) % 512);
    const auto ref_before = logits_of(*model, "cpu-reference", ids);
    const auto fast = logits_of(*model, "cpu", ids);
    const auto repacked = cpu::RepackedWeights::for_model(**model);
    const WeightView& out = repacked->weights().output;
    EXPECT_EQ(out.repacked, quantized) << gguf::tensor_type_name(type);
    EXPECT_NE(out.data, (*model)->weights().output.data) << "the output is the backend's copy";
    EXPECT_EQ(repacked->repacked_matrices(), quantized ? 2 * 7 + 1 : 0);
    EXPECT_EQ(repacked->copied_bytes(),
              (*model)->info().weight_bytes() - (*model)->weights().output_norm.row_bytes -
                  2 * 2 * (*model)->weights().layers[0].attn_norm.row_bytes)
        << "every matrix, not the norms";
    EXPECT_EQ(cpu::RepackedWeights::for_model(**model), repacked) << "one copy per model";
    const auto ref_after = logits_of(*model, "cpu-reference", ids);
    ASSERT_EQ(ref_before.size(), ref_after.size());
    EXPECT_EQ(std::memcmp(ref_before.data(), ref_after.data(), ref_before.size() * sizeof(float)),
              0);
    const double tol = type == TensorType::Q4_K ? 5e-2 : type == TensorType::F16 ? 1e-4 : 3e-2;
    for (size_t p = 0; p < ids.size(); ++p) {
      EXPECT_LE(test::max_rel_error(&fast[p * 512], &ref_before[p * 512], 512), tol)
          << gguf::tensor_type_name(type) << " pos " << p;
    }
  }
}

// The host part of a split repacks only its own layers (and the output); with every layer
// elsewhere (the self-check's CPU side) nothing is copied. Each range is its own copy, and
// a backend on it still computes the model: a range's fast session agrees with the reference.
TEST(RepackedWeights, OnlyTheLayersFromTheFirstOneAsked) {
  if (!cpu::use_avx2_kernels()) GTEST_SKIP() << "weights are repacked for the SIMD kernels only";
  test::TempDir dir;
  const std::string path = dir.file("m.gguf");
  auto spec = spec_of(TensorType::Q8_0, /*tied=*/false);
  spec.n_layers = 3;
  ASSERT_TRUE(write_synthetic_model(path, spec));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  for (int32_t from : {0, 1, 2, 3}) {
    SCOPED_TRACE(from);
    const auto r = cpu::RepackedWeights::for_model(**model, from);
    EXPECT_EQ(r->repacked_matrices(), 7 * (3 - from) + (from < 3 ? 1 : 0));
    for (int32_t l = 0; l < 3; ++l) {
      EXPECT_EQ(r->weights().layers[l].wq.repacked, l >= from) << "layer " << l;
      EXPECT_EQ(r->weights().layers[l].w_down.repacked, l >= from) << "layer " << l;
    }
    EXPECT_EQ(r->weights().output.repacked, from < 3);
    EXPECT_EQ(cpu::RepackedWeights::for_model(**model, from), r) << "one copy per range";
  }
  EXPECT_NE(cpu::RepackedWeights::for_model(**model, 1),
            cpu::RepackedWeights::for_model(**model, 2));
}

// Every copy lies in one block that starts on a 2 MiB boundary (what transparent huge
// pages need), the matrices one after the other, 64-byte aligned, none overlapping.
TEST(RepackedWeights, OneBlockOnHugePageBoundaries) {
  if (!cpu::use_avx2_kernels()) GTEST_SKIP() << "weights are repacked for the SIMD kernels only";
  test::TempDir dir;
  const std::string path = dir.file("m.gguf");
  ASSERT_TRUE(write_synthetic_model(path, spec_of(TensorType::F16, /*tied=*/false)));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  const auto r = cpu::RepackedWeights::for_model(**model);
  std::vector<const WeightView*> views{&r->weights().output};
  for (const ModelLayerWeights& L : r->weights().layers) {
    for (const WeightView* v : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down})
      views.push_back(v);
  }
  // Each copy holds the file's bytes (read with pread from the file, not the mapping).
  const ModelWeights& file = (*model)->weights();
  EXPECT_EQ(std::memcmp(r->weights().output.data, file.output.data,
                        file.output.rows * file.output.row_bytes),
            0);
  for (size_t l = 0; l < file.layers.size(); ++l) {
    const WeightView &copy = r->weights().layers[l].w_down, &orig = file.layers[l].w_down;
    EXPECT_NE(copy.data, orig.data);
    EXPECT_EQ(std::memcmp(copy.data, orig.data, orig.rows * orig.row_bytes), 0) << l;
  }
  std::sort(views.begin(), views.end(),
            [](const WeightView* a, const WeightView* b) { return a->data < b->data; });
  EXPECT_EQ(reinterpret_cast<uintptr_t>(views.front()->data) % (2u << 20), 0u);
  uint64_t total = 0;
  for (size_t i = 0; i < views.size(); ++i) {
    const uint64_t bytes = views[i]->rows * views[i]->row_bytes;
    total += bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(views[i]->data) % 64, 0u) << i;
    if (i + 1 < views.size()) {
      EXPECT_EQ(views[i + 1]->data, views[i]->data + (bytes + 63) / 64 * 64) << i;
    }
  }
  EXPECT_EQ(total, r->copied_bytes());
}

// A model read in (the app's path) keeps its float matrices where they were read: the
// mapping starts on a 2 MiB boundary, so the read-in chunks can sit on huge pages, and
// the backend copies nothing that it would have to give back to the file (which would make
// the weights depend on the file on disk again).
TEST(RepackedWeights, ReadInFloatMatricesStayWhereTheyWereRead) {
  if (!cpu::use_avx2_kernels()) GTEST_SKIP() << "weights are copied for the SIMD kernels only";
  test::TempDir dir;
  const std::string path = dir.file("m.gguf");
  ASSERT_TRUE(write_synthetic_model(path, spec_of(TensorType::F16, /*tied=*/false)));
  auto model = Model::load(path);
  ASSERT_TRUE(model) << model.message();
  EXPECT_EQ(reinterpret_cast<uintptr_t>((*model)->gguf().header_bytes().data()) % (2u << 20), 0u);
  ASSERT_TRUE((*model)->prefetch(nullptr));
  const auto r = cpu::RepackedWeights::for_model(**model);
  EXPECT_EQ(r->copied_bytes(), 0u);
  EXPECT_EQ(r->weights().layers[0].w_up.data, (*model)->weights().layers[0].w_up.data);
  EXPECT_EQ(r->weights().output.data, (*model)->weights().output.data);
}

// Resident memory after creating a session: the repacked copy replaces the file's pages.
// Without giving them back, the copy would add the weights' size (here ~40 MB) again.
TEST(RepackedWeights, ResidentMemoryStaysTheWeightsSize) {
  if (!cpu::use_avx2_kernels()) GTEST_SKIP() << "weights are repacked for the SIMD kernels only";
  for (auto [read_in, type] :
       {std::pair{true, TensorType::Q4_0}, std::pair{false, TensorType::Q4_0},
        std::pair{false, TensorType::F16}}) {
    test::TempDir dir;
    const std::string path = dir.file("big.gguf");
    SyntheticModelSpec spec = spec_of(type, /*tied=*/false);
    spec.n_layers = 4;
    spec.n_embd = 1024;
    spec.n_heads = 8;
    spec.n_kv_heads = 8;
    spec.n_ff = 4096;
    spec.n_vocab = 2048;
    ASSERT_TRUE(write_synthetic_model(path, spec));
    auto model = Model::load(path);
    ASSERT_TRUE(model) << model.message();
    const uint64_t weights = (*model)->info().weight_bytes();
    if (read_in) {
      ASSERT_TRUE((*model)->prefetch(nullptr));
    } else {  // mapped: every page read once, as a first token would
      uint64_t sum = 0;
      const ModelWeights& w = (*model)->weights();
      auto touch = [&](const WeightView& v) {
        for (uint64_t i = 0; i < v.row_bytes * v.rows; i += 512) sum += v.data[i];
      };
      touch(w.token_embd), touch(w.output);
      for (const ModelLayerWeights& L : w.layers) {
        for (const WeightView* v : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down})
          touch(*v);
      }
      EXPECT_GT(sum, 0u);
    }
    const uint64_t before = read_process_memory().resident_bytes;
    SessionOptions o;
    o.n_threads = 2;
    auto s = Session::create(*model, o);
    ASSERT_TRUE(s) << s.message();
    const uint64_t after = read_process_memory().resident_bytes;
    const auto repacked = cpu::RepackedWeights::for_model(**model);
    EXPECT_GT(repacked->copied_bytes(), weights * 9 / 10);
    // Beyond the backend's own buffers (activations for 256-token chunks, zeroed: resident).
    const double scratch = static_cast<double>((*s)->memory_report().scratch_bytes);
    EXPECT_LT(static_cast<double>(after) - static_cast<double>(before),
              scratch + 0.1 * static_cast<double>(weights))
        << (read_in ? "read in" : "mapped") << ": resident grew by " << (after - before) / 1e6
        << " MB for " << weights / 1e6 << " MB of weights and " << scratch / 1e6
        << " MB of scratch";
    const TokenId one = 5;
    EXPECT_TRUE((*s)->eval(std::span<const TokenId>(&one, 1)));
    EXPECT_TRUE((*model)->check_weights());
  }
}

}  // namespace
}  // namespace kvchat
