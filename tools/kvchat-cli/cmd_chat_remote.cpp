// chat --remote URL --model NAME [--api-key-file F] [--shape-from GGUF]: the terminal chat
// with a model served elsewhere through the OpenAI API (kvchat/remote_client.h). The same
// lines and commands as the local chat where they can work remotely — a user message,
// /regenerate, /continue, /edit N TEXT, /undo, /messages, /memory, /quit — and --json
// events of the same names. /memory prints what the remote engine publishes of its memory
// (kvchat/remote_memory.h) and this conversation's tokens; with --shape-from, the KV they
// take by the formula on that GGUF's shape, labelled an estimate. What needs the weights
// here (/summarize, /save's KV snapshot, tools) is refused by name.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/gguf_inspect.h"
#include "kvchat/remote_client.h"

namespace kvchat::cli {

namespace {

using nlohmann::json;

class RemoteChatLoop {
 public:
  RemoteChatLoop(RemoteClient& client, RemoteChatRequest base, std::string system, bool json_out,
                 RemoteModelShape shape)
      : client_(client),
        base_(std::move(base)),
        system_(std::move(system)),
        json_(json_out),
        shape_(shape) {}

  bool handle(const std::string& line) {
    if (line.empty()) return true;
    if (line[0] != '/') {
      messages_.push_back({"user", unescape_newlines(line)});
      if (!reply("reply", false)) messages_.pop_back();
      return true;
    }
    const size_t space = line.find(' ');
    const std::string cmd = line.substr(0, space);
    const std::string arg = space == std::string::npos ? "" : line.substr(space + 1);
    if (cmd == "/quit" || cmd == "/exit") return false;
    if (cmd == "/regenerate") {
      regenerate();
    } else if (cmd == "/continue") {
      continue_reply();
    } else if (cmd == "/edit") {
      edit(arg);
    } else if (cmd == "/undo") {
      undo();
    } else if (cmd == "/memory") {
      memory();
    } else if (cmd == "/messages") {
      list_messages();
    } else if (cmd == "/summarize" || cmd == "/save" || cmd == "/tools") {
      error(cmd + " needs the model's weights on this machine; a remote model has none here");
    } else if (cmd == "/help") {
      event({{"event", "help"}},
            "/regenerate  /continue  /edit N TEXT  /undo  /memory  /messages  /quit");
    } else {
      error("unknown command " + cmd + " (/help lists them)");
    }
    return true;
  }

  int failures() const { return failures_; }

 private:
  // Streams a reply to messages_; appends it (or, continuing, adds it to the last one).
  bool reply(const char* kind, bool continuing) {
    RemoteChatRequest r = base_;
    r.messages = remote_messages(system_, messages_);
    r.continue_final = continuing;
    bool in_thinking = false;
    const bool dim = isatty(1);
    RemoteStreamCallbacks cb;
    cb.on_thinking = [&](std::string_view piece) {
      if (json_) return event_line({{"event", "thinking"}, {"delta", piece}});
      if (!in_thinking) std::fputs(dim ? "[thinking]\n\x1b[2m" : "[thinking]\n", stdout);
      in_thinking = true;
      return print(piece);
    };
    cb.on_text = [&](std::string_view piece) {
      if (json_) return true;
      if (in_thinking) std::fputs(dim ? "\x1b[0m\n[/thinking]\n" : "\n[/thinking]\n", stdout);
      in_thinking = false;
      return print(piece);
    };
    auto got = client_.chat(r, cb);
    if (in_thinking) std::fputs(dim ? "\x1b[0m\n[/thinking]" : "\n[/thinking]", stdout);
    if (!got) {
      if (!json_) std::printf("\n");
      return !error(got.message());
    }
    if (continuing) {
      RemoteReply whole = *got;
      const ReasoningParts before = split_reasoning(messages_.back().content);
      whole.reasoning = before.thinking + got->reasoning;
      whole.answer = before.answer + got->answer;
      whole.reasoning_closed = !whole.reasoning.empty();
      messages_.back().content = stored_reply_text(whole);
    } else {
      messages_.push_back({"assistant", stored_reply_text(*got)});
    }
    if (got->prompt_tokens >= 0 && got->completion_tokens >= 0)
      tokens_ = got->prompt_tokens + got->completion_tokens;
    report(kind, *got);
    return true;
  }

