// mcp: talks to one MCP tool server, without a model: starts it (a command after `--`) or
// reaches it (a loopback URL: Streamable HTTP), prints what initialize negotiated and its
// tools, and calls one tool when asked. What the MCP conformance suite's client scenarios
// run (tests/mcp), and a way to check a server before it goes into mcp.json.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "commands.h"
#include "kvchat/mcp_client.h"

namespace kvchat::cli {

namespace {
using nlohmann::json;

void print(const json& event) { std::printf("%s\n", event.dump().c_str()); }
}  // namespace

int cmd_mcp(const Argv& argv) {
  McpServerConfig server;
  server.name = "server";
  McpClientOptions options;
  std::string call, arguments = "{}";
  int timeout_ms = 0;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    const bool valued = a == "--protocol-version" || a == "--call" || a == "--arguments" ||
                        a == "--timeout-ms" || a == "--name";
    if (valued && i + 1 >= argv.size()) return fail(a + " needs a value");
    if (a == "--protocol-version") {
      options.protocol_version = argv[++i];
    } else if (a == "--call") {
      call = argv[++i];
    } else if (a == "--arguments") {
      arguments = argv[++i];
    } else if (a == "--name") {
      server.name = argv[++i];
    } else if (a == "--timeout-ms") {
      try {
        timeout_ms = std::stoi(argv[++i]);
      } catch (...) {
        return fail("--timeout-ms takes milliseconds, not '" + argv[i] + "'");
      }
    } else if (a == "--") {
      if (i + 1 >= argv.size()) return fail("-- needs the server's command");
      server.command = argv[i + 1];
      server.args.assign(argv.begin() + static_cast<std::ptrdiff_t>(i) + 2, argv.end());
      break;
    } else if (!a.empty() && a[0] != '-' && server.url.empty()) {
      server.url = a;
    } else {
      return fail("unknown option '" + a + "'");
    }
  }
  if (server.url.empty() == server.command.empty())
    return fail("give the server's URL (http://127.0.0.1:PORT/mcp) or -- and its command");
  if (!json::accept(arguments)) return fail("--arguments is not JSON: " + arguments);

  auto client = McpClient::start(server, options);
  if (!client) return fail(client.message());
  json tools = json::array();
  for (const McpTool& t : (*client)->tools())
    tools.push_back({{"name", t.name}, {"description", t.description}});
  print({{"event", "server"},
         {"protocol_version", (*client)->protocol_version()},
         {"server_info", (*client)->server_info()},
         {"tools", tools}});
  if (!call.empty()) {
    auto result = (*client)->call_tool(call, arguments, {}, timeout_ms);
    if (!result) return fail(result.message());
    print({{"event", "result"},
           {"tool", call},
           {"text", result->text},
           {"is_error", result->is_error}});
  }
  (*client)->stop();
  return 0;
}

}  // namespace kvchat::cli
