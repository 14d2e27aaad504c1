#include "server/openai_request.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "kvchat/sampling_config.h"
#include "server/request_json.h"
#include "tokenizer/utf8.h"

namespace kvchat::server {
using nlohmann::json;

ApiError bad(std::string param, std::string message) {
  ApiError e;
  e.message = std::move(message);
  e.param = std::move(param);
  return e;
}

ApiError wrong_type(const std::string& param, const char* expected, const json& v) {
  return bad(param, "'" + param + "' must be " + expected + ", got " + json_type_name(v));
}

std::optional<ApiError> checked_text(const std::string& param, const std::string& s) {
  if (!utf8::is_well_formed(s)) return bad(param, "'" + param + "' is not valid UTF-8");
  if (s.find('\0') != std::string::npos) {
    return bad(param, "'" + param + "' contains a NUL character");
  }
  return std::nullopt;
}

std::optional<ApiError> only_known_keys(const json& obj, const std::string& param,
                                        std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    return bad(param + "." + key, "'" + param + "." + key + "' is not a field kvchat knows");
  }
  return std::nullopt;
}

namespace {

// Each reader: nullopt error on success, the value written to `out`; absent or null
// fields leave `out` untouched.
// A sampling field (kvchat/sampling_config.h: its range is the engine's) into `out`.
std::optional<ApiError> read_sampling(const json& body, const char* name, SamplingParams& out) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  const SamplingField& field = *sampling_field(name);
  if (!it->is_number() || (field.integer && !it->is_number_integer())) {
    return wrong_type(name, field.integer ? "an integer" : "a number", *it);
  }
  if (set_sampling_field(out, name, it->get<double>())) {
    return bad(name, "'" + std::string(name) + "' " + range_problem(field, it->dump()));
  }
  return std::nullopt;
}

std::optional<ApiError> read_integer(const json& body, const char* name, int64_t lo, int64_t hi,
                                     int64_t& out, bool* present = nullptr) {
  auto it = body.find(name);
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) return wrong_type(name, "an integer", *it);
  int64_t v = 0;
  if (it->is_number_unsigned()) {
    const uint64_t u = it->get<uint64_t>();
    v = u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
            ? std::numeric_limits<int64_t>::max()
            : static_cast<int64_t>(u);
  } else {
    v = it->get<int64_t>();
  }
  if (v < lo || v > hi) {
    return bad(name, "'" + std::string(name) + "' must be between " + std::to_string(lo) + " and " +
                         std::to_string(hi) + ", got " + it->dump());
  }
  out = v;
  if (present) *present = true;
  return std::nullopt;
}

std::optional<ApiError> read_bool(const json& obj, const std::string& param, const char* name,
                                  bool& out) {
  auto it = obj.find(name);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) return wrong_type(param, "a boolean", *it);
  out = it->get<bool>();
  return std::nullopt;
}

// content: a string, null, or an array of {"type": "text", "text": ...} parts.
std::optional<ApiError> read_content(const json& msg, const std::string& param, std::string& out) {
  auto it = msg.find("content");
  if (it == msg.end() || it->is_null()) return std::nullopt;
  if (it->is_string()) {
    out = it->get<std::string>();
    return checked_text(param, out);
  }
  if (!it->is_array()) return wrong_type(param, "a string or an array of text parts", *it);
  for (size_t i = 0; i < it->size(); ++i) {
    const json& part = (*it)[i];
    const std::string p = param + "[" + std::to_string(i) + "]";
    if (!part.is_object()) return wrong_type(p, "an object", part);
    auto type = part.find("type");
    if (type == part.end() || !type->is_string() || type->get<std::string>() != "text") {
      return bad(p + ".type", "'" + p + ".type' must be \"text\" (only text parts are supported)");
    }
    auto text = part.find("text");
    if (text == part.end() || !text->is_string()) {
      return wrong_type(p + ".text", "a string", text == part.end() ? json() : *text);
    }
    out += text->get<std::string>();
  }
  return checked_text(param, out);
}

