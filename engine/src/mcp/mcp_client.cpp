#include "kvchat/mcp_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "mcp/child_process.h"
#include "mcp/http_transport.h"
#include "mcp/line_reader.h"
#include "mcp/mcp_result_text.h"

namespace kvchat {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kMaxToolPages = 100;  // tools/list pages followed before giving up

std::string seconds_text(int ms) {
  return ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms";
}

// The last `lines` lines the server wrote (the client's own notes left out), for an error
// message.
std::string log_tail(const std::string& whole, int lines) {
  std::string log;
  for (size_t at = 0; at < whole.size();) {
    size_t nl = whole.find('\n', at);
    nl = nl == std::string::npos ? whole.size() : nl + 1;
    if (whole.compare(at, 9, "[kvchat] ") != 0) log.append(whole, at, nl - at);
    at = nl;
  }
  size_t at = log.size();
  while (at > 0 && (log[at - 1] == '\n' || log[at - 1] == ' ')) --at;
  const size_t end = at;
  for (int n = 0; n < lines && at > 0; ++n) {
    at = log.rfind('\n', at - 1);
    if (at == std::string::npos) {
      at = 0;
      break;
    }
  }
  std::string tail = log.substr(at, end - at);
  while (!tail.empty() && tail.front() == '\n') tail.erase(0, 1);
  return tail;
}

}  // namespace

