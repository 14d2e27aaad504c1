// libFuzzer entry point: inspect_gguf_prefix on any prefix of a file of any declared
// size must give an error that says why, a request for more bytes beyond the prefix
// (within the file), or a complete inspection whose fit() answers or refuses — never a
// crash, and memory bounded by the prefix (a hostile header's counts are not trusted).
//
// Input: byte 0 picks the declared file size (even: the prefix's own size; odd: the
// prefix's size plus the little-endian u32 of bytes 1..4); the prefix starts at byte 5.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "kvchat/gguf_inspect.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 5) return 0;
  uint32_t extra = 0;
  std::memcpy(&extra, data + 1, 4);
  const std::span<const uint8_t> prefix(data + 5, size - 5);
  const uint64_t file_size = prefix.size() + ((data[0] & 1) ? extra : 0);
  auto in = kvchat::inspect_gguf_prefix(prefix, file_size);
  if (!in) {
    if (in.message().empty()) std::abort();  // every rejection must say why
    return 0;
  }
  if (in->bytes_needed > 0) {
    if (in->bytes_needed <= prefix.size() || in->bytes_needed > file_size) std::abort();
    return 0;
  }
  if (in->header_bytes > file_size || (!in->runnable && in->why_not.empty())) std::abort();
  for (const char* kv : {"f16", "q4_0"}) {
    auto fit = in->fit(0, kv, uint64_t{1} << 32);
    if (!fit && fit.message().empty()) std::abort();
    if (fit && fit->fits != (fit->total_bytes <= fit->free_bytes)) std::abort();
  }
  return 0;
}
