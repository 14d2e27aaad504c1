// Edits of a GGUF's bytes in place, for tests of what a loader refuses.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kvchat::test {

// Sets the GGML type id of tensor `name` in the tensor infos of a GGUF's bytes (its name
// as the header writes it: u64 length + bytes, then u32 n_dims, n_dims x u64, u32 type).
inline void set_tensor_type(std::vector<uint8_t>& bytes, const std::string& name,
                            uint32_t type_id) {
  std::vector<uint8_t> key(8 + name.size());
  const uint64_t len = name.size();
  std::memcpy(key.data(), &len, 8);
  std::memcpy(key.data() + 8, name.data(), name.size());
  auto at = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
  ASSERT_NE(at, bytes.end());
  size_t pos = static_cast<size_t>(at - bytes.begin()) + key.size();
  uint32_t n_dims = 0;
  std::memcpy(&n_dims, bytes.data() + pos, 4);
  pos += 4 + 8 * n_dims;
  std::memcpy(bytes.data() + pos, &type_id, 4);
}

}  // namespace kvchat::test