  void report(const char* kind, const RemoteReply& g) {
    if (json_) {
      event_line({{"event", kind},
                  {"text", g.answer},
                  {"thinking", g.reasoning},
                  {"finish_reason", g.finish_reason},
                  {"model", g.model},
                  {"prompt_tokens", g.prompt_tokens},
                  {"completion_tokens", g.completion_tokens},
                  {"cached_tokens", g.cached_tokens},
                  {"ttft_ms", g.first_byte_seconds * 1000},
                  {"seconds", g.seconds},
                  {"attempts", g.attempts},
                  {"messages", messages_.size()}});
      return;
    }
    std::printf("\n");
    std::fflush(stdout);
    const double decode = g.seconds - g.first_byte_seconds;
    std::fprintf(stderr,
                 "[remote %s: %lld prompt tokens (%lld cached), %lld generated, %.1f tok/s, "
                 "first text after %.0f ms, %s]\n",
                 g.model.c_str(), static_cast<long long>(g.prompt_tokens),
                 static_cast<long long>(g.cached_tokens),
                 static_cast<long long>(g.completion_tokens),
                 decode > 0 && g.completion_tokens > 0 ? g.completion_tokens / decode : 0.0,
                 g.first_byte_seconds * 1000, g.finish_reason.c_str());
  }

  void regenerate() {
    if (messages_.empty() || messages_.back().role != "assistant")
      return void(error("/regenerate: there is no reply to write again"));
    ChatMessage last = messages_.back();
    messages_.pop_back();
    if (!reply("regenerate", false)) messages_.push_back(std::move(last));
  }

  void continue_reply() {
    if (messages_.empty() || messages_.back().role != "assistant")
      return void(error("/continue: there is no reply to continue"));
    reply("continue", true);
  }

  void edit(const std::string& arg) {
    const size_t space = arg.find(' ');
    size_t n = 0;
    if (space != std::string::npos) n = std::strtoul(arg.substr(0, space).c_str(), nullptr, 10);
    if (n == 0 || n > messages_.size() || messages_[n - 1].role != "user")
      return void(error("usage: /edit N TEXT, N a user message's number as /messages shows"));
    const auto before = messages_;
    messages_.resize(n);
    messages_.back().content = unescape_newlines(arg.substr(space + 1));
    if (!reply("reply", false)) messages_ = before;
  }

  void undo() {
    while (!messages_.empty() && messages_.back().role != "user") messages_.pop_back();
    if (messages_.empty()) return void(error("/undo: there is no message to take back"));
    messages_.pop_back();
    event({{"event", "undone"}, {"messages", messages_.size()}},
          "[" + std::to_string(messages_.size()) + " messages]");
  }

  void memory() {
    const RemoteMemory m = client_.memory(base_.model);
    json j = json::parse(remote_memory_json(m));
    j["event"] = "memory";
    j["remote"] = true;
    j["conversation_tokens"] = tokens_;
    if (shape_.known() && tokens_ >= 0) j["estimate_kv_bytes"] = shape_.kv_bytes(tokens_);
    j["text"] = describe_remote_memory(m, tokens_, shape_);  // with this conversation's share
    event(j, j["text"].get<std::string>());
  }

  void list_messages() {
    json list = json::array();
    std::string text;
    for (size_t i = 0; i < messages_.size(); ++i) {
      list.push_back({{"role", messages_[i].role}, {"content", messages_[i].content}});
      text += std::to_string(i + 1) + " " + messages_[i].role + ": " + messages_[i].content + "\n";
    }
    event({{"event", "messages"}, {"messages", list}}, text);
  }

