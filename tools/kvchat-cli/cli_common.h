// Helpers shared by subcommands: loading the model, making a session, parsing ids.
#pragma once

#include <memory>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "args.h"
#include "kvchat/chat_model.h"
#include "kvchat/generate.h"
#include "kvchat/model.h"
#include "kvchat/session.h"

namespace kvchat::cli {

// Options every model-using command accepts.
inline const std::set<std::string> kSessionOptions = {
    "--model",       "--backend",    "--threads",         "--ctx",
    "--kv-type",     "--kv-block",   "--kv-budget-bytes", "--context-policy",
    "--sink-tokens", "--gpu-layers", "--kv-type-k",       "--kv-type-v"};

// --kv-type T (both), then --kv-type-k / --kv-type-v for either: "T", or "K/V" when they
// differ (SessionOptions::kv_type).
Result<std::string> kv_type_option(const class Args& args, const std::string& fallback);

// --gpu-layers: "auto" -> -1, else a number of layers >= 0 (more than the model has: all).
Result<int32_t> parse_gpu_layers(const std::string& text);
// --model, else the demo model installed beside the executable (kvchat::demo_model_path;
// said on stderr).
Result<std::string> model_path(const Args& args);
// The model of model_path() (its tokenizer's warning on stderr).
Result<std::shared_ptr<const Model>> load_model(const Args& args);
// The model of model_path() opened for chatting (kvchat::open_chat_model): --template (one
// that does not work is an error: the user named it), --enable-thinking, and --kv-type and
// --ctx checked against the model (warnings on stderr). The weights are not prefetched.
Result<ChatModel> open_chat_model(const Args& args);
struct SessionDefaults {
  int32_t n_ctx = 0;            // used without --ctx when larger than the trained context
  std::string kv_type = "f16";  // without --kv-type
  bool no_kv_cache = false;     // also set by --no-kv-cache
  // Without --context-policy: Stop for one-shot runs; chat and serve pass
  // kvchat::kDefaultChatContextPolicy.
  ContextPolicy context_policy = ContextPolicy::Stop;
};
// A byte count: digits with an optional K, M, G (or KiB, MiB, GiB: 1024-based alike).
Result<uint64_t> parse_byte_size(std::string_view text);
// --kv-ram-budget (a byte count), else KvRamTier::default_budget_bytes().
Result<uint64_t> ram_tier_budget(const Args& args);
// The SessionOptions of kSessionOptions (and --no-kv-cache).
Result<SessionOptions> session_options(const Args& args, const Model& model,
                                       const SessionDefaults& defaults = {});
// A session from kSessionOptions (and --no-kv-cache); events are printed to stderr.
Result<std::unique_ptr<Session>> make_session(const Args& args, std::shared_ptr<const Model> model,
                                              const SessionDefaults& defaults = {});
// Session events other than the context warning go to stderr (for commands whose every
// window or step fills the context on purpose).
void quiet_warnings(Session& session);
// Every session event to stderr (what make_session sets).
void print_events(Session& session);
// "1 2 3" (spaces or commas) -> ids, each checked against n_vocab.
Result<std::vector<TokenId>> parse_ids(const std::string& text, int32_t n_vocab);
Result<std::string> read_file(const std::string& path);

// A message for the terminal that may quote a file or a peer (an error, a warning): each
// of its lines through kvchat::printable (control characters escaped, invalid UTF-8 shown
// as bytes, cut at kTerminalLineBytes), the line breaks kept.
inline constexpr size_t kTerminalLineBytes = 1000;
std::string terminal_lines(std::string_view message);

// -n and the sampling options (--temp --seed --top-k --top-p --min-p --repeat-penalty
// --repeat-last-n: kvchat/sampling_config.h's fields and ranges) into `go`; unset ones keep
// the SamplingParams defaults, --seed 0 (a negative seed: a fresh random one).
inline const std::set<std::string> kSamplingOptions = {
    "-n",      "--temp",           "--seed",          "--top-k",   "--top-p",
    "--min-p", "--repeat-penalty", "--repeat-last-n", "--grammar", "--json-schema"};
Status read_sampling_options(const Args& args, GenerateOptions& go);
// --grammar FILE (GBNF), --json-schema FILE or the flag --json-object (where the command
// takes it):
// GenerateOptions::grammar. Part of read_sampling_options.
Status read_grammar_options(const Args& args, GenerateOptions& go);

std::set<std::string> with(std::set<std::string> a, const std::set<std::string>& b);

// Digits in groups of three: 1048576000 -> "1,048,576,000".
std::string grouped(uint64_t v);

// --api-key-file: the first line, its line ending stripped. A file others may read is
// used with a warning (the key is as secret as the file).
Result<std::string> read_key_file(const std::string& path);
// chat's input: each line of stdin to `handle` (a "> " prompt first on a terminal) until it
// returns false or the input ends.
void read_chat_lines(const std::function<bool(const std::string&)>& handle);
// A line typed at chat's prompt: "\n" in it is a line break.
std::string unescape_newlines(const std::string& line);

}  // namespace kvchat::cli
