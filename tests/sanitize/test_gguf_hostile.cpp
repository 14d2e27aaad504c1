// Hostile GGUF files, built inside the test from a valid tiny llama model and then
// damaged, fed to the parser (from memory) and to Model::load (from a file), all under
// ASan + UBSan. Each must end in an error whose message names the file and the detail
// that is wrong (the key, the tensor, the expected value) -- never in a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "gguf/gguf_file.h"
#include "gguf/gguf_writer.h"
#include "kvchat/model.h"
#include "kvchat/tokenizer.h"
#include "numeric/convert.h"

namespace kvchat {
namespace {

namespace fs = std::filesystem;
using gguf::GgufFile;
using gguf::GgufWriter;
using gguf::TensorType;
using gguf::Value;
using gguf::ValueType;
using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------------------------------
// The valid base model: llama, dim 64, 2 heads of 32, 1 KV head, ff 128, 2 layers,
// 300 pieces (<unk> <s> </s>, the 256 byte pieces, letters, "▁x" words).

constexpr int kLayers = 2, kDim = 64, kHeads = 2, kKvHeads = 1, kFf = 128, kVocab = 300;
constexpr int kHeadDim = kDim / kHeads, kKvDim = kHeadDim * kKvHeads;

// What a variant changes in the base; the default is the valid model.
struct Spec {
  std::set<std::string> omit_keys;
  std::set<std::string> omit_tensors;
  std::map<std::string, std::vector<uint64_t>> dims;  // tensor name -> GGML dims
  std::function<void(std::vector<std::string>&, std::vector<float>&, std::vector<int32_t>&)>
      edit_vocab;
  std::function<void(GgufWriter&)> edit_metadata;  // runs after the base keys (set replaces)
};

struct Vocab {
  std::vector<std::string> pieces;
  std::vector<float> scores;
  std::vector<int32_t> types;
};

Vocab make_vocab() {
  Vocab v;
  auto add = [&v](std::string piece, int32_t type, float score) {
    v.pieces.push_back(std::move(piece));
    v.types.push_back(type);
    v.scores.push_back(score);
  };
  add("<unk>", 2, 0);
  add("<s>", 3, 0);
  add("</s>", 3, 0);
  for (int b = 0; b < 256; ++b) {
    static const char* hex = "0123456789ABCDEF";
    add(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">", 6, 0);
  }
  const std::string space = "\xe2\x96\x81";  // "▁"
  add(space, 1, -1);
  for (char c = 'a'; c <= 'z'; ++c) add(std::string(1, c), 1, -2.0f - (c - 'a'));
  for (int k = 0; static_cast<int>(v.pieces.size()) < kVocab; ++k) {
    add(space + static_cast<char>('a' + k % 26) + static_cast<char>('a' + k / 26), 1,
        -30.0f - static_cast<float>(k));
  }
  return v;
}

uint64_t splitmix(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Deterministic small values, row by row, encoded as `type`.
GgufWriter::Filler values(TensorType type, uint64_t cols, uint64_t seed) {
  return [=](uint8_t* dst, uint64_t n_bytes) {
    const auto traits = *gguf::tensor_type_traits(static_cast<uint32_t>(type));
    const uint64_t row_bytes = cols / traits.block_elements * traits.block_bytes;
    std::vector<float> row(cols);
    uint64_t state = seed;
    for (uint64_t off = 0; off + row_bytes <= n_bytes; off += row_bytes) {
      for (float& x : row) x = static_cast<float>((splitmix(state) >> 40) * 0x1.0p-24 - 0.5) * 0.2f;
      quantize_row(type, row.data(), dst + off, static_cast<int64_t>(cols));
    }
  };
}

GgufWriter base_writer(const Spec& spec = {}) {
  GgufWriter w;
  auto u32 = [&](const std::string& key, uint32_t v) {
    if (!spec.omit_keys.count(key)) w.set_u32(key, v);
  };
  auto f32 = [&](const std::string& key, float v) {
    if (!spec.omit_keys.count(key)) w.set_f32(key, v);
  };
  auto str = [&](const std::string& key, const std::string& v) {
    if (!spec.omit_keys.count(key)) w.set_string(key, v);
  };
  str("general.architecture", "llama");
  str("general.name", "hostile-base");
  u32("general.alignment", 32);
  u32("llama.block_count", kLayers);
  u32("llama.context_length", 256);
  u32("llama.embedding_length", kDim);
  u32("llama.feed_forward_length", kFf);
  u32("llama.attention.head_count", kHeads);
  u32("llama.attention.head_count_kv", kKvHeads);
  f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  f32("llama.rope.freq_base", 10000.0f);
  u32("llama.rope.dimension_count", kHeadDim);

  Vocab v = make_vocab();
  if (spec.edit_vocab) spec.edit_vocab(v.pieces, v.scores, v.types);
  str("tokenizer.ggml.model", "llama");
  if (!spec.omit_keys.count("tokenizer.ggml.tokens"))
    w.set_strings("tokenizer.ggml.tokens", v.pieces);
  if (!spec.omit_keys.count("tokenizer.ggml.scores")) w.set_f32s("tokenizer.ggml.scores", v.scores);
  if (!spec.omit_keys.count("tokenizer.ggml.token_type")) {
    w.set_i32s("tokenizer.ggml.token_type", v.types);
  }
  u32("tokenizer.ggml.bos_token_id", 1);
  u32("tokenizer.ggml.eos_token_id", 2);
  u32("tokenizer.ggml.unknown_token_id", 0);
  if (!spec.omit_keys.count("tokenizer.ggml.add_bos_token")) {
    w.set_bool("tokenizer.ggml.add_bos_token", true);
  }
  if (spec.edit_metadata) spec.edit_metadata(w);

  uint64_t seed = 1;
  auto tensor = [&](const std::string& name, std::vector<uint64_t> dims, TensorType type) {
    if (spec.omit_tensors.count(name)) return;
    if (auto it = spec.dims.find(name); it != spec.dims.end()) dims = it->second;
    const uint64_t cols = dims[0];
    w.add_tensor(name, std::move(dims), type, values(type, cols, ++seed));
  };
  auto vec = [&](const std::string& name) {
    if (spec.omit_tensors.count(name)) return;
    std::vector<uint64_t> dims = {kDim};
    if (auto it = spec.dims.find(name); it != spec.dims.end()) dims = it->second;
    uint64_t n = 1;
    for (uint64_t d : dims) n *= d;
    w.add_tensor(name, std::move(dims), TensorType::F32, [n](uint8_t* dst, uint64_t) {
      const float one = 1.0f;
      for (uint64_t k = 0; k < n; ++k) std::memcpy(dst + 4 * k, &one, 4);
    });
  };
  tensor("token_embd.weight", {kDim, kVocab}, TensorType::F16);
  for (int l = 0; l < kLayers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    vec(p + "attn_norm.weight");
    tensor(p + "attn_q.weight", {kDim, kDim}, TensorType::F32);
    tensor(p + "attn_k.weight", {kDim, kKvDim}, TensorType::F32);
    tensor(p + "attn_v.weight", {kDim, kKvDim}, TensorType::BF16);
    tensor(p + "attn_output.weight", {kDim, kDim}, TensorType::F16);
    vec(p + "ffn_norm.weight");
    tensor(p + "ffn_gate.weight", {kDim, kFf}, TensorType::Q8_0);
    tensor(p + "ffn_up.weight", {kDim, kFf}, TensorType::Q8_0);
    tensor(p + "ffn_down.weight", {kFf, kDim}, TensorType::Q8_0);
  }
  vec("output_norm.weight");
  tensor("output.weight", {kDim, kVocab}, TensorType::Q4_0);
  return w;
}

Bytes base_bytes(const Spec& spec = {}) { return base_writer(spec).to_bytes(); }

// ---------------------------------------------------------------------------------------
// Byte surgery. The writer's layout: a key or tensor name is a u64 length + its bytes;
// a key is followed by u32 value type + value (arrays: u32 element type, u64 count);
// a tensor name by u32 n_dims, u64 dims[n_dims], u32 type, u64 offset.

template <class T>
void poke(Bytes& b, size_t at, T v) {
  if (at + sizeof(T) > b.size()) throw std::runtime_error("poke out of range");
  std::memcpy(b.data() + at, &v, sizeof(T));
}

template <class T>
T peek(const Bytes& b, size_t at) {
  if (at + sizeof(T) > b.size()) throw std::runtime_error("peek out of range");
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

// Offset just past the one length-prefixed occurrence of `s` (throws -- a failed test --
// when it occurs zero or several times: the generator is not what the test assumes).
size_t after_string(const Bytes& b, const std::string& s) {
  Bytes needle(8 + s.size());
  const uint64_t len = s.size();
  std::memcpy(needle.data(), &len, 8);
  std::memcpy(needle.data() + 8, s.data(), s.size());
  size_t found = SIZE_MAX;
  for (auto it = b.begin();
       (it = std::search(it, b.end(), needle.begin(), needle.end())) != b.end(); ++it) {
    if (found != SIZE_MAX) throw std::runtime_error("'" + s + "' occurs twice in the base file");
    found = static_cast<size_t>(it - b.begin()) + needle.size();
  }
  if (found == SIZE_MAX) throw std::runtime_error("'" + s + "' not found in the base file");
  return found;
}

struct KeyAt {
  size_t name;   // first byte of the key's characters
  size_t type;   // u32 value type
  size_t value;  // the value (arrays: u32 element type)
};

KeyAt key_at(const Bytes& b, const std::string& key) {
  const size_t end = after_string(b, key);
  return {end - key.size(), end, end + 4};
}

struct TensorAt {
  size_t name, n_dims;
  std::vector<size_t> dims;
  size_t type, offset;
};

TensorAt tensor_at(const Bytes& b, const std::string& name) {
  TensorAt t;
  const size_t end = after_string(b, name);
  t.name = end - name.size();
  t.n_dims = end;
  const uint32_t n = peek<uint32_t>(b, end);
  if (n < 1 || n > 4) throw std::runtime_error(name + ": not a tensor info");
  for (uint32_t d = 0; d < n; ++d) t.dims.push_back(end + 4 + 8 * d);
  t.type = end + 4 + 8 * n;
  t.offset = t.type + 4;
  return t;
}

// ---------------------------------------------------------------------------------------
// Running the cases.

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("kvchat_hostile_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

const TempDir& temp_dir() {
  static TempDir dir;
  return dir;
}

std::string write_file(const std::string& name, const Bytes& b) {
  const std::string path = temp_dir().file(name);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  f.close();
  if (!f) throw std::runtime_error("cannot write " + path);
  return path;
}

// The parser's verdict on a copy in a heap block of exactly the file's size, so that ASan
// reports even a one-byte read past the end (a std::vector may have spare capacity there).
struct Verdict {
  bool ok = false;
  std::string message;
};

Verdict parse_exact(const Bytes& b, const std::string& name) {
  std::unique_ptr<uint8_t[]> copy(new uint8_t[b.size()]);
  if (!b.empty()) std::memcpy(copy.get(), b.data(), b.size());
  auto r = GgufFile::parse({copy.get(), b.size()}, name);
  if (!r) return {false, r.message()};
  // What the fuzz harness checks: every tensor lies inside the input.
  for (const auto& t : (*r)->tensors()) {
    const uint8_t* p = (*r)->tensor_data(t);
    EXPECT_TRUE(p >= copy.get() && p + t.n_bytes <= copy.get() + b.size()) << t.name;
  }
  return {true, ""};
}

bool parses(const Bytes& b, const std::string& name) {
  const Verdict v = parse_exact(b, name);
  EXPECT_TRUE(v.ok) << v.message;
  return v.ok;
}

void expect_contains(const std::string& message, const std::vector<std::string>& fragments) {
  for (const std::string& f : fragments) {
    EXPECT_NE(message.find(f), std::string::npos) << "message: " << message << "\nlacks: " << f;
  }
}

// A parser-level defect: GgufFile::parse (memory) and Model::load (file) both reject it.
void expect_rejected(const std::string& case_name, const Bytes& b,
                     const std::vector<std::string>& fragments) {
  SCOPED_TRACE(case_name);
  const std::string name = case_name + ".gguf";
  const Verdict parsed = parse_exact(b, name);
  ASSERT_FALSE(parsed.ok) << "the parser accepted " << name;
  expect_contains(parsed.message, {name});
  expect_contains(parsed.message, fragments);

  const std::string path = write_file(name, b);
  auto model = Model::load(path);
  ASSERT_FALSE(model.ok()) << "Model::load accepted " << path;
  expect_contains(model.message(), {path});
  expect_contains(model.message(), fragments);
}

// A model-level defect: a well-formed GGUF that Model::load must refuse.
void expect_load_fails(const std::string& case_name, const Bytes& b,
                       const std::vector<std::string>& fragments) {
  SCOPED_TRACE(case_name);
  const std::string name = case_name + ".gguf";
  ASSERT_TRUE(parses(b, name)) << "the variant should be a well-formed GGUF";
  const std::string path = write_file(name, b);
  auto model = Model::load(path);
  ASSERT_FALSE(model.ok()) << "Model::load accepted " << path;
  expect_contains(model.message(), {path});
  expect_contains(model.message(), fragments);
}

// ---------------------------------------------------------------------------------------

TEST(GgufHostile, BaseModelIsValid) {
  const Bytes b = base_bytes();
  ASSERT_TRUE(parses(b, "base.gguf"));
  const std::string path = write_file("base.gguf", b);
  auto model = Model::load(path);
  ASSERT_TRUE(model.ok()) << model.message();
  const ModelInfo& info = (*model)->info();
  EXPECT_EQ(info.n_layers, kLayers);
  EXPECT_EQ(info.n_embd, kDim);
  EXPECT_EQ(info.n_heads, kHeads);
  EXPECT_EQ(info.n_kv_heads, kKvHeads);
  EXPECT_EQ(info.head_dim, kHeadDim);
  EXPECT_EQ(info.n_ff, kFf);
  EXPECT_EQ(info.n_vocab, kVocab);
  EXPECT_FALSE(info.tied_embeddings);
  EXPECT_EQ(info.name, "hostile-base");
  const Tokenizer& tok = (*model)->tokenizer();
  EXPECT_EQ(tok.n_vocab(), kVocab);
  const std::string text = "hello world";
  const auto ids = tok.encode(text, true);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.front(), tok.bos());
  EXPECT_EQ(tok.decode(ids), text);

  // The surgery helpers find what the cases below rely on.
  EXPECT_EQ(peek<uint32_t>(b, key_at(b, "llama.block_count").type), uint32_t(ValueType::UINT32));
  EXPECT_EQ(peek<uint32_t>(b, key_at(b, "tokenizer.ggml.tokens").value),
            uint32_t(ValueType::STRING));
  EXPECT_EQ(peek<uint64_t>(b, key_at(b, "tokenizer.ggml.tokens").value + 4), uint64_t(kVocab));
  EXPECT_EQ(peek<uint32_t>(b, tensor_at(b, "blk.0.ffn_up.weight").type),
            uint32_t(TensorType::Q8_0));
  EXPECT_EQ(peek<uint64_t>(b, tensor_at(b, "token_embd.weight").dims[1]), uint64_t(kVocab));
}

// Every prefix of the header (magic .. end of padding) and prefixes into the tensor data.
TEST(GgufHostile, Truncated) {
  const Bytes b = base_bytes();
  std::unique_ptr<GgufFile> full;
  {
    auto r = GgufFile::parse(b, "full.gguf");
    ASSERT_TRUE(r.ok()) << r.message();
    full = std::move(r.value());
  }
  const uint64_t data_offset = full->data_offset();
  ASSERT_GT(data_offset, 1000u);
  ASSERT_LT(data_offset, b.size());

  for (size_t len = 0; len < data_offset; ++len) {
    const Bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(len));
    const std::string name = "truncated-" + std::to_string(len) + ".gguf";
    const Verdict r = parse_exact(cut, name);
    ASSERT_FALSE(r.ok) << name;
    const std::string& m = r.message;
    ASSERT_NE(m.find(name), std::string::npos) << m;
    // A short read, or a count the remaining bytes cannot hold.
    const bool says_short =
        m.find("truncated") != std::string::npos ||
        m.find("for a file of " + std::to_string(len) + " bytes") != std::string::npos ||
        m.find("remaining bytes can hold") != std::string::npos;
    ASSERT_TRUE(says_short) << m;
  }

  // Into the data: every tensor boundary +-1 and a stride; the first tensor (file order)
  // that no longer fits must be named, and a cut inside the final padding is harmless.
  std::set<size_t> cuts;
  for (const auto& t : full->tensors()) {
    for (uint64_t at : {t.offset, t.offset + 1, t.offset + t.n_bytes - 1, t.offset + t.n_bytes}) {
      cuts.insert(data_offset + at);
    }
  }
  for (size_t len = data_offset; len < b.size(); len += 509) cuts.insert(len);
  cuts.insert(b.size() - 1);
  size_t rejected = 0;
  for (size_t len : cuts) {
    if (len > b.size() || len < data_offset) continue;
    const Bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(len));
    const std::string name = "truncated-data-" + std::to_string(len) + ".gguf";
    const std::string* first_out = nullptr;
    for (const auto& t : full->tensors()) {
      if (t.offset + t.n_bytes > len - data_offset) {
        first_out = &t.name;
        break;
      }
    }
    const Verdict r = parse_exact(cut, name);
    if (!first_out) {
      EXPECT_TRUE(r.ok) << name << ": " << r.message;
      continue;
    }
    ++rejected;
    ASSERT_FALSE(r.ok) << name;
    expect_contains(r.message, {name, "tensor '" + *first_out + "'", "outside the data section"});
  }
  EXPECT_GT(rejected, 50u);

  // The same through Model::load, for a few cuts.
  for (size_t len : {size_t{3}, size_t{24}, size_t{1000}, size_t(data_offset) - 1,
                     size_t(data_offset) + 100, b.size() - 100}) {
    const Bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(len));
    const std::string path = write_file("cut-" + std::to_string(len) + ".gguf", cut);
    auto m = Model::load(path);
    ASSERT_FALSE(m.ok()) << path;
    EXPECT_NE(m.message().find(path), std::string::npos) << m.message();
  }
}

TEST(GgufHostile, BadMagicAndVersion) {
  Bytes b = base_bytes();
  b[0] = 'X';
  expect_rejected("bad-magic", b, {"bad magic", "'GGUF'"});

  b = base_bytes();
  poke<uint32_t>(b, 4, 1);
  expect_rejected("version-1", b, {"unsupported GGUF version 1", "expected 2 or 3"});
  poke<uint32_t>(b, 4, 4);
  expect_rejected("version-4", b, {"unsupported GGUF version 4", "expected 2 or 3"});
  poke<uint32_t>(b, 4, 2);  // v2 has the same layout: accepted
  EXPECT_TRUE(parses(b, "version-2.gguf"));
}

TEST(GgufHostile, AbsurdCounts) {
  Bytes b = base_bytes();
  poke<uint64_t>(b, 8, 1000000000000ull);
  expect_rejected("tensor-count", b, {"absurd tensor count 1000000000000"});
  poke<uint64_t>(b, 8, UINT64_MAX);
  expect_rejected("tensor-count-max", b, {"absurd tensor count 18446744073709551615"});

  b = base_bytes();
  poke<uint64_t>(b, 16, 1ull << 40);
  expect_rejected("kv-count", b, {"absurd metadata count 1099511627776"});

  // The tokens array: a count no file could hold, then one just beyond this file.
  b = base_bytes();
  const KeyAt tokens = key_at(b, "tokenizer.ggml.tokens");
  poke<uint64_t>(b, tokens.value + 4, 1ull << 40);
  expect_rejected("array-length", b,
                  {"key 'tokenizer.ggml.tokens'", "array declares 1099511627776 string items"});
  poke<uint64_t>(b, tokens.value + 4, b.size() / 8 + 1);
  expect_rejected("array-length-file", b,
                  {"key 'tokenizer.ggml.tokens'",
                   "array declares " + std::to_string(b.size() / 8 + 1) + " string items"});
}

TEST(GgufHostile, AbsurdStrings) {
  Bytes b = base_bytes();
  const KeyAt name = key_at(b, "general.name");
  ASSERT_EQ(peek<uint32_t>(b, name.type), uint32_t(ValueType::STRING));
  poke<uint64_t>(b, name.value, 1ull << 62);
  expect_rejected("string-length", b,
                  {"the string value of key 'general.name'", "absurd length 4611686018427387904"});
  poke<uint64_t>(b, name.value, b.size());  // plausible, but longer than what remains
  expect_rejected("string-length-file", b,
                  {"truncated: the string value of key 'general.name' declares " +
                   std::to_string(b.size()) + " bytes"});

  // The length of a key itself (the first key starts at byte 24).
  b = base_bytes();
  poke<uint64_t>(b, 24, 1ull << 40);
  expect_rejected("key-length", b, {"metadata key #0", "absurd length 1099511627776"});
  // A tensor name.
  b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "output_norm.weight").name - 8, 1ull << 25);
  expect_rejected("tensor-name-length", b, {"the name of tensor #", "declares 33554432 bytes"});
}

