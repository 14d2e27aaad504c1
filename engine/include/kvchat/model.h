// A loaded model: hyper-parameters, mapped weights and tokenizer. Immutable and
// shareable between sessions (std::shared_ptr<const Model>).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "kvchat/result.h"
#include "kvchat/tokenizer.h"

namespace kvchat {

namespace gguf {
class GgufFile;
}
struct LlamaHParams;
struct LlamaWeights;

struct ModelInfo {
  std::string path;
  std::string name;          // general.name
  std::string architecture;  // general.architecture ("llama")
  uint32_t gguf_version = 0;
  uint64_t file_bytes = 0;
  uint64_t n_params = 0;
  int32_t n_layers = 0, n_embd = 0, n_heads = 0, n_kv_heads = 0, head_dim = 0, n_ff = 0;
  int32_t n_vocab = 0, n_ctx_train = 0;
  float rms_eps = 0, rope_freq_base = 0;
  bool tied_embeddings = false;
  std::map<std::string, uint64_t> weight_bytes_by_type;  // "F16" -> bytes
  std::map<std::string, int32_t> tensor_count_by_type;   // "F16" -> count
  std::string tokenizer_model;                            // tokenizer.ggml.model
  std::string chat_template;                              // tokenizer.chat_template ("" if none)
  // FNV-1a 64 of the GGUF header (metadata + tensor infos): identifies the model for
  // KV snapshots without hashing gigabytes of weights.
  uint64_t identity = 0;

  uint64_t weight_bytes() const;
  // K and V values one token occupies in the cache: 2 x layers x kv_heads x head_dim.
  uint64_t kv_elements_per_token() const;
};

class Model {
 public:
  // Maps the GGUF, validates every required tensor's type and shape, builds the tokenizer.
  static Result<std::shared_ptr<const Model>> load(const std::string& path);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelInfo& info() const { return info_; }

  // Reads every page of the mapped weights into memory (what the first token would
  // otherwise wait for), calling progress(fraction done) every few MB; returning false
  // from it cancels with an error "cancelled". Safe to call from any thread.
  Status prefetch(const std::function<bool(double)>& progress) const;
  const Tokenizer& tokenizer() const { return *tokenizer_; }

  // Engine-internal views (declared in src/model/); app code has no use for them.
  const LlamaHParams& hparams() const { return *hparams_; }
  const LlamaWeights& weights() const { return *weights_; }
  const gguf::GgufFile& gguf() const { return *file_; }

 private:
  Model();
  ModelInfo info_;
  std::unique_ptr<gguf::GgufFile> file_;
  std::unique_ptr<LlamaHParams> hparams_;
  std::unique_ptr<LlamaWeights> weights_;
  std::unique_ptr<Tokenizer> tokenizer_;
};

}  // namespace kvchat
