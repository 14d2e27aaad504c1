// Fuzz target: what a remote OpenAI-compatible endpoint sends back (tools/remote): the
// streamed reply (remote/chat_stream.h, over the SSE parser and the reasoning splitter),
// fed in pieces whose sizes the input picks; an error body in words; llama.cpp's /slots
// and kvchat's /health; an endpoint URL. Input: one selector byte, then the bytes. A crash,
// a leak or a hang is a defect; so is a reply holding more text than the input carried, or
// an error message with a control character in it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kvchat/remote_memory.h"
#include "remote/chat_stream.h"
#include "remote/openai_error.h"
#include "remote/remote_url.h"

namespace {

void check_printable(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) __builtin_trap();
  }
}

void stream(std::string_view in) {
  kvchat::RemoteStreamCallbacks cb;
  size_t shown = 0;
  cb.on_text = [&](std::string_view t) {
    shown += t.size();
    return true;
  };
  cb.on_thinking = cb.on_text;
  kvchat::remote::ChatStreamReader reader(1u << 16, 64, cb);
  // The first byte of each piece is its length (1..256).
  while (!in.empty()) {
    const size_t n = std::min<size_t>(in.size(), 1 + static_cast<unsigned char>(in[0]));
    if (!reader.feed(in.substr(0, n))) break;
    in.remove_prefix(n);
  }
  reader.finish();
  // JSON escapes only shorten text ("\u00e9" is 6 bytes for 2), so no reply outgrows its stream.
  if (shown > (1u << 16)) __builtin_trap();
  check_printable(reader.failure());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: stream(in); break;
    case 1:
      check_printable(kvchat::remote::error_body_message(in));
      check_printable(kvchat::remote::http_error_in_words(400 + data[0] % 200, in, data[0] & 1));
      break;
    case 2: {
      (void)kvchat::parse_llamacpp_slots(in);
      kvchat::RemoteMemory m;
      if (kvchat::read_kvchat_health(in, m))
        (void)kvchat::describe_remote_memory(m, 100, {2, 2, 64});
      break;
    }
    default:
      if (auto u = kvchat::remote::parse_endpoint_url(in)) (void)u->origin();
      break;
  }
  return 0;
}
