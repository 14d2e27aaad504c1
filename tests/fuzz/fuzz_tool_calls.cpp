// Fuzz target: the tool-call parser and its streaming split (kvchat/tool_calls.h), which
// read what a model wrote. Input: a format byte, a piece-size byte, then the reply text.
// A crash, a leak or a hang is a defect; so is a stream whose shown text and calls differ
// from the whole reply's parse (trapped here).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kvchat/tool_calls.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto format = static_cast<kvchat::ToolCallFormat>(data[0] % 4);
  const size_t piece = 1 + data[1] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  const kvchat::ToolCallReply whole = kvchat::parse_tool_calls(text, format);
  kvchat::ToolCallStream stream(format);
  std::string shown;
  for (size_t i = 0; i < text.size(); i += piece) shown += stream.feed(text.substr(i, piece));
  const kvchat::ToolCallReply rest = stream.finish();
  if (rest.calls.size() != whole.calls.size()) __builtin_trap();
  for (size_t i = 0; i < rest.calls.size(); ++i) {
    if (rest.calls[i].name != whole.calls[i].name ||
        rest.calls[i].arguments != whole.calls[i].arguments)
      __builtin_trap();
  }
  // Without calls the text is all there is; with them, what was shown comes before them.
  if (whole.calls.empty() && shown + rest.content != whole.content) __builtin_trap();
  return 0;
}
