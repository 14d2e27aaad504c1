// info: architecture, sizes, tensor types, vocab, whether the CUDA kernels implement the model.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "backend/cuda_capabilities.h"
#include "backend/cuda_plugin.h"
#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kv/kv_type.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {
// Every KV type with its cost and whether this model can use it ("why_not": the reason,
// a block that does not divide head_dim or a rotation that needs a power of two).
nlohmann::json kv_types_json(const ModelInfo& m) {
  nlohmann::json out = nlohmann::json::array();
  for (KvType t : kAllKvTypes) {
    const std::string why = kv_type_unusable(t, m.head_dim);
    out.push_back({{"name", std::string(kv_type_name(t))},
                   {"rotated", kv_rotated(t)},
                   {"block_values", kv_block_values(t)},
                   {"block_bytes", kv_block_bytes(t)},
                   {"bytes_per_token", kv_bytes(t, m.kv_elements_per_token())},
                   {"usable", why.empty()},
                   {"why_not", why}});
  }
  return out;
}

// Whether the CUDA backend's kernels implement this model (its architecture's operations
// and its weight types): a property of the model and the kernels, not of this machine,
// which may have no GPU or a build without CUDA. why_not: the first check's error; empty
// when it runs.
// plugin: the CUDA backend plugin of this machine, loaded where there is an NVIDIA driver
// or $KVCHAT_CUDA_PLUGIN names one (the host emulation, say); plugin_error: why none was.
struct CudaSupport {
  bool runs = false;
  std::string why_not;
  CudaPluginInfo plugin;
  std::string plugin_error;
};
CudaSupport cuda_support(const Model& model) {
  CudaSupport out;
  if (auto s = load_cuda_plugin(); !s) out.plugin_error = s.message();
  out.plugin = cuda_plugin_info();
  if (auto s = cuda_can_run(model.hparams()); !s) {
    out.why_not = s.message();
  } else if (auto w = cuda_can_read_weights(model.weights()); !w) {
    out.why_not = w.message();
  } else {
    out.runs = true;
  }
  return out;
}

nlohmann::json cuda_json(const CudaSupport& cuda) {
  return {{"runs", cuda.runs},
          {"why_not", cuda.why_not},
          {"plugin",
           {{"path", cuda.plugin.path},
            {"host_emulation", cuda.plugin.host_emulation},
            {"error", cuda.plugin_error}}}};
}

// --json: every field of the model info, its tokenizer's and the CUDA support.
nlohmann::json info_json(const ModelInfo& m, const Tokenizer& tok, const CudaSupport& cuda) {
  return {
      {"path", m.path},
      {"name", m.name},
      {"architecture", m.architecture},
      {"gguf_version", m.gguf_version},
      {"file_bytes", m.file_bytes},
      {"n_params", m.n_params},
      {"n_layers", m.n_layers},
      {"n_embd", m.n_embd},
      {"n_heads", m.n_heads},
      {"n_kv_heads", m.n_kv_heads},
      {"head_dim", m.head_dim},
      {"n_ff", m.n_ff},
      {"n_vocab", m.n_vocab},
      {"n_ctx_train", m.n_ctx_train},
      {"rms_eps", m.rms_eps},
      {"rope_freq_base", m.rope_freq_base},
      {"tied_embeddings", m.tied_embeddings},
      {"weight_bytes", m.weight_bytes()},
      {"weight_bytes_by_type", m.weight_bytes_by_type},
      {"tensor_count_by_type", m.tensor_count_by_type},
      {"kv_elements_per_token", m.kv_elements_per_token()},
      {"value_dim", m.value_dim},
      {"rope_style", m.rope_style},
      {"rope_scaling",
       {{"type", m.rope_scaling},
        {"factor", m.rope_scaling_factor},
        {"original_context_length", m.rope_scaling_orig_ctx},
        {"freq_factors", m.rope_freq_factors}}},
      {"ffn_activation", m.ffn_activation},
      {"embed_scale", m.embed_scale},
      {"query_scale", m.query_scale},
      {"attn_softcap", m.attn_softcap},
      {"final_softcap", m.final_softcap},
      {"sliding_window", m.sliding_window},
      {"windowed_layers", m.windowed_layers},
      {"kv_elements_at_train_ctx",
       m.kv_elements_per_token() * static_cast<uint64_t>(m.n_ctx_train)},
      {"kv_elements_at_train_ctx_with_window",
       m.kv_elements_with_window(static_cast<uint64_t>(m.n_ctx_train))},
      {"tokenizer",
       {{"model", m.tokenizer_model},
        {"n_vocab", tok.n_vocab()},
        {"bos", tok.bos()},
        {"eos", tok.eos()},
        {"add_bos", tok.add_bos_by_default()}}},
      {"cuda", cuda_json(cuda)},
      {"kv_types", kv_types_json(m)},
  };
}