TEST(GgufHostile, UnknownTypes) {
  Bytes b = base_bytes();
  const KeyAt bc = key_at(b, "llama.block_count");
  poke<uint32_t>(b, bc.type, 13);
  expect_rejected("value-type-13", b, {"key 'llama.block_count'", "unknown value type 13"});
  poke<uint32_t>(b, bc.type, 0xFFFFFFFFu);
  expect_rejected("value-type-max", b,
                  {"key 'llama.block_count'", "unknown value type 4294967295"});

  b = base_bytes();
  poke<uint32_t>(b, key_at(b, "tokenizer.ggml.scores").value, 13);
  expect_rejected("array-element-type", b,
                  {"key 'tokenizer.ggml.scores'", "unknown array element type 13"});
}

Value nested(int depth) {
  Value v;
  v.type = ValueType::ARRAY;
  if (depth == 1) {
    v.array_type = ValueType::UINT8;
    v.array.resize(2);
    v.array[1].u = 7;
    return v;
  }
  v.array_type = ValueType::ARRAY;
  v.array.push_back(nested(depth - 1));
  return v;
}

TEST(GgufHostile, NestedArrays) {
  Spec ok;
  ok.edit_metadata = [](GgufWriter& w) { w.set("test.nested", nested(8)); };
  EXPECT_TRUE(parses(base_bytes(ok), "nested-8.gguf"));  // the limit itself is fine

  Spec deep;
  deep.edit_metadata = [](GgufWriter& w) { w.set("test.nested", nested(9)); };
  expect_rejected("nested-9", base_bytes(deep),
                  {"key 'test.nested'", "arrays nested deeper than 8"});

  // 100000 levels by hand: must stop at the limit, not recurse through them all.
  Bytes b;
  auto put = [&b](auto v) {
    const size_t at = b.size();
    b.resize(at + sizeof(v));
    std::memcpy(b.data() + at, &v, sizeof(v));
  };
  put(uint32_t{0x46554747u});
  put(uint32_t{3});
  put(uint64_t{0});
  put(uint64_t{1});
  put(uint64_t{4});
  for (char c : std::string("deep")) put(c);
  put(uint32_t{9});
  for (int k = 0; k < 100000; ++k) {
    put(uint32_t{9});
    put(uint64_t{1});
  }
  expect_rejected("nested-100000", b, {"key 'deep'", "arrays nested deeper than 8"});
}

