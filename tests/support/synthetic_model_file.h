// A synthetic model of one architecture (model/synthetic_model.h: synthetic_arch_spec) as a
// GGUF file, written once per test process into a temporary directory that lives until
// the process ends: for tests that need a model file of another architecture than the
// shipped ones (whose stories260K has head_dim 8, which the CUDA kernels refuse).
#pragma once

#include <map>
#include <string>

#include "model/synthetic_model.h"
#include "support/test_paths.h"

namespace kvchat::test {

// The path of `arch`'s synthetic model ("" when it could not be written).
inline std::string synthetic_model_file(const std::string& arch) {
  static TempDir dir;
  static std::map<std::string, std::string> written;
  if (auto it = written.find(arch); it != written.end()) return it->second;
  auto spec = synthetic_arch_spec(arch);
  const std::string path = dir.file(arch + ".gguf");
  const bool ok = spec && write_synthetic_model(path, *spec);
  return written[arch] = ok ? path : std::string();
}

}  // namespace kvchat::test