// The text report.
void print_info(const ModelInfo& m, const Tokenizer& tok, const CudaSupport& cuda) {
  // Names from the file: escaped and cut (a hostile general.name is not printed raw).
  std::printf("model         %s (%s)\n", printable(m.name).c_str(), m.path.c_str());
  std::printf("architecture  %s, GGUF v%u, %llu bytes\n", printable(m.architecture).c_str(),
              m.gguf_version, static_cast<unsigned long long>(m.file_bytes));
  std::printf("parameters    %llu\n", static_cast<unsigned long long>(m.n_params));
  std::printf("layers %d  dim %d  heads %d  kv_heads %d  head_dim %d  ffn %d\n", m.n_layers,
              m.n_embd, m.n_heads, m.n_kv_heads, m.head_dim, m.n_ff);
  std::printf("context       %d (trained)   rms_eps %g   rope base %g   tied embeddings %s\n",
              m.n_ctx_train, m.rms_eps, m.rope_freq_base, m.tied_embeddings ? "yes" : "no");
  for (const auto& [type, bytes] : m.weight_bytes_by_type) {
    std::printf("tensors %-5s %3d tensors, %llu bytes\n", type.c_str(),
                m.tensor_count_by_type.at(type), static_cast<unsigned long long>(bytes));
  }
  std::printf("vocab         %s, %d tokens, bos %d, eos %d\n", printable(m.tokenizer_model).c_str(),
              tok.n_vocab(), tok.bos(), tok.eos());
  std::printf("attention     rope %s, scaling %s", m.rope_style.c_str(), m.rope_scaling.c_str());
  if (m.rope_scaling != "none")
    std::printf(" x%g (original context %d)", m.rope_scaling_factor, m.rope_scaling_orig_ctx);
  if (m.rope_freq_factors) std::printf(", rope_freqs.weight factors");
  std::printf(", query scale %g", m.query_scale);
  if (m.attn_softcap > 0) std::printf(", score soft-cap %g", m.attn_softcap);
  std::printf("\nffn           %s%s", m.ffn_activation.c_str(), m.final_softcap > 0 ? "" : "\n");
  if (m.final_softcap > 0) std::printf(", final logit soft-cap %g\n", m.final_softcap);
  std::printf("KV per token  %llu values (x bytes per element)\n",
              static_cast<unsigned long long>(m.kv_elements_per_token()));
  if (!m.windowed_layers.empty()) {
    const uint64_t n = static_cast<uint64_t>(m.n_ctx_train);
    std::printf(
        "sliding window %d tokens on %zu of %d layers: KV at the trained context %llu values "
        "full,\n"
        "              %llu with the window (what the cache keeps: it frees windowed layers' rows\n"
        "              older than the window + slack)\n",
        m.sliding_window, m.windowed_layers.size(), m.n_layers,
        static_cast<unsigned long long>(m.kv_elements_per_token() * n),
        static_cast<unsigned long long>(m.kv_elements_with_window(n)));
  }
  // The message names tensors of the file: escaped, and cut where it lists very many.
  std::printf("CUDA: %s\n", cuda.runs ? "runs" : ("no — " + printable(cuda.why_not, 1000)).c_str());
  if (!cuda.plugin.path.empty()) {
    std::printf("CUDA plugin   %s%s\n", cuda.plugin.path.c_str(),
                cuda.plugin.host_emulation
                    ? " (the host emulation: the kernels run by a grid emulator on the CPU; "
                      "it proves behaviour, not speed)"
                    : "");
  }
}
}  // namespace

int cmd_info(const Argv& argv) {
  auto args = Args::parse(argv, {"--model"}, {"--json"});
  if (!args) return fail(args.message());
  auto model = load_model(*args);
  if (!model) return info_vocab_only(*args, model.message());
  const ModelInfo& m = (*model)->info();
  const Tokenizer& tok = (*model)->tokenizer();
  const CudaSupport cuda = cuda_support(**model);
  if (args->has("--json")) {
    std::printf("%s\n", json_text(info_json(m, tok, cuda), 2).c_str());
    return 0;
  }
  print_info(m, tok, cuda);
  return 0;
}

}  // namespace kvchat::cli
