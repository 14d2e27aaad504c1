// Opening a model for chatting, once for every front end (the window, kvchat-cli chat and
// serve): the GGUF loaded, the session settings checked against what the model is, its chat
// format (an override that fails falls back on the file's own, with the reason kept), the
// template's thinking switch, the weights read in. What each front end then builds on it
// (a Conversation, a server's session pool) is its own. No exceptions cross this API.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/model.h"
#include "kvchat/result.h"
#include "kvchat/sampling_config.h"
#include "kvchat/session.h"

namespace kvchat {

// The context policy a chat starts with when the user chose none: the oldest turns make
// room (never the system prompt), so a long conversation goes on. Raw sessions (generate,
// bench, perplexity) keep SessionOptions' Stop.
inline constexpr ContextPolicy kDefaultChatContextPolicy = ContextPolicy::DropOldest;

// The template's enable_thinking switch as every front end spells it: "on", "off", or ""
// (unset: not passed to the template). Anything else is an error naming the accepted words.
Result<std::optional<bool>> parse_thinking_switch(std::string_view text);
std::string_view thinking_switch_name(std::optional<bool> enabled);  // "on", "off", ""

// A session setting that does not suit a model. `blocking`: the model cannot be used with it
// (a KV type whose blocks do not divide its heads, a negative context); else a warning (a
// context longer than the model was trained for).
struct SettingProblem {
  // KvTypeRotation: a rotated KV type (q4_0r) on heads that are not a power of two.
  enum class Kind {
    UnknownKvType,
    KvTypeBlock,
    KvTypeRotation,
    NegativeContext,
    ContextBeyondTraining
  };
  Kind kind = Kind::UnknownKvType;
  FieldError error;  // field "kv_type" or "ctx", and the problem in neutral words
  bool blocking = true;
  int64_t block = 0;  // KvTypeBlock: the values in one block of the KV type
};
// Values one block of a KV type holds (32 for q8_0 and q4_0, 1 for f16 and f32; "K/V": the
// larger of the two); 0 for a name that is no KV type.
int32_t kv_type_block_values(std::string_view kv_type);

// What a model is, as far as the session settings care (known before it is loaded again:
// the window keeps these per model).
struct ModelShape {
  int32_t head_dim = 0;     // 0: not known (nothing checked against it)
  int32_t n_ctx_train = 0;  // 0: not known
};
ModelShape model_shape(const ModelInfo& info);
// kv_type and n_ctx (0 = the trained length) checked against `shape`.
std::vector<SettingProblem> check_session_settings(std::string_view kv_type, int64_t n_ctx,
                                                   const ModelShape& shape);

// The demo model installed beside an executable: <dir of executable>/../share/kvchat/models/
// kjv-demo-f16.gguf when that file exists, else "".
std::string demo_model_path(const std::string& executable_path);

struct ChatModelOptions {
  std::string path;  // the GGUF file
  // "" = the file's chat template; else ChatFormat::for_model's override_text
  // ("builtin:<name>" or Jinja source).
  std::string chat_template;
  std::optional<bool> enable_thinking;  // the template's switch; unset: not passed
  // The KV type and context the sessions will use, checked against the model (nothing else
  // of them is used here).
  std::string kv_type = "f16";
  int64_t n_ctx = 0;
  // The weights read in before returning (with progress in [0, 1]; false from it cancels:
  // an error). Off: the pages come from disk as the first tokens use them.
  bool prefetch = true;
  std::function<bool(double)> progress;
};

struct ChatModel {
  std::shared_ptr<const Model> model;
  ChatFormat format;
  // The override of chat_template failed (its reason): `format` is the file's own.
  std::string format_error;
  // The settings' warnings (blocking ones are an error of open_chat_model).
  std::vector<SettingProblem> warnings;
};

// Loads and checks `options.path` for chatting. Errors: the file, a blocking setting (its
// problem, "kv_type: ..."), no usable chat format, a cancelled or failed prefetch. `on_loaded`,
// when set, sees the model as soon as it is parsed (before the settings are checked), so a
// caller can remember what it is even when the settings refuse it.
Result<ChatModel> open_chat_model(const ChatModelOptions& options,
                                  const std::function<void(const Model&)>& on_loaded = nullptr);

// The chat format of `model` for `chat_template` with `enable_thinking` set; a failing
// override is an error (to change the format of a model already open).
Result<ChatFormat> chat_format_for(const Model& model, const std::string& chat_template,
                                   std::optional<bool> enable_thinking);

}  // namespace kvchat
