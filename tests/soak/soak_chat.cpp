// Long use (issue 12): N chat turns on the demo model at context 512 under a context-full
// policy, through the path the app's engine worker takes — messages rendered by the chat
// format, tokenized from the longest remembered checkpoint, prefix reuse
// (Session::eval_sequence, each prompt a new turn), the system prompt kept, sampled
// replies (kvchat::generate). Checks, after a warm-up (a fifth of the turns, and until the
// context has filled once):
//   - every turn succeeds, and the policy was exercised (turns dropped / context shifted);
//   - the KV pool is bounded: never more blocks than the context needs, and no growth
//     after the warm-up;
//   - memory is flat, as least-squares slopes over samples every 10 turns: the heap in
//     use (mallinfo2) grows by at most --max-heap-slope bytes per turn (256) beyond what
//     the conversation itself holds (its messages, and the checkpoints' texts and ids as
//     the app's worker keeps them), and resident memory by at most --max-rss-slope (8192;
//     it also keeps the allocator's high-water mark, which follows the whole conversation
//     rendered every turn). A leaked logits row is 8 KB per turn, a KV block 24 KB.
// Prints one line per policy (and --json FILE). Built a second time with ASan+UBSan
// (kvchat-soak-sanitized), where LeakSanitizer reports anything left unfreed at exit and
// the slopes are not checked (--no-slope-check: ASan's allocator keeps freed memory in
// quarantine and mallinfo2 does not see it).
//
//   kvchat-soak --model kjv-demo-f16.gguf [--turns 1000] [--policy drop-oldest|shift|both]
//               [--ctx 512] [--max-rss-slope 8192] [--max-heap-slope 256]
//               [--no-slope-check] [--inject-growth BYTES] [--json FILE]
// --inject-growth keeps BYTES per turn outside the conversation, as a leak would: the
// check must then fail (ctest soak_detects_growth). --inject-leak loses BYTES per turn:
// LeakSanitizer must report it (ctest soak_sanitized_detects_a_leak).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <malloc.h>
#include <string>
#include <vector>

#include "kvchat/chat_format.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"
#include "util/process_memory.h"

