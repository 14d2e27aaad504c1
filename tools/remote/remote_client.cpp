#include "kvchat/remote_client.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "chat_stream.h"
#include "openai_error.h"
#include "util/printable.h"
#include "remote_client_impl.h"

namespace kvchat {

using nlohmann::json;
using remote::Exchange;
using remote::HttpAnswer;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

int64_t context_length_of(const json& m) {
  for (const char* key : {"max_model_len", "context_length", "context_window"}) {
    if (auto it = m.find(key); it != m.end() && it->is_number_integer()) return *it;
  }
  if (auto meta = m.find("meta"); meta != m.end() && meta->is_object()) {
    if (auto it = meta->find("n_ctx_train"); it != meta->end() && it->is_number_integer())
      return *it;
  }
  return 0;
}

json message_json(const ChatMessage& m) {
  json j = {{"role", m.role}, {"content", m.content}};
  if (!m.tool_calls.empty()) {
    json calls = json::array();
    for (const ToolCall& c : m.tool_calls) {
      calls.push_back({{"id", c.id},
                       {"type", "function"},
                       {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
    }
    j["tool_calls"] = std::move(calls);
    if (m.content.empty()) j["content"] = nullptr;
  }
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (!m.name.empty()) j["name"] = m.name;
  return j;
}

std::string request_body(const RemoteChatRequest& r) {
  json messages = json::array();
  for (const ChatMessage& m : r.messages) messages.push_back(message_json(m));
  const SamplingParams& s = r.sampling;
  json body = {{"model", r.model},
               {"messages", std::move(messages)},
               {"stream", true},
               {"stream_options", {{"include_usage", true}}},
               {"max_tokens", r.max_tokens},
               {"temperature", s.temperature > 0 ? s.temperature : 0.0f},
               {"seed", static_cast<int64_t>(s.seed & 0x7fffffff)}};
  if (s.temperature > 0 && s.top_p < 1) body["top_p"] = s.top_p;
  if (s.frequency_penalty != 0) body["frequency_penalty"] = s.frequency_penalty;
  if (s.presence_penalty != 0) body["presence_penalty"] = s.presence_penalty;
  if (r.continue_final) {
    body["continue_final_message"] = true;  // vLLM
    body["add_generation_prompt"] = false;
  }
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A 200 that is not a stream (a server that ignored "stream": true): the whole completion.
Status read_whole_completion(const std::string& body, RemoteReply& reply,
                             const RemoteStreamCallbacks& cb) {
  const json j = json::parse(body, nullptr, false);
  if (!j.is_object()) return Error{"the endpoint's answer is not JSON: " + printable(body, 80)};
  const json* choice = nullptr;
  if (auto c = j.find("choices"); c != j.end() && c->is_array() && !c->empty()) choice = &(*c)[0];
  if (!choice || !choice->is_object() || !choice->contains("message"))
    return Error{"the endpoint's answer holds no choices[0].message"};
  const json& msg = (*choice)["message"];
  auto text = [&](const char* key) {
    auto it = msg.find(key);
    return it != msg.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const ReasoningParts parts = split_reasoning(text("content"));
  reply.reasoning = text("reasoning_content") + parts.thinking;
  reply.answer = parts.answer;
  reply.content_events = reply.answer.empty() && reply.reasoning.empty() ? 0 : 1;
  if (auto f = choice->find("finish_reason"); f != choice->end() && f->is_string())
    reply.finish_reason = *f;
  if (cb.on_thinking && !reply.reasoning.empty()) cb.on_thinking(reply.reasoning);
  if (cb.on_text && !reply.answer.empty()) cb.on_text(reply.answer);
  return Status::Ok();
}

}  // namespace

RemoteClient::RemoteClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RemoteClient::~RemoteClient() = default;

Result<std::unique_ptr<RemoteClient>> RemoteClient::open(const RemoteEndpoint& endpoint,
                                                         const RemoteLimits& limits) {
  auto url = remote::parse_endpoint_url(endpoint.base_url);
  if (!url) return url.error();
  for (char c : endpoint.api_key) {
    if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f)
      return Error{"the API key holds a space or a control character; paste it again"};
  }
  auto impl = std::unique_ptr<Impl>(
      new Impl{remote::RemoteHttp(*url, endpoint.api_key, limits), url->origin()});
  return std::unique_ptr<RemoteClient>(new RemoteClient(std::move(impl)));
}

const std::string& RemoteClient::origin() const { return impl_->origin; }
bool RemoteClient::key_in_clear() const {
  const auto& u = impl_->http.url();
  return !impl_->http.key().empty() && !u.https && !u.loopback();
}

bool plain_http_beyond_this_machine(std::string_view base_url) {
  const auto u = remote::parse_endpoint_url(base_url);
  return u && !u->https && !u->loopback();
}

Result<std::vector<RemoteModel>> RemoteClient::list_models() {
  Exchange ex;
  ex.path = impl_->http.url().api_root + "/models";
  auto a = impl_->http.fetch(ex);
  if (!a) return impl_->error(a.message());
  if (a->status != 200) return impl_->refusal(*a);
  const json j = json::parse(a->body, nullptr, false);
  const json* data = nullptr;
  if (j.is_object()) {
    if (auto d = j.find("data"); d != j.end() && d->is_array()) data = &*d;
  }
  if (!data)
    return impl_->error(impl_->origin + ex.path +
                        " is not a model list ({\"data\": [...]}): " + printable(a->body, 80));
  std::vector<RemoteModel> models;
  for (const json& m : *data) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) continue;
    RemoteModel rm;
    rm.id = m["id"];
    rm.context_length = context_length_of(m);
    models.push_back(std::move(rm));
  }
  return models;
}

Result<RemoteReply> RemoteClient::chat(const RemoteChatRequest& request,
                                       const RemoteStreamCallbacks& cb) {
  const auto start = Clock::now();
  RemoteStreamCallbacks timed = cb;
  double first_text = -1;  // seconds from the request to its first text
  auto mark_first = [&] {
    if (first_text < 0) first_text = seconds_since(start);
  };
  timed.on_text = [&](std::string_view t) {
    mark_first();
    return !cb.on_text || cb.on_text(t);
  };
  timed.on_thinking = [&](std::string_view t) {
    mark_first();
    return !cb.on_thinking || cb.on_thinking(t);
  };
  const RemoteLimits& limits = impl_->http.limits();
  // A server that ignores max_tokens is cut at 4x it (a piece is at most a token or so).
  remote::ChatStreamReader reader(limits.max_stream_bytes, 4 * int64_t(request.max_tokens) + 64,
                                  timed);
  bool is_stream = true;
  std::string whole;  // a 200 that is not an event stream
  remote::StreamSink sink;
  sink.on_head = [&](const HttpAnswer& head) {
    is_stream = head.content_type.find("text/event-stream") != std::string::npos;
    return true;
  };
  sink.on_body = [&](std::string_view bytes) {
    if (is_stream) return reader.feed(bytes);
    if (whole.size() + bytes.size() > limits.max_body_bytes) return false;
    whole.append(bytes);
    return true;
  };
  Exchange ex;
  ex.method = "POST";
  ex.path = impl_->http.url().api_root + "/chat/completions";
  ex.body = request_body(request);
  auto a = impl_->http.stream(ex, sink, cb.cancelled);
  RemoteReply& reply = reader.reply();
  reply.attempts = ex.attempts;
  reply.first_byte_seconds = std::max(0.0, first_text);
  const bool cancelled = (a && a->cancelled) || reader.stopped();
  // A failure after some text says how far the reply had come.
  auto failed = [&](std::string words) {
    if (reader.any_text())
      words += " (after " + std::to_string(reply.content_events) + " pieces of the reply)";
    return impl_->error(words);
  };
  if (!a && !cancelled) return failed(a.message());
  if (!cancelled && a->status != 200) return impl_->refusal(*a);
  if (!is_stream && !cancelled) {
    if (whole.size() >= limits.max_body_bytes)
      return impl_->error("the endpoint's answer passed " +
                          std::to_string(limits.max_body_bytes >> 20) + " MiB; it was not read");
    if (auto st = read_whole_completion(whole, reply, cb); !st) return impl_->error(st.message());
  } else {
    reader.finish();
  }
  reply.seconds = seconds_since(start);
  if (cancelled) {
    reply.finish_reason = "cancelled";
    return std::move(reply);
  }
  if (!reader.failure().empty()) return failed(reader.failure());
  if (is_stream && !reader.done() && reply.finish_reason.empty())
    return impl_->error(impl_->origin + " ended its stream before the reply ended (no " +
                        "finish_reason, no [DONE])");
  return std::move(reply);
}

std::vector<ChatMessage> remote_messages(std::string_view system_prompt,
                                         const std::vector<ChatMessage>& turns) {
  std::vector<ChatMessage> out;
  if (!system_prompt.empty()) out.push_back({"system", std::string(system_prompt)});
  for (const ChatMessage& t : turns) {
    ChatMessage m = t;
    if (m.role == "assistant") m.content = split_reasoning(m.content).answer;
    out.push_back(std::move(m));
  }
  return out;
}

std::string stored_reply_text(const RemoteReply& reply) {
  if (reply.reasoning.empty()) return reply.answer;
  std::string s = std::string(kStoredThinkingOpen) + reply.reasoning;
  if (!reply.reasoning_closed && reply.answer.empty()) return s;  // cut while thinking
  return s + std::string(kStoredThinkingClose) + reply.answer;
}

}  // namespace kvchat
