#include "backend/cpu/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/attention.h"
#include "backend/cpu/cpu_ops.h"
#include "backend/cpu/dot.h"
#include "backend/cpu/matmul.h"
#include "kv/kv_cache.h"
#include "kvchat/model.h"
#include "model/model_weights.h"
#include "numeric/convert.h"
#include "util/thread_pool.h"

namespace kvchat::cpu {

namespace {

constexpr int32_t kMaxBatch = 256;  // tokens per forward chunk; bounds the activation buffers

class CpuBackend final : public Backend {
 public:
  CpuBackend(const Model& model, const BackendOptions& options)
      : hp_(model.hparams()), w_(model.weights()), pool_(options.n_threads), matmul_(pool_) {
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
    attention_scratch_.assign(pool_.size(), AttentionScratch(n_ctx, hp_.n_heads / hp_.n_kv_heads, hp_.head_dim));
    for (int32_t l = 0; l < hp_.n_layers; ++l) rope_.push_back(&hp_.rope(l, n_ctx));
  }

  std::string_view name() const override { return "cpu"; }

  uint64_t scratch_bytes() const override {
    uint64_t n = x_.size() + xb_.size() + xb2_.size() + q_.size() + k_.size() + v_.size() +
                 att_out_.size() + hb_.size() + hb2_.size();
    for (const auto& s : attention_scratch_) n += s.bytes() / sizeof(float);
    return n * sizeof(float) + matmul_.scratch_bytes();
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
  const float* f32(const WeightView& w) { return reinterpret_cast<const float*>(w.data); }

  // rows (B, n) += bias (n), when the architecture has the bias.
  static void add_bias_rows(float* rows, const WeightView& bias, int64_t B, int64_t n) {
    if (!bias) return;
    for (int64_t b = 0; b < B; ++b) add_bias(rows + b * n, bias.f32(), n);
  }

  // tokens (B) at positions [pos0, pos0+B). logits: (B, n_vocab) if all_logits, else (n_vocab).
  void forward_batch(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                     bool all_logits) {
    const int64_t B = static_cast<int64_t>(tokens.size());
    const int32_t dim = hp_.n_embd, hd = hp_.head_dim, q_dim = hp_.q_dim(), kv_dim = hp_.kv_dim();

    // x (B, dim) = token_embd[tokens] * embed_scale
    for (int64_t b = 0; b < B; ++b) {
      dequantize_row(w_.token_embd.type, w_.token_embd.row(tokens[b]), &x_[b * dim], dim);
    }
    if (hp_.embed_scale != 1.0f) {
      for (int64_t i = 0; i < B * dim; ++i) x_[i] *= hp_.embed_scale;
    }

    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const ModelLayerWeights& L = w_.layers[l];
      for (int64_t b = 0; b < B; ++b) {
        rmsnorm(&xb_[b * dim], &x_[b * dim], f32(L.attn_norm), dim, hp_.rms_eps);
      }
      // q (B, q_dim), k and v (B, kv_dim), with biases and per-head norms when present
      matmul_.run(L.wq, xb_.data(), B, q_.data(), q_dim);
      matmul_.run(L.wk, xb_.data(), B, k_.data(), kv_dim);
      matmul_.run(L.wv, xb_.data(), B, v_.data(), kv_dim);
      add_bias_rows(q_.data(), L.bq, B, q_dim);
      add_bias_rows(k_.data(), L.bk, B, kv_dim);
      add_bias_rows(v_.data(), L.bv, B, kv_dim);
      const RopeTable& rope_table = *rope_[l];
      for (int64_t b = 0; b < B; ++b) {
        const int32_t pos = pos0 + static_cast<int32_t>(b);
        if (L.q_norm) rmsnorm_heads(&q_[b * q_dim], hp_.n_heads, hd, f32(L.q_norm), hp_.rms_eps);
        if (L.k_norm) rmsnorm_heads(&k_[b * kv_dim], hp_.n_kv_heads, hd, f32(L.k_norm), hp_.rms_eps);
        rope(&q_[b * q_dim], hp_.n_heads, hd, rope_table, pos);
        rope(&k_[b * kv_dim], hp_.n_kv_heads, hd, rope_table, pos);
        kv.write_key(l, pos, &k_[b * kv_dim]);
        kv.write_value(l, pos, &v_[b * kv_dim]);
      }
      attention(l, B, pos0, kv);

      // x += [post_attn_norm](wo . att_out)
      matmul_.run(L.wo, att_out_.data(), B, xb2_.data(), dim);
      if (L.post_attn_norm) {
        for (int64_t b = 0; b < B; ++b) {
          rmsnorm(&xb2_[b * dim], &xb2_[b * dim], f32(L.post_attn_norm), dim, hp_.rms_eps);
        }
      }
      for (int64_t i = 0; i < B * dim; ++i) x_[i] += xb2_[i];

      // x += [post_ffw_norm](w_down . act_glu(w_gate . xb, w_up . xb)),  xb = rmsnorm(x)
      for (int64_t b = 0; b < B; ++b) {
        rmsnorm(&xb_[b * dim], &x_[b * dim], f32(L.ffn_norm), dim, hp_.rms_eps);
      }
      matmul_.run(L.w_gate, xb_.data(), B, hb_.data(), hp_.n_ff);
      matmul_.run(L.w_up, xb_.data(), B, hb2_.data(), hp_.n_ff);
      const FfnActivation act = hp_.arch->activation;
      pool_.parallel_for(B, [&](int64_t b0, int64_t b1, int) {
        gated_activation(act, &hb_[b0 * hp_.n_ff], &hb2_[b0 * hp_.n_ff], (b1 - b0) * hp_.n_ff);
      });
      matmul_.run(L.w_down, hb_.data(), B, xb2_.data(), dim);
      if (L.post_ffw_norm) {
        for (int64_t b = 0; b < B; ++b) {
          rmsnorm(&xb2_[b * dim], &xb2_[b * dim], f32(L.post_ffw_norm), dim, hp_.rms_eps);
        }
      }
      for (int64_t i = 0; i < B * dim; ++i) x_[i] += xb2_[i];
    }

    if (!logits) return;
    // logits = [softcap](output . rmsnorm(x)): every token's, or only the last one's.
    const int64_t first = all_logits ? 0 : B - 1;
    for (int64_t b = first; b < B; ++b) {
      rmsnorm(&xb_[b * dim], &x_[b * dim], f32(w_.output_norm), dim, hp_.rms_eps);
    }
    matmul_.run(w_.output, &xb_[first * dim], B - first, logits, hp_.n_vocab);
    if (hp_.final_softcap > 0) softcap(logits, (B - first) * hp_.n_vocab, hp_.final_softcap);
  }