const std::vector<std::string>& mcp_protocol_versions() {
  static const std::vector<std::string> v{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}

std::string_view mcp_server_state_name(McpServerState state) {
  switch (state) {
    case McpServerState::Starting: return "starting";
    case McpServerState::Ready: return "ready";
    case McpServerState::Failed: return "failed";
    case McpServerState::Stopped: return "stopped";
  }
  return "unknown";
}

struct McpClient::Impl {
  struct Pending {
    bool done = false;
    json result;        // the "result" member
    std::string error;  // or why there is none
  };

  McpServerConfig config;
  McpClientOptions opt;
  mcp::ChildProcess child;                    // a "command" server's process
  std::unique_ptr<mcp::StreamableHttp> http;  // or a "url" server's transport

  mutable std::mutex mu;
  std::condition_variable cv;
  McpServerState state = McpServerState::Starting;
  std::string state_message, protocol, server_info, instructions;
  std::vector<McpTool> tools;
  std::string tools_note;
  uint64_t generation = 0;
  std::function<void()> on_change;
  int64_t next_id = 1;
  std::map<int64_t, std::shared_ptr<Pending>> pending;
  std::string log;  // stderr and the client's notes, bounded
  int bad_lines = 0;
  bool stopping = false, refresh_wanted = false;

  std::mutex write_mu;
  std::thread reader, refresher;

  // ---- state, under mu --------------------------------------------------------------
  void append_log_locked(std::string_view text) {
    log.append(text);
    if (log.size() > opt.max_stderr_bytes) {
      size_t cut = log.size() - opt.max_stderr_bytes;
      const size_t nl = log.find('\n', cut);
      if (nl != std::string::npos && nl - cut < 256) cut = nl + 1;
      log.erase(0, cut);
    }
  }
  void note(const std::string& text) {
    std::lock_guard<std::mutex> lock(mu);
    append_log_locked("[kvchat] " + text + "\n");
  }
  // Every waiting request fails with `why`.
  void fail_pending_locked(const std::string& why) {
    for (auto& [id, p] : pending) {
      p->done = true;
      p->error = why;
    }
    pending.clear();
  }
  void fail(const std::string& why) {
    std::function<void()> notify;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (state == McpServerState::Failed || state == McpServerState::Stopped) return;
      state = McpServerState::Failed;
      state_message = why;
      append_log_locked("[kvchat] " + why + "\n");
      fail_pending_locked("tool server '" + config.name + "' " + why);
      notify = on_change;
    }
    cv.notify_all();
    if (notify) notify();
  }

  // Request `id` fails with `why` (its HTTP exchange got no answer).
  void fail_request(int64_t id, const std::string& why) {
    {
      std::lock_guard<std::mutex> lock(mu);
      auto it = pending.find(id);
      if (it == pending.end()) return;
      it->second->done = true;
      it->second->error = why;
      pending.erase(it);
    }
    cv.notify_all();
  }

  // ---- writing --------------------------------------------------------------------------
  // One message to the server: a line on its stdin, or a POST (`id`: the request it is,
  // failed when the POST gets no answer; -1 for a notification or a response).
  Status write_line(std::string line, Clock::time_point deadline, int64_t id = -1) {
    if (http) {
      http->post(std::move(line), [this, id](const std::string& why) {
        const std::string text = "tool server '" + config.name + "': " + why;
        if (id >= 0)
          fail_request(id, text);
        else
          note(text);
      });
      return Status::Ok();
    }
    line += '\n';
    std::lock_guard<std::mutex> lock(write_mu);
    const int fd = child.stdin_fd();
    if (fd < 0) return Error{"tool server '" + config.name + "' is not running"};
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::send(fd, line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (n > 0) {
        done += static_cast<size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0)
          return Error{"tool server '" + config.name + "' does not read its input"};
        pollfd p{fd, POLLOUT, 0};
        ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
        continue;
      }
      return Error{"cannot write to tool server '" + config.name + "': " + std::strerror(errno)};
    }
    return Status::Ok();
  }
  void send_notification(const char* method, json params) {
    json m{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.is_null()) m["params"] = std::move(params);
    (void)write_line(m.dump(), Clock::now() + std::chrono::seconds(2));
  }

  // ---- requests -------------------------------------------------------------------------
  Result<json> request(const std::string& method, json params, int timeout_ms,
                       const std::function<bool()>& cancelled = {}) {
    auto p = std::make_shared<Pending>();
    int64_t id = 0;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (state == McpServerState::Failed || state == McpServerState::Stopped)
        return Error{"tool server '" + config.name + "' " + state_message};
      id = next_id++;
      pending[id] = p;
    }
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    json m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) m["params"] = std::move(params);
    if (Status s = write_line(m.dump(), deadline, id); !s) {
      forget(id);
      return Error{s.message()};
    }
    std::unique_lock<std::mutex> lock(mu);
    while (!p->done) {
      if (cancelled && cancelled()) {
        pending.erase(id);
        lock.unlock();
        send_notification("notifications/cancelled",
                          {{"requestId", id}, {"reason", "stopped by the user"}});
        return Error{"cancelled"};
      }
      if (Clock::now() >= deadline) {
        pending.erase(id);
        lock.unlock();
        send_notification("notifications/cancelled", {{"requestId", id}, {"reason", "timed out"}});
        note(method + " timed out after " + seconds_text(timeout_ms));
        return Error{"tool server '" + config.name + "' did not answer " + method + " within " +
                     seconds_text(timeout_ms)};
      }
      cv.wait_for(lock, std::chrono::milliseconds(50));
    }
    if (!p->error.empty()) return Error{p->error};
    return std::move(p->result);
  }
  void forget(int64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    pending.erase(id);
  }

  // ---- reading --------------------------------------------------------------------------
  void answer(const json& id, json result, const json& error = nullptr) {
    json m{{"jsonrpc", "2.0"}, {"id", id}};
    if (error.is_null())
      m["result"] = std::move(result);
    else
      m["error"] = error;
    (void)write_line(m.dump(), Clock::now() + std::chrono::seconds(2));
  }
  void bad_line(std::string_view line) {
    bool too_many = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      append_log_locked("[kvchat] not JSON-RPC: " + std::string(line.substr(0, 200)) + "\n");
      too_many = ++bad_lines >= opt.max_bad_lines;
    }
    if (too_many)
      fail("wrote " + std::to_string(opt.max_bad_lines) +
           " lines that are not JSON-RPC on its output; kvchat stopped listening to it");
  }
  void on_response(json& m) {
    const auto id_it = m.find("id");
    if (!id_it->is_number_integer()) return bad_line(m.dump());
    std::lock_guard<std::mutex> lock(mu);
    auto it = pending.find(id_it->get<int64_t>());
    if (it == pending.end()) return;  // answered after a timeout or cancel
    Pending& p = *it->second;
    p.done = true;
    if (auto e = m.find("error"); e != m.end()) {
      const json& err = *e;
      std::string msg = err.is_object() && err.contains("message") && err["message"].is_string()
                            ? err["message"].get<std::string>()
                            : err.dump();
      const std::string code = err.is_object() && err.contains("code") ? err["code"].dump() : "?";
      p.error = "tool server '" + config.name + "' answered with error " + code + ": " + msg;
    } else {
      p.result = std::move(m["result"]);
    }
    pending.erase(it);
    cv.notify_all();
  }
  void on_message(json& m) {
    if (!m.is_object() || m.value("jsonrpc", "") != "2.0") return bad_line(m.dump());
    auto method = m.find("method");
    const bool has_id = m.contains("id");
    if (method == m.end()) {
      if (has_id && (m.contains("result") || m.contains("error"))) return on_response(m);
      return bad_line(m.dump());
    }
    if (!method->is_string()) return bad_line(m.dump());
    const std::string name = method->get<std::string>();
    if (has_id) {  // a request from the server
      if (name == "ping") return answer(m["id"], json::object());
      return answer(m["id"], nullptr,
                    {{"code", -32601}, {"message", "kvchat does not offer " + name}});
    }
    if (name == "notifications/tools/list_changed") {
      {
        std::lock_guard<std::mutex> lock(mu);
        refresh_wanted = true;
      }
      cv.notify_all();
    } else if (name == "notifications/message") {
      const json params = m.value("params", json::object());
      std::lock_guard<std::mutex> lock(mu);
      append_log_locked("[" + params.value("level", std::string("log")) + "] " +
                        params.value("data", json()).dump() + "\n");
    }
  }
  void on_line(std::string&& line) {
    json m = json::parse(line, nullptr, false);
    if (m.is_discarded()) return bad_line(line);
    if (m.is_array()) {  // a batch (protocol 2025-03-26)
      for (json& each : m) on_message(each);
      return;
    }
    on_message(m);
  }
  void on_oversized(size_t bytes) {
    const std::string why = "sent a message of over " +
                            std::to_string(opt.max_message_bytes >> 20) + " MiB (" +
                            std::to_string(bytes >> 20) + " MiB so far); it was dropped";
    {
      std::lock_guard<std::mutex> lock(mu);
      append_log_locked("[kvchat] " + why + "\n");
      // The dropped message was most likely the answer to what is waiting.
      fail_pending_locked("tool server '" + config.name + "' " + why);
    }
    cv.notify_all();
  }
  void read_loop() {
    mcp::LineReader lines(opt.max_message_bytes);
    std::string buf(64 << 10, '\0');
    int out = child.stdout_fd(), err = child.stderr_fd();
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) return;
      }
      pollfd fds[2] = {{out, POLLIN, 0}, {err, POLLIN, 0}};
      if (::poll(fds, 2, 100) <= 0) continue;
      if (fds[1].revents) {
        const ssize_t n = ::read(err, buf.data(), buf.size());
        if (n > 0) {
          std::lock_guard<std::mutex> lock(mu);
          append_log_locked(std::string_view(buf.data(), static_cast<size_t>(n)));
        } else if (n == 0 || errno != EINTR) {
          err = -1;  // poll ignores a negative descriptor
        }
      }
      if (fds[0].revents) {
        const ssize_t n = ::read(out, buf.data(), buf.size());
        if (n > 0) {
          lines.feed(
              std::string_view(buf.data(), static_cast<size_t>(n)),
              [this](std::string&& l) { on_line(std::move(l)); },
              [this](size_t b) { on_oversized(b); });
        } else if (n == 0 || errno != EINTR) {
          // Its stderr's last words first, then how it ended.
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          drain(err, buf);
          const bool exited = child.exited();
          fail(exited ? child.exit_status() : std::string("closed its output"));
          return;
        }
      }
    }
  }
  void drain(int fd, std::string& buf) {
    if (fd < 0) return;
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, 0) > 0) {
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n <= 0) return;
      std::lock_guard<std::mutex> lock(mu);
      append_log_locked(std::string_view(buf.data(), static_cast<size_t>(n)));
    }
  }

  // ---- tools ----------------------------------------------------------------------------
  Status list_tools(int timeout_ms) {
    std::vector<McpTool> listed;
    std::string note_text;
    json cursor;
    for (int page = 0; page < kMaxToolPages; ++page) {
      json params = cursor.is_null() ? json(nullptr) : json{{"cursor", cursor}};
      auto r = request("tools/list", params, timeout_ms);
      if (!r) return Error{r.message()};
      auto list = r->find("tools");
      if (list == r->end() || !list->is_array())
        return Error{"tool server '" + config.name + "' answered tools/list without a tools list"};
      for (const json& t : *list) {
        if (listed.size() >= opt.max_tools) break;
        if (!t.is_object() || !t.contains("name") || !t["name"].is_string()) {
          note_text = "some tools without a name were left out";
          continue;
        }
        McpTool tool;
        tool.name = t["name"].get<std::string>();
        tool.title = t.value("title", std::string());
        tool.description = t.value("description", std::string());
        auto schema = t.find("inputSchema");
        tool.input_schema_json = schema != t.end() && schema->is_object()
                                     ? schema->dump()
                                     : R"({"type":"object","properties":{}})";
        listed.push_back(std::move(tool));
      }
      if (listed.size() >= opt.max_tools) {
        note_text = "the server lists more than " + std::to_string(opt.max_tools) +
                    " tools; kvchat keeps the first " + std::to_string(opt.max_tools);
        break;
      }
      auto next = r->find("nextCursor");
      if (next == r->end() || next->is_null()) break;
      cursor = *next;
      if (page + 1 == kMaxToolPages)
        note_text = "the server's tool list goes on past " + std::to_string(kMaxToolPages) +
                    " pages; kvchat keeps the tools of the first " + std::to_string(kMaxToolPages);
    }
    std::function<void()> notify;
    {
      std::lock_guard<std::mutex> lock(mu);
      tools = std::move(listed);
      tools_note = note_text;
      ++generation;
      notify = on_change;
    }
    if (!note_text.empty()) note(note_text);
    if (notify) notify();
    return Status::Ok();
  }
  void refresh_loop() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      cv.wait(lock, [&] { return stopping || refresh_wanted; });
      if (stopping) return;
      refresh_wanted = false;
      if (state != McpServerState::Ready) continue;
      lock.unlock();
      if (Status s = list_tools(opt.request_timeout_ms); !s)
        note("re-listing tools: " + s.message());
      lock.lock();
    }
  }

  Status initialize() {
    json params{{"protocolVersion", opt.protocol_version.empty() ? mcp_protocol_versions().front()
                                                                 : opt.protocol_version},
                {"capabilities", json::object()},
                {"clientInfo", {{"name", opt.client_name}, {"version", opt.client_version}}}};
    auto r = request("initialize", params, opt.start_timeout_ms);
    if (!r) return Error{r.message()};
    const std::string version = r->value("protocolVersion", std::string());
    const auto& known = mcp_protocol_versions();
    if (std::find(known.begin(), known.end(), version) == known.end()) {
      std::string list;
      for (const std::string& v : known) list += (list.empty() ? "" : ", ") + v;
      return Error{"tool server '" + config.name + "' speaks MCP version '" + version +
                   "'; kvchat speaks " + list};
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      protocol = version;
      const json info = r->value("serverInfo", json::object());
      server_info =
          info.value("name", std::string("?")) + " " + info.value("version", std::string());
      instructions = r->value("instructions", std::string());
    }
    if (http) http->set_protocol_version(version);  // on every later message
    send_notification("notifications/initialized", nullptr);
    return list_tools(opt.start_timeout_ms);
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (stopping) return;
      stopping = true;
      if (state != McpServerState::Failed) {
        state = McpServerState::Stopped;
        state_message = "was stopped";
      }
      fail_pending_locked("tool server '" + config.name + "' was stopped");
    }
    cv.notify_all();
    if (refresher.joinable()) refresher.join();
    if (http) {
      http->stop();  // the session DELETEd, every exchange ended
      return;
    }
    {
      std::lock_guard<std::mutex> lock(write_mu);
      child.close_stdin();
    }
    if (reader.joinable()) reader.join();
    child.stop(std::chrono::milliseconds(opt.stop_grace_ms));
  }
};

