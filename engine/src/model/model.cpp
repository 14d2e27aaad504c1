#include "kvchat/model.h"

#include <algorithm>

#include "gguf/gguf_file.h"
#include "model/model_check.h"
#include "model/model_hparams.h"
#include "model/model_identity.h"
#include "model/model_weights.h"

namespace kvchat {

namespace {

const char* rope_scaling_name(RopeScalingType t) {
  switch (t) {
    case RopeScalingType::None: return "none";
    case RopeScalingType::Linear: return "linear";
    case RopeScalingType::Yarn: return "yarn";
    case RopeScalingType::Llama3: return "llama3";
    case RopeScalingType::LongRope: return "longrope";
  }
  return "none";
}

// The RoPE tables: non-windowed layers use the file's base and scaling (with
// rope_freqs.weight's or llama3's computed factors; LongRoPE: the short factors, and the
// long ones in rope_global_long); windowed layers the description's.
void build_rope_tables(ModelHParams& hp, const ModelWeights& w) {
  std::vector<float> factors;
  const float* freq_factors = nullptr;
  if (w.rope_freqs) {
    freq_factors = w.rope_freqs.f32();
  } else if (hp.rope_scaling.type == RopeScalingType::Llama3) {
    factors = llama3_freq_factors(hp.n_rot, hp.rope_freq_base, hp.rope_scaling);
    freq_factors = factors.data();
  }
  const RopeStyle style = hp.arch->rope;
  if (hp.rope_scaling.type == RopeScalingType::LongRope) {
    freq_factors = w.rope_factors_short.f32();
    hp.rope_global_long = make_rope_table(style, hp.n_rot, hp.rope_freq_base, hp.rope_scaling,
                                          w.rope_factors_long.f32());
  }
  hp.rope_global =
      make_rope_table(style, hp.n_rot, hp.rope_freq_base, hp.rope_scaling, freq_factors);
  if (hp.sliding_window == 0) {
    hp.rope_local = hp.rope_global;  // no windowed layers: one table
    return;
  }
  const float local_base = hp.rope_freq_base_swa > 0    ? hp.rope_freq_base_swa
                           : hp.arch->swa_rope_base > 0 ? hp.arch->swa_rope_base
                                                        : hp.rope_freq_base;
  hp.rope_local = hp.arch->swa_rope_unscaled
                      ? make_rope_table(style, hp.n_rot, local_base, RopeScaling{}, nullptr)
                      : make_rope_table(style, hp.n_rot, local_base, hp.rope_scaling, freq_factors);
}

}  // namespace

uint64_t ModelInfo::weight_bytes() const {
  uint64_t total = 0;
  for (const auto& [type, bytes] : weight_bytes_by_type) total += bytes;
  return total;
}

uint64_t ModelInfo::kv_elements_per_token() const {
  return 2ull * n_layers * n_kv_heads * head_dim;
}

uint64_t ModelInfo::kv_elements_with_window(uint64_t n_tokens) const {
  const uint64_t windowed = windowed_layers.size();
  const uint64_t full = static_cast<uint64_t>(n_layers) - windowed;
  const uint64_t window_tokens =
      std::min<uint64_t>(n_tokens, static_cast<uint64_t>(sliding_window));
  return 2ull * n_kv_heads * head_dim * (full * n_tokens + windowed * window_tokens);
}

Status Model::prefetch(const std::function<bool(double)>& progress) const {
  return file_->read_in(progress);
}

Status Model::check_file() const {
  const std::string change = file_->change_on_disk();
  if (change.empty()) return {};
  if (!file_->read_in_complete()) {
    return Error{info_.path + ": the model file was " + change +
                 " after it was opened, before its weights were read in: load the model again"};
  }
  return Error{info_.path + ": the model file was " + change +
               " after it was loaded; the copy read into memory keeps running unchanged. Load "
               "the model again to use the file as it is now."};
}

Status Model::check_weights() const {
  const std::string damage = file_->damage();
  if (damage.empty()) return {};
  return Error{info_.path + ": the model file was " + damage +
               "; what was computed from it is discarded: load the model again"};
}

std::shared_ptr<const void> Model::backend_state(
    const std::string& key, const std::function<std::shared_ptr<const void>()>& make) const {
  const std::lock_guard<std::mutex> lock(backend_state_mutex_);
  std::shared_ptr<const void>& slot = backend_state_[key];
  if (!slot) slot = make();
  return slot;
}

Model::Model() = default;
Model::~Model() = default;

Result<std::shared_ptr<const Model>> Model::load(const std::string& path) {
  auto file = gguf::GgufFile::open(path, /*keep_unsupported_types=*/true);
  if (!file) return file.error();
  const gguf::GgufFile& f = **file;

  // Every reason the file cannot run, gathered before failing (model/model_check.h).
  ModelCheck check = check_model_file(f);
  if (!check.problems.empty()) return Error{model_problems_message(path, check.problems)};
  std::unique_ptr<ModelHParams> hp = std::move(check.hparams);
  std::unique_ptr<ModelWeights> weights = std::move(check.weights);
  build_rope_tables(*hp, *weights);

  std::shared_ptr<Model> m(new Model());
  ModelInfo& info = m->info_;
  info.path = path;
  if (const gguf::Value* v = f.find("general.name"); v && v->as_string())
    info.name = *v->as_string();
  info.architecture = hp->arch->name;
  info.gguf_version = f.version();
  info.file_bytes = f.file_size();
  info.n_layers = hp->n_layers;
  info.n_embd = hp->n_embd;
  info.n_heads = hp->n_heads;
  info.n_kv_heads = hp->n_kv_heads;
  info.head_dim = hp->head_dim;
  info.value_dim = hp->head_dim;
  info.n_ff = hp->n_ff;
  info.n_vocab = hp->n_vocab;
  info.n_ctx_train = hp->n_ctx_train;
  info.rms_eps = hp->rms_eps;
  info.rope_freq_base = hp->rope_freq_base;
  info.tied_embeddings = weights->tied_embeddings;
  info.rope_style = hp->arch->rope == RopeStyle::Neox ? "neox" : "norm";
  info.rope_scaling = rope_scaling_name(hp->rope_scaling.type);
  info.rope_scaling_factor =
      hp->rope_scaling.type == RopeScalingType::None ? 1 : hp->rope_scaling.factor;
  if (hp->rope_scaling.type == RopeScalingType::LongRope) {
    info.rope_scaling_factor = static_cast<float>(hp->n_ctx_train) / hp->rope_scaling.orig_ctx;
  }
  info.rope_scaling_orig_ctx =
      hp->rope_scaling.type == RopeScalingType::None ? 0 : hp->rope_scaling.orig_ctx;
  info.rope_freq_factors = static_cast<bool>(weights->rope_freqs);
  info.ffn_activation =
      hp->arch->activation == FfnActivation::GeluTanhGlu ? "gelu-tanh-glu" : "silu-glu";
  info.embed_scale = hp->embed_scale;
  info.query_scale = hp->query_scale;
  info.attn_softcap = hp->attn_softcap;
  info.final_softcap = hp->final_softcap;
  info.sliding_window = hp->sliding_window;
  for (int32_t l = 0; l < hp->n_layers; ++l) {
    if (hp->windowed(l)) info.windowed_layers.push_back(l);
  }
  if (const gguf::Value* v = f.find("tokenizer.ggml.model"); v && v->as_string()) {
    info.tokenizer_model = *v->as_string();
  }
  if (const gguf::Value* v = f.find("tokenizer.chat_template"); v && v->as_string()) {
    info.chat_template = *v->as_string();
  }
  info.header_hash = gguf_header_hash(f);
  info.weights_sample_hash = sampled_weights_hash(f);
  info.identity = model_identity(info.header_hash, info.weights_sample_hash);
  for (const gguf::TensorInfo& t : f.tensors()) {
    const std::string type(gguf::tensor_type_name(t.type));
    info.n_params += t.n_elements;
    info.weight_bytes_by_type[type] += t.n_bytes;
    info.tensor_count_by_type[type] += 1;
  }

  m->hparams_ = std::move(hp);
  m->weights_ = std::move(weights);
  m->tokenizer_ = std::move(check.tokenizer);
  m->file_ = std::move(file.value());
  // The identity hash and the RoPE factors read weights: not from a file cut short meanwhile.
  if (auto s = m->check_weights(); !s) return Error{s.message()};
  return std::shared_ptr<const Model>(std::move(m));
}

}  // namespace kvchat
