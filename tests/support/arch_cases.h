// The architecture cases the backend comparisons run: every synthetic_arch_spec
// architecture, plus "qwen2-yarn" (qwen2 with YaRN, factor 4 over 128 tokens) and
// "phi3-longrope-short" (phi3-longrope run at its original 64-token context: the short
// factors; phi3-longrope itself runs at its trained 512, the long ones).
#pragma once

#include <string>
#include <vector>

#include "model/synthetic_model.h"

namespace kvchat::test {

inline std::vector<std::string> arch_case_names() {
  std::vector<std::string> names = synthetic_arch_names();
  names.push_back("qwen2-yarn");
  names.push_back("phi3-longrope-short");
  return names;
}

inline Result<SyntheticModelSpec> arch_case_spec(const std::string& name) {
  auto spec = synthetic_arch_spec(name == "qwen2-yarn"            ? "qwen2"
                                  : name == "phi3-longrope-short" ? "phi3-longrope"
                                                                  : name);
  if (spec && name == "qwen2-yarn") {
    spec->rope_scaling = "yarn";
    spec->rope_factor = 4;
    spec->rope_orig_ctx = 128;
  }
  return spec;
}

// The context a case's sessions run at: 64 for phi3-longrope-short, else 0 (trained).
inline int32_t arch_case_ctx(const std::string& name) {
  return name == "phi3-longrope-short" ? 64 : 0;
}

}  // namespace kvchat::test
