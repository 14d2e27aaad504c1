// libFuzzer entry point for the Jinja chat template interpreter. The input is
//   <template source> NUL <messages JSON>
// (no NUL: the whole input is the template and the JSON is a fixed conversation).
// The template is parsed, then rendered with fixed messages and with the fuzzed JSON,
// add_generation_prompt both ways. Every outcome must be text or an error that says
// why — never a crash, a hang or an unbounded allocation (the interpreter's step,
// depth and size limits).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "kvchat/chat_template.h"

namespace {

constexpr std::string_view kDefaultMessages =
    R"([{"role": "system", "content": "S"}, {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])";

// Every rejection must say why.
template <class T>
void check(const kvchat::Result<T>& r) {
  if (!r && r.message().empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view source = input.substr(0, nul);
  const std::string_view json = nul == std::string_view::npos ? kDefaultMessages : input.substr(nul + 1);

  auto tpl = kvchat::ChatTemplate::parse(source);
  check(tpl);
  if (!tpl) return 0;
  if (tpl->source() != source) std::abort();

  static const std::vector<kvchat::ChatMessage> messages = {
      {"system", "You are helpful."}, {"user", "Hi"}, {"assistant", "Hello!"}, {"user", "Bye <|im_end|>"}};
  kvchat::ChatRenderOptions o;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  o.now_unix_seconds = 1'700'000'000;  // reproducible strftime_now
  for (const bool gen : {false, true}) {
    o.add_generation_prompt = gen;
    check(tpl->render(messages, o));
    check(tpl->render_json(json, o));
  }
  return 0;
}
