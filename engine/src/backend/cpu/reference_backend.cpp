#include "backend/cpu/reference_backend.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/cpu_ops.h"
#include "kv/kv_cache.h"
#include "kv/kv_codec.h"
#include "kvchat/model.h"
#include "model/model_weights.h"
#include "numeric/convert.h"

namespace kvchat::cpu {

namespace {

// One token at a time, every architecture of model/architecture.h, written to be read:
// the forward pass the fast backends are tested against.
class ReferenceBackend final : public Backend {
 public:
  ReferenceBackend(const Model& model, const BackendOptions& options)
      : hp_(model.hparams()), w_(model.weights()) {
    for (int32_t l = 0; l < hp_.n_layers; ++l) rope_.push_back(&hp_.rope(l, options.n_ctx));
    x_.resize(hp_.n_embd);
    k_.resize(hp_.kv_dim());
    v_.resize(hp_.kv_dim());
    head_.resize(hp_.head_dim);
    xb_.resize(hp_.n_embd);
    xb2_.resize(hp_.n_embd);
    q_.resize(hp_.q_dim());
    att_out_.resize(hp_.q_dim());
    hb_.resize(hp_.n_ff);
    hb2_.resize(hp_.n_ff);
    row_.resize(std::max<int64_t>(hp_.n_embd, std::max(hp_.n_ff, hp_.q_dim())));
  }

  std::string_view name() const override { return "cpu-reference"; }

  uint64_t scratch_bytes() const override {
    return (x_.size() + k_.size() + v_.size() + head_.size() + xb_.size() + xb2_.size() +
            q_.size() + att_out_.size() + hb_.size() + hb2_.size() + row_.size() + att_.size()) *
           sizeof(float);
  }

  Status forward(std::span<const TokenId> tokens, int32_t pos0, KvCache& kv, float* logits,
                 bool all_logits) override {
    for (size_t t = 0; t < tokens.size(); ++t) {
      const bool want = all_logits || t + 1 == tokens.size();
      float* out = all_logits ? logits + t * hp_.n_vocab : logits;
      forward_one(tokens[t], pos0 + static_cast<int32_t>(t), kv, want ? out : nullptr);
    }
    return {};
  }

 private:
  // y (w.rows) = W (w.rows, w.cols) . x (w.cols), plus bias (w.rows) when present
  void matvec(float* y, const WeightView& w, const float* x, const WeightView& bias = {}) {
    for (int64_t r = 0; r < w.rows; ++r) {
      dequantize_row(w.type, w.row(r), row_.data(), w.cols);
      float sum = 0;
      for (int64_t i = 0; i < w.cols; ++i) sum += row_[i] * x[i];
      y[r] = bias ? sum + bias.f32()[r] : sum;
    }
  }

