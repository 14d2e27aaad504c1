#include "args.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace kvchat::cli {

Result<Args> Args::parse(const std::vector<std::string>& argv, const std::set<std::string>& valued,
                         const std::set<std::string>& flags) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (valued.count(arg)) {
      if (i + 1 >= argv.size()) return Error{"option " + arg + " needs a value"};
      a.values_[arg] = argv[++i];
    } else if (flags.count(arg)) {
      a.values_[arg] = "1";
    } else {
      return Error{"unknown option '" + arg + "'"};
    }
  }
  return a;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<std::string> Args::require(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return Error{"missing required option " + name};
  return it->second;
}

Result<long long> Args::get_int(const std::string& name, long long fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (errno || end == it->second.c_str() || *end) {
    return Error{"option " + name + " expects an integer, got '" + it->second + "'"};
  }
  return v;
}

Result<double> Args::get_double(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (errno || end == it->second.c_str() || *end) {
    return Error{"option " + name + " expects a number, got '" + it->second + "'"};
  }
  return v;
}

Result<std::vector<int>> Args::get_positive_ints(const std::string& name,
                                                 const std::string& fallback) const {
  const std::string text = get(name, fallback);
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    errno = 0;
    char* end = nullptr;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (errno || item.empty() || *end || v < 1 || v > (1 << 30)) {
      return Error{"option " + name + " expects comma-separated positive integers, got '" + item +
                   "'"};
    }
    out.push_back(static_cast<int>(v));
    start = comma + 1;
  }
  return out;
}

}  // namespace kvchat::cli
