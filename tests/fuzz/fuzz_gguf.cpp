// libFuzzer entry point: any byte string given to the GGUF parser must produce either a
// file whose every tensor lies inside the input, or an error message — never a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "gguf/gguf_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = kvchat::gguf::GgufFile::parse({data, size}, "fuzz");
  if (!file) {
    if (file.message().empty()) std::abort();  // every rejection must say why
    return 0;
  }
  for (const auto& t : (*file)->tensors()) {
    const uint8_t* p = (*file)->tensor_data(t);
    if (p < data || p + t.n_bytes > data + size) std::abort();
    volatile uint8_t sink = t.n_bytes ? p[t.n_bytes - 1] : 0;  // ASan checks the last byte
    (void)sink;
  }
  for (const auto& kv : (*file)->metadata()) {
    volatile size_t n = kv.value.to_display_string().size();
    (void)n;
  }
  return 0;
}
