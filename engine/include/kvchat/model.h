// A loaded model: hyper-parameters, mapped weights and tokenizer. Immutable and
// shareable between sessions (std::shared_ptr<const Model>).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}
struct ModelHParams;
struct ModelWeights;

struct ModelInfo {
  std::string path;
  std::string name;          // general.name
  std::string architecture;  // general.architecture ("llama", "qwen2", "gemma2", ...)
  uint32_t gguf_version = 0;
  uint64_t file_bytes = 0;
  uint64_t n_params = 0;
  int32_t n_layers = 0, n_embd = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, n_ff = 0;
  int32_t n_vocab = 0, n_ctx_train = 0;
  int32_t value_dim = 0;  // V row width per head (= head_dim, the key length)
  float rms_eps = 0, rope_freq_base = 0;
  bool tied_embeddings = false;
  // What the architecture does with these numbers (see the README's architecture table).
  std::string rope_style;         // "norm" (adjacent pairs) or "neox" (half split)
  std::string rope_scaling;       // "none", "linear", "yarn", "llama3" or "longrope"
  float rope_scaling_factor = 1;  // context multiplier (longrope: n_ctx_train / original context)
  int32_t rope_scaling_orig_ctx = 0;
  bool rope_freq_factors = false;  // rope_freqs.weight (Llama 3.1+) present
  std::string ffn_activation;      // "silu-glu" or "gelu-tanh-glu"
  float embed_scale = 1;           // embeddings multiplied by this (gemma: sqrt(n_embd))
  float query_scale = 0;           // attention scores = (q . k) x this
  float attn_softcap = 0;          // 0: none; else scores = cap x tanh(scores / cap)
  float final_softcap = 0;         // 0: none; else logits = cap x tanh(logits / cap)
  int32_t sliding_window = 0;      // tokens a windowed layer attends to (its own included); 0: none
  std::vector<int32_t> windowed_layers;                  // the layers that use the sliding window
  std::map<std::string, uint64_t> weight_bytes_by_type;  // "F16" -> bytes
  std::map<std::string, int32_t> tensor_count_by_type;   // "F16" -> count
  std::string tokenizer_model;                           // tokenizer.ggml.model
  std::string chat_template;                             // tokenizer.chat_template ("" if none)
  // Identifies the model for KV snapshots: a hash of header_hash and weights_sample_hash,
  // so that two files with the same metadata but other weights (two fine-tunes) differ.
  uint64_t identity = 0;
  uint64_t header_hash = 0;          // FNV-1a 64 of the GGUF header (metadata + tensor infos)
  uint64_t weights_sample_hash = 0;  // 4 evenly spaced 4 KiB windows of every tensor's data

  uint64_t weight_bytes() const;
  // K and V values one token occupies in the cache: 2 x layers x kv_heads x head_dim
  // (the cache keeps every layer's K/V for the whole context).
  uint64_t kv_elements_per_token() const;
  // K and V values `n_tokens` tokens need when windowed layers keep only their last
  // sliding_window tokens: 2 x kv_heads x head_dim x (full layers x n + windowed layers
  // x min(n, window)). Equals kv_elements_per_token() x n without a window.
  uint64_t kv_elements_with_window(uint64_t n_tokens) const;
};

class Model {
 public:
  // Maps the GGUF, validates every required tensor's type and shape, builds the tokenizer.
  // A file that cannot be run gets one error listing every reason (architecture,
  // metadata, tokenizer, tensor types, missing or misshapen tensors).
  static Result<std::shared_ptr<const Model>> load(const std::string& path);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelInfo& info() const { return info_; }

  // Reads the weights into memory (what the first token would otherwise wait for),
  // calling progress(fraction done) every few MB; returning false from it cancels with an
  // error "cancelled". The file is read with pread into anonymous memory that replaces
  // the mapping at the same addresses, so afterwards the file on disk may be cut short,
  // rewritten or replaced without effect on this model (before it, a file cut short
  // under the mapping makes every later step fail with check_weights()' error).
  // A file cut short while it is read gives an error naming both sizes. Safe to call from
  // any thread, also while sessions use the model (each step is atomic).
  Status prefetch(const std::function<bool(double)>& progress) const;
  // Whether the file at info().path is still the one loaded, unchanged; an error saying
  // what happened to it (cut short, replaced, modified, deleted) and what that means for
  // this model otherwise.
  Status check_file() const;
  // Whether the weights still are the ones loaded. Before prefetch they are read from the
  // file as needed; a file cut short under them (which would raise SIGBUS) reads as zeros
  // instead, and one rewritten in place reads its new bytes: either way what was computed
  // from them is wrong. Then an error naming the file, what happened and both sizes, for
  // good: load the model again. Cheap (an atomic and an fstat), so sessions check it after
  // every step and discard the step's results. Always fine once prefetch is complete.
  Status check_weights() const;
  const Tokenizer& tokenizer() const { return *tokenizer_; }

  // Engine-internal views (declared in src/model/); app code has no use for them.
  const ModelHParams& hparams() const { return *hparams_; }
  const ModelWeights& weights() const { return *weights_; }
  const gguf::GgufFile& gguf() const { return *file_; }
  // State a backend derives from the weights once and shares between its sessions (the
  // CPU backend's repacked weights): make() on the first call for `key` (under a lock:
  // other callers wait), the same object after, kept while the model lives.
  std::shared_ptr<const void> backend_state(
      const std::string& key, const std::function<std::shared_ptr<const void>()>& make) const;

 private:
  Model();
  ModelInfo info_;
  std::unique_ptr<gguf::GgufFile> file_;
  std::unique_ptr<ModelHParams> hparams_;
  std::unique_ptr<ModelWeights> weights_;
  std::unique_ptr<Tokenizer> tokenizer_;
  mutable std::mutex backend_state_mutex_;
  mutable std::map<std::string, std::shared_ptr<const void>> backend_state_;
};

}  // namespace kvchat
