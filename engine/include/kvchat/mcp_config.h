// mcp.json: the Model Context Protocol tool servers the user lists, in the shape LM Studio
// and Claude Desktop read ({"mcpServers": {"name": {"command", "args", "env"}}}), so one
// file works in all of them. Keys kvchat does not know are kept as they were when the file
// is written back (another app's settings in the same file are not lost).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "kvchat/result.h"

namespace kvchat {

struct McpServerConfig {
  std::string name;                        // the key under "mcpServers"
  std::string command;                     // run through PATH ("npx", "uvx", "/usr/bin/x")
  std::vector<std::string> args;           // "args"
  std::map<std::string, std::string> env;  // "env": the only variables added to a small
                                           // default set (kvchat/mcp_client.h)
  std::string cwd;                         // "cwd": "" = the app's working directory
  std::string url;         // "url": a Streamable HTTP server on loopback instead of a command
  bool enabled = true;     // "disabled": true (Cline's key) turns it off
  std::string extra_json;  // the entry's other keys, as a JSON object ("" = none)
};

struct McpConfig {
  std::vector<McpServerConfig> servers;  // in the file's order
  std::string extra_json;                // the file's other top-level keys ("" = none)

  const McpServerConfig* find(std::string_view name) const;
};

// The text of an mcp.json. Errors name the entry and the key ("mcpServers.files.args[1]
// must be a string"). An empty text is an empty configuration.
Result<McpConfig> parse_mcp_config(std::string_view text);
// The file at `path`; a file that does not exist is an empty configuration.
Result<McpConfig> load_mcp_config(const std::string& path);
// The JSON text of `config` (2-space indent, the file's other keys kept).
std::string mcp_config_json(const McpConfig& config);
// Written atomically (a temporary file renamed over `path`), readable by the user only:
// an entry's env may hold API keys.
Status save_mcp_config(const McpConfig& config, const std::string& path);

}  // namespace kvchat
