// GGUF layout (v2 and v3; all little-endian):
//   magic "GGUF" | u32 version | u64 n_tensors | u64 n_kv
//   n_kv x (string key | u32 value_type | value)
//   n_tensors x (string name | u32 n_dims | u64 dims[n_dims] | u32 ggml_type | u64 offset)
//   padding to general.alignment (default 32) | tensor data
// A string is u64 length + bytes; an array is u32 element type + u64 count + elements.
#include "gguf/gguf_file.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "gguf/byte_cursor.h"
#include "gguf/mapped_file.h"

namespace kvchat::gguf {

namespace {

constexpr uint32_t kMaxDims = 4;        // GGML_MAX_DIMS
constexpr uint32_t kMaxArrayDepth = 8;  // nested arrays deeper than this are hostile
// Largest real arrays: ~300k BPE merges, ~150k-token vocabularies. A parsed Value takes
// ~100 bytes, so these caps bound a hostile file's metadata to ~400 MB of memory.
constexpr uint64_t kMaxArrayItems = 1ull << 22;
constexpr uint64_t kMaxMetadataValues = 1ull << 22;  // all values in all arrays together
constexpr uint64_t kMaxStringBytes = 1ull << 26;     // 64 MiB (chat templates are a few KiB)

// Smallest encoding of one value of a type, to reject absurd counts before allocating.
uint64_t min_encoded_size(ValueType t) {
  switch (t) {
    case ValueType::UINT8:
    case ValueType::INT8:
    case ValueType::BOOL: return 1;
    case ValueType::UINT16:
    case ValueType::INT16: return 2;
    case ValueType::UINT32:
    case ValueType::INT32:
    case ValueType::FLOAT32: return 4;
    case ValueType::UINT64:
    case ValueType::INT64:
    case ValueType::FLOAT64:
    case ValueType::STRING: return 8;
    case ValueType::ARRAY: return 12;
  }
  return 1;
}

bool valid_value_type(uint32_t t) { return t <= static_cast<uint32_t>(ValueType::FLOAT64); }

class Parser {
 public:
  Parser(std::span<const uint8_t> bytes, uint64_t file_size, const std::string& name)
      : cur_(bytes, file_size), name_(name) {}

  Error fail(const std::string& what) const {
    return Error{name_ + ": " + what + " (at byte " + std::to_string(cur_.offset()) + ")"};
  }

  Status read_string(std::string& out, const std::string& what) {
    uint64_t len = 0;
    if (!cur_.read(len)) return fail("truncated: expected the length of " + what);
    if (len > kMaxStringBytes) {
      return fail(what + " has an absurd length " + std::to_string(len));
    }
    if (len > cur_.remaining()) {
      return fail("truncated: " + what + " declares " + std::to_string(len) + " bytes but only " +
                  std::to_string(cur_.remaining()) + " remain");
    }
    if (!cur_.read_bytes(len, out)) return fail("truncated: " + what);
    return {};
  }

  template <class T>
  Status read_scalar(T& out, const std::string& what) {
    if (!cur_.read(out)) return fail("truncated: expected " + what);
    return {};
  }

  // Reads one T and stores it widened into dst.
  template <class T, class Dst>
  Status read_into(Dst& dst, const std::string& key) {
    T x{};
    if (!cur_.read(x)) return fail("truncated: expected the value of key '" + key + "'");
    dst = x;
    return {};
  }

