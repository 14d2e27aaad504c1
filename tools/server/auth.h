// The bearer key check: "Authorization: Bearer <key>", compared in constant time (no
// early exit on the first differing byte, nor on a length mismatch beyond the loop).
#pragma once

#include <string_view>

namespace kvchat::server {

// True when `key` is empty (no key set) or `authorization` is exactly "Bearer <key>".
bool authorized(std::string_view authorization, std::string_view key);
// Byte strings equal, in time that depends only on their lengths.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace kvchat::server
