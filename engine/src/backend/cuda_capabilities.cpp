#include "backend/cuda_capabilities.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backend/cuda_weight_types.h"
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
  if (hp.query_scale != 1.0f / std::sqrt(static_cast<float>(hp.head_dim)))
    missing.push_back("a custom query scale");
  if (hp.head_dim * hp.n_heads != hp.n_embd)
    missing.push_back("head_dim other than n_embd / n_heads");
  if (hp.n_rot % 2 != 0 || hp.n_rot > hp.head_dim) missing.push_back("this rope dimension");
  for (int32_t i = 0; i < hp.n_rot / 2; ++i) {
    const double base = std::pow(static_cast<double>(hp.rope_freq_base), -2.0 * i / hp.n_rot);
    if (std::abs(hp.rope_global.inv_freq[i] - base) > 1e-6 * base) {
      missing.push_back("RoPE frequency factors (rope_freqs.weight)");
      break;
    }
  }
  if (missing.empty()) return {};
  std::string message =
      "architecture '" + std::string(a.name) + "' needs what the CUDA kernels do not implement: ";
  for (size_t k = 0; k < missing.size(); ++k) message += (k ? ", " : "") + missing[k];
  return Error{message};
}

bool cuda_reads_weight_type(gguf::TensorType type) { return cuda_weight_block_values(type) > 0; }

Status cuda_can_read_weights(const ModelWeights& w) {
  std::vector<std::string> unread;
  auto check = [&](const WeightView& v, const std::string& name) {
    if (v && !cuda_reads_weight_type(v.type)) {
      unread.push_back("'" + name + "' (" + std::string(gguf::tensor_type_name(v.type)) + ")");
    }
  };
  check(w.token_embd, "token_embd.weight");
  if (!w.tied_embeddings) check(w.output, "output.weight");
  for (size_t l = 0; l < w.layers.size(); ++l) {
    const ModelLayerWeights& L = w.layers[l];
    const std::string blk = "blk." + std::to_string(l) + ".";
    const std::pair<const WeightView*, const char*> matrices[] = {
        {&L.wq, "attn_q"},      {&L.wk, "attn_k"},       {&L.wv, "attn_v"},
        {&L.wo, "attn_output"}, {&L.w_gate, "ffn_gate"}, {&L.w_up, "ffn_up"},
        {&L.w_down, "ffn_down"}};
    for (const auto& [view, name] : matrices) check(*view, blk + name + ".weight");
  }
  if (unread.empty()) return {};
  std::string message = "the CUDA kernels do not read the type of tensor";
  message += unread.size() > 1 ? "s " : " ";
  for (size_t k = 0; k < unread.size(); ++k) message += (k ? ", " : "") + unread[k];
  return Error{message};
}

}  // namespace kvchat