  void forward_one(TokenId token, int32_t pos, KvCache& kv, float* logits) {
    const int32_t dim = hp_.n_embd, hd = hp_.head_dim;
    const int32_t group = hp_.n_heads / hp_.n_kv_heads;  // query heads per KV head (GQA)
    const KvType key_type = kv.key_type(), value_type = kv.value_type();
    att_.resize(pos + 1);

    // x (dim) = token_embd[token] * embed_scale
    dequantize_row(w_.token_embd.type, w_.token_embd.row(token), x_.data(), dim);
    for (int32_t i = 0; i < dim; ++i) x_[i] *= hp_.embed_scale;

    for (int32_t l = 0; l < hp_.n_layers; ++l) {
      const ModelLayerWeights& L = w_.layers[l];
      rmsnorm(xb_.data(), x_.data(), L.attn_norm.f32(), dim, hp_.rms_eps);

      // q (n_heads*hd), k and v (n_kv_heads*hd) with their biases; per-head RMSNorm of q
      // and k when the architecture has it; RoPE of this layer; K and V are stored in the
      // cache's type.
      matvec(q_.data(), L.wq, xb_.data(), L.bq);
      matvec(k_.data(), L.wk, xb_.data(), L.bk);
      matvec(v_.data(), L.wv, xb_.data(), L.bv);
      if (L.q_norm) rmsnorm_heads(q_.data(), hp_.n_heads, hd, L.q_norm.f32(), hp_.rms_eps);
      if (L.k_norm) rmsnorm_heads(k_.data(), hp_.n_kv_heads, hd, L.k_norm.f32(), hp_.rms_eps);
      rope(q_.data(), hp_.n_heads, hd, *rope_[l], pos);
      rope(k_.data(), hp_.n_kv_heads, hd, *rope_[l], pos);
      kv.write_key(l, pos, k_.data());
      kv.write_value(l, pos, v_.data());

      // Causal attention of each query head over positions [first, pos]: all of them, or
      // on a windowed layer the last `window` (the token's own included).
      const int32_t window = hp_.window(l);
      const int32_t first = window > 0 ? std::max(0, pos - window + 1) : 0;
      for (int32_t h = 0; h < hp_.n_heads; ++h) {
        const float* qh = q_.data() + h * hd;
        const int32_t kvh = h / group;
        for (int32_t t = first; t <= pos; ++t) {
          decode_kv_heads(key_type, kv.key_head(l, t, kvh), head_.data(), 1, hd);
          float s = 0;
          for (int32_t i = 0; i < hd; ++i) s += qh[i] * head_[i];
          s *= hp_.query_scale;
          if (hp_.attn_softcap > 0) s = hp_.attn_softcap * std::tanh(s / hp_.attn_softcap);
          att_[t] = s;
        }
        softmax(att_.data() + first, pos + 1 - first);
        float* out = att_out_.data() + h * hd;
        for (int32_t i = 0; i < hd; ++i) out[i] = 0;
        for (int32_t t = first; t <= pos; ++t) {
          decode_kv_heads(value_type, kv.value_head(l, t, kvh), head_.data(), 1, hd);
          for (int32_t i = 0; i < hd; ++i) out[i] += att_[t] * head_[i];
        }
      }

      // x += [post_attn_norm](wo . att_out)
      matvec(xb2_.data(), L.wo, att_out_.data());
      if (L.post_attn_norm)
        rmsnorm(xb2_.data(), xb2_.data(), L.post_attn_norm.f32(), dim, hp_.rms_eps);
      for (int32_t i = 0; i < dim; ++i) x_[i] += xb2_[i];

      // x += [post_ffw_norm](w_down . (act(w_gate . xb) * (w_up . xb))),  xb = rmsnorm(x)
      rmsnorm(xb_.data(), x_.data(), L.ffn_norm.f32(), dim, hp_.rms_eps);
      matvec(hb_.data(), L.w_gate, xb_.data());
      matvec(hb2_.data(), L.w_up, xb_.data());
      for (int32_t i = 0; i < hp_.n_ff; ++i) {
        const float g = hb_[i];
        const float a = hp_.arch->activation == FfnActivation::GeluTanhGlu
                            ? gelu_tanh(g)
                            : g / (1.0f + std::exp(-g));
        hb_[i] = a * hb2_[i];
      }
      matvec(xb2_.data(), L.w_down, hb_.data());
      if (L.post_ffw_norm)
        rmsnorm(xb2_.data(), xb2_.data(), L.post_ffw_norm.f32(), dim, hp_.rms_eps);
      for (int32_t i = 0; i < dim; ++i) x_[i] += xb2_[i];
    }

    if (!logits) return;
    // logits (n_vocab) = [softcap](output . rmsnorm(x))
    rmsnorm(xb_.data(), x_.data(), w_.output_norm.f32(), dim, hp_.rms_eps);
    matvec(logits, w_.output, xb_.data());
    if (hp_.final_softcap > 0) {
      for (int32_t i = 0; i < hp_.n_vocab; ++i) {
        logits[i] = hp_.final_softcap * std::tanh(logits[i] / hp_.final_softcap);
      }
    }
  }

  const ModelHParams& hp_;
  const ModelWeights& w_;
  std::vector<const RopeTable*> rope_;  // (n_layers) each layer's table for this session's n_ctx
  std::vector<float> x_, k_, v_, head_, xb_, xb2_, q_, att_out_, hb_, hb2_, row_, att_;
};

}  // namespace

Result<std::unique_ptr<Backend>> make_reference_backend(const Model& model,
                                                        const BackendOptions& options) {
  return std::unique_ptr<Backend>(new ReferenceBackend(model, options));
}

}  // namespace kvchat::cpu
