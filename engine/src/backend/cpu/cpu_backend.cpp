#include "backend/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "backend/cpu/attention.h"
#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/matmul.h"
#include "backend/cpu/repacked_weights.h"
#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "model/model_weights.h"
#include "numeric/convert.h"
#include "util/thread_pool.h"

namespace kvchat::cpu {

namespace {

constexpr int32_t kMaxBatch = 256;  // tokens per forward chunk; bounds the activation buffers
// Up to this many tokens (decode, short chunks) every thread normalises and prepares its
// own copy of a product's input, so that no barrier separates the norm from the product;
// above it the threads share one copy, made between two barriers (bounded memory).
constexpr int64_t kPrivateInputTokens = 8;

// One forward chunk, as every thread of the pool sees it.
struct Batch {
  int64_t n_tokens;  // B
  int32_t pos0;      // positions [pos0, pos0 + B)
  KvCache* kv;
  float* logits;     // (B, n_vocab) if all_logits, else (n_vocab); null: no logits
  bool all_logits;
};

// The forward pass as one ThreadPool::run per chunk of tokens. Per layer five parallel
// phases, each ended by one barrier:
//   1. q, k, v = x_norm . {wq, wk, wv}^T; each thread owns whole heads of the three and
//      finishes them: bias, per-head norm, RoPE (cached cos/sin), K and V into the cache;
//   2. attention, (token, head) items split over the threads;
//   3. x += [post_attn_norm](wo . att_out), each thread adding its own output columns;
//   4. h = act(gate . x_norm) * (up . x_norm), gate and up split identically so that a
//      thread applies the activation to the rows it computed;
//   5. x += [post_ffw_norm](w_down . h), as 3.
// The RMSNorm before 1 and 4 is computed by every thread for itself (decode) or split by
// tokens (long chunks; two more barriers). Post-norms (gemma) add one barrier each.
class CpuBackend final : public Backend {
 public:
  CpuBackend(const Model& model, const BackendOptions& options)
      : hp_(model.hparams()),
        repacked_(RepackedWeights::for_model(model)),
        w_(repacked_->weights()),
        pool_(options.n_threads),
        matmul_(pool_.size()) {
    const int64_t B = kMaxBatch;
    x_.resize(B * hp_.n_embd);
    xb_.resize(B * hp_.n_embd);
    xb2_.resize(B * hp_.n_embd);
    q_.resize(B * hp_.q_dim());
    k_.resize(B * hp_.kv_dim());
    v_.resize(B * hp_.kv_dim());
    att_out_.resize(B * hp_.q_dim());
    hb_.resize(B * hp_.n_ff);
    hb2_.resize(B * hp_.n_ff);
    const int32_t n_ctx = options.n_ctx > 0 ? options.n_ctx : hp_.n_ctx_train;
    threads_.resize(pool_.size());
    for (ThreadBuffers& t : threads_) {
      t.xn.resize(kPrivateInputTokens * hp_.n_embd);
      t.attention = AttentionScratch(n_ctx, hp_.n_heads / hp_.n_kv_heads, hp_.head_dim);
    }
    // One cos/sin cache per distinct RoPE table (global, local, long).
    rope_cs_.reserve(hp_.n_layers);
    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const RopeTable* table = &hp_.rope(l, n_ctx);
      size_t i = 0;
      while (i < rope_cs_.size() && &rope_cs_[i].table() != table) ++i;
      if (i == rope_cs_.size()) rope_cs_.emplace_back(*table);
      layer_rope_.push_back(static_cast<int32_t>(i));
    }
  }

  std::string_view name() const override { return "cpu"; }

  uint64_t scratch_bytes() const override {
    uint64_t n = x_.size() + xb_.size() + xb2_.size() + q_.size() + k_.size() + v_.size() +
                 att_out_.size() + hb_.size() + hb2_.size();
    uint64_t bytes = n * sizeof(float) + matmul_.scratch_bytes() + shared_in_.scratch_bytes();
    for (const ThreadBuffers& t : threads_) {
      bytes += t.xn.size() * sizeof(float) + t.in.scratch_bytes() + t.attention.bytes();
    }
    for (const RopeCosSin& r : rope_cs_) bytes += r.bytes();
    return bytes;
  }

  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    for (size_t start = 0; start < tokens.size(); start += kMaxBatch) {
      const size_t n = std::min<size_t>(kMaxBatch, tokens.size() - start);
      const bool last_chunk = start + n == tokens.size();
      float* out = all_logits ? logits + start * hp_.n_vocab : (last_chunk ? logits : nullptr);
      forward_batch(tokens.subspan(start, n), pos0 + static_cast<int32_t>(start), kv, out,
                    all_logits);
    }
    return {};
  }

