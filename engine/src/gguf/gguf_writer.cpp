#include "gguf/gguf_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace kvchat::gguf {

namespace {

template <class T>
void put(std::vector<uint8_t>& out, T v) {
  const size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  const size_t at = out.size();
  out.resize(at + s.size());
  if (!s.empty()) std::memcpy(out.data() + at, s.data(), s.size());
}

void put_value(std::vector<uint8_t>& out, const Value& v) {
  switch (v.type) {
    case ValueType::UINT8: put<uint8_t>(out, static_cast<uint8_t>(v.u)); break;
    case ValueType::INT8: put<int8_t>(out, static_cast<int8_t>(v.i)); break;
    case ValueType::UINT16: put<uint16_t>(out, static_cast<uint16_t>(v.u)); break;
    case ValueType::INT16: put<int16_t>(out, static_cast<int16_t>(v.i)); break;
    case ValueType::UINT32: put<uint32_t>(out, static_cast<uint32_t>(v.u)); break;
    case ValueType::INT32: put<int32_t>(out, static_cast<int32_t>(v.i)); break;
    case ValueType::UINT64: put<uint64_t>(out, v.u); break;
    case ValueType::INT64: put<int64_t>(out, v.i); break;
    case ValueType::FLOAT32: put<float>(out, static_cast<float>(v.f)); break;
    case ValueType::FLOAT64: put<double>(out, v.f); break;
    case ValueType::BOOL: put<uint8_t>(out, v.u ? 1 : 0); break;
    case ValueType::STRING: put_string(out, v.s); break;
    case ValueType::ARRAY:
      put<uint32_t>(out, static_cast<uint32_t>(v.array_type));
      put<uint64_t>(out, v.array.size());
      for (const Value& e : v.array) put_value(out, e);
      break;
  }
}

Value array_of(ValueType t, size_t n) {
  Value v;
  v.type = ValueType::ARRAY;
  v.array_type = t;
  v.array.resize(n);
  for (Value& e : v.array) e.type = t;
  return v;
}

}  // namespace

void GgufWriter::set(const std::string& key, Value value) {
  for (auto& kv : metadata_) {
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  }
  metadata_.emplace_back(key, std::move(value));
}

void GgufWriter::set_u32(const std::string& key, uint32_t v) {
  Value x;
  x.type = ValueType::UINT32;
  x.u = v;
  set(key, std::move(x));
}

void GgufWriter::set_f32(const std::string& key, float v) {
  Value x;
  x.type = ValueType::FLOAT32;
  x.f = v;
  set(key, std::move(x));
}

void GgufWriter::set_bool(const std::string& key, bool v) {
  Value x;
  x.type = ValueType::BOOL;
  x.u = v;
  set(key, std::move(x));
}

void GgufWriter::set_string(const std::string& key, const std::string& v) {
  Value x;
  x.type = ValueType::STRING;
  x.s = v;
  set(key, std::move(x));
}

void GgufWriter::set_strings(const std::string& key, const std::vector<std::string>& v) {
  Value x = array_of(ValueType::STRING, v.size());
  for (size_t k = 0; k < v.size(); ++k) x.array[k].s = v[k];
  set(key, std::move(x));
}

void GgufWriter::set_f32s(const std::string& key, const std::vector<float>& v) {
  Value x = array_of(ValueType::FLOAT32, v.size());
  for (size_t k = 0; k < v.size(); ++k) x.array[k].f = v[k];
  set(key, std::move(x));
}

void GgufWriter::set_i32s(const std::string& key, const std::vector<int32_t>& v) {
  Value x = array_of(ValueType::INT32, v.size());
  for (size_t k = 0; k < v.size(); ++k) x.array[k].i = v[k];
  set(key, std::move(x));
}

void GgufWriter::set_bools(const std::string& key, const std::vector<bool>& v) {
  Value x = array_of(ValueType::BOOL, v.size());
  for (size_t k = 0; k < v.size(); ++k) x.array[k].u = v[k] ? 1 : 0;
  set(key, std::move(x));
}

