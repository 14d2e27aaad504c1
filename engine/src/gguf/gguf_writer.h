// GgufWriter: builds a GGUF v3 file (metadata + tensors). Used by `kvchat-cli mkmodel`
// (synthetic models of real shapes) and by tests that generate malformed files.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "gguf/gguf_value.h"
#include "gguf/tensor_type.h"
#include "kvchat/result.h"

namespace kvchat::gguf {

class GgufWriter {
 public:
  // Fills `n_bytes` of tensor data at `dst`.
  using Filler = std::function<void(uint8_t* dst, uint64_t n_bytes)>;

  explicit GgufWriter(uint64_t alignment = 32) : alignment_(alignment) {}

  void set(const std::string& key, Value value);
  void set_u32(const std::string& key, uint32_t v);
  void set_f32(const std::string& key, float v);
  void set_bool(const std::string& key, bool v);
  void set_string(const std::string& key, const std::string& v);
  void set_strings(const std::string& key, const std::vector<std::string>& v);
  void set_f32s(const std::string& key, const std::vector<float>& v);
  void set_i32s(const std::string& key, const std::vector<int32_t>& v);
  void set_bools(const std::string& key, const std::vector<bool>& v);

  // dims in GGML order (dims[0] = row length).
  void add_tensor(const std::string& name, std::vector<uint64_t> dims, TensorType type,
                  Filler fill);
  void add_tensor(const std::string& name, std::vector<uint64_t> dims, TensorType type,
                  std::span<const uint8_t> data);

  // The whole file in memory (small files, tests).
  std::vector<uint8_t> to_bytes() const;
  // Writes atomically: a temporary file beside `path`, then rename.
  Status write_file(const std::string& path) const;

 private:
  struct PendingTensor {
    std::string name;
    std::vector<uint64_t> dims;
    TensorType type;
    uint64_t n_bytes;
    uint64_t offset;
    Filler fill;
  };
  std::vector<uint8_t> header_bytes() const;

  uint64_t alignment_;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<PendingTensor> tensors_;
  uint64_t data_size_ = 0;
};

}  // namespace kvchat::gguf