  static bool print(std::string_view piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
    return true;
  }
  static bool event_line(const json& j) {
    std::printf("%s\n", json_text(j).c_str());
    std::fflush(stdout);
    return true;
  }
  void event(const json& j, const std::string& text) {
    if (json_) return void(event_line(j));
    std::printf("%s%s", text.c_str(), !text.empty() && text.back() == '\n' ? "" : "\n");
    std::fflush(stdout);
  }
  bool error(const std::string& message) {
    ++failures_;
    if (json_) event_line({{"event", "error"}, {"message", message}});
    std::fprintf(stderr, "kvchat-cli: %s\n", terminal_lines(message).c_str());
    return true;
  }

  RemoteClient& client_;
  RemoteChatRequest base_;
  std::string system_;
  bool json_;
  RemoteModelShape shape_;
  std::vector<ChatMessage> messages_;  // an assistant's with its reasoning in <think>
  int64_t tokens_ = -1;                // the conversation's, by the last reply's usage
  int failures_ = 0;
};

// --shape-from GGUF: the model's shape for the KV estimate.
Result<RemoteModelShape> shape_from(const std::string& path) {
  auto g = inspect_gguf_file(path);
  if (!g) return Error{"--shape-from: " + g.message()};
  if (!g->shape_known) return Error{"--shape-from: " + path + " does not say its model's shape"};
  return RemoteModelShape{g->n_layers, g->n_kv_heads, g->head_dim};
}

// The model asked for, checked against the endpoint's list (a list it does not give is
// not a refusal: some servers have none).
Status check_model(RemoteClient& client, const std::string& model) {
  auto models = client.list_models();
  if (!models) {
    std::fprintf(stderr, "[kvchat chat] the model list: %s\n",
                 terminal_lines(models.message()).c_str());
    return Status::Ok();
  }
  std::string names;
  for (const RemoteModel& m : *models) {
    if (m.id == model) {
      std::fprintf(stderr, "[kvchat chat] remote model %s at %s%s. /help lists the commands.\n",
                   model.c_str(), client.origin().c_str(),
                   m.context_length ? (", context " + grouped(m.context_length)).c_str() : "");
      return Status::Ok();
    }
    names += (names.empty() ? "" : ", ") + m.id;
  }
  return Error{"the endpoint does not serve '" + model + "'" +
               (names.empty() ? std::string(" (it lists no model)") : "; it serves: " + names)};
}

}  // namespace

int cmd_chat_remote(const Argv& argv) {
  // The sampling options OpenAI's API has (top-k, min-p and the repetition penalty are the
  // server's; a grammar is not sent).
  const std::set<std::string> valued = {"--remote", "--model",      "--api-key-file",
                                        "--system", "--shape-from", "-n",
                                        "--temp",   "--seed",       "--top-p"};
  auto args = Args::parse(argv, valued, {"--json"});
  if (!args) return fail(args.message());
  auto model = args->require("--model");
  if (!model) return fail(model.message() + " (the remote model's name, as /v1/models lists it)");
  GenerateOptions go;
  if (auto st = read_sampling_options(*args, go); !st) return fail(st.message());
  RemoteEndpoint endpoint{args->get("--remote"), {}};
  if (args->has("--api-key-file")) {
    auto key = read_key_file(args->get("--api-key-file"));
    if (!key) return fail(key.message());
    endpoint.api_key = std::move(*key);
  }
  RemoteModelShape shape;
  if (args->has("--shape-from")) {
    auto s = shape_from(args->get("--shape-from"));
    if (!s) return fail(s.message());
    shape = *s;
  }
  auto client = RemoteClient::open(endpoint);
  if (!client) return fail(client.message());
  if ((*client)->key_in_clear())
    std::fprintf(stderr, "[kvchat chat] warning: the API key goes unencrypted (http://) to %s\n",
                 (*client)->origin().c_str());
  if (auto st = check_model(**client, *model); !st) return fail(st.message());
  RemoteChatRequest base;
  base.model = *model;
  base.sampling = go.sampling;
  base.max_tokens = args->has("-n") ? go.max_tokens : 256;
  RemoteChatLoop loop(**client, std::move(base), unescape_newlines(args->get("--system")),
                      args->has("--json"), shape);
  read_chat_lines([&loop](const std::string& line) { return loop.handle(line); });
  return loop.failures() > 0 ? 1 : 0;
}

}  // namespace kvchat::cli
