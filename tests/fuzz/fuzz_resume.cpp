// libFuzzer entry point: the files kvchat-cli reads back from disk, which may come from
// anywhere: a `chat --resume` save (parse_chat_save) and a `summarize --resume` log
// (read_resume_lines, for a fixed run header). Any byte string must give a value or an
// error message that names what is wrong — never an exception, a crash or an abort — and
// what is accepted must hold what the reader promises.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "chat_save.h"
#include "summary_resume.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  auto save = kvchat::cli::parse_chat_save(text);
  if (save) {
    for (const kvchat::ChatMessage& m : save->messages) {
      if (m.role != "user" && m.role != "assistant" && m.role != "system") std::abort();
    }
    // What was accepted is written back and read again as the same conversation.
    auto again = kvchat::cli::parse_chat_save(kvchat::cli::chat_save_json(*save));
    if (!again || again->system != save->system ||
        again->messages.size() != save->messages.size()) {
      std::abort();
    }
    for (size_t i = 0; i < save->messages.size(); ++i) {
      if (again->messages[i].content != save->messages[i].content) std::abort();
    }
  } else if (save.message().empty()) {
    std::abort();
  }

  // The header the corpus' logs were written for (any run's fields would do).
  const nlohmann::json header = {{"document", "doc.txt"}, {"n_ctx", 512}};
  std::vector<kvchat::PartialSummary> done;
  auto whole = kvchat::cli::read_resume_lines(text, header, done);
  if (whole) {
    if (*whole > size || (*whole > 0 && text[*whole - 1] != '\n')) std::abort();
    for (const kvchat::PartialSummary& p : done) {
      if (p.level < 0 || p.index < 0 || p.token_begin < 0 || p.token_end < 0) std::abort();
    }
  } else if (whole.message().empty()) {
    std::abort();
  }
  return 0;
}
