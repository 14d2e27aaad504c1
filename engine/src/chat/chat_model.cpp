#include "kvchat/chat_model.h"

#include <algorithm>
#include <filesystem>

#include "kv/kv_type.h"

namespace kvchat {

Result<std::optional<bool>> parse_thinking_switch(std::string_view text) {
  if (text.empty()) return std::optional<bool>{};
  if (text == "on") return std::optional<bool>{true};
  if (text == "off") return std::optional<bool>{false};
  return Error{"must be on or off, got '" + std::string(text) + "'"};
}

std::string_view thinking_switch_name(std::optional<bool> enabled) {
  if (!enabled) return {};
  return *enabled ? "on" : "off";
}

int32_t kv_type_block_values(std::string_view kv_type) {
  const auto types = parse_kv_types(kv_type);  // K/V typed apart: the larger block
  return types ? std::max(kv_block_values(types->first), kv_block_values(types->second)) : 0;
}

ModelShape model_shape(const ModelInfo& info) { return {info.head_dim, info.n_ctx_train}; }

std::vector<SettingProblem> check_session_settings(std::string_view kv_type, int64_t n_ctx,
                                                   const ModelShape& shape) {
  using Kind = SettingProblem::Kind;
  std::vector<SettingProblem> problems;
  const int64_t block = kv_type_block_values(kv_type);
  const std::string type(kv_type);
  if (block == 0) {
    problems.push_back({Kind::UnknownKvType,
                        {"kv_type", type + " is not a KV type (" + kv_type_list() + ")"},
                        true,
                        0});
  } else if (shape.head_dim > 0 && shape.head_dim % block != 0) {
    problems.push_back(
        {Kind::KvTypeBlock,
         {"kv_type", type + " stores keys in blocks of " + std::to_string(block) +
                         " values, but the model's heads have " + std::to_string(shape.head_dim)},
         true,
         block});
  } else if (shape.head_dim > 0) {
    // The block divides head_dim: what is left is a rotation on heads it cannot rotate.
    const auto [k, v] = *parse_kv_types(kv_type);
    for (KvType t : {k, v}) {
      if (std::string why = kv_type_unusable(t, shape.head_dim); !why.empty()) {
        problems.push_back({Kind::KvTypeRotation, {"kv_type", why}, true, 0});
        break;
      }
    }
  }
  if (n_ctx < 0) {
    problems.push_back(
        {Kind::NegativeContext, {"ctx", "cannot be negative (0 = the trained length)"}, true, 0});
  } else if (shape.n_ctx_train > 0 && n_ctx > shape.n_ctx_train) {
    problems.push_back(
        {Kind::ContextBeyondTraining,
         {"ctx", std::to_string(n_ctx) + " tokens is longer than the " +
                     std::to_string(shape.n_ctx_train) + " the model was trained for"},
         false,
         0});
  }
  return problems;
}

std::string demo_model_path(const std::string& executable_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // Installed: <prefix>/bin -> <prefix>/share/kvchat/models; the build tree: build/bin ->
  // build/share/kvchat/models, else the source tree's resources/models.
  const fs::path dir = fs::path(executable_path).parent_path();
  for (const fs::path& path : {dir / ".." / "share" / "kvchat" / "models" / "kjv-demo-f16.gguf",
                               dir / ".." / ".." / "resources" / "models" / "kjv-demo-f16.gguf"}) {
    if (fs::exists(path, ec)) return fs::weakly_canonical(path, ec).string();
  }
  return {};
}

Result<ChatFormat> chat_format_for(const Model& model, const std::string& chat_template,
                                   std::optional<bool> enable_thinking) {
  auto format = ChatFormat::for_model(model, chat_template);
  if (!format) return format.error();
  format->set_enable_thinking(enable_thinking);
  return format;
}

Result<ChatModel> open_chat_model(const ChatModelOptions& options,
                                  const std::function<void(const Model&)>& on_loaded) {
  auto model = Model::load(options.path);
  if (!model) return model.error();
  std::shared_ptr<const Model> loaded = std::move(model).value();
  if (on_loaded) on_loaded(*loaded);
  // The settings checked against what the model is before anything is allocated for it: a
  // KV type its heads cannot use fails here with the reason, not deep in the cache.
  std::vector<SettingProblem> warnings;
  std::string blocking;
  for (SettingProblem& p :
       check_session_settings(options.kv_type, options.n_ctx, model_shape(loaded->info()))) {
    if (p.blocking) {
      blocking += (blocking.empty() ? "" : "; ") + p.error.field + ": " + p.error.problem;
    } else {
      warnings.push_back(std::move(p));
    }
  }
  if (!blocking.empty()) return Error{blocking};
  std::string format_error;
  auto format = chat_format_for(*loaded, options.chat_template, options.enable_thinking);
  if (!format) {
    // A broken override must not lock the user out of the model: the file's own format is
    // used and the reason kept.
    format_error = format.message();
    format = chat_format_for(*loaded, {}, options.enable_thinking);
    if (!format) return format.error();
  }
  if (options.prefetch) {
    // The weights read in now, with progress and a way out, rather than on the first token
    // (the mapping itself is instant; the pages come from disk as they are used).
    const auto progress = options.progress ? options.progress : [](double) { return true; };
    if (Status st = loaded->prefetch(progress); !st) return Error{st.message()};
  }
  return ChatModel{std::move(loaded), std::move(format).value(), std::move(format_error),
                   std::move(warnings)};
}

}  // namespace kvchat
