// chat: an interactive terminal chat on kvchat::Conversation, the same conversation
// logic as the app's (template, token checkpoints, prefix reuse, context policy). Each
// line read from stdin is a user message ("\n" in it is a line break) or a command:
//   /regenerate    the last reply again
//   /continue      more of the last reply (cut at -n tokens), appended to it
//   /edit N TEXT   user message N (1-based, as /messages numbers them) becomes TEXT; the
//                  messages after it are dropped and the reply written again
//   /undo          drops the last user message and its reply
//   /summarize FILE  the document FILE summarized (chunked and merged when it is longer
//                  than the context) and added as an exchange: "Summarize FILE" and the
//                  summary as the reply, so the next message can ask about it
//   /memory        the memory panel's figures (weights, KV used/allocated, the formula
//                  with this model's numbers, per layer, context, each KV type's cost)
//   /tools         the tool servers (--mcp-config), their tools, what the definitions take
//                  in the context (chat_tools.h has the tool options and events)
//   /messages      the conversation so far
//   /save FILE     the conversation (JSON: system prompt and messages) to FILE and its KV
//                  state to FILE.kvsnap; `--resume FILE` continues it (nothing re-evaluated)
//   /quit          (or end of input)
// Replies stream to stdout; a reply's reasoning (<think>...</think>, or what the template's
// generation prompt opened) streams apart, between "[thinking]" and "[/thinking]" (dimmed
// on a terminal), before the answer. With --json each event is one JSON line on stdout
// instead: the reply's "text" is its answer, "thinking" its reasoning, and each piece of
// reasoning as it streams is a {"event": "thinking", "delta": ...} line before the reply's.
// --enable-thinking on|off passes enable_thinking to the chat template (Qwen 3's switch).
// A message or command that fails leaves the conversation as it was (a message the
// template or the context refuses is not kept) and makes the exit status 1.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "chat_save.h"
#include "chat_tools.h"
#include "cli_common.h"
#include "commands.h"
#include "json_field.h"
#include "kvchat/conversation.h"
#include "util/file_io.h"

namespace kvchat::cli {

namespace {

using nlohmann::json;

class ChatLoop {
 public:
  ChatLoop(Conversation& conversation, GenerateOptions options, bool json_out, ChatTools* tools)
      : c_(conversation), options_(std::move(options)), json_(json_out), tools_(tools) {}

  // One line of input; false ends the loop.
  bool handle(const std::string& line) {
    if (line.empty()) return true;
    if (line[0] != '/') {
      reply("reply", unescape_newlines(line));
      return true;
    }
    const size_t space = line.find(' ');
    const std::string cmd = line.substr(0, space);
    const std::string arg = space == std::string::npos ? "" : line.substr(space + 1);
    if (cmd == "/quit" || cmd == "/exit") return false;
    if (cmd == "/regenerate") {
      const std::vector<ChatMessage> before = c_.messages();
      if (auto st = c_.drop_last_reply(); !st) return error(st.message());
      if (!reply("regenerate")) c_.set_messages(before);  // the old reply stays
    } else if (cmd == "/continue") {
      reply("continue");
    } else if (cmd == "/edit") {
      edit(arg);
    } else if (cmd == "/undo") {
      if (auto st = c_.undo(); !st) return error(st.message());
      event({{"event", "undo"}, {"messages", c_.messages().size()}},
            "[undone: " + std::to_string(c_.messages().size()) + " messages left]");
    } else if (cmd == "/memory") {
      const std::string text = describe_memory(c_.session());
      const MemoryReport r = c_.session().memory_report();
      event({{"event", "memory"},
             {"text", text},
             {"kv_tokens", r.kv_tokens},
             {"kv_used_bytes", r.kv_used_bytes},
             {"kv_allocated_bytes", r.kv_allocated_bytes},
             {"kv_bytes_per_token", r.kv_bytes_per_token},
             {"weights_bytes", r.weights_bytes},
             {"gpu_layers", r.gpu_layers},
             {"n_layers", r.n_layers},
             {"device_weights_bytes", r.device_weights_bytes},
             {"device_kv_bytes", r.device_kv_bytes},
             {"host_weights_bytes", r.host_weights_bytes},
             {"host_kv_bytes", r.host_kv_bytes},
             {"n_past", c_.session().n_past()},
             {"n_ctx", c_.session().n_ctx()},
             {"tool_definition_tokens", c_.tool_definition_tokens()}},
            text);
    } else if (cmd == "/tools") {
      if (!tools_) return error("no tools: start with --mcp-config FILE");
      const std::string text = tools_->describe(c_);
      event(
          {{"event", "tools"}, {"text", text}, {"definition_tokens", c_.tool_definition_tokens()}},
          text);
    } else if (cmd == "/summarize") {
      summarize(arg);
    } else if (cmd == "/messages") {
      list_messages();
    } else if (cmd == "/save") {
      save(arg);
    } else if (cmd == "/help") {
      event({{"event", "help"}},
            "/regenerate  /continue  /edit N TEXT  /undo  /summarize FILE  /memory  /tools  "
            "/messages  /save FILE  /quit");
    } else {
      return error("unknown command " + cmd + " (/help lists them)");
    }
    return true;
  }

