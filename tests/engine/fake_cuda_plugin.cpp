// libkvchat-fake-cuda.so: the fake CUDA backend (support/fake_cuda_backend.h) as a plugin
// that kvchat-cli loads through $KVCHAT_CUDA_PLUGIN, its fault read from
// $KVCHAT_FAKE_CUDA_FAULT ("none", "offset[:amount]", "decode-only[:amount]", "nan",
// "fail"). Like the real plugin it links no engine: the executable exports the symbols.
#include <cstdlib>

#include "support/fake_cuda_backend.h"

namespace {
struct Registration {
  Registration() {
    const char* fault = std::getenv("KVCHAT_FAKE_CUDA_FAULT");
    kvchat::test::parse_fake_fault(fault ? fault : "none", kvchat::test::fake_cuda_config());
    kvchat::register_backend(kvchat::BackendKind::Cuda, &kvchat::test::make_fake_cuda_backend);
  }
};
Registration registration;
}  // namespace