  Status read_value(ValueType type, Value& v, const std::string& key, uint32_t depth) {
    v.type = type;
    switch (type) {
      case ValueType::UINT8: return read_into<uint8_t>(v.u, key);
      case ValueType::INT8: return read_into<int8_t>(v.i, key);
      case ValueType::UINT16: return read_into<uint16_t>(v.u, key);
      case ValueType::INT16: return read_into<int16_t>(v.i, key);
      case ValueType::UINT32: return read_into<uint32_t>(v.u, key);
      case ValueType::INT32: return read_into<int32_t>(v.i, key);
      case ValueType::UINT64: return read_into<uint64_t>(v.u, key);
      case ValueType::INT64: return read_into<int64_t>(v.i, key);
      case ValueType::FLOAT32: return read_into<float>(v.f, key);
      case ValueType::FLOAT64: return read_into<double>(v.f, key);
      case ValueType::BOOL: {
        uint8_t x = 0;
        if (auto s = read_scalar(x, key); !s) return s;
        if (x > 1)
          return fail("key '" + key + "': bool value " + std::to_string(x) + " is not 0 or 1");
        v.u = x;
        break;
      }
      case ValueType::STRING: return read_string(v.s, "the string value of key '" + key + "'");
      case ValueType::ARRAY: return read_array(v, key, depth + 1);
    }
    return {};
  }

  Status read_array(Value& v, const std::string& key, uint32_t depth) {
    if (depth > kMaxArrayDepth) {
      return fail("key '" + key + "': arrays nested deeper than " + std::to_string(kMaxArrayDepth));
    }
    uint32_t elem_type = 0;
    uint64_t count = 0;
    if (auto s = read_scalar(elem_type, "the element type of array '" + key + "'"); !s) return s;
    if (!valid_value_type(elem_type)) {
      return fail("key '" + key + "': unknown array element type " + std::to_string(elem_type));
    }
    if (auto s = read_scalar(count, "the length of array '" + key + "'"); !s) return s;
    v.array_type = static_cast<ValueType>(elem_type);
    const uint64_t min_size = min_encoded_size(v.array_type);
    const std::string declares = "key '" + key + "': array declares " + std::to_string(count) +
                                 " " + std::string(value_type_name(v.array_type)) + " items";
    // Two reasons, each said only when it is the true one: a count no file of this size
    // could hold (each item takes at least min_size bytes), or one that fits but passes
    // the cap on what a parse may allocate.
    if (count > cur_.remaining() / min_size) {
      return fail(declares + ", more than the " + std::to_string(cur_.remaining()) +
                  " remaining bytes can hold (at least " + std::to_string(min_size) +
                  " bytes each)");
    }
    if (count > kMaxArrayItems) {
      return fail(declares + ", more than kvchat's limit of " + std::to_string(kMaxArrayItems) +
                  " items per array (real models' largest, vocabularies and merges, hold a few "
                  "hundred thousand)");
    }
    total_values_ += count;
    if (total_values_ > kMaxMetadataValues) {
      return fail("key '" + key + "': more than kvchat's limit of " +
                  std::to_string(kMaxMetadataValues) + " metadata values in all arrays together");
    }
    v.array.resize(count);
    for (uint64_t k = 0; k < count; ++k) {
      if (auto s = read_value(v.array_type, v.array[k], key, depth); !s) return s;
    }
    return {};
  }

  // The fixed header: magic, version and the two counts, each count checked against what
  // a file of file_size bytes could hold.
  Status read_counts(uint32_t& version, uint64_t& n_tensors, uint64_t& n_kv, uint64_t file_size) {
    uint32_t magic = 0;
    if (!cur_.read(magic)) return fail("truncated: too short for a GGUF header");
    if (magic != 0x46554747u) {  // "GGUF" little-endian
      return fail("not a GGUF file (bad magic; expected the bytes 'GGUF')");
    }
    if (auto s = read_scalar(version, "the GGUF version"); !s) return s;
    if (version != 2 && version != 3) {
      return fail("unsupported GGUF version " + std::to_string(version) + " (expected 2 or 3)");
    }
    if (auto s = read_scalar(n_tensors, "the tensor count"); !s) return s;
    if (auto s = read_scalar(n_kv, "the metadata count"); !s) return s;
    // A key-value pair takes at least 8 (key length) + 4 (type) + 1 bytes; a tensor info
    // at least 8 + 4 + 4 + 8.
    if (n_kv > cur_.remaining() / 13) {
      return fail("absurd metadata count " + std::to_string(n_kv) + " for a file of " +
                  std::to_string(file_size) + " bytes");
    }
    if (n_tensors > cur_.remaining() / 24) {
      return fail("absurd tensor count " + std::to_string(n_tensors) + " for a file of " +
                  std::to_string(file_size) + " bytes");
    }
    return {};
  }

