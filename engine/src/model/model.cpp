#include "kvchat/model.h"

#include <algorithm>

#include "gguf/gguf_file.h"
#include "model/llama_hparams.h"
#include "model/llama_weights.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat {

uint64_t ModelInfo::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& [type, bytes] : weight_bytes_by_type) total += bytes;
  return total;
}

uint64_t ModelInfo::kv_elements_per_token() const {
  return 2ull * n_layers * n_kv_heads * head_dim;
}

Status Model::prefetch(const std::function<bool(double)>& progress) const {
  const uint8_t* begin = file_->header_bytes().data();
  const uint64_t size = file_->file_size();
  constexpr uint64_t kPage = 4096, kStep = 8ull << 20;  // report every 8 MB
  volatile uint8_t sink = 0;
  for (uint64_t done = 0; done < size;) {
    const uint64_t end = std::min(size, done + kStep);
    for (uint64_t at = done; at < end; at += kPage) sink = sink + begin[at];
    done = end;
    if (progress && !progress(static_cast<double>(done) / size)) {
      return Error{info_.path + ": loading cancelled"};
    }
  }
  return {};
}

Model::Model() = default;
Model::~Model() = default;

Result<std::shared_ptr<const Model>> Model::load(const std::string& path) {
  auto file = gguf::GgufFile::open(path);
  if (!file) return file.error();
  auto hp = LlamaHParams::from_gguf(**file);
  if (!hp) return hp.error();
  auto weights = LlamaWeights::from_gguf(**file, *hp);
  if (!weights) return weights.error();
  auto vocab = load_tokenizer(**file);
  if (!vocab) return vocab.error();
  if ((*vocab)->n_vocab() != hp->n_vocab) {
    return Error{path + ": the tokenizer has " + std::to_string((*vocab)->n_vocab()) +
                 " tokens but token_embd.weight has " + std::to_string(hp->n_vocab) + " rows"};
  }

  std::shared_ptr<Model> m(new Model());
  ModelInfo& info = m->info_;
  const gguf::GgufFile& f = **file;
  info.path = path;
  if (const gguf::Value* v = f.find("general.name"); v && v->as_string()) info.name = *v->as_string();
  info.architecture = "llama";
  info.gguf_version = f.version();
  info.file_bytes = f.file_size();
  info.n_layers = hp->n_layers;
  info.n_embd = hp->n_embd;
  info.n_heads = hp->n_heads;
  info.n_kv_heads = hp->n_kv_heads;
  info.head_dim = hp->head_dim;
  info.n_ff = hp->n_ff;
  info.n_vocab = hp->n_vocab;
  info.n_ctx_train = hp->n_ctx_train;
  info.rms_eps = hp->rms_eps;
  info.rope_freq_base = hp->rope_freq_base;
  info.tied_embeddings = weights->tied_embeddings;
  if (const gguf::Value* v = f.find("tokenizer.ggml.model"); v && v->as_string()) {
    info.tokenizer_model = *v->as_string();
  }
  if (const gguf::Value* v = f.find("tokenizer.chat_template"); v && v->as_string()) {
    info.chat_template = *v->as_string();
  }
  info.identity = 0xcbf29ce484222325ull;  // FNV-1a 64 offset basis
  for (uint8_t b : f.header_bytes()) info.identity = (info.identity ^ b) * 0x100000001b3ull;
  for (const gguf::TensorInfo& t : f.tensors()) {
    const std::string type(gguf::tensor_type_name(t.type));
    info.n_params += t.n_elements;
    info.weight_bytes_by_type[type] += t.n_bytes;
    info.tensor_count_by_type[type] += 1;
  }

  m->hparams_ = std::make_unique<LlamaHParams>(*hp);
  m->weights_ = std::make_unique<LlamaWeights>(std::move(*weights));
  m->tokenizer_ = std::move(vocab.value());
  m->file_ = std::move(file.value());
  return std::shared_ptr<const Model>(std::move(m));
}

}  // namespace kvchat