TEST(GgufHostile, BoolValue2) {
  Bytes b = base_bytes();
  const KeyAt k = key_at(b, "tokenizer.ggml.add_bos_token");
  ASSERT_EQ(peek<uint32_t>(b, k.type), uint32_t(ValueType::BOOL));
  ASSERT_EQ(peek<uint8_t>(b, k.value), 1);
  poke<uint8_t>(b, k.value, 2);
  expect_rejected("bool-2", b, {"key 'tokenizer.ggml.add_bos_token'", "bool value 2"});
}

TEST(GgufHostile, Duplicates) {
  Bytes b = base_bytes();
  const KeyAt eos = key_at(b, "tokenizer.ggml.eos_token_id");
  b[eos.name + std::strlen("tokenizer.ggml.")] = 'b';  // eos -> bos: same length
  expect_rejected("duplicate-key", b, {"duplicate metadata key 'tokenizer.ggml.bos_token_id'"});

  b = base_bytes();
  const TensorAt v = tensor_at(b, "blk.1.attn_v.weight");
  b[v.name + std::strlen("blk.1.attn_")] = 'k';
  expect_rejected("duplicate-tensor", b, {"duplicate tensor name 'blk.1.attn_k.weight'"});
}

TEST(GgufHostile, Dimensions) {
  for (uint32_t n : {0u, 5u, 0xFFFFFFFFu}) {
    Bytes b = base_bytes();
    poke<uint32_t>(b, tensor_at(b, "blk.0.attn_q.weight").n_dims, n);
    expect_rejected(
        "n-dims-" + std::to_string(n), b,
        {"tensor 'blk.0.attn_q.weight'", std::to_string(n) + " dimensions (expected 1 to 4)"});
  }

  Bytes b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "blk.1.ffn_down.weight").dims[1], 0);
  expect_rejected("zero-dim", b,
                  {"tensor 'blk.1.ffn_down.weight'", "dimension 1 = 0 is zero or absurdly large"});

  b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "token_embd.weight").dims[1], 1ull << 47);
  expect_rejected(
      "huge-dim", b,
      {"tensor 'token_embd.weight'", "dimension 1 = 140737488355328", "absurdly large"});
  poke<uint64_t>(b, tensor_at(b, "token_embd.weight").dims[1], UINT64_MAX);
  expect_rejected("huge-dim-max", b,
                  {"tensor 'token_embd.weight'", "dimension 1 = 18446744073709551615"});

  // Four dimensions of 2^20 each: the product 2^80 overflows 64 bits.
  Spec four;
  four.edit_metadata = [](GgufWriter& w) {
    w.add_tensor("test.cube", {32, 2, 2, 2}, TensorType::F32, [](uint8_t*, uint64_t) {});
  };
  b = base_bytes(four);
  ASSERT_TRUE(parses(b, "four-dims.gguf"));
  const TensorAt cube = tensor_at(b, "test.cube");
  for (size_t at : cube.dims) poke<uint64_t>(b, at, 1ull << 20);
  expect_rejected("dims-overflow", b,
                  {"tensor 'test.cube'", "dimension 2 = 1048576 is zero or absurdly large"});

  // Large but representable: the tensor simply does not fit in the file.
  b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "token_embd.weight").dims[1], 1ull << 30);
  expect_rejected("dims-beyond-file", b,
                  {"tensor 'token_embd.weight'", "outside the data section"});
}