 private:
  struct alignas(64) ThreadBuffers {  // one cache line apart: written by their thread only
    std::vector<float> xn;       // (kPrivateInputTokens, dim): this thread's normalised x
    PreparedActivations in;      // this thread's prepared input (chunks of <= kPrivateInputTokens)
    AttentionScratch attention;  // this thread's attention buffers
  };

  const float* f32(const WeightView& w) { return reinterpret_cast<const float*>(w.data); }

  // tokens (B) at positions [pos0, pos0+B). logits: (B, n_vocab) if all_logits, else (n_vocab).
  void forward_batch(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                     bool all_logits) {
    const int64_t B = static_cast<int64_t>(tokens.size());
    const int32_t dim = hp_.n_embd;
    // x (B, dim) = token_embd[tokens] * embed_scale
    for (int64_t b = 0; b < B; ++b) {
      repacked_->embedding(tokens[b], &x_[b * dim]);
    }
    if (hp_.embed_scale != 1.0f) {
      for (int64_t i = 0; i < B * dim; ++i) x_[i] *= hp_.embed_scale;
    }
    for (RopeCosSin& r : rope_cs_) r.cover(pos0 + static_cast<int32_t>(B));
    const Batch batch{B, pos0, &kv, logits, all_logits};
    pool_.run([&](int thread, int n_threads) { forward_thread(batch, thread, n_threads); });
  }