std::optional<ApiError> read_messages(const json& body, CompletionRequest& r) {
  auto it = body.find("messages");
  if (it == body.end() || it->is_null()) return bad("messages", "'messages' is required");
  if (!it->is_array()) return wrong_type("messages", "an array", *it);
  if (it->empty()) return bad("messages", "'messages' must not be empty");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& m = (*it)[i];
    const std::string p = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return wrong_type(p, "an object", m);
    auto role = m.find("role");
    if (role == m.end() || role->is_null()) return bad(p + ".role", "'" + p + ".role' is required");
    if (!role->is_string()) return wrong_type(p + ".role", "a string", *role);
    ChatMessage msg;
    msg.role = role->get<std::string>();
    if (msg.role == "developer") msg.role = "system";
    if (msg.role != "system" && msg.role != "user" && msg.role != "assistant" &&
        msg.role != "tool") {
      return bad(p + ".role", "'" + p + ".role' must be \"system\", \"developer\", \"user\", " +
                                  "\"assistant\" or \"tool\", got " + role->dump());
    }
    if (auto e = read_content(m, p + ".content", msg.content)) return e;
    if (auto e = read_message_tool_fields(m, p, msg)) return e;
    r.messages.push_back(std::move(msg));
  }
  return std::nullopt;
}

std::optional<ApiError> read_stop(const json& body, CompletionRequest& r) {
  auto it = body.find("stop");
  if (it == body.end() || it->is_null()) return std::nullopt;
  auto add = [&](const json& v, const std::string& p) -> std::optional<ApiError> {
    if (!v.is_string()) return wrong_type(p, "a string", v);
    std::string s = v.get<std::string>();
    if (s.empty()) return bad(p, "'" + p + "' must not be empty");
    if (s.size() > kMaxStopBytes) {
      return bad(p, "'" + p + "' is longer than " + std::to_string(kMaxStopBytes) + " bytes");
    }
    if (auto e = checked_text(p, s)) return e;
    r.stop.push_back(std::move(s));
    return std::nullopt;
  };
  if (it->is_string()) return add(*it, "stop");
  if (!it->is_array()) return wrong_type("stop", "a string or an array of strings", *it);
  if (it->size() > kMaxStopStrings) {
    return bad("stop", "'stop' may hold at most " + std::to_string(kMaxStopStrings) + " strings");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    if (auto e = add((*it)[i], "stop[" + std::to_string(i) + "]")) return e;
  }
  return std::nullopt;
}

// chat_template_kwargs: an object; of its keys only enable_thinking (a boolean) is used,
// the others are ignored.
std::optional<ApiError> read_template_kwargs(const json& body, CompletionRequest& r) {
  auto it = body.find("chat_template_kwargs");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) return wrong_type("chat_template_kwargs", "an object", *it);
  bool enabled = false;
  auto flag = it->find("enable_thinking");
  if (flag == it->end() || flag->is_null()) return std::nullopt;
  if (auto e = read_bool(*it, "chat_template_kwargs.enable_thinking", "enable_thinking", enabled)) {
    return e;
  }
  r.enable_thinking = enabled;
  return std::nullopt;
}

// logit_bias: {"<token id>": bias, ...}, ids decimal (no sign, no leading zeros), biases
// numbers in [-100, 100].
std::optional<ApiError> read_logit_bias(const json& body, CompletionRequest& r) {
  auto it = body.find("logit_bias");
  if (it == body.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) return wrong_type("logit_bias", "an object of token ids to biases", *it);
  if (it->size() > kMaxLogitBias) {
    return bad("logit_bias", "'logit_bias' may hold at most " + std::to_string(kMaxLogitBias) +
                                 " tokens, got " + std::to_string(it->size()));
  }
  for (const auto& [key, value] : it->items()) {
    const bool digits = !key.empty() && key.size() <= 10 &&
                        key.find_first_not_of("0123456789") == std::string::npos &&
                        (key.size() == 1 || key[0] != '0');
    const long long id = digits ? std::stoll(key) : -1;
    if (!digits || id > std::numeric_limits<int32_t>::max()) {
      return bad("logit_bias",
                 "'logit_bias' keys must be token ids (decimal integers), got " + json(key).dump());
    }
    if (!value.is_number()) {
      return bad("logit_bias", "'logit_bias' values must be numbers, got " +
                                   std::string(json_type_name(value)) + " for token " + key);
    }
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < -100 || v > 100) {
      return bad("logit_bias", "'logit_bias' values must be between -100 and 100, got " +
                                   value.dump() + " for token " + key);
    }
    r.logit_bias.emplace_back(static_cast<int32_t>(id), static_cast<float>(v));
  }
  return std::nullopt;
}

