#include "cli_common.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sys/stat.h>
#include <sstream>

#include "kv/kv_type.h"
#include "kvchat/kv_ram_tier.h"
#include "util/file_io.h"
#include "util/printable.h"

namespace kvchat::cli {

std::set<std::string> with(std::set<std::string> a, const std::set<std::string>& b) {
  a.insert(b.begin(), b.end());
  return a;
}

Result<std::string> model_path(const Args& args) {
  std::string path = args.get("--model");
  if (!path.empty()) return path;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) path = kvchat::demo_model_path(exe.string());
  if (path.empty()) {
    return Error{"missing required option --model (and no demo model installed beside kvchat-cli)"};
  }
  std::fprintf(stderr, "kvchat-cli: no --model: using the demo model %s\n", path.c_str());
  return path;
}

namespace {

void print_tokenizer_warning(const Model& model) {
  if (const std::string_view w = model.tokenizer().warning(); !w.empty()) {
    std::fprintf(stderr, "warning: %s\n", terminal_lines(w).c_str());
  }
}

}  // namespace

Result<std::shared_ptr<const Model>> load_model(const Args& args) {
  auto path = model_path(args);
  if (!path) return path.error();
  auto model = Model::load(*path);
  if (model) print_tokenizer_warning(**model);
  return model;
}

Result<ChatModel> open_chat_model(const Args& args) {
  auto path = model_path(args);
  if (!path) return path.error();
  auto thinking = parse_thinking_switch(args.get("--enable-thinking"));
  if (!thinking) return Error{"--enable-thinking " + thinking.message()};
  auto ctx = args.get_int("--ctx", 0);
  if (!ctx) return ctx.error();
  ChatModelOptions o;
  o.path = *path;
  o.chat_template = args.get("--template");
  o.enable_thinking = *thinking;
  o.kv_type = args.get("--kv-type", o.kv_type);
  o.n_ctx = *ctx;
  o.prefetch = false;  // the pages come in as the first prompt uses them
  auto opened = kvchat::open_chat_model(o, print_tokenizer_warning);
  if (!opened) return opened.error();
  // The user named this template: one that does not work is an error, not a fallback.
  if (!opened->format_error.empty()) return Error{opened->format_error};
  for (const SettingProblem& w : opened->warnings) {
    std::fprintf(stderr, "warning: --%s %s\n", w.error.field.c_str(), w.error.problem.c_str());
  }
  return opened;
}

Result<int32_t> parse_gpu_layers(const std::string& text) {
  if (text == "auto") return -1;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || errno || *end || v < 0 || v > (1 << 20) ||
      !std::isdigit(static_cast<unsigned char>(text[0]))) {
    return Error{"--gpu-layers takes a number of layers (0 or more) or auto, got '" +
                 printable(text) + "'"};
  }
  return static_cast<int32_t>(v);
}

Result<uint64_t> parse_byte_size(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) return Error{"\"" + std::string(text) + "\" is not a byte count"};
  uint64_t n = std::stoull(std::string(text.substr(0, digits)));
  std::string unit(text.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.ends_with("IB")) unit.resize(unit.size() - 2);
  if (unit.ends_with("B") && unit.size() == 2) unit.resize(1);
  const int shift = unit.empty() || unit == "B" ? 0
                    : unit == "K"               ? 10
                    : unit == "M"               ? 20
                    : unit == "G"               ? 30
                                                : -1;
  if (shift < 0) {
    return Error{"\"" + std::string(text) + "\" is not a byte count (digits, then K, M or G)"};
  }
  return n << shift;
}

Result<uint64_t> ram_tier_budget(const Args& args) {
  if (!args.has("--kv-ram-budget")) return KvRamTier::default_budget_bytes();
  auto b = parse_byte_size(args.get("--kv-ram-budget"));
  if (!b) return Error{"--kv-ram-budget: " + b.message()};
  return *b;
}

Result<SessionOptions> session_options(const Args& args, const Model& model,
                                       const SessionDefaults& defaults) {
  SessionOptions so;
  so.backend = args.get("--backend", "cpu");
  auto kv_type = kv_type_option(args, defaults.kv_type);
  if (!kv_type) return kv_type.error();
  so.kv_type = *kv_type;
  so.no_kv_cache = defaults.no_kv_cache || args.has("--no-kv-cache");
  auto threads = args.get_int("--threads", 0);
  if (!threads) return threads.error();
  auto ctx = args.get_int("--ctx", 0);
  if (!ctx) return ctx.error();
  if (*ctx < 0 || *ctx > (1 << 24)) return Error{"--ctx must be between 1 and 16777216"};
  auto block = args.get_int("--kv-block", so.kv_block_tokens);
  if (!block) return block.error();
  auto budget = args.get_int("--kv-budget-bytes", 0);
  if (!budget) return budget.error();
  if (*budget < 0) return Error{"--kv-budget-bytes must be >= 0"};
  auto gpu_layers = parse_gpu_layers(args.get("--gpu-layers", "auto"));
  if (!gpu_layers) return gpu_layers.error();
  so.gpu_layers = *gpu_layers;
  auto policy = args.has("--context-policy") ? parse_context_policy(args.get("--context-policy"))
                                             : Result<ContextPolicy>(defaults.context_policy);
  if (!policy) return policy.error();
  auto sinks = args.get_int("--sink-tokens", so.sink_tokens);
  if (!sinks) return sinks.error();
  if (*sinks < 0 || *sinks > (1 << 24))
    return Error{"--sink-tokens must be between 0 and 16777216"};
  so.sink_tokens = static_cast<int32_t>(*sinks);
  so.n_threads = static_cast<int32_t>(*threads);
  so.n_ctx = static_cast<int32_t>(*ctx);
  if (so.n_ctx == 0 && defaults.n_ctx > model.info().n_ctx_train) so.n_ctx = defaults.n_ctx;
  so.kv_block_tokens = static_cast<int32_t>(*block);
  so.kv_budget_bytes = static_cast<uint64_t>(*budget);
  so.context_policy = *policy;
  return so;
}

