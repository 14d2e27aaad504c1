#include "args.h"

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

}  // namespace kvchat::cli