TEST(GgufHostile, TensorTypes) {
  Bytes b = base_bytes();
  const TensorAt q = tensor_at(b, "blk.0.attn_q.weight");
  poke<uint32_t>(b, q.type, 16);
  expect_rejected("type-iq2xxs", b,
                  {"tensor 'blk.0.attn_q.weight'", "tensor type IQ2_XXS (id 16) is not supported"});
  poke<uint32_t>(b, q.type, 15);  // Q8_K: an activation format, never a stored weight here
  expect_rejected("type-q8k", b,
                  {"tensor 'blk.0.attn_q.weight'", "tensor type Q8_K (id 15) is not supported"});
  // Q4_K is read, but its rows are whole 256-value super-blocks; these rows are 64 long.
  poke<uint32_t>(b, q.type, 12);
  expect_rejected(
      "type-q4k-row-64", b,
      {"tensor 'blk.0.attn_q.weight'", "row length 64 is not a multiple of 256", "Q4_K"});
  poke<uint32_t>(b, q.type, 999);
  expect_rejected(
      "type-999", b,
      {"tensor 'blk.0.attn_q.weight'", "tensor type unknown (id 999) is not supported"});

  b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "blk.0.ffn_up.weight").dims[0], 48);
  expect_rejected(
      "q8-row-48", b,
      {"tensor 'blk.0.ffn_up.weight'", "row length 48 is not a multiple of 32", "Q8_0"});
  b = base_bytes();
  poke<uint64_t>(b, tensor_at(b, "output.weight").dims[0], 40);
  expect_rejected("q4-row-40", b,
                  {"tensor 'output.weight'", "row length 40 is not a multiple of 32", "Q4_0"});
}