namespace kvchat {
namespace {

struct Options {
  std::string model;
  int turns = 1000;
  int ctx = 512;
  std::vector<ContextPolicy> policies = {ContextPolicy::DropOldest, ContextPolicy::Shift};
  double max_rss_slope = 8192;  // bytes per turn
  double max_heap_slope = 256;  // bytes per turn beyond what the conversation holds
  bool slope_check = true;
  size_t inject_growth = 0;  // bytes kept per turn outside the conversation (tests the test)
  size_t inject_leak = 0;    // bytes lost per turn (tests LeakSanitizer's check)
  std::string json;
};

struct SoakResult {
  std::string policy;
  int turns = 0;
  int drops_or_shifts = 0;
  int max_kv_tokens = 0;
  int32_t max_kv_blocks = 0;
  uint64_t peak_pool_bytes = 0;
  uint64_t pool_bytes_after_warmup = 0;
  uint64_t pool_bytes_end = 0;
  uint64_t pool_bound_bytes = 0;
  uint64_t rss_after_warmup = 0;
  uint64_t rss_end = 0;
  double slope_bytes_per_turn = 0;       // resident memory
  double held_slope_bytes_per_turn = 0;  // the conversation's own text and checkpoints
  double heap_slope_bytes_per_turn = 0;  // bytes malloc has handed out and not had back
  uint64_t heap_end = 0;
  uint64_t held_bytes_end = 0;
  double seconds = 0;
  uint64_t generated_tokens = 0;
  std::vector<std::string> failures;
};

// A remembered (rendered text -> the tokens the session held for it) pair, as the worker
// keeps them: the next prompt is tokenized only past the longest one it starts with.
struct Checkpoint {
  std::string text;
  std::vector<TokenId> ids;
};

void add_checkpoint(std::vector<Checkpoint>& cps, std::string text, std::vector<TokenId> ids) {
  std::erase_if(cps, [&](const Checkpoint& c) {
    return c.text == text || c.ids.size() > ids.size() ||
           !std::equal(c.ids.begin(), c.ids.end(), ids.begin());
  });
  cps.push_back({std::move(text), std::move(ids)});
  if (cps.size() > 64) cps.erase(cps.begin());
}

// Verses-like user messages that differ from turn to turn.
std::string user_text(int turn) {
  static const char* const openings[] = {"And God said",        "In the beginning",
                                         "And it came to pass", "Blessed are the",
                                         "The LORD is my",      "And the earth"};
  return std::string(openings[turn % 6]) + " (" + std::to_string(turn) + ")";
}

char* volatile leak_sink = nullptr;  // --inject-leak

// Bytes malloc has handed out and not had back, every arena and mmapped chunk counted.
uint64_t heap_in_use() {
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Least-squares slope of y over x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  if (n < 2) return 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double den = n * sxx - sx * sx;
  return den != 0 ? (n * sxy - sx * sy) / den : 0;
}

SoakResult soak(const std::shared_ptr<const Model>& model, const Options& opt,
                ContextPolicy policy) {
  SoakResult r;
  r.policy = std::string(context_policy_name(policy));
  auto fail = [&](std::string why) { r.failures.push_back(std::move(why)); };
  SessionOptions so;
  so.backend = "cpu";
  so.n_ctx = opt.ctx;
  so.context_policy = policy;
  auto created = Session::create(model, so);
  if (!created) {
    fail("session: " + created.message());
    return r;
  }
  Session& session = **created;
  session.set_event_handler([&](const SessionEvent& e) {
    if (e.kind == SessionEvent::Kind::TurnsDropped || e.kind == SessionEvent::Kind::ContextShifted)
      ++r.drops_or_shifts;
  });
  auto format_or = ChatFormat::for_model(*model);
  if (!format_or) {
    fail("chat format: " + format_or.message());
    return r;
  }
  const ChatFormat& format = *format_or;
  const Tokenizer& tok = model->tokenizer();
  const std::string system = "Answer in the words of the King James Bible.";
  std::vector<TokenId> system_ids;
  if (auto s = format.render(system, {}); s) system_ids = format.tokenize(*s);

  std::vector<ChatMessage> messages;
  std::vector<Checkpoint> checkpoints;
  const int warmup = std::max(1, opt.turns / 5);
  int warmed_at = -1;  // the turn count at the end of the warm-up
  std::vector<double> xs, ys, held_samples, heap_samples;
  // What the loop itself keeps and must keep (the app holds the same): the messages, and
  // the checkpoints' texts and ids (up to 64, each the whole conversation's text).
  auto held_bytes = [&] {
    uint64_t b =
        messages.capacity() * sizeof(ChatMessage) + checkpoints.capacity() * sizeof(Checkpoint);
    for (const ChatMessage& m : messages) b += m.role.capacity() + m.content.capacity();
    for (const Checkpoint& c : checkpoints)
      b += c.text.capacity() + c.ids.capacity() * sizeof(TokenId);
    return b;
  };
  std::vector<std::vector<char>> injected;  // --inject-growth: what a leak would keep
  const auto t0 = std::chrono::steady_clock::now();
  for (int turn = 0; turn < opt.turns; ++turn) {
    {  // One turn; its temporaries (the rendered text, the ids, the reply) end here, before
       // the memory is sampled.
      messages.push_back({"user", user_text(turn)});
      auto rendered = format.render(system, messages);
      if (!rendered) {
        fail("turn " + std::to_string(turn) + ": render: " + rendered.message());
        break;
      }
      const std::string text = std::move(rendered).value();
      const Checkpoint* base = nullptr;
      for (const Checkpoint& c : checkpoints) {
        if (text.size() >= c.text.size() && text.compare(0, c.text.size(), c.text) == 0 &&
            (!base || c.text.size() > base->text.size())) {
          base = &c;
        }
      }
      std::vector<TokenId> ids;
      if (base) {
        ids = base->ids;
        const std::vector<TokenId> more =
            tok.encode_continuation(std::string_view(text).substr(base->text.size()));
        ids.insert(ids.end(), more.begin(), more.end());
      } else {
        ids = format.tokenize(text);
      }
      add_checkpoint(checkpoints, text, ids);
      if (auto e = session.eval_sequence(ids, /*starts_turn=*/true); !e) {
        fail("turn " + std::to_string(turn) + ": prompt of " + std::to_string(ids.size()) +
             " tokens: " + e.message());
        break;
      }
      const auto shared =
          std::mismatch(system_ids.begin(), system_ids.end(), ids.begin(), ids.end()).first -
          system_ids.begin();
      session.set_keep(std::min(static_cast<int32_t>(shared), session.n_past()));
      GenerateOptions go;
      go.max_tokens = 8 + turn % 32;
      go.sampling.seed = static_cast<uint64_t>(turn) + 1;
      go.stop_strings = format.stop_strings();
      auto reply = generate(session, {}, go);
      if (!reply) {
        fail("turn " + std::to_string(turn) + ": generate: " + reply.message());
        break;
      }
      r.generated_tokens += static_cast<uint64_t>(reply->stats.generated_tokens);
      std::string held = text;
      for (size_t i = ids.size(); i < session.tokens().size(); ++i)
        held += tok.token_bytes(session.tokens()[i]);
      add_checkpoint(checkpoints, std::move(held), session.tokens());
      messages.push_back({"assistant", reply->text});
      ++r.turns;
      if (opt.inject_growth > 0)
        injected.emplace_back(opt.inject_growth, static_cast<char>(turn | 1));
      if (opt.inject_leak > 0) {  // the previous turn's block becomes unreachable
        leak_sink = new char[opt.inject_leak];
        leak_sink[0] = 1;
      }
    }

    const MemoryReport m = session.memory_report();
    r.max_kv_tokens = std::max(r.max_kv_tokens, m.kv_tokens);
    r.max_kv_blocks = std::max(r.max_kv_blocks, m.kv_blocks);
    r.peak_pool_bytes = std::max(r.peak_pool_bytes, m.kv_pool_bytes);
    r.pool_bound_bytes = m.kv_bytes_per_token * static_cast<uint64_t>(m.kv_max_tokens);
    // Warmed up: past a fifth of the turns and the context has filled once (the KV pool
    // is then at its size for good).
    if (warmed_at < 0 && turn + 1 >= warmup && r.drops_or_shifts > 0) {
      warmed_at = turn + 1;
      r.pool_bytes_after_warmup = m.kv_pool_bytes;
      r.rss_after_warmup = read_process_memory().resident_bytes;
    }
    if (warmed_at > 0 && (turn + 1 - warmed_at) % 10 == 0) {
      xs.push_back(turn + 1);
      ys.push_back(static_cast<double>(read_process_memory().resident_bytes));
      held_samples.push_back(static_cast<double>(held_bytes()));
      heap_samples.push_back(static_cast<double>(heap_in_use()));
    }
    r.pool_bytes_end = m.kv_pool_bytes;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.rss_end = read_process_memory().resident_bytes;
  r.slope_bytes_per_turn = slope(xs, ys);
  r.held_slope_bytes_per_turn = slope(xs, held_samples);
  r.held_bytes_end = held_bytes();
  r.heap_slope_bytes_per_turn = slope(xs, heap_samples);
  r.heap_end = heap_in_use();

  if (r.turns < opt.turns) return r;
  if (r.drops_or_shifts == 0) fail("the context never filled: the policy was not exercised");
  if (r.max_kv_tokens > opt.ctx)
    fail("the cache held " + std::to_string(r.max_kv_tokens) + " tokens");
  const int32_t block_tokens = so.kv_block_tokens;
  const int32_t blocks_needed = (opt.ctx + block_tokens - 1) / block_tokens;
  if (r.max_kv_blocks > blocks_needed) {
    fail("the cache used " + std::to_string(r.max_kv_blocks) + " blocks; the context needs " +
         std::to_string(blocks_needed));
  }
  if (r.peak_pool_bytes > r.pool_bound_bytes) {
    fail("the KV pool reached " + std::to_string(r.peak_pool_bytes) +
         " bytes, over the context's " + std::to_string(r.pool_bound_bytes));
  }
  if (r.pool_bytes_end > r.pool_bytes_after_warmup) {
    fail("the KV pool grew after the warm-up: " + std::to_string(r.pool_bytes_after_warmup) +
         " -> " + std::to_string(r.pool_bytes_end) + " bytes");
  }
  // The heap may grow only with what the conversation itself holds; resident memory
  // (which also keeps the allocator's high-water mark) by a few KB per turn at most.
  char buf[200];
  if (opt.slope_check &&
      r.heap_slope_bytes_per_turn - r.held_slope_bytes_per_turn > opt.max_heap_slope) {
    std::snprintf(
        buf, sizeof buf,
        "the heap grows %.0f bytes per turn after the warm-up, %.0f beyond the conversation's own "
        "text and checkpoints (limit %.0f)",
        r.heap_slope_bytes_per_turn, r.heap_slope_bytes_per_turn - r.held_slope_bytes_per_turn,
        opt.max_heap_slope);
    fail(buf);
  }
  if (opt.slope_check && r.slope_bytes_per_turn > opt.max_rss_slope) {
    std::snprintf(buf, sizeof buf,
                  "resident memory grows %.0f bytes per turn after the warm-up (limit %.0f)",
                  r.slope_bytes_per_turn, opt.max_rss_slope);
    fail(buf);
  }
  return r;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "kvchat-soak: %s\nusage: kvchat-soak --model FILE.gguf [--turns 1000] [--policy "
               "drop-oldest|shift|both]"
               " [--ctx 512] [--max-rss-slope 8192] [--max-heap-slope 256] [--no-slope-check] "
               "[--json FILE]\n",
               why);
  return 2;
}

}  // namespace
}  // namespace kvchat

