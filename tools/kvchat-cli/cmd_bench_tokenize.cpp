// bench-tokenize: tokenizer throughput on generated text of growing size, to show
// the cost grows linearly (the 10x/1x time ratio), plus worst-case inputs (one
// 1 MB word without spaces, 1 MB of spaces, 1 MB of digits).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "gguf/gguf_file.h"
#include "tokenizer/tokenizer_factory.h"

namespace kvchat::cli {
namespace {

constexpr size_t kMB = 1000 * 1000;

// Deterministic mixed text of about `bytes` bytes: sentences of prose, code,
// numbers, punctuation and some non-ASCII, picked and varied by a small PRNG.
std::string mixed_text(size_t bytes) {
  static const char* const kParts[] = {
      "The quick brown fox jumps over the lazy dog. ",
      "In 2023, revenue grew by 14.7% to $3,482,119 (up from $3,035,221). ",
      "She said: \"I'll be there at 10:30, won't you?\" ",
      "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }\n",
      "Caf\xC3\xA9 cr\xC3\xA8me br\xC3\xBBl\xC3\xA9\x65, na\xC3\xAFve r\xC3\xA9sum\xC3\xA9. ",
      "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, \xD0\xBC\xD0\xB8\xD1\x80! ",
      "\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x8C\xE4\xB8\x96\xE7\x95\x8C\xE3\x80\x82 ",
      "Emoji: \xF0\x9F\x9A\x80 \xF0\x9F\xA6\x99 \xE2\x9C\x85\n",
      "    return std::max(lhs, rhs) - 42;\n",
      "Version v1.2.3-rc4 was released on 2024-05-17T12:00:00Z.\n\n",
  };
  constexpr size_t kNumParts = sizeof(kParts) / sizeof(kParts[0]);
  std::string text;
  text.reserve(bytes + 128);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  while (text.size() < bytes) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    text += kParts[(state >> 33) % kNumParts];
    if ((state >> 20) % 4 == 0) {  // a varying number, so not every word repeats
      text += std::to_string((state >> 40) % 100000);
      text += ' ';
    }
  }
  text.resize(bytes);
  while (!text.empty() && (static_cast<uint8_t>(text.back()) & 0xC0) == 0x80) text.pop_back();
  if (!text.empty() && static_cast<uint8_t>(text.back()) >= 0xC0) text.pop_back();
  return text;
}

struct Timing {
  size_t bytes = 0;
  size_t tokens = 0;
  double seconds = 0;
  double mb_per_s() const { return seconds > 0 ? bytes / 1e6 / seconds : 0; }
};

// The best of `runs` timings (the machine may be shared: the least disturbed run).
Timing time_encode(const Tokenizer& tok, const std::string& text, int runs = 3) {
  Timing best{text.size(), 0, 0};
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<TokenId> ids = tok.encode(text, false);
    const auto t1 = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(t1 - t0).count();
    if (r == 0 || s < best.seconds) best.seconds = s;
    best.tokens = ids.size();
  }
  return best;
}

}  // namespace

int cmd_bench_tokenize(const Argv& argv) {
  auto args = Args::parse(argv, {"--model"}, {"--json"});
  if (!args) return fail(args.message());
  auto path = args->require("--model");
  if (!path) return fail(path.message());
  auto file = gguf::GgufFile::open(*path);
  if (!file) return fail(file.message());
  auto tok = load_tokenizer(**file);
  if (!tok) return fail(tok.message());

  const std::string small = mixed_text(1 * kMB);
  const std::string large = mixed_text(10 * kMB);
  time_encode(**tok, small.substr(0, 64 * 1024), 1);  // warm-up (tables, page faults)
  const Timing t1 = time_encode(**tok, small);
  const Timing t10 = time_encode(**tok, large);
  const double ratio = t1.seconds > 0 ? t10.seconds / t1.seconds : 0;
  const Timing one_word = time_encode(**tok, std::string(kMB, 'a'), 1);
  const Timing spaces = time_encode(**tok, std::string(kMB, ' '), 1);
  const Timing digits = time_encode(**tok, std::string(kMB, '7'), 1);

  if (args->has("--json")) {
    auto j = [](const Timing& t) {
      return nlohmann::json{{"bytes", t.bytes},
                            {"tokens", t.tokens},
                            {"seconds", t.seconds},
                            {"mb_per_s", t.mb_per_s()}};
    };
    nlohmann::json out = {
        {"model", *path},          {"mixed_1mb", j(t1)},          {"mixed_10mb", j(t10)},
        {"time_ratio_10x", ratio}, {"one_word_1mb", j(one_word)}, {"spaces_1mb", j(spaces)},
        {"digits_1mb", j(digits)}};
    std::printf("%s\n", json_text(out, 2).c_str());
    return 0;
  }
  auto row = [](const char* name, const Timing& t) {
    std::printf("%-22s %9zu bytes %9zu tokens %8.3f s %8.2f MB/s\n", name, t.bytes, t.tokens,
                t.seconds, t.mb_per_s());
  };
  std::printf("tokenizer throughput: %s\n", path->c_str());
  row("mixed text 1 MB", t1);
  row("mixed text 10 MB", t10);
  std::printf("time 10 MB / 1 MB       %.2f (linear: about 10)\n", ratio);
  row("one 1 MB word 'aaa..'", one_word);
  row("1 MB of spaces", spaces);
  row("1 MB of digits", digits);
  return 0;
}

}  // namespace kvchat::cli
