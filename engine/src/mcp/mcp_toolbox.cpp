#include "kvchat/mcp_toolbox.h"

#include <algorithm>
#include <thread>
#include <map>

#include "kvchat/grammar.h"

namespace kvchat {

namespace {

// Whether a tool's input schema can become a grammar (compiled once per schema text).
std::string schema_problem(const std::string& schema) {
  static std::mutex mu;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mu);
  auto it = known.find(schema);
  if (it != known.end()) return it->second;
  auto g = compile_json_schema(schema);
  if (known.size() > 4096) known.clear();
  return known[schema] = g ? std::string() : g.message();
}

}  // namespace

std::string function_name_for(const std::string& tool_name) {
  std::string out;
  for (char c : tool_name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    out += ok ? c : '_';
    if (out.size() == 64) break;
  }
  return out.empty() ? "tool" : out;
}

void McpToolbox::start(const McpConfig& config, const McpClientOptions& options) {
  stop();
  std::vector<Entry> entries(config.servers.size());
  std::vector<std::thread> starting;
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].config = config.servers[i];
    if (!config.servers[i].enabled) continue;
    starting.emplace_back([&entries, &options, i] {
      auto r = McpClient::start(entries[i].config, options);
      if (r.ok())
        entries[i].client = std::move(r.value());
      else
        entries[i].start_error = r.message();
    });
  }
  for (std::thread& t : starting) t.join();
  std::lock_guard<std::mutex> lock(mu_);
  entries_ = std::move(entries);
}

void McpToolbox::stop() {
  std::vector<Entry> entries;
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries.swap(entries_);
  }
  for (Entry& e : entries)
    if (e.client) e.client->stop();
}

std::vector<McpToolbox::ServerStatus> McpToolbox::servers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ServerStatus> out;
  for (const Entry& e : entries_) {
    ServerStatus s;
    s.name = e.config.name;
    s.enabled = e.config.enabled;
    if (e.client) {
      s.state = e.client->state();
      s.message = e.client->state_message();
      s.tools = e.client->tools();
      s.stderr_log = e.client->stderr_log();
    } else if (e.config.enabled) {
      s.state = McpServerState::Failed;
      s.message = e.start_error;
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<McpToolbox::Function> McpToolbox::all_functions(std::vector<std::string>* notes) const {
  std::vector<Function> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_) {
    if (!e.client || e.client->state() != McpServerState::Ready) continue;
    for (const McpTool& t : e.client->tools()) {
      if (const std::string why = schema_problem(t.input_schema_json); !why.empty()) {
        if (notes) notes->push_back(e.config.name + "/" + t.name + ": " + why);
        continue;
      }
      Function f;
      f.server = e.config.name;
      f.tool = t.name;
      f.definition.name = function_name_for(t.name);
      const auto taken = [&](const std::string& n) {
        return std::any_of(out.begin(), out.end(),
                           [&](const Function& o) { return o.definition.name == n; });
      };
      if (taken(f.definition.name))
        f.definition.name = function_name_for(e.config.name + "_" + t.name);
      if (taken(f.definition.name)) {
        if (notes) notes->push_back(e.config.name + "/" + t.name + ": its name is taken");
        continue;
      }
      f.definition.description = t.description.empty() ? t.title : t.description;
      f.definition.parameters_json = t.input_schema_json;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<McpToolbox::Function> McpToolbox::functions(
    const std::vector<std::string>& server_names) const {
  std::vector<Function> out = all_functions(nullptr);
  std::erase_if(out, [&](const Function& f) {
    return std::find(server_names.begin(), server_names.end(), f.server) == server_names.end();
  });
  return out;
}

std::vector<ToolDefinition> McpToolbox::definitions(
    const std::vector<std::string>& server_names) const {
  std::vector<ToolDefinition> out;
  for (Function& f : functions(server_names)) out.push_back(std::move(f.definition));
  return out;
}

std::vector<std::string> McpToolbox::notes() const {
  std::vector<std::string> notes;
  (void)all_functions(&notes);
  return notes;
}

std::optional<McpToolbox::Function> McpToolbox::find(const std::string& function) const {
  for (Function& f : all_functions(nullptr))
    if (f.definition.name == function) return std::move(f);
  return std::nullopt;
}

Result<ToolOutput> McpToolbox::call(const ToolCall& call, const std::function<bool()>& cancelled,
                                    int timeout_ms) const {
  const std::optional<Function> f = find(call.name);
  if (!f) return Error{"no tool server offers " + call.name};
  McpClient* client = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : entries_)
      if (e.config.name == f->server) client = e.client.get();
  }
  if (!client) return Error{"tool server '" + f->server + "' is not running"};
  auto r = client->call_tool(f->tool, call.arguments.empty() ? "{}" : call.arguments, cancelled,
                             timeout_ms);
  if (!r) return r.error();
  return ToolOutput{std::move(r->text), r->is_error};
}

ToolRunner McpToolbox::runner(int timeout_ms) const {
  return [this, timeout_ms](const ToolCall& c, const std::function<bool()>& cancelled) {
    return call(c, cancelled, timeout_ms);
  };
}

}  // namespace kvchat
