// bench --snapshot: what saving the KV snapshot costs per reply. Prefills --pp random
// tokens, saves (the whole journal), then --replies greedy replies of --tg tokens, each
// followed by a save (a record appended), then one regenerated reply (a truncation
// record). For every save: bytes written (counted by the session and checked against
// the file's growth), and what the version 2 whole-file format wrote for the same state
// (60 + 4 (tokens + turns + vocab) + 2 layers tokens row_bytes + 8: the file it rewrote
// at every save). Also the time of each save and of one load, and of the model identity.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "gguf/gguf_file.h"
#include "kvchat/sampler.h"
#include "model/model_identity.h"
#include "util/printable.h"

namespace kvchat::cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

uint64_t file_size(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// What the whole-file snapshot format (version 2) wrote for this state at every save.
uint64_t whole_file_v2_bytes(const Session& s) {
  const MemoryReport m = s.memory_report();
  return 60 + 4ull * (s.tokens().size() + s.turn_starts().size() + s.last_logits().size()) +
         m.kv_bytes_per_token * static_cast<uint64_t>(s.n_past()) + 8;
}

// A snapshot bench in progress: its session and snapshot file, and the saves measured so far.
struct SnapshotBench {
  SnapshotBench(Session& session, const std::string& file, bool json_report)
      : s(session), path(file), json(json_report) {}
  Session& s;
  const std::string& path;
  bool json;  // else each save is printed as it is measured
  nlohmann::json saves = nlohmann::json::array();
  double load_ms = 0;
  std::string error;  // why the step that returned false failed
};

// The text report's lines above the saves: the model, its identity's cost, the column heads.
void print_header(const ModelInfo& info, const Session& s, double identity_ms, size_t n_tensors) {
  std::printf("model %s: %d layers, %d KV heads, head_dim %d, KV %s, %llu bytes per token\n",
              printable(info.name).c_str(), info.n_layers, info.n_kv_heads, info.head_dim,
              s.memory_report().kv_type.c_str(),
              static_cast<unsigned long long>(s.memory_report().kv_bytes_per_token));
  std::printf("model identity: %.1f ms (header hash + 4 x 4 KiB of each of %zu tensors)\n",
              identity_ms, n_tensors);
  std::printf("%-22s %7s %14s %14s %8s %10s %12s\n", "save", "tokens", "bytes written",
              "whole file v2", "ratio", "save ms", "file bytes");
}

// One save named `what`: timed, its counted bytes checked against the file's growth,
// recorded (and printed without --json).
bool save(SnapshotBench& b, const std::string& what) {
  Session& s = b.s;
  const uint64_t before = file_size(b.path);
  const auto t = std::chrono::steady_clock::now();
  if (auto st = s.save_snapshot(b.path); !st) {
    b.error = st.message();
    return false;
  }
  const double ms = seconds_since(t) * 1e3;
  const SnapshotSaveStats& r = s.last_snapshot_save();
  const uint64_t after = file_size(b.path);
  if (!r.rewritten && after - before != r.bytes_written) {
    b.error = "the file grew by " + std::to_string(after - before) + " bytes, the save counted " +
              std::to_string(r.bytes_written);
    return false;
  }
  const uint64_t v2 = whole_file_v2_bytes(s);
  b.saves.push_back({{"save", what},
                     {"tokens", s.n_past()},
                     {"tokens_written", r.tokens_written},
                     {"bytes_written", r.bytes_written},
                     {"whole_file_v2_bytes", v2},
                     {"rewritten", r.rewritten},
                     {"save_ms", ms},
                     {"file_bytes", after}});
  if (!b.json) {
    std::printf("%-22s %7d %14llu %14llu %7.1f%% %10.1f %12llu\n", what.c_str(), s.n_past(),
                static_cast<unsigned long long>(r.bytes_written),
                static_cast<unsigned long long>(v2),
                100.0 * static_cast<double>(r.bytes_written) / static_cast<double>(v2), ms,
                static_cast<unsigned long long>(after));
  }
  return true;
}

// A new turn of `n` greedy tokens.
bool decode(SnapshotBench& b, int64_t n) {
  Session& s = b.s;
  s.mark_turn();
  for (int64_t k = 0; k < n; ++k) {
    // (after the truncation before a regenerated reply the logits are unknown: any token)
    const TokenId next = s.last_logits().empty() ? 100 : argmax(s.last_logits());
    if (auto st = s.eval(std::span<const TokenId>(&next, 1)); !st) {
      b.error = st.message();
      return false;
    }
  }
  return true;
}

// --pp random tokens after BOS (from a fixed seed).
std::vector<TokenId> random_prompt(const Model& model, long long pp) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<TokenId> pick(3, model.info().n_vocab - 1);
  std::vector<TokenId> prompt(static_cast<size_t>(pp));
  for (TokenId& t : prompt) t = pick(rng);
  prompt[0] = model.tokenizer().bos();
  return prompt;
}