  // Number of messages and commands that failed (the exit status says whether any did).
  int failures() const { return failures_; }

 private:
  // The reply to `user_text` (a new user message, kept only when it is answered), or with
  // none the reply to the conversation as it is. False when it failed.
  bool reply(const char* kind, std::optional<std::string> user_text = std::nullopt) {
    TextCallback stream, thinking;
    bool in_thinking = false;  // plain mode: the reasoning's header printed, not yet closed
    if (json_) {
      thinking = [](std::string_view piece) {
        std::printf("%s\n",
                    json_text({{"event", "thinking"}, {"delta", std::string(piece)}}).c_str());
        std::fflush(stdout);
        return true;
      };
    } else {
      const bool dim = isatty(1);
      stream = [&in_thinking, dim](std::string_view piece) {
        if (in_thinking) {
          std::fputs(dim ? "\x1b[0m\n[/thinking]\n" : "\n[/thinking]\n", stdout);
          in_thinking = false;
        }
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
        return true;
      };
      thinking = [&in_thinking, dim](std::string_view piece) {
        if (!in_thinking) {
          std::fputs(dim ? "[thinking]\n\x1b[2m" : "[thinking]\n", stdout);
          in_thinking = true;
        }
        std::fwrite(piece.data(), 1, piece.size(), stdout);
        std::fflush(stdout);
        return true;
      };
    }
    const ReplyCallbacks callbacks{
        .on_prompt = {}, .on_text = stream, .cancelled = {}, .on_thinking = thinking};
    if (tools_ && c_.tools().active() && std::string_view(kind) != "continue")
      return reply_with_tools(kind, std::move(user_text), callbacks, in_thinking);
    auto r = user_text ? c_.reply_to(std::move(*user_text), options_, callbacks)
             : std::string_view(kind) == "continue" ? c_.continue_reply(options_, callbacks)
                                                    : c_.reply(options_, callbacks);
    if (!r) {
      error(r.message());
      return false;
    }
    report(kind, *r, in_thinking);
    return true;
  }

  // The reply and the tool calls it leads to (kvchat/tool_loop.h): each reply reported as
  // it ends, each call and result as an event between them.
  bool reply_with_tools(const char* kind, std::optional<std::string> user_text,
                        const ReplyCallbacks& callbacks, bool& in_thinking) {
    const std::vector<ChatMessage> before = c_.messages();
    if (user_text) c_.add_user(std::move(*user_text));
    auto r =
        kvchat::reply_with_tools(c_, options_, tools_->loop_options(), tools_->runner(),
                                 tools_->callbacks(callbacks, [&](const ConversationReply& each) {
                                   report(kind, each, in_thinking);
                                   in_thinking = false;
                                 }));
    if (!r) {
      if (c_.messages().size() == before.size() + (user_text ? 1 : 0)) c_.set_messages(before);
      error(r.message());
      return false;
    }
    return true;
  }