std::optional<ApiError> read_fields(const json& body, CompletionRequest& r) {
  auto model = body.find("model");
  if (model == body.end() || model->is_null()) return bad("model", "'model' is required");
  if (!model->is_string()) return wrong_type("model", "a string", *model);
  r.model = model->get<std::string>();
  if (auto e = checked_text("model", r.model)) return e;

  if (r.endpoint == Endpoint::ChatCompletions) {
    if (auto e = read_messages(body, r)) return e;
  } else {
    auto prompt = body.find("prompt");
    if (prompt == body.end() || prompt->is_null()) return bad("prompt", "'prompt' is required");
    if (!prompt->is_string()) return wrong_type("prompt", "a string", *prompt);
    r.prompt = prompt->get<std::string>();
    if (auto e = checked_text("prompt", r.prompt)) return e;
  }

  if (auto e = read_bool(body, "stream", "stream", r.stream)) return e;
  if (auto so = body.find("stream_options"); so != body.end() && !so->is_null()) {
    if (!so->is_object()) return wrong_type("stream_options", "an object", *so);
    if (auto e = read_bool(*so, "stream_options.include_usage", "include_usage", r.include_usage)) {
      return e;
    }
  }
  int64_t n = 1;
  if (auto e = read_integer(body, "n", 1, std::numeric_limits<int32_t>::max(), n)) return e;
  if (n != 1) {
    return bad("n",
               "'n' must be 1: kvchat generates one choice per request, got " + std::to_string(n));
  }
  const int64_t kMaxTokens = std::numeric_limits<int32_t>::max();
  int64_t max_tokens = 0;
  if (auto e = read_integer(body, "max_tokens", 1, kMaxTokens, max_tokens)) return e;
  if (auto e = read_integer(body, "max_completion_tokens", 1, kMaxTokens, max_tokens)) return e;
  r.max_tokens = static_cast<int32_t>(max_tokens);
  for (const char* name :
       {"temperature", "top_p", "top_k", "min_p", "frequency_penalty", "presence_penalty"}) {
    if (auto e = read_sampling(body, name, r.sampling)) return e;
  }
  int64_t seed = 0;
  bool has_seed = false;
  if (auto e = read_integer(body, "seed", std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max(), seed, &has_seed)) {
    return e;
  }
  if (has_seed && seed >= 0) r.seed = static_cast<uint64_t>(seed);
  if (auto e = read_template_kwargs(body, r)) return e;
  if (auto e = read_logit_bias(body, r)) return e;
  if (auto e = read_tools(body, r)) return e;
  if (auto e = read_response_format(body, r)) return e;
  return read_stop(body, r);
}

}  // namespace

int json_nesting_depth(std::string_view text, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return limit + 1;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

ParsedRequest parse_completion_request(std::string_view body, Endpoint endpoint) {
  ParsedRequest out;
  if (json_nesting_depth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    out.error =
        bad("", "the request body nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return out;
  }
  // The body's bytes: nlohmann's lexer rejects ill-formed UTF-8 inside strings too.
  json parsed = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    out.error = bad("", "the request body is not valid JSON");
    return out;
  }
  if (!parsed.is_object()) {
    out.error = bad(
        "", std::string("the request body must be a JSON object, got ") + json_type_name(parsed));
    return out;
  }
  CompletionRequest r;
  r.endpoint = endpoint;
  try {
    if (auto e = read_fields(parsed, r)) {
      out.error = *e;
      return out;
    }
  } catch (const std::exception& e) {  // not expected: every access is type-checked first
    out.error = bad("", std::string("the request could not be read: ") + e.what());
    return out;
  }
  out.request = std::move(r);
  return out;
}

}  // namespace kvchat::server