// The prefill of `prompt`, `replies` replies of `tg` tokens and one regenerated reply, each
// followed by a save.
bool run_saves(SnapshotBench& b, const std::vector<TokenId>& prompt, long long pp, long long tg,
               long long replies) {
  b.s.mark_turn();
  if (auto st = b.s.eval(prompt); !st) {
    b.error = st.message();
    return false;
  }
  if (!save(b, "prefill " + std::to_string(pp))) return false;
  for (int64_t r = 0; r < replies; ++r) {
    if (!decode(b, tg) || !save(b, "reply " + std::to_string(r + 1))) return false;
  }
  b.s.truncate(b.s.n_past() - static_cast<int32_t>(tg));
  return decode(b, tg) && save(b, "regenerated reply");
}

// The snapshot loaded into a fresh session made like the bench's: timed, its tokens checked.
bool time_load(SnapshotBench& b, const Args& args, const std::shared_ptr<const Model>& model,
               const SessionDefaults& d) {
  auto other = make_session(args, model, d);
  if (!other) {
    b.error = other.message();
    return false;
  }
  const auto t = std::chrono::steady_clock::now();
  const Status st = (*other)->load_snapshot(b.path);
  b.load_ms = seconds_since(t) * 1e3;
  if (!st) {
    b.error = st.message();
    return false;
  }
  if ((*other)->tokens() != b.s.tokens()) {
    b.error = "the restored tokens differ";
    return false;
  }
  return true;
}

}  // namespace

int bench_snapshot(const Args& args) {
  auto pp = args.get_int("--pp", 2048);
  auto tg = args.get_int("--tg", 64);
  auto replies = args.get_int("--replies", 3);
  if (!pp || *pp < 1) return fail("--pp must be a positive integer");
  if (!tg || *tg < 1) return fail("--tg must be a positive integer");
  if (!replies || *replies < 1) return fail("--replies must be a positive integer");
  auto model = load_model(args);
  if (!model) return fail(model.message());
  const ModelInfo& info = (*model)->info();

  // The model identity's cost: the header hash and the sampled weight windows.
  auto t0 = std::chrono::steady_clock::now();
  auto file = gguf::GgufFile::open(info.path);
  if (!file) return fail(file.message());
  const uint64_t identity = model_identity(gguf_header_hash(**file), sampled_weights_hash(**file));
  const double identity_ms = seconds_since(t0) * 1e3;
  if (identity != info.identity) return fail("the model identity is not reproducible");

  SessionDefaults d;
  d.n_ctx = static_cast<int32_t>(*pp + (*replies + 1) * *tg + 16);
  auto session = make_session(args, *model, d);
  if (!session) return fail(session.message());
  Session& s = **session;

  char tmpl[] = "/tmp/kvchat-bench-snapshot-XXXXXX";
  if (!::mkdtemp(tmpl)) return fail("cannot create a temporary directory");
  const std::string dir = tmpl;
  const std::string path = dir + "/chat.kvsnap";

  SnapshotBench b(s, path, args.has("--json"));
  if (!b.json) print_header(info, s, identity_ms, (*file)->tensors().size());
  const std::vector<TokenId> prompt = random_prompt(**model, *pp);
  const bool ok = run_saves(b, prompt, *pp, *tg, *replies) && time_load(b, args, *model, d);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!ok) return fail(b.error);
  if (b.json) {
    const nlohmann::json j = {
        {"snapshot", {{"saves", b.saves}, {"load_ms", b.load_ms}, {"identity_ms", identity_ms}}}};
    std::printf("%s\n", json_text(j, 2).c_str());
  } else {
    std::printf("load of the journal (%d tokens): %.1f ms\n", s.n_past(), b.load_ms);
  }
  return 0;
}

}  // namespace kvchat::cli
