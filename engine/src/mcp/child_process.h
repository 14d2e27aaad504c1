// A tool server's process: started with its stdin and stdout on socket pairs (so a write
// to a server that has gone away fails with EPIPE instead of raising SIGPIPE in the app),
// stderr on a pipe, in a process group of its own (so `npx`'s grandchildren stop with it),
// with only the configured environment. stop() closes stdin, then sends SIGTERM, then
// SIGKILL to the group, and reaps the child: no zombies.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "kvchat/result.h"

namespace kvchat::mcp {

struct ChildSpec {
  std::string command;  // searched in PATH unless it holds a '/'
  std::vector<std::string> args;
  std::map<std::string, std::string> env;  // added to the inherited default set
  std::string cwd;                         // "" = ours
};

// The variables a server inherits from the app besides its configured ones (the MCP SDKs'
// default set on POSIX): HOME, LOGNAME, PATH, SHELL, TERM, USER.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& configured);

class ChildProcess {
 public:
  static Result<ChildProcess> start(const ChildSpec& spec);
  ChildProcess() = default;
  ChildProcess(ChildProcess&& o) noexcept { *this = std::move(o); }
  ChildProcess& operator=(ChildProcess&& o) noexcept;
  ~ChildProcess() { stop(std::chrono::milliseconds(0)); }

  pid_t pid() const { return pid_; }
  int stdin_fd() const { return in_; }    // ours to write (non-blocking)
  int stdout_fd() const { return out_; }  // ours to read
  int stderr_fd() const { return err_; }  // ours to read
  // Closes our end of its stdin (the MCP way to ask a stdio server to exit).
  void close_stdin();
  // Whether it has exited (left a zombie for stop() to reap); exit_status() says how.
  bool exited();
  const std::string& exit_status() const { return exit_status_; }
  // close_stdin, wait up to `grace` for it to exit, SIGTERM the group, wait `grace` again,
  // SIGKILL the group, reap. Closes our descriptors. Idempotent.
  void stop(std::chrono::milliseconds grace);

 private:
  bool wait_exit(std::chrono::milliseconds within);
  void close_fds();
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string exit_status_;
};

}  // namespace kvchat::mcp
