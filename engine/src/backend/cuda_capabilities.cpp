#include "backend/cuda_capabilities.h"

#include <cmath>
#include <string>
#include <vector>

#include "model/model_hparams.h"
#include "model/model_weights.h"

namespace kvchat {

Status cuda_can_run(const ModelHParams& hp) {
  const ArchitectureDesc& a = *hp.arch;
  std::vector<std::string> missing;
  if (a.rope != RopeStyle::Norm) missing.push_back("neox (half-split) RoPE");
  if (hp.rope_scaling.type != RopeScalingType::None) missing.push_back("RoPE scaling");
  if (a.activation != FfnActivation::SiluGlu) missing.push_back("GELU-tanh GLU");
  if (a.qkv_bias) missing.push_back("q/k/v biases");
  if (a.qk_norm) missing.push_back("per-head q/k RMSNorm");
  if (a.post_norms) missing.push_back("post-attention/FFN norms");
  if (hp.embed_scale != 1.0f) missing.push_back("embedding scaling");
  if (hp.attn_softcap > 0 || hp.final_softcap > 0) missing.push_back("logit soft-capping");
  if (hp.sliding_window > 0) missing.push_back("sliding-window attention");
  if (hp.query_scale != 1.0f / std::sqrt(static_cast<float>(hp.head_dim))) missing.push_back("a custom query scale");
  if (hp.head_dim * hp.n_heads != hp.n_embd) missing.push_back("head_dim other than n_embd / n_heads");
  if (hp.n_rot % 2 != 0 || hp.n_rot > hp.head_dim) missing.push_back("this rope dimension");
  for (int32_t i = 0; i < hp.n_rot / 2; ++i) {
    const double base = std::pow(static_cast<double>(hp.rope_freq_base), -2.0 * i / hp.n_rot);
    if (std::abs(hp.rope_global.inv_freq[i] - base) > 1e-6 * base) {
      missing.push_back("RoPE frequency factors (rope_freqs.weight)");
      break;
    }
  }
  if (missing.empty()) return {};
  std::string message = "architecture '" + std::string(a.name) + "' needs what the CUDA kernels do not implement: ";
  for (size_t k = 0; k < missing.size(); ++k) message += (k ? ", " : "") + missing[k];
  return Error{message};
}

Status cuda_can_run_weights(const ModelWeights& w) {
  std::vector<std::string> unsupported;
  auto check = [&](const WeightView& m) {
    if (!m) return;
    switch (m.type) {
      case gguf::TensorType::F32:
      case gguf::TensorType::F16:
      case gguf::TensorType::BF16:
      case gguf::TensorType::Q8_0:
      case gguf::TensorType::Q4_0: return;
      default: break;
    }
    const std::string name(gguf::tensor_type_name(m.type));
    for (const std::string& u : unsupported) {
      if (u == name) return;
    }
    unsupported.push_back(name);
  };
  check(w.token_embd);
  check(w.output);
  for (const ModelLayerWeights& L : w.layers) {
    for (const WeightView* m : {&L.wq, &L.wk, &L.wv, &L.wo, &L.w_gate, &L.w_up, &L.w_down}) check(*m);
  }
  if (unsupported.empty()) return {};
  std::string message = "the CUDA kernels do not read weights of type ";
  for (size_t k = 0; k < unsupported.size(); ++k) message += (k ? ", " : "") + unsupported[k];
  return Error{message + " yet (the cpu backend does)"};
}

}  // namespace kvchat