McpClient::McpClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
McpClient::~McpClient() { stop(); }

Result<std::unique_ptr<McpClient>> McpClient::start(const McpServerConfig& config,
                                                    const McpClientOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  impl->opt = options;
  Impl* raw = impl.get();
  if (!config.url.empty()) {
    auto url = mcp::parse_loopback_url(config.url);
    if (!url) return Error{"tool server '" + config.name + "': " + url.message()};
    mcp::StreamableHttp::Callbacks cb;
    cb.on_message = [raw](std::string&& m) { raw->on_line(std::move(m)); };
    cb.on_oversized = [raw](size_t bytes) { raw->on_oversized(bytes); };
    cb.on_note = [raw](const std::string& text) { raw->note(text); };
    cb.on_session_lost = [raw](const std::string& why) { raw->fail(why); };
    impl->http = std::make_unique<mcp::StreamableHttp>(std::move(*url), options.max_message_bytes,
                                                       std::move(cb));
  } else {
    auto child = mcp::ChildProcess::start({config.command, config.args, config.env, config.cwd});
    if (!child) return Error{"tool server '" + config.name + "': " + child.message()};
    impl->child = std::move(*child);
    impl->reader = std::thread([raw] { raw->read_loop(); });
  }
  std::unique_ptr<McpClient> client(new McpClient(std::move(impl)));
  if (Status s = raw->initialize(); !s) {
    std::string tail;
    {
      std::lock_guard<std::mutex> lock(raw->mu);
      tail = log_tail(raw->log, 5);
    }
    client->stop();
    return Error{s.message() + (tail.empty() ? "" : "\nits last output:\n" + tail)};
  }
  {
    std::lock_guard<std::mutex> lock(raw->mu);
    if (raw->state == McpServerState::Starting) raw->state = McpServerState::Ready;
  }
  raw->refresher = std::thread([raw] { raw->refresh_loop(); });
  if (raw->http) raw->http->listen();  // the server's own messages (list_changed)
  return client;
}

