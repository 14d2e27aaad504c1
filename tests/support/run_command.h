// Runs a command line and captures its exit code, stdout and stderr (tests only).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "support/test_paths.h"

namespace kvchat::test {

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

// Single-quotes an argument for /bin/sh.
inline std::string sh_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline CommandResult run_command(const std::string& cmdline) {
  TempDir dir;
  const std::string err_file = dir.file("stderr");
  CommandResult r;
  FILE* p = popen((cmdline + " 2>" + sh_quote(err_file)).c_str(), "r");
  if (!p) return r;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream f(err_file);
  std::stringstream ss;
  ss << f.rdbuf();
  r.err = ss.str();
  return r;
}

// kvchat-cli with the given (already quoted) arguments.
inline CommandResult run_cli(const std::string& args) {
  return run_command(sh_quote(bin_path("kvchat-cli")) + " " + args);
}

}  // namespace kvchat::test
