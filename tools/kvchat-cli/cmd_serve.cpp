// kvchat-cli serve: the OpenAI-compatible HTTP server (kvchat/server.h) on one model,
// until SIGINT or SIGTERM (then in-flight generations are cancelled and it exits 0).
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli_common.h"
#include "commands.h"
#include "kvchat/server.h"

namespace kvchat::cli {
namespace {

// The signal only records itself; the main thread waits on it with sigwait.
sigset_t termination_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

// "a,b,c" -> {"a", "b", "c"}, spaces around each dropped, empty items skipped.
std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

// A ServerOptions field as its flag: max_body_bytes -> max-body-bytes.
std::string flag_name(std::string field) {
  std::replace(field.begin(), field.end(), '_', '-');
  return field;
}

}  // namespace

int cmd_serve(const Argv& argv) {
  auto args = Args::parse(
      argv,
      with(kSessionOptions,
           {"--host", "--port", "--api-key", "--api-key-file", "--parallel", "--max-body-bytes",
            "--max-tokens", "--model-id", "--template", "--enable-thinking", "--allowed-origins",
            "--grammar", "--json-schema", "--kv-ram-budget"}),
      {"--cors", "--allow-no-key", "--json-object"});
  if (!args) return fail(args.message());
  ServerOptions so;
  so.host = args->get("--host", so.host);
  auto port = args->get_int("--port", so.port);
  if (!port) return fail(port.message());
  so.port = static_cast<int>(std::clamp<long long>(*port, INT_MIN, INT_MAX));  // checked below
  // The key: --api-key (visible to every user in /proc/PID/cmdline), --api-key-file, or
  // $KVCHAT_API_KEY.
  if (args->has("--api-key") && args->has("--api-key-file")) {
    return fail("give --api-key or --api-key-file, not both");
  }
  so.api_key = args->get("--api-key");
  if (args->has("--api-key-file")) {
    auto key = read_key_file(args->get("--api-key-file"));
    if (!key) return fail(key.message());
    so.api_key = *key;
  }
  if (so.api_key.empty()) {
    if (const char* env = std::getenv("KVCHAT_API_KEY")) so.api_key = env;
  }
  so.allow_no_key = args->has("--allow-no-key");
  so.allowed_origins = comma_list(args->get("--allowed-origins"));
  auto parallel = args->get_int("--parallel", so.parallel);
  if (!parallel) return fail(parallel.message());
  so.parallel = static_cast<int32_t>(std::clamp<long long>(*parallel, INT_MIN, INT_MAX));
  auto body = args->get_int("--max-body-bytes", static_cast<long long>(so.max_body_bytes));
  if (!body) return fail(body.message());
  so.max_body_bytes = static_cast<uint64_t>(std::max<long long>(*body, 0));
  auto max_tokens = args->get_int("--max-tokens", 0);
  if (!max_tokens) return fail(max_tokens.message());
  so.max_tokens_default = static_cast<int32_t>(*max_tokens);
  so.cors = args->has("--cors");
  so.model_id = args->get("--model-id");
  // The default grammar of requests that ask for no response_format and offer no tools.
  GenerateOptions grammar_only;
  if (Status g = read_grammar_options(*args, grammar_only); !g) return fail(g.message());
  so.default_grammar = grammar_only.grammar;
  // The server's options in its own words (check_server_options), said as the flags.
  if (auto e = check_server_options(so)) {
    return fail("--" + flag_name(e->field) + " " + e->problem);
  }

  auto opened = open_chat_model(*args);
  if (!opened) return fail(opened.message());
  so.chat_template = args->get("--template");
  so.enable_thinking = opened->format.enable_thinking();
  SessionDefaults defaults;
  defaults.context_policy = kDefaultChatContextPolicy;
  auto session = session_options(*args, *opened->model, defaults);
  if (!session) return fail(session.message());
  so.kv_budget_bytes = session->kv_budget_bytes;  // the pool's total, not one session's
  session->kv_budget_bytes = 0;
  so.session = *session;
  // Idle sessions count in a RAM tier (least recently used dropped beyond its budget).
  auto ram_budget = ram_tier_budget(*args);
  if (!ram_budget) return fail(ram_budget.message());
  so.ram_tier = std::make_shared<KvRamTier>(*ram_budget);

  // Block the signals before the server's threads start, so that they all inherit the mask
  // and only sigwait below receives them.
  const sigset_t signals = termination_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto server = Server::start(opened->model, so);
  if (!server) return fail(server.message());
  if (!server_host_is_loopback(so.host)) {
    std::fprintf(stderr,
                 "[kvchat serve] warning: listening on %s, beyond this machine: anyone who can "
                 "reach it%s\n",
                 so.host.empty() ? "all addresses" : so.host.c_str(),
                 so.api_key.empty() ? " can use the model (no API key: --allow-no-key)"
                                    : " and has the key can use the model");
  }
  std::printf("listening on %s\nport %d\n", (*server)->url().c_str(), (*server)->port());
  std::fflush(stdout);
  std::fprintf(stderr, "[kvchat serve] model '%s', %d sessions, OpenAI base URL %s/v1%s\n",
               (*server)->stats().model_id.c_str(), so.parallel, (*server)->url().c_str(),
               so.api_key.empty() ? "" : " (key required)");
  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "[kvchat serve] %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->stop();
  return 0;
}

}  // namespace kvchat::cli
