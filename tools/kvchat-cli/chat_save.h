// The conversation file `kvchat-cli chat` writes with /save and reads with --resume:
//   {"system": "...", "messages": [{"role": "user", "content": "..."}, ...]}
// (its KV state is beside it, FILE.kvsnap). Read as a file from anywhere: every field's
// type is checked and an error names the field, e.g. "messages[3].content: expected a
// string, found an integer".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/chat_template.h"
#include "kvchat/result.h"

namespace kvchat::cli {

// The largest save --resume reads: far beyond any conversation a context holds, and a
// bound on what parsing one may take (a JSON document costs several times its size).
inline constexpr uint64_t kMaxChatSaveBytes = 256ull << 20;

struct ChatSave {
  std::string system;  // "" when the file has none
  std::vector<ChatMessage> messages;
};

std::string chat_save_json(const ChatSave& save);
// The save in `text`; an error names the field that is wrong (the caller adds the file).
Result<ChatSave> parse_chat_save(std::string_view text);

}  // namespace kvchat::cli