TEST(GgufHostile, Offsets) {
  Bytes b = base_bytes();
  const TensorAt k = tensor_at(b, "blk.0.attn_k.weight");
  const uint64_t k_off = peek<uint64_t>(b, k.offset);
  ASSERT_GT(k_off, 0u);
  poke<uint64_t>(b, k.offset, k_off + 16);
  expect_rejected("misaligned", b,
                  {"tensor 'blk.0.attn_k.weight'", "data offset " + std::to_string(k_off + 16) +
                                                       " is not a multiple of the alignment 32"});

  // Past the end of the file, far and near the top of the 64-bit range.
  for (uint64_t off : {uint64_t{1} << 40, UINT64_MAX - 31, uint64_t(b.size()) / 32 * 32}) {
    b = base_bytes();
    poke<uint64_t>(b, tensor_at(b, "output_norm.weight").offset, off);
    expect_rejected("out-of-file-" + std::to_string(off), b,
                    {"tensor 'output_norm.weight'", "data [" + std::to_string(off),
                     "outside the data section"});
  }

  // attn_k moved onto attn_q (same start), into its middle, onto its last 32 bytes.
  const std::string q_name = "blk.0.attn_q.weight", k_name = "blk.0.attn_k.weight";
  const uint64_t q_bytes = uint64_t{kDim} * kDim * 4;
  for (uint64_t shift : {uint64_t{0}, uint64_t{64}, q_bytes - 32}) {
    b = base_bytes();
    const uint64_t q_off = peek<uint64_t>(b, tensor_at(b, q_name).offset);
    poke<uint64_t>(b, tensor_at(b, k_name).offset, q_off + shift);
    expect_rejected("overlap-" + std::to_string(shift), b,
                    {"'" + q_name + "'", "'" + k_name + "'", "overlap in the data section"});
  }
  // Right after attn_q is where the writer put attn_k: touching is not overlapping.
  b = base_bytes();
  EXPECT_EQ(peek<uint64_t>(b, tensor_at(b, k_name).offset),
            peek<uint64_t>(b, tensor_at(b, q_name).offset) + q_bytes);
  EXPECT_TRUE(parses(b, "adjacent.gguf"));
}

