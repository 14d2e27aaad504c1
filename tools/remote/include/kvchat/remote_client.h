// RemoteClient: a model served elsewhere (vLLM, llama.cpp's server, Ollama, LM Studio,
// another kvchat) through the OpenAI API: its models (/v1/models), a streamed chat reply
// (/v1/chat/completions, server-sent events), and what the engine publishes of its memory
// (remote_memory.h). For kvchat-cli chat --remote and the app's remote models. No Qt.
//
// What it guards (each refusal a sentence naming the cause, never the key):
//  - the API key goes only to the endpoint's origin (scheme, host and port of base_url):
//    redirects are never followed, a 3xx is reported with where it pointed;
//  - TLS certificates are verified against the system's CAs (Debian's ca-certificates);
//  - every answer is bounded: a JSON body by max_body_bytes, a stream by max_stream_bytes
//    and by the events a reply of max_tokens can take (a server that never ends is cut);
//  - timeouts: connecting, and the silence between two reads (a large model's prefill can
//    take minutes before its first byte: read_timeout_ms);
//  - retries: a request that got no answer (cannot connect) or a 429 / 502 / 503 / 504 is
//    tried again up to max_attempts times, after Retry-After (at most max_retry_wait_ms) or
//    1 s, 2 s ...; never once a reply has begun to stream, nor after any other status.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_template.h"
#include "kvchat/remote_memory.h"
#include "kvchat/result.h"
#include "kvchat/sampler.h"

namespace kvchat {

struct RemoteEndpoint {
  // "http(s)://host[:port][/path]"; without a path the API is at "/v1" (as OpenAI's SDKs
  // take base_url). No user:password (the key goes in its header).
  std::string base_url;
  std::string api_key;  // "" none; else "Authorization: Bearer KEY", to base_url's origin only
};

struct RemoteLimits {
  int connect_timeout_ms = 10'000;
  int read_timeout_ms = 300'000;        // the longest silence while an answer is awaited
  size_t max_body_bytes = 8u << 20;     // a JSON answer: models, metrics, slots, an error
  size_t max_stream_bytes = 64u << 20;  // one streamed reply
  int max_attempts = 3;                 // see the retry policy above
  int max_retry_wait_ms = 10'000;
  int first_retry_wait_ms = 1'000;  // doubled at each further try
};

// One model the endpoint lists. context_length: what it says of its context (vLLM's
// max_model_len, llama.cpp's meta.n_ctx_train, LM Studio's / OpenRouter's
// context_length); 0 when it says nothing.
struct RemoteModel {
  std::string id;
  int64_t context_length = 0;
};

struct RemoteChatRequest {
  std::string model;
  // In order; a "system" turn first when there is a system prompt. An assistant turn's
  // content is its answer: reasoning is not sent back (as OpenAI's API asks).
  std::vector<ChatMessage> messages;
  // Sent: temperature, top_p, seed, frequency/presence penalties (OpenAI's own names);
  // top_k, min_p and the repetition penalty are the server's to choose.
  SamplingParams sampling;
  int max_tokens = 256;
  // The last message is an assistant reply cut short: the server goes on with it (vLLM's
  // continue_final_message, llama.cpp's and kvchat's assistant prefill).
  bool continue_final = false;
};

struct RemoteReply {
  std::string answer;             // delta.content, a <think> block at its start taken out
  std::string reasoning;          // delta.reasoning_content (or .reasoning), or that <think> block
  bool reasoning_closed = false;  // the reasoning ended before the answer (not cut short)
  // "stop", "length", "tool_calls", ... as the server said; "cancelled" when stopped here;
  // "" when the stream ended without saying (a server that drops the connection is an error).
  std::string finish_reason;
  std::string model;  // as the server named it
  // usage (stream_options.include_usage); -1 when the server did not say.
  int64_t prompt_tokens = -1, completion_tokens = -1, cached_tokens = -1;
  int64_t content_events = 0;     // chunks that carried text
  double first_byte_seconds = 0;  // the request sent → its first text (time to first token)
  double seconds = 0;             // the whole exchange
  int attempts = 1;
  std::string note;  // what was cut or ignored, in words ("" none)
};

struct RemoteStreamCallbacks {
  std::function<bool(std::string_view)> on_text;      // the answer's pieces; false stops
  std::function<bool(std::string_view)> on_thinking;  // the reasoning's; false stops
  std::function<bool()> cancelled;                    // polled every 50 ms; true stops
};

class RemoteClient {
 public:
  // Checks the URL (see RemoteEndpoint); connects to nothing yet.
  static Result<std::unique_ptr<RemoteClient>> open(const RemoteEndpoint& endpoint,
                                                    const RemoteLimits& limits = {});
  ~RemoteClient();
  RemoteClient(const RemoteClient&) = delete;
  RemoteClient& operator=(const RemoteClient&) = delete;

  const std::string& origin() const;    // "https://host:port": where the key may go
  const std::string& api_root() const;  // the API's path ("/v1")
  // A key is set and goes unencrypted (plain http) to a host that is not this machine.
  bool key_in_clear() const;

  Result<std::vector<RemoteModel>> list_models();
  // Streams one reply. A stop (a callback's false, cancelled()) ends it with
  // finish_reason "cancelled" and what came so far; a failure before any text is an error,
  // after some text too (the text so far then in the message's words is not kept).
  Result<RemoteReply> chat(const RemoteChatRequest& request, const RemoteStreamCallbacks& cb);
  // What the engine publishes of its memory (remote_memory.h), for `model`; the sources it
  // does not offer are noted, not failed. Never fails: an endpoint that publishes nothing
  // gives source "none" with the reasons in notes.
  RemoteMemory memory(const std::string& model);

  struct Impl;

 private:
  explicit RemoteClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// `base_url` is plain http to a host that is not this machine: a key sent there travels
// unencrypted (false for a URL that does not parse).
bool plain_http_beyond_this_machine(std::string_view base_url);

// The message list a stored conversation sends: the system prompt (when not empty) as the
// first turn, then each turn with an assistant's reasoning (its <think> block) left out.
std::vector<ChatMessage> remote_messages(std::string_view system_prompt,
                                         const std::vector<ChatMessage>& turns);
// A reply as the app and the CLI store it: "<think>\nREASONING\n</think>\n\nANSWER" when
// there was reasoning (the markers a local thinking model writes, so the window splits it
// the same way), else the answer. A streamed reply is written so piece by piece with these:
inline constexpr std::string_view kStoredThinkingOpen = "<think>\n";
inline constexpr std::string_view kStoredThinkingClose = "\n</think>\n\n";
std::string stored_reply_text(const RemoteReply& reply);

}  // namespace kvchat
