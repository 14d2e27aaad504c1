// Paths and small helpers shared by the engine tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <vector>

namespace kvchat::test {

inline std::string shared_path(const std::string& rel) {
  return std::string(KVCHAT_SHARED_DIR) + "/" + rel;
}
inline std::string bin_path(const std::string& name) {
  return std::string(KVCHAT_BIN_DIR) + "/" + name;
}

inline nlohmann::json load_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(f);
}

// A file's whole contents, and a file written with exactly `bytes` (replacing it).
inline std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
inline void write_bytes(const std::string& path, std::span<const uint8_t> bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A fresh directory under the system temp dir, removed with the object.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "kvchat-test-XXXXXX").string();
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Largest |a - b| divided by the largest |b|, over two equally long rows.
template <class A, class B>
double max_rel_error(const A& got, const B& ref, size_t n) {
  double max_ref = 0, max_diff = 0;
  for (size_t i = 0; i < n; ++i) {
    max_ref = std::max(max_ref, std::abs(static_cast<double>(ref[i])));
    max_diff =
        std::max(max_diff, std::abs(static_cast<double>(got[i]) - static_cast<double>(ref[i])));
  }
  return max_ref > 0 ? max_diff / max_ref : max_diff;
}

}  // namespace kvchat::test
