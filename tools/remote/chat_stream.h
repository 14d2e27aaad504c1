// The body of a streamed /v1/chat/completions answer read event by event (server-sent
// events, util/sse_parser.h): each chunk's choices[0].delta.content (the answer, with a
// <think> block at its start split off as reasoning, kvchat/reasoning.h) and
// delta.reasoning_content or delta.reasoning (vLLM's, llama.cpp's and DeepSeek's names for
// the reasoning), finish_reason, usage (stream_options.include_usage) and model; "[DONE]"
// ends it; {"error": ...} in the stream fails it. Bounded: max_bytes of body, and
// max_text_events chunks that carry text (a server that never stops is cut). Pure (no
// network): the client feeds it what it reads; tests feed it recorded streams. Internal to
// kvchat_remote.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "kvchat/reasoning.h"
#include "kvchat/remote_client.h"
#include "util/sse_parser.h"

namespace kvchat::remote {

class ChatStreamReader {
 public:
  ChatStreamReader(size_t max_bytes, int64_t max_text_events, RemoteStreamCallbacks callbacks);

  // The next bytes of the body. False once the stream is over: it ended ("[DONE]"), a
  // callback stopped it (stopped()), or it failed (failure()); then nothing more is read.
  bool feed(std::string_view bytes);
  // After the body ended (or the exchange stopped): what is held back flushed.
  void finish();

  bool done() const { return done_; }                      // "[DONE]" came
  bool stopped() const { return stopped_; }                // a callback said stop
  const std::string& failure() const { return failure_; }  // "" none
  RemoteReply& reply() { return reply_; }
  bool any_text() const { return reply_.content_events > 0; }

 private:
  void on_event(SseEvent&& event);
  void on_chunk(std::string_view data);
  void fail(std::string why);
  bool emit_answer(const ReasoningParts& parts);
  size_t max_bytes_;
  int64_t max_text_events_;
  RemoteStreamCallbacks cb_;
  SseParser sse_;
  ReasoningSplitter splitter_;
  RemoteReply reply_;
  size_t bytes_ = 0;
  bool done_ = false, stopped_ = false, saw_reasoning_field_ = false;
  std::string failure_;
};

}  // namespace kvchat::remote