const std::string& McpClient::name() const { return impl_->config.name; }
McpServerState McpClient::state() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->state;
}
std::string McpClient::state_message() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->state_message;
}
std::string McpClient::protocol_version() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->protocol;
}
std::string McpClient::server_info() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->server_info;
}
std::string McpClient::instructions() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->instructions;
}
std::vector<McpTool> McpClient::tools() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->tools;
}
std::string McpClient::tools_note() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->tools_note;
}
uint64_t McpClient::tools_generation() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->generation;
}
void McpClient::set_on_change(std::function<void()> on_change) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->on_change = std::move(on_change);
}
std::string McpClient::stderr_log() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->log;
}
int McpClient::pid() const { return impl_->child.pid(); }
void McpClient::stop() { impl_->stop(); }

Result<McpCallResult> McpClient::call_tool(const std::string& tool,
                                           const std::string& arguments_json,
                                           const std::function<bool()>& cancelled, int timeout_ms) {
  json args = json::parse(arguments_json, nullptr, false);
  if (!args.is_object()) return Error{"the arguments of " + tool + " are not a JSON object"};
  auto r = impl_->request("tools/call", {{"name", tool}, {"arguments", std::move(args)}},
                          timeout_ms > 0 ? timeout_ms : impl_->opt.request_timeout_ms, cancelled);
  if (!r) return r.error();
  return mcp_result_text(*r);
}

Status McpClient::ping(int timeout_ms) {
  auto r = impl_->request("ping", nullptr, timeout_ms);
  if (!r) return Error{r.message()};
  return Status::Ok();
}

}  // namespace kvchat
