#include "kvchat/mcp_config.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "util/file_io.h"
#include "util/json_type_name.h"

namespace kvchat {

namespace {

using json = nlohmann::ordered_json;  // the file's order kept

constexpr size_t kMaxConfigBytes = 4 << 20;  // a hand-written file; anything larger is not one

Error wrong(const std::string& where, const char* want, const json& got) {
  return Error{where + " must be " + want + ", not " + json_type_name(got)};
}

// One "mcpServers" entry; `where` is "mcpServers.<name>".
Result<McpServerConfig> read_server(const std::string& name, const json& e) {
  const std::string where = "mcpServers." + name;
  if (!e.is_object()) return wrong(where, "an object", e);
  McpServerConfig s;
  s.name = name;
  json extra = json::object();
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    const std::string at = where + "." + key;
    if (key == "command" || key == "cwd" || key == "url") {
      if (!v.is_string()) return wrong(at, "a string", v);
      (key == "command" ? s.command : key == "cwd" ? s.cwd : s.url) = v.get<std::string>();
    } else if (key == "args") {
      if (!v.is_array()) return wrong(at, "an array of strings", v);
      for (size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) return wrong(at + "[" + std::to_string(i) + "]", "a string", v[i]);
        s.args.push_back(v[i].get<std::string>());
      }
    } else if (key == "env") {
      if (!v.is_object()) return wrong(at, "an object of strings", v);
      for (auto kv = v.begin(); kv != v.end(); ++kv) {
        if (!kv.value().is_string()) return wrong(at + "." + kv.key(), "a string", kv.value());
        s.env[kv.key()] = kv.value().get<std::string>();
      }
    } else if (key == "disabled") {
      if (!v.is_boolean()) return wrong(at, "true or false", v);
      s.enabled = !v.get<bool>();
    } else {
      extra[key] = v;
    }
  }
  if (s.command.empty() && s.url.empty())
    return Error{where + " needs a \"command\" to run (or the \"url\" of an HTTP server)"};
  if (!s.command.empty() && !s.url.empty())
    return Error{where + " has both a \"command\" and a \"url\"; give one"};
  if (!extra.empty()) s.extra_json = extra.dump();
  return s;
}

}  // namespace

const McpServerConfig* McpConfig::find(std::string_view name) const {
  for (const McpServerConfig& s : servers)
    if (s.name == name) return &s;
  return nullptr;
}

Result<McpConfig> parse_mcp_config(std::string_view text) {
  McpConfig config;
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return config;
  json root = json::parse(text, nullptr, false);
  if (root.is_discarded()) return Error{"mcp.json is not valid JSON"};
  if (!root.is_object()) return wrong("mcp.json", "an object", root);
  json extra = json::object();
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() != "mcpServers") {
      extra[it.key()] = it.value();
      continue;
    }
    if (!it->is_object()) return wrong("mcpServers", "an object", *it);
    for (auto s = it->begin(); s != it->end(); ++s) {
      if (s.key().empty()) return Error{"mcpServers has an entry without a name"};
      auto server = read_server(s.key(), s.value());
      if (!server) return server.error();
      config.servers.push_back(std::move(*server));
    }
  }
  if (!extra.empty()) config.extra_json = extra.dump();
  return config;
}

Result<McpConfig> load_mcp_config(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return McpConfig{};  // none yet
  auto opened = file_io::open_regular_file(path);
  if (!opened) return Error{path + ": " + opened.message()};
  ::close(opened->fd);
  if (static_cast<size_t>(opened->st.st_size) > kMaxConfigBytes)
    return Error{path + " is over 4 MiB; that is not an mcp.json"};
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto config = parse_mcp_config(text.str());
  if (!config) return Error{path + ": " + config.message()};
  return config;
}

std::string mcp_config_json(const McpConfig& config) {
  // ordered_json keeps the servers in the user's order.
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  if (!config.extra_json.empty()) root = nlohmann::ordered_json::parse(config.extra_json);
  nlohmann::ordered_json servers = nlohmann::ordered_json::object();
  for (const McpServerConfig& s : config.servers) {
    nlohmann::ordered_json e = nlohmann::ordered_json::object();
    const nlohmann::ordered_json extra = s.extra_json.empty()
                                             ? nlohmann::ordered_json::object()
                                             : nlohmann::ordered_json::parse(s.extra_json);
    if (!s.url.empty()) {
      e["url"] = s.url;
    } else {
      e["command"] = s.command;
      e["args"] = s.args;
    }
    if (!s.env.empty()) e["env"] = s.env;
    if (!s.cwd.empty()) e["cwd"] = s.cwd;
    if (!s.enabled) e["disabled"] = true;
    for (auto it = extra.begin(); it != extra.end(); ++it) e[it.key()] = it.value();
    servers[s.name] = std::move(e);
  }
  root["mcpServers"] = std::move(servers);
  return root.dump(2) + "\n";
}

Status save_mcp_config(const McpConfig& config, const std::string& path) {
  const std::string text = mcp_config_json(config);
  file_io::AtomicFile file(path);
  if (Status s = file.open(); !s) return s;
  if (::chmod(file.temp_path().c_str(), 0600) != 0)
    return Error{"cannot make " + file.temp_path() + " private to its user"};
  if (Status s = file.write({reinterpret_cast<const uint8_t*>(text.data()), text.size()}); !s)
    return s;
  return file.commit();
}

}  // namespace kvchat
