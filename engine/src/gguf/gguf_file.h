// GGUF reader: parses the header, metadata and tensor infos of a GGUF v2/v3 file
// and maps its tensor data. Every read is bounds-checked; a malformed file gives
// an Error naming the file, the key or tensor, and what was expected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/gguf_value.h"
#include "gguf/tensor_type.h"
#include "kvchat/result.h"

namespace kvchat::gguf {

struct KeyValue {
  std::string key;
  Value value;
};

struct TensorInfo {
  std::string name;
  std::vector<uint64_t> dims;  // GGML order: dims[0] is the contiguous (row) length
  TensorType type = TensorType::F32;
  uint64_t offset = 0;         // from the start of the data section
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;

  uint64_t rows() const;       // product of dims[1..]
};

class MappedFile;

class GgufFile {
 public:
  // Opens and maps a file. The mapping lives as long as the GgufFile.
  // With keep_unsupported_types, tensors of types kvchat cannot compute with do not fail
  // the parse: they are left out of tensors() and listed in unsupported_tensors(), so a
  // loader can report them together with its other problems.
  static Result<std::unique_ptr<GgufFile>> open(const std::string& path,
                                                bool keep_unsupported_types = false);
  // Parses bytes already in memory (the caller keeps them alive); `name` is used in messages.
  static Result<std::unique_ptr<GgufFile>> parse(std::span<const uint8_t> bytes, std::string name);

  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const { return bytes_.size(); }
  // Header, metadata and tensor infos: everything before the tensor data.
  std::span<const uint8_t> header_bytes() const { return bytes_.first(std::min<uint64_t>(data_offset_, bytes_.size())); }

  const std::vector<KeyValue>& metadata() const { return metadata_; }
  const Value* find(std::string_view key) const;
  const std::vector<TensorInfo>& tensors() const { return tensors_; }
  const TensorInfo* find_tensor(std::string_view name) const;
  struct UnsupportedTensor {
    std::string name;
    uint32_t ggml_type_id = 0;
  };
  const std::vector<UnsupportedTensor>& unsupported_tensors() const { return unsupported_; }

  // The mapped file read into anonymous memory at the same addresses (MappedFile::read_in);
  // nothing to do for parse()d bytes. change_on_disk(): empty while the file on disk is
  // the one opened (MappedFile::change_on_disk); always empty for parse()d bytes.
  Status read_in(const std::function<bool(double)>& progress) const;
  bool read_in_complete() const;
  std::string change_on_disk() const;

  // Pointer to the tensor's first byte (n_bytes long, inside the mapping).
  const uint8_t* tensor_data(const TensorInfo& t) const;

 private:
  GgufFile() = default;
  Status parse_all();

  std::string name_;
  std::unique_ptr<MappedFile> mapping_;
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<KeyValue> metadata_;
  std::vector<TensorInfo> tensors_;
  bool keep_unsupported_ = false;
  std::vector<UnsupportedTensor> unsupported_;
};

}  // namespace kvchat::gguf
