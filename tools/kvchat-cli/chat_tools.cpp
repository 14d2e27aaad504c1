#include "chat_tools.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_common.h"
#include "json_field.h"

namespace kvchat::cli {

namespace {

using nlohmann::json;

std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

Result<ToolChoice> parse_choice(const std::string& text) {
  if (text.empty() || text == "auto") return ToolChoice{ToolChoiceMode::Auto, ""};
  if (text == "required") return ToolChoice{ToolChoiceMode::Required, ""};
  if (text == "none") return ToolChoice{ToolChoiceMode::None, ""};
  return ToolChoice{ToolChoiceMode::Named, text};
}

// A line of stdin (the user's answer), lower-cased first letter; "" at the end of input.
char answer_letter() {
  std::string line;
  if (!std::getline(std::cin, line)) return 0;
  const size_t at = line.find_first_not_of(" \t");
  return at == std::string::npos ? 0 : static_cast<char>(std::tolower(line[at]));
}

}  // namespace

const std::set<std::string>& ChatTools::valued_options() {
  static const std::set<std::string> s{"--mcp-config",     "--mcp-servers",
                                       "--tool-choice",    "--allow-tool",
                                       "--max-tool-calls", "--max-tool-result-tokens"};
  return s;
}
const std::set<std::string>& ChatTools::flag_options() {
  static const std::set<std::string> s{"--allow-all-tools", "--parallel-tool-calls"};
  return s;
}

ChatTools::~ChatTools() = default;

Result<std::unique_ptr<ChatTools>> ChatTools::from_args(const Args& args, bool json_out) {
  std::unique_ptr<ChatTools> t(new ChatTools());
  t->json_ = json_out;
  if (!args.has("--mcp-config")) {
    for (const char* o : {"--mcp-servers", "--tool-choice", "--allow-tool", "--allow-all-tools"})
      if (args.has(o)) return Error{std::string(o) + " needs --mcp-config FILE"};
    return t;
  }
  auto config = load_mcp_config(args.get("--mcp-config"));
  if (!config) return config.error();
  auto choice = parse_choice(args.get("--tool-choice"));
  if (!choice) return choice.error();
  t->choice_ = *choice;
  for (const std::string& name : comma_list(args.get("--allow-tool"))) t->allowed_.insert(name);
  t->allow_all_ = args.has("--allow-all-tools");
  t->parallel_ = args.has("--parallel-tool-calls");
  auto max_calls = args.get_int("--max-tool-calls", 8);
  auto max_tokens = args.get_int("--max-tool-result-tokens", 8000);
  if (!max_calls || *max_calls < 1) return Error{"--max-tool-calls must be at least 1"};
  if (!max_tokens || *max_tokens < 1) return Error{"--max-tool-result-tokens must be at least 1"};
  t->loop_.max_calls = static_cast<int>(*max_calls);
  t->loop_.max_result_tokens = static_cast<int32_t>(*max_tokens);
  for (const std::string& name : comma_list(args.get("--mcp-servers"))) {
    if (!config->find(name)) return Error{"--mcp-servers: no server '" + name + "' in the file"};
    t->offered_servers_.push_back(name);
  }
  if (!args.has("--mcp-servers")) {
    for (const McpServerConfig& s : config->servers)
      if (s.enabled) t->offered_servers_.push_back(s.name);
  }
  t->box_.start(*config);
  for (const McpToolbox::ServerStatus& s : t->box_.servers()) {
    const std::string state(mcp_server_state_name(s.state));
    t->event({{"event", "tool_server"},
              {"name", s.name},
              {"state", state},
              {"tools", s.tools.size()},
              {"message", s.message}},
             "[tool server " + s.name + ": " + state +
                 (s.message.empty() ? ", " + std::to_string(s.tools.size()) + " tools"
                                    : " — " + s.message) +
                 "]");
  }
  for (const std::string& note : t->box_.notes())
    t->event({{"event", "tool_note"}, {"message", note}}, "[tool left out: " + note + "]");
  if (t->choice_.mode == ToolChoiceMode::Named && !t->box_.find(t->choice_.name))
    return Error{"--tool-choice " + t->choice_.name + ": no offered tool has that name"};
  return t;
}

void ChatTools::event(const json& j, const std::string& text) const {
  if (json_)
    std::printf("%s\n", json_text(j).c_str());
  else
    std::fprintf(stderr, "%s\n", terminal_lines(text).c_str());
  std::fflush(json_ ? stdout : stderr);
}

void ChatTools::offer(Conversation& c) const {
  if (offered_servers_.empty()) return;
  c.set_tools({box_.definitions(offered_servers_), choice_, parallel_});
}

ToolConsent ChatTools::ask(const ToolCall& call) {
  if (allow_all_ || allowed_.count(call.name)) return ToolConsent::AllowOnce;
  event({{"event", "tool_consent"},
         {"id", call.id},
         {"name", call.name},
         {"arguments", call.arguments}},
        "Run " + call.name + " " + call.arguments + "? [y] once, [a] always, [n] no:");
  switch (answer_letter()) {
    case 'y': return ToolConsent::AllowOnce;
    case 'a': allowed_.insert(call.name); return ToolConsent::AllowAlways;
    default: return ToolConsent::Deny;
  }
}

ToolLoopCallbacks ChatTools::callbacks(const ReplyCallbacks& reply,
                                       std::function<void(const ConversationReply&)> on_reply) {
  ToolLoopCallbacks cb;
  cb.reply = reply;
  cb.on_reply = std::move(on_reply);
  cb.consent = [this](const ToolCall& call) { return ask(call); };
  cb.on_call = [this](const ToolCall& call) {
    json args = json::parse(call.arguments, nullptr, false);
    event({{"event", "tool_call"},
           {"id", call.id},
           {"name", call.name},
           {"arguments", args.is_discarded() ? json(call.arguments) : args}},
          "[tool call " + call.name + " " + call.arguments + "]");
  };
  cb.on_result = [this](const ToolRun& run) {
    event({{"event", "tool_result"},
           {"id", run.call.id},
           {"name", run.call.name},
           {"text", run.result},
           {"is_error", run.failed},
           {"denied", run.denied},
           {"tokens", run.result_tokens},
           {"original_tokens", run.original_tokens},
           {"kv_bytes", run.kv_bytes},
           {"cut", run.cut_note},
           {"seconds", run.seconds}},
          "[tool result " + run.call.name +
              (run.denied   ? " (denied)"
               : run.failed ? " (error)"
                            : "") +
              ", " + std::to_string(run.result_tokens) + " tokens" +
              (run.cut_note.empty() ? "" : ", cut: " + run.cut_note) + "]\n" + run.result);
  };
  cb.on_limit = [this](int calls) {
    event({{"event", "tool_limit"}, {"calls", calls}},
          std::to_string(calls) + " tool calls in a row. Go on? [y/n]:");
    return answer_letter() == 'y';
  };
  return cb;
}

std::string ChatTools::describe(const Conversation& c) const {
  std::string out;
  for (const McpToolbox::ServerStatus& s : box_.servers()) {
    out += s.name + ": " + std::string(mcp_server_state_name(s.state)) +
           (s.message.empty() ? "" : " — " + s.message) + "\n";
    for (const McpTool& t : s.tools) out += "  " + t.name + ": " + t.description + "\n";
  }
  const int32_t tokens = c.tool_definition_tokens();
  out += "tool definitions in the context: " + std::to_string(tokens) + " tokens (" +
         std::to_string(static_cast<uint64_t>(tokens) *
                        c.session().memory_report().kv_bytes_per_token) +
         " KV bytes)";
  return out;
}

}  // namespace kvchat::cli
