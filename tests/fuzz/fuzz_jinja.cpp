// libFuzzer entry point for the Jinja chat template interpreter. The input is
//   <template source> NUL <messages JSON>
// (no NUL: the whole input is the template and the JSON is a fixed conversation).
// The template is parsed, then rendered with fixed messages and with the fuzzed JSON,
// add_generation_prompt both ways. Every outcome must be text or an error that says
// why — never a crash, a hang or an unbounded allocation (the interpreter's step,
// depth and size limits, and its value budget). A last render runs under a small
// budget (8 MiB of values, 2 MiB per string) and aborts if the heap grew by more than
// the budget plus 16 MiB while it ran (measured by the sanitizer's malloc hooks): what
// the budget does not see, the fuzzer finds.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "chat/jinja/interpreter.h"
#include "chat/jinja/json.h"
#include "chat/jinja/parser.h"
#include "kvchat/chat_template.h"

#if defined(__SANITIZE_ADDRESS__)
#define KVCHAT_FUZZ_HEAP_HOOKS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KVCHAT_FUZZ_HEAP_HOOKS 1
#endif
#endif
#ifdef KVCHAT_FUZZ_HEAP_HOOKS
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             size_t),
                                                         void (*free_hook)(const volatile void*));
extern "C" size_t __sanitizer_get_allocated_size(const volatile void* p);
#endif

// What may live beside the budget: one string or list being built (2 MiB here), the
// scopes and the parsed template.
#ifndef KVCHAT_FUZZ_HEAP_SLACK
#define KVCHAT_FUZZ_HEAP_SLACK (16u << 20)
#endif

namespace {

// Live heap bytes and their peak since reset_heap_peak(), from the sanitizer's hooks.
std::atomic<std::int64_t> g_live{0}, g_peak{0};
#ifdef KVCHAT_FUZZ_HEAP_HOOKS
void on_malloc(const volatile void*, size_t n) {
  const auto bytes = static_cast<std::int64_t>(n);
  const std::int64_t live = g_live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  if (live > g_peak.load(std::memory_order_relaxed)) g_peak.store(live, std::memory_order_relaxed);
}
void on_free(const volatile void* p) {
  g_live.fetch_sub(static_cast<std::int64_t>(__sanitizer_get_allocated_size(p)),
                   std::memory_order_relaxed);
}
const bool g_hooks = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
#else
const bool g_hooks = false;
#endif

constexpr std::string_view kDefaultMessages =
    R"([{"role": "system", "content": "S"}, {"role": "user", "content": "u1"},
        {"role": "assistant", "content": "a1"}, {"role": "user", "content": "u2"}])";

// Every rejection must say why.
template <class T>
void check(const kvchat::Result<T>& r) {
  if (!r && r.message().empty()) std::abort();
}

// Renders under a small budget; aborts (a libFuzzer crash) if the accounting ever
// counted more than the budget.
void render_under_small_budget(std::string_view source, std::string_view json) {
  using namespace kvchat::jinja;
  std::shared_ptr<const Template> tree;
  try {
    tree = parse_template(source);
  } catch (const std::exception&) {
    return;
  }
  RenderLimits limits;
  limits.max_value_bytes = 8u << 20;
  limits.max_output_bytes = 2u << 20;
  limits.max_seconds = 0.5;
  const std::int64_t start = g_live.load();
  g_peak.store(start);
  Interpreter interpreter(*tree, 1'700'000'000, limits);
  try {
    std::unordered_map<std::string, Value> vars;
    Value messages = parse_json(json);
    vars["messages"] = messages.is_list() ? messages : parse_json(kDefaultMessages);
    vars["add_generation_prompt"] = Value(true);
    vars["bos_token"] = Value("<s>");
    interpreter.render(vars);
  } catch (const std::exception&) {
  }
  if (interpreter.budget().peak() > limits.max_value_bytes) std::abort();
  if (g_hooks && g_peak.load() - start >
                     static_cast<std::int64_t>(limits.max_value_bytes + KVCHAT_FUZZ_HEAP_SLACK))
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view source = input.substr(0, nul);
  const std::string_view json =
      nul == std::string_view::npos ? kDefaultMessages : input.substr(nul + 1);

  auto tpl = kvchat::ChatTemplate::parse(source);
  check(tpl);
  if (!tpl) return 0;
  if (tpl->source() != source) std::abort();

  static const std::vector<kvchat::ChatMessage> messages = {{"system", "You are helpful."},
                                                            {"user", "Hi"},
                                                            {"assistant", "Hello!"},
                                                            {"user", "Bye <|im_end|>"}};
  kvchat::ChatRenderOptions o;
  o.bos_token = "<s>";
  o.eos_token = "</s>";
  o.now_unix_seconds = 1'700'000'000;  // reproducible strftime_now
  for (const bool gen : {false, true}) {
    o.add_generation_prompt = gen;
    check(tpl->render(messages, o));
    check(tpl->render_json(json, o));
  }
  render_under_small_budget(source, json);
  return 0;
}
