// The tool servers of an mcp.json, started together, and their tools as the functions a
// model may call: each server's tools under OpenAI-valid names ([a-zA-Z0-9_-]{1,64}, the
// first server in the file keeps a plain name, a later one with the same name gets its
// server's name before it), only those whose input schema kvchat can turn into a grammar
// (the others are listed in notes(), not offered), and a ToolRunner that calls the right
// server. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "kvchat/mcp_client.h"
#include "kvchat/mcp_config.h"
#include "kvchat/tool_calls.h"
#include "kvchat/tool_loop.h"

namespace kvchat {

class McpToolbox {
 public:
  McpToolbox() = default;
  ~McpToolbox() { stop(); }
  McpToolbox(const McpToolbox&) = delete;
  McpToolbox& operator=(const McpToolbox&) = delete;

  // Starts every enabled server of `config` at once (each waits up to its start timeout);
  // one that fails is kept with its message. Stops what ran before.
  void start(const McpConfig& config, const McpClientOptions& options = {});
  void stop();

  struct ServerStatus {
    std::string name;
    bool enabled = true;
    McpServerState state = McpServerState::Stopped;
    std::string message;  // why it failed ("" while ready)
    std::vector<McpTool> tools;
    std::string stderr_log;
  };
  std::vector<ServerStatus> servers() const;

  // The function a model calls for one tool.
  struct Function {
    ToolDefinition definition;  // name: the function's; description: the tool's
    std::string server, tool;   // who runs it
  };
  // The functions of the ready servers among `server_names` (empty: none), in the file's
  // order; tools whose schema cannot be a grammar left out (notes()).
  std::vector<Function> functions(const std::vector<std::string>& server_names) const;
  std::vector<ToolDefinition> definitions(const std::vector<std::string>& server_names) const;
  // Tools left out and why ("everything/gzip-file-as-resource: its input schema uses ...").
  std::vector<std::string> notes() const;
  // The server and tool a function name stands for.
  std::optional<Function> find(const std::string& function) const;

  // Calls `call` on its server; timeout_ms 0 = the client's request timeout.
  Result<ToolOutput> call(const ToolCall& call, const std::function<bool()>& cancelled,
                          int timeout_ms = 0) const;
  ToolRunner runner(int timeout_ms = 0) const;

 private:
  struct Entry {
    McpServerConfig config;
    std::unique_ptr<McpClient> client;  // null: failed to start, or disabled
    std::string start_error;
  };
  std::vector<Function> all_functions(std::vector<std::string>* notes) const;
  mutable std::mutex mu_;
  std::vector<Entry> entries_;
};

// An MCP tool name as an OpenAI function name: characters outside [a-zA-Z0-9_-] become
// '_', at most 64.
std::string function_name_for(const std::string& tool_name);

}  // namespace kvchat