int main(int argc, char** argv) {
  using namespace kvchat;
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--no-slope-check") {
      opt.slope_check = false;
    } else if (!has_value) {
      return usage(("missing value after " + a).c_str());
    } else if (a == "--model") {
      opt.model = argv[++i];
    } else if (a == "--turns") {
      opt.turns = std::atoi(argv[++i]);
    } else if (a == "--ctx") {
      opt.ctx = std::atoi(argv[++i]);
    } else if (a == "--inject-leak") {
      opt.inject_leak = static_cast<size_t>(std::atoll(argv[++i]));
    } else if (a == "--inject-growth") {
      opt.inject_growth = static_cast<size_t>(std::atoll(argv[++i]));
    } else if (a == "--max-rss-slope") {
      opt.max_rss_slope = std::atof(argv[++i]);
    } else if (a == "--max-heap-slope") {
      opt.max_heap_slope = std::atof(argv[++i]);
    } else if (a == "--json") {
      opt.json = argv[++i];
    } else if (a == "--policy") {
      const std::string p = argv[++i];
      if (p == "both") continue;
      auto parsed = parse_context_policy(p);
      if (!parsed) return usage(parsed.message().c_str());
      opt.policies = {*parsed};
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }
  if (opt.model.empty() || opt.turns < 10 || opt.ctx < 64)
    return usage("--model is required, --turns >= 10, --ctx >= 64");
  auto model = Model::load(opt.model);
  if (!model) return usage(model.message().c_str());

  bool ok = true;
  std::string json = "[";
  std::printf("%-12s %6s %7s %7s %7s %10s %10s %10s %10s %10s %11s %11s %11s %8s\n", "policy",
              "turns", "events", "kv-max", "blocks", "pool-peak", "pool-bound", "rss-warm",
              "rss-end", "held-end", "rss B/turn", "heap B/turn", "held B/turn", "seconds");
  // heap B/turn: the slope of the bytes malloc has handed out (in use, not freed).
  for (ContextPolicy p : opt.policies) {
    const SoakResult r = soak(*model, opt, p);
    std::printf(
        "%-12s %6d %7d %7d %7d %10llu %10llu %10llu %10llu %10llu %11.1f %11.1f %11.1f %8.1f\n",
        r.policy.c_str(), r.turns, r.drops_or_shifts, r.max_kv_tokens, r.max_kv_blocks,
        static_cast<unsigned long long>(r.peak_pool_bytes),
        static_cast<unsigned long long>(r.pool_bound_bytes),
        static_cast<unsigned long long>(r.rss_after_warmup),
        static_cast<unsigned long long>(r.rss_end),
        static_cast<unsigned long long>(r.held_bytes_end), r.slope_bytes_per_turn,
        r.heap_slope_bytes_per_turn, r.held_slope_bytes_per_turn, r.seconds);
    for (const std::string& f : r.failures)
      std::printf("  FAIL (%s): %s\n", r.policy.c_str(), f.c_str());
    ok = ok && r.failures.empty();
    char buf[640];
    std::snprintf(
        buf, sizeof buf,
        "%s{\"policy\": \"%s\", \"turns\": %d, \"events\": %d, \"kv_tokens_max\": %d, "
        "\"kv_blocks_max\": %d, "
        "\"kv_pool_peak_bytes\": %llu, \"kv_pool_bound_bytes\": %llu, \"rss_after_warmup\": %llu, "
        "\"rss_end\": %llu, \"rss_slope_bytes_per_turn\": %.1f, \"held_bytes_end\": %llu, "
        "\"held_slope_bytes_per_turn\": %.1f, \"generated_tokens\": %llu, "
        "\"seconds\": %.2f, \"ok\": %s}",
        json.size() > 1 ? ", " : "", r.policy.c_str(), r.turns, r.drops_or_shifts, r.max_kv_tokens,
        r.max_kv_blocks, static_cast<unsigned long long>(r.peak_pool_bytes),
        static_cast<unsigned long long>(r.pool_bound_bytes),
        static_cast<unsigned long long>(r.rss_after_warmup),
        static_cast<unsigned long long>(r.rss_end), r.slope_bytes_per_turn,
        static_cast<unsigned long long>(r.held_bytes_end), r.held_slope_bytes_per_turn,
        static_cast<unsigned long long>(r.generated_tokens), r.seconds,
        r.failures.empty() ? "true" : "false");
    json += buf;
  }
  json += "]\n";
  if (!opt.json.empty()) std::ofstream(opt.json) << json;
  std::printf("%s\n", ok ? "soak: ok" : "soak: FAILED");
  return ok ? 0 : 1;
}
