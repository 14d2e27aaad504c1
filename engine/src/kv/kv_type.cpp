#include "kv/kv_type.h"

#include "kvchat/kv_types.h"

namespace kvchat {

std::string_view kv_type_name(KvType t) {
  switch (t) {
    case KvType::F32: return "f32";
    case KvType::F16: return "f16";
    case KvType::Q8_0: return "q8_0";
    case KvType::Q4_0: return "q4_0";
  }
  return "unknown";
}

std::optional<KvType> parse_kv_type(std::string_view name) {
  for (KvType t : kAllKvTypes) {
    if (name == kv_type_name(t)) return t;
  }
  return std::nullopt;
}

gguf::TensorType kv_storage_type(KvType t) {
  switch (t) {
    case KvType::F32: return gguf::TensorType::F32;
    case KvType::F16: return gguf::TensorType::F16;
    case KvType::Q8_0: return gguf::TensorType::Q8_0;
    case KvType::Q4_0: return gguf::TensorType::Q4_0;
  }
  return gguf::TensorType::F32;
}

int32_t kv_block_values(KvType t) { return t == KvType::Q8_0 || t == KvType::Q4_0 ? 32 : 1; }

int32_t kv_block_bytes(KvType t) {
  switch (t) {
    case KvType::F32: return 4;
    case KvType::F16: return 2;
    case KvType::Q8_0: return 34;
    case KvType::Q4_0: return 18;
  }
  return 4;
}

std::vector<KvTypeCost> kv_type_costs() {
  std::vector<KvTypeCost> costs;
  for (KvType t : kAllKvTypes) {
    costs.push_back({std::string(kv_type_name(t)), static_cast<uint32_t>(kv_block_bytes(t)),
                     static_cast<uint32_t>(kv_block_values(t))});
  }
  return costs;
}

}  // namespace kvchat