  // A reply's event (--json) or its text's end and the stats line.
  void report(const char* kind, const ConversationReply& r, bool in_thinking) {
    const PromptStats& p = r.prompt;
    const GenerateStats& g = r.generated.stats;
    const ReasoningStats& rs = r.reasoning;
    if (json_) {
      json ev = {{"event", kind},
                 {"text", rs.answer},
                 {"thinking", rs.thinking},
                 {"thinking_tokens", rs.thinking_tokens},
                 {"thinking_seconds", rs.thinking_seconds},
                 {"thinking_kv_bytes", rs.thinking_kv_bytes},
                 {"thinking_closed", rs.closed},
                 {"ids", r.generated.ids},
                 {"stop_reason", stop_reason_name(r.generated.stop_reason)},
                 {"prompt_tokens", p.prompt_tokens},
                 {"evaluated_tokens", p.evaluated_tokens},
                 {"reused_tokens", p.reused_tokens},
                 {"released_tokens", p.released_tokens},
                 {"released_kv_bytes", p.released_kv_bytes},
                 {"kept_tokens", p.kept_tokens},
                 {"generated_tokens", g.generated_tokens},
                 {"n_past", c_.session().n_past()},
                 {"messages", c_.messages().size()}};
      // The sampled text with its markers, as messages() keeps it, when it differs.
      if (rs.opened) ev["raw_text"] = r.generated.text;
      if (c_.tools().active()) {
        ev["text"] = r.answer_text;
        json calls = json::array();
        for (const ToolCall& call : r.tool_calls)
          calls.push_back({{"id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
        ev["tool_calls"] = std::move(calls);
      }
      std::printf("%s\n", json_text(ev).c_str());
      std::fflush(stdout);
    } else {
      if (in_thinking) std::fputs(isatty(1) ? "\x1b[0m\n[/thinking]" : "\n[/thinking]", stdout);
      std::printf("\n");
      std::fflush(stdout);
      std::string thought;
      if (rs.opened) {
        char buf[160];
        std::snprintf(buf, sizeof buf, " | thinking: %d tokens, %.1f s, %llu KV bytes%s",
                      rs.thinking_tokens, rs.thinking_seconds,
                      static_cast<unsigned long long>(rs.thinking_kv_bytes),
                      rs.closed ? "" : " (not closed)");
        thought = buf;
      }
      std::string released;
      if (p.released_tokens > 0) {
        released = ", " + std::to_string(p.released_tokens) + " released (" +
                   std::to_string(p.released_kv_bytes) + " KV bytes)";
      }
      std::fprintf(stderr,
                   "[%d prompt tokens: %d evaluated, %d reused from the cache%s | %d generated, "
                   "%.1f tok/s%s | %d of %d tokens in context | stop: %s]\n",
                   p.prompt_tokens, p.evaluated_tokens, p.reused_tokens, released.c_str(),
                   g.generated_tokens, g.decode_tokens_per_second(), thought.c_str(),
                   c_.session().n_past(), c_.session().n_ctx(),
                   std::string(stop_reason_name(r.generated.stop_reason)).c_str());
    }
  }

  void edit(const std::string& arg) {
    const size_t space = arg.find(' ');
    size_t n = 0;
    try {
      n = std::stoul(arg.substr(0, space));
    } catch (...) {
      error("usage: /edit N TEXT (N as /messages numbers them)");
      return;
    }
    if (n == 0 || space == std::string::npos) {
      error("usage: /edit N TEXT (N as /messages numbers them)");
      return;
    }
    const std::vector<ChatMessage> before = c_.messages();
    if (auto st = c_.edit(n - 1, unescape_newlines(arg.substr(space + 1))); !st) {
      error(st.message());
      return;
    }
    if (!reply("edit")) c_.set_messages(before);  // a refused edit changes nothing
  }

  void summarize(const std::string& path) {
    if (path.empty()) {
      error("usage: /summarize FILE");
      return;
    }
    auto reader = DocumentReader::open(path);
    if (!reader) {
      error(reader.message());
      return;
    }
    SummarizeCallbacks callbacks;
    if (!json_) {
      callbacks.on_progress = [](const SummaryProgress& p) {
        std::fprintf(stderr, "[summarizing: %s, %d of %d summaries]\n", p.stage.c_str(),
                     p.steps_done, p.steps_total);
      };
    }
    quiet_warnings(c_.session());  // every step fills the context up to the margin, by design
    auto r = c_.summarize_document(**reader,
                                   "Summarize " + std::filesystem::path(path).filename().string(),
                                   SummarizeOptions{}, {}, callbacks);
    print_events(c_.session());
    if (!r) {
      error(r.message());
      return;
    }
    event({{"event", "summary"},
           {"text", r->summary},
           {"chunks", r->plan.n_chunks},
           {"levels", r->plan.n_levels},
           {"tokens_evaluated", r->tokens_evaluated},
           {"peak_kv_bytes", r->peak_kv_bytes},
           {"messages", c_.messages().size()}},
          r->summary);
  }

  void list_messages() {
    json list = json::array();
    std::string text;
    for (size_t i = 0; i < c_.messages().size(); ++i) {
      const ChatMessage& m = c_.messages()[i];
      list.push_back({{"role", m.role}, {"content", m.content}});
      text += std::to_string(i + 1) + " " + m.role + ": " + m.content + "\n";
    }
    event({{"event", "messages"}, {"messages", list}}, text);
  }

  void save(const std::string& path) {
    if (path.empty()) {
      error("usage: /save FILE");
      return;
    }
    // Written whole beside the file and renamed over it: a failed save keeps the previous
    // one, and a FIFO or device at `path` is replaced, never opened (it would block).
    const std::string text = chat_save_json({c_.system_prompt(), c_.messages()}) + "\n";
    const auto* bytes = reinterpret_cast<const uint8_t*>(text.data());
    if (auto st = file_io::write_file_atomically(path, {bytes, text.size()}); !st) {
      error("cannot save the conversation: " + st.message());
      return;
    }
    if (c_.session().n_past() > 0) {
      if (auto st = c_.save_snapshot(path + ".kvsnap"); !st) {
        error("the conversation is saved, its KV state is not: " + st.message());
        return;
      }
    }
    event({{"event", "saved"},
           {"path", path},
           {"messages", c_.messages().size()},
           {"kv_tokens", c_.session().n_past()}},
          "[saved " + std::to_string(c_.messages().size()) + " messages to " + path + "]");
  }

  void event(const json& j, const std::string& text) {
    if (json_) {
      std::printf("%s\n", json_text(j).c_str());
    } else {
      std::printf("%s%s", text.c_str(), !text.empty() && text.back() == '\n' ? "" : "\n");
    }
    std::fflush(stdout);
  }

  bool error(const std::string& message) {
    ++failures_;
    if (json_) {
      std::printf("%s\n", json_text({{"event", "error"}, {"message", message}}).c_str());
      std::fflush(stdout);
    }
    std::fprintf(stderr, "kvchat-cli: %s\n", terminal_lines(message).c_str());
    return true;  // the chat goes on
  }

  Conversation& c_;
  GenerateOptions options_;
  bool json_;
  ChatTools* tools_;  // null: no --mcp-config
  int failures_ = 0;
};

// --resume FILE: the messages saved by /save, and the KV state beside them. A file that
// is not such a save (a field of the wrong type, not JSON, too large) is refused with
// the field named.
Status resume(Conversation& c, const std::string& path) {
  // stat() first: a FIFO or a directory is refused without blocking in open().
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (!ec && type != std::filesystem::file_type::regular) {
    return Error{path + ": not a regular file (a conversation saved by /save is one)"};
  }
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxChatSaveBytes) {
    return Error{path + ": " + std::to_string(size) +
                 " bytes, more than a conversation save may hold (" +
                 std::to_string(kMaxChatSaveBytes) + ")"};
  }
  auto text = read_file(path);
  if (!text) return text.error();
  auto save = parse_chat_save(*text);
  if (!save) return Error{path + ": not a conversation saved by /save: " + save.message()};
  c.set_system_prompt(std::move(save->system));
  c.set_messages(std::move(save->messages));
  if (auto st = c.restore_snapshot(path + ".kvsnap"); !st) {
    std::fprintf(stderr, "[kvchat snapshot] not restored (%s): the conversation is re-evaluated\n",
                 terminal_lines(st.message()).c_str());
  } else {
    std::fprintf(stderr, "[kvchat snapshot] %d tokens restored from %s.kvsnap\n",
                 c.session().n_past(), path.c_str());
  }
  return {};
}

}  // namespace

int cmd_chat(const Argv& argv) {
  if (std::find(argv.begin(), argv.end(), "--remote") != argv.end()) return cmd_chat_remote(argv);
  std::set<std::string> valued = with(with(kSessionOptions, kSamplingOptions),
                                      {"--system", "--template", "--resume", "--enable-thinking"});
  valued.insert(ChatTools::valued_options().begin(), ChatTools::valued_options().end());
  std::set<std::string> flags{"--json", "--json-object"};
  flags.insert(ChatTools::flag_options().begin(), ChatTools::flag_options().end());
  auto args = Args::parse(argv, valued, flags);
  if (!args) return fail(args.message());
  GenerateOptions go;
  if (auto st = read_sampling_options(*args, go); !st) return fail(st.message());
  if (!args->has("-n")) go.max_tokens = 256;

  auto opened = open_chat_model(*args);
  if (!opened) return fail(opened.message());
  go.stop_strings = opened->format.stop_strings();
  SessionDefaults defaults;
  defaults.context_policy = kDefaultChatContextPolicy;
  auto session = make_session(*args, opened->model, defaults);
  if (!session) return fail(session.message());
  Conversation conversation(std::move(session).value(), std::move(opened->format));
  conversation.set_system_prompt(unescape_newlines(args->get("--system")));
  if (args->has("--resume")) {
    if (auto st = resume(conversation, args->get("--resume")); !st) return fail(st.message());
  }
  const bool interactive = isatty(0);
  if (interactive) {
    std::fprintf(stderr, "[kvchat chat] %s. /help lists the commands.\n",
                 terminal_lines(conversation.format().description()).c_str());
  }
  auto tools = ChatTools::from_args(*args, args->has("--json"));
  if (!tools) return fail(tools.message());
  (*tools)->offer(conversation);
  ChatLoop loop(conversation, go, args->has("--json"), tools->get());
  read_chat_lines([&loop](const std::string& line) { return loop.handle(line); });
  return loop.failures() > 0 ? 1 : 0;
}

}  // namespace kvchat::cli
