// A Model Context Protocol client for one tool server: JSON-RPC 2.0 over the server's
// stdin/stdout (one message per line), or Streamable HTTP to a loopback URL (a "url"
// server: engine/src/mcp/http_transport.h). It starts the
// server, negotiates the protocol version (initialize, then notifications/initialized),
// lists its tools (tools/list, every page), calls them (tools/call) with a timeout and
// cancellation (notifications/cancelled), answers the server's ping, follows
// notifications/tools/list_changed, keeps the last of its stderr, and stops it cleanly.
//
// Every limit is a message, not a hang or a crash: a server that exits, stops answering,
// floods its output, writes what is not JSON-RPC, sends a message over max_message_bytes
// or lists more than max_tools tools costs an Error naming it, and the client (and the
// app) go on. Thread-safe: calls may come from any thread; one reader thread per server.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kvchat/mcp_config.h"
#include "kvchat/result.h"

namespace kvchat {

// The protocol versions this client speaks, newest first; initialize asks for the first.
const std::vector<std::string>& mcp_protocol_versions();

struct McpClientOptions {
  std::string client_name = "kvchat";
  std::string client_version = "1.0";
  int start_timeout_ms = 30000;          // spawn to a listed tool set
  int request_timeout_ms = 60000;        // each request (tools/call may pass its own)
  size_t max_message_bytes = 16u << 20;  // one JSON-RPC message (a tool's result)
  size_t max_tools = 1000;               // more are left out, and said
  size_t max_stderr_bytes = 64u << 10;   // the server's stderr kept (its last bytes)
  int max_bad_lines = 1000;              // lines that are not JSON-RPC before the server is dropped
  int stop_grace_ms = 2000;              // after closing stdin, and again after SIGTERM
  // The version initialize asks for ("" = the newest of mcp_protocol_versions()); the
  // server's answer may still be any of them.
  std::string protocol_version;
};

struct McpTool {
  std::string name;               // the server's name for it
  std::string title;              // "" = none
  std::string description;        // "" = none
  std::string input_schema_json;  // a JSON Schema object
};

// A tools/call's answer as the model reads it: the text items in order, an image or audio
// item as a line saying what it was ("[image: image/png, 2,345 bytes]"), an embedded
// resource's text (or a line for a binary one), a resource link as its URI. is_error: the
// tool reported an error (isError) — still text for the model to read.
struct McpCallResult {
  std::string text;
  bool is_error = false;
};

enum class McpServerState { Starting, Ready, Failed, Stopped };
std::string_view mcp_server_state_name(McpServerState state);

class McpClient {
 public:
  // Starts the server of `config` and initializes it (waits up to start_timeout_ms);
  // the error says what went wrong with the last of its stderr.
  static Result<std::unique_ptr<McpClient>> start(const McpServerConfig& config,
                                                  const McpClientOptions& options = {});
  ~McpClient();  // stop()
  McpClient(const McpClient&) = delete;
  McpClient& operator=(const McpClient&) = delete;

  const std::string& name() const;
  McpServerState state() const;
  // Why it failed or stopped ("" while ready).
  std::string state_message() const;
  // What initialize negotiated.
  std::string protocol_version() const;
  std::string server_info() const;   // "name version"
  std::string instructions() const;  // "" = none

  // The tools as last listed (refetched after notifications/tools/list_changed);
  // tools_note() says when some were left out.
  std::vector<McpTool> tools() const;
  std::string tools_note() const;
  // Bumped whenever tools() changes.
  uint64_t tools_generation() const;
  // Called (from the reader thread) after tools() or state() changed.
  void set_on_change(std::function<void()> on_change);

  // tools/call. `arguments_json` is a JSON object. `cancelled` is polled while waiting:
  // true sends notifications/cancelled and returns "cancelled". timeout_ms 0 = the
  // options' request timeout.
  Result<McpCallResult> call_tool(const std::string& tool, const std::string& arguments_json,
                                  const std::function<bool()>& cancelled = {}, int timeout_ms = 0);
  // ping: the round trip, or why not.
  Status ping(int timeout_ms = 5000);
  // The last max_stderr_bytes of its stderr (and of the client's notes on it).
  std::string stderr_log() const;
  int pid() const;
  // Closes stdin, then SIGTERM, then SIGKILL (the process group); reaps it. Idempotent.
  void stop();

  struct Impl;

 private:
  explicit McpClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kvchat
