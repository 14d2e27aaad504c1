// kvchat's MCP client against the reference servers of the Model Context Protocol project
// (npm: @modelcontextprotocol/server-everything and server-filesystem, installed by the
// mcp_npm_install fixture): the real handshake, tool lists, calls, images, errors,
// cancellation of a long operation, and a clean stop.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "kvchat/mcp_client.h"

using namespace kvchat;
using namespace std::chrono_literals;

namespace {

std::string bin(const std::string& name) {
  const char* modules = std::getenv("KVCHAT_MCP_NODE_MODULES");
  return std::string(modules ? modules : "node_modules") + "/.bin/" + name;
}

bool has_tool(const std::vector<McpTool>& tools, const std::string& name) {
  return std::any_of(tools.begin(), tools.end(), [&](const McpTool& t) { return t.name == name; });
}

}  // namespace

TEST(McpReferenceServers, Everything) {
  McpServerConfig cfg;
  cfg.name = "everything";
  cfg.command = bin("mcp-server-everything");
  auto started = McpClient::start(cfg);
  ASSERT_TRUE(started.ok()) << started.message();
  McpClient& c = **started;
  EXPECT_EQ(c.protocol_version(), "2025-11-25");
  EXPECT_EQ(c.server_info().rfind("mcp-servers/everything ", 0), 0u) << c.server_info();
  const auto tools = c.tools();
  EXPECT_TRUE(has_tool(tools, "echo"));
  EXPECT_TRUE(has_tool(tools, "get-sum"));
  auto sum = c.call_tool("get-sum", R"({"a": 2, "b": 3})");
  ASSERT_TRUE(sum.ok()) << sum.message();
  EXPECT_EQ(sum->text, "The sum of 2 and 3 is 5.");
  EXPECT_EQ(c.call_tool("echo", R"({"message": "In the beginning"})")->text,
            "Echo: In the beginning");
  auto image = c.call_tool("get-tiny-image", "{}");
  ASSERT_TRUE(image.ok()) << image.message();
  EXPECT_NE(image->text.find("[image: image/png, "), std::string::npos) << image->text;
  // A schema violation is the server's error, in words.
  auto bad = c.call_tool("get-sum", R"({"a": "two"})");
  EXPECT_TRUE(!bad.ok() || bad->is_error);
  // A 10-second operation stopped after 300 ms; the server answers the next request.
  const auto t0 = std::chrono::steady_clock::now();
  auto stopped = c.call_tool("trigger-long-running-operation", R"({"duration": 10, "steps": 5})",
                             [&] { return std::chrono::steady_clock::now() - t0 > 300ms; });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.message(), "cancelled");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_TRUE(c.ping().ok());
  c.stop();
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // nothing left, not even a zombie
}

TEST(McpReferenceServers, FilesystemOverATemporaryFolder) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "mcp_fs_root";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "genesis.txt") << "In the beginning God created the heaven and the earth.\n";
  McpServerConfig cfg;
  cfg.name = "files";
  cfg.command = bin("mcp-server-filesystem");
  cfg.args = {dir.string()};
  auto started = McpClient::start(cfg);
  ASSERT_TRUE(started.ok()) << started.message();
  McpClient& c = **started;
  EXPECT_TRUE(has_tool(c.tools(), "read_text_file"));
  EXPECT_TRUE(has_tool(c.tools(), "list_directory"));
  const std::string file = (dir / "genesis.txt").string();
  auto text = c.call_tool("read_text_file", R"({"path": ")" + file + R"("})");
  ASSERT_TRUE(text.ok()) << text.message();
  EXPECT_EQ(text->text, "In the beginning God created the heaven and the earth.\n");
  EXPECT_FALSE(text->is_error);
  auto listing = c.call_tool("list_directory", R"({"path": ")" + dir.string() + R"("})");
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->text, "[FILE] genesis.txt");
  auto outside = c.call_tool("read_text_file", R"({"path": "/etc/passwd"})");
  ASSERT_TRUE(outside.ok()) << outside.message();
  EXPECT_TRUE(outside->is_error);
  EXPECT_NE(outside->text.find("Access denied"), std::string::npos) << outside->text;
}