Result<std::string> kv_type_option(const Args& args, const std::string& fallback) {
  const std::string both = args.get("--kv-type", fallback);
  auto base = parse_kv_types(both);
  if (!base) {
    return Error{"unknown KV type '" + both + "' for --kv-type (" + kv_type_choices() + ")"};
  }
  auto [k, v] = *base;
  for (const char* flag : {"--kv-type-k", "--kv-type-v"}) {
    if (!args.has(flag)) continue;
    auto t = parse_kv_type(args.get(flag));
    if (!t)
      return Error{"unknown KV type '" + args.get(flag) + "' for " + flag + " (" + kv_type_list() +
                   ")"};
    (std::string(flag) == "--kv-type-k" ? k : v) = *t;
  }
  return kv_types_name(k, v);
}

Result<std::unique_ptr<Session>> make_session(const Args& args, std::shared_ptr<const Model> model,
                                              const SessionDefaults& defaults) {
  auto so = session_options(args, *model, defaults);
  if (!so) return so.error();
  auto session = Session::create(std::move(model), *so);
  if (!session) return session.error();
  if (!(*session)->backend_note().empty()) {
    std::fprintf(stderr, "[kvchat backend] %s\n", (*session)->backend_note().c_str());
  }
  print_events(**session);
  return session;
}

void print_events(Session& session) {
  session.set_event_handler([](const SessionEvent& e) {
    std::fprintf(stderr, "[kvchat %s] %s\n", std::string(session_event_name(e.kind)).c_str(),
                 e.message.c_str());
  });
}

void quiet_warnings(Session& session) {
  session.set_event_handler([](const SessionEvent& e) {
    if (e.kind == SessionEvent::Kind::ContextWarning) return;
    std::fprintf(stderr, "[kvchat %s] %s\n", std::string(session_event_name(e.kind)).c_str(),
                 e.message.c_str());
  });
}

Result<std::vector<TokenId>> parse_ids(const std::string& text, int32_t n_vocab) {
  std::vector<TokenId> ids;
  std::string s = text;
  for (char& c : s) {
    if (c == ',') c = ' ';
  }
  std::istringstream in(s);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    errno = 0;
    long v = std::strtol(word.c_str(), &end, 10);
    if (errno || *end) return Error{"'" + word + "' is not a token id"};
    if (v < 0 || v >= n_vocab) {
      return Error{"token id " + word + " is outside the vocabulary [0, " +
                   std::to_string(n_vocab) + ")"};
    }
    ids.push_back(static_cast<TokenId>(v));
  }
  return ids;
}

Result<std::string> read_file(const std::string& path) {
  auto opened = file_io::open_regular_file(path);  // a FIFO would block, /dev/zero never end
  if (!opened) return Error{path + ": " + opened.message()};
  const int fd = opened->fd;
  std::string out;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      return Error{path + ": read error: " + why};
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

namespace {

// Whether printable() would leave `line` as it is but for its backslashes: a line quoted
// through printable() where it was made is not escaped twice ("\e" does not become "\\e").
bool already_printable(std::string_view line) {
  std::string doubled;
  for (char c : line) doubled += c == '\\' ? std::string_view("\\\\") : std::string_view(&c, 1);
  return printable(line, doubled.size()) == doubled;
}

}  // namespace

std::string terminal_lines(std::string_view message) {
  std::string out;
  for (size_t at = 0;;) {
    const size_t end = message.find('\n', at);
    const std::string_view line =
        message.substr(at, end == std::string_view::npos ? end : end - at);
    out += line.size() <= kTerminalLineBytes && already_printable(line)
               ? std::string(line)
               : printable(line, kTerminalLineBytes);
    if (end == std::string_view::npos) break;
    out += '\n';
    at = end + 1;
  }
  return out;
}

// 1048576000 -> "1,048,576,000"
std::string grouped(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

Result<std::string> read_key_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"--api-key-file: cannot read '" + path + "'"};
  std::string line;
  std::getline(in, line);
  if (in.bad()) return Error{"--api-key-file: cannot read '" + path + "'"};
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.pop_back();
  if (line.empty())
    return Error{"--api-key-file: '" + path + "' is empty (its first line is the key)"};
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    std::fprintf(stderr, "[kvchat] warning: %s can be read by other users (chmod 600 it)\n",
                 path.c_str());
  }
  return line;
}

void read_chat_lines(const std::function<bool(const std::string&)>& handle) {
  const bool interactive = isatty(0);
  std::string line;
  while (true) {
    if (interactive) std::fputs("> ", stderr);
    if (!std::getline(std::cin, line) || !handle(line)) return;
  }
}

std::string unescape_newlines(const std::string& line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
      out += '\n';
      ++i;
    } else {
      out += line[i];
    }
  }
  return out;
}

}  // namespace kvchat::cli
