// Fuzz target: the GBNF parser (grammar/grammar.h) and the matcher following a text
// through the compiled grammar (grammar/grammar_matcher.h). Input: grammar text, then
// optionally a NUL and the text to feed. Every outcome is fine except a crash, a leak or
// a hang: errors are expected; the matcher's limits keep each byte's work bounded.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "grammar/grammar.h"
#include "grammar/grammar_matcher.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const size_t nul = in.find('\0');
  const std::string_view text = in.substr(0, nul);
  const std::string_view feed =
      nul == std::string_view::npos ? std::string_view() : in.substr(nul + 1);
  kvchat::grammar::GrammarLimits limits;
  limits.max_elements = 20000;  // small enough for libFuzzer's time limit
  auto g = kvchat::grammar::parse_gbnf(text, limits);
  if (!g) return 0;
  kvchat::grammar::MatcherLimits ml;
  ml.max_stacks = 256;
  ml.max_depth = 256;
  auto m = kvchat::grammar::GrammarMatcher::create(
      std::make_shared<const kvchat::grammar::Grammar>(std::move(*g)), ml);
  if (!m) return 0;
  for (size_t i = 0; i < feed.size() && i < 256; ++i) {
    auto ok = m->accept(feed.substr(i, 1));
    if (!ok || !*ok) break;
  }
  (void)m->can_end();
  return 0;
}