  // The n_kv key-value pairs, appended to metadata; keys must be unique.
  Status read_metadata(uint64_t n_kv, std::vector<KeyValue>& metadata) {
    // Grown entry by entry: a prefix's counts are judged against the whole file's size,
    // which its server declares, so they bound nothing in memory.
    metadata.reserve(std::min<uint64_t>(n_kv, 1024));
    std::unordered_set<std::string> keys;
    for (uint64_t k = 0; k < n_kv; ++k) {
      KeyValue& kv = metadata.emplace_back();
      if (auto s = read_string(kv.key, "metadata key #" + std::to_string(k)); !s) return s;
      if (!keys.insert(kv.key).second) return fail("duplicate metadata key '" + kv.key + "'");
      uint32_t type = 0;
      if (auto s = read_scalar(type, "the value type of key '" + kv.key + "'"); !s) return s;
      if (!valid_value_type(type)) {
        return fail("key '" + kv.key + "': unknown value type " + std::to_string(type));
      }
      if (auto s = read_value(static_cast<ValueType>(type), kv.value, kv.key, 0); !s) return s;
    }
    return {};
  }

  // The n_tensors tensor infos, appended to tensors; names must be unique. With
  // keep_unsupported, a tensor of a type kvchat cannot compute with goes to unsupported
  // instead of failing the parse.
  Status read_tensor_infos(uint64_t n_tensors, uint64_t alignment, bool keep_unsupported,
                           std::vector<TensorInfo>& tensors,
                           std::vector<GgufFile::UnsupportedTensor>& unsupported) {
    tensors.reserve(std::min<uint64_t>(n_tensors, 1024));
    std::unordered_set<std::string> names;
    for (uint64_t k = 0; k < n_tensors; ++k) {
      TensorInfo& t = tensors.emplace_back();  // left out again when its type is unsupported
      if (auto s = read_string(t.name, "the name of tensor #" + std::to_string(k)); !s) return s;
      if (!names.insert(t.name).second) return fail("duplicate tensor name '" + t.name + "'");
      const std::string what = "tensor '" + t.name + "'";
      if (auto s = read_tensor_dims(t, what); !s) return s;
      uint32_t type_id = 0;
      if (auto s = read_scalar(type_id, "the type of " + what); !s) return s;
      auto traits = tensor_type_traits(type_id);
      if (!traits && keep_unsupported) {
        uint64_t offset = 0;
        if (auto s = read_scalar(offset, "the data offset of " + what); !s) return s;
        unsupported.push_back({t.name, type_id});
        tensors.pop_back();
        continue;
      }
      if (!traits) {
        return fail(what + ": tensor type " + std::string(ggml_type_name(type_id)) + " (id " +
                    std::to_string(type_id) + ") is not supported (kvchat reads " +
                    supported_tensor_type_names() + ")");
      }
      if (auto s = read_tensor_extent(t, what, *traits, alignment); !s) return s;
    }
    return {};
  }

  // A tensor's dimension count and dimensions into t.dims and t.n_elements.
  Status read_tensor_dims(TensorInfo& t, const std::string& what) {
    uint32_t n_dims = 0;
    if (auto s = read_scalar(n_dims, "the dimension count of " + what); !s) return s;
    if (n_dims == 0 || n_dims > kMaxDims) {
      return fail(what + ": " + std::to_string(n_dims) + " dimensions (expected 1 to 4)");
    }
    t.dims.resize(n_dims);
    t.n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      if (auto s = read_scalar(t.dims[d], "dimension " + std::to_string(d) + " of " + what); !s)
        return s;
      if (t.dims[d] == 0 || t.dims[d] > (1ull << 40) || t.n_elements > (1ull << 50) / t.dims[d]) {
        return fail(what + ": dimension " + std::to_string(d) + " = " + std::to_string(t.dims[d]) +
                    " is zero or absurdly large");
      }
      t.n_elements *= t.dims[d];
    }
    return {};
  }

