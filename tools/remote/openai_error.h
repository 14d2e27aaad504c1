// An endpoint's refusal in words: the HTTP status said plainly, and the message its body
// carries in any of the shapes OpenAI-compatible servers use — OpenAI's and llama.cpp's
// {"error": {"message", "type", "code"}}, vLLM's older {"object": "error", "message"},
// Ollama's {"error": "text"} — or the first line of a body that is not JSON. Internal to
// kvchat_remote (and its tests).
#pragma once

#include <string>
#include <string_view>

namespace kvchat::remote {

// The message an error body carries ("" when it carries none), at most 300 bytes, control
// characters and invalid UTF-8 escaped (util/printable.h).
std::string error_body_message(std::string_view body);

// "the endpoint refused the API key (HTTP 401): Incorrect API key provided
// (invalid_api_key)" — `has_key` picks the 401's words (a key refused, or one asked for).
std::string http_error_in_words(int status, std::string_view body, bool has_key);

// `text` with every occurrence of `key` (when not empty) replaced by "[API key]": what a
// server echoes back is shown without it.
std::string without_key(std::string text, std::string_view key);

}  // namespace kvchat::remote
