// Fuzz target: what kvchat reads from a Streamable HTTP tool server (engine/src/mcp/
// http_transport.h): the answer's head, its body (chunked, by length, to the end) and the
// server-sent events in it, and the URL from mcp.json. Input: a piece-size byte, then the
// answer as a server would send it (head, blank line, body); its first line is also tried
// as a URL. A crash, a leak or a hang is a defect; so is a decoded body longer than what
// came, or an event over the limit delivered.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mcp/http_transport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = 1 + data[0] % 32;
  const std::string_view input(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)kvchat::mcp::parse_loopback_url(input.substr(0, input.find('\n')));
  const size_t end = input.find("\r\n\r\n");
  if (end == std::string_view::npos) return 0;
  kvchat::mcp::HttpHead head;
  if (!kvchat::mcp::parse_http_head(input.substr(0, end), head)) return 0;
  constexpr size_t kMax = 256;
  kvchat::SseParser events(
      kMax,
      [](kvchat::SseEvent&& e) {
        if (e.data.size() > kMax) __builtin_trap();
      },
      [](size_t) {});
  size_t decoded = 0;
  kvchat::mcp::HttpBodyDecoder body(head, [&](std::string_view bytes) {
    decoded += bytes.size();
    events.feed(bytes);
  });
  const std::string_view rest = input.substr(end + 4);
  for (size_t i = 0; i < rest.size() && !body.done(); i += piece) {
    if (!body.feed(rest.substr(i, piece))) break;
  }
  if (decoded > rest.size()) __builtin_trap();
  return 0;
}
