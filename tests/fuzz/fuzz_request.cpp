// libFuzzer entry point: kvchat serve's OpenAI request parsing and validation
// (engine/src/server/openai_request.h). Any bytes must give a request or a 400 whose
// message is set — never a crash, never an exception. The first byte picks the endpoint
// (odd: /v1/completions, even: /v1/chat/completions).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "server/openai_request.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kvchat::server;
  if (size == 0) return 0;
  const Endpoint endpoint = (data[0] & 1) ? Endpoint::Completions : Endpoint::ChatCompletions;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  ParsedRequest p = parse_completion_request(body, endpoint);
  if (!p.request && (p.error.status != 400 || p.error.message.empty())) std::abort();
  if (p.request && p.request->endpoint == Endpoint::ChatCompletions &&
      p.request->messages.empty()) {
    std::abort();
  }
  return 0;
}
