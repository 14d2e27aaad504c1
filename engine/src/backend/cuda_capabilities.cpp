#include "backend/cuda_capabilities.h"

#include <string>
#include <utility>
#include <vector>

#include "backend/cuda_weight_types.h"
#include "model/model_hparams.h"
#include "model/model_weights.h"

namespace kvchat {

Status cuda_can_run(const ModelHParams& hp) {
  // Every architecture feature of model/architecture.h has its kernel (cuda_backend.h);
  // what remains are the attention kernels' head sizes and the rotation's bounds.
  std::vector<std::string> missing;
  if (hp.head_dim % 32 != 0 || hp.head_dim > 256) {
    missing.push_back("head_dim " + std::to_string(hp.head_dim) +
                      " (the attention kernels take multiples of 32 up to 256)");
  }
  if (hp.n_kv_heads <= 0 || hp.n_heads % hp.n_kv_heads != 0) {
    missing.push_back("query heads that are not a multiple of the KV heads");
  }
  if (hp.n_rot % 2 != 0 || hp.n_rot > hp.head_dim) {
    missing.push_back("rope dimension " + std::to_string(hp.n_rot));
  }
  if (missing.empty()) return {};
  std::string message = "architecture '" + std::string(hp.arch->name) +
                        "' needs what the CUDA kernels do not implement: ";
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
