// `kvchat-cli chat`'s tools: --mcp-config FILE starts the servers of an mcp.json
// (kvchat/mcp_toolbox.h) and offers their tools to the conversation; --mcp-servers A,B
// picks which (default: every enabled one); --tool-choice auto|required|none|NAME;
// --allow-tool A,B or --allow-all-tools run those calls without asking, any other call
// is asked for on the terminal (a line of stdin: y = once, a = always, n = no); a reply
// makes one call unless --parallel-tool-calls (the loop runs calls in a row either way). Events
// with --json: tool_server, tool_note, tool_consent, tool_call, tool_result, tool_limit.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "args.h"
#include "kvchat/conversation.h"
#include "kvchat/mcp_toolbox.h"
#include "kvchat/tool_loop.h"

namespace kvchat::cli {

class ChatTools {
 public:
  // The options above; none given: no tools (active() false). Servers that fail to start
  // are reported and left out; a config that does not parse is an error.
  static Result<std::unique_ptr<ChatTools>> from_args(const Args& args, bool json_out);
  ~ChatTools();

  // Offers the tools to `c` (set_tools).
  void offer(Conversation& c) const;
  // The loop's callbacks around `reply` (the streaming) and `on_reply` (a reply's report).
  ToolLoopCallbacks callbacks(const ReplyCallbacks& reply,
                              std::function<void(const ConversationReply&)> on_reply);
  const ToolLoopOptions& loop_options() const { return loop_; }
  ToolRunner runner() const { return box_.runner(); }
  // /tools: each server, its state and tools; what the definitions take in the context.
  std::string describe(const Conversation& c) const;

  // Option names for Args::parse.
  static const std::set<std::string>& valued_options();
  static const std::set<std::string>& flag_options();

 private:
  ChatTools() = default;
  ToolConsent ask(const ToolCall& call);
  void event(const nlohmann::json& j, const std::string& text) const;
  McpToolbox box_;
  std::vector<std::string> offered_servers_;
  ToolChoice choice_;
  std::set<std::string> allowed_;
  bool allow_all_ = false;
  bool parallel_ = false;  // several calls in one reply (--parallel-tool-calls)
  bool json_ = false;
  ToolLoopOptions loop_;
};

}  // namespace kvchat::cli