  // The whole chunk, as thread `th` of `nth` runs it.
  void forward_thread(const Batch& bt, int th, int nth) {
    const int64_t B = bt.n_tokens;
    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const ModelLayerWeights& L = w_.layers[l];
      const gguf::TensorType qkv_types[3] = {L.wq.type, L.wk.type, L.wv.type};
      qkv_share(l, normed_input(x_.data(), B, L.attn_norm, qkv_types, th, nth), bt, th, nth);
      pool_.barrier();
      attention_share(l, bt, th, nth);
      pool_.barrier();
      residual_share(L.wo, input(att_out_.data(), B, hp_.q_dim(), L.wo.type, th), L.post_attn_norm, B,
                     th, nth);
      pool_.barrier();
      const gguf::TensorType ffn_types[2] = {L.w_gate.type, L.w_up.type};
      gate_up_share(L, normed_input(x_.data(), B, L.ffn_norm, ffn_types, th, nth), th, nth);
      pool_.barrier();
      residual_share(L.w_down, input(hb_.data(), B, hp_.n_ff, L.w_down.type, th), L.post_ffw_norm, B,
                     th, nth);
      pool_.barrier();
    }
    if (bt.logits) logits_share(bt, th, nth);
  }

  // The input of a product: rmsnorm(x[b]) * gain for the n tokens of x (n, dim), prepared
  // for the weight types that read it. Private to the thread for short chunks; otherwise
  // shared (norm split by tokens; barriers inside, so every thread must call it).
  const PreparedActivations& normed_input(const float* x, int64_t n, const WeightView& gain,
                               std::span<const gguf::TensorType> types, int th, int nth) {
    const int32_t dim = hp_.n_embd;
    if (n <= kPrivateInputTokens) {
      ThreadBuffers& t = threads_[th];
      for (int64_t b = 0; b < n; ++b) rmsnorm(&t.xn[b * dim], x + b * dim, f32(gain), dim, hp_.rms_eps);
      t.in.prepare(t.xn.data(), n, dim, types);
      return t.in;
    }
    const auto [b0, b1] = split_range(n, 1, th, nth);
    for (int64_t b = b0; b < b1; ++b) rmsnorm(&xb_[b * dim], x + b * dim, f32(gain), dim, hp_.rms_eps);
    pool_.barrier();
    if (th == 0) shared_in_.prepare(xb_.data(), n, dim, types);
    pool_.barrier();
    return shared_in_;
  }

  // The input of a product: X (n, cols) as it is, prepared for `type` (as normed_input).
  const PreparedActivations& input(const float* X, int64_t n, int64_t cols, gguf::TensorType type, int th) {
    const std::span<const gguf::TensorType> types(&type, 1);
    if (n <= kPrivateInputTokens) {
      threads_[th].in.prepare(X, n, cols, types);
      return threads_[th].in;
    }
    if (th == 0) shared_in_.prepare(X, n, cols, types);
    pool_.barrier();
    return shared_in_;
  }

  // Phase 1. q (B, q_dim), k and v (B, kv_dim) = in . {wq, wk, wv}^T over the n_heads +
  // 2 n_kv_heads heads, split by whole heads. Each thread finishes its heads: bias, per-head
  // norm and RoPE (q, k); its K and V heads go into the cache at positions pos0 + b.
  void qkv_share(int32_t l, const PreparedActivations& in, const Batch& bt, int th, int nth) {
    const ModelLayerWeights& L = w_.layers[l];
    const int32_t hd = hp_.head_dim, nh = hp_.n_heads, nkv = hp_.n_kv_heads;
    const int32_t q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim();
    const auto [u0, u1] = split_range(nh + 2 * nkv, 1, th, nth);
    const auto heads_in = [&](int64_t first, int64_t count) {  // this thread's heads of [first, first+count)
      return std::pair<int32_t, int32_t>(static_cast<int32_t>(std::clamp(u0 - first, int64_t{0}, count)),
                                         static_cast<int32_t>(std::clamp(u1 - first, int64_t{0}, count)));
    };
    const auto [q0, q1] = heads_in(0, nh);
    const auto [k0, k1] = heads_in(nh, nkv);
    const auto [v0, v1] = heads_in(nh + nkv, nkv);
    const RopeCosSin& cs = rope_cs_[layer_rope_[l]];
    const RopeTable& rt = cs.table();
    const gguf::TensorType kv_type = kv_storage_type(bt.kv->type());
    const uint64_t head_bytes = bt.kv->head_bytes();
    if (q0 < q1) {
      matmul_.rows(L.wq, in, int64_t{q0} * hd, int64_t{q1} * hd, q_.data(), q_dim, th);
      for (int64_t b = 0; b < bt.n_tokens; ++b) {
        float* q = &q_[b * q_dim + q0 * hd];
        if (L.bq) add_bias(q, L.bq.f32() + q0 * hd, int64_t{q1 - q0} * hd);
        if (L.q_norm) rmsnorm_heads(q, q1 - q0, hd, f32(L.q_norm), hp_.rms_eps);
        rope_cached(q, q1 - q0, hd, rt.style, rt.n_rot, cs.at(bt.pos0 + static_cast<int32_t>(b)));
      }
    }
    if (k0 < k1) {
      matmul_.rows(L.wk, in, int64_t{k0} * hd, int64_t{k1} * hd, k_.data(), kv_dim, th);
      for (int64_t b = 0; b < bt.n_tokens; ++b) {
        const int32_t pos = bt.pos0 + static_cast<int32_t>(b);
        float* k = &k_[b * kv_dim + k0 * hd];
        if (L.bk) add_bias(k, L.bk.f32() + k0 * hd, int64_t{k1 - k0} * hd);
        if (L.k_norm) rmsnorm_heads(k, k1 - k0, hd, f32(L.k_norm), hp_.rms_eps);
        rope_cached(k, k1 - k0, hd, rt.style, rt.n_rot, cs.at(pos));
        // Heads are whole blocks of every KV type, so a run of heads encodes on its own.
        quantize_row(kv_type, k, bt.kv->key_row(l, pos) + k0 * head_bytes, int64_t{k1 - k0} * hd);
      }
    }
    if (v0 < v1) {
      matmul_.rows(L.wv, in, int64_t{v0} * hd, int64_t{v1} * hd, v_.data(), kv_dim, th);
      for (int64_t b = 0; b < bt.n_tokens; ++b) {
        const int32_t pos = bt.pos0 + static_cast<int32_t>(b);
        float* v = &v_[b * kv_dim + v0 * hd];
        if (L.bv) add_bias(v, L.bv.f32() + v0 * hd, int64_t{v1 - v0} * hd);
        quantize_row(kv_type, v, bt.kv->value_row(l, pos) + v0 * head_bytes, int64_t{v1 - v0} * hd);
      }
    }
  }

  // Phase 2. att_out (B, n_heads*hd): causal attention (backend/cpu/attention.h), one
  // work item per (token, KV head) for the query heads of its group; items split
  // contiguously over the threads.
  void attention_share(int32_t l, const Batch& bt, int th, int nth) {
    const AttentionArgs a{bt.kv, l, q_.data(), hp_.q_dim(), att_out_.data(), hp_.q_dim(), bt.pos0, bt.n_tokens,
                          hp_.n_heads, hp_.n_kv_heads, hp_.head_dim, hp_.window(l), hp_.query_scale,
                          hp_.attn_softcap};
    const auto [i0, i1] = split_range(attention_items(a), 1, th, nth);
    if (i0 < i1) attend_items(a, i0, i1, threads_[th].attention);
  }

  // Phases 3 and 5. x (B, dim) += [post_norm](in . W^T): each thread adds the output
  // columns it computed; with a post-norm (needs whole rows) after a barrier, by tokens.
  void residual_share(const WeightView& W, const PreparedActivations& in, const WeightView& post_norm, int64_t B,
                      int th, int nth) {
    const int32_t dim = hp_.n_embd;
    const auto [r0, r1] = split_range(dim, kMatmulRowAlign, th, nth);
    if (r0 < r1) matmul_.rows(W, in, r0, r1, xb2_.data(), dim, th);
    if (!post_norm) {
      for (int64_t b = 0; b < B; ++b) {
        for (int64_t r = r0; r < r1; ++r) x_[b * dim + r] += xb2_[b * dim + r];
      }
      return;
    }
    pool_.barrier();
    const auto [b0, b1] = split_range(B, 1, th, nth);
    for (int64_t b = b0; b < b1; ++b) {
      rmsnorm(&xb2_[b * dim], &xb2_[b * dim], f32(post_norm), dim, hp_.rms_eps);
      for (int32_t i = 0; i < dim; ++i) x_[b * dim + i] += xb2_[b * dim + i];
    }
  }

  // Phase 4. hb (B, n_ff) = act(in . w_gate^T) * (in . w_up^T), gate and up rows split
  // identically, so each thread gates the rows it computed.
  void gate_up_share(const ModelLayerWeights& L, const PreparedActivations& in, int th, int nth) {
    const int64_t n_ff = hp_.n_ff, B = in.n_tokens();
    const auto [r0, r1] = split_range(n_ff, kMatmulRowAlign, th, nth);
    if (r0 >= r1) return;
    matmul_.rows(L.w_gate, in, r0, r1, hb_.data(), n_ff, th);
    matmul_.rows(L.w_up, in, r0, r1, hb2_.data(), n_ff, th);
    for (int64_t b = 0; b < B; ++b) {
      gated_activation(hp_.arch->activation, &hb_[b * n_ff + r0], &hb2_[b * n_ff + r0], r1 - r0);
    }
  }

  // logits = [softcap](output . rmsnorm(x)): every token's, or only the last one's; vocab
  // rows split over the threads.
  void logits_share(const Batch& bt, int th, int nth) {
    const int32_t dim = hp_.n_embd;
    const int64_t first = bt.all_logits ? 0 : bt.n_tokens - 1, n = bt.n_tokens - first;
    const PreparedActivations& in =
        normed_input(&x_[first * dim], n, w_.output_norm, std::span<const gguf::TensorType>(&w_.output.type, 1),
                     th, nth);
    const auto [r0, r1] = split_range(hp_.n_vocab, kMatmulRowAlign, th, nth);
    if (r0 >= r1) return;
    matmul_.rows(w_.output, in, r0, r1, bt.logits, hp_.n_vocab, th);
    if (hp_.final_softcap > 0) {
      for (int64_t b = 0; b < n; ++b) softcap(bt.logits + b * hp_.n_vocab + r0, r1 - r0, hp_.final_softcap);
    }
  }

  const ModelHParams& hp_;
  std::shared_ptr<const RepackedWeights> repacked_;  // the model's, shared with its other CPU sessions
  const ModelWeights& w_;                            // repacked_->weights()
  ThreadPool pool_;
  MatMul matmul_;
  std::vector<RopeCosSin> rope_cs_;   // one per distinct RoPE table of this session's n_ctx
  std::vector<int32_t> layer_rope_;   // (n_layers) index into rope_cs_
  // Activations for one batch of up to kMaxBatch tokens, row-major (token, feature).
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, att_out_, hb_, hb2_;
  PreparedActivations shared_in_;                 // a product's input shared by all threads (long chunks)
  std::vector<ThreadBuffers> threads_;  // (n_threads)
};

}  // namespace

Result<std::unique_ptr<Backend>> make_cpu_backend(const Model& model, const BackendOptions& options) {
  return std::unique_ptr<Backend>(new CpuBackend(model, options));
}

}  // namespace kvchat::cpu
