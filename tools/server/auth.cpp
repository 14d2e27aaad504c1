#include "server/auth.h"

#include <cstddef>

namespace kvchat::server {

bool constant_time_equal(std::string_view a, std::string_view b) {
  // Walks the longer of the two so that the time does not reveal a matching prefix.
  const size_t n = a.size() > b.size() ? a.size() : b.size();
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  for (size_t i = 0; i < n; ++i) {
    const unsigned x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0u;
    const unsigned y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0u;
    diff |= x ^ y;
  }
  return diff == 0;
}

bool authorized(std::string_view authorization, std::string_view key) {
  if (key.empty()) return true;
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() < kScheme.size() || authorization.substr(0, kScheme.size()) != kScheme) {
    return false;
  }
  return constant_time_equal(authorization.substr(kScheme.size()), key);
}

}  // namespace kvchat::server