TEST(GgufHostile, Alignment) {
  for (uint32_t al : {48u, 0u, 1u << 21}) {
    Bytes b = base_bytes();
    poke<uint32_t>(b, key_at(b, "general.alignment").value, al);
    expect_rejected(
        "alignment-" + std::to_string(al), b,
        {"general.alignment must be a power of two up to 1 MiB, got " + std::to_string(al)});
  }
  // A valid power of two that the tensor offsets (multiples of 32) do not honour.
  Bytes b = base_bytes();
  poke<uint32_t>(b, key_at(b, "general.alignment").value, 4096);
  expect_rejected("alignment-4096", b, {"is not a multiple of the alignment 4096"});
  // Of the wrong type.
  b = base_bytes();
  poke<uint32_t>(b, key_at(b, "general.alignment").type, uint32_t(ValueType::FLOAT32));
  expect_rejected("alignment-float", b, {"general.alignment must be a power of two"});
}

// ---------------------------------------------------------------------------------------
// Well-formed GGUF files that are not a usable llama model.

TEST(GgufHostile, ModelMissingTensor) {
  for (const char* name : {"blk.1.ffn_down.weight", "output_norm.weight", "token_embd.weight",
                           "blk.0.attn_q.weight"}) {
    Spec s;
    s.omit_tensors = {name};
    expect_load_fails(std::string("missing-") + name, base_bytes(s),
                      {"missing required tensor '" + std::string(name) + "'"});
  }
  // More layers declared than present.
  Spec s;
  s.edit_metadata = [](GgufWriter& w) { w.set_u32("llama.block_count", 3); };
  expect_load_fails("block-count-3", base_bytes(s),
                    {"missing required tensor 'blk.2.attn_norm.weight'"});
}

