#include "chat_stream.h"

#include <nlohmann/json.hpp>

#include "openai_error.h"
#include "util/printable.h"

namespace kvchat::remote {

namespace {

using nlohmann::json;

const std::string* string_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get_ptr<const std::string*>() : nullptr;
}

int64_t count_field(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() && it->get<int64_t>() >= 0 ? it->get<int64_t>()
                                                                             : -1;
}

}  // namespace

ChatStreamReader::ChatStreamReader(size_t max_bytes, int64_t max_text_events,
                                   RemoteStreamCallbacks callbacks)
    : max_bytes_(max_bytes),
      max_text_events_(max_text_events),
      cb_(std::move(callbacks)),
      sse_(
          max_bytes, [this](SseEvent&& e) { on_event(std::move(e)); },
          [this](size_t n) {
            fail("the endpoint sent one stream event of over " + with_commas(n >> 20) + " MiB");
          }) {}

bool ChatStreamReader::feed(std::string_view bytes) {
  if (done_ || stopped_ || !failure_.empty()) return false;
  bytes_ += bytes.size();
  if (bytes_ > max_bytes_) {
    fail("the endpoint's stream passed " + with_commas(max_bytes_ >> 20) +
         " MiB without ending; the reply was cut there");
    return false;
  }
  sse_.feed(bytes);
  return !done_ && !stopped_ && failure_.empty();
}

void ChatStreamReader::finish() {
  const ReasoningParts rest = splitter_.finish();
  if (failure_.empty() && !stopped_) emit_answer(rest);
  reply_.reasoning_closed =
      splitter_.thinking_closed() || (saw_reasoning_field_ && !reply_.answer.empty());
}

void ChatStreamReader::fail(std::string why) {
  if (failure_.empty()) failure_ = std::move(why);
}

void ChatStreamReader::on_event(SseEvent&& event) {
  if (done_ || stopped_ || !failure_.empty()) return;
  if (event.data == "[DONE]") {
    done_ = true;
    return;
  }
  if (event.type == "error") {
    fail("the endpoint's stream ended with an error: " + error_body_message(event.data));
    return;
  }
  on_chunk(event.data);
}

bool ChatStreamReader::emit_answer(const ReasoningParts& parts) {
  if (!parts.thinking.empty()) {
    reply_.reasoning += parts.thinking;
    if (cb_.on_thinking && !cb_.on_thinking(parts.thinking)) stopped_ = true;
  }
  if (!parts.answer.empty()) {
    reply_.answer += parts.answer;
    if (cb_.on_text && !cb_.on_text(parts.answer)) stopped_ = true;
  }
  return !stopped_;
}

void ChatStreamReader::on_chunk(std::string_view data) {
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    fail("the endpoint sent a stream event that is not a JSON object: " + printable(data, 80));
    return;
  }
  if (j.contains("error")) {
    fail("the endpoint's stream ended with an error: " + error_body_message(data));
    return;
  }
  if (const std::string* m = string_field(j, "model")) reply_.model = *m;
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    reply_.prompt_tokens = count_field(*u, "prompt_tokens");
    reply_.completion_tokens = count_field(*u, "completion_tokens");
    if (auto d = u->find("prompt_tokens_details"); d != u->end() && d->is_object())
      reply_.cached_tokens = count_field(*d, "cached_tokens");
  }
  auto choices = j.find("choices");
  if (choices == j.end() || !choices->is_array() || choices->empty()) return;  // usage only
  const json& choice = (*choices)[0];
  if (!choice.is_object()) return fail("the endpoint sent a choice that is not a JSON object");
  if (const std::string* f = string_field(choice, "finish_reason")) reply_.finish_reason = *f;
  auto delta = choice.find("delta");
  if (delta == choice.end() || !delta->is_object()) return;
  const std::string* reasoning = string_field(*delta, "reasoning_content");
  if (!reasoning) reasoning = string_field(*delta, "reasoning");
  const std::string* content = string_field(*delta, "content");
  if ((reasoning && !reasoning->empty()) || (content && !content->empty())) {
    if (++reply_.content_events > max_text_events_) {
      fail("the endpoint kept streaming past the length asked for (" +
           with_commas(max_text_events_) + " pieces); the reply was cut there");
      return;
    }
  }
  if (reasoning && !reasoning->empty()) {
    saw_reasoning_field_ = true;
    if (!emit_answer({*reasoning, {}})) return;
  }
  if (content && !content->empty()) emit_answer(splitter_.feed(*content));
}

}  // namespace kvchat::remote
