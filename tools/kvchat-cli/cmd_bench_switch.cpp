// bench-switch: what coming back to a conversation costs. Two conversations of --tokens
// random tokens each on one session; the bench switches between them --switches times in
// each of three ways and reports the time and the tokens evaluated per switch:
//   ram:     through the RAM tier (switch_conversation_kv: the left one parked, the other
//            resumed), then the prompt evaluated (0 tokens: the cache holds it);
//   disk:    the left one's KV dropped, the other's snapshot journal loaded (its bytes
//            read), then the prompt evaluated;
//   prefill: the left one's KV dropped, the other's prompt evaluated again.
// Also the RAM tier's bytes once both conversations have been parked.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/conversation.h"
#include "kvchat/kv_ram_tier.h"

namespace kvchat::cli {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// n random tokens after BOS (seeded by `salt`).
std::vector<TokenId> random_tokens(const Model& model, int64_t n, uint32_t salt) {
  std::mt19937 rng(salt);
  std::uniform_int_distribution<TokenId> pick(3, model.info().n_vocab - 1);
  std::vector<TokenId> ids(static_cast<size_t>(n));
  for (TokenId& t : ids) t = pick(rng);
  ids[0] = model.tokenizer().bos();
  return ids;
}

struct Way {
  std::string name;
  int32_t switches = 0;
  double total_ms = 0;
  uint64_t tokens_evaluated = 0;
  uint64_t bytes_read = 0;  // disk: the journals loaded
};

nlohmann::json to_json(const Way& w) {
  return {{"way", w.name},
          {"switches", w.switches},
          {"ms_per_switch", w.total_ms / std::max(1, w.switches)},
          {"tokens_evaluated_per_switch", w.tokens_evaluated / std::max(1, w.switches)},
          {"bytes_read_per_switch", w.bytes_read / static_cast<uint64_t>(std::max(1, w.switches))}};
}

// One switch to conversation `to` (0 or 1) made ready by `enter`, then its prompt
// evaluated; the time and tokens go to `way`.
template <typename Enter>
Status timed_switch(Conversation& c, const std::vector<TokenId>& prompt, Way& way, Enter enter) {
  const uint64_t before = c.session().tokens_evaluated();
  const auto t0 = std::chrono::steady_clock::now();
  if (auto st = enter(); !st) return st;
  auto evaluated = c.session().eval_sequence(prompt);
  if (!evaluated) return Error{evaluated.message()};
  way.total_ms += ms_since(t0);
  way.tokens_evaluated += c.session().tokens_evaluated() - before;
  ++way.switches;
  return {};
}

}  // namespace

int cmd_bench_switch(const Argv& argv) {
  auto args = Args::parse(argv, with(kSessionOptions, {"--tokens", "--switches"}), {"--json"});
  if (!args) return fail(args.message());
  auto tokens = args->get_int("--tokens", 4096);
  auto switches = args->get_int("--switches", 6);
  if (!tokens || *tokens < 2) return fail("--tokens must be an integer >= 2");
  if (!switches || *switches < 2) return fail("--switches must be an integer >= 2");
  auto model = load_model(*args);
  if (!model) return fail(model.message());
  SessionDefaults d;
  d.n_ctx = static_cast<int32_t>(*tokens + 16);
  auto session = make_session(*args, *model, d);
  if (!session) return fail(session.message());
  auto format = ChatFormat::for_model(**model);
  if (!format) return fail(format.message());
  Conversation c(std::move(session.value()), *format);
  const std::vector<TokenId> prompts[2] = {random_tokens(**model, *tokens, 1),
                                           random_tokens(**model, *tokens, 2)};
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("kvchat-bench-switch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir, ec);
  const std::string snapshots[2] = {(dir / "0.kvsnap").string(), (dir / "1.kvsnap").string()};
  const auto key = [](int k) { return "c" + std::to_string(k) + "/"; };

  // Both conversations evaluated once and saved (the disk way's journals), then both
  // parked in the tier (the ram way's entries).
  KvRamTier tier(~0ull);
  Way prefill{"prefill"}, ram{"ram"}, disk{"disk"};
  Status st;
  for (int k = 0; k < 2 && st; ++k) {
    st = timed_switch(c, prompts[k], prefill, [&]() -> Status {
      switch_conversation_kv(tier, c, k ? key(0) : "", key(k));
      return {};
    });
    if (st) st = c.save_snapshot(snapshots[k]);
  }
  int at = 1;
  const uint64_t tier_bytes_one = tier.stats().used_bytes;  // conversation 0 parked
  for (int64_t i = 0; i < *switches && st; ++i, at ^= 1) {
    st = timed_switch(c, prompts[at ^ 1], ram, [&]() -> Status {
      const KvSwitch sw = switch_conversation_kv(tier, c, key(at), key(at ^ 1));
      return sw.from_ram ? Status{} : Status{Error{"not resumed from RAM: " + sw.note}};
    });
  }
  tier.clear();
  for (int64_t i = 0; i < *switches && st; ++i, at ^= 1) {
    st = timed_switch(c, prompts[at ^ 1], disk, [&]() -> Status {
      c.session().truncate(0);
      disk.bytes_read += std::filesystem::file_size(snapshots[at ^ 1], ec);
      return c.restore_snapshot(snapshots[at ^ 1]);
    });
  }
  for (int64_t i = 0; i < *switches && st; ++i, at ^= 1) {
    st = timed_switch(c, prompts[at ^ 1], prefill, [&]() -> Status {
      c.session().truncate(0);
      return {};
    });
  }
  std::filesystem::remove_all(dir, ec);
  if (!st) return fail(st.message());

  const MemoryReport m = c.session().memory_report();
  if (args->has("--json")) {
    const nlohmann::json j = {{"switch",
                               {{"tokens", *tokens},
                                {"kv_type", m.kv_type},
                                {"kv_bytes_per_conversation", m.kv_allocated_bytes},
                                {"ram_tier_bytes_per_parked_conversation", tier_bytes_one},
                                {"ways", {to_json(ram), to_json(disk), to_json(prefill)}}}}};
    std::printf("%s\n", json_text(j, 2).c_str());
    return 0;
  }
  std::printf(
      "two conversations of %lld tokens, KV %s: %.1f MiB each (the RAM tier holds %.1f MiB for a "
      "parked one)\n",
      static_cast<long long>(*tokens), m.kv_type.c_str(),
      static_cast<double>(m.kv_allocated_bytes) / (1 << 20),
      static_cast<double>(tier_bytes_one) / (1 << 20));
  std::printf("%-8s %9s %14s %18s %16s\n", "way", "switches", "ms / switch", "tokens evaluated",
              "MiB read / switch");
  for (const Way* w : {&ram, &disk, &prefill}) {
    const int n = std::max(1, w->switches);
    std::printf("%-8s %9d %14.1f %18llu %16.1f\n", w->name.c_str(), w->switches, w->total_ms / n,
                static_cast<unsigned long long>(w->tokens_evaluated / n),
                static_cast<double>(w->bytes_read) / n / (1 << 20));
  }
  return 0;
}

}  // namespace kvchat::cli