TEST(GgufHostile, ModelWrongShape) {
  Spec s;
  s.dims["blk.0.attn_k.weight"] = {kDim, kDim};
  expect_load_fails("shape-attn-k", base_bytes(s),
                    {"tensor 'blk.0.attn_k.weight' has shape [64, 64], expected [64, 32]"});
  s = {};
  s.dims["blk.1.ffn_norm.weight"] = {32};
  expect_load_fails("shape-ffn-norm", base_bytes(s),
                    {"tensor 'blk.1.ffn_norm.weight' has shape [32], expected [64]"});
  s = {};
  s.dims["blk.1.ffn_down.weight"] = {kDim, kFf};  // transposed
  expect_load_fails("shape-ffn-down", base_bytes(s),
                    {"tensor 'blk.1.ffn_down.weight' has shape [64, 128], expected [128, 64]"});
  s = {};
  s.dims["token_embd.weight"] = {kDim, kVocab, 1};
  expect_load_fails("shape-embd-3d", base_bytes(s),
                    {"tensor 'token_embd.weight' has shape [64, 300, 1], expected [64, n_vocab]"});
  s = {};
  s.dims["output.weight"] = {kDim, kVocab + 32};
  expect_load_fails("shape-output", base_bytes(s),
                    {"tensor 'output.weight' has shape [64, 332], expected [64, 300]"});
}

