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
  uint64_t offset = 0;  // from the start of the data section
  uint64_t n_elements = 0;
  uint64_t n_bytes = 0;

  uint64_t rows() const;  // product of dims[1..]
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

  // Parses the header (metadata and tensor infos) from the first bytes of a file of
  // `file_size` bytes, e.g. read from a server with Range requests. Every check is the
  // full file's (counts and tensor extents are judged against file_size), so a prefix
  // that holds the whole header gives the same file, or the same error, as the whole
  // file would. When the prefix ends inside the header: no file and bytes_needed > 0,
  // the offset the parse needed (fetch at least that much from the start and call
  // again). The file is header-only: tensor_data() must not be read.
  struct HeaderParse {
    std::unique_ptr<GgufFile> file;  // null when bytes_needed > 0
    uint64_t bytes_needed = 0;
  };
  static Result<HeaderParse> parse_header(std::span<const uint8_t> prefix, uint64_t file_size,
                                          std::string name, bool keep_unsupported_types);

  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  const std::string& name() const { return name_; }
  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }
  uint64_t file_size() const { return file_size_; }
  bool header_only() const { return header_only_; }
  // Header, metadata and tensor infos: everything before the tensor data.
  std::span<const uint8_t> header_bytes() const {
    return bytes_.first(std::min<uint64_t>(data_offset_, bytes_.size()));
  }

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
  // damage(): empty while the mapped bytes are the file's as opened, else why not (a file
  // cut short or rewritten under the part not read in: MappedFile::damage); always empty
  // for parse()d bytes.
  Status read_in(const std::function<bool(double)>& progress) const;
  // MappedFile::release_pages for bytes of this file's tensors; nothing for parse()d bytes.
  void release_pages(const uint8_t* p, uint64_t n) const;
  // n bytes of this file's tensors at p into dst: MappedFile::copy_out (pread, no faults on
  // the mapping), else a copy from the bytes (parse()d bytes, or pread failed).
  void copy_out(const uint8_t* p, uint64_t n, uint8_t* dst) const;
  bool read_in_complete() const;
  std::string change_on_disk() const;
  std::string damage() const;

  // Pointer to the tensor's first byte (n_bytes long, inside the mapping). Header-only:
  // a non-null stand-in (so that views of the weights can be built and checked) that
  // must never be read.
  const uint8_t* tensor_data(const TensorInfo& t) const;

 private:
  GgufFile() = default;
  // bytes_needed: set when the failure only needed more of a prefix (parse_header).
  Status parse_all(uint64_t* bytes_needed = nullptr);

  std::string name_;
  std::unique_ptr<MappedFile> mapping_;
  std::span<const uint8_t> bytes_;
  uint64_t file_size_ = 0;  // bytes_.size(), or the whole file's size for a header-only parse
  bool header_only_ = false;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  std::vector<KeyValue> metadata_;
  std::vector<TensorInfo> tensors_;
  bool keep_unsupported_ = false;
  std::vector<UnsupportedTensor> unsupported_;
};

}  // namespace kvchat::gguf
