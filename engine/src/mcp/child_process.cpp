#include "mcp/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace kvchat::mcp {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string describe_exit(const siginfo_t& info) {
  if (info.si_code == CLD_EXITED) return "exited with code " + std::to_string(info.si_status);
  const char* name = ::sigabbrev_np(info.si_status);
  return std::string("was killed by SIG") + (name ? name : std::to_string(info.si_status));
}

// Frees what posix_spawn needs on every path out of start().
struct SpawnArgs {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  SpawnArgs() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
  }
  ~SpawnArgs() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

}  // namespace

std::vector<std::string> child_environment(const std::map<std::string, std::string>& configured) {
  std::map<std::string, std::string> env;
  for (const char* name : {"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}) {
    if (const char* v = std::getenv(name)) env[name] = v;
  }
  for (const auto& [k, v] : configured) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& o) noexcept {
  if (this != &o) {
    stop(std::chrono::milliseconds(0));
    pid_ = std::exchange(o.pid_, -1);
    in_ = std::exchange(o.in_, -1);
    out_ = std::exchange(o.out_, -1);
    err_ = std::exchange(o.err_, -1);
    exit_status_ = std::move(o.exit_status_);
  }
  return *this;
}

Result<ChildProcess> ChildProcess::start(const ChildSpec& spec) {
  if (spec.command.empty()) return Error{"no command to run"};
  int in[2], out[2], err[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    return Error{std::string("cannot make a socket pair: ") + std::strerror(errno)};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, out) != 0) {
    ::close(in[0]), ::close(in[1]);
    return Error{std::string("cannot make a socket pair: ") + std::strerror(errno)};
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    return Error{std::string("cannot make a pipe: ") + std::strerror(errno)};
  }
  ChildProcess child;
  child.in_ = in[0];
  child.out_ = out[0];
  child.err_ = err[0];
  SpawnArgs a;
  posix_spawn_file_actions_adddup2(&a.actions, in[1], 0);
  posix_spawn_file_actions_adddup2(&a.actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&a.actions, err[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&a.actions, 3);
  if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&a.actions, spec.cwd.c_str());
  // Its own process group; default signal handling and an empty mask whatever ours are.
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setpgroup(&a.attr, 0);
  posix_spawnattr_setsigdefault(&a.attr, &all);
  posix_spawnattr_setsigmask(&a.attr, &none);
  posix_spawnattr_setflags(&a.attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> argv_s{spec.command};
  argv_s.insert(argv_s.end(), spec.args.begin(), spec.args.end());
  const std::vector<std::string> env_s = child_environment(spec.env);
  std::vector<char*> argv, envp;
  for (const std::string& s : argv_s) argv.push_back(const_cast<char*>(s.c_str()));
  for (const std::string& s : env_s) envp.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const int rc = ::posix_spawnp(&child.pid_, spec.command.c_str(), &a.actions, &a.attr, argv.data(),
                                envp.data());
  for (int fd : {in[1], out[1], err[1]}) ::close(fd);
  if (rc != 0) {
    child.pid_ = -1;
    std::string why = std::strerror(rc);
    if (rc == ENOENT && !spec.cwd.empty()) why += " (or its cwd " + spec.cwd + " does not exist)";
    return Error{"cannot start '" + spec.command + "': " + why};
  }
  ::fcntl(child.in_, F_SETFL, ::fcntl(child.in_, F_GETFL) | O_NONBLOCK);
  return child;
}

void ChildProcess::close_stdin() {
  if (in_ >= 0) ::shutdown(in_, SHUT_WR);
  close_fd(in_);
}

bool ChildProcess::exited() {
  if (pid_ < 0) return true;
  if (!exit_status_.empty()) return true;
  // WNOWAIT: the child stays a zombie until stop() reaps it, so its pid (its group's id)
  // cannot be reused while stop() may still signal the group.
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    exit_status_ = "exited";
    return true;
  }
  if (info.si_pid == 0) return false;
  exit_status_ = describe_exit(info);
  return true;
}

bool ChildProcess::wait_exit(std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (!exited()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void ChildProcess::stop(std::chrono::milliseconds grace) {
  close_stdin();
  if (pid_ > 0) {
    if (!wait_exit(grace)) {
      ::kill(-pid_, SIGTERM);
      if (!wait_exit(grace)) {
        ::kill(-pid_, SIGKILL);
        wait_exit(std::chrono::milliseconds(5000));
      }
    }
    // What the server left running in its group (a grandchild) goes with it; then the
    // child is reaped.
    ::kill(-pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  close_fds();
}

void ChildProcess::close_fds() {
  close_fd(in_);
  close_fd(out_);
  close_fd(err_);
}

}  // namespace kvchat::mcp