  // att_out (B, n_heads*hd): causal attention of each (token, head) over [first, pos]:
  // every earlier position, or on a windowed layer the last `window` (its own included).
  void attention(int32_t l, int64_t B, int32_t pos0, const KvCache& kv) {
    AttentionArgs a{&kv, l, q_.data(), hp_.q_dim(), att_out_.data(), hp_.q_dim(), pos0, B, hp_.n_heads,
                    hp_.n_kv_heads, hp_.head_dim, hp_.window(l), hp_.query_scale, hp_.attn_softcap};
    pool_.parallel_for(attention_items(a), [&](int64_t i0, int64_t i1, int thread) {
      attend_items(a, i0, i1, attention_scratch_[thread]);
    });
  }

  const ModelHParams& hp_;
  const ModelWeights& w_;
  std::vector<const RopeTable*> rope_;  // (n_layers) each layer's table for this session's n_ctx
  ThreadPool pool_;
  MatMul matmul_;
  // Activations for one batch of up to kMaxBatch tokens, row-major (token, feature).
  std::vector<float> x_, xb_, xb2_, q_, k_, v_, att_out_, hb_, hb2_;
  std::vector<AttentionScratch> attention_scratch_;  // per thread
};

}  // namespace

Result<std::unique_ptr<Backend>> make_cpu_backend(const Model& model, const BackendOptions& options) {
  return std::unique_ptr<Backend>(new CpuBackend(model, options));
}

}  // namespace kvchat::cpu