  // A supported tensor's type, byte size and data offset (read here, aligned).
  Status read_tensor_extent(TensorInfo& t, const std::string& what, const TensorTypeTraits& traits,
                            uint64_t alignment) {
    t.type = traits.type;
    if (t.dims[0] % traits.block_elements != 0) {
      return fail(what + ": row length " + std::to_string(t.dims[0]) + " is not a multiple of " +
                  std::to_string(traits.block_elements) + " as " + std::string(traits.name) +
                  " requires");
    }
    t.n_bytes = t.n_elements / traits.block_elements * traits.block_bytes;
    if (auto s = read_scalar(t.offset, "the data offset of " + what); !s) return s;
    if (t.offset % alignment != 0) {
      return fail(what + ": data offset " + std::to_string(t.offset) +
                  " is not a multiple of the alignment " + std::to_string(alignment));
    }
    return {};
  }

  ByteCursor cur_;
  const std::string& name_;
  uint64_t total_values_ = 0;
};

// Every tensor's data lies inside the data section of data_size bytes.
Status check_tensors_in_data(const std::string& name, const std::vector<TensorInfo>& tensors,
                             uint64_t data_size) {
  for (const TensorInfo& t : tensors) {
    if (t.offset > data_size || t.n_bytes > data_size - t.offset) {
      return Error{name + ": tensor '" + t.name + "': data [" + std::to_string(t.offset) + ", " +
                   std::to_string(t.offset + t.n_bytes) + ") lies outside the data section of " +
                   std::to_string(data_size) + " bytes (file truncated?)"};
    }
  }
  return {};
}

// No two tensors' data overlap.
Status check_tensors_disjoint(const std::string& name, const std::vector<TensorInfo>& tensors) {
  std::vector<const TensorInfo*> by_offset;
  for (const TensorInfo& t : tensors) by_offset.push_back(&t);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const TensorInfo* a, const TensorInfo* b) { return a->offset < b->offset; });
  for (size_t k = 1; k < by_offset.size(); ++k) {
    const TensorInfo* prev = by_offset[k - 1];
    if (prev->offset + prev->n_bytes > by_offset[k]->offset) {
      return Error{name + ": tensors '" + prev->name + "' and '" + by_offset[k]->name +
                   "' overlap in the data section"};
    }
  }
  return {};
}

}  // namespace

uint64_t TensorInfo::rows() const {
  uint64_t r = 1;
  for (size_t d = 1; d < dims.size(); ++d) r *= dims[d];
  return r;
}

GgufFile::~GgufFile() = default;

Status GgufFile::read_in(const std::function<bool(double)>& progress) const {
  if (!mapping_) {
    if (progress) progress(1.0);
    return {};
  }
  return mapping_->read_in(progress);
}

void GgufFile::release_pages(const uint8_t* p, uint64_t n) const {
  if (mapping_) mapping_->release_pages(p, static_cast<size_t>(n));
}

void GgufFile::copy_out(const uint8_t* p, uint64_t n, uint8_t* dst) const {
  if (mapping_ && mapping_->copy_out(p, static_cast<size_t>(n), dst)) return;
  std::memcpy(dst, p, n);
}

bool GgufFile::read_in_complete() const { return !mapping_ || mapping_->read_in_complete(); }

std::string GgufFile::change_on_disk() const {
  return mapping_ ? mapping_->change_on_disk() : std::string();
}

std::string GgufFile::damage() const { return mapping_ ? mapping_->damage() : std::string(); }

Result<std::unique_ptr<GgufFile>> GgufFile::open(const std::string& path,
                                                 bool keep_unsupported_types) {
  auto mapping = MappedFile::open(path);
  if (!mapping) return mapping.error();
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->keep_unsupported_ = keep_unsupported_types;
  file->name_ = path;
  file->bytes_ = mapping.value()->bytes();
  file->file_size_ = file->bytes_.size();
  file->mapping_ = std::move(mapping.value());
  Status parsed = file->parse_all();
  // A header read from a file cut short meanwhile read zeros (mapping_guard.h): whatever
  // the parse made of them, the true reason is the cut.
  if (const std::string d = file->damage(); !d.empty())
    return Error{path + ": the model file was " + d};
  if (!parsed) return Error{parsed.message()};
  return file;
}

