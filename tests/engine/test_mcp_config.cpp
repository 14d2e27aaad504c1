// mcp.json (kvchat/mcp_config.h): the shape LM Studio and Claude Desktop read, errors that
// name the key, other apps' keys kept through a save, the file private to its user.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "kvchat/mcp_config.h"

using namespace kvchat;

TEST(McpConfig, ReadsTheClaudeDesktopShape) {
  auto c = parse_mcp_config(R"({
    "mcpServers": {
      "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
      "search": {"command": "uvx", "args": ["mcp-search"], "env": {"API_KEY": "k"}, "disabled": true},
      "web": {"url": "http://127.0.0.1:3001/mcp"}
    }})");
  ASSERT_TRUE(c.ok()) << c.message();
  ASSERT_EQ(c->servers.size(), 3u);
  EXPECT_EQ(c->servers[0].name, "files");  // the file's order
  EXPECT_EQ(c->servers[0].args.size(), 3u);
  EXPECT_TRUE(c->servers[0].enabled);
  EXPECT_EQ(c->servers[1].env.at("API_KEY"), "k");
  EXPECT_FALSE(c->servers[1].enabled);
  EXPECT_EQ(c->find("web")->url, "http://127.0.0.1:3001/mcp");
  EXPECT_EQ(c->find("none"), nullptr);
  EXPECT_TRUE(parse_mcp_config("").ok());
  EXPECT_TRUE(parse_mcp_config("{}")->servers.empty());
}

TEST(McpConfig, ErrorsNameTheKey) {
  auto msg = [](const char* text) { return parse_mcp_config(text).message(); };
  EXPECT_EQ(msg("{"), "mcp.json is not valid JSON");
  EXPECT_EQ(msg("[]"), "mcp.json must be an object, not an array");
  EXPECT_EQ(msg(R"({"mcpServers": []})"), "mcpServers must be an object, not an array");
  EXPECT_EQ(msg(R"({"mcpServers": {"a": {"command": "x", "args": ["ok", 3]}}})"),
            "mcpServers.a.args[1] must be a string, not a number");
  EXPECT_EQ(msg(R"({"mcpServers": {"a": {"command": "x", "env": {"K": true}}}})"),
            "mcpServers.a.env.K must be a string, not a boolean");
  EXPECT_EQ(msg(R"({"mcpServers": {"a": {"args": []}}})"),
            "mcpServers.a needs a \"command\" to run (or the \"url\" of an HTTP server)");
  EXPECT_EQ(msg(R"({"mcpServers": {"a": {"command": "x", "url": "http://127.0.0.1/"}}})"),
            "mcpServers.a has both a \"command\" and a \"url\"; give one");
}

TEST(McpConfig, SavesPrivatelyAndKeepsOtherAppsKeys) {
  const std::string dir = testing::TempDir() + "/mcp_config_test";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/mcp.json";
  std::filesystem::remove(path);
  EXPECT_TRUE(load_mcp_config(path)->servers.empty());  // no file yet: nothing configured
  auto c = parse_mcp_config(R"({"globalShortcut": "Ctrl+Space", "mcpServers": {
      "b": {"command": "b-server", "autoApprove": ["read"]},
      "a": {"command": "a-server", "args": ["--x"], "env": {"K": "v"}}}})");
  ASSERT_TRUE(c.ok());
  c->servers[1].enabled = false;
  ASSERT_TRUE(save_mcp_config(*c, path).ok());
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto back = load_mcp_config(path);
  ASSERT_TRUE(back.ok()) << back.message();
  ASSERT_EQ(back->servers.size(), 2u);
  EXPECT_EQ(back->servers[0].name, "b");
  EXPECT_EQ(back->servers[0].extra_json, R"({"autoApprove":["read"]})");
  EXPECT_FALSE(back->servers[1].enabled);
  EXPECT_EQ(back->servers[1].env.at("K"), "v");
  EXPECT_EQ(back->extra_json, R"({"globalShortcut":"Ctrl+Space"})");
  EXPECT_EQ(mcp_config_json(*back), mcp_config_json(*c));
  std::ofstream(path) << "{\"mcpServers\": 1}";
  EXPECT_EQ(load_mcp_config(path).message(), path + ": mcpServers must be an object, not a number");
}