TEST(GgufHostile, ModelHyperParameters) {
  Spec s;
  s.edit_metadata = [](GgufWriter& w) { w.set_string("general.architecture", "gpt2"); };
  expect_load_fails("arch-gpt2", base_bytes(s), {"architecture 'gpt2' is not supported"});
  s = {};
  s.omit_keys = {"general.architecture"};
  expect_load_fails("arch-missing", base_bytes(s), {"missing metadata key 'general.architecture'"});

  s = {};
  s.omit_keys = {"llama.block_count"};
  expect_load_fails("no-block-count", base_bytes(s), {"missing metadata key 'llama.block_count'"});
  s = {};
  s.edit_metadata = [](GgufWriter& w) { w.set_string("llama.block_count", "2"); };
  expect_load_fails("block-count-string", base_bytes(s),
                    {"metadata key 'llama.block_count' must be an integer, got string"});
  s = {};
  s.edit_metadata = [](GgufWriter& w) { w.set_u32("llama.block_count", 0); };
  expect_load_fails("block-count-0", base_bytes(s),
                    {"metadata key 'llama.block_count' = 0 is outside [1, 1024]"});

  s = {};
  s.edit_metadata = [](GgufWriter& w) { w.set_u32("llama.attention.head_count", 3); };
  expect_load_fails("head-count-3", base_bytes(s),
                    {"embedding_length 64 is not divisible by head_count 3"});
  s = {};
  s.edit_metadata = [](GgufWriter& w) { w.set_u32("llama.attention.head_count_kv", 3); };
  expect_load_fails("kv-heads-3", base_bytes(s),
                    {"head_count 2 is not a multiple of head_count_kv 3"});
  s = {};
  s.edit_metadata = [](GgufWriter& w) {
    w.set_f32("llama.attention.layer_norm_rms_epsilon", -1.0f);
  };
  expect_load_fails("rms-eps-negative", base_bytes(s),
                    {"llama.attention.layer_norm_rms_epsilon", "got -1"});
}

TEST(GgufHostile, ModelTokenizer) {
  Spec s;
  s.edit_vocab = [](auto&, auto& scores, auto&) { scores.pop_back(); };
  expect_load_fails("scores-short", base_bytes(s),
                    {"tokenizer.ggml.scores has 299 entries for 300 tokens"});
  s = {};
  s.edit_vocab = [](auto&, auto&, auto& types) { types.push_back(1); };
  expect_load_fails("types-long", base_bytes(s),
                    {"tokenizer.ggml.token_type has 301 entries for 300 tokens"});
  s = {};
  s.edit_vocab = [](auto& pieces, auto&, auto&) { pieces[3 + 0x41] = "<0xZZ>"; };
  expect_load_fails("byte-piece", base_bytes(s), {"byte piece 68 is \"<0xZZ>\""});
  s = {};
  s.omit_keys = {"tokenizer.ggml.tokens"};
  expect_load_fails("no-tokens", base_bytes(s), {"tokenizer.ggml.tokens is missing"});
  s = {};
  s.edit_metadata = [](GgufWriter& w) { w.set_u32("tokenizer.ggml.eos_token_id", 300); };
  expect_load_fails("eos-out-of-range", base_bytes(s), {"eos id 300 is out of range"});
  // 300 pieces, but an embedding (and output) of 301 rows.
  s = {};
  s.dims["token_embd.weight"] = {kDim, kVocab + 1};
  s.dims["output.weight"] = {kDim, kVocab + 1};
  expect_load_fails("vocab-vs-embd", base_bytes(s),
                    {"the tokenizer has 300 tokens but token_embd.weight has 301 rows"});
}

TEST(GgufHostile, NotAFile) {
  const std::string empty = write_file("empty.gguf", {});
  auto m = Model::load(empty);
  ASSERT_FALSE(m.ok());
  expect_contains(m.message(), {empty, "the file is empty"});
  const Verdict r = parse_exact({}, "empty-mem.gguf");
  ASSERT_FALSE(r.ok);
  expect_contains(r.message, {"empty-mem.gguf", "truncated: too short for a GGUF header"});

  const std::string dir = temp_dir().file("a-directory.gguf");
  fs::create_directories(dir);
  m = Model::load(dir);
  ASSERT_FALSE(m.ok());
  expect_contains(m.message(), {dir, "not a regular file"});

  const std::string missing = temp_dir().file("no-such-model.gguf");
  m = Model::load(missing);
  ASSERT_FALSE(m.ok());
  expect_contains(m.message(), {missing, "cannot open", "No such file or directory"});

  // Text, and a GGUF header with nothing after it.
  const std::string text = write_file("text.gguf", {'h', 'e', 'l', 'l', 'o', '\n'});
  m = Model::load(text);
  ASSERT_FALSE(m.ok());
  expect_contains(m.message(), {text, "bad magic"});
  Bytes header = base_bytes();
  header.resize(24);
  poke<uint64_t>(header, 8, 0);
  poke<uint64_t>(header, 16, 0);
  const std::string bare = write_file("bare-header.gguf", header);
  m = Model::load(bare);
  ASSERT_FALSE(m.ok());
  expect_contains(m.message(), {bare, "missing metadata key 'general.architecture'"});
}

}  // namespace
}  // namespace kvchat