Result<std::unique_ptr<GgufFile>> GgufFile::parse(std::span<const uint8_t> bytes,
                                                  std::string name) {
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->name_ = std::move(name);
  file->bytes_ = bytes;
  file->file_size_ = bytes.size();
  if (auto s = file->parse_all(); !s) return Error{s.message()};
  return file;
}

Result<GgufFile::HeaderParse> GgufFile::parse_header(std::span<const uint8_t> prefix,
                                                     uint64_t file_size, std::string name,
                                                     bool keep_unsupported_types) {
  if (prefix.size() > file_size) {
    return Error{name + ": the prefix of " + std::to_string(prefix.size()) +
                 " bytes is longer than the file of " + std::to_string(file_size) + " bytes"};
  }
  std::unique_ptr<GgufFile> file(new GgufFile());
  file->name_ = std::move(name);
  file->bytes_ = prefix;
  file->file_size_ = file_size;
  file->header_only_ = true;
  file->keep_unsupported_ = keep_unsupported_types;
  HeaderParse out;
  if (auto s = file->parse_all(&out.bytes_needed); !s) {
    if (out.bytes_needed > 0) return out;  // the prefix ends inside the header
    return Error{s.message()};
  }
  out.file = std::move(file);
  return out;
}

Status GgufFile::parse_all(uint64_t* bytes_needed) {
  Parser p(bytes_, file_size_, name_);
  uint64_t n_tensors = 0;
  auto parse = [&]() -> Status {
    uint64_t n_kv = 0;
    if (auto s = p.read_counts(version_, n_tensors, n_kv, file_size_); !s) return s;
    if (auto s = p.read_metadata(n_kv, metadata_); !s) return s;
    if (const Value* a = find("general.alignment")) {
      auto al = a->as_uint();
      if (!al || *al == 0 || (*al & (*al - 1)) != 0 || *al > (1u << 20)) {
        return p.fail("general.alignment must be a power of two up to 1 MiB, got " +
                      a->to_display_string());
      }
      alignment_ = *al;
    }
    return p.read_tensor_infos(n_tensors, alignment_, keep_unsupported_, tensors_, unsupported_);
  };
  if (auto s = parse(); !s) {
    // A failure that only needed more of the prefix: the offset it needed.
    if (bytes_needed && p.cur_.wanted() > 0) *bytes_needed = p.cur_.wanted();
    return s;
  }

  uint64_t header_end = p.cur_.offset();
  data_offset_ = (header_end + alignment_ - 1) / alignment_ * alignment_;
  if (data_offset_ > file_size_ && n_tensors > 0) {
    return Error{name_ + ": truncated: the tensor data section would start at byte " +
                 std::to_string(data_offset_) + " but the file has " + std::to_string(file_size_) +
                 " bytes"};
  }
  const uint64_t data_size = file_size_ > data_offset_ ? file_size_ - data_offset_ : 0;
  if (auto s = check_tensors_in_data(name_, tensors_, data_size); !s) return s;
  return check_tensors_disjoint(name_, tensors_);
}

const Value* GgufFile::find(std::string_view key) const {
  for (const KeyValue& kv : metadata_) {
    if (kv.key == key) return &kv.value;
  }
  return nullptr;
}

const TensorInfo* GgufFile::find_tensor(std::string_view name) const {
  for (const TensorInfo& t : tensors_) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const uint8_t* GgufFile::tensor_data(const TensorInfo& t) const {
  if (header_only_) return bytes_.data();  // a stand-in address, never read (gguf_file.h)
  return bytes_.data() + data_offset_ + t.offset;
}

}  // namespace kvchat::gguf
