// Command-line options of one kvchat-cli subcommand: `--name value` pairs and flags.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kvchat/result.h"

namespace kvchat::cli {

class Args {
 public:
  // `valued` options take a value, `flags` do not; anything else is an error.
  static Result<Args> parse(const std::vector<std::string>& argv,
                            const std::set<std::string>& valued,
                            const std::set<std::string>& flags);

  bool has(const std::string& name) const { return values_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  Result<std::string> require(const std::string& name) const;
  Result<long long> get_int(const std::string& name, long long fallback) const;
  Result<double> get_double(const std::string& name, double fallback) const;
  // A comma-separated list of positive integers ("512,4096"); never empty.
  Result<std::vector<int>> get_positive_ints(const std::string& name,
                                             const std::string& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace kvchat::cli