void GgufWriter::add_tensor(const std::string& name, std::vector<uint64_t> dims, TensorType type,
                            Filler fill) {
  auto traits = tensor_type_traits(static_cast<uint32_t>(type));
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;
  uint64_t n_bytes = n / traits->block_elements * traits->block_bytes;
  tensors_.push_back({name, std::move(dims), type, n_bytes, data_size_, std::move(fill)});
  data_size_ = (data_size_ + n_bytes + alignment_ - 1) / alignment_ * alignment_;
}

void GgufWriter::add_tensor(const std::string& name, std::vector<uint64_t> dims, TensorType type,
                            std::span<const uint8_t> data) {
  std::vector<uint8_t> copy(data.begin(), data.end());
  add_tensor(name, std::move(dims), type, [copy](uint8_t* dst, uint64_t n) {
    std::memcpy(dst, copy.data(), std::min<uint64_t>(n, copy.size()));
  });
}

std::vector<uint8_t> GgufWriter::header_bytes() const {
  std::vector<uint8_t> out;
  put<uint32_t>(out, 0x46554747u);
  put<uint32_t>(out, 3);
  put<uint64_t>(out, tensors_.size());
  put<uint64_t>(out, metadata_.size());
  for (const auto& [key, value] : metadata_) {
    put_string(out, key);
    put<uint32_t>(out, static_cast<uint32_t>(value.type));
    put_value(out, value);
  }
  for (const PendingTensor& t : tensors_) {
    put_string(out, t.name);
    put<uint32_t>(out, static_cast<uint32_t>(t.dims.size()));
    for (uint64_t d : t.dims) put<uint64_t>(out, d);
    put<uint32_t>(out, static_cast<uint32_t>(t.type));
    put<uint64_t>(out, t.offset);
  }
  out.resize((out.size() + alignment_ - 1) / alignment_ * alignment_, 0);
  return out;
}

std::vector<uint8_t> GgufWriter::to_bytes() const {
  std::vector<uint8_t> out = header_bytes();
  size_t base = out.size();
  out.resize(base + data_size_, 0);
  for (const PendingTensor& t : tensors_) t.fill(out.data() + base + t.offset, t.n_bytes);
  return out;
}

Status GgufWriter::write_file(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(tmp.c_str(), "wb"), &std::fclose);
  if (!f) return Error{tmp + ": cannot create: " + std::strerror(errno)};
  auto fail = [&](const char* what) {
    std::string msg = tmp + ": " + what + ": " + std::strerror(errno);
    f.reset();
    std::remove(tmp.c_str());
    return Error{msg};
  };
  std::vector<uint8_t> header = header_bytes();
  if (std::fwrite(header.data(), 1, header.size(), f.get()) != header.size()) return fail("write");
  uint64_t written = 0;
  std::vector<uint8_t> buf;
  for (const PendingTensor& t : tensors_) {
    std::vector<uint8_t> pad(t.offset - written, 0);
    if (!pad.empty() && std::fwrite(pad.data(), 1, pad.size(), f.get()) != pad.size())
      return fail("write");
    buf.assign(t.n_bytes, 0);
    t.fill(buf.data(), t.n_bytes);
    if (std::fwrite(buf.data(), 1, buf.size(), f.get()) != buf.size()) return fail("write");
    written = t.offset + t.n_bytes;
  }
  std::vector<uint8_t> tail(data_size_ - written, 0);
  if (!tail.empty() && std::fwrite(tail.data(), 1, tail.size(), f.get()) != tail.size())
    return fail("write");
  if (std::fflush(f.get()) != 0) return fail("flush");
  f.reset();
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string msg = path + ": cannot rename the temporary file: " + std::strerror(errno);
    std::remove(tmp.c_str());
    return Error{msg};
  }
  return {};
}

}  // namespace kvchat::gguf
